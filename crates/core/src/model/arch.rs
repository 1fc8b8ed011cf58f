//! One table of architectures: every family the estimator models, with the
//! names it goes by and the defaults its transformers implementation takes
//! when a config leaves them out. The config importer (`hf_config`), the
//! link codec (`s.arch=`) and the measured-case translator (`cases`) all read
//! it.
//!
//! Adding an architecture is one row here (its `Arch` variant, link key and
//! defaults in `ARCHS`, its `model_type`s and case names in `NAMES`) plus, when its layers differ from the ones
//! already modelled, its layer formula in `model::params` and its import in
//! `hf_config` (families whose fields need reading beyond the common ones).

use super::{Arch, MlpKind, NormKind};

/// One architecture family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchRow {
    pub arch: Arch,
    /// The key in share links (`s.arch=`).
    pub key: &'static str,
    /// Feed-forward shape and norm when the config does not say.
    pub mlp: MlpKind,
    pub norm: NormKind,
    /// Biases on q/k/v and on the attention output by default.
    pub qkv_bias: bool,
    pub out_bias: bool,
    /// The family's `tie_word_embeddings` default (transformers'
    /// `PretrainedConfig` ties unless the family's config class says not).
    pub tied: bool,
}

const fn row(arch: Arch, key: &'static str) -> ArchRow {
    ArchRow {
        arch,
        key,
        mlp: MlpKind::Gated,
        norm: NormKind::Rms,
        qkv_bias: false,
        out_bias: false,
        tied: false,
    }
}

impl ArchRow {
    /// GELU/ReLU MLP with LayerNorm (the GPT-2 lineage and BERT).
    const fn plain_layer_norm(mut self) -> Self {
        self.mlp = MlpKind::Plain;
        self.norm = NormKind::Layer;
        self
    }
    /// Up and down projections only, with RMSNorm.
    const fn plain(mut self) -> Self {
        self.mlp = MlpKind::Plain;
        self
    }
    /// LayerNorm over a gated MLP (StableLM-2).
    const fn layer_norm(mut self) -> Self {
        self.norm = NormKind::Layer;
        self
    }
    const fn biases(mut self, qkv: bool, out: bool) -> Self {
        self.qkv_bias = qkv;
        self.out_bias = out;
        self
    }
    const fn tied(mut self) -> Self {
        self.tied = true;
        self
    }
}

