//! Position tables that bound the sequence: models whose positions are a
//! table of `max_position_embeddings` rows (GPT-2, GPT-Neo, StarCoder's
//! GPT-BigCode, OPT, BERT, Whisper's decoder, BART and its kin) cannot run a
//! sequence longer than the table: the lookup fails (an `IndexError` on the
//! CPU, a device-side assert on CUDA) before any memory question arises.
//! Rotary, ALiBi and relative positions (T5) have no such bound.

use crate::model::{Arch, ModelSpec};
use crate::report::Note;
use crate::resolved::Resolved;

/// Whether `spec` reads its positions from a table of `max_position` rows
/// (0: none stated, or a table that grows, as M2M-100's sinusoids do).
fn bounded(spec: &ModelSpec) -> Option<u64> {
    let table = matches!(
        spec.arch,
        Arch::Gpt2
            | Arch::GptNeo
            | Arch::GptBigcode
            | Arch::Opt
            | Arch::Bert
            | Arch::Whisper
            | Arch::Bart
    );
    (table && spec.max_position > 0).then_some(spec.max_position)
}

/// The stacks' token counts the scenario asks of the tables: (what, tokens).
fn demands(r: &Resolved) -> Vec<(&'static str, &'static str, u128)> {
    let encoder_decoder = r.spec.encoder_layers.is_some_and(|e| e > 0);
    let fixed_encoder = r.spec.encoder_tokens.is_some();
    if r.is_training() {
        let seq = u128::from(r.training.seq_len);
        return match (encoder_decoder, fixed_encoder) {
            // Whisper: the sequence is the decoder's labels
            (true, true) => vec![("the decoder's labels", "解码器标签", seq)],
            (true, false) => vec![
                ("the source", "源序列", seq),
                ("the target", "目标序列", r.decoder_tokens()),
            ],
            _ => vec![("the training sequence", "训练序列", seq)],
        };
    }
    let (prompt, new) = (
        u128::from(r.inference.prompt_len),
        u128::from(r.inference.new_tokens),
    );
    if r.spec.arch == Arch::Bert {
        // an encoder's forward reads the prompt and generates nothing
        return vec![("the input", "输入", prompt)];
    }
    match (encoder_decoder, fixed_encoder) {
        // the encoder reads the prompt; the decoder's last token is never fed back
        (true, false) => vec![
            (
                "the prompt (the encoder's source)",
                "提示（编码器的源序列）",
                prompt,
            ),
            ("the generated tokens", "生成的 token", new),
        ],
        _ => vec![(
            "the prompt and generated tokens",
            "提示与生成的 token",
            prompt + new,
        )],
    }
}

/// A note when a sequence is longer than the model's position table.
pub fn beyond_positions_note(r: &Resolved) -> Option<Note> {
    let rows = bounded(r.spec)?;
    let (what, what_zh, tokens) = demands(r)
        .into_iter()
        .find(|(_, _, tokens)| *tokens > u128::from(rows))?;
    Some(Note::new(
        "beyond_positions",
        format!(
            "{tokens} tokens of {what} exceed the model's {rows} learned positions: transformers fails at the position lookup (IndexError, or a device-side assert on CUDA) before memory matters. Shorten it to at most {rows}."
        ),
        format!(
            "{what_zh}有 {tokens} 个 token，超出模型的 {rows} 个位置：transformers 会在位置查表时报错（IndexError，或 CUDA 上的 device-side assert），与显存无关。请缩短到 {rows} 以内。"
        ),
    ))
}
