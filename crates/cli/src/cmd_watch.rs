//! `vramfit watch`: samples the used memory of every GPU, draws a live bar per
//! GPU, warns above a threshold, and optionally logs `time_s,gpu,used_bytes,
//! total_bytes` rows to a CSV file (the format the log analyzer imports).
//! `watch -- CMD` runs a command while it samples (`child.rs`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use vramfit_core::logs::companion_csv::{row, Sample, HEADER};
use vramfit_core::logs::fit::Fit;

use crate::gpu::{open_source, used_percent, GpuSource, MemoryReading, SourceError};
use crate::output::{fail, gib};

/// Shortest sampling interval: NVML memory queries take well under a
/// millisecond, and 10 ms keeps a busy loop from starving the machine.
const MIN_INTERVAL: Duration = Duration::from_millis(10);
/// Longest sampling interval: one hour; slower than that is not watching.
const MAX_INTERVAL: Duration = Duration::from_secs(3600);
/// Upper bound on `--samples`: a year of one-second samples, far beyond any run.
const MAX_SAMPLES: u64 = 366 * 24 * 3600;
/// How often a sleeping watch checks for Ctrl-C, so it stops promptly.
const STOP_POLL: Duration = Duration::from_millis(50);
/// Width of the text bar in characters.
const BAR_WIDTH: usize = 30;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Time between samples: `500ms`, `1s`, `2m`, `1h` or plain seconds (10ms to 1h).
    #[arg(long, default_value = "1s", value_parser = parse_interval)]
    pub interval: Duration,
    /// Also write every sample to this CSV file (time_s,gpu,used_bytes,total_bytes).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Warn when a GPU's used memory goes above this percent of its total (0 < p <= 100).
    #[arg(long, default_value = "90", value_parser = parse_threshold)]
    pub threshold: f64,
    /// Stop after this many samples (default: until Ctrl-C).
    #[arg(long, value_parser = parse_samples)]
    pub samples: Option<u64>,
    /// Run this command and watch while it runs (`watch -- python train.py`):
    /// ends with its exit code and each GPU's peak.
    #[arg(last = true, value_name = "COMMAND", conflicts_with = "samples")]
    pub command: Vec<std::ffi::OsString>,
}

fn parse_interval(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, seconds_per_unit) = if let Some(n) = text.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = text.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (text, 1.0)
    };
    let range = "allowed 10ms to 1h, e.g. 500ms, 1s, 2m";
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("interval: {text:?} is not a duration: {range}"))?;
    let seconds = value * seconds_per_unit;
    if !seconds.is_finite()
        || seconds < MIN_INTERVAL.as_secs_f64()
        || seconds > MAX_INTERVAL.as_secs_f64()
    {
        return Err(format!("interval: {text} is out of range: {range}"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

fn parse_threshold(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err(format!(
            "threshold: {text:?} is out of range: allowed a percent above 0 and at most 100"
        )),
    }
}

fn parse_samples(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_SAMPLES).contains(&n) => Ok(n),
        _ => Err(format!(
            "samples: {text:?} is out of range: allowed 1 to {MAX_SAMPLES}"
        )),
    }
}

/// Set by the Ctrl-C handler; the loop ends at the next check.
static STOP: AtomicBool = AtomicBool::new(false);

pub fn run(args: &Args) -> ExitCode {
    if !args.command.is_empty() {
        return crate::child::run(args);
    }
    let source = match open_source() {
        Ok(source) => source,
        Err(error) => return fail(error),
    };
    let names = match gpu_names(source.as_ref()) {
        Ok(names) => names,
        Err(error) => return fail(error),
    };
    let mut csv = match &args.csv {
        None => None,
        Some(path) => match open_csv(path) {
            Ok(writer) => Some(writer),
            Err(error) => return fail(format!("--csv {}: cannot write: {error}", path.display())),
        },
    };
    // Without a handler Ctrl-C still ends the process, only without the
    // summary, so a failure to install one is not fatal.
    if let Err(error) = ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst)) {
        eprintln!("vramfit: Ctrl-C will not print a summary: {error}");
    }
    let outcome = watch_loop(source.as_ref(), args, &names, csv.as_mut());
    let flushed = match csv.as_mut() {
        Some(writer) => writer.flush(),
        None => Ok(()),
    };
    summarize(&outcome.samples);
    match (outcome.error, flushed) {
        (Some(error), _) => fail(error),
        (None, Err(error)) => fail(format!("--csv: cannot write: {error}")),
        (None, Ok(())) => ExitCode::SUCCESS,
    }
}

