//! The share-link codec: the format the issue specifies, round trips of
//! random scenarios, and notices (never panics) for anything else.

use proptest::prelude::*;
use vramfit_core::catalog::models;
use vramfit_core::gpu::gpus;
use vramfit_core::image_tokens::ImageRule;
use vramfit_core::model::kernels::{EagerPath, HfKernels};
use vramfit_core::model::{
    Arch, AttentionState, CompressedAttention, GlobalAttention, HyperConnections, HyperKind,
    Indexer, KvSharing, Mla, MlpKind, ModelSpec, Moe, NgramEmbedding, NormKind, PerLayerInput,
    QkNorm, QsaIndexer, Recurrent, RecurrentKind, SlidingWindow, TowerBlock, VideoFamily,
    VisionTower,
};
use vramfit_core::precision::{Dtype, TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{
    Attention, CacheType, Checkpointing, Engine, Framework, GpuChoice, Inference, KbitPrep, Lora,
    LoraTarget, Method, MixerKernels, ModelSource, Offload, Optimizer, Parallel, QuantKernel,
    Scenario, Strategy as Sharding, TaskKind, Training,
};
use vramfit_core::url::{decode, decode_with, encode, share_url, Choice, DEFAULT_BASE};

fn params_named(decoded: &vramfit_core::url::Decoded) -> Vec<&str> {
    decoded.notices.iter().map(|n| n.param.as_str()).collect()
}

#[test]
fn the_issue_example_decodes_field_by_field() {
    let d = decode("v=1&m=meta-llama/Llama-2-7b-hf&t=train&w=nf4&mb=4&seq=2048&gpu=a100-sxm4-40gb");
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let mut expected = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        weights: WeightFormat::Nf4,
        ..Scenario::default()
    };
    expected.training.micro_batch = 4;
    expected.training.seq_len = 2048;
    expected.gpu.name = Some("a100-sxm4-40gb".into());
    assert_eq!(d.scenario, expected);
}

#[test]
fn the_default_scenario_is_just_the_version() {
    assert_eq!(encode(&Scenario::default()), "v=1");
    assert_eq!(decode("").scenario, Scenario::default());
    assert_eq!(decode("?v=1").scenario, Scenario::default());
}

#[test]
fn version_first_and_defaults_left_out() {
    let mut sc = Scenario::default();
    sc.training.micro_batch = 4;
    sc.gpu.name = Some("h100-sxm-80gb".into());
    // seq_len 2048 is the default: it must not appear.
    assert_eq!(encode(&sc), "v=1&mb=4&gpu=h100-sxm-80gb");
}

#[test]
fn unknown_and_invalid_parameters_name_themselves_and_fall_back() {
    let d = decode("v=1&mb=zero&bogus=3&w=q9&bs=0&gpu=rtx-9999&m=nobody/nothing&mb=8");
    let named = params_named(&d);
    for param in ["mb", "bogus", "w", "bs", "gpu", "m"] {
        assert!(named.contains(&param), "{param} missing from {named:?}");
    }
    // Every bad field keeps its default; the duplicate mb=8 is not used either.
    assert_eq!(d.scenario, Scenario::default());
    let bs = d
        .notices
        .iter()
        .find(|n| n.param == "bs")
        .map(|n| n.message.as_str());
    assert!(bs.is_some_and(|m| m.contains("1 to 65536")), "{bs:?}");
}

#[test]
fn newer_or_garbled_versions_are_noticed_and_read_as_v1() {
    let d = decode("v=2&mb=4");
    assert_eq!(params_named(&d), ["v"]);
    assert_eq!(d.scenario.training.micro_batch, 4);
}

#[test]
fn passthrough_keys_are_left_to_the_caller() {
    let d = decode_with("v=1&u=gb&mb=2", &["u"]);
    assert!(d.notices.is_empty());
    assert_eq!(d.scenario.training.micro_batch, 2);
    assert_eq!(params_named(&decode("v=1&u=gb")), ["u"]);
}

