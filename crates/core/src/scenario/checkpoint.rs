//! The weight format a checkpoint is stored in, as the scenario's fields:
//! a pasted or fetched `config.json` with a `quantization_config` (AWQ,
//! GPTQ, bitsandbytes, FP8, MXFP4, compressed-tensors) loads quantized,
//! so the importer's faces start from its format instead of 16-bit.

use super::Scenario;
use crate::precision::WeightFormat;

/// What a checkpoint's `quantization_config` sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckpointWeights {
    pub weights: WeightFormat,
    /// GPTQ's and AWQ's quantization group.
    pub group_size: Option<u64>,
    /// bitsandbytes' `bnb_4bit_use_double_quant`.
    pub double_quant: bool,
}

impl CheckpointWeights {
    /// Sets the scenario's weights to the checkpoint's where the format
    /// can load in its setup (not GGUF's llama.cpp, nor QLoRA over AWQ);
    /// says whether it did.
    pub fn apply(&self, sc: &mut Scenario) -> bool {
        if !self.weights.applies(sc) {
            return false;
        }
        sc.weights = self.weights;
        if let Some(group) = self.group_size {
            sc.group_size = group;
        }
        sc.double_quant = self.double_quant;
        true
    }

    /// One line for the importer worker's answer: `awq4 128 0`.
    pub fn to_line(&self) -> String {
        format!(
            "{} {} {}",
            self.weights.name(),
            self.group_size.unwrap_or(0),
            u8::from(self.double_quant)
        )
    }

    /// The line [`Self::to_line`] wrote.
    pub fn from_line(line: &str) -> Option<Self> {
        let mut parts = line.split_whitespace();
        let weights = WeightFormat::parse(parts.next()?)?;
        let group_size = parts.next()?.parse().ok().filter(|g| *g > 0);
        let double_quant = parts.next()? == "1";
        Some(Self {
            weights,
            group_size,
            double_quant,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Engine, Method, TaskKind};

    const AWQ: CheckpointWeights = CheckpointWeights {
        weights: WeightFormat::Awq4,
        group_size: Some(64),
        double_quant: false,
    };

    #[test]
    fn a_checkpoint_format_applies_only_where_it_can_load() {
        let mut sc = Scenario::default();
        assert!(AWQ.apply(&mut sc));
        assert_eq!((sc.weights, sc.group_size), (WeightFormat::Awq4, 64));
        // llama.cpp reads GGUF files, not AWQ tensors
        let mut gguf = Scenario {
            task: TaskKind::Inference,
            ..Scenario::default()
        };
        gguf.inference.engine = Engine::LlamaCpp;
        let before = gguf.clone();
        assert!(!AWQ.apply(&mut gguf));
        assert_eq!(gguf, before);
        // QLoRA trains over bitsandbytes formats only
        let mut qlora = Scenario {
            task: TaskKind::Training,
            ..Scenario::default()
        };
        qlora.training.method = Method::Qlora;
        assert!(!AWQ.apply(&mut qlora));
        let nf4 = CheckpointWeights {
            weights: WeightFormat::Nf4,
            group_size: None,
            double_quant: true,
        };
        assert!(nf4.apply(&mut qlora));
        assert!(qlora.double_quant);
    }

    #[test]
    fn the_worker_line_reads_back() {
        for q in [
            AWQ,
            CheckpointWeights {
                weights: WeightFormat::Nf4,
                group_size: None,
                double_quant: true,
            },
        ] {
            assert_eq!(CheckpointWeights::from_line(&q.to_line()), Some(q));
        }
        assert_eq!(CheckpointWeights::from_line(""), None);
        assert_eq!(CheckpointWeights::from_line("int3 128 0"), None);
    }
}