/// Each GPU's name by index, for the lines that name them.
pub(crate) fn gpu_names(source: &dyn GpuSource) -> Result<HashMap<u32, String>, SourceError> {
    Ok(source
        .devices()?
        .into_iter()
        .enumerate()
        .map(|(position, d)| {
            let index = d.index.unwrap_or(position as u32);
            (index, d.name.unwrap_or_else(|| "unknown GPU".into()))
        })
        .collect())
}

pub(crate) fn open_csv(path: &PathBuf) -> std::io::Result<BufWriter<File>> {
    let mut writer = BufWriter::new(File::create(path)?);
    writeln!(writer, "{HEADER}")?;
    writer.flush()?;
    Ok(writer)
}

struct Outcome {
    samples: Vec<Sample>,
    /// Why the watch ended early, if it did.
    error: Option<String>,
}

fn watch_loop(
    source: &dyn GpuSource,
    args: &Args,
    names: &HashMap<u32, String>,
    mut csv: Option<&mut BufWriter<File>>,
) -> Outcome {
    let live = std::io::stdout().is_terminal();
    let start = Instant::now();
    let mut samples = Vec::new();
    let mut above: HashSet<u32> = HashSet::new();
    let mut lines_drawn = 0;
    let mut taken: u64 = 0;
    loop {
        let readings = match source.sample_used() {
            Ok(readings) => readings,
            Err(error) => {
                return Outcome {
                    samples,
                    error: Some(error.to_string()),
                }
            }
        };
        let time_s = start.elapsed().as_secs_f64();
        for reading in &readings {
            let sample = Sample {
                time_s,
                gpu: reading.gpu,
                used_bytes: reading.used_bytes,
                total_bytes: reading.total_bytes,
            };
            if let Some(writer) = csv.as_mut() {
                if let Err(error) = writeln!(writer, "{}", row(&sample)) {
                    return Outcome {
                        samples,
                        error: Some(format!("--csv: cannot write: {error}")),
                    };
                }
            }
            samples.push(sample);
        }
        if let Some(writer) = csv.as_mut() {
            // Flushed every sample so a killed watch still leaves its log.
            let _ = writer.flush();
        }
        if warn_on_crossing(&readings, args.threshold, &mut above) {
            // The warning went below the live block on the terminal: start a
            // new block under it instead of redrawing over it.
            lines_drawn = 0;
        }
        let lines: Vec<String> = readings
            .iter()
            .map(|r| live_line(r, names.get(&r.gpu), args.threshold))
            .collect();
        lines_drawn = draw(&lines, time_s, live, lines_drawn);
        taken += 1;
        if args.samples.is_some_and(|n| taken >= n) || !sleep_unless_stopped(args.interval) {
            return Outcome {
                samples,
                error: None,
            };
        }
    }
}

/// Sleeps `interval` in short slices; false when Ctrl-C arrived.
fn sleep_unless_stopped(interval: Duration) -> bool {
    let until = Instant::now() + interval;
    loop {
        if STOP.load(Ordering::SeqCst) {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(STOP_POLL));
    }
}

/// One warning on stderr each time a GPU goes from at-or-below to above the
/// threshold, not one per sample. Returns whether it warned.
pub(crate) fn warn_on_crossing(
    readings: &[MemoryReading],
    threshold: f64,
    above: &mut HashSet<u32>,
) -> bool {
    let mut warned = false;
    for reading in readings {
        let percent = used_percent(reading.used_bytes, reading.total_bytes).unwrap_or(0.0);
        if percent > threshold {
            if above.insert(reading.gpu) {
                warned = true;
                eprintln!(
                    "vramfit: warning: GPU {} uses {percent:.1}% of its memory ({} of {}), above {threshold}%",
                    reading.gpu,
                    gib(reading.used_bytes),
                    gib(reading.total_bytes)
                );
            }
        } else {
            above.remove(&reading.gpu);
        }
    }
    warned
}

/// `[##########--------------------]` filled in proportion to `percent`.
pub fn bar(percent: f64, width: usize) -> String {
    let filled = ((percent.clamp(0.0, 100.0) / 100.0) * width as f64).round() as usize;
    let filled = filled.min(width);
    format!("[{}{}]", "#".repeat(filled), "-".repeat(width - filled))
}