#[test]
fn memory_sizes_read_with_units() {
    // 24 GiB = 24 * 2^30 = 25_769_803_776 bytes; 80 GB = 80 * 10^9.
    assert_eq!(
        decode("mem=24GiB").scenario.gpu.memory_bytes,
        Some(25_769_803_776)
    );
    assert_eq!(
        decode("mem=80GB").scenario.gpu.memory_bytes,
        Some(80_000_000_000)
    );
    assert_eq!(
        decode("mem=1.5GiB").scenario.gpu.memory_bytes,
        Some(1_610_612_736)
    );
    assert_eq!(params_named(&decode("mem=12parsecs")), ["mem"]);
    assert_eq!(params_named(&decode("mem=1KiB")), ["mem"]);
}

#[test]
fn names_with_reserved_characters_survive() {
    let mut spec = ModelSpec {
        name: "my model & co = 100% #1".into(),
        hidden: 256,
        ..ModelSpec::default()
    };
    spec.layers = 2;
    let sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        ..Scenario::default()
    };
    let q = encode(&sc);
    assert!(
        !q.contains(' ') && !q.contains('#') && q.matches('&').count() == 4,
        "{q}"
    );
    assert_eq!(decode(&q).scenario, sc);
}

#[test]
fn share_url_replaces_the_base_query() {
    let sc = Scenario {
        task: TaskKind::Training,
        ..Scenario::default()
    };
    assert_eq!(
        share_url(DEFAULT_BASE, &sc),
        format!("{DEFAULT_BASE}?v=1&t=train")
    );
    assert_eq!(
        share_url("http://127.0.0.1:8080/?v=1&mb=3#top", &sc),
        "http://127.0.0.1:8080/?v=1&t=train"
    );
}

#[test]
fn choice_keys_match_the_json_names() {
    fn check<T: Choice + serde::Serialize + std::fmt::Debug>() {
        for &c in T::ALL {
            assert_eq!(T::parse(c.key()), Some(c));
            let json = serde_json::to_value(c).expect("serializes");
            let name = json.as_str().expect("a string");
            assert_eq!(T::parse(name), Some(c), "{name}");
        }
    }
    check::<TaskKind>();
    check::<Method>();
    check::<LoraTarget>();
    check::<Optimizer>();
    check::<Checkpointing>();
    check::<Attention>();
    check::<Framework>();
    check::<Engine>();
    check::<Sharding>();
    check::<Offload>();
    check::<Dtype>();
    check::<TrainingPrecision>();
    check::<WeightFormat>();
    check::<Arch>();
    check::<MlpKind>();
    check::<NormKind>();
}

#[test]
fn every_catalog_model_and_gpu_round_trips() {
    for m in models() {
        let mut sc = Scenario {
            model: ModelSource::Catalog(m.id.clone()),
            ..Scenario::default()
        };
        let d = decode(&encode(&sc));
        assert!(d.notices.is_empty(), "{}: {:?}", m.id, d.notices);
        assert_eq!(d.scenario, sc);
        // The catalog spec written out as a custom model comes back whole.
        sc.model = ModelSource::Spec(Box::new(m.spec.clone()));
        let d = decode(&encode(&sc));
        assert!(d.notices.is_empty(), "{}: {:?}", m.id, d.notices);
        assert_eq!(d.scenario, sc, "{}", m.id);
    }
    for g in gpus() {
        let mut sc = Scenario::default();
        sc.gpu.name = Some(g.id.clone());
        assert_eq!(decode(&encode(&sc)).scenario, sc, "{}", g.id);
    }
}

fn pick<T: Choice + std::fmt::Debug>() -> impl Strategy<Value = T> {
    proptest::sample::select(T::ALL)
}

