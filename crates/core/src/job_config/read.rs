//! [`read_job_config`]: the text parsed within bounds, its format told,
//! and the format's reader run over the base scenario.

use super::format::{detect, JobFormat};
use super::reading::Reading;
use super::report::JobConfig;
use super::{axolotl, deepspeed, hf, torchtune, tree};
use crate::catalog::find_model;
use crate::error::Result;
use crate::scenario::{ModelSource, Scenario, TaskKind};

/// Reads a training config over `base` (the default scenario, or what an
/// earlier config set: a `TrainingArguments` file then its DeepSpeed file).
/// `format` `None`: told from the keys.
pub fn read_job_config(text: &str, format: Option<JobFormat>, base: Scenario) -> Result<JobConfig> {
    let tree = tree::parse(text)?;
    let format = match format {
        Some(f) => f,
        None => detect(&tree)?,
    };
    let mut r = Reading::new(tree, base)?;
    r.sc.task = TaskKind::Training;
    match format {
        JobFormat::HfTrainingArgs => hf::read(&mut r)?,
        JobFormat::Deepspeed => deepspeed::read(&mut r, "")?,
        JobFormat::Torchtune => torchtune::read(&mut r)?,
        JobFormat::Axolotl => axolotl::read(&mut r)?,
    }
    let (mut scenario, model, read, ignored) = r.finish();
    if let Some(found) = model.as_deref().and_then(find_model) {
        scenario.model = ModelSource::Catalog(found.id.clone());
    }
    Ok(JobConfig {
        format,
        scenario,
        model,
        read,
        ignored,
    })
}
