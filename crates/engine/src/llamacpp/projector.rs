//! A multimodal projector (`--mmproj FILE`, a GGUF file of architecture `clip`) as llama.cpp's
//! `tools/mtmd/clip.cpp` loads it (ggml-org/llama.cpp @ 0024aa74):
//!
//! - its weights go into one buffer on the first GPU the backend registry lists (`clip_ctx`
//!   takes the first device of type GPU; `-ngl` and `--tensor-split` do not move it), or into
//!   host memory with `--no-mmproj-offload` or without a GPU. The file is read with
//!   `std::ifstream`, never mapped, so `--no-mmap` does not change it. The buffer holds each
//!   tensor's `ggml_nbytes` (the log's `load_hparams: model size`), padded to the backend's
//!   alignment, which is below the log's 0.01 MiB;
//! - at load, `warmup()` reserves the vision graph for one image of the warmup size
//!   (`alloc_compute_meta` / `reserve_compute_meta`: `… compute buffer size`):
//!   `clip.vision.image_size`, except for the Qwen2-VL family and GLM-4V, whose warmup is
//!   46 × 46 merged tokens
//!   (`set_warmup_n_tokens(46*46)`: 92 × 92 patches at a merge of 2). A larger image later can
//!   grow the buffer; the warmup is what every run holds.
//!
//! llama.cpp has no closed form for the compute buffer: the graph allocator sizes it. The engine
//! takes the larger of the vision layer's two phases, each the f32 tensors alive at its peak
//! (positions p, width e, heads h, feed-forward width f):
//! - attention: without flash attention one layer's scores, `4·p²·h`, beside six `p × e`
//!   tensors (the input, its norm, Q, K, V and the residual): `4·p²·h + 24·p·e`; with it, `24·p·e`;
//! - feed-forward: the up projection's output beside three `p × e` tensors: `4·p·(f + 3e)`;
//!
//! plus Qwen2.5-VL's f32 window mask, `4·p²`. Positions are the warmup's patches, and one more
//! for a class token (`v.class_embd`, CLIP's LLaVA towers). clip uses flash attention since
//! PR #16837, following `-fa`. This is exact for every buffer llama.cpp printed for a Gemma 3
//! tower (tools/llamacpp/mmproj_results.json, PR #16837's log); `docs/multimodal.md` sets it
//! against the others.

use crate::gguf::{GgufHeader, MetaValue};

/// The warmup of the Qwen2-VL family and GLM-4V, in merged tokens per side.
const QWEN_WARMUP_TOKENS_SIDE: u64 = 46;
/// `clip.vision.spatial_merge_size` when the header has none (Qwen2-VL's).
const DEFAULT_MERGE: u64 = 2;
/// Bounds on what a header or a link may claim (a 16k × 16k image of 1-pixel patches is far past
/// any projector).
const MAX_PATCHES: u64 = 1 << 24;
const MAX_HEADS: u64 = 1 << 10;
const MAX_FF: u64 = 1 << 20;
const MAX_WEIGHT_BYTES: u64 = 1 << 40;

/// What clip.cpp allocates for a projector file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Projector {
    /// Every tensor's bytes (clip's `model size`).
    pub weight_bytes: u64,
    /// Patches of the warmup image the graph is reserved for.
    pub patches: u64,
    /// `clip.vision.attention.head_count`.
    pub heads: u64,
    /// `clip.vision.feed_forward_length`.
    pub n_ff: u64,
    /// `clip.vision.embedding_length`.
    pub embd: u64,
    /// Window attention with an f32 mask over all patches (Qwen2.5-VL).
    pub window_mask: bool,
}

/// Why a file is not a projector the engine can plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProjectorError {
    /// Not a `clip` file with a vision encoder (a language model, an audio-only projector).
    NotAVisionProjector,
    /// A vision key clip.cpp reads is missing or out of bounds.
    Unreadable,
}

fn u64_key(header: &GgufHeader, key: &str) -> Option<u64> {
    header.get(key)?.as_u64()
}