/// Valid image rules of every family (a link carries the model's rule).
fn image_rule() -> impl Strategy<Value = ImageRule> {
    let n = |max: u64| 1u64..=max;
    prop_oneof![
        (n(64), n(8), n(10_000), 10_000u64..1 << 24).prop_map(|(patch, merge, min, max)| {
            ImageRule::QwenVl {
                patch,
                merge,
                min_pixels: min,
                max_pixels: max,
            }
        }),
        (n(64), n(8), n(4), n(10_000), 10_000u64..1 << 24).prop_map(
            |(patch, merge, temporal, min, max)| ImageRule::Glm4v {
                patch,
                merge,
                temporal,
                min_pixels: min,
                max_pixels: max,
            }
        ),
        // MiniCPM-V's slices (`minicpm_v:…`) round-trip too
        (n(64), n(4), n(4096), n(16)).prop_map(|(patch, merge, scale, max_slices)| {
            ImageRule::MiniCpmV {
                patch,
                merge,
                scale,
                max_slices,
            }
        }),
        // LightOnOCR's merged patches (`lighton_ocr:…`) round-trip too
        (n(64), n(8), n(4096)).prop_map(|(patch, merge, longest_edge)| {
            ImageRule::LightOnOcr {
                patch,
                merge,
                longest_edge,
            }
        }),
        (n(1024), n(32), n(12), n(4096)).prop_map(|(tile, patch, max, tokens)| {
            ImageRule::InternVl {
                tile,
                patch,
                min_tiles: 1,
                max_tiles: max,
                tokens_per_tile: tokens,
            }
        }),
        (
            n(64),
            n(8),
            proptest::sample::select(vec![70u64, 140, 280, 560, 1120])
        )
            .prop_map(|(patch, pool, soft_tokens)| ImageRule::Gemma4 {
                patch,
                pool,
                soft_tokens,
            }),
        (n(8192), n(8192)).prop_map(|(tower, language_model)| ImageRule::Fixed {
            tower,
            language_model
        }),
        (n(1024), n(32), n(8)).prop_map(|(tile, patch, max_tiles)| ImageRule::Mllama {
            tile,
            patch,
            max_tiles
        }),
        (n(8192), n(512), n(1024), n(8), 0u64..=1000).prop_map(
            |(tower, tokens, min_crop, max_crops, r)| {
                ImageRule::Gemma3PanScan {
                    tower,
                    tokens,
                    min_crop,
                    max_crops,
                    min_ratio_tenths: r,
                }
            }
        ),
        (n(32), n(4), n(4096)).prop_map(|(patch, merge, longest_edge)| ImageRule::Pixtral {
            patch,
            merge,
            longest_edge
        }),
        (n(4096), n(1024), n(32), n(1024)).prop_map(|(longest_edge, tile, patch, seq_len)| {
            ImageRule::Idefics3 {
                longest_edge,
                tile,
                patch,
                seq_len,
            }
        }),
        (
            n(1024),
            n(32),
            proptest::collection::vec((n(2048), n(2048)), 1..6),
            0u64..2000
        )
            .prop_map(
                |(crop, patch, pinpoints, tile_tokens)| ImageRule::LlavaNext {
                    crop,
                    patch,
                    tile_tokens,
                    pinpoints
                }
            ),
        (n(1024), n(4), n(64), any::<[bool; 2]>()).prop_map(|(tile, pool, max_tiles, flags)| {
            ImageRule::PerceptionLm(vramfit_core::image_tokens::PlmTiles {
                tile: tile.max(64),
                patch: 14,
                pool,
                max_tiles,
                thumb_and_tiles: flags[0],
                class_token: flags[1],
            })
        }),
    ]
}

/// A video family, or none: each round-trips (`s.vid`) beside any image rule.
fn video_family(layers: u64) -> Option<VideoFamily> {
    match layers % 4 {
        0 => None,
        1 => Some(VideoFamily::Qwen2 { temporal: 2 }),
        2 => Some(VideoFamily::Frames),
        _ => Some(VideoFamily::Qwen3 {
            temporal: 1 + layers % 4,
        }),
    }
}

/// A generated MLA, with an indexer on some layers when the latent rank is even.
fn generated_mla(q: Option<u64>, kv: u64, layers: u64) -> Mla {
    Mla {
        q_lora_rank: q,
        kv_lora_rank: kv,
        qk_nope_head_dim: 128,
        qk_rope_head_dim: 64,
        v_head_dim: 128,
        indexer: kv.is_multiple_of(2).then_some(Indexer {
            head_dim: 128,
            heads: 64,
            layers: layers / 2,
            // GLM-5.3-Flash's pooled indexer on some ranks
            pool: if kv.is_multiple_of(4) { 16 } else { 0 },
            // Dots3-Note's fp32 keys on some ranks
            key_bytes: if kv.is_multiple_of(5) { 4 } else { 0 },
        }),
        // Mistral Large 4's NoPE layers on some ranks
        nope_layers: if kv.is_multiple_of(3) { layers / 4 } else { 0 },
        // Dots3-Note's sliding layers' own latent on some ranks
        sliding: kv
            .is_multiple_of(7)
            .then_some(vramfit_core::model::SlidingLatent {
                kv_lora_rank: kv * 2,
                qk_rope_head_dim: 32,
            }),
    }
}

