//! `vramfit watch -- CMD ARGS...`: runs a command, samples every GPU's used
//! memory while it runs (one sample before it starts), and ends with the
//! command's exit code and each GPU's peak on stderr (stdout and stdin stay
//! the command's).
//!
//! The command never outlives the companion: it is killed on every exit path
//! of ours (`Running`'s drop), and on Linux the kernel kills it if the
//! companion dies without running them (`PR_SET_PDEATHSIG`). SIGTERM and
//! SIGHUP sent to the companion are passed on; so is SIGINT/SIGQUIT, unless
//! the companion runs in the terminal's foreground, where Ctrl-C already
//! reached the command (one process group) and a second copy would
//! interrupt its own cleanup. The companion waits for the command either way.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, ErrorKind, Write};
use std::process::{Child, Command, ExitCode, ExitStatus};
use std::time::{Duration, Instant};

use vramfit_core::logs::companion_csv::{row as csv_row, Sample};

use crate::cmd_watch::{gpu_names, open_csv, warn_on_crossing, Args};
use crate::gpu::{open_source, used_percent, GpuSource};
use crate::output::{fail, gib};

/// How often the companion checks whether the command ended or a signal came.
const POLL: Duration = Duration::from_millis(20);

/// The command, killed if it is still running when this is dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The samples taken so far, the CSV log, and the first sampling failure.
struct Log {
    start: Instant,
    samples: Vec<Sample>,
    above: HashSet<u32>,
    csv: Option<BufWriter<File>>,
    failure: Option<String>,
}

impl Log {
    /// One sample of every GPU; after a failure sampling stops (the command
    /// goes on: a monitoring fault never ends a training run).
    fn sample(&mut self, source: &dyn GpuSource, threshold: f64) {
        if self.failure.is_some() {
            return;
        }
        let readings = match source.sample_used() {
            Ok(readings) => readings,
            Err(error) => return self.stop(error.to_string()),
        };
        let time_s = self.start.elapsed().as_secs_f64();
        for reading in &readings {
            let sample = Sample {
                time_s,
                gpu: reading.gpu,
                used_bytes: reading.used_bytes,
                total_bytes: reading.total_bytes,
            };
            if let Some(writer) = self.csv.as_mut() {
                if let Err(error) =
                    writeln!(writer, "{}", csv_row(&sample)).and_then(|()| writer.flush())
                {
                    self.csv = None;
                    return self.stop(format!("--csv: cannot write: {error}"));
                }
            }
            self.samples.push(sample);
        }
        warn_on_crossing(&readings, threshold, &mut self.above);
    }

    fn stop(&mut self, why: String) {
        eprintln!("vramfit: stopped sampling ({why}); waiting for the command");
        self.failure = Some(why);
    }
}

pub fn run(args: &Args) -> ExitCode {
    let Some((program, program_args)) = args.command.split_first() else {
        return fail("watch --: name the command to run");
    };
    let source = match open_source() {
        Ok(source) => source,
        Err(error) => return fail(error),
    };
    let names = match gpu_names(source.as_ref()) {
        Ok(names) => names,
        Err(error) => return fail(error),
    };
    let csv = match &args.csv {
        None => None,
        Some(path) => match open_csv(path) {
            Ok(writer) => Some(writer),
            Err(error) => return fail(format!("--csv {}: cannot write: {error}", path.display())),
        },
    };
    let forwarder = signals::Forwarder::install();
    let mut log = Log {
        start: Instant::now(),
        samples: Vec::new(),
        above: HashSet::new(),
        csv,
        failure: None,
    };
    log.sample(source.as_ref(), args.threshold);
    let mut command = Command::new(program);
    command.args(program_args);
    signals::die_with_parent(&mut command);
    let mut running = match command.spawn() {
        Ok(child) => Running(child),
        Err(error) => return spawn_failure(program, &error),
    };
    let status = loop {
        match wait(&mut running.0, args.interval, &forwarder) {
            Ok(Some(status)) => break status,
            Ok(None) => log.sample(source.as_ref(), args.threshold),
            Err(error) => return fail(format!("cannot wait for the command: {error}")),
        }
    };
    eprintln!(
        "vramfit: {} {} after {:.1} s",
        program.to_string_lossy(),
        ended(status),
        log.start.elapsed().as_secs_f64()
    );
    print_peaks(&log.samples, &names);
    ExitCode::from(exit_code(status))
}

/// Waits up to `interval` for the command, passing signals on; its status
/// once it has ended.
fn wait(
    child: &mut Child,
    interval: Duration,
    forwarder: &signals::Forwarder,
) -> std::io::Result<Option<ExitStatus>> {
    let until = Instant::now() + interval;
    loop {
        forwarder.forward(child.id());
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= until {
            return Ok(None);
        }
        std::thread::sleep((until - now).min(POLL));
    }
}

/// A shell's codes: 127 when the command is not found, 126 when it cannot run.
fn spawn_failure(program: &OsString, error: &std::io::Error) -> ExitCode {
    eprintln!("vramfit: cannot run {}: {error}", program.to_string_lossy());
    ExitCode::from(match error.kind() {
        ErrorKind::NotFound => 127,
        _ => 126,
    })
}

/// The exit code to end with: the command's, or 128 + the signal that
/// ended it (as a shell reports it).
fn exit_code(status: ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        // Windows codes above 255 cannot be an exit code here: failure.
        return u8::try_from(code).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return u8::try_from(128 + signal).unwrap_or(1);
        }
    }
    1
}

fn ended(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exited with code {code}"),
        None => format!("was ended by a signal (exit code {})", exit_code(status)),
    }
}

