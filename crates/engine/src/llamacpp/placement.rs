//! Which device each layer's weights go to: llama.cpp's `load_tensors` (src/llama-model.cpp).
//!
//! The output layer counts as layer n_layer and is offloaded first: with -ngl N the last N − 1
//! repeating layers and the output go to the GPUs (`i_gpu_start = n_layer + 1 − N`); token_embd
//! always stays in host memory. Layers are cut between GPUs at the cumulative, normalised
//! `--tensor-split` shares.

use super::mapping::{maps_file, span, ModelBuffer};
use super::settings::LlamaSettings;
use crate::gguf::is_expert;
use crate::gguf::{GgufHeader, TensorInfo};

/// Where a buffer lives: host memory (CPU RAM, or a Mac's unified memory outside the GPU's
/// working set), or one of the GPUs in `--tensor-split` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LlamaDevice {
    Host,
    Gpu(usize),
}

/// The backend the GPUs run (their buffers' alignment and padding differ), or none at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// CUDA (and HIP): 128-byte alignment; quantized rows padded to 512 values.
    Cuda,
    /// Apple Metal: one GPU sharing the Mac's memory; 32-byte alignment.
    Metal,
    /// Plain CPU inference: every layer in RAM whatever -ngl says.
    CpuOnly,
}

/// ggml-cpu's buffer alignment (TENSOR_ALIGNMENT).
pub const HOST_ALIGNMENT: u64 = 32;
/// ggml-cuda `MATRIX_ROW_PADDING`: quantized tensors get room for one padded row.
const CUDA_ROW_PADDING: u64 = 512;

impl Backend {
    fn alignment(self) -> u64 {
        match self {
            Backend::Cuda => 128,
            Backend::Metal | Backend::CpuOnly => HOST_ALIGNMENT,
        }
    }

    /// The bytes a tensor takes in this backend's buffer (ggml `get_alloc_size`, then aligned).
    pub fn tensor_bytes(self, tensor: &TensorInfo) -> u64 {
        let mut bytes = tensor.bytes();
        let ty = tensor.ggml_type();
        let ne0 = tensor.dims().first().copied().unwrap_or(0);
        if self == Backend::Cuda && ty.is_quantized() && ne0 % CUDA_ROW_PADDING != 0 {
            let pad = CUDA_ROW_PADDING - ne0 % CUDA_ROW_PADDING;
            bytes += ty.bytes_for(pad).unwrap_or(0);
        }
        bytes.next_multiple_of(self.alignment())
    }
}

/// The device of every repeating layer and of the output layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub layers: Vec<LlamaDevice>,
    pub output: LlamaDevice,
    /// Layers on GPUs, the output counted as one (llama.cpp's "offloaded N/M layers").
    pub offloaded: u64,
}

impl Placement {
    pub fn of(n_layer: u64, settings: &LlamaSettings, backend: Backend) -> Placement {
        let gpus = if backend == Backend::CpuOnly {
            0
        } else {
            settings.gpus()
        };
        let ngl = settings.gpu_layers.unwrap_or(n_layer + 1);
        let start = (n_layer + 1).saturating_sub(ngl);
        let active = if gpus == 0 { 0 } else { ngl.min(n_layer + 1) };
        let bounds = split_points(&settings.tensor_split);
        let device = |il: u64| -> LlamaDevice {
            if il < start || il - start >= active {
                return LlamaDevice::Host;
            }
            let at = (il - start) as f32 / active as f32;
            let gpu = bounds.partition_point(|&b| b <= at);
            LlamaDevice::Gpu(gpu.min(gpus.saturating_sub(1)))
        };
        let layers: Vec<LlamaDevice> = (0..n_layer).map(device).collect();
        let output = device(n_layer);
        let offloaded = layers
            .iter()
            .chain([&output])
            .filter(|d| **d != LlamaDevice::Host);
        Placement {
            offloaded: offloaded.count() as u64,
            layers,
            output,
        }
    }

    /// The device a tensor's bytes go to; token_embd always to the host, the experts of the
    /// first `--n-cpu-moe` layers too (common.h `LLM_FFN_EXPS_REGEX`).
    pub fn device_of(&self, tensor: &TensorInfo, cpu_moe_layers: u64) -> LlamaDevice {
        if tensor.name() == "token_embd.weight" {
            return LlamaDevice::Host;
        }
        match tensor.layer() {
            Some(il) if u64::from(il) < cpu_moe_layers && is_expert(tensor.name()) => {
                LlamaDevice::Host
            }
            Some(il) => self
                .layers
                .get(il as usize)
                .copied()
                .unwrap_or(LlamaDevice::Host),
            None => self.output,
        }
    }

    /// The devices that hold model weights, host first.
    pub fn gpus_used(&self) -> Vec<usize> {
        let mut gpus: Vec<usize> = self
            .layers
            .iter()
            .chain([&self.output])
            .filter_map(|d| match d {
                LlamaDevice::Gpu(g) => Some(*g),
                LlamaDevice::Host => None,
            })
            .collect();
        gpus.sort_unstable();
        gpus.dedup();
        gpus
    }
}

/// Cumulative shares divided by their sum, in f32 as llama.cpp computes them.
fn split_points(shares: &[f32]) -> Vec<f32> {
    let mut sum = 0.0f32;
    let mut points: Vec<f32> = shares
        .iter()
        .map(|&s| {
            sum += s;
            sum
        })
        .collect();
    if sum > 0.0 {
        points.iter_mut().for_each(|p| *p /= sum);
    }
    points
}

/// The model buffer of each device that holds weights, host first: each tensor in its device's
/// buffer, a tied output copied to the output's device when that is a GPU (TENSOR_DUPLICATED);
/// a buffer that wraps the mapped file is its span instead (see `mapping`).
pub fn model_bytes(
    header: &GgufHeader,
    placement: &Placement,
    settings: &LlamaSettings,
    backend: Backend,
) -> Vec<ModelBuffer> {
    let mut owned: Vec<(LlamaDevice, &TensorInfo)> = header
        .tensors()
        .iter()
        .map(|t| (placement.device_of(t, settings.cpu_moe_layers), t))
        .collect();
    if header.output().is_none() && placement.output != LlamaDevice::Host {
        if let Some(embd) = header.token_embedding() {
            owned.push((placement.output, embd));
        }
    }
    let all_offloaded =
        settings.cpu_moe_layers == 0 && placement.layers.iter().all(|d| *d != LlamaDevice::Host);
    let mut devices: Vec<LlamaDevice> = owned.iter().map(|(d, _)| *d).collect();
    devices.sort_unstable();
    devices.dedup();
    devices
        .into_iter()
        .map(|device| {
            if maps_file(device, backend, settings.mmap, all_offloaded) {
                return span(&owned, device);
            }
            let bytes = owned
                .iter()
                .filter(|(d, _)| *d == device)
                .map(|(_, t)| buffer_bytes(device, t, backend))
                .sum();
            ModelBuffer {
                device,
                bytes,
                shared: 0,
            }
        })
        .collect()
}

pub fn buffer_bytes(device: LlamaDevice, tensor: &TensorInfo, backend: Backend) -> u64 {
    match device {
        LlamaDevice::Host => tensor.bytes().next_multiple_of(HOST_ALIGNMENT),
        LlamaDevice::Gpu(_) => backend.tensor_bytes(tensor),
    }
}
