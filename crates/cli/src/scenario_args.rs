//! The scenario flags shared by `estimate`, `plan`, `check` and `link`:
//! where the scenario starts (a file, a link, a measured case, a config, a
//! model), then one flag per field of the core's registry
//! (`vramfit_core::scenario::fields`), each read by the field's own parser,
//! so a flag takes exactly what the same key takes in a share link.

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use vramfit_core::cases::{case_model, case_scenario, parse_cases};
use vramfit_core::scenario::fields::{by_key, Field, Kind, FIELDS};
use vramfit_core::scenario::limits::{MAX_TOTAL_PARAMS, MIN_PARAMS};
use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};
use vramfit_core::InputError;

/// Where the scenario starts; the field flags apply on top.
#[derive(Args, Clone, Default)]
pub struct SourceArgs {
    /// Scenario JSON file (the flags below override its fields).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<String>,
    /// Hugging Face config.json of the model.
    #[arg(long, value_name = "FILE")]
    pub config: Option<String>,
    /// A VLM's preprocessor_config.json (pixel limits, tile counts); absent,
    /// the one beside --config or beside the cached config.json is read, else
    /// the processor class's defaults apply.
    #[arg(long, value_name = "FILE")]
    pub preprocessor: Option<String>,
    /// A share link of the web calculator (`https://…/?v=1&m=…`): its scenario.
    #[arg(long, value_name = "SHARE_URL", conflicts_with_all = ["scenario", "case"])]
    pub url: Option<String>,
    /// Measured-case JSONL file; with --id, estimate that case's setup.
    #[arg(long, value_name = "FILE", requires = "id")]
    pub case: Option<String>,
    /// Case id in --case.
    #[arg(long)]
    pub id: Option<String>,
    /// Catalog model (Hugging Face id or short name).
    #[arg(long, short)]
    pub model: Option<String>,
    /// Bare parameter count (approximate), e.g. 7e9.
    #[arg(long)]
    pub params: Option<f64>,
    /// Images per sample (training) and per prompt (inference) of a VLM.
    #[arg(long, value_name = "N")]
    pub images: Option<String>,
}

/// The scenario flags: [`SourceArgs`] plus one flag per registry field.
///
/// A command that gives one of the field flags another meaning (`check`
/// takes `--gpu INDEX`) declares its own flag before flattening this one:
/// the field's flag is then left out.
#[derive(Clone, Default)]
pub struct ScenarioArgs {
    pub source: SourceArgs,
    /// The field flags given, in registry order, with their text.
    pub fields: Vec<(&'static Field, String)>,
}

/// The clap id of a field's flag: its path, unique and never a Rust name.
fn id(field: &Field) -> &'static str {
    field.path
}

/// `--micro-batch <N>`: its help is the field's line plus what it accepts.
fn field_arg(field: &'static Field) -> Arg {
    let arg = Arg::new(id(field))
        .long(field.flag)
        .help(format!("{} [{}]", field.help, field.allowed()))
        .action(ArgAction::Set);
    match field.kind {
        // A bare `--chunked-loss` turns it on; `--chunked-loss=0` off.
        Kind::Flag { .. } => arg
            .num_args(0..=1)
            .default_missing_value("1")
            .value_name("1|0"),
        Kind::Choice(_) => arg.value_name("KEY"),
        Kind::LoraTargets | Kind::ImageMix => arg.value_name("LIST"),
        Kind::GpuName => arg.value_name("NAME"),
        Kind::Memory { .. } => arg.value_name("SIZE"),
        Kind::Fraction { .. } | Kind::OptionalFraction { .. } => arg.value_name("X"),
        Kind::Count { .. } | Kind::OptionalCount { .. } => arg.value_name("N"),
    }
}

/// The field flags present in `matches`, in registry order.
fn given(matches: &ArgMatches) -> Vec<(&'static Field, String)> {
    FIELDS
        .iter()
        .filter_map(|f| {
            // A flag the command left out (see `ScenarioArgs`) is not an id here.
            let value = matches.try_get_one::<String>(id(f)).ok().flatten()?;
            Some((f, value.clone()))
        })
        .collect()
}