fn live_line(reading: &MemoryReading, name: Option<&String>, threshold: f64) -> String {
    let percent = used_percent(reading.used_bytes, reading.total_bytes).unwrap_or(0.0);
    let marker = if percent > threshold {
        "  ! above threshold"
    } else {
        ""
    };
    format!(
        "GPU {} {:<24} {} {:>5.1}%  {} / {}{marker}",
        reading.gpu,
        name.map_or("unknown GPU", String::as_str),
        bar(percent, BAR_WIDTH),
        percent,
        gib(reading.used_bytes),
        gib(reading.total_bytes)
    )
}

/// On a terminal, redraws the previous lines in place; elsewhere prints a
/// new line per GPU per sample, prefixed with the time. Returns the number
/// of lines now on screen.
fn draw(lines: &[String], time_s: f64, live: bool, lines_drawn: usize) -> usize {
    let mut stdout = std::io::stdout().lock();
    let mut text = String::new();
    if live && lines_drawn > 0 {
        // ANSI: cursor up N lines, then each line is cleared before writing.
        text += &format!("\x1b[{lines_drawn}A");
    }
    for line in lines {
        if live {
            text += &format!("\x1b[2K{line}\n");
        } else {
            text += &format!("{time_s:>9.3}s {line}\n");
        }
    }
    // A closed stdout must not stop the CSV log: write errors are ignored.
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    lines.len()
}

/// Per-GPU summary of a watch.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuSummary {
    pub gpu: u32,
    pub samples: usize,
    pub min_used_bytes: u64,
    pub max_used_bytes: u64,
    pub last_used_bytes: u64,
    pub total_bytes: u64,
    pub duration_s: f64,
    /// Least-squares slope of used bytes over time (`logs::fit`), per minute; `None` with
    /// fewer than two distinct sample times.
    pub growth_bytes_per_minute: Option<f64>,
}

/// Groups samples by GPU (in GPU order) and summarizes each.
pub fn gpu_summaries(samples: &[Sample]) -> Vec<GpuSummary> {
    let mut by_gpu: BTreeMap<u32, Vec<&Sample>> = BTreeMap::new();
    for sample in samples {
        by_gpu.entry(sample.gpu).or_default().push(sample);
    }
    by_gpu
        .into_iter()
        .filter_map(|(gpu, rows)| {
            let first = rows.first()?;
            let last = rows.last()?;
            let points: Vec<(f64, f64)> = rows
                .iter()
                .map(|s| (s.time_s, s.used_bytes as f64))
                .collect();
            Some(GpuSummary {
                gpu,
                samples: rows.len(),
                min_used_bytes: rows.iter().map(|s| s.used_bytes).min()?,
                max_used_bytes: rows.iter().map(|s| s.used_bytes).max()?,
                last_used_bytes: last.used_bytes,
                total_bytes: last.total_bytes,
                duration_s: last.time_s - first.time_s,
                growth_bytes_per_minute: Fit::new(&points).map(|f| f.slope * 60.0),
            })
        })
        .collect()
}

/// Signed growth per minute in MiB, or GiB from 1 GiB/min on.
fn growth_text(bytes_per_minute: f64) -> String {
    let mib = bytes_per_minute / (1u64 << 20) as f64;
    if mib.abs() >= 1024.0 {
        format!("{:+.2} GiB/min", mib / 1024.0)
    } else {
        format!("{mib:+.1} MiB/min")
    }
}

/// Prints per-GPU min/max/last used memory and the growth per minute
/// (least squares) at the end of a watch, then the core log analyzer's
/// verdict (steady / linear / leak) and predicted time to OOM.
pub fn summarize(samples: &[Sample]) {
    let summaries = gpu_summaries(samples);
    if summaries.is_empty() {
        println!("summary: no samples");
        return;
    }
    println!("summary:");
    for s in summaries {
        let growth = match s.growth_bytes_per_minute {
            Some(bytes) => growth_text(bytes),
            None => "unknown (needs 2 samples)".to_string(),
        };
        println!(
            "GPU {}: used min {}, max {}, last {} of {}; growth {growth} (least squares over {} samples, {:.1} s)",
            s.gpu,
            gib(s.min_used_bytes),
            gib(s.max_used_bytes),
            gib(s.last_used_bytes),
            gib(s.total_bytes),
            s.samples,
            s.duration_s
        );
        analyze_gpu(samples, s.gpu, s.total_bytes);
    }
}

