//! llama.cpp's context sizes (llama-context.cpp) and KV caches (llama-kv-cache.cpp,
//! llama-kv-cache-iswa.cpp): each layer's K and V on its layer's device, and a hybrid model's
//! recurrent state (`recurrent.rs`) on its recurrent layers' devices.

use super::error::{KvPart, LlamaError, LlamaFlag};
use super::placement::{LlamaDevice, Placement, HOST_ALIGNMENT};
use super::settings::LlamaSettings;
use super::shape::LlamaShape;
use crate::gguf::GgmlType;

/// llama.cpp pads n_ctx, each sequence's cells and the SWA cache to 256 cells.
pub(crate) const CELL_PAD: u64 = 256;

/// The sizes llama.cpp prints as its context's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextSizes {
    pub n_ctx: u64,
    /// Cells per stream of the full-attention cache.
    pub n_ctx_seq: u64,
    /// 1 with a unified cache, else one per sequence.
    pub streams: u64,
    pub n_batch: u64,
    pub n_ubatch: u64,
    /// Cells per stream of the sliding-window cache, when the model has one.
    pub swa_cells: Option<u64>,
}

impl ContextSizes {
    pub fn of(shape: &LlamaShape, s: &LlamaSettings) -> Result<ContextSizes, LlamaError> {
        let asked = s.context.or(shape.n_ctx_train).unwrap_or(4096);
        let mut n_ctx = asked.next_multiple_of(CELL_PAD);
        let n_ctx_seq = if s.kv_unified {
            n_ctx
        } else {
            let per = (n_ctx / s.parallel).next_multiple_of(CELL_PAD);
            if per == 0 {
                return Err(LlamaError::OutOfRange {
                    flag: LlamaFlag::Parallel,
                    value: s.parallel,
                    min: 1,
                    max: n_ctx,
                });
            }
            n_ctx = per * s.parallel;
            per
        };
        let n_batch = n_ctx.min(s.batch);
        let n_ubatch = n_batch.min(s.ubatch);
        let swa_cells = shape.sliding_window.map(|window| {
            if s.swa_full {
                return n_ctx_seq;
            }
            let seqs = if s.kv_unified { s.parallel } else { 1 };
            n_ctx_seq
                .min(window * seqs + n_ubatch)
                .next_multiple_of(CELL_PAD)
        });
        Ok(ContextSizes {
            n_ctx,
            n_ctx_seq,
            streams: if s.kv_unified { 1 } else { s.parallel },
            n_batch,
            n_ubatch,
            swa_cells,
        })
    }

    /// Cells per stream of a layer's cache.
    pub(crate) fn cells(&self, sliding: bool) -> u64 {
        match (sliding, self.swa_cells) {
            (true, Some(cells)) => cells,
            _ => self.n_ctx_seq,
        }
    }
}

/// llama.cpp's checks on cache types (llama_init_from_model): a quantized V cache needs flash
/// attention; with flash attention a quantized cache's blocks must divide each head.
pub fn check_cache_types(shape: &LlamaShape, s: &LlamaSettings) -> Result<(), LlamaError> {
    if s.cache_v.is_quantized() && !s.flash_attn {
        return Err(LlamaError::QuantizedVNeedsFlashAttention { cache: s.cache_v });
    }
    for (part, cache, head) in [
        (KvPart::K, s.cache_k, shape.head_k),
        (KvPart::V, s.cache_v, shape.head_v),
    ] {
        let block = cache.block_size();
        if s.flash_attn && cache.is_quantized() && head % block != 0 {
            return Err(LlamaError::BlockDoesNotDivideHead {
                part,
                cache,
                block,
                head,
            });
        }
    }
    Ok(())
}

/// Bytes on each device that holds some.
pub type BytesByDevice = Vec<(LlamaDevice, u64)>;

/// One KV cache as llama.cpp prints it: full-attention or sliding layers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KvCache {
    pub(crate) sliding: bool,
    pub(crate) cells_per_stream: u64,
    pub streams: u64,
    pub layers: Vec<u64>,
    pub(crate) k_bytes: u64,
    pub(crate) v_bytes: u64,
}

impl KvCache {
    pub fn bytes(&self) -> u64 {
        self.k_bytes + self.v_bytes
    }
}

fn row_bytes(part: KvPart, cache: GgmlType, width: u64) -> Result<u64, LlamaError> {
    cache
        .bytes_for(width)
        .ok_or(LlamaError::RowNotWholeBlocks { part, cache, width })
}

/// The caches (full first, then sliding) and the bytes per device, each layer's K and V padded
/// to the host alignment (32; a multiple of it on every GPU backend for real widths).
pub(crate) fn kv_caches(
    shape: &LlamaShape,
    s: &LlamaSettings,
    sizes: &ContextSizes,
    placement: &Placement,
) -> Result<(Vec<KvCache>, BytesByDevice), LlamaError> {
    let mut caches: Vec<KvCache> = Vec::new();
    let mut by_device: Vec<(LlamaDevice, u64)> = Vec::new();
    for (il, layer) in shape.layers.iter().enumerate() {
        let rows = sizes.cells(layer.sliding) * sizes.streams;
        let k = row_bytes(KvPart::K, s.cache_k, layer.k_width)?
            .checked_mul(rows)
            .ok_or(LlamaError::Overflow)?;
        let v = row_bytes(KvPart::V, s.cache_v, layer.v_width)?
            .checked_mul(rows)
            .ok_or(LlamaError::Overflow)?;
        let cache = match caches.iter_mut().find(|c| c.sliding == layer.sliding) {
            Some(c) => c,
            None => {
                caches.push(KvCache {
                    sliding: layer.sliding,
                    cells_per_stream: sizes.cells(layer.sliding),
                    streams: sizes.streams,
                    layers: Vec::new(),
                    k_bytes: 0,
                    v_bytes: 0,
                });
                caches.last_mut().expect("just pushed")
            }
        };
        cache.layers.push(il as u64);
        cache.k_bytes = add(cache.k_bytes, k)?;
        cache.v_bytes = add(cache.v_bytes, v)?;
        let device = placement
            .layers
            .get(il)
            .copied()
            .unwrap_or(LlamaDevice::Host);
        let mut padded = add(padded(k)?, padded(v)?)?;
        if let Some(r) = shape.recurrent.as_ref().filter(|r| r.is_recurrent(il)) {
            padded = add(padded, self::padded(r.layer_bytes(s.parallel))?)?;
        }
        match by_device.iter_mut().find(|(d, _)| *d == device) {
            Some((_, b)) => *b = add(*b, padded)?,
            None => by_device.push((device, padded)),
        }
    }
    caches.sort_by_key(|c| c.sliding);
    by_device.sort_by_key(|(d, _)| *d);
    Ok((caches, by_device))
}

fn add(a: u64, b: u64) -> Result<u64, LlamaError> {
    a.checked_add(b).ok_or(LlamaError::Overflow)
}

fn padded(bytes: u64) -> Result<u64, LlamaError> {
    bytes
        .checked_next_multiple_of(HOST_ALIGNMENT)
        .ok_or(LlamaError::Overflow)
}