/// Every tower layer family round-trips (`s.vb`, absent for CLIP's).
fn tower_block(hidden: u64) -> TowerBlock {
    match hidden % 8 {
        0 => TowerBlock::Clip,
        1 => TowerBlock::Siglip,
        2 => TowerBlock::Qwen25Vl,
        3 => TowerBlock::Qwen2Vl,
        4 => TowerBlock::Qwen3Vl,
        5 => TowerBlock::InternVit,
        6 => TowerBlock::InternVitRms,
        _ => TowerBlock::Other,
    }
}

// Every ModelSpec field in the struct's order, as `scenario` does for its
// fields: splitting it would only scatter them.
#[allow(clippy::too_many_lines)]
fn model_source() -> impl Strategy<Value = ModelSource> {
    let catalog =
        proptest::sample::select(models().iter().map(|m| m.id.clone()).collect::<Vec<_>>())
            .prop_map(ModelSource::Catalog);
    let params = (1u64..=1 << 44).prop_map(ModelSource::Params);
    let dims = (
        pick::<Arch>(),
        "[ -~]{0,12}",
        0u64..70_000,
        0u64..200,
        0u64..128,
        0u64..128,
    );
    let options = (
        proptest::option::of(0u64..512),
        proptest::option::of(0u64..64),
        proptest::option::of(1u64..1 << 40),
        proptest::option::of(any::<bool>()),
        any::<[bool; 6]>(),
        (pick::<MlpKind>(), pick::<NormKind>()),
    );
    let groups = (
        proptest::option::of((
            0u64..512,
            0u64..16,
            proptest::option::of(0u64..9000),
            0u64..4,
        )),
        proptest::option::of((proptest::option::of(0u64..2000), 0u64..600)),
        proptest::option::of((1u64..9000, 0u64..64)),
        proptest::option::of((
            0u64..2000,
            0u64..40,
            0u64..600,
            proptest::option::of(1u64..1 << 40),
        )),
        proptest::option::of(image_rule()),
    );
    let hybrid = hybrid_parts();
    let spec = (dims, options, groups, hybrid).prop_map(|(d, o, g, x)| {
        let (arch, name, hidden, layers, heads, vocab) = d;
        let (head_dim, encoder_layers, params_override, mlp_bias, flags, (mlp, norm)) = o;
        let (moe, mla, window, vision, image_rule) = g;
        ModelSpec {
            name,
            arch,
            hidden,
            layers,
            heads,
            kv_heads: heads / 2,
            head_dim,
            // a narrower value head on some specs (MiMo-V2-Flash's)
            value_head_dim: head_dim.filter(|h| h % 3 == 0).map(|h| h / 3 + 1),
            intermediate: hidden * 3,
            vocab: vocab * 1000,
            max_position: hidden,
            tied_embeddings: flags[0],
            mlp,
            norm,
            qkv_bias: flags[1],
            out_bias: flags[2],
            moe: moe.map(|(experts, k, shared_ff, dense)| Moe {
                experts,
                experts_per_token: k,
                shared_experts: dense,
                expert_intermediate: experts * 7,
                shared_intermediate: shared_ff,
                dense_layers: dense,
                router_bias: x.router_bias,
                latent: x.latent,
            }),
            mla: mla.map(|(q, kv)| generated_mla(q, kv, layers)),
            sliding_window: window.map(|(window, layers)| SlidingWindow {
                window,
                layers,
                keeps_prompt: false,
            }),
            encoder_layers,
            // Whisper's fixed frames on some encoder-decoder specs
            encoder_tokens: encoder_layers.filter(|e| e % 2 == 1).map(|e| e * 300 + 1),
            encoder_stem: encoder_layers.map_or(0, |e| e * 7919),
            video: video_family(layers),
            image_rule,
            vision: vision.map(|(hidden, layers, image, tower_params)| VisionTower {
                hidden,
                layers,
                heads: 16,
                intermediate: hidden * 4,
                image_size: image,
                patch_size: 14,
                projector_params: hidden * 1000,
                projection_dim: 0,
                params: tower_params,
                block: tower_block(hidden),
                gated_layers: layers % 3,
                unhooked: layers % 2 == 0,
            }),
            params_override,
            approximate: flags[3],
            parallel_block: flags[4],
            norms_per_layer: head_dim.map(|h| h % 16),
            mlp_bias,
            lm_head_bias: flags[5],
            embed_proj_dim: encoder_layers.map(|e| e * 8),
            final_norm: mlp_bias.map(|b| !b),
            type_vocab: layers % 3,
            relative_attention_buckets: encoder_layers,
            // UMT5's per-layer bias on some shapes
            relative_bias_every_layer: layers % 4 == 3,
            // T5Gemma 2's merged attention on some encoder-decoders
            merged_cross_attention: encoder_layers.is_some_and(|e| e % 3 == 1),
            // LongT5's blocks, local or transient-global, on some shapes
            local_radius: encoder_layers.map(|e| e * 7),
            global_block: encoder_layers.filter(|e| e % 2 == 0).map(|e| e + 3),
            // Switch's sparse encoder layers where the shape has experts
            encoder_moe_layers: if moe.is_some() {
                encoder_layers.map_or(0, |e| e / 2)
            } else {
                0
            },
            conv_kernel: layers % 4,
            classifier_labels: heads % 5,
            qk_norm: x.qk_norm,
            recurrent: x.recurrent,
            attention_layers: x.attention_layers,
            mlp_layers: x.mlp_layers,
            layer_extra_params: x.layer_extra_params,
            // a number unlike the per-layer one, so a swapped key fails
            model_extra_params: x.layer_extra_params / 3 + hidden,
            gated_attention: x.gated_attention,
            // BART-family activation and probability dropout on some shapes
            relu_mlp: layers % 5 == 1,
            probability_dropout: heads % 3 == 1,
            cross_attention_layers: x.cross_attention_layers,
            global_attention: x.global_attention,
            kv_sharing: x.kv_sharing,
            per_layer_input: x.per_layer_input,
            compressed_attention: x.compressed_attention,
            // every kernel set round-trips (`s.hfk`)
            hf_kernels: match layers % 3 {
                0 => HfKernels::All,
                1 => HfKernels::FlashOrEager,
                _ => HfKernels::EagerOnly,
            },
            // every eager path round-trips (`s.eap`)
            eager_path: match heads % 5 {
                0 => EagerPath::Architecture,
                1 => EagerPath::Fp32Sinks,
                2 => EagerPath::InputDtypeSinks,
                3 => EagerPath::SavedFp32Sinks,
                _ => EagerPath::BoolMask,
            },
            qsa_indexer: x.qsa_indexer,
            ngram_embedding: x.ngram_embedding,
            hyper_connections: generated_hc(layers),
            // unlike every other number, so a swapped key fails
            fp32_params: layers * 7 + 3,
            attention_state: layers.is_multiple_of(5).then_some(AttentionState {
                conv_channels: hidden % 997 + 1,
                conv_steps: layers % 6,
                values: heads + 11,
                // Inkling's fp32 state and extra elements on every other one
                fp32: layers.is_multiple_of(2),
                extra: if layers.is_multiple_of(2) {
                    layers * 13
                } else {
                    0
                },
            }),
            // HRM-Text's runs that keep autograd, on every third spec
            grad_runs: layers.is_multiple_of(3).then_some(layers / 3),
            canvas: layers.is_multiple_of(4).then_some(layers * 16 + 1),
        }
    });
    prop_oneof![
        catalog,
        params,
        spec.prop_map(|s| ModelSource::Spec(Box::new(s)))
    ]
}

