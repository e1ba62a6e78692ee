//! A llama.cpp load log, CUDA, Metal and the rest, old and new:
//!
//! - 2024: `llm_load_tensors:      CUDA0 buffer size =  5434.38 MiB`,
//!   `llama_kv_cache_init:      CUDA0 KV buffer size =  1536.00 MiB`,
//!   `llama_new_context_with_model:      CUDA0 compute buffer size =   672.01 MiB`;
//! - 2025: `load_tensors:   CPU_Mapped model buffer size =   644.14 MiB`,
//!   `llama_kv_cache_unified:      CUDA0 KV buffer size` (also `init:`, `llama_kv_cache:`),
//!   `llama_context:  CUDA_Host compute buffer size =    23.00 MiB`, devices `MTL0`, `MTL0_Mapped`;
//! - Metal: `ggml_metal_init: recommendedMaxWorkingSetSize = 21845.34 MB` (MiB: 2/3 of 32 GiB), and
//!   in 2023 `ggml_metal_add_buffer: allocated 'data            ' buffer, size =  8967.25 MB`.
//!
//! Per device: model, KV and compute buffers; host buffers (CPU, CPU_Mapped, CUDA_Host) are kept
//! with their device so that the sums on the accelerators leave them out.

use super::quantity;
use super::{at_line, lines, Collect, Device, DeviceApi, Level, MeasureError};

pub(crate) const MARKERS: &[&str] = &[
    "buffer size =",
    "ggml_metal_init",
    "ggml_metal_add_buffer",
    "load_tensors:",
];

/// How far after "=" the size stands.
const WINDOW: usize = 16;

pub(crate) fn read(text: &str, c: &mut Collect) -> Result<(), MeasureError> {
    for (n, line) in lines(text) {
        if let Some(at) = line.find(" buffer size") {
            buffer(n, line, at, c)?;
        } else if let Some(at) = line.find("recommendedMaxWorkingSetSize") {
            let rest = &line[at..];
            if let Some(q) = at_line(n, quantity::first_quantity(rest, 48, true))? {
                c.figure(
                    Level::MetalWorkingSet,
                    q,
                    Some(Device::new(DeviceApi::Metal, None)),
                );
            }
        } else if line.contains("ggml_metal_add_buffer: allocated '") {
            metal_2023(n, line, c)?;
        }
    }
    Ok(())
}

/// `<function>: <DEVICE> [model|KV|compute|output] buffer size = <size>`.
fn buffer(n: usize, line: &str, at: usize, c: &mut Collect) -> Result<(), MeasureError> {
    let mut words = line[..at].split_whitespace().rev();
    let Some(last) = words.next() else {
        return Ok(());
    };
    let (kind, device) = match last {
        "model" | "KV" | "compute" | "output" => (Some(last), words.next()),
        _ => (None, Some(last)),
    };
    let function = words.next().unwrap_or("");
    let level = match kind {
        Some("KV") => Level::LlamaKv,
        Some("compute") => Level::LlamaCompute,
        Some("output") => Level::LlamaOutput,
        Some(_) => Level::LlamaModel,
        None if function.contains("load_tensors") => Level::LlamaModel,
        None => return Ok(()),
    };
    let Some(device) = device.and_then(device_named) else {
        return Ok(());
    };
    let rest = &line[at..];
    let rest = rest.find('=').map_or(rest, |eq| &rest[eq + 1..]);
    if let Some(q) = at_line(n, quantity::first_quantity(rest, WINDOW, true))? {
        c.figure(level, q, Some(device));
    }
    Ok(())
}

/// 2023 Metal: `allocated 'data' buffer` (weights), `'kv'`, `'alloc'`/`'eval'`/`'scr0'` (compute).
fn metal_2023(n: usize, line: &str, c: &mut Collect) -> Result<(), MeasureError> {
    let Some(open) = line.find("allocated '") else {
        return Ok(());
    };
    let name = line[open + 11..].split('\'').next().unwrap_or("").trim();
    let level = match name {
        "data" => Level::LlamaModel,
        "kv" => Level::LlamaKv,
        "alloc" | "eval" | "scr0" | "scr1" => Level::LlamaCompute,
        _ => return Ok(()),
    };
    let Some(size) = line.find("size =") else {
        return Ok(());
    };
    if let Some(q) = at_line(n, quantity::first_quantity(&line[size..], WINDOW, true))? {
        c.figure(level, q, Some(Device::new(DeviceApi::Metal, None)));
    }
    Ok(())
}

/// A buffer type's name: CUDA0, CUDA_Host, CPU, CPU_Mapped, Metal, Metal_Mapped, MTL0_Mapped,
/// ROCm1, Vulkan0, SYCL0. None for what is not a device name.
pub(crate) fn device_named(name: &str) -> Option<Device> {
    if name == "CUDA_Host" {
        return Some(Device::new(DeviceApi::CudaHost, None));
    }
    let (base, mapped) = match name.strip_suffix("_Mapped") {
        Some(b) => (b, true),
        None => (name, false),
    };
    let split = base.trim_end_matches(|ch: char| ch.is_ascii_digit()).len();
    let (api, digits) = base.split_at(split);
    let api = match api {
        "CUDA" => DeviceApi::Cuda,
        "ROCm" => DeviceApi::Rocm,
        "Metal" | "MTL" => DeviceApi::Metal,
        "Vulkan" => DeviceApi::Vulkan,
        "SYCL" => DeviceApi::Sycl,
        "CPU" => DeviceApi::Cpu,
        _ if !api.is_empty() && api.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => {
            DeviceApi::Other
        }
        _ => return None,
    };
    let index = if digits.is_empty() {
        None
    } else {
        Some(digits.parse::<u16>().ok()?)
    };
    Some(Device { api, index, mapped })
}