impl FromArgMatches for ScenarioArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(ScenarioArgs {
            source: SourceArgs::from_arg_matches(matches)?,
            fields: given(matches),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.source.update_from_arg_matches(matches)?;
        for (field, value) in given(matches) {
            self.fields.retain(|(f, _)| f.key != field.key);
            self.fields.push((field, value));
        }
        Ok(())
    }
}

impl Args for ScenarioArgs {
    fn augment_args(cmd: Command) -> Command {
        FIELDS
            .iter()
            .fold(SourceArgs::augment_args(cmd), |cmd, field| {
                let taken = cmd
                    .get_arguments()
                    .any(|a| a.get_long() == Some(field.flag));
                if taken {
                    cmd
                } else {
                    cmd.arg(field_arg(field))
                }
            })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// `-m`: a catalog model, or any Hub id whose `config.json` is in the
/// local Hugging Face cache (the companion opens no network connection).
pub(crate) fn model_source(text: &str) -> Result<ModelSource, InputError> {
    if vramfit_core::catalog::find_model(text).is_some() {
        return Ok(ModelSource::Catalog(text.to_owned()));
    }
    let Some(id) = vramfit_core::hub::parse_hub_id(text) else {
        // Not an id: the core's catalog error lists what it knows.
        return Ok(ModelSource::Catalog(text.to_owned()));
    };
    match crate::hf_cache::find_config(&id) {
        Ok(path) => {
            let preprocessor = beside(&path).map(|p| read(&p)).transpose()?;
            let path = path.to_string_lossy().into_owned();
            let mut spec = vramfit_core::hf_config::from_hf_configs(&read(&path)?, preprocessor.as_deref())
                .map_err(|e| InputError::new(&path, e.to_string()))?;
            spec.name = id;
            Ok(ModelSource::Spec(Box::new(spec)))
        }
        Err(roots) => Err(InputError::new(
            "--model",
            format!(
                "{id} is not in the catalog and its config.json is not in the local Hugging Face cache (looked in {}): download it (huggingface-cli download {id} config.json) or pass --config FILE",
                roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The `preprocessor_config.json` in the folder of a `config.json`, when
/// there is one (a downloaded or cached checkpoint keeps both together).
fn beside(config: &std::path::Path) -> Option<String> {
    let path = config.parent()?.join("preprocessor_config.json");
    path.is_file().then(|| path.to_string_lossy().into_owned())
}

fn read(path: &str) -> Result<String, InputError> {
    if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| InputError::new(path, e.to_string()))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| InputError::new(path, format!("cannot read: {e}")))
    }
}

/// Sets `field` from a flag's text; the error names the field's path (as
/// every scenario error does) and the flag.
fn set(sc: &mut Scenario, field: &Field, flag: &str, text: &str) -> Result<(), InputError> {
    field
        .set_text(sc, text)
        .map_err(|message| InputError::new(format!("{} ({flag})", field.path), message))
}

impl ScenarioArgs {
    /// Whether the field with link key `key` was given as a flag.
    fn has(&self, key: &str) -> bool {
        self.fields.iter().any(|(f, _)| f.key == key)
    }

    /// The scenario the flags describe (file first, then each flag on top).
    pub fn build(&self) -> Result<Scenario, InputError> {
        self.build_on(None)
    }

    /// The scenario over `job` (what training configs set, `--job-config`)
    /// instead of a scenario file, link or case; the flags apply on top.
    pub fn build_on(&self, job: Option<Scenario>) -> Result<Scenario, InputError> {
        let s = &self.source;
        let from_job = job.is_some();
        let mut sc = match job {
            Some(sc) => sc,
            None => self.base()?,
        };
        let mut checkpoint = None;
        if let Some(path) = &s.config {
            let preprocessor = match &s.preprocessor {
                Some(p) => Some(read(p)?),
                None if path != "-" => beside(std::path::Path::new(path))
                    .map(|p| read(&p))
                    .transpose()?,
                None => None,
            };
            let config = read(path)?;
            let spec = vramfit_core::hf_config::from_hf_configs(&config, preprocessor.as_deref())?;
            sc.model = ModelSource::Spec(Box::new(spec));
            checkpoint = vramfit_core::hf_config::checkpoint_weights(&config)?;
            // a quantization this estimator has no format for: say so
            // rather than estimate its weights in 16 bits unannounced
            if let Some(method) = vramfit_core::hf_config::unmodelled_quantization(&config) {
                if !self.has("w") {
                    eprintln!(
                        "note: {path}: quantization_config's quant_method \"{method}\" has no weight format here: the weights are estimated as --weights says (bf16 unless given)"
                    );
                }
            }
        }
        if let Some(m) = &s.model {
            sc.model = model_source(m)?;
        }
        if let Some(p) = s.params {
            let (min, max) = (MIN_PARAMS as f64, MAX_TOTAL_PARAMS as f64);
            if !(p.is_finite() && (min..=max).contains(&p)) {
                return Err(InputError::new(
                    "--params",
                    format!("{p} is out of range: allowed {min:e} to {max:e}"),
                ));
            }
            sc.model = ModelSource::Params(p as u64);
        }
        // --config alone: inference at batch 1 with a short context.
        if s.config.is_some() && s.scenario.is_none() && !from_job && !self.has("t") {
            sc.task = TaskKind::Inference;
            sc.inference.batch = 1;
            sc.inference.prompt_len = 128;
            sc.inference.new_tokens = 128;
        }
        if let Some(n) = &s.images {
            for field in ["img", "ipp"].into_iter().filter_map(by_key) {
                set(&mut sc, field, "--images", n)?;
            }
        }
        for (field, text) in &self.fields {
            set(&mut sc, field, &format!("--{}", field.flag), text)?;
        }
        // A quantized checkpoint loads as it is stored, unless --weights
        // says otherwise; --group-size and --double-quant still win.
        if let Some(q) = checkpoint.filter(|_| !self.has("w")) {
            let (group, double) = (sc.group_size, sc.double_quant);
            if q.apply(&mut sc) {
                if self.has("gs") {
                    sc.group_size = group;
                }
                if self.has("dq") {
                    sc.double_quant = double;
                }
            }
        }
        Ok(sc)
    }

    /// The scenario before the flags: a file, a measured case, a link, or the default.
    fn base(&self) -> Result<Scenario, InputError> {
        let s = &self.source;
        match (&s.scenario, &s.case) {
            (Some(path), _) => Scenario::from_json(&read(path)?)
                .map_err(|e| InputError::new(format!("{path}: {}", e.field), e.message)),
            (None, Some(path)) => {
                let id = s.id.as_deref().unwrap_or_default();
                let text = read(path)?;
                let case = parse_cases(&text)
                    .into_iter()
                    .filter_map(Result::ok)
                    .find(|c| c.id == id)
                    .ok_or_else(|| {
                        InputError::new("--id", format!("no case \"{id}\" in {path}"))
                    })?;
                let mut sc = case_scenario(&case)
                    .map_err(|e| InputError::new(id, format!("unsupported case: {e}")))?;
                let spec = case_model(&case)
                    .map_err(|e| InputError::new(id, format!("unsupported case: {e}")))?;
                sc.model = ModelSource::Spec(Box::new(spec));
                Ok(sc)
            }
            (None, None) => match &s.url {
                Some(link) => scenario_from_link(link),
                None => Ok(Scenario::default()),
            },
        }
    }
}

/// The scenario of a share link. Parameters the link could not use are
/// reported on stderr, as the web app shows them, and left at their defaults.
pub fn scenario_from_link(link: &str) -> Result<Scenario, InputError> {
    let query = match link.split_once('?') {
        Some((_, q)) => q,
        None if link.contains('=') => link,
        None => {
            return Err(InputError::new(
                "--url",
                "not a share link: expected an address with a query string (…/?v=1&m=…)",
            ))
        }
    };
    let query = query.split('#').next().unwrap_or_default();
    let decoded = vramfit_core::url::decode(query);
    for n in &decoded.notices {
        eprintln!("vramfit: link parameter `{}`: {}", n.param, n.message);
    }
    Ok(decoded.scenario)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        scenario: ScenarioArgs,
    }

    fn build(args: &[&str]) -> Result<Scenario, InputError> {
        let cli = Cli::try_parse_from(std::iter::once("vramfit").chain(args.iter().copied()))
            .map_err(|e| InputError::new("clap", e.to_string()))?;
        cli.scenario.build()
    }

    /// A value of the field other than its default, as link text.
    fn other_value(field: &Field) -> String {
        match field.kind {
            Kind::Count { min, max, .. } | Kind::OptionalCount { min, max, .. } => {
                (min + 3).min(max).to_string()
            }
            // The other of the two values (a flag may default to on).
            Kind::Flag { get, .. } => if get(&Scenario::default()) { "0" } else { "1" }.into(),
            Kind::Choice(c) => (c.keys)().last().map_or("", |k| k).to_owned(),
            Kind::Fraction { .. } | Kind::OptionalFraction { .. } => "0.5".into(),
            Kind::Memory { .. } => "24GiB".into(),
            Kind::GpuName => "a100-sxm4-40gb".into(),
            Kind::LoraTargets => "q,k,o".into(),
            Kind::ImageMix => "4032x3024,336x336".into(),
        }
    }

    #[test]
    fn every_field_has_a_flag_that_reads_like_its_link_key() {
        for field in FIELDS {
            let value = other_value(field);
            let flag = format!("--{}", field.flag);
            let from_flag = build(&[&flag, &value]).expect(field.key);
            let link = vramfit_core::url::decode(&format!("v=1&{}={value}", field.key));
            assert!(link.notices.is_empty(), "{}: {:?}", field.key, link.notices);
            assert_eq!(from_flag, link.scenario, "{flag} {value}");
            assert_ne!(
                from_flag,
                Scenario::default(),
                "{flag} {value} changed nothing"
            );
        }
    }

    #[test]
    fn enum_flags_take_link_keys_and_json_names() {
        for spelling in ["train", "training", "Training"] {
            let sc = build(&["--task", spelling]).expect(spelling);
            assert_eq!(sc.task, TaskKind::Training);
        }
        let sc = build(&["--weights", "GGUF_Q4_K_M", "--engine", "llama-cpp"]).expect("gguf");
        assert_eq!(
            vramfit_core::url::encode(&sc),
            "v=1&w=gguf_q4_k_m&eng=llama_cpp"
        );
        let err = build(&["--optimizer", "adamx"]).expect_err("adamx");
        assert_eq!(err.field, "training.optimizer (--optimizer)");
        assert!(
            err.message
                .starts_with("\"adamx\" is not one of: adamw, adam"),
            "{}",
            err.message
        );
    }

    #[test]
    fn switches_stay_bare_and_can_be_turned_off() {
        let sc = build(&["--double-quant", "--chunked-loss", "--gpus", "2"]).expect("switches");
        assert!(sc.double_quant && sc.training.chunked_loss);
        assert_eq!(sc.parallel.gpus, 2);
        let sc = build(&["--double-quant=0"]).expect("off");
        assert!(!sc.double_quant);
    }

    #[test]
    fn images_set_both_counts_and_config_alone_serves_short_prompts() {
        let sc = build(&["--images", "2"]).expect("images");
        assert_eq!(
            (
                sc.training.images_per_sample,
                sc.inference.images_per_prompt
            ),
            (2, 2)
        );
        let err = build(&["--images", "2000"]).expect_err("too many");
        assert_eq!(err.field, "training.images_per_sample (--images)");
        let err = build(&["--micro-batch", "0"]).expect_err("0");
        assert_eq!(err.message, "\"0\" is not a whole number from 1 to 65536");
    }

    #[test]
    fn a_command_keeps_its_own_meaning_of_a_field_flag() {
        #[derive(Parser)]
        struct Check {
            #[arg(long = "gpu")]
            indices: Vec<u32>,
            #[command(flatten)]
            scenario: ScenarioArgs,
        }
        let cli = Check::try_parse_from(["vramfit", "--gpu", "3", "--gpus", "2"]).expect("parses");
        assert_eq!(cli.indices, [3]);
        let sc = cli.scenario.build().expect("builds");
        assert_eq!((sc.gpu.name, sc.parallel.gpus), (None, 2));
    }
}
