#!/usr/bin/env python
"""Parameter counts and embedding-table tying of T5GemmaForConditionalGeneration, on CPU.

1. `num_parameters()` of models built on the meta device (no memory, no Hub access) for:
   `class_defaults` (T5GemmaConfig() as is: encoder and decoder are default T5GemmaModuleConfig,
   hidden 2304, intermediate 9216, 26 layers, 8 heads, 4 KV heads, head_dim 256, vocab 256000,
   tie_word_embeddings True), `class_defaults_untied` (the same with tie_word_embeddings False),
   and the tiny configs of measure_t5gemma_layers.py ((1, 1) layers; also the wide-encoder one),
   tied and untied. Each row also has `num_parameters(exclude_embeddings=True)`, the number of
   distinct Parameter objects, and the count from the closed formula in `formula()` below
   (`formula_matches`).
2. Which embedding tables exist and which are the same Parameter (`p is q`), checked on a small
   real CPU model (the tiny config) for tie_word_embeddings True and False at the top level; the
   module sub-configs keep their own tie_word_embeddings (default True), recorded as well.
   `tie_word_embeddings` False passed only in the decoder sub-config is tried too.

Measured with torch 2.15.0 and transformers 5.24.0 (Python 3.11) on 2026-11-28.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma_params.py > t5gemma_params.jsonl  # ~5 s
"""
import copy
import json
import platform

import torch
import transformers
from transformers import T5GemmaConfig, T5GemmaForConditionalGeneration

transformers.logging.set_verbosity_error()

MODULE = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
              head_dim=16, vocab_size=500, query_pre_attn_scalar=16, num_hidden_layers=1)
CONFIGS = {
    "class_defaults": {},
    "class_defaults_untied": dict(tie_word_embeddings=False),
    "tiny": dict(encoder=dict(MODULE), decoder=dict(MODULE), vocab_size=500),
    "tiny_untied": dict(encoder=dict(MODULE), decoder=dict(MODULE), vocab_size=500,
                        tie_word_embeddings=False),
    "tiny_wide_encoder": dict(encoder=dict(MODULE, hidden_size=96), decoder=dict(MODULE),
                              vocab_size=500),
    "tiny_wide_encoder_untied": dict(encoder=dict(MODULE, hidden_size=96), decoder=dict(MODULE),
                                     vocab_size=500, tie_word_embeddings=False),
}


def formula(cfg):
    """Closed-form count (no attention bias): layers + embeddings + final norms + lm_head."""
    e, d = cfg.encoder, cfg.decoder

    def attn(m, kv_in):
        return m.hidden_size * m.num_attention_heads * m.head_dim + \
            2 * kv_in * m.num_key_value_heads * m.head_dim + \
            m.num_attention_heads * m.head_dim * m.hidden_size

    def mlp(m):
        return 3 * m.hidden_size * m.intermediate_size

    enc_layer = attn(e, e.hidden_size) + mlp(e) + 4 * e.hidden_size
    dec_layer = attn(d, d.hidden_size) + attn(d, e.hidden_size) + mlp(d) + 6 * d.hidden_size
    total = e.num_hidden_layers * enc_layer + d.num_hidden_layers * dec_layer
    total += e.vocab_size * e.hidden_size + d.vocab_size * d.hidden_size  # the two embed_tokens
    total += e.hidden_size + d.hidden_size  # final norms
    if not cfg.tie_word_embeddings:
        total += d.vocab_size * d.hidden_size  # lm_head.out_proj (no bias)
    return total, enc_layer, dec_layer


def tables(model):
    enc = model.model.encoder.embed_tokens.weight
    dec = model.model.decoder.embed_tokens.weight
    lm = model.lm_head.out_proj.weight
    return dict(shapes={"encoder.embed_tokens": list(enc.shape), "decoder.embed_tokens":
                        list(dec.shape), "lm_head.out_proj": list(lm.shape)},
                lm_head_bias=model.lm_head.out_proj.bias is not None,
                enc_is_dec=enc is dec, dec_is_lm_head=dec is lm, enc_is_lm_head=enc is lm,
                input_embeddings_is_enc=model.get_input_embeddings().weight is enc,
                output_embeddings_is_lm_head=model.get_output_embeddings().weight is lm)


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for name, kw in CONFIGS.items():
        cfg = T5GemmaConfig(**copy.deepcopy(kw), attn_implementation="eager")
        with torch.device("meta"):
            model = T5GemmaForConditionalGeneration(cfg)
        n = model.num_parameters()
        f, enc_layer, dec_layer = formula(cfg)
        print(json.dumps(dict(
            kind="num_parameters", name=name, config=kw,
            tie_word_embeddings=cfg.tie_word_embeddings,
            submodule_tie_word_embeddings=[cfg.encoder.tie_word_embeddings,
                                           cfg.decoder.tie_word_embeddings],
            num_parameters=n, num_parameters_exclude_embeddings=model.num_parameters(
                exclude_embeddings=True),
            distinct_parameter_objects=len(list(model.parameters())),
            named_parameters_with_duplicates=len(list(model.named_parameters(
                remove_duplicate=False))),
            formula=f, formula_matches=f == n, encoder_layer_params=enc_layer,
            decoder_layer_params=dec_layer, tables=tables(model), versions=versions)), flush=True)
    tiny = CONFIGS["tiny"]
    for name, kw in (("tiny_tied", tiny), ("tiny_untied", CONFIGS["tiny_untied"]),
                     ("tiny_decoder_subconfig_untied",
                      dict(tiny, decoder=dict(MODULE, tie_word_embeddings=False)))):
        torch.manual_seed(0)
        cfg = T5GemmaConfig(**copy.deepcopy(kw), attn_implementation="eager")
        model = T5GemmaForConditionalGeneration(cfg)  # real CPU weights
        t = tables(model)
        enc = model.model.encoder.embed_tokens.weight
        dec = model.model.decoder.embed_tokens.weight
        lm = model.lm_head.out_proj.weight
        t.update(enc_equals_dec_values=bool(torch.equal(enc, dec)),
                 dec_equals_lm_values=bool(torch.equal(dec, lm)),
                 dec_lm_same_storage=dec.data_ptr() == lm.data_ptr())
        print(json.dumps(dict(kind="tying", name=name, config=kw,
                              tie_word_embeddings=cfg.tie_word_embeddings,
                              submodule_tie_word_embeddings=[cfg.encoder.tie_word_embeddings,
                                                             cfg.decoder.tie_word_embeddings],
                              num_parameters=model.num_parameters(), **t,
                              versions=versions)), flush=True)


if __name__ == "__main__":
    main()