/// Hyper-connections on every third layer count, their streams and steps
/// from it (unlike each other, so a swap fails).
fn generated_hc(layers: u64) -> Option<HyperConnections> {
    let kind = match layers % 4 {
        0 => HyperKind::Manifold {
            sinkhorn_iters: layers % 11 + 8,
            fn_fp32: layers.is_multiple_of(8),
        },
        1 => HyperKind::Independent,
        2 => HyperKind::LowRank {
            rank: layers % 13 + 20,
        },
        _ => return None,
    };
    Some(HyperConnections {
        streams: layers % 7 + 1,
        kind,
    })
}

/// The hybrid-model fields of a custom spec.
#[derive(Clone, Debug)]
struct HybridParts {
    qk_norm: Option<QkNorm>,
    recurrent: Option<Recurrent>,
    attention_layers: Option<u64>,
    mlp_layers: Option<u64>,
    layer_extra_params: u64,
    gated_attention: bool,
    router_bias: bool,
    /// LatentMoE's width, 0 (none) in most cases.
    latent: u64,
    cross_attention_layers: u64,
    global_attention: Option<GlobalAttention>,
    kv_sharing: Option<KvSharing>,
    per_layer_input: Option<PerLayerInput>,
    compressed_attention: Option<CompressedAttention>,
    qsa_indexer: Option<QsaIndexer>,
    ngram_embedding: Option<NgramEmbedding>,
}

