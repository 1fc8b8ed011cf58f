//! `--job-config FILE`: a training config (HF `TrainingArguments`, DeepSpeed
//! `ds_config.json`, torchtune or axolotl YAML) read by the core
//! (`vramfit_core::job_config`) as the base of the scenario; the scenario
//! flags apply on top, and the model comes from `-m`/`--config`/`--params`
//! or else from the config when it names a catalog model.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

use vramfit_core::job_config::{read_job_config, JobConfig, JobFormat, MAX_INPUT_BYTES};
use vramfit_core::scenario::Scenario;
use vramfit_core::url::{share_url, DEFAULT_BASE};
use vramfit_core::InputError;

use crate::scenario_args::ScenarioArgs;

#[derive(clap::Args, Clone, Default)]
pub struct JobArgs {
    /// Training config of the job: HF TrainingArguments (JSON/YAML), DeepSpeed
    /// ds_config.json, torchtune or axolotl YAML. Repeat it to read several
    /// (a later file applies over an earlier one); the flags apply on top.
    #[arg(
        long = "job-config",
        value_name = "FILE",
        conflicts_with_all = ["scenario", "url", "case"]
    )]
    pub files: Vec<PathBuf>,
    /// Format of the --job-config files when their keys do not tell it:
    /// hf, deepspeed, torchtune or axolotl.
    #[arg(long = "job-format", value_name = "FORMAT", requires = "files", value_parser = parse_format)]
    pub format: Option<JobFormat>,
}

fn parse_format(text: &str) -> Result<JobFormat, String> {
    JobFormat::parse(text).ok_or_else(|| {
        let keys: Vec<&str> = JobFormat::ALL.iter().map(|f| f.key()).collect();
        format!("\"{text}\" is not one of: {}", keys.join(", "))
    })
}

/// The scenario of the job, and each config file with what was read from it.
pub struct Job {
    pub scenario: Scenario,
    pub configs: Vec<(PathBuf, JobConfig)>,
}

/// The file's text, refused without reading it all when it is larger than
/// a training config can be.
fn read_capped(path: &Path) -> Result<String, InputError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path)
        .map_err(|e| InputError::new(&name, format!("cannot read: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::new(&name, format!("cannot read: {e}")))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(InputError::new(
            name,
            format!("larger than {MAX_INPUT_BYTES} bytes (1 MiB): not a training config"),
        ));
    }
    String::from_utf8(bytes).map_err(|_| InputError::new(name, "not UTF-8 text"))
}

impl JobArgs {
    /// The job the files describe, with the flags on top; `None` without files.
    pub fn build(&self, flags: &ScenarioArgs) -> Result<Option<Job>, InputError> {
        if self.files.is_empty() {
            return Ok(None);
        }
        let mut base = Scenario::default();
        let mut configs = Vec::new();
        for path in &self.files {
            let config = read_job_config(&read_capped(path)?, self.format, base).map_err(|e| {
                InputError::new(format!("{}: {}", path.display(), e.field), e.message)
            })?;
            base = config.scenario.clone();
            configs.push((path.clone(), config));
        }
        let source = &flags.source;
        let model_given =
            source.model.is_some() || source.config.is_some() || source.params.is_some();
        if !model_given && !configs.iter().any(|(_, c)| c.catalog_model().is_some()) {
            let named = configs.iter().find_map(|(_, c)| c.model.clone());
            return Err(InputError::new(
                "model",
                match named {
                    Some(name) => format!(
                        "the job config names \"{name}\", which is not in the catalog: \
                         give the model with -m ID or --config config.json"
                    ),
                    None => {
                        "the job config names no model: give it with -m ID or --config config.json"
                            .into()
                    }
                },
            ));
        }
        let scenario = flags.build_on(Some(base))?;
        Ok(Some(Job { scenario, configs }))
    }
}

/// A `--job-config` file and what was read from it, for `--json`.
#[derive(Serialize)]
pub struct JobConfigReport {
    file: String,
    #[serde(flatten)]
    config: JobConfig,
}

/// The scenario to check: the job configs' with the flags on top (what
/// they used said on stderr, and returned for `--json`), or the flags' alone.
pub fn scenario(
    job: &JobArgs,
    flags: &ScenarioArgs,
) -> Result<(Scenario, Vec<JobConfigReport>), InputError> {
    let Some(built) = job.build(flags)? else {
        return Ok((flags.build()?, Vec::new()));
    };
    describe(&built);
    let reports = built
        .configs
        .into_iter()
        .map(|(path, config)| JobConfigReport {
            file: path.display().to_string(),
            config,
        })
        .collect();
    Ok((built.scenario, reports))
}

/// What each config set and ignored, for people, on stderr (stdout stays
/// the command's answer), and the job as a link to the calculator.
fn describe(job: &Job) {
    for (path, config) in &job.configs {
        let model = config
            .model
            .as_deref()
            .map_or(String::new(), |m| format!(", model {m}"));
        eprintln!(
            "vramfit: {}: {}{model}",
            path.display(),
            config.format.name()
        );
        let mut used: Vec<&str> = Vec::new();
        for read in &config.read {
            if !used.contains(&read.key.as_str()) {
                used.push(&read.key);
            }
        }
        eprintln!("  used: {}", used.join(", "));
        for ignored in &config.ignored {
            if let Some(reason) = &ignored.reason {
                eprintln!("  ignored {}: {reason}", ignored.key);
            }
        }
        let plain: Vec<&str> = config
            .ignored
            .iter()
            .filter(|i| i.reason.is_none())
            .map(|i| i.key.as_str())
            .collect();
        if !plain.is_empty() {
            eprintln!("  ignored (no memory effect modeled): {}", plain.join(", "));
        }
    }
    eprintln!(
        "vramfit: the job in the calculator: {}",
        share_url(DEFAULT_BASE, &job.scenario)
    );
}