/// The core's log analyzer over one GPU's readings (time in seconds as the
/// step): steady, linear or accelerating, and when the trend reaches the card.
fn analyze_gpu(samples: &[Sample], gpu: u32, total_bytes: u64) {
    let points: Vec<vramfit_core::logs::Point> = samples
        .iter()
        .filter(|x| x.gpu == gpu)
        .map(|x| vramfit_core::logs::Point {
            step: x.time_s,
            bytes: x.used_bytes,
        })
        .collect();
    match vramfit_core::logs::analyze(points, Some(total_bytes)) {
        Ok(a) => {
            let when = match a.predicted_oom_step {
                Some(t) => format!("reaches {} at t = {t:.0} s", gib(total_bytes)),
                None => "does not reach the card's capacity".to_string(),
            };
            println!(
                "GPU {gpu}: trend {} ({}), {when}",
                a.trend.name(),
                growth_text(a.growth_bytes_per_step * 60.0),
            );
            for c in &a.causes {
                println!("  - {}", c.message);
            }
        }
        Err(e) => println!("GPU {gpu}: no trend: {}", e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_parse_with_units_and_reject_out_of_range() {
        assert_eq!(parse_interval("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_interval("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_interval("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_interval("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_interval("0.5"), Ok(Duration::from_millis(500)));
        for bad in ["", "fast", "5ms", "2h", "1.5h", "-1s", "NaN", "inf"] {
            let error = parse_interval(bad).expect_err(bad);
            assert!(error.starts_with("interval:"), "{error}");
        }
    }

    #[test]
    fn thresholds_and_sample_counts_are_range_checked() {
        assert_eq!(parse_threshold("90"), Ok(90.0));
        assert_eq!(parse_threshold("95.5%"), Ok(95.5));
        assert!(parse_threshold("0").is_err());
        assert!(parse_threshold("101").is_err());
        assert_eq!(parse_samples("3"), Ok(3));
        assert!(parse_samples("0").is_err());
        assert!(parse_samples("-2").is_err());
    }

    #[test]
    fn bar_fills_in_proportion() {
        // 50% of 10 cells is 5; 100% and above fill all; below 0 fills none.
        assert_eq!(bar(50.0, 10), "[#####-----]");
        assert_eq!(bar(150.0, 4), "[####]");
        assert_eq!(bar(-3.0, 4), "[----]");
    }

    #[test]
    fn summaries_per_gpu() {
        let sample = |time_s, gpu, used_bytes| Sample {
            time_s,
            gpu,
            used_bytes,
            total_bytes: 100,
        };
        // GPU 1 grows 10 bytes every 2 s: 5 bytes/s = 300 bytes/min.
        // GPU 0 goes 50, 70, 60: min 50, max 70, last 60.
        let samples = [
            sample(0.0, 1, 10),
            sample(0.0, 0, 50),
            sample(2.0, 1, 20),
            sample(2.0, 0, 70),
            sample(4.0, 1, 30),
            sample(4.0, 0, 60),
        ];
        let summaries = gpu_summaries(&samples);
        assert_eq!(summaries.len(), 2);
        let (gpu0, gpu1) = (&summaries[0], &summaries[1]);
        assert_eq!(
            (
                gpu0.gpu,
                gpu0.min_used_bytes,
                gpu0.max_used_bytes,
                gpu0.last_used_bytes
            ),
            (0, 50, 70, 60)
        );
        assert_eq!(gpu1.growth_bytes_per_minute, Some(300.0));
        assert_eq!((gpu1.samples, gpu1.duration_s), (3, 4.0));
    }

    #[test]
    fn growth_in_readable_units() {
        // 3 MiB/min stays in MiB; 2048 MiB/min is 2 GiB/min; shrinking is negative.
        assert_eq!(growth_text(3.0 * 1048576.0), "+3.0 MiB/min");
        assert_eq!(growth_text(2048.0 * 1048576.0), "+2.00 GiB/min");
        assert_eq!(growth_text(-512.0 * 1048576.0), "-512.0 MiB/min");
    }
}
