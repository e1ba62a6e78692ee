//! The compute buffer: the peak of the graph llama.cpp reserves for one n_ubatch of tokens
//! against a full cache (sched_reserve), fitted to the tensors alive at that peak and checked
//! against every run in tools/llamacpp/results.json (CPU backend; within 10 %).
//!
//! Without flash attention the peak is inside attention: the scores KQ (n_kv × n_ubatch ×
//! n_head, f32), the f32 mask (n_kv × n_ubatch, one more for the sliding-window layers) and about
//! 5 n_embd + 2 n_embd_kv f32 values per token (residual, norm, Q, K, V, attention output).
//! With flash attention the scores never exist; the masks are f16 and the peak moves to the FFN:
//! n_embd + 4 × n_ff_active f32 values per token (gate, up, their product, the output).
//!
//! On GPUs (llama.cpp's scheduler reserves one graph per backend, llama-context.cpp
//! `graph_reserve` with every token an output) two more rules hold, checked against public CUDA
//! logs (validation/llamacpp.jsonl):
//! - the device that holds the output layer also holds its logits, n_ubatch × n_vocab f32, beside
//!   the final norm's n_ubatch × n_embd: with a large vocabulary this, not attention, is the peak
//!   (Qwen2.5-7B, -c 512: 304.00 MiB, all of it logits and norm);
//! - the host runs no layer once all are offloaded, but keeps the graph's inputs: the token
//!   embeddings' rows (n_ubatch × n_embd f32), the f32 masks (n_kv × n_ubatch each, f32 even with
//!   flash attention, which casts its copy on the GPU) and the token ids, positions and output
//!   ids.

use super::kv::ContextSizes;
use super::shape::LlamaShape;

/// The compute buffer's parts, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ComputeBuffer {
    /// KQ scores: n_kv × n_ubatch × n_head × 4 B (0 with flash attention).
    pub scores: u64,
    /// Attention masks: (n_kv + n_kv_swa) × n_ubatch × 4 B, or 2 B with flash attention.
    pub masks: u64,
    /// Per-token activations alive at the peak × n_ubatch.
    pub(crate) activations: u64,
}

impl ComputeBuffer {
    pub fn total(&self) -> u64 {
        self.scores + self.masks + self.activations
    }

    pub fn of(shape: &LlamaShape, sizes: &ContextSizes, flash_attn: bool) -> ComputeBuffer {
        let ub = sizes.n_ubatch;
        let n_kv = sizes.n_ctx_seq;
        let n_swa = if shape.has_sliding_layers() {
            sizes.swa_cells.unwrap_or(0)
        } else {
            0
        };
        let kv_width = shape.layers.iter().map(|l| l.k_width).max().unwrap_or(0);
        if flash_attn {
            let moe_sum = if shape.expert_count > 0 {
                shape.n_embd
            } else {
                0
            };
            ComputeBuffer {
                scores: 0,
                masks: mul(&[n_kv + n_swa, ub, 2]),
                activations: mul(&[ub, 4, shape.n_embd + 4 * shape.n_ff_active + moe_sum]),
            }
        } else {
            let post_norm = if shape.post_attention_norm {
                shape.n_embd
            } else {
                0
            };
            ComputeBuffer {
                scores: mul(&[n_kv, ub, shape.n_head, 4]),
                masks: mul(&[n_kv + n_swa, ub, 4]),
                activations: mul(&[ub, 4, 5 * shape.n_embd + 2 * kv_width + post_norm]),
            }
        }
    }
}

/// The output layer's peak: its logits and the normed hidden state it multiplies, f32 for every
/// token of a micro-batch.
pub fn output_peak(shape: &LlamaShape, sizes: &ContextSizes) -> u64 {
    mul(&[sizes.n_ubatch, shape.n_vocab + shape.n_embd, 4])
}

/// The inputs llama.cpp keeps in host memory when the host runs no layer: embedding rows, the
/// f32 masks, and the token ids, positions and output ids (i32 each).
pub fn host_inputs(shape: &LlamaShape, sizes: &ContextSizes) -> u64 {
    let n_swa = if shape.has_sliding_layers() {
        sizes.swa_cells.unwrap_or(0)
    } else {
        0
    };
    let per_token = shape.n_embd + sizes.n_ctx_seq + n_swa + 3;
    mul(&[sizes.n_ubatch, per_token, 4])
}

/// A product that stops at u64::MAX (only absurd headers get there; plan() bounds the settings).
fn mul(factors: &[u64]) -> u64 {
    factors.iter().fold(1u64, |acc, &f| acc.saturating_mul(f))
}
