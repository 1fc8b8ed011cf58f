//! Which attention a job runs: the scenario's choice, or what transformers
//! falls back to where the model's class lacks the kernel
//! (`model::kernels`), with a note saying so.

use crate::model::kernels::HfKernels;
use crate::model::ModelSpec;
use crate::report::Note;
use crate::scenario::{Attention, Engine, Scenario, TaskKind};

/// The attention the job runs: the scenario's choice, except under
/// transformers (a Hugging Face training stack or the transformers engine),
/// whose classes without SDPA fall back to eager (`model/kernels.rs`).
/// Training compressed attention has no other kernel in any framework.
pub fn attention_run(sc: &Scenario, spec: &ModelSpec) -> Attention {
    let (transformers, training) = match sc.task {
        TaskKind::Training => (sc.training.framework.is_hugging_face(), true),
        TaskKind::Inference => (sc.inference.engine == Engine::Transformers, false),
    };
    if transformers || (training && spec.compressed_attention.is_some()) {
        runs(spec.transformers_kernels(), sc.attention)
    } else {
        sc.attention
    }
}

/// The attention transformers runs when `requested` is the scenario's
/// choice: SDPA (the default) becomes eager where there is no SDPA, and
/// FlashAttention where the class has none is estimated as eager, the
/// one kernel such a model loads with (asking for flash raises).
pub fn runs(kernels: HfKernels, requested: Attention) -> Attention {
    match (kernels, requested) {
        (HfKernels::All, a)
        | (HfKernels::FlashOrEager | HfKernels::HopperFlashOrEager, a @ Attention::Flash) => a,
        _ => Attention::Eager,
    }
}

/// Says so where transformers runs another attention than the one asked
/// for (`requested`), on a model with attention layers.
pub fn fallback_note(requested: Attention, runs: Attention, spec: &ModelSpec) -> Option<Note> {
    if requested == runs || spec.attention_layer_count() == 0 {
        return None;
    }
    let kernels = spec.transformers_kernels();
    Some(match (requested, kernels) {
        (Attention::Flash, _) => Note::new(
            "eager_attention_only",
            "transformers has no FlashAttention for this model (`attn_implementation=\"flash_attention_2\"` raises): estimated with eager attention, the one kernel it loads with, which stores every layer's full score matrix.".into(),
            "transformers 没有为该模型提供 FlashAttention（`attn_implementation=\"flash_attention_2\"` 会报错）：按它唯一能加载的 eager 注意力估算，每层完整的注意力分数矩阵都会存下。".into(),
        ),
        (_, HfKernels::HopperFlashOrEager) => Note::new(
            "eager_attention_default",
            "transformers has no SDPA kernel for this model's attention sinks (its class sets `_supports_sdpa = False`), so its default runs eager attention, which stores every layer's full score matrix: estimated so. On Hopper and Blackwell GPUs its FlashAttention kernels avoid it (`attn_implementation=\"kernels-community/vllm-flash-attn3\"` or `\"flash_attention_4\"`).".into(),
            "transformers 没有能处理该模型 attention sink 的 SDPA 内核（模型类设了 `_supports_sdpa = False`），默认回退到 eager 注意力，会存下每层完整的注意力分数矩阵，估算即按此计算。在 Hopper 与 Blackwell GPU 上可改用它的 FlashAttention 内核（`attn_implementation=\"kernels-community/vllm-flash-attn3\"` 或 `\"flash_attention_4\"`）避免。".into(),
        ),
        (_, HfKernels::FlashOrEager) => Note::new(
            "eager_attention_default",
            "transformers has no SDPA kernel for this model's attention (its class sets `_supports_sdpa = False`), so its default runs eager attention, which stores every layer's full score matrix: estimated so. FlashAttention avoids it (`attn_implementation=\"flash_attention_2\"`).".into(),
            "transformers 没有为该模型的注意力提供 SDPA 内核（模型类设了 `_supports_sdpa = False`），默认回退到 eager 注意力，会存下每层完整的注意力分数矩阵，估算即按此计算。改用 FlashAttention（`attn_implementation=\"flash_attention_2\"`）可避免。".into(),
        ),
        _ => Note::new(
            "eager_attention_only",
            "transformers runs this model's attention eager only (its class has no SDPA or FlashAttention kernel), which stores every layer's full score matrix: estimated so.".into(),
            "transformers 对该模型只支持 eager 注意力（模型类没有 SDPA 或 FlashAttention 内核），每层完整的注意力分数矩阵都会存下，估算即按此计算。".into(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_falls_back_to_eager_only_without_sdpa() {
        assert_eq!(runs(HfKernels::All, Attention::Sdpa), Attention::Sdpa);
        assert_eq!(
            runs(HfKernels::FlashOrEager, Attention::Sdpa),
            Attention::Eager
        );
        assert_eq!(
            runs(HfKernels::FlashOrEager, Attention::Flash),
            Attention::Flash
        );
        assert_eq!(
            runs(HfKernels::EagerOnly, Attention::Flash),
            Attention::Eager
        );
        for k in [
            HfKernels::All,
            HfKernels::FlashOrEager,
            HfKernels::EagerOnly,
        ] {
            assert_eq!(runs(k, Attention::Eager), Attention::Eager);
        }
    }
}
