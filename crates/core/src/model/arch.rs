//! One table of architectures: every family the estimator models, with the
//! names it goes by and the defaults its transformers implementation takes
//! when a config leaves them out. The config importer (`hf_config`), the
//! link codec (`s.arch=`) and the measured-case translator (`cases`) all read
//! it.
//!
//! Adding an architecture is one row here (its `Arch` variant, link key,
//! `model_type`s and defaults) plus, when its layers differ from the ones
//! already modelled, its layer formula in `model::params` and its import in
//! `hf_config` (families whose fields need reading beyond the common ones).

use super::{Arch, MlpKind, NormKind};

/// One architecture family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchRow {
    pub arch: Arch,
    /// The key in share links (`s.arch=`).
    pub key: &'static str,
    /// Hugging Face `model_type` values that import as this family.
    pub model_types: &'static [&'static str],
    /// `model.arch` values of the measured-case format
    /// (`shared/groundtruth/FORMAT.md`) built with this family's layers.
    pub case_names: &'static [&'static str],
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
        model_types: &[],
        case_names: &[],
        mlp: MlpKind::Gated,
        norm: NormKind::Rms,
        qkv_bias: false,
        out_bias: false,
        tied: false,
    }
}

impl ArchRow {
    const fn types(mut self, model_types: &'static [&'static str]) -> Self {
        self.model_types = model_types;
        self
    }
    const fn cases(mut self, case_names: &'static [&'static str]) -> Self {
        self.case_names = case_names;
        self
    }
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
pub const ARCHS: [ArchRow; 50] = [
    // InternLM2 (remote code, InternVL's language model): Llama's layout
    // with q, k, v fused into one `wqkv` of the same size.
    row(Arch::Llama, "llama")
        .types(&[
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
        ])
        .cases(&["llama"]),
    row(Arch::Mistral, "mistral")
        .types(&["mistral", "ministral", "ministral3", "starcoder2"])
        .cases(&["mistral"]),
    row(Arch::Mixtral, "mixtral")
        .types(&[
            "mixtral",
            "granitemoe",
            "granitemoeshared",
            "granitemoe_swa",
            "olmoe",
            "flex_olmo",
            "minimax_m2",
            "phimoe",
        ])
        .cases(&["mixtral"]),
    // Qwen2 keeps biases on q, k and v (`Qwen2Attention`: bias=True).
    row(Arch::Qwen2, "qwen2")
        .types(&["qwen2", "glm"])
        .cases(&["qwen2"])
        .biases(true, false),
    row(Arch::Qwen2Moe, "qwen2_moe")
        .types(&["qwen2_moe"])
        .cases(&["qwen2_moe"])
        .biases(true, false),
    row(Arch::Qwen3, "qwen3")
        .types(&["qwen3"])
        .cases(&["qwen3"]),
    row(Arch::Qwen3Moe, "qwen3_moe")
        .types(&["qwen3_moe", "qwen3_vl_moe_text", "mellum"])
        .cases(&["qwen3_moe"]),
    row(Arch::Gemma, "gemma")
        .types(&["gemma"])
        .cases(&["gemma"])
        .tied(),
    row(Arch::Gemma2, "gemma2")
        .types(&["gemma2", "vaultgemma"])
        .cases(&["gemma2"])
        .tied(),
    row(Arch::Gemma3, "gemma3")
        .types(&["gemma3", "gemma3_text", "gemma4", "gemma4_text"])
        .tied(),
    // Phi-1/2: dense, LayerNorm, biases everywhere (`PhiAttention`).
    row(Arch::Phi, "phi")
        .types(&["phi"])
        .cases(&["phi"])
        .plain_layer_norm()
        .biases(true, true),
    row(Arch::Phi3, "phi3").types(&["phi3"]).cases(&["phi3"]),
    row(Arch::Gpt2, "gpt2")
        .types(&["gpt2"])
        .cases(&["gpt2"])
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    // StableLM-alpha checkpoints are GPT-NeoX models (their config's
    // model_type is gpt_neox); the case format calls them stablelm.
    row(Arch::GptNeox, "gpt_neox")
        .types(&["gpt_neox"])
        .cases(&["gpt_neox", "stablelm"])
        .plain_layer_norm()
        .biases(true, true),
    row(Arch::Opt, "opt")
        .types(&["opt"])
        .cases(&["opt"])
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    // Falcon's config ties the head by default; the measured cases state
    // their own (they read `tied_embeddings` first).
    row(Arch::Falcon, "falcon")
        .types(&["falcon", "RefinedWeb", "RefinedWebModel"])
        .cases(&["falcon"])
        .plain_layer_norm()
        .tied(),
    row(Arch::Bloom, "bloom")
        .types(&["bloom"])
        .cases(&["bloom"])
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    row(Arch::GptBigcode, "gpt_bigcode")
        .types(&["gpt_bigcode"])
        .cases(&["gpt_bigcode"])
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    // The case format has no DeBERTa-specific fields: its DeBERTa cases are
    // built with BERT's layers.
    row(Arch::Bert, "bert")
        .types(&["bert"])
        .cases(&["bert", "deberta_v2"])
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    row(Arch::DebertaV2, "deberta_v2")
        .types(&["deberta-v2"])
        .plain_layer_norm()
        .biases(true, true)
        .tied(),
    row(Arch::T5, "t5").types(&["t5", "mt5"]).cases(&["t5"]),
    row(Arch::DeepseekV2, "deepseek_v2")
        .types(&["deepseek_v2", "minicpm3"])
        .cases(&["deepseek_v2"]),
    // DeepSeek-V3.2 adds a lightning indexer to each layer (hf_config::modern).
    // Kimi K2 ships model_type "kimi_k2" with DeepseekV3ForCausalLM (its
    // config.json): the same layers, 384 experts, one dense layer.
    // Mistral 4 (Mistral Small 4) builds DeepSeek-V3's layers without the
    // router's bias buffer (`modular_mistral4.py`).
    row(Arch::DeepseekV3, "deepseek_v3").types(&[
        "deepseek_v3",
        "mistral4",
        "deepseek_v32",
        "kimi_k2",
        "youtu",
        "sarvam_mla",
        "glm_moe_dsa",
    ]),
    row(Arch::ClipVision, "clip_vision")
        .types(&["clip_vision_model", "clip"])
        .plain_layer_norm(),
    row(Arch::Llava, "llava").types(&["llava"]),
    // StableLM-2: LayerNorm over a gated MLP (`StableLmMLP`), q/k/v bias
    // set by `use_qkv_bias`.
    row(Arch::Stablelm, "stablelm")
        .types(&["stablelm"])
        .layer_norm(),
    // gpt-oss: biases on attention and experts (`attention_bias` = True).
    row(Arch::GptOss, "gpt_oss")
        .types(&["gpt_oss"])
        .cases(&["gpt_oss"])
        .biases(true, true),
    // Each family's defaults below are its transformers configuration
    // class's (`tie_word_embeddings`, `attention_bias`); hf_config::modern
    // reads the rest of its layout.
    row(Arch::Llama4, "llama4").types(&["llama4_text", "llama4"]),
    row(Arch::Glm4, "glm4").types(&["glm4"]).biases(true, false),
    row(Arch::Glm4Moe, "glm4_moe").types(&["glm4_moe", "solar_open", "sarvam_moe", "dots1"]),
    row(Arch::Olmo2, "olmo2").types(&["olmo2", "olmo3"]),
    // CohereLayerNorm has no bias: one vector, counted like RMSNorm.
    row(Arch::Cohere, "cohere")
        .types(&["cohere", "cohere2"])
        .tied(),
    row(Arch::Smollm3, "smollm3").types(&["smollm3"]).tied(),
    row(Arch::Apertus, "apertus").types(&["apertus"]).plain(),
    row(Arch::Ernie45, "ernie4_5").types(&["ernie4_5"]).tied(),
    row(Arch::Ernie45Moe, "ernie4_5_moe")
        .types(&["ernie4_5_moe"])
        .tied(),
    row(Arch::Exaone4, "exaone4").types(&["exaone4"]),
    row(Arch::SeedOss, "seed_oss")
        .types(&["seed_oss"])
        .biases(true, false),
    row(Arch::Hunyuan, "hunyuan").types(&["hunyuan_v1_dense"]),
    row(Arch::HunyuanMoe, "hunyuan_moe").types(&["hunyuan_v1_moe"]),
    row(Arch::Mamba, "mamba")
        .types(&["mamba", "falcon_mamba"])
        .tied(),
    row(Arch::Mamba2, "mamba2").types(&["mamba2"]),
    row(Arch::Jamba, "jamba").types(&["jamba"]),
    // Nemotron-H's MLP is relu² over up and down projections.
    row(Arch::NemotronH, "nemotron_h")
        .types(&["nemotron_h"])
        .plain(),
    row(Arch::FalconH1, "falcon_h1").types(&["falcon_h1"]),
    row(Arch::GraniteMoeHybrid, "granitemoehybrid").types(&["granitemoehybrid", "bamba"]),
    row(Arch::Qwen3Next, "qwen3_next").types(&[
        "qwen3_next",
        "qwen3_5_text",
        "qwen3_5_moe_text",
        "qwen3_5",
        "qwen3_5_moe",
    ]),
    row(Arch::Lfm2, "lfm2").types(&["lfm2"]).tied(),
    row(Arch::Minimax, "minimax").types(&["minimax"]),
    row(Arch::Custom, "custom"),
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
    ARCHS.iter().find(|r| r.model_types.contains(&model_type))
}

/// The family a measured case's `model.arch` names.
pub fn by_case_name(name: &str) -> Option<&'static ArchRow> {
    ARCHS.iter().find(|r| r.case_names.contains(&name))
}

/// Every `model_type` the importer reads, in the table's order.
pub fn model_types() -> impl Iterator<Item = &'static str> {
    ARCHS.iter().flat_map(|r| r.model_types.iter().copied())
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
        assert!(by_model_type("rwkv").is_none());
    }
}