/// Every architecture, in the order menus list them.
pub const ARCHS: [ArchRow; 55] = [
    // InternLM2 (remote code, InternVL's language model): Llama's layout
    // with q, k, v fused into one `wqkv` of the same size.
    row(Arch::Llama, "llama"),
    row(Arch::Mistral, "mistral"),
    row(Arch::Mixtral, "mixtral"),
    // Qwen2 keeps biases on q, k and v (`Qwen2Attention`: bias=True).
    row(Arch::Qwen2, "qwen2").biases(true, false),
    row(Arch::Qwen2Moe, "qwen2_moe").biases(true, false),
    row(Arch::Qwen3, "qwen3"),
    row(Arch::Qwen3Moe, "qwen3_moe"),
    row(Arch::Gemma, "gemma").tied(),
    row(Arch::Gemma2, "gemma2").tied(),
    row(Arch::Gemma3, "gemma3").tied(),
    // Phi-1/2: dense, LayerNorm, biases everywhere (`PhiAttention`).
    row(Arch::Phi, "phi").plain_layer_norm().biases(true, true),
    row(Arch::Phi3, "phi3"),
    row(Arch::Gpt2, "gpt2")
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    // StableLM-alpha checkpoints are GPT-NeoX models (their config's
    // model_type is gpt_neox); the case format calls them stablelm.
    row(Arch::GptNeox, "gpt_neox")
        .plain_layer_norm()
        .biases(true, true),
    row(Arch::Opt, "opt")
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    // Falcon's config ties the head by default; the measured cases state
    // their own (they read `tied_embeddings` first).
    row(Arch::Falcon, "falcon").plain_layer_norm().tied(),
    row(Arch::Bloom, "bloom")
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    row(Arch::GptBigcode, "gpt_bigcode")
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    // The case format has no DeBERTa-specific fields: its DeBERTa cases are
    // built with BERT's layers.
    row(Arch::Bert, "bert")
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    row(Arch::DebertaV2, "deberta_v2")
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    row(Arch::T5, "t5"),
    // q, v and o carry biases, k does not: the importer counts q's and v's
    // beside the layers (`hf_config/whisper.rs`)
    row(Arch::Whisper, "whisper")
        .plain_layer_norm()
        .biases(false, true)
        .tied(),
    // the families differ in their positions and extra norms, which the
    // importer counts (`hf_config/bart.rs`)
    row(Arch::Bart, "bart")
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    row(Arch::Xlstm, "xlstm"),
    // RWKV-4: LayerNorms, an unbiased up/down channel mixing, untied.
    row(Arch::Rwkv, "rwkv").plain_layer_norm(),
    row(Arch::DeepseekV2, "deepseek_v2"),
    // DeepSeek-V3.2 adds a lightning indexer to each layer (hf_config::modern).
    // Kimi K2 ships model_type "kimi_k2" with DeepseekV3ForCausalLM (its
    // config.json): the same layers, 384 experts, one dense layer.
    // Mistral 4 (Mistral Small 4) builds DeepSeek-V3's layers without the
    // router's bias buffer (`modular_mistral4.py`).
    row(Arch::DeepseekV3, "deepseek_v3"),
    row(Arch::ClipVision, "clip_vision").plain_layer_norm(),
    row(Arch::Llava, "llava"),
    // StableLM-2: LayerNorm over a gated MLP (`StableLmMLP`), q/k/v bias
    // set by `use_qkv_bias`.
    row(Arch::Stablelm, "stablelm").layer_norm(),
    // gpt-oss: biases on attention and experts (`attention_bias` = True).
    row(Arch::GptOss, "gpt_oss").biases(true, true),
    // Each family's defaults below are its transformers configuration
    // class's (`tie_word_embeddings`, `attention_bias`); hf_config::modern
    // reads the rest of its layout.
    row(Arch::Llama4, "llama4"),
    row(Arch::Glm4, "glm4").biases(true, false),
    row(Arch::Glm4Moe, "glm4_moe"),
    row(Arch::Olmo2, "olmo2"),
    // CohereLayerNorm has no bias: one vector, counted like RMSNorm.
    row(Arch::Cohere, "cohere").tied(),
    row(Arch::Smollm3, "smollm3").tied(),
    row(Arch::Apertus, "apertus").plain(),
    row(Arch::Ernie45, "ernie4_5").tied(),
    row(Arch::Ernie45Moe, "ernie4_5_moe").tied(),
    row(Arch::Exaone4, "exaone4"),
    row(Arch::SeedOss, "seed_oss").biases(true, false),
    row(Arch::Hunyuan, "hunyuan"),
    row(Arch::HunyuanMoe, "hunyuan_moe"),
    row(Arch::Mamba, "mamba").tied(),
    row(Arch::Mamba2, "mamba2"),
    row(Arch::Jamba, "jamba"),
    // Nemotron-H's MLP is relu² over up and down projections.
    row(Arch::NemotronH, "nemotron_h").plain(),
    row(Arch::FalconH1, "falcon_h1"),
    row(Arch::GraniteMoeHybrid, "granitemoehybrid"),
    row(Arch::Qwen3Next, "qwen3_next"),
    row(Arch::Lfm2, "lfm2").tied(),
    row(Arch::Minimax, "minimax"),
    // GPT-Neo: no q/k/v biases, a biased output projection and MLP
    // (`GPTNeoSelfAttention`, `GPTNeoMLP`), LayerNorms, tied.
    row(Arch::GptNeo, "gpt_neo")
        .plain_layer_norm()
        .biases(false, true)
        .tied(),
    row(Arch::Custom, "custom"),
];

/// The names a family goes by: Hugging Face `model_type`s that import as it
/// and `model.arch` values of the measured-case format
/// (`shared/groundtruth/FORMAT.md`) built with its layers. Kept apart from
/// [`ARCHS`], whose defaults the web page reads, so that the page does not
/// carry the importer's hundred-odd names (the importer's worker does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchNames {
    pub arch: Arch,
    pub model_types: &'static [&'static str],
    pub case_names: &'static [&'static str],
}

const fn names(
    arch: Arch,
    model_types: &'static [&'static str],
    case_names: &'static [&'static str],
) -> ArchNames {
    ArchNames {
        arch,
        model_types,
        case_names,
    }
}

