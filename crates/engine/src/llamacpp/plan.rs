//! A llama.cpp run's memory per device: model, KV cache, compute and output buffers.

use super::compute::{host_inputs, output_peak, ComputeBuffer};
use super::error::{LlamaError, LlamaFlag};
use super::kv::{check_cache_types, kv_caches, ContextSizes, KvCache};
use super::offload::{gpu_offload_peak, has_host_weights, host_offload_peak, offloads};
use super::placement::{model_bytes, Backend, LlamaDevice, Placement};
use super::settings::{LlamaSettings, MAX_CONTEXT, MAX_GPUS, MAX_LAYERS_FLAG, MAX_PARALLEL};
use super::shape::LlamaShape;
use crate::gguf::GgufHeader;

/// One device's buffers, in bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceBuffers {
    pub model: u64,
    pub kv: u64,
    pub compute: u64,
    /// Logits and embeddings for the outputs (host only).
    pub output: u64,
    /// Repeating layers placed here (the output layer not counted).
    pub layers: u64,
    /// Host model bytes read through mmap (page cache the kernel may evict, not allocated).
    pub mapped: bool,
    /// Of `model`, the bytes of host tensors that a GPU buffer wrapping the mapped file spans
    /// (Metal with mmap): the host counts the same pages.
    pub shared: u64,
    /// A multimodal projector's weights and its vision graph's compute buffer (`--mmproj`).
    pub projector: u64,
    pub projector_compute: u64,
    /// A draft model's weights here, and its KV cache, compute and output buffers once per slot
    /// (`-md`, see `draft.rs`).
    pub draft: u64,
}

impl DeviceBuffers {
    pub fn total(&self) -> u64 {
        self.model
            + self.kv
            + self.compute
            + self.output
            + self.projector
            + self.projector_compute
            + self.draft
    }
}

/// What llama.cpp allocates for a GGUF file and settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlamaPlan {
    pub shape: LlamaShape,
    pub sizes: ContextSizes,
    pub placement: Placement,
    pub(crate) kv_caches: Vec<KvCache>,
    /// The compute buffer's estimate for one device that runs the whole graph.
    pub compute: ComputeBuffer,
    /// Host first, then each GPU in `--tensor-split` order.
    pub devices: Vec<(LlamaDevice, DeviceBuffers)>,
    /// The draft model's own plan (one slot), when one is loaded beside the target.
    pub draft: Option<Box<LlamaPlan>>,
}

impl LlamaPlan {
    pub fn device(&self, device: LlamaDevice) -> Option<&DeviceBuffers> {
        self.devices
            .iter()
            .find(|(d, _)| *d == device)
            .map(|(_, b)| b)
    }

    pub fn host(&self) -> &DeviceBuffers {
        &self.devices[0].1
    }

    pub fn gpu_total(&self) -> u64 {
        self.devices
            .iter()
            .filter(|(d, _)| *d != LlamaDevice::Host)
            .map(|(_, b)| b.total())
            .sum()
    }

    /// Every device's buffers, the pages a GPU buffer shares with the host counted once.
    pub fn total(&self) -> u64 {
        self.devices.iter().map(|(_, b)| b.total() - b.shared).sum()
    }
}

fn check_settings(s: &LlamaSettings) -> Result<(), LlamaError> {
    let range = |flag, value: u64, min: u64, max: u64| {
        if value < min || value > max {
            Err(LlamaError::OutOfRange {
                flag,
                value,
                min,
                max,
            })
        } else {
            Ok(())
        }
    };
    range(LlamaFlag::Parallel, s.parallel, 1, MAX_PARALLEL)?;
    range(LlamaFlag::Batch, s.batch, 1, MAX_CONTEXT)?;
    range(LlamaFlag::Ubatch, s.ubatch, 1, MAX_CONTEXT)?;
    range(LlamaFlag::Context, s.context.unwrap_or(1), 1, MAX_CONTEXT)?;
    range(
        LlamaFlag::GpuLayers,
        s.gpu_layers.unwrap_or(0),
        0,
        MAX_LAYERS_FLAG,
    )?;
    range(LlamaFlag::CpuMoe, s.cpu_moe_layers, 0, MAX_LAYERS_FLAG)?;
    let gpus = s.tensor_split.len() as u64;
    range(LlamaFlag::TensorSplit, gpus, 1, MAX_GPUS as u64)?;
    let finite = s.tensor_split.iter().all(|x| x.is_finite() && *x >= 0.0);
    if !finite || s.tensor_split.iter().all(|&x| x == 0.0) {
        return Err(LlamaError::Unreadable {
            flag: LlamaFlag::TensorSplit,
            // as the flag writes them; `{:?}` on the shares linked float printing into the page
            text: s
                .tensor_split
                .iter()
                .map(|x| crate::decimal::decimal(f64::from(*x), 2))
                .collect::<Vec<_>>()
                .join(","),
        });
    }
    Ok(())
}

