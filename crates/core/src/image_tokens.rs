//! Image tokens of today's VLMs for any width × height: how many tokens the
//! vision tower processes and how many the language model receives, as
//! transformers' image processors compute them (checked against them on
//! synthetic images: `tests/image_tokens.rs`, data in `tests/data/vision/`).
//!
//! - Qwen2-VL / Qwen2.5-VL / Qwen3-VL (`smart_resize` in
//!   `image_processing_qwen2_vl.py`): both sides rounded to multiples of
//!   patch × merge, then scaled into `[min_pixels, max_pixels]`; the tower
//!   reads one patch per `patch²` pixels, the merger hands `merge²` of them
//!   to the language model as one token.
//! - GLM-4.1V / 4.5V / 4.6V: Qwen-VL's resize after a side under
//!   patch × merge is scaled up to it, the area counted over the two
//!   temporal frames an image is repeated into.
//! - InternVL (`crop_to_patches` of `image_processing_got_ocr2.py`): tiles
//!   of the tower's size in the grid whose aspect ratio is closest to the
//!   image's, a thumbnail beside them when there is more than one tile, a
//!   fixed number of tokens per tile after the pixel shuffle. Aya Vision
//!   tiles the same way, through a SigLIP tower, with marker tokens.
//! - Gemma 3 without pan-and-scan: one 896 px square per image, 256 tokens.
//! - Llama 3.2 Vision (`mllama`): 560 px tiles up to `max_image_tiles`; the
//!   language model sees one image token and reads the tiles through its
//!   cross-attention layers.
//! - Llama 4 (`get_best_fit` of `image_processing_llama4.py`): the canvas of
//!   at most `max_patches` tiles that scales the image least, a global tile
//!   beside them when there is more than one, each tile's patches folded by
//!   the pixel shuffle.

use serde::Serialize;

use crate::error::{check_range, InputError, RangeChecks, Result};
use crate::scenario::limits::{MAX_IMAGE_SIZE, MAX_IMAGE_TILES, MAX_TOKENS};

pub(crate) mod anyres;
pub use anyres::LLAVA_NEXT_PINPOINTS;
mod minicpm_v;
mod pixtral;
mod resize;
pub(crate) use resize::round_half_even;
pub use resize::{glm4v_resize, smart_resize};
pub mod largest;
mod llama4;
pub use llama4::{cohere2_canvas, llama4_canvas};
mod apertus1p5;
pub use apertus1p5::CodeGrid;
mod glm5_next;
pub use glm5_next::AlignedCanvas;
mod lfm2_vl;
pub use lfm2_vl::Tiling;
mod deepseek_ocr2;
mod perception_lm;
mod phi4mm;
pub use deepseek_ocr2::OcrViews;
mod molmo2;
pub use molmo2::OverlapCrops;
mod muse;
mod ovis2;
pub use ovis2::OvisTiles;
mod radio;
pub use perception_lm::PlmTiles;
pub use radio::PatchBudget;
pub mod text;

/// Every size a rule holds is at most this many pixels, so products of a
/// few of them stay far inside u64.
const MAX_PIXELS: u64 = MAX_IMAGE_SIZE * MAX_IMAGE_SIZE;