/// Every family's names, one entry per [`ARCHS`] row, in its order.
pub const NAMES: [ArchNames; ARCHS.len()] = [
    names(
        Arch::Llama,
        &[
            "llama",
            "internlm2",
            "granite",
            "helium",
            "internlm3",
            "arcee",
            "jais2",
            "olmo",
            "exaone",
            "granite_swa",
            "hyperclovax",
            "iquestcoder",
            "cwm",
            "nemotron",
            "bitnet",
            "mpt",
            "nanochat",
            "dory",
            "hrm_text",
            "diffllama",
        ],
        &["llama"],
    ),
    names(
        Arch::Mistral,
        &["mistral", "ministral", "ministral3", "starcoder2"],
        &["mistral"],
    ),
    names(
        Arch::Mixtral,
        &[
            "mixtral",
            "granitemoe",
            "granitemoeshared",
            "granitemoe_swa",
            "olmoe",
            "flex_olmo",
            "minimax_m2",
            "phimoe",
            "jetmoe",
            "dbrx",
            "aria_text",
            "minimax_m3_vl_text",
        ],
        &["mixtral"],
    ),
    names(Arch::Qwen2, &["qwen2", "glm"], &["qwen2"]),
    names(Arch::Qwen2Moe, &["qwen2_moe"], &["qwen2_moe"]),
    names(Arch::Qwen3, &["qwen3"], &["qwen3"]),
    names(
        Arch::Qwen3Moe,
        &[
            "qwen3_moe",
            "qwen3_vl_moe_text",
            "mellum",
            "afmoe",
            "kolibri1",
            "laguna",
            "zaya",
            "flint",
            "beam",
            "lara_mini",
            // Step-3.5-Flash's own config (`Step3p7TextConfig`), completed
            // by `hf_config::step3p7::complete_step3p5`
            "step3p5",
        ],
        &["qwen3_moe"],
    ),
    names(Arch::Gemma, &["gemma", "recurrent_gemma"], &["gemma"]),
    names(Arch::Gemma2, &["gemma2", "vaultgemma"], &["gemma2"]),
    names(
        Arch::Gemma3,
        &[
            "gemma3",
            "gemma3_text",
            "gemma3n",
            "gemma3n_text",
            "gemma4",
            "gemma4_text",
            "gemma4_unified_text",
        ],
        &[],
    ),
    names(Arch::Phi, &["phi", "gptj", "codegen"], &["phi"]),
    names(Arch::Phi3, &["phi3"], &["phi3"]),
    names(Arch::Gpt2, &["gpt2", "gpt-sw3", "openai-gpt"], &["gpt2"]),
    names(
        Arch::GptNeox,
        &["gpt_neox", "persimmon"],
        &["gpt_neox", "stablelm"],
    ),
    names(Arch::Opt, &["opt", "biogpt", "xglm", "ctrl"], &["opt"]),
    names(
        Arch::Falcon,
        &["falcon", "RefinedWeb", "RefinedWebModel"],
        &["falcon"],
    ),
    names(Arch::Bloom, &["bloom"], &["bloom"]),
    names(Arch::GptBigcode, &["gpt_bigcode"], &["gpt_bigcode"]),
    // BERT's layers under other embeddings and heads (`hf_config/encoders.rs`).
    names(
        Arch::Bert,
        &[
            "bert",
            "roberta",
            "xlm-roberta",
            "camembert",
            "data2vec-text",
            "ernie",
            "roberta-prelayernorm",
            "xlm-roberta-xl",
            "megatron-bert",
            "distilbert",
            "electra",
            "mpnet",
            "layoutlm",
            "modernbert",
        ],
        &["bert", "deberta_v2"],
    ),
    names(Arch::DebertaV2, &["deberta-v2"], &[]),
    names(
        Arch::T5,
        &["t5", "mt5", "umt5", "longt5", "switch_transformers"],
        &["t5"],
    ),
    names(Arch::Whisper, &["whisper"], &[]),
    names(
        Arch::Bart,
        &[
            "bart",
            "mbart",
            "marian",
            "pegasus",
            "m2m_100",
            "plbart",
            "blenderbot",
            "blenderbot-small",
            "mvp",
        ],
        &[],
    ),
    names(Arch::Xlstm, &["xlstm"], &[]),
    names(Arch::Rwkv, &["rwkv"], &[]),
    names(
        Arch::DeepseekV2,
        &["deepseek_v2", "minicpm3"],
        &["deepseek_v2"],
    ),
    names(
        Arch::DeepseekV3,
        &[
            "deepseek_v3",
            "mistral4",
            "deepseek_v32",
            "kimi_k2",
            "youtu",
            "sarvam_mla",
            "glm_moe_dsa",
            "hy_v4",
            "hy_v4_vl_text",
            "mistral_large4_text",
            "deepseek_v4",
            "glm4_moe_lite",
            "axk1",
            "axk2",
            "bailing_hybrid",
            "kimi_linear",
            "longcat_flash",
            "dots3_note_text",
        ],
        &[],
    ),
    names(Arch::ClipVision, &["clip_vision_model", "clip"], &[]),
    names(Arch::Llava, &["llava"], &[]),
    names(Arch::Stablelm, &["stablelm", "modernbert-decoder"], &[]),
    names(Arch::GptOss, &["gpt_oss"], &["gpt_oss"]),
    names(Arch::Llama4, &["llama4_text", "llama4"], &[]),
    names(Arch::Glm4, &["glm4"], &[]),
    names(
        Arch::Glm4Moe,
        &[
            "glm4_moe",
            "solar_open",
            "sarvam_moe",
            "dots1",
            "mimo_v2_flash",
        ],
        &[],
    ),
    names(Arch::Olmo2, &["olmo2", "olmo3", "olmo_hybrid"], &[]),
    names(
        Arch::Cohere,
        &["cohere", "cohere2", "cohere2_moe", "cohere_compass_text"],
        &[],
    ),
    names(Arch::Smollm3, &["smollm3"], &[]),
    names(Arch::Apertus, &["apertus", "apertus1p5_text"], &[]),
    names(Arch::Ernie45, &["ernie4_5"], &[]),
    names(Arch::Ernie45Moe, &["ernie4_5_moe"], &[]),
    names(Arch::Exaone4, &["exaone4", "exaone_moe"], &[]),
    names(Arch::SeedOss, &["seed_oss"], &[]),
    names(Arch::Hunyuan, &["hunyuan_v1_dense"], &[]),
    names(Arch::HunyuanMoe, &["hunyuan_v1_moe", "hy_v3"], &[]),
    names(Arch::Mamba, &["mamba", "falcon_mamba"], &[]),
    names(Arch::Mamba2, &["mamba2"], &[]),
    names(Arch::Jamba, &["jamba"], &[]),
    names(Arch::NemotronH, &["nemotron_h"], &[]),
    names(Arch::FalconH1, &["falcon_h1"], &[]),
    names(
        Arch::GraniteMoeHybrid,
        &["granitemoehybrid", "bamba", "zamba2", "zamba"],
        &[],
    ),
    names(
        Arch::Qwen3Next,
        &[
            "qwen3_next",
            "qwen3_5_text",
            "qwen3_5_moe_text",
            "qwen3_5",
            "qwen3_5_moe",
            "qwen4_exp_text",
        ],
        &[],
    ),
    names(Arch::Lfm2, &["lfm2", "lfm2_moe", "lfm3"], &[]),
    names(Arch::Minimax, &["minimax"], &[]),
    names(Arch::GptNeo, &["gpt_neo"], &[]),
    names(Arch::Custom, &[], &[]),
];

