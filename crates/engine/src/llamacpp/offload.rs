//! Op offload at partial offload (on by default; llama.cpp's `--no-op-offload` turns it off).
//!
//! With a CUDA GPU, ggml's scheduler runs every op whose weight sits in host memory on the GPU
//! when its batch has at least 32 rows (ggml/src/ggml-backend.cpp at 0054c013
//! `ggml_backend_sched_backend_id_from_cur`: the first backend whose `offload_op` wants the op;
//! ggml/src/ggml-cuda/ggml-cuda.cu at f6d77a1b `ggml_backend_cuda_device_offload_op`: the batch
//! of a MUL_MAT is its ne[1], 32 by default, GET_ROWS never), and the ops without weights between
//! them follow (pass 2 expands GPU assignments up and down). The weight is copied into the GPU's
//! compute buffer. Pass 5 of `ggml_backend_sched_split_graph` starts a new split at every op on a
//! host weight "so the memory of the previously offloaded weights can be reused", and a split's
//! input copies are allocated at its start and freed after their last use: the copies are alive
//! one op at a time, never a layer's or several layers' weights together.
//!
//! So on the GPU the micro-batch's graph reserves the largest of: the output matmul's weight
//! copy beside its logits and final norm (when the output stays on the host), the largest host
//! layer weight beside the FFN's activations, and a host layer's attention with its K and V views
//! copied from the host cache. The host runs only the token embeddings' GET_ROWS and the stores
//! into its KV cache: its inputs, then the masks and ids beside the K and V rows copied back.
//! llama.cpp also reserves the one-token graph, which runs every host layer on the host.
//! Checked against llama.cpp's CI (Pythia 2.8B, -ngl 10, build 4418): 203.99 MiB on CUDA0 and
//! 14.01 MiB on the host, both exact (crates/engine/tests/engine/llamacpp_offload.rs).

use super::compute::{host_inputs, output_peak, ComputeBuffer};
use super::kv::ContextSizes;
use super::placement::{Backend, LlamaDevice, Placement};
use super::settings::LlamaSettings;
use super::shape::LlamaShape;
use crate::gguf::{GgufHeader, TensorInfo};

/// ggml-cuda's `op_offload_min_batch_size`: the fewest rows an op needs to be offloaded.
pub(crate) const OFFLOAD_MIN_BATCH: u64 = 32;

/// Whether the scheduler offloads host-weight ops of a micro-batch to the first GPU.
pub fn offloads(settings: &LlamaSettings, backend: Backend, sizes: &ContextSizes) -> bool {
    settings.op_offload && backend == Backend::Cuda && sizes.n_ubatch >= OFFLOAD_MIN_BATCH
}

/// Whether any weight the graph multiplies stays in host memory (token_embd is only read by
/// GET_ROWS, unless it is also the tied output).
pub fn has_host_weights(placement: &Placement, settings: &LlamaSettings) -> bool {
    placement.output == LlamaDevice::Host
        || settings.cpu_moe_layers > 0
        || placement.layers.contains(&LlamaDevice::Host)
}

/// The first GPU's compute peak from host weights it runs ops on (0 when there are none).
pub fn gpu_offload_peak(
    header: &GgufHeader,
    placement: &Placement,
    settings: &LlamaSettings,
    shape: &LlamaShape,
    sizes: &ContextSizes,
    full: &ComputeBuffer,
) -> u64 {
    let copy = |t: &TensorInfo| Backend::Cuda.tensor_bytes(t);
    let output = if placement.output == LlamaDevice::Host {
        header
            .output()
            .or(header.token_embedding())
            .map_or(0, |w| copy(w).saturating_add(output_peak(shape, sizes)))
    } else {
        0
    };
    let largest_weight = header
        .tensors()
        .iter()
        .filter(|t| t.layer().is_some())
        .filter(|t| placement.device_of(t, settings.cpu_moe_layers) == LlamaDevice::Host)
        .map(copy)
        .max();
    let weight = largest_weight.map_or(0, |w| w.saturating_add(ffn_activations(shape, sizes)));
    let attention = host_kv_views(placement, settings, shape, sizes)
        .map_or(0, |views| full.total().saturating_add(views));
    output.max(weight).max(attention)
}

/// The host's compute peak when the GPU runs its ops: the graph's inputs; the masks and ids
/// beside one layer's K and V rows copied back to be stored (the embedding rows freed once
/// copied); and the one-token graph, where every host layer runs on the host.
pub fn host_offload_peak(
    placement: &Placement,
    shape: &LlamaShape,
    sizes: &ContextSizes,
    flash_attn: bool,
) -> u64 {
    let inputs = host_inputs(shape, sizes);
    let embedding_rows = mul(&[sizes.n_ubatch, shape.n_embd, 4]);
    let widest = shape
        .layers
        .iter()
        .map(|l| l.k_width + l.v_width)
        .max()
        .unwrap_or(0);
    let host_layers = placement.layers.contains(&LlamaDevice::Host);
    // only a layer on the host stores its K and V rows into a host cache
    let stores = match host_layers {
        true => {
            inputs
                .saturating_sub(embedding_rows)
                .saturating_add(mul(&[sizes.n_ubatch, widest, 4]))
        }
        false => 0,
    };
    let one = ContextSizes {
        n_ubatch: 1,
        ..*sizes
    };
    let mut one_token = if host_layers {
        ComputeBuffer::of(shape, &one, flash_attn).total()
    } else {
        host_inputs(shape, &one)
    };
    if placement.output == LlamaDevice::Host {
        one_token = one_token.max(output_peak(shape, &one));
    }
    inputs.max(stores).max(one_token)
}

/// The FFN's activations at its matmuls: input, gate, up, their product and output, f32 per
/// token (the flash-attention peak of `ComputeBuffer`).
fn ffn_activations(shape: &LlamaShape, sizes: &ContextSizes) -> u64 {
    mul(&[
        sizes.n_ubatch,
        4,
        shape
            .n_embd
            .saturating_add(shape.n_ff_active.saturating_mul(4)),
    ])
}

/// The largest K plus V view of one host layer's cache (one stream of its cells), copied to the
/// GPU for that layer's attention; None when every layer is on a GPU.
fn host_kv_views(
    placement: &Placement,
    settings: &LlamaSettings,
    shape: &LlamaShape,
    sizes: &ContextSizes,
) -> Option<u64> {
    shape
        .layers
        .iter()
        .zip(&placement.layers)
        .filter(|(_, d)| **d == LlamaDevice::Host)
        .map(|(layer, _)| {
            let cells = sizes.cells(layer.sliding);
            let k = settings.cache_k.bytes_for(layer.k_width).unwrap_or(0);
            let v = settings.cache_v.bytes_for(layer.v_width).unwrap_or(0);
            mul(&[cells, k.saturating_add(v)])
        })
        .max()
}

fn mul(factors: &[u64]) -> u64 {
    factors.iter().fold(1u64, |acc, &f| acc.saturating_mul(f))
}