/// How a family turns an image into tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageRule {
    /// Qwen-VL: dynamic resolution in patches, `merge × merge` per token.
    QwenVl {
        patch: u64,
        merge: u64,
        min_pixels: u64,
        max_pixels: u64,
    },
    /// Qwen-VL's resize whose merger appends a newline token after every
    /// row of merged cells (HY-V4-VL's `image_newline`): the language model
    /// receives `(gh/merge)·(gw/merge + 1)` tokens.
    QwenVlRows {
        patch: u64,
        merge: u64,
        min_pixels: u64,
        max_pixels: u64,
    },
    /// HunYuan-VL: Qwen-VL's resize with a newline per merged row, as
    /// `QwenVlRows`, and the learned begin and end embeddings inside the
    /// image's span (`cat_extra_token`): `(gh/merge)·(gw/merge + 1) + 2`.
    HunyuanVl {
        patch: u64,
        merge: u64,
        min_pixels: u64,
        max_pixels: u64,
    },
    /// PaddleOCR-VL's resize: Qwen-VL's after a short side under
    /// `patch · merge` is scaled up to it (the other rounded by the same
    /// factor, the height first), as `PaddleOCRVLImageProcessor` does.
    PaddleOcr {
        patch: u64,
        merge: u64,
        min_pixels: u64,
        max_pixels: u64,
    },
    /// GLM-4V (GLM-4.1V, 4.5V, 4.6V): Qwen-VL's resize with the area of
    /// `temporal` frames against the pixel limits (`size.shortest_edge`,
    /// `size.longest_edge`) and short sides scaled up to `patch · merge`.
    Glm4v {
        patch: u64,
        merge: u64,
        temporal: u64,
        min_pixels: u64,
        max_pixels: u64,
    },
    /// Gemma 4: the image scaled, keeping its aspect ratio, to at most
    /// `soft_tokens` cells of `pool × pool` patches; the tower runs all
    /// `pool² · soft_tokens` patch slots, padding included, and the
    /// language model receives one token per cell plus the image's two
    /// markers.
    Gemma4 {
        patch: u64,
        pool: u64,
        soft_tokens: u64,
    },
    /// InternVL: aspect-ratio tiles plus a thumbnail; the tower reads
    /// `(tile/patch)² + 1` tokens per tile, the pixel shuffle hands on
    /// `tokens_per_tile`.
    InternVl {
        tile: u64,
        patch: u64,
        min_tiles: u64,
        max_tiles: u64,
        tokens_per_tile: u64,
    },
    /// Aya Vision: the same aspect-ratio tiles and thumbnail
    /// (`crop_to_patches` of `image_processing_got_ocr2.py`) through a SigLIP
    /// tower, `(tile/patch)²` tokens per tile with no class token; the pixel
    /// shuffle hands on `tokens_per_tile`, and `AyaVisionProcessor` writes
    /// one marker token per tile and three per image around them.
    AyaVision {
        tile: u64,
        patch: u64,
        min_tiles: u64,
        max_tiles: u64,
        tokens_per_tile: u64,
    },
    /// Granite-Docling: InternVL's aspect-ratio tiles (`tile` px, up to
    /// `max_tiles`, each side at most 16: the tokenizer's `<row_i_col_j>`
    /// tags stop there) plus a thumbnail, `(tile/patch)²` patches a tile
    /// and no class token; `tokens_per_tile` image tokens each (64 on the
    /// coarse route, 256 on the fine one). The processor's markers around
    /// them are not counted.
    GraniteDocling {
        tile: u64,
        patch: u64,
        min_tiles: u64,
        max_tiles: u64,
        tokens_per_tile: u64,
    },
    /// GOT-OCR 2.0 (`got_ocr2`): InternVL's aspect-ratio tiles (when the
    /// processor crops) plus a thumbnail, `(tile/patch)²` SAM patches a tile
    /// and no class token, `tokens_per_tile` placeholders each (256).
    GotOcr2 {
        tile: u64,
        patch: u64,
        min_tiles: u64,
        max_tiles: u64,
        tokens_per_tile: u64,
    },
    /// MiniCPM-V 4.6 / 4.7: a thumbnail of about `scale`² px and, for a
    /// larger image, up to `max_slices` slices of about that area; sides
    /// in multiples of `patch · merge`, a token per `merge × merge`
    /// patches (`merge` 4 in the "16x" mode, 2 in "4x").
    MiniCpmV {
        patch: u64,
        merge: u64,
        scale: u64,
        max_slices: u64,
    },
    /// A fixed square per image (Gemma 3: 4096 patches, 256 tokens).
    Fixed { tower: u64, language_model: u64 },
    /// Llama 3.2 Vision: tiles through cross-attention, one token in the text.
    Mllama {
        tile: u64,
        patch: u64,
        max_tiles: u64,
    },
    /// Gemma 3 with pan-and-scan: the image plus up to `max_crops` crops
    /// along its long side, `tokens` each.
    Gemma3PanScan {
        tower: u64,
        tokens: u64,
        min_crop: u64,
        max_crops: u64,
        /// `pan_and_scan_min_ratio_to_activate`, in tenths (12 = 1.2).
        min_ratio_tenths: u64,
    },
    /// Pixtral / Mistral 3: the long side limited to `longest_edge`, one
    /// token per `patch·merge` square, a break token per row.
    Pixtral {
        patch: u64,
        merge: u64,
        longest_edge: u64,
    },
    /// LightOnOCR: Pixtral's resize to `longest_edge` with sides padded to
    /// `patch`, the patch merger's `merge × merge` cells one token each, with
    /// no row breaks and no end token (`LightOnOcrProcessor`).
    LightOnOcr {
        patch: u64,
        merge: u64,
        longest_edge: u64,
    },
    /// Idefics3 / SmolVLM: rescaled to `longest_edge`, split into `tile`
    /// squares plus the global image, `seq_len` tokens each.
    Idefics3 {
        longest_edge: u64,
        tile: u64,
        patch: u64,
        seq_len: u64,
    },
    /// Idefics2: the image (and, when `split`, its four quarters) resized
    /// between `shortest_edge` and `longest_edge`; the tower reads the
    /// resized pixels in `patch` squares, the perceiver hands on `seq_len`
    /// tokens per image.
    Idefics2 {
        patch: u64,
        shortest_edge: u64,
        longest_edge: u64,
        seq_len: u64,
        split: bool,
    },
    /// LLaVA-NeXT any-resolution: the best grid pinpoint, the unpadded
    /// grid features with a newline per row, and the base image.
    LlavaNext {
        crop: u64,
        patch: u64,
        /// The tower's tokens per tile where its grid is not the features'
        /// (Granite 4 Vision reads `crop/patch·rate` patches a side and
        /// hands on the downsampled grid of `patch`); 0: CLIP's
        /// `(crop/patch)² + 1`.
        tile_tokens: u64,
        /// `image_grid_pinpoints`, as (height, width).
        pinpoints: Vec<(u64, u64)>,
    },
    /// Aria: the image (or, with `split`, each `crop`-px tile of the best
    /// of `resolutions` it is fitted into) resized into a `crop` square;
    /// the tower reads `(crop/patch)²` patches per crop and the projector
    /// hands on `queries` per crop.
    Aria {
        crop: u64,
        patch: u64,
        queries: u64,
        split: bool,
        /// `split_resolutions`, as (height, width).
        resolutions: Vec<(u64, u64)>,
    },
    /// Llama 4: the best canvas of at most `max_tiles` square tiles, a
    /// global tile beside them when there is more than one; the tower reads
    /// `(tile/patch)² + 1` tokens per tile, the pixel shuffle hands on
    /// `tokens_per_tile`, and the prompt wraps them in its markers.
    Llama4 {
        tile: u64,
        patch: u64,
        max_tiles: u64,
        tokens_per_tile: u64,
        /// `resize_to_max_canvas`: the canvas that upscales most, not least.
        max_canvas: bool,
    },
    /// Kimi K2.5 (`kimi_k25`): the image scaled down to at most
    /// `max_patches` patches and `max_side` patches a side, padded to whole
    /// `merge × merge` squares; a token per square.
    KimiK25 {
        patch: u64,
        merge: u64,
        max_patches: u64,
        max_side: u64,
    },
    /// LFM2-VL (`lfm2_vl`): an image within `min_tokens`..`max_tokens`
    /// tokens of `patch·factor` px squares resized once; a larger one (past
    /// `tolerance_tenths`/10 of the budget) split into the grid of
    /// `min_tiles`..`max_tiles` `tile`-px tiles closest to its aspect, with
    /// the resized image as a thumbnail; every entry padded to the same
    /// patch slots in the tower.
    Lfm2Vl(Tiling),
    /// GLM-5.3-Flash (`glm5_next`): each side aligned up to whole
    /// `patch·merge·expand` px squares, scaled up to `min_tokens` of them
    /// or cut to `max_tokens` by a search over the content height; a
    /// token per `merge × merge` patches.
    Glm5Next(AlignedCanvas),
    /// Apertus 1.5 (`apertus1p5`): Qwen-VL's `smart_resize` to whole
    /// `factor` px squares within `min_pixels..max_pixels`, a discrete
    /// code per square; the prompt adds a row break per row but the last,
    /// three markers and a `rows*cols` text header.
    Apertus1p5(CodeGrid),
    /// PerceptionLM (`perception_lm`): a thumbnail tile plus the image on
    /// the canvas of at most `max_num_tiles` tiles that holds it largest
    /// (or the closest ratio), each tile a tower pass pooled to
    /// `(tile / patch / pool)²` tokens.
    PerceptionLm(PlmTiles),
    /// DeepSeek-OCR 2 (`deepseek_ocr2`): a global view and, past a
    /// crop's size, InternVL's grid of crops; a query per `fold²` SAM
    /// patches (`image_tokens/deepseek_ocr2.rs`).
    DeepseekOcr2(OcrViews),
    /// Nemotron-H Omni (`nemotron_h_omni`): a patch grid scaled into a
    /// budget, sides whole multiples of the shuffle (`image_tokens/radio.rs`).
    Radio(PatchBudget),
    /// Molmo2 (`molmo2`): a low-resolution view and overlapping crops,
    /// pooled rows with column tokens (`image_tokens/molmo2.rs`).
    Molmo2(OverlapCrops),
    /// Muse Glimmer and Spark (`muse_glimmer`, `muse_spark`): at most
    /// `max_tokens` squares of `patch·merge` px, the grid closest to the
    /// image's aspect (`image_tokens/muse.rs`).
    Muse {
        patch: u64,
        merge: u64,
        max_tokens: u64,
    },
    /// Ovis2 (`ovis2`): a thumbnail and the covering grid of tiles (or
    /// InternVL's), atoms and markers per tile (`image_tokens/ovis2.rs`).
    Ovis2(OvisTiles),
    /// Inkling 2 (`inkling2`, `Inkling2ImageProcessor`): the image padded
    /// to whole `cell`-px cells, never resized or capped; a token per cell,
    /// `merge²` patches per cell in the tower plus a class token per image.
    Inkling2 { cell: u64, merge: u64 },
    /// Phi-4-multimodal's dynamic HD: up to `max_crops` crops of `crop` px
    /// and the global image (`image_tokens/phi4mm.rs`).
    Phi4Mm {
        crop: u64,
        patch: u64,
        max_crops: u64,
    },
    /// Step-3.7-Flash (`step3p7`): a `global`-px view, and crops of a
    /// window the aspect ratio picks (the short side, or `crop`) over the
    /// image snapped to whole windows (long side at most `max_side`), each
    /// resized to `crop`; the tower reads `patch` squares, its two stride-2
    /// downsamplers hand on a token per `patch·stride` square.
    Step3p7 {
        global: u64,
        crop: u64,
        max_side: u64,
        patch: u64,
        stride: u64,
    },
    /// Command A Vision (`cohere2_vision`): Llama 4's canvas of at most
    /// `max_tiles` tiles plus a thumbnail when there is more than one; the
    /// SigLIP tower reads `(tile/patch)²` tokens per tile, the pixel shuffle
    /// hands on `tokens_per_tile`, and the prompt adds a line break per
    /// tile and two markers per image.
    Cohere2Vision {
        tile: u64,
        patch: u64,
        max_tiles: u64,
        tokens_per_tile: u64,
    },
    /// LLaVA-OneVision `anyres_max_N`: LLaVA-NeXT's grids over a SigLIP
    /// tower (no class token), the unpadded features shrunk when they pass
    /// 1.1× `max_patches` tiles' worth.
    LlavaOneVision {
        crop: u64,
        patch: u64,
        max_patches: u64,
        /// `image_grid_pinpoints`, as (height, width).
        pinpoints: Vec<(u64, u64)>,
    },
}

