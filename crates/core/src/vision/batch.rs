//! The images of one batch: each size's tokens and count, and the sample
//! the collator pads the others to.

/// Tokens of one image: what the tower processes (patches + the class
/// token) and what the language model receives. LLaVA-1.5 drops the class
/// token (transformers `vision_feature_select_strategy="default"`): 336 px
/// in 14 px patches = 576 tokens in the LM sequence, 577 in the tower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageTokens {
    pub tower: u64,
    pub language_model: u64,
}

/// Images of one size in the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageGroup {
    pub width: u64,
    pub height: u64,
    /// Tokens of one such image.
    pub tokens: ImageTokens,
    /// Such images in the whole micro-batch (training) or batch (inference).
    pub in_batch: u64,
}

/// The images of a batch of training samples or prompts, sized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleImages {
    /// Images per sample (training) or per prompt (inference).
    pub images: u64,
    /// Samples (prompts) in the batch.
    pub samples: u64,
    /// The batch's images by size, in the order the scenario lists them;
    /// one group when every image has one size.
    pub groups: Vec<ImageGroup>,
    /// The sample whose images give the language model the most tokens:
    /// (its image tokens in the language model, in the tower). The
    /// collator pads every sequence of the batch to the longest.
    pub longest_sample: ImageTokens,
    /// The family rule that sized them (`None`: the tower's fixed square).
    pub rule: Option<&'static str>,
    /// The tower runs each image as this many passes of equal tokens
    /// (Gemma 4's padded patch slots: 1; Idefics2's padded image, and its
    /// quarters when split: 5); 0 for the other rules.
    pub image_passes: u64,
    /// One video's tokens per sample, when the sample or prompt has one.
    pub video: Option<crate::video_tokens::VideoTokens>,
}

impl SampleImages {
    /// The first (for one size: every) image's group.
    pub fn first(&self) -> ImageGroup {
        self.groups[0]
    }

    /// Whether the batch mixes image sizes.
    pub fn mixed(&self) -> bool {
        self.groups.len() > 1
    }

    /// Tokens the tower processes for one sample whose images are all the
    /// first size (the batch's own figure is [`Self::batch_tower_tokens`]).
    pub fn tower_tokens(&self) -> u64 {
        let video = self.video.as_ref().map_or(0, |v| v.tower_tokens);
        self.longest_sample.tower.saturating_add(video)
    }

    /// Tokens the tower processes for the whole batch. Every family's
    /// model runs only the batch's real images: Qwen-VL packs all patches
    /// into one sequence, InternVL, LLaVA-NeXT, Llama 4 and Gemma 3
    /// concatenate tiles, Idefics3 drops its padding images
    /// (`real_images_inds`), Pixtral crops each image's patches out of the
    /// padded batch; Llama 3.2 Vision's padded tile slots are in its
    /// per-image count already. So the batch costs the sum of its images.
    pub fn batch_tower_tokens(&self) -> u64 {
        let video = self.video.as_ref().map_or(0, |v| v.tower_tokens);
        self.groups
            .iter()
            .fold(self.samples.saturating_mul(video), |sum, g| {
                sum.saturating_add(g.in_batch.saturating_mul(g.tokens.tower))
            })
    }

    /// The tower's tokens over the batch, and its passes: (passes, tokens
    /// each). One pass reads what one attention spans: an image under
    /// dynamic resolution (Qwen-VL attends within each image, then within
    /// each video's temporal patch, `cu_seqlens`), all of the batch at once
    /// (Pixtral's one masked sequence), else one tile, crop or square of the
    /// tower's size.
    pub fn tower_passes(&self, v: &crate::model::VisionTower) -> (u128, Vec<(u128, u128)>) {
        let tokens = self.batch_tower_tokens() as u128;
        let mut passes = Vec::new();
        if v.block.one_sequence() {
            passes.push((1, tokens));
        } else if v.block == crate::model::TowerBlock::Mllama {
            // Each image's tile slots as one sequence, every tile padded to
            // a multiple of 8 tokens (`MllamaVisionModel.forward`).
            let side = u128::from(v.image_size / v.patch_size.max(1));
            let tile = side * side + 1;
            for g in &self.groups {
                let tiles = u128::from(g.tokens.tower) / tile;
                passes.push((u128::from(g.in_batch), tiles * tile.next_multiple_of(8)));
            }
        } else if self.rule.is_none() || v.block.dynamic_resolution() || self.image_passes > 0 {
            for g in &self.groups {
                let n = self.image_passes.max(1);
                passes.push((
                    u128::from(g.in_batch) * u128::from(n),
                    u128::from(g.tokens.tower.max(1) / n),
                ));
            }
            if let Some(video) = &self.video {
                let frame = video.frame_tokens.max(1) as u128;
                passes.push((self.samples as u128 * video.grid_t as u128, frame));
            }
        } else {
            let side = (v.image_size / v.patch_size.max(1)) as u128;
            let square = (side * side + u128::from(v.block.class_token())).max(1);
            passes.push((tokens.div_ceil(square), square));
        }
        passes.retain(|&(n, _)| n > 0);
        (tokens, passes)
    }

    /// Tokens the images add to each sample's sequence in the language
    /// model: the longest sample's, to which the collator pads the others.
    pub fn language_model_tokens(&self) -> u64 {
        let video = self.video.as_ref().map_or(0, |v| v.language_model_tokens);
        self.longest_sample.language_model.saturating_add(video)
    }
}

/// How many of the batch's `images × samples` images take each of `sizes`
/// sizes, image `i` taking size `i mod sizes`.
pub(super) fn batch_counts(images: u64, samples: u64, sizes: usize) -> Vec<u64> {
    let total = images.saturating_mul(samples);
    let n = sizes.max(1) as u64;
    (0..n)
        .map(|j| total / n + u64::from(j < total % n))
        .collect()
}

/// The sample with the most language-model image tokens, sample `s`
/// holding images `s·k … s·k + k − 1` of the cycling sizes. The pattern
/// repeats every `sizes / gcd(k, sizes)` samples, so no more are read.
pub(super) fn longest_sample(tokens: &[ImageTokens], images: u64, samples: u64) -> ImageTokens {
    let n = tokens.len().max(1) as u64;
    let period = n / gcd(images.max(1), n);
    let mut longest = ImageTokens {
        tower: 0,
        language_model: 0,
    };
    for s in 0..samples.min(period) {
        let mut sample = ImageTokens {
            tower: 0,
            language_model: 0,
        };
        for j in 0..images {
            // Only the index's remainder matters: images ≤ MAX_IMAGES.
            let t = tokens[((s % n) * (images % n) + j) as usize % n as usize];
            sample.tower = sample.tower.saturating_add(t.tower);
            sample.language_model = sample.language_model.saturating_add(t.language_model);
        }
        if sample.language_model > longest.language_model || s == 0 {
            longest = sample;
        }
    }
    longest
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
