//! Decode speed as an upper bound: every generated token reads the active weights and the KV
//! cache once, from the memory each lives in, so tokens/s ≤ 1 / Σ_devices (bytes read there /
//! that memory's bandwidth). Compute, kernel launches and PCIe traffic only slow it further.

use super::placement::LlamaDevice;
use super::plan::LlamaPlan;
use crate::gguf::is_expert;
use crate::gguf::GgufHeader;

/// Bytes read per generated token on one device, and that memory's bandwidth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceReads {
    pub device: LlamaDevice,
    pub weights: u64,
    /// The KV cache of one sequence at its full context.
    pub kv: u64,
    /// Bytes per second.
    pub bandwidth: u64,
}

/// The bound, per device and overall.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedBound {
    pub reads: Vec<DeviceReads>,
    /// Tokens per second with an empty context (weights only).
    pub empty_context: f64,
    /// Tokens per second with one sequence at its full context.
    pub full_context: f64,
}

/// `bandwidth(device)` in bytes per second: the GPU's, the Mac's unified memory, the CPU's RAM.
pub fn decode_bound(
    header: &GgufHeader,
    plan: &LlamaPlan,
    cpu_moe_layers: u64,
    bandwidth: impl Fn(LlamaDevice) -> u64,
) -> SpeedBound {
    let shape = &plan.shape;
    let mut reads: Vec<DeviceReads> = plan
        .devices
        .iter()
        .map(|(d, b)| DeviceReads {
            device: *d,
            weights: 0,
            // one sequence's stream (a unified cache's one stream holds n_ctx cells)
            kv: b.kv / plan.sizes.streams.max(1),
            bandwidth: bandwidth(*d),
        })
        .collect();
    for tensor in header.tensors() {
        if tensor.name() == "token_embd.weight" {
            continue; // one row per token
        }
        let device = plan.placement.device_of(tensor, cpu_moe_layers);
        let mut bytes = tensor.bytes();
        if shape.expert_count > 0 && is_expert(tensor.name()) {
            bytes = bytes / shape.expert_count * shape.expert_used.min(shape.expert_count);
        }
        if let Some(r) = reads.iter_mut().find(|r| r.device == device) {
            r.weights += bytes;
        }
    }
    if header.output().is_none() {
        if let (Some(embd), Some(r)) = (
            header.token_embedding(),
            reads.iter_mut().find(|r| r.device == plan.placement.output),
        ) {
            r.weights += embd.bytes(); // the tied output reads the whole matrix
        }
    }
    let seconds = |with_kv: bool| -> f64 {
        reads
            .iter()
            .map(|r| {
                let bytes = r.weights + if with_kv { r.kv } else { 0 };
                if bytes == 0 {
                    0.0
                } else {
                    bytes as f64 / r.bandwidth.max(1) as f64
                }
            })
            .sum()
    };
    let rate = |s: f64| if s > 0.0 { 1.0 / s } else { f64::INFINITY };
    SpeedBound {
        empty_context: rate(seconds(false)),
        full_context: rate(seconds(true)),
        reads,
    }
}