fn projector_type(header: &GgufHeader) -> Option<&str> {
    let key = |k| header.get(k).and_then(|v| v.as_str());
    key("clip.vision.projector_type").or_else(|| key("clip.projector_type"))
}

impl Projector {
    /// The projector a `clip` header describes.
    pub fn of(header: &GgufHeader) -> Result<Projector, ProjectorError> {
        // convert_hf_to_gguf.py writes a bool; an integer 1 reads the same
        let has_vision = header.get("clip.has_vision_encoder").is_some_and(|v| {
            matches!(v, MetaValue::Bool(true)) || v.as_u64().is_some_and(|n| n > 0)
        });
        if header.architecture() != Some("clip") || !has_vision {
            return Err(ProjectorError::NotAVisionProjector);
        }
        let get = |k| u64_key(header, k).ok_or(ProjectorError::Unreadable);
        let kind = projector_type(header).unwrap_or("mlp");
        let patches = match kind {
            "qwen2vl_merger" | "qwen2.5vl_merger" | "qwen3vl_merger" | "glm4v" => {
                let merge = u64_key(header, "clip.vision.spatial_merge_size")
                    .filter(|&m| m > 0)
                    .unwrap_or(DEFAULT_MERGE);
                let side = QWEN_WARMUP_TOKENS_SIDE.saturating_mul(merge);
                side.saturating_mul(side)
            }
            _ => {
                let patch = get("clip.vision.patch_size")?;
                let side = get("clip.vision.image_size")?
                    .checked_div(patch)
                    .ok_or(ProjectorError::Unreadable)?;
                side.saturating_mul(side)
            }
        };
        let class_token = u64::from(header.tensor("v.class_embd").is_some());
        Projector {
            weight_bytes: header.tensor_bytes(),
            patches: patches.saturating_add(class_token),
            heads: get("clip.vision.attention.head_count")?,
            n_ff: get("clip.vision.feed_forward_length")?,
            embd: get("clip.vision.embedding_length")?,
            window_mask: kind == "qwen2.5vl_merger",
        }
        .checked()
    }

    fn checked(self) -> Result<Projector, ProjectorError> {
        let within = self.weight_bytes <= MAX_WEIGHT_BYTES
            && (1..=MAX_PATCHES).contains(&self.patches)
            && (1..=MAX_HEADS).contains(&self.heads)
            && (1..=MAX_FF).contains(&self.n_ff)
            && (1..=MAX_FF).contains(&self.embd);
        within.then_some(self).ok_or(ProjectorError::Unreadable)
    }

    /// The vision graph's compute buffer at warmup (see the module's notes).
    pub fn compute_bytes(&self, flash_attn: bool) -> u64 {
        let (p, e) = (self.patches, self.embd);
        let scores = if flash_attn {
            0
        } else {
            4 * p * p * self.heads
        };
        let attention = scores + 24 * p * e;
        let feed_forward = 4 * p * (self.n_ff + 3 * e);
        let mask = if self.window_mask { 4 * p * p } else { 0 };
        attention.max(feed_forward) + mask
    }

    /// The link form: `bytes.patches.heads.n_ff.embd.mask` (`595490000.577.16.4096.1024.0`).
    pub fn to_text(&self) -> String {
        format!(
            "{}.{}.{}.{}.{}.{}",
            self.weight_bytes,
            self.patches,
            self.heads,
            self.n_ff,
            self.embd,
            u8::from(self.window_mask)
        )
    }

    /// Reads [`Projector::to_text`] back, within the same bounds as a header.
    pub fn from_text(text: &str) -> Option<Projector> {
        let n: Vec<u64> = text
            .split('.')
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        let [weight_bytes, patches, heads, n_ff, embd, mask] = n[..] else {
            return None;
        };
        if mask > 1 {
            return None;
        }
        Projector {
            weight_bytes,
            patches,
            heads,
            n_ff,
            embd,
            window_mask: mask == 1,
        }
        .checked()
        .ok()
    }
}

/// A projector file a run loads beside its model: its name and what it allocates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectorFile {
    pub name: String,
    pub projector: Projector,
}