/// A QSA indexer from its numbers; odd layer counts keep only the keys.
fn qsa_indexer((heads, head_dim, layers): (u64, u64, u64)) -> QsaIndexer {
    QsaIndexer {
        heads,
        head_dim,
        layers,
        keys_only: layers % 2 == 1,
    }
}

fn hybrid_parts() -> impl Strategy<Value = HybridParts> {
    let recurrent = (
        pick::<RecurrentKind>(),
        0u64..80,
        0u64..9000,
        0u64..130,
        any::<[bool; 7]>(),
    )
        .prop_map(|(kind, layers, inner, heads, f)| Recurrent {
            kind,
            layers,
            inner,
            heads,
            groups: heads % 9,
            state: heads / 2,
            conv_kernel: layers % 5,
            dt_rank: inner / 16,
            proj_bias: f[0],
            conv_bias: f[1],
            gated_norm: f[2],
            dt_bc_norms: f[3],
            state_fp32: f[4],
            separate_z: f[5],
            full_rank_gates: f[6],
            chunk: inner % 300,
        });
    // Gemma 4's layer variants: global heads, KV-sharing layers, per-layer
    // inputs; DeepSeek-V4's compressed layers.
    let variants = (
        proptest::option::of((0u64..1024, 0u64..64, any::<bool>())),
        proptest::option::of((0u64..40, 0u64..10, any::<bool>())),
        proptest::option::of((0u64..512, 0u64..300_000)),
        proptest::option::of((0u64..40, 1u64..300, 0u64..40, 1u64..300, 0u64..256)),
        proptest::option::of((2u64..64, 1u64..512, 0u64..40)),
        proptest::option::of((
            1u64..10,
            1u64..1 << 30,
            1u64..256,
            1u64..4096,
            1u64..8,
            2u64..6,
        )),
    )
        .prop_map(|(global, sharing, per_layer, compressed, qsa, ngram)| {
            (
                global.map(|(head_dim, kv_heads, values_from_keys)| GlobalAttention {
                    head_dim,
                    kv_heads,
                    values_from_keys,
                }),
                sharing.map(|(sliding, global, double_wide_mlp)| KvSharing {
                    sliding,
                    global,
                    double_wide_mlp,
                }),
                per_layer.map(|(width, vocab)| PerLayerInput { width, vocab }),
                compressed.map(
                    |(csa_layers, csa_rate, hca_layers, hca_rate, index_head_dim)| {
                        CompressedAttention {
                            csa_layers,
                            csa_rate,
                            hca_layers,
                            hca_rate,
                            index_head_dim,
                        }
                    },
                ),
                qsa.map(qsa_indexer),
                ngram.map(
                    |(layers, rows, width, embed_dim, streams, ngram)| NgramEmbedding {
                        layers,
                        rows,
                        width,
                        embed_dim,
                        streams,
                        // a kernel unlike the streams, so a swap fails
                        conv_kernel: streams + 1,
                        ngram,
                    },
                ),
            )
        });
    (
        proptest::option::of(pick::<QkNorm>()),
        proptest::option::of(recurrent),
        proptest::option::of(0u64..100),
        proptest::option::of(0u64..100),
        0u64..1 << 30,
        any::<[bool; 2]>(),
        0u64..12,
        variants,
    )
        .prop_map(
            |(qk_norm, recurrent, attention_layers, mlp_layers, extra, flags, cross, variants)| {
                let (
                    global_attention,
                    kv_sharing,
                    per_layer_input,
                    compressed_attention,
                    qsa_indexer,
                    ngram_embedding,
                ) = variants;
                HybridParts {
                    qk_norm,
                    recurrent,
                    attention_layers,
                    mlp_layers,
                    layer_extra_params: extra,
                    gated_attention: flags[0],
                    router_bias: flags[1],
                    latent: if flags[0] { extra % 97 } else { 0 },
                    cross_attention_layers: cross,
                    global_attention,
                    kv_sharing,
                    per_layer_input,
                    compressed_attention,
                    qsa_indexer,
                    ngram_embedding,
                }
            },
        )
}