/// Each GPU's highest reading, when it came, and the reading before the
/// command started.
#[derive(Debug, PartialEq)]
pub struct Peak {
    pub gpu: u32,
    pub peak_bytes: u64,
    pub at_s: f64,
    pub before_bytes: u64,
    pub total_bytes: u64,
}

pub fn peaks(samples: &[Sample]) -> Vec<Peak> {
    let mut by_gpu: BTreeMap<u32, Peak> = BTreeMap::new();
    for s in samples {
        let peak = by_gpu.entry(s.gpu).or_insert(Peak {
            gpu: s.gpu,
            peak_bytes: s.used_bytes,
            at_s: s.time_s,
            before_bytes: s.used_bytes,
            total_bytes: s.total_bytes,
        });
        if s.used_bytes > peak.peak_bytes {
            peak.peak_bytes = s.used_bytes;
            peak.at_s = s.time_s;
        }
    }
    by_gpu.into_values().collect()
}

fn print_peaks(samples: &[Sample], names: &HashMap<u32, String>) {
    let all = peaks(samples);
    if all.is_empty() {
        eprintln!("vramfit: no memory sample was taken");
    }
    for p in all {
        eprintln!(
            "vramfit: peak GPU {} ({}): {} of {} ({:.1}%) at {:.1} s; {} in use before the command (+{})",
            p.gpu,
            names.get(&p.gpu).map_or("unknown GPU", String::as_str),
            gib(p.peak_bytes),
            gib(p.total_bytes),
            used_percent(p.peak_bytes, p.total_bytes).unwrap_or(0.0),
            p.at_s,
            gib(p.before_bytes),
            gib(p.peak_bytes.saturating_sub(p.before_bytes)),
        );
    }
}

#[cfg(unix)]
mod signals {
    use std::process::Command;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use nix::sys::signal::{kill, Signal};
    use nix::unistd::{getpgrp, tcgetpgrp, Pid};

    /// The signals that came to the companion, to pass on to the command.
    pub struct Forwarder {
        pending: Vec<(Signal, Arc<AtomicBool>, bool)>,
    }

    impl Forwarder {
        /// Catches SIGTERM, SIGHUP, SIGINT and SIGQUIT: the companion then
        /// outlives them to pass them on and report.
        pub fn install() -> Self {
            // In the terminal's foreground group the terminal's own signals
            // (Ctrl-C, Ctrl-\) reach the command directly.
            let foreground = tcgetpgrp(std::io::stdin()).is_ok_and(|group| group == getpgrp());
            let pending = [
                (Signal::SIGTERM, true),
                (Signal::SIGHUP, true),
                (Signal::SIGINT, !foreground),
                (Signal::SIGQUIT, !foreground),
            ]
            .into_iter()
            .filter_map(|(signal, pass_on)| {
                let flag = Arc::new(AtomicBool::new(false));
                match signal_hook::flag::register(signal as i32, Arc::clone(&flag)) {
                    Ok(_) => Some((signal, flag, pass_on)),
                    Err(error) => {
                        eprintln!("vramfit: {signal} will not reach the command: {error}");
                        None
                    }
                }
            })
            .collect();
            Forwarder { pending }
        }

        /// Sends the command each signal that came since the last call.
        pub fn forward(&self, child: u32) {
            let Ok(pid) = i32::try_from(child) else {
                return;
            };
            for (signal, flag, pass_on) in &self.pending {
                if flag.swap(false, Ordering::SeqCst) && *pass_on {
                    let _ = kill(Pid::from_raw(pid), *signal);
                }
            }
        }
    }

    /// Linux: the kernel kills the command when the companion dies, even by
    /// SIGKILL, when no code of ours runs.
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)] // `pre_exec` is unsafe; the workspace denies unsafe
    pub fn die_with_parent(command: &mut Command) {
        use std::os::unix::process::CommandExt;
        let parent = nix::unistd::getpid();
        // SAFETY: the closure runs in the forked child before exec and makes
        // only async-signal-safe system calls (prctl, getppid); it allocates
        // nothing (the error is a raw OS error).
        unsafe {
            command.pre_exec(move || {
                nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
                // The companion died before the request took effect.
                if nix::unistd::getppid() != parent {
                    return Err(nix::errno::Errno::ESRCH.into());
                }
                Ok(())
            });
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn die_with_parent(_command: &mut Command) {}
}

#[cfg(not(unix))]
mod signals {
    use std::process::Command;

    /// Windows: Ctrl-C reaches every process of the console, the command
    /// included; the companion only outlives it, to wait and report.
    pub struct Forwarder;

    impl Forwarder {
        pub fn install() -> Self {
            if let Err(error) = ctrlc::set_handler(|| {}) {
                eprintln!("vramfit: Ctrl-C may end the companion before the command: {error}");
            }
            Forwarder
        }

        pub fn forward(&self, _child: u32) {}
    }

    pub fn die_with_parent(_command: &mut Command) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peaks_per_gpu_with_the_reading_before_the_command() {
        let sample = |time_s, gpu, used_bytes| Sample {
            time_s,
            gpu,
            used_bytes,
            total_bytes: 100,
        };
        let samples = [
            sample(0.0, 0, 10),
            sample(0.0, 1, 5),
            sample(1.0, 0, 70),
            sample(1.0, 1, 5),
            sample(2.0, 0, 40),
        ];
        let all = peaks(&samples);
        assert_eq!(
            all[0],
            Peak {
                gpu: 0,
                peak_bytes: 70,
                at_s: 1.0,
                before_bytes: 10,
                total_bytes: 100
            }
        );
        assert_eq!((all[1].gpu, all[1].peak_bytes, all[1].at_s), (1, 5, 0.0));
    }
}