/// Every `Arch`, in the table's order (the link codec's menu).
pub const ALL: [Arch; ARCHS.len()] = {
    let mut out = [Arch::Custom; ARCHS.len()];
    let mut i = 0;
    while i < ARCHS.len() {
        out[i] = ARCHS[i].arch;
        i += 1;
    }
    out
};

/// The row of `arch` (every variant has one: a test checks it).
pub fn row_of(arch: Arch) -> &'static ArchRow {
    ARCHS
        .iter()
        .find(|r| r.arch == arch)
        .unwrap_or(&ARCHS[ARCHS.len() - 1])
}

/// The family a config's `model_type` names.
pub fn by_model_type(model_type: &str) -> Option<&'static ArchRow> {
    NAMES
        .iter()
        .find(|n| n.model_types.contains(&model_type))
        .map(|n| row_of(n.arch))
}

/// The family a measured case's `model.arch` names.
pub fn by_case_name(name: &str) -> Option<&'static ArchRow> {
    NAMES
        .iter()
        .find(|n| n.case_names.contains(&name))
        .map(|n| row_of(n.arch))
}

/// Every `model_type` the importer reads, in the table's order.
pub fn model_types() -> impl Iterator<Item = &'static str> {
    NAMES.iter().flat_map(|n| n.model_types.iter().copied())
}

/// The same, as one comma-separated list for messages.
pub fn model_type_list() -> String {
    model_types().collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_arch_has_one_row_and_unique_names() {
        for (i, r) in ARCHS.iter().enumerate() {
            assert_eq!(row_of(r.arch).key, r.key);
            assert_eq!(NAMES[i].arch, r.arch, "NAMES out of ARCHS's order");
            assert!(
                ARCHS[i + 1..]
                    .iter()
                    .all(|o| o.arch != r.arch && o.key != r.key),
                "{} twice",
                r.key
            );
        }
        let types: Vec<&str> = model_types().collect();
        let mut unique = types.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(types.len(), unique.len(), "a model_type in two rows");
        assert_eq!(
            by_model_type("RefinedWebModel").map(|r| r.arch),
            Some(Arch::Falcon)
        );
        assert_eq!(
            by_case_name("stablelm").map(|r| r.arch),
            Some(Arch::GptNeox)
        );
        assert_eq!(
            by_model_type("stablelm").map(|r| r.arch),
            Some(Arch::Stablelm)
        );
        assert_eq!(by_model_type("mamba").map(|r| r.arch), Some(Arch::Mamba));
        assert!(by_model_type("doge").is_none());
    }
}
