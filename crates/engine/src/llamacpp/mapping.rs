//! Weights left in the mapped GGUF file. With mmap, llama.cpp wraps the span of the file that
//! holds a buffer's tensors instead of copying them (llama-model-loader.cpp `get_mapping_range`,
//! then `ggml_backend_dev_buffer_from_host_ptr` in `load_tensors`). On a Mac the Metal buffer is
//! such a span (`Metal_Mapped`, `MTL0_Mapped`), since the GPU reads the same memory; CUDA copies
//! its tensors instead. The host's `CPU_Mapped` buffer is a span too; the engine keeps it the sum
//! of the host's tensors, which is the same while they are contiguous in the file (token_embd and
//! the first layers), and has no public log yet for the case where they are not (`--n-cpu-moe`).
//!
//! A span runs from its first tensor's offset to its last tensor's end, so it also covers the
//! tensors of another device that lie between them: the same pages, mapped twice. Files written by
//! llama-quantize list output.weight, output_norm and token_embd before blk.0 (the loader's
//! `weight_name_comparer` order: non-layer tensors by name, then layer by layer), which puts the
//! host's token_embd inside the Metal span; a convert_hf_to_gguf file that starts with token_embd
//! keeps it outside. Both show in public Metal logs (validation/llamacpp.jsonl).

use super::placement::{Backend, LlamaDevice};
use crate::gguf::TensorInfo;

/// One device's model buffer: its bytes as llama.cpp prints them and, for a GPU buffer wrapping
/// the file, the bytes in it that hold the host's own tensors (counted on the host as well).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelBuffer {
    pub device: LlamaDevice,
    pub bytes: u64,
    pub shared: u64,
}

/// Whether this device's buffer is the span of the mapped file: a Metal GPU's with mmap, when
/// the host keeps no layer's weights (`all_offloaded`). With host layers or experts between the
/// GPU's tensors the span would cover them too; no public log shows how Metal then counts them
/// against the working set, so those plans keep each buffer the sum of its own tensors.
pub fn maps_file(device: LlamaDevice, backend: Backend, mmap: bool, all_offloaded: bool) -> bool {
    mmap && all_offloaded && device != LlamaDevice::Host && backend == Backend::Metal
}

/// The file span of `device`'s tensors among `owned` (each tensor with the device holding it),
/// and the bytes of host-held tensors inside it.
pub fn span(owned: &[(LlamaDevice, &TensorInfo)], device: LlamaDevice) -> ModelBuffer {
    let mine = owned.iter().filter(|(d, _)| *d == device).map(|(_, t)| t);
    let first = mine.clone().map(|t| t.offset()).min().unwrap_or(0);
    let last = mine
        .map(|t| t.offset().saturating_add(t.bytes()))
        .max()
        .unwrap_or(0);
    let shared = owned
        .iter()
        .filter(|(d, t)| *d == LlamaDevice::Host && t.offset() >= first && t.offset() < last)
        .map(|(_, t)| t.bytes())
        .sum();
    ModelBuffer {
        device,
        bytes: last.saturating_sub(first),
        shared,
    }
}