/// Dropout and utilization as the UI sets them: hundredths.
fn fraction(lo: u64, hi: u64) -> impl Strategy<Value = f64> {
    (lo..hi).prop_map(|n| n as f64 / 100.0)
}

// One strategy per scenario field, in the struct's order: splitting it would
// only scatter the fields.
#[allow(clippy::too_many_lines)]
fn scenario() -> impl Strategy<Value = Scenario> {
    let top = (
        model_source(),
        pick::<TaskKind>(),
        pick::<WeightFormat>(),
        any::<bool>(),
        1u64..4096,
        pick::<Dtype>(),
        pick::<TrainingPrecision>(),
        pick::<Attention>(),
        any::<[bool; 3]>(),
    );
    let training = (
        (pick::<Framework>(), pick::<Method>(), 1u64..512),
        proptest::collection::vec(pick::<LoraTarget>(), 0..5),
        fraction(0, 100),
        (
            pick::<Optimizer>(),
            proptest::option::of(pick::<Dtype>()),
            any::<bool>(),
            pick::<MixerKernels>(),
            pick::<KbitPrep>(),
        ),
        (
            1u64..65_536,
            1u64..64,
            1u64..1 << 20,
            pick::<Checkpointing>(),
            proptest::option::of(1u64..1 << 16),
        ),
        any::<[bool; 5]>(),
        (
            0u64..8,
            proptest::option::of(1u64..2048),
            proptest::option::of(0u64..1 << 40),
        ),
    );
    let inference = (
        (1u64..512, 1u64..1 << 20, 0u64..1 << 16),
        proptest::option::of(pick::<Dtype>()),
        pick::<Engine>(),
        fraction(1, 101),
        0u64..8,
        any::<[bool; 3]>(),
        (
            proptest::option::of(1u64..4096),
            proptest::option::of(1u64..1 << 20),
            0u64..1 << 16,
        ),
        (
            proptest::option::of(0u64..200),
            0u64..200,
            any::<bool>(),
            pick::<CacheType>(),
            1u64..4096,
        ),
        (
            proptest::option::of(fraction(1, 101)),
            proptest::option::of(1u64..1 << 20),
            pick::<QuantKernel>(),
        ),
    );
    let rest = (
        (
            1u64..64,
            pick::<Sharding>(),
            1u64..8,
            1u64..8,
            any::<bool>(),
            pick::<Offload>(),
        ),
        proptest::option::of(proptest::sample::select(
            gpus().iter().map(|g| g.id.clone()).collect::<Vec<_>>(),
        )),
        proptest::option::of(1u64 << 20..1 << 50),
        proptest::option::of(1u64 << 20..1 << 40),
        (
            proptest::option::of(1u64..=65_536),
            proptest::option::of(1u64..=65_536),
        ),
        [
            proptest::option::of(1u64..1 << 40),
            proptest::option::of(1u64..1 << 40),
            proptest::option::of(1u64..1 << 40),
            proptest::option::of(1u64..1 << 40),
        ],
    );
    (top, training, inference, rest).prop_map(|(top, t, i, rest)| {
        let (
            model,
            task,
            weights,
            double_quant,
            group_size,
            compute_dtype,
            training_precision,
            attention,
            [empty_cache_after_load, unchunked_nf4_quantizer, expandable_segments],
        ) = top;
        let (
            (framework, method, rank),
            targets,
            dropout,
            (optimizer, osd, oib, mixer_kernels, kbit_prep),
            counts,
            flags,
            vlm,
        ) = t;
        let (micro_batch, grad_accum, seq_len, checkpointing, target_len) = counts;
        let (
            (batch, prompt_len, new_tokens),
            kv_cache_dtype,
            engine,
            gmu,
            images_per_prompt,
            caches,
            (max_num_seqs, max_num_batched_tokens, shared_prefix_tokens),
            (gpu_layers, cpu_moe_layers, flash_attn, cache_type, ubatch),
            (mem_fraction_static, chunked_prefill_size, quant_kernel),
        ) = i;
        let (
            (gpus, strategy, tp, pp, sequence_parallel, offload),
            gpu_name,
            memory_bytes,
            os_reserved_bytes,
            (image_width, image_height),
            [z3pb, z3pt, z3ml, z3rd],
        ) = rest;
        Scenario {
            model,
            task,
            weights,
            double_quant,
            group_size,
            compute_dtype,
            training_precision,
            attention,
            training: Training {
                framework,
                method,
                lora: Lora {
                    rank,
                    targets,
                    dropout,
                },
                optimizer,
                optimizer_state_dtype: osd,
                optimizer_in_backward: oib,
                micro_batch,
                grad_accum,
                seq_len,
                target_len,
                checkpointing,
                chunked_loss: flags[0],
                activation_offload: flags[1],
                freeze_vision: flags[2],
                fused_optimizer: flags[3],
                compile: flags[4],
                mixer_kernels,
                kbit_prep,
                images_per_sample: vlm.0,
                image_size: vlm.1,
                trainable_params: vlm.2,
            },
            inference: Inference {
                batch,
                prompt_len,
                new_tokens,
                kv_cache_dtype,
                engine,
                gpu_memory_utilization: gmu,
                max_num_seqs,
                max_num_batched_tokens,
                shared_prefix_tokens,
                gpu_layers,
                cpu_moe_layers,
                flash_attn,
                cache_type,
                ubatch,
                images_per_prompt,
                static_cache: caches[0],
                cache_len: None,
                tuple_cache: caches[1],
                output_layer_last: caches[2],
                mem_fraction_static,
                chunked_prefill_size,
                quant_kernel,
            },
            parallel: Parallel {
                gpus,
                strategy,
                tp,
                pp,
                sequence_parallel,
                offload,
                // Carried by the link only where they apply (ZeRO-3 training).
                zero3_prefetch_bucket: z3pb,
                zero3_persistence_threshold: z3pt,
                zero3_max_live: z3ml,
                zero3_max_reuse: z3rd,
            },
            gpu: GpuChoice {
                name: gpu_name,
                memory_bytes,
                os_reserved_bytes,
            },
            empty_cache_after_load,
            expandable_segments,
            unchunked_nf4_quantizer,
            image_width,
            image_height,
            video_frames: image_width.map(|w| 1 + w % 300),
            video_fps: image_height.map(|h| 1 + h % 60),
            // Links carry a mixed batch's sizes in order, repeats and all.
            image_mix: image_height.map_or(Vec::new(), |h| {
                vec![(h, 1 + h % 4000), (1 + h % 999, h), (h, 1 + h % 4000)]
            }),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decode_inverts_encode(sc in scenario()) {
        let query = encode(&sc);
        prop_assert!(query.starts_with("v=1"));
        let d = decode(&query);
        prop_assert!(d.notices.is_empty(), "{query}: {:?}", d.notices);
        prop_assert_eq!(d.scenario, sc);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = decode(&text);
    }

    #[test]
    fn near_miss_queries_never_panic_and_name_each_bad_key(
        pairs in proptest::collection::vec(("[a-z.]{1,6}", "[-a-z0-9.,%+]{0,12}"), 0..12)
    ) {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let d = decode(&query.join("&"));
        for n in &d.notices {
            prop_assert!(pairs.iter().any(|(k, _)| *k == n.param), "{n:?}");
        }
    }
}