/// llama.cpp's buffers for `header` under `settings` on `backend`: per device, the weights of the
/// layers placed there, their KV cache, a compute buffer on each device that runs layers (and a
/// host one for inputs, plus the output head when it stays on the host), and the output buffer.
pub fn plan_llama(
    header: &GgufHeader,
    settings: &LlamaSettings,
    backend: Backend,
) -> Result<LlamaPlan, LlamaError> {
    check_settings(settings)?;
    let shape = LlamaShape::of(header)?;
    let placement = Placement::of(shape.n_layer, settings, backend);
    plan_placed(header, settings, backend, placement)
}

/// The plan for layers placed by `placement` rather than by -ngl (an older llama.cpp's placement,
/// to check its logs); `placement` must list one device per layer of `header`.
pub fn plan_placed(
    header: &GgufHeader,
    settings: &LlamaSettings,
    backend: Backend,
    placement: Placement,
) -> Result<LlamaPlan, LlamaError> {
    check_settings(settings)?;
    let shape = LlamaShape::of(header)?;
    check_cache_types(&shape, settings)?;
    let sizes = ContextSizes::of(&shape, settings)?;
    let (caches, kv) = kv_caches(&shape, settings, &sizes, &placement)?;
    let compute = ComputeBuffer::of(&shape, &sizes, settings.flash_attn);
    let model = model_bytes(header, &placement, settings, backend);
    let gpus = if backend == Backend::CpuOnly {
        0
    } else {
        settings.gpus()
    };
    let offloading = offloads(settings, backend, &sizes) && has_host_weights(&placement, settings);
    let mut devices: Vec<(LlamaDevice, DeviceBuffers)> = std::iter::once(LlamaDevice::Host)
        .chain((0..gpus).map(LlamaDevice::Gpu))
        .map(|d| (d, DeviceBuffers::default()))
        .collect();
    for (device, buffers) in devices.iter_mut() {
        let of = |list: &[(LlamaDevice, u64)]| {
            list.iter()
                .filter(|(d, _)| d == device)
                .map(|(_, b)| *b)
                .sum::<u64>()
        };
        if let Some(m) = model.iter().find(|m| m.device == *device) {
            buffers.model = m.bytes;
            buffers.shared = m.shared;
        }
        buffers.kv = of(&kv);
        buffers.layers = placement.layers.iter().filter(|d| *d == device).count() as u64;
        buffers.compute = match (*device, offloading) {
            (LlamaDevice::Host, true) => {
                host_offload_peak(&placement, &shape, &sizes, settings.flash_attn)
            }
            (LlamaDevice::Gpu(0), true) => {
                let own = compute_on(*device, &placement, &shape, &sizes, &compute);
                let copies =
                    gpu_offload_peak(header, &placement, settings, &shape, &sizes, &compute);
                own.max(copies)
            }
            _ => compute_on(*device, &placement, &shape, &sizes, &compute),
        };
    }
    if let Some(p) = settings.projector {
        // clip_ctx: the first GPU device, unless --no-mmproj-offload (devices[0] is the host)
        let on = usize::from(settings.projector_offload && gpus > 0);
        let buffers = &mut devices[on].1;
        buffers.projector = p.weight_bytes;
        buffers.projector_compute = p.compute_bytes(settings.flash_attn);
    }
    let host = &mut devices[0].1;
    host.mapped = settings.mmap;
    host.output = settings
        .parallel
        .saturating_mul(shape.n_vocab)
        .saturating_mul(4);
    let mut plan = LlamaPlan {
        shape,
        sizes,
        placement,
        kv_caches: caches,
        compute,
        devices,
        draft: None,
    };
    if let Some(d) = &settings.draft {
        let drafted = d.plan(settings, plan.sizes.n_ctx_seq, backend)?;
        super::draft::add_draft(&mut plan, drafted, settings.parallel);
    }
    Ok(plan)
}

/// A device running any layer reserves the whole graph's peak (attention is the peak and every
/// such device runs attention), or the output layer's when it holds that layer and its logits are
/// larger; a host that runs no layer keeps the graph's inputs.
fn compute_on(
    device: LlamaDevice,
    placement: &Placement,
    shape: &LlamaShape,
    sizes: &ContextSizes,
    full: &ComputeBuffer,
) -> u64 {
    let output = if placement.output == device {
        output_peak(shape, sizes)
    } else {
        0
    };
    if placement.layers.contains(&device) {
        return full.total().max(output);
    }
    if device == LlamaDevice::Host {
        return host_inputs(shape, sizes).max(output);
    }
    output
}