impl ImageRule {
    /// The aspect-ratio tile rule of `family` (its link key: `intern_vl`,
    /// `aya_vision`, `granite_docling`) from `[tile, patch, min_tiles,
    /// max_tiles, tokens_per_tile]`; `None` for another key.
    pub fn tiled(
        family: &str,
        [tile, patch, min_tiles, max_tiles, tokens_per_tile]: [u64; 5],
    ) -> Option<Self> {
        Some(match family {
            "aya_vision" => ImageRule::AyaVision {
                tile,
                patch,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            },
            "granite_docling" => ImageRule::GraniteDocling {
                tile,
                patch,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            },
            "got_ocr2" => ImageRule::GotOcr2 {
                tile,
                patch,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            },
            "intern_vl" => ImageRule::InternVl {
                tile,
                patch,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            },
            _ => return None,
        })
    }

    /// The link key of a tile rule (see [`tiled`](Self::tiled)).
    pub fn tiled_key(&self) -> Option<&'static str> {
        match self {
            ImageRule::InternVl { .. } => Some("intern_vl"),
            ImageRule::AyaVision { .. } => Some("aya_vision"),
            ImageRule::GraniteDocling { .. } => Some("granite_docling"),
            ImageRule::GotOcr2 { .. } => Some("got_ocr2"),
            _ => None,
        }
    }

    /// `[tile, patch, min_tiles, max_tiles, tokens_per_tile]` of an
    /// aspect-ratio tile rule (InternVL, Aya Vision); `None` for the others.
    pub fn tile_fields(&self) -> Option<[u64; 5]> {
        match *self {
            ImageRule::InternVl {
                tile,
                patch,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            }
            | ImageRule::GraniteDocling {
                tile,
                patch,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            }
            | ImageRule::GotOcr2 {
                tile,
                patch,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            }
            | ImageRule::AyaVision {
                tile,
                patch,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            } => Some([tile, patch, min_tiles, max_tiles, tokens_per_tile]),
            _ => None,
        }
    }

    /// A dynamic-resolution rule's pixel limits (min, max): Qwen-VL's,
    /// GLM-4V's and Apertus 1.5's; `None` for the tiled and fixed rules.
    pub fn pixel_limits(&self) -> Option<(u64, u64)> {
        match *self {
            ImageRule::QwenVl {
                min_pixels,
                max_pixels,
                ..
            }
            | ImageRule::QwenVlRows {
                min_pixels,
                max_pixels,
                ..
            }
            | ImageRule::HunyuanVl {
                min_pixels,
                max_pixels,
                ..
            }
            | ImageRule::PaddleOcr {
                min_pixels,
                max_pixels,
                ..
            }
            | ImageRule::Glm4v {
                min_pixels,
                max_pixels,
                ..
            }
            | ImageRule::Apertus1p5(CodeGrid {
                min_pixels,
                max_pixels,
                ..
            }) => Some((min_pixels, max_pixels)),
            _ => None,
        }
    }

    /// The same rule with another upper pixel limit (a dynamic-resolution
    /// rule only; any other is returned as it is).
    pub fn with_max_pixels(&self, max: u64) -> ImageRule {
        let mut rule = self.clone();
        if let ImageRule::QwenVl { max_pixels, .. }
        | ImageRule::QwenVlRows { max_pixels, .. }
        | ImageRule::HunyuanVl { max_pixels, .. }
        | ImageRule::PaddleOcr { max_pixels, .. }
        | ImageRule::Glm4v { max_pixels, .. }
        | ImageRule::Apertus1p5(CodeGrid { max_pixels, .. }) = &mut rule
        {
            *max_pixels = max;
        }
        rule
    }

    /// The family the rule is, in words, for notes and formulas.
    pub fn family(&self) -> &'static str {
        match self {
            ImageRule::QwenVl { .. } => "Qwen-VL dynamic resolution",
            ImageRule::QwenVlRows { .. } => "Qwen-VL dynamic resolution with row newlines",
            ImageRule::HunyuanVl { .. } => "HunYuan-VL dynamic resolution",
            ImageRule::PaddleOcr { .. } => "PaddleOCR-VL dynamic resolution",
            ImageRule::Glm4v { .. } => "GLM-4V dynamic resolution",
            ImageRule::Gemma4 { .. } => "Gemma 4 aspect-ratio cells",
            ImageRule::InternVl { .. } => "InternVL aspect-ratio tiles",
            ImageRule::AyaVision { .. } => "Aya Vision aspect-ratio tiles",
            ImageRule::GraniteDocling { .. } => "Granite-Docling aspect-ratio tiles",
            ImageRule::GotOcr2 { .. } => "GOT-OCR 2.0 aspect-ratio tiles",
            ImageRule::MiniCpmV { .. } => "MiniCPM-V slices",
            ImageRule::Fixed { .. } => "fixed tokens per image",
            ImageRule::Mllama { .. } => "Llama 3.2 Vision tiles",
            ImageRule::Gemma3PanScan { .. } => "Gemma 3 pan-and-scan",
            ImageRule::Pixtral { .. } => "Pixtral patches with row breaks",
            ImageRule::LightOnOcr { .. } => "LightOnOCR merged patches",
            ImageRule::Idefics3 { .. } => "Idefics3 image splitting",
            ImageRule::Idefics2 { .. } => "Idefics2 resize",
            ImageRule::LlavaNext { .. } => "LLaVA-NeXT any-resolution",
            ImageRule::Aria { .. } => "Aria crops and queries",
            ImageRule::LlavaOneVision { .. } => "LLaVA-OneVision any-resolution",
            ImageRule::Llama4 { .. } => "Llama 4 tiles",
            ImageRule::Cohere2Vision { .. } => "Command A Vision tiles",
            ImageRule::KimiK25 { .. } => "Kimi K2.5 NaViT resolution",
            ImageRule::Step3p7 { .. } => "Step-3.7 global view and crops",
            ImageRule::Lfm2Vl(_) => "LFM2-VL tiles and thumbnail",
            ImageRule::Glm5Next(_) => "GLM-5.3 aligned canvas",
            ImageRule::Apertus1p5(_) => "Apertus 1.5 code grid",
            ImageRule::PerceptionLm(_) => "PerceptionLM tiles",
            ImageRule::Phi4Mm { .. } => "Phi-4-multimodal dynamic HD",
            ImageRule::DeepseekOcr2(v) if v.newlines => "Unlimited-OCR views with row newlines",
            ImageRule::DeepseekOcr2(_) => "DeepSeek-OCR 2 views",
            ImageRule::Radio(_) => "Nemotron-H Omni patch budget",
            ImageRule::Molmo2(_) => "Molmo2 overlapping crops",
            ImageRule::Muse { .. } => "Muse aspect grid",
            ImageRule::Inkling2 { .. } => "Inkling 2 padded cells",
            ImageRule::Ovis2(_) => "Ovis2 covering tiles",
        }
    }

    /// Checks every size against its range, naming the rule's field: the
    /// rule may come from a config or preprocessor file, and the tiling
    /// searches are quadratic in the tile count.
    #[allow(clippy::too_many_lines)] // one arm per image rule, each a few range checks
    pub fn validate(&self) -> Result<()> {
        // Each check records the first field out of range and the match
        // goes on: one call a check, not a `?` copying the error at each of
        // some sixty places (kilobytes of the page's wasm); a value read
        // after a failed check must therefore not panic.
        let mut checks = RangeChecks::default();
        match self {
            ImageRule::QwenVl {
                patch,
                merge,
                min_pixels,
                max_pixels,
            }
            | ImageRule::QwenVlRows {
                patch,
                merge,
                min_pixels,
                max_pixels,
            }
            | ImageRule::HunyuanVl {
                patch,
                merge,
                min_pixels,
                max_pixels,
            }
            | ImageRule::PaddleOcr {
                patch,
                merge,
                min_pixels,
                max_pixels,
            }
            | ImageRule::Glm4v {
                patch,
                merge,
                min_pixels,
                max_pixels,
                ..
            } => {
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: merge", *merge, 1, MAX_IMAGE_TILES);
                if let ImageRule::Glm4v { temporal, .. } = self {
                    checks.check("image rule: temporal", *temporal, 1, MAX_IMAGE_TILES);
                }
                checks.check("image rule: max_pixels", *max_pixels, 1, MAX_PIXELS);
                checks.check("image rule: min_pixels", *min_pixels, 1, *max_pixels);
            }
            ImageRule::InternVl { .. }
            | ImageRule::AyaVision { .. }
            | ImageRule::GraniteDocling { .. }
            | ImageRule::GotOcr2 { .. } => {
                let [tile, patch, min_tiles, max_tiles, tokens_per_tile] =
                    self.tile_fields().unwrap_or_default();
                checks.check("image rule: tile", tile, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: max_tiles", max_tiles, 1, MAX_IMAGE_TILES);
                checks.check("image rule: min_tiles", min_tiles, 1, max_tiles);
                checks.check(
                    "image rule: tokens_per_tile",
                    tokens_per_tile,
                    1,
                    MAX_TOKENS,
                );
            }
            ImageRule::Fixed {
                tower,
                language_model,
            } => {
                checks.check("image rule: tower", *tower, 1, MAX_TOKENS);
                checks.check("image rule: language_model", *language_model, 1, MAX_TOKENS);
            }
            ImageRule::Mllama {
                tile,
                patch,
                max_tiles,
            } => {
                checks.check("image rule: tile", *tile, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: max_tiles", *max_tiles, 1, MAX_IMAGE_TILES);
            }
            ImageRule::Gemma3PanScan { .. } | ImageRule::Gemma4 { .. } => self.validate_gemma()?,
            ImageRule::MiniCpmV {
                patch,
                merge,
                scale,
                max_slices,
            } => {
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: merge", *merge, 1, MAX_IMAGE_TILES);
                checks.check("image rule: scale_resolution", *scale, 1, MAX_IMAGE_SIZE);
                checks.check(
                    "image rule: max_slice_nums",
                    *max_slices,
                    1,
                    MAX_IMAGE_TILES,
                );
            }
            ImageRule::Pixtral {
                patch,
                merge,
                longest_edge,
            }
            | ImageRule::LightOnOcr {
                patch,
                merge,
                longest_edge,
            } => {
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: merge", *merge, 1, MAX_IMAGE_TILES);
                checks.check("image rule: longest_edge", *longest_edge, 1, MAX_IMAGE_SIZE);
            }
            ImageRule::Idefics3 {
                longest_edge,
                tile,
                patch,
                seq_len,
            } => {
                checks.check("image rule: longest_edge", *longest_edge, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: tile", *tile, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: seq_len", *seq_len, 1, MAX_TOKENS);
            }
            ImageRule::Idefics2 {
                patch,
                shortest_edge,
                longest_edge,
                seq_len,
                split: _,
            } => {
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check(
                    "image rule: shortest_edge",
                    *shortest_edge,
                    1,
                    MAX_IMAGE_SIZE,
                );
                checks.check("image rule: longest_edge", *longest_edge, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: seq_len", *seq_len, 1, MAX_TOKENS);
            }
            ImageRule::Llama4 {
                tile,
                patch,
                max_tiles,
                tokens_per_tile,
                ..
            }
            | ImageRule::Cohere2Vision {
                tile,
                patch,
                max_tiles,
                tokens_per_tile,
            } => {
                checks.check("image rule: tile", *tile, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", *patch, 1, *tile);
                checks.check("image rule: max_tiles", *max_tiles, 1, MAX_IMAGE_TILES);
                checks.check(
                    "image rule: tokens_per_tile",
                    *tokens_per_tile,
                    1,
                    MAX_TOKENS,
                );
            }
            ImageRule::Lfm2Vl(t) => {
                checks.check("image rule: patch", t.patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: factor", t.factor, 1, 16);
                checks.check("image rule: max_tokens", t.max_tokens, 1, MAX_TOKENS);
                checks.check("image rule: min_tokens", t.min_tokens, 1, t.max_tokens);
                checks.check("image rule: tile", t.tile, t.patch, MAX_IMAGE_SIZE);
                checks.check("image rule: max_tiles", t.max_tiles, 1, MAX_IMAGE_TILES);
                checks.check("image rule: min_tiles", t.min_tiles, 1, t.max_tiles);
                checks.check("image rule: tolerance_tenths", t.tolerance_tenths, 1, 1000);
            }
            ImageRule::Glm5Next(c) => c.validate()?,
            ImageRule::Apertus1p5(g) => g.validate()?,
            ImageRule::PerceptionLm(t) => t.validate()?,
            ImageRule::DeepseekOcr2(v) => {
                checks.check("image rule: base", v.base, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: tile", v.tile, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", v.patch, 1, v.tile.min(v.base));
                checks.check("image rule: fold", v.fold, 1, 64);
                checks.check("image rule: max_crops", v.max_crops, 1, MAX_IMAGE_TILES);
                checks.check("image rule: min_crops", v.min_crops, 0, v.max_crops);
            }
            ImageRule::Radio(r) => {
                checks.check("image rule: patch", r.patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: merge", r.merge, 1, 16);
                checks.check("image rule: budget", r.budget, 1, MAX_TOKENS);
                checks.check("image rule: min_patches", r.min_patches, 1, r.budget);
                checks.check("image rule: extra", r.extra, 0, MAX_TOKENS);
            }
            ImageRule::Molmo2(c) => {
                checks.check("image rule: size", c.size, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", c.patch, 1, c.size);
                // a crop keeps at least one patch of window past its margins
                let margins = c.margins.0 + c.margins.1;
                checks.check(
                    "image rule: margins",
                    margins,
                    0,
                    (c.size / c.patch.max(1)).saturating_sub(1),
                );
                checks.check("image rule: max_crops", c.max_crops, 1, MAX_IMAGE_TILES);
                checks.check("image rule: pool_h", c.pool.0, 1, 64);
                checks.check("image rule: pool_w", c.pool.1, 1, 64);
            }
            ImageRule::Ovis2(t) => {
                checks.check("image rule: tile", t.tile, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", t.patch, 1, t.tile);
                checks.check("image rule: seq", t.seq, 1, MAX_TOKENS);
                checks.check("image rule: max_tiles", t.max_tiles, 1, MAX_IMAGE_TILES);
                checks.check("image rule: min_tiles", t.min_tiles, 1, t.max_tiles);
            }
            ImageRule::Inkling2 { cell, merge } => {
                checks.check("image rule: cell", *cell, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: merge", *merge, 1, 16);
            }
            ImageRule::Muse {
                patch,
                merge,
                max_tokens,
            } => {
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: merge", *merge, 1, 16);
                checks.check("image rule: max_tokens", *max_tokens, 1, MAX_TOKENS);
            }
            ImageRule::Phi4Mm {
                crop,
                patch,
                max_crops,
            } => {
                checks.check("image rule: crop", *crop, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", *patch, 1, *crop);
                checks.check("image rule: max_crops", *max_crops, 1, MAX_IMAGE_TILES);
            }
            ImageRule::Step3p7 {
                global,
                crop,
                max_side,
                patch,
                stride,
            } => {
                checks.check("image rule: global", *global, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: crop", *crop, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: max_side", *max_side, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", *patch, 1, *crop.min(global));
                checks.check("image rule: stride", *stride, 1, 64);
            }
            ImageRule::KimiK25 {
                patch,
                merge,
                max_patches,
                max_side,
            } => {
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: merge", *merge, 1, 16);
                checks.check("image rule: max_patches", *max_patches, 1, MAX_TOKENS);
                checks.check("image rule: max_side", *max_side, 1, MAX_IMAGE_SIZE);
            }
            ImageRule::LlavaNext {
                crop,
                patch,
                tile_tokens,
                pinpoints,
            } => {
                checks.check("image rule: tile_tokens", *tile_tokens, 0, MAX_TOKENS);
                checks.check("image rule: crop", *crop, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.result()?;
                anyres::validate_pinpoints(pinpoints)?;
            }
            ImageRule::Aria {
                crop,
                patch,
                queries,
                resolutions,
                ..
            } => {
                checks.check("image rule: crop", *crop, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: queries", *queries, 1, MAX_TOKENS);
                checks.result()?;
                anyres::validate_pinpoints(resolutions)?;
            }
            ImageRule::LlavaOneVision {
                crop,
                patch,
                max_patches,
                pinpoints,
            } => {
                checks.check("image rule: crop", *crop, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: patch", *patch, 1, MAX_IMAGE_SIZE);
                checks.check("image rule: max_patches", *max_patches, 1, MAX_IMAGE_TILES);
                checks.result()?;
                anyres::validate_pinpoints(pinpoints)?;
            }
        }
        checks.result()
    }
}

/// The budgets `Gemma4ImageProcessor` accepts (`_SUPPORTED_SOFT_TOKENS`).
const GEMMA4_SOFT_TOKENS: [u64; 5] = [70, 140, 280, 560, 1120];

/// Gemma 4's cells (rows, columns) of `cell`-pixel squares for a `width ×
/// height` image (`get_aspect_ratio_preserving_size` of
/// `image_processing_gemma4.py`): the area scaled to `soft_tokens` cells,
/// each side floored to whole cells, a side that floors to none given one
/// cell and the other side the aspect ratio (at most `soft_tokens`). In
/// f64, in the processor's order: on some sizes it floors below the exact
/// square root (1190 × 17 gives 139 cells, not 280), and so does it.
fn gemma4_cells(width: u64, height: u64, cell: u64, soft_tokens: u64) -> (u64, u64) {
    // an integer below 2^53 in the processor: exact in f64 either way
    let target = soft_tokens as f64 * cell as f64 * cell as f64;
    let factor = (target / (width * height) as f64).sqrt();
    let side = cell as f64;
    let rows = ((factor * height as f64) / side).floor() as u64;
    let cols = ((factor * width as f64) / side).floor() as u64;
    match (rows, cols) {
        (0, _) => (1, (width / height).min(soft_tokens)),
        (_, 0) => ((height / width).min(soft_tokens), 1),
        cells => cells,
    }
}

impl ImageRule {
    /// Gemma 3's pan-and-scan and Gemma 4's cells: sizes in range, and a
    /// budget Gemma 4's processor takes.
    fn validate_gemma(&self) -> Result<()> {
        match *self {
            ImageRule::Gemma3PanScan {
                tower,
                tokens,
                min_crop,
                max_crops,
                min_ratio_tenths,
            } => {
                check_range("image rule: tower", tower, 1, MAX_TOKENS)?;
                check_range("image rule: tokens", tokens, 1, MAX_TOKENS)?;
                check_range("image rule: min_crop", min_crop, 1, MAX_IMAGE_SIZE)?;
                check_range("image rule: max_crops", max_crops, 1, MAX_IMAGE_TILES)?;
                check_range("image rule: min_ratio_tenths", min_ratio_tenths, 0, 1000)?;
            }
            ImageRule::Gemma4 {
                patch,
                pool,
                soft_tokens,
            } => {
                check_range("image rule: patch", patch, 1, MAX_IMAGE_SIZE)?;
                check_range("image rule: pool", pool, 1, MAX_IMAGE_TILES)?;
                if !GEMMA4_SOFT_TOKENS.contains(&soft_tokens) {
                    return Err(InputError::new(
                        "image rule: soft_tokens",
                        format!(
                            "{soft_tokens} is not a budget Gemma 4's processor takes: allowed 70, \
                             140, 280, 560 or 1120 (max_soft_tokens)"
                        ),
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Gemma 3's pan-and-scan crops of a `long × short` image (0: none).
fn gemma3_crops(
    long: u64,
    short: u64,
    min_crop: u64,
    max_crops: u64,
    min_ratio_tenths: u64,
) -> u64 {
    let ratio = long as f64 / short as f64;
    if ratio * 10.0 < min_ratio_tenths as f64 {
        return 0;
    }
    let n = ((ratio + 0.5).floor() as u64)
        .min(long / min_crop.max(1))
        .max(2)
        .min(max_crops);
    let crop_long = long.div_ceil(n.max(1));
    if crop_long.min(short) < min_crop {
        return 0;
    }
    n
}

/// Idefics3's tile grid (rows, cols) of an image, 0 × 0 when it fits one tile.
fn idefics3_grid(width: u64, height: u64, longest_edge: u64, tile: u64) -> (u64, u64) {
    // Rescale the long side to `longest_edge` (up or down), the other by
    // the aspect ratio, truncated, made even.
    let aspect = width as f64 / height as f64;
    let even = |x: u64| if x % 2 == 1 { x + 1 } else { x };
    let (mut w, mut h) = if width >= height {
        (longest_edge, even((longest_edge as f64 / aspect) as u64))
    } else {
        (even((longest_edge as f64 * aspect) as u64), longest_edge)
    };
    w = w.max(1);
    h = h.max(1);
    // Round up to whole tiles, the short side recomputed from the new long side.
    let aspect = w as f64 / h as f64;
    let m = tile.max(1);
    if w >= h {
        w = w.div_ceil(m) * m;
        h = ((w as f64 / aspect) as u64).div_ceil(m) * m;
    } else {
        h = h.div_ceil(m) * m;
        w = ((h as f64 * aspect) as u64).div_ceil(m) * m;
    }
    if h > m || w > m {
        (h / m, w / m)
    } else {
        (0, 0)
    }
}

/// Tokens of one image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ImageTokens {
    pub width: u64,
    pub height: u64,
    /// Tokens the vision tower processes (every tile's, with class tokens).
    pub tower_tokens: u64,
    /// Tokens the image takes in the language model's sequence.
    pub language_model_tokens: u64,
    /// Tiles of a tiling family (with the thumbnail), `None` otherwise.
    pub tiles: Option<u64>,
}

/// InternVL's grid (columns, rows) for an image: the arrangement of
/// `min..=max` tiles whose aspect ratio is closest to the image's; on a tie
/// the larger grid when the image covers over half of it.
pub fn internvl_grid(
    width: u64,
    height: u64,
    tile: u64,
    min_tiles: u64,
    max_tiles: u64,
) -> (u64, u64) {
    tile_grid(width, height, tile, (min_tiles, max_tiles), max_tiles)
}

/// [`internvl_grid`] with at most `max_side` tiles along either side.
fn tile_grid(
    width: u64,
    height: u64,
    tile: u64,
    (min_tiles, max_tiles): (u64, u64),
    max_side: u64,
) -> (u64, u64) {
    // `get_all_supported_aspect_ratios`: columns, then rows, in order; a
    // stable sort by tile count (the order decides ties below).
    let mut grids: Vec<(u64, u64)> = Vec::new();
    for cols in 1..=max_side {
        for rows in 1..=max_side {
            if (min_tiles..=max_tiles).contains(&(cols * rows)) {
                grids.push((cols, rows));
            }
        }
    }
    crate::short_sort::sort_by_key(&mut grids, |(cols, rows)| cols * rows);
    let aspect = width as f64 / height as f64;
    let area = (width * height) as f64;
    let mut best = (1, 1);
    let mut best_diff = f64::INFINITY;
    for (cols, rows) in grids {
        let diff = (aspect - cols as f64 / rows as f64).abs();
        if diff < best_diff {
            best_diff = diff;
            best = (cols, rows);
        } else if diff == best_diff && area > 0.5 * (tile * tile * cols * rows) as f64 {
            best = (cols, rows);
        }
    }
    best
}

/// Mllama's tile count: the canvas of at most `max_tiles` tiles that keeps
/// the most of the image (the least upscaling, then the least area).
pub fn mllama_tiles(width: u64, height: u64, tile: u64, max_tiles: u64) -> u64 {
    let mut best: Option<(f64, u64, u64)> = None; // (scale, area, tiles)
    for rows in 1..=max_tiles {
        for cols in 1..=max_tiles {
            if rows * cols > max_tiles {
                continue;
            }
            let scale =
                ((cols * tile) as f64 / width as f64).min((rows * tile) as f64 / height as f64);
            let area = rows * cols;
            let better = match best {
                None => true,
                Some((s, a, _)) => {
                    // Upscaling: the smallest scale ≥ 1; else the largest scale.
                    match (scale >= 1.0, s >= 1.0) {
                        (true, true) => scale < s || (scale == s && area < a),
                        // any upscaling canvas beats every downscaling one
                        (true, false) => true,
                        (false, true) => false,
                        (false, false) => scale > s || (scale == s && area < a),
                    }
                }
            };
            if better {
                best = Some((scale, area, area));
            }
        }
    }
    best.map_or(1, |(_, _, t)| t)
}

/// An aspect-ratio tile rule's (tower, language-model) tokens and tiles of
/// one image: the `crop_to_patches` grid plus a thumbnail when tiled.
/// InternViT reads a class token per tile; Aya Vision's SigLIP none, and
/// `AyaVisionProcessor._get_num_multimodal_tokens` adds 3 per image (start,
/// `TILE_GLOBAL`, end) and 1 per other tile (its `TILE_i`).
fn tiled_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let Some([tile, patch, min_tiles, max_tiles, tokens_per_tile]) = rule.tile_fields() else {
        return (0, 0, None);
    };
    // Granite-Docling's processor caps each side at 16 tiles
    // (`get_all_supported_aspect_ratios` of `image_processing_granite_docling.py`)
    let max_side = if matches!(rule, ImageRule::GraniteDocling { .. }) {
        max_tiles.min(16)
    } else {
        max_tiles
    };
    let (cols, rows) = tile_grid(width, height, tile, (min_tiles, max_tiles), max_side);
    let mut n = cols * rows;
    if n > 1 {
        n += 1; // the thumbnail
    }
    let side = tile / patch.max(1);
    match rule {
        ImageRule::AyaVision { .. } => (n * side * side, n * tokens_per_tile + n + 2, Some(n)),
        ImageRule::GraniteDocling { .. } | ImageRule::GotOcr2 { .. } => {
            (n * side * side, n * tokens_per_tile, Some(n))
        }
        _ => (n * (side * side + 1), n * tokens_per_tile, Some(n)),
    }
}

/// Llama 4's (tower, language-model) tokens and tiles of one image.
fn llama4_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let ImageRule::Llama4 {
        tile,
        patch,
        max_tiles,
        tokens_per_tile,
        max_canvas,
    } = *rule
    else {
        return (0, 0, None);
    };
    let (rows, cols) = llama4_canvas(width, height, tile, max_tiles, max_canvas);
    let grid = rows * cols;
    let side = tile / patch.max(1);
    // `Llama4Processor._prompt_split_image`: <|image_start|>, each grid
    // tile's patches with an x separator between the tiles of a row and a
    // y separator after each row, <|image|>, the global tile's patches,
    // <|image_end|>; one tile alone is the last four.
    let (images, markers) = if grid > 1 {
        (grid + 1, grid + 3)
    } else {
        (1, 3)
    };
    // The tower reads the class token too (dropped before the shuffle).
    (
        images * (side * side + 1),
        images * tokens_per_tile + markers,
        Some(images),
    )
}

/// Gemma 4: every patch slot of the budget through the tower; a token per
/// cell and `<|image>`, `<image|>` around them (`Gemma4Processor`).
fn gemma4_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let ImageRule::Gemma4 {
        patch,
        pool,
        soft_tokens,
    } = *rule
    else {
        return (0, 0, None);
    };
    let (rows, cols) = gemma4_cells(width, height, patch.saturating_mul(pool), soft_tokens);
    (pool * pool * soft_tokens, rows * cols + 2, None)
}

/// Idefics2 (`Idefics2ImageProcessor`): each image, with its four quarters
/// first when splitting, resized by `get_resize_output_image_size` (the
/// long side down to `longest_edge`, the other by the aspect ratio,
/// truncated; then each side at least `shortest_edge`) and padded to the
/// largest of them; the tower reads the padded pixels in `patch` squares.
fn idefics2_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let ImageRule::Idefics2 {
        patch,
        shortest_edge,
        longest_edge,
        seq_len,
        split,
    } = *rule
    else {
        return (0, 0, None);
    };
    let resize = |w: u64, h: u64| {
        let aspect = w as f64 / h as f64;
        let (w, h) = if w >= h && w > longest_edge {
            (longest_edge, (longest_edge as f64 / aspect) as u64)
        } else if h > w && h > longest_edge {
            ((longest_edge as f64 * aspect) as u64, longest_edge)
        } else {
            (w, h)
        };
        (w.max(shortest_edge), h.max(shortest_edge))
    };
    let (mut w, mut h) = resize(width, height);
    let images = if split {
        // `split_images`: [:h/2, :w/2], [:h/2, w/2:], [h/2:, :w/2], [h/2:, w/2:].
        let (w0, h0) = (width / 2, height / 2);
        for (qw, qh) in [
            (w0, h0),
            (width - w0, h0),
            (w0, height - h0),
            (width - w0, height - h0),
        ] {
            let (rw, rh) = resize(qw.max(1), qh.max(1));
            (w, h) = (w.max(rw), h.max(rh));
        }
        5
    } else {
        1
    };
    let grid = (w / patch.max(1)) * (h / patch.max(1));
    (images * grid, images * seq_len, Some(images))
}

/// Command A Vision: the canvas's tiles and a thumbnail when there is more
/// than one; `Cohere2VisionProcessor.replace_image_token` writes <BOI>,
/// each tile's tokens and a line break, <EOI>.
fn cohere2_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let ImageRule::Cohere2Vision {
        tile,
        patch,
        max_tiles,
        tokens_per_tile,
    } = *rule
    else {
        return (0, 0, None);
    };
    let (rows, cols) = cohere2_canvas(width, height, tile, max_tiles);
    let images = if rows * cols > 1 { rows * cols + 1 } else { 1 };
    let side = tile / patch.max(1);
    (
        images * side * side,
        images * (tokens_per_tile + 1) + 2,
        Some(images),
    )
}

/// Step-3.7-Flash (`Step3p7ImageProcessor._plan_patches`): an image under
/// 32 px and over 4:1 is padded square; over `max_side` it is scaled down
/// (truncated); the window is the short side when the image fits the
/// global view but is over 1.5:1 (else no crops), the short side up to
/// `crop` when over 4:1, else `crop`; each side at least a window long is
/// snapped to whole windows (up when the rest passes a fifth of one).
/// `Step3p7Processor.replace_image_token` writes each crop's features
/// between two markers, a line break after each row but the last, then
/// the global view's between two.
fn step3p7_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let ImageRule::Step3p7 {
        global,
        crop,
        max_side,
        patch,
        stride,
    } = *rule
    else {
        return (0, 0, None);
    };
    let (mut w, mut h) = (width.max(1), height.max(1));
    let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
    if w.min(h) < 32 && ratio(w, h).max(ratio(h, w)) > 4.0 {
        (w, h) = (w.max(h), w.max(h));
    }
    if w.max(h) > max_side {
        let scale = max_side as f64 / w.max(h) as f64;
        (w, h) = ((w as f64 * scale) as u64, (h as f64 * scale) as u64);
    }
    let (short, long) = (w.min(h), w.max(h));
    let window = if long <= global {
        if ratio(long, short) > 1.5 {
            short
        } else {
            0
        }
    } else if ratio(long, short) > 4.0 {
        short.min(crop)
    } else {
        crop
    };
    // a whole window count per side, each side at least a window long
    // snapped to whole windows; no window, no crops
    let windows = |d: u64| -> Option<u64> {
        let whole = d.checked_div(window)?;
        let rest = (d % window) as f64 > 0.2 * window as f64;
        let snapped = if d >= window {
            window * (whole + u64::from(rest))
        } else {
            d
        };
        Some((snapped / window).max(1))
    };
    let (across, down) = windows(w).zip(windows(h)).unwrap_or((0, 0));
    let crops = across * down;
    let squares = |px: u64, step: u64| {
        let n = px / step.max(1);
        n * n
    };
    let tower = squares(global, patch) + crops * squares(crop, patch);
    let text = squares(global, patch * stride)
        + 2
        + crops * (squares(crop, patch * stride) + 2)
        + down.saturating_sub(1);
    (tower, text, Some(1 + crops))
}

/// Kimi K2.5 (`navit_resize` of `image_processing_kimi_k25.py`): scaled
/// by the least of 1, √(max_patches / patches) and each side's limit of
/// `max_side` patches, truncated, then padded to whole merge squares.
fn kimi_k25_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let ImageRule::KimiK25 {
        patch,
        merge,
        max_patches,
        max_side,
    } = *rule
    else {
        return (0, 0, None);
    };
    let p = patch.max(1);
    let patches = (height / p).max(1) * (width / p).max(1);
    let limit = max_side * p;
    let scale = (max_patches as f64 / patches as f64)
        .sqrt()
        .min(limit as f64 / height as f64)
        .min(limit as f64 / width as f64)
        .min(1.0);
    let side = |x: u64| {
        ((x as f64 * scale) as u64)
            .clamp(1, limit)
            .next_multiple_of(p * merge.max(1))
    };
    let grid = (side(height) / p) * (side(width) / p);
    (grid, grid / (merge * merge).max(1), None)
}

/// Aria (`AriaImageProcessor`, `AriaProjector`): one crop, or with
/// `split` the tiles of the best split resolution (no global view); every
/// crop costs the tower `(crop/patch)²` patches, padding included, and the
/// language model `queries` tokens.
fn aria_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let ImageRule::Aria {
        crop,
        patch,
        queries,
        split,
        ref resolutions,
    } = *rule
    else {
        return (0, 0, None);
    };
    let crop = crop.max(1);
    let crops = match anyres::best_resolution(width, height, resolutions) {
        Some((h, w)) if split => h.div_ceil(crop) * w.div_ceil(crop),
        _ => 1,
    };
    let side = crop / patch.max(1);
    (crops * side * side, crops * queries, Some(crops))
}

/// Qwen-VL's rule (and HY-V4-VL's with a newline after each row of merged
/// cells): (tower tokens, language-model tokens, no tiles).
fn qwen_vl(rule: &ImageRule, width: u64, height: u64) -> Result<(u64, u64, Option<u64>)> {
    let Some((min_pixels, max_pixels)) = rule.pixel_limits() else {
        return Ok((0, 0, None));
    };
    let (ImageRule::QwenVl { patch, merge, .. }
    | ImageRule::QwenVlRows { patch, merge, .. }
    | ImageRule::HunyuanVl { patch, merge, .. }
    | ImageRule::PaddleOcr { patch, merge, .. }) = *rule
    else {
        return Ok((0, 0, None));
    };
    let factor = patch.max(1) * merge.max(1);
    let (w_in, h_in) = match rule {
        ImageRule::PaddleOcr { .. } => paddle_upscale(width, height, factor),
        _ => (width, height),
    };
    // `max / min > 200` in floats: 2005 × 10 is refused (200.5);
    // PaddleOCR-VL checks after its short side is scaled up
    if w_in.max(h_in) > w_in.min(h_in).saturating_mul(200) {
        let upscaled = if (w_in, h_in) == (width, height) {
            String::new()
        } else {
            format!(" (scaled to {w_in} × {h_in} first)")
        };
        return Err(InputError::new(
            "image",
            format!(
                "{width} × {height}{upscaled} has an aspect ratio over 200: the {} processor refuses it",
                rule.family()
            ),
        ));
    }
    let (h, w) = smart_resize(h_in, w_in, factor, min_pixels, max_pixels);
    let patches = (h / patch.max(1)) * (w / patch.max(1));
    // HY-V4-VL's and HunYuan-VL's newline after each row of merged cells,
    // and HunYuan-VL's begin and end embeddings
    let rows = match rule {
        ImageRule::QwenVlRows { .. } => h / factor,
        ImageRule::HunyuanVl { .. } => h / factor + 2,
        _ => 0,
    };
    Ok((
        patches,
        patches / (merge.max(1) * merge.max(1)) + rows,
        None,
    ))
}

/// PaddleOCR-VL's first step: a height under `factor` becomes `factor`,
/// the width scaled by Python's `round` (half to even); then the same for
/// a width still under it. Returns (width, height).
fn paddle_upscale(width: u64, height: u64, factor: u64) -> (u64, u64) {
    let f = factor as f64;
    let (mut w, mut h) = (width as f64, height as f64);
    if h < f {
        w = resize::round_half_even(w * f / h);
        h = f;
    }
    if w < f {
        h = resize::round_half_even(h * f / w);
        w = f;
    }
    (
        w.min(MAX_IMAGE_SIZE as f64 * f) as u64,
        h.min(MAX_IMAGE_SIZE as f64 * f) as u64,
    )
}

/// The tokens of one `width × height` image under `rule`.
pub fn tokens(rule: &ImageRule, width: u64, height: u64) -> Result<ImageTokens> {
    rule.validate()?;
    for (field, side) in [("image.width", width), ("image.height", height)] {
        check_range(field, side, 1, MAX_IMAGE_SIZE)?;
    }
    let (tower, lm, tiles) = match *rule {
        ImageRule::QwenVl { .. }
        | ImageRule::QwenVlRows { .. }
        | ImageRule::HunyuanVl { .. }
        | ImageRule::PaddleOcr { .. } => qwen_vl(rule, width, height)?,
        ImageRule::Glm4v {
            patch,
            merge,
            temporal,
            min_pixels,
            max_pixels,
        } => {
            let factor = patch.max(1) * merge.max(1);
            let (h, w) = glm4v_resize(height, width, factor, temporal, min_pixels, max_pixels)?;
            let patches = (h / patch.max(1)) * (w / patch.max(1));
            (patches, patches / (merge.max(1) * merge.max(1)), None)
        }
        ImageRule::Gemma4 { .. } => gemma4_tokens(rule, width, height),
        ImageRule::InternVl { .. }
        | ImageRule::AyaVision { .. }
        | ImageRule::GraniteDocling { .. }
        | ImageRule::GotOcr2 { .. } => tiled_tokens(rule, width, height),
        ImageRule::Fixed {
            tower,
            language_model,
        } => (tower, language_model, None),
        ImageRule::Mllama {
            tile,
            patch,
            max_tiles,
        } => {
            let n = mllama_tiles(width, height, tile, max_tiles);
            let side = tile / patch.max(1);
            // The tower runs every tile slot of the image, padded ones too
            // (`MllamaVisionModel` folds all `max_num_tiles` into its batch).
            (max_tiles * (side * side + 1), 1, Some(n))
        }
        ImageRule::Gemma3PanScan {
            tower,
            tokens,
            min_crop,
            max_crops,
            min_ratio_tenths,
        } => {
            let (long, short) = (width.max(height), width.min(height));
            let images = 1 + gemma3_crops(long, short, min_crop, max_crops, min_ratio_tenths);
            (images * tower, images * tokens, Some(images))
        }
        ImageRule::Pixtral {
            patch,
            merge,
            longest_edge,
        } => pixtral::pixtral_tokens((patch, merge, longest_edge), width, height)?,
        ImageRule::LightOnOcr {
            patch,
            merge,
            longest_edge,
        } => pixtral::lighton_ocr_tokens((patch, merge, longest_edge), width, height)?,
        ImageRule::MiniCpmV {
            patch,
            merge,
            scale,
            max_slices,
        } => minicpm_v::tokens((patch, merge, scale, max_slices), width, height),
        ImageRule::Aria { .. } => aria_tokens(rule, width, height),
        ImageRule::Idefics3 {
            longest_edge,
            tile,
            patch,
            seq_len,
        } => {
            let (rows, cols) = idefics3_grid(width, height, longest_edge, tile);
            let images = rows * cols + 1;
            let side = tile / patch.max(1);
            (images * side * side, images * seq_len, Some(images))
        }
        ImageRule::Idefics2 { .. } => idefics2_tokens(rule, width, height),
        ImageRule::Cohere2Vision { .. } => cohere2_tokens(rule, width, height),
        ImageRule::KimiK25 { .. } => kimi_k25_tokens(rule, width, height),
        ImageRule::Step3p7 { .. } => step3p7_tokens(rule, width, height),
        ImageRule::Lfm2Vl(ref t) => lfm2_vl::tokens(t, width, height),
        ImageRule::Glm5Next(ref c) => glm5_next::tokens(c, width, height),
        ImageRule::Apertus1p5(ref g) => apertus1p5::tokens(g, width, height)?,
        ImageRule::PerceptionLm(ref t) => perception_lm::tokens(t, width, height),
        ImageRule::Phi4Mm {
            crop,
            patch,
            max_crops,
        } => phi4mm::tokens(crop, patch, max_crops, width, height)?,
        ImageRule::DeepseekOcr2(ref v) => deepseek_ocr2::tokens(v, width, height, || {
            internvl_grid(width, height, v.tile, v.min_crops, v.max_crops)
        })?,
        ImageRule::Radio(ref r) => radio::tokens(r, width, height)?,
        ImageRule::Molmo2(ref c) => molmo2::tokens(c, width, height),
        ImageRule::Muse {
            patch,
            merge,
            max_tokens,
        } => muse::tokens(patch, merge, max_tokens, width, height),
        ImageRule::Ovis2(ref t) => ovis2::tokens(t, width, height, || {
            internvl_grid(width, height, t.tile, t.min_tiles, t.max_tiles)
        }),
        ImageRule::Inkling2 { cell, merge } => {
            let cells = height.div_ceil(cell) * width.div_ceil(cell);
            (cells * merge * merge + 1, cells, None)
        }
        ImageRule::Llama4 { .. } => llama4_tokens(rule, width, height),
        ImageRule::LlavaNext { .. } | ImageRule::LlavaOneVision { .. } => {
            anyres_tokens(rule, width, height)
        }
    };
    Ok(ImageTokens {
        width,
        height,
        tower_tokens: tower,
        language_model_tokens: lm,
        tiles,
    })
}

/// LLaVA-NeXT's and LLaVA-OneVision's any-resolution grids: (tower tokens,
/// language-model tokens, tiles).
fn anyres_tokens(rule: &ImageRule, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    match *rule {
        ImageRule::LlavaNext {
            crop,
            patch,
            tile_tokens,
            ref pinpoints,
        } => {
            let (grid, tiles) = anyres::grid_features(width, height, crop, patch, pinpoints, None);
            let side = crop / patch.max(1);
            // CLIP's class token on every tile; the base image's 576
            // features after "default" drops it.
            let per_tile = if tile_tokens > 0 {
                tile_tokens
            } else {
                side * side + 1
            };
            (tiles * per_tile, grid + side * side, Some(tiles))
        }
        ImageRule::LlavaOneVision {
            crop,
            patch,
            max_patches,
            ref pinpoints,
        } => {
            let (grid, tiles) =
                anyres::grid_features(width, height, crop, patch, pinpoints, Some(max_patches));
            let side = crop / patch.max(1);
            // SigLIP has no class token: side² features per tile, all kept
            // ("full"), the base image's among them.
            (tiles * side * side, grid + side * side, Some(tiles))
        }
        _ => (0, 0, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_rounding_sends_halves_to_even() {
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
        assert_eq!(round_half_even(2.4), 2.0);
        assert_eq!(round_half_even(2.6), 3.0);
    }

    #[test]
    fn sizes_out_of_range_are_named() {
        let rule = ImageRule::Fixed {
            tower: 4096,
            language_model: 256,
        };
        assert_eq!(tokens(&rule, 0, 10).unwrap_err().field, "image.width");
        assert_eq!(
            tokens(&rule, 10, 1 << 20).unwrap_err().field,
            "image.height"
        );
        assert_eq!(
            tokens(&rule, 10, 10).map(|t| t.language_model_tokens).ok(),
            Some(256)
        );
    }
}
