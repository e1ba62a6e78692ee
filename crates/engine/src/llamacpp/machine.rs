//! The machine a llama.cpp run must fit: NVIDIA/AMD GPUs beside CPU RAM, a Mac whose GPU may
//! wire only its working set of the unified memory, a unified-memory PC (DGX Spark, Ryzen AI
//! Max) whose GPU may map what its driver allows, or a CPU alone.

use super::bandwidth::gpu_bandwidth;
use super::mac::Mac;
use super::placement::{Backend, LlamaDevice};
use super::plan::LlamaPlan;
use super::uma::UmaBox;
use crate::gpus::Gpu;

/// Dual-channel DDR5-5600: 2 × 8 B × 5.6 GT/s, the host bandwidth assumed when none is given.
pub const DEFAULT_HOST_BANDWIDTH: u64 = 89_600_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machine {
    /// `count` GPUs (the split's length): all `gpu` but the last, which is `last` (the same model
    /// unless the box is mixed), each with `held` bytes taken by other processes; and
    /// optionally the host's RAM.
    Gpus {
        gpu: Gpu,
        last: Gpu,
        count: usize,
        held: u64,
        ram: Option<u64>,
        host_bandwidth: u64,
    },
    Mac(Mac),
    /// A unified-memory PC beside the Macs: DGX Spark, Ryzen AI Max+ 395.
    Uma(UmaBox),
    /// Plain CPU inference: RAM only.
    Cpu {
        ram: Option<u64>,
        bandwidth: u64,
    },
}

/// One device's need against its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceFit {
    pub device: LlamaDevice,
    pub need: u64,
    /// None when the limit is unknown (host RAM not given).
    pub limit: Option<u64>,
}

impl DeviceFit {
    pub fn fits(&self) -> bool {
        self.limit.is_none_or(|l| self.need <= l)
    }
}

impl Machine {
    /// The model of GPU `i`.
    pub fn gpu_at(&self, i: usize) -> Option<Gpu> {
        match self {
            Machine::Gpus {
                gpu, last, count, ..
            } => Some(if i + 1 == *count { *last } else { *gpu }),
            _ => None,
        }
    }

    /// What llama.cpp sees free on each GPU when it loads: the total the driver reports less
    /// what other processes hold (`ggml_backend_dev_memory`'s free).
    #[cfg(test)]
    pub(crate) fn free_per_gpu(&self) -> Vec<u64> {
        match self {
            Machine::Gpus { count, held, .. } => (0..*count)
                .filter_map(|i| self.gpu_at(i))
                .map(|g| g.visible_bytes().saturating_sub(*held))
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn backend(&self) -> Backend {
        match self {
            Machine::Gpus { .. } => Backend::Cuda,
            Machine::Mac(_) => Backend::Metal,
            // CUDA on GB10, HIP (the same ggml-cuda code) on the Radeon 8060S
            Machine::Uma(_) => Backend::Cuda,
            Machine::Cpu { .. } => Backend::CpuOnly,
        }
    }

    pub fn gpu_count(&self) -> usize {
        match self {
            Machine::Gpus { count, .. } => *count,
            Machine::Mac(_) | Machine::Uma(_) => 1,
            Machine::Cpu { .. } => 0,
        }
    }

    /// Bytes per second of the memory a device's buffers live in.
    pub fn bandwidth(&self, device: LlamaDevice) -> u64 {
        match (self, device) {
            (Machine::Gpus { gpu, .. }, LlamaDevice::Gpu(i)) => {
                gpu_bandwidth(self.gpu_at(i).unwrap_or(*gpu))
            }
            (Machine::Gpus { host_bandwidth, .. }, LlamaDevice::Host) => *host_bandwidth,
            (Machine::Mac(mac), _) => mac.bandwidth_centi_gbps * 10_000_000,
            (Machine::Uma(uma), _) => uma.kind.bandwidth(),
            (Machine::Cpu { bandwidth, .. }, _) => *bandwidth,
        }
    }

    /// Each device's need and limit: a GPU's memory as the CUDA driver reports it to a process
    /// (what llama.cpp's `cudaMemGetInfo` sees, below nvidia-smi's figure: [`Gpu::visible_bytes`])
    /// less what other processes hold;
    /// a Mac's GPU working set, and its whole memory for GPU and host together; a unified-memory
    /// PC's GPU limit, and its OS's memory less what the GPU maps of it for the host; the host's
    /// RAM when given.
    pub fn fit(&self, plan: &LlamaPlan) -> Vec<DeviceFit> {
        plan.devices
            .iter()
            .map(|(device, buffers)| {
                let need = buffers.total();
                let limit = match (self, device) {
                    (Machine::Gpus { gpu, held, .. }, LlamaDevice::Gpu(i)) => Some(
                        self.gpu_at(*i)
                            .unwrap_or(*gpu)
                            .visible_bytes()
                            .saturating_sub(*held),
                    ),
                    (Machine::Gpus { ram, .. }, LlamaDevice::Host) => *ram,
                    (Machine::Mac(mac), LlamaDevice::Gpu(_)) => Some(mac.working_set()),
                    (Machine::Mac(mac), LlamaDevice::Host) => Some(
                        mac.memory_bytes()
                            .saturating_sub(plan.total() - buffers.total()),
                    ),
                    (Machine::Uma(uma), LlamaDevice::Gpu(_)) => Some(uma.gpu_limit()),
                    (Machine::Uma(uma), LlamaDevice::Host) => {
                        Some(uma.host_limit(plan.total() - buffers.total()))
                    }
                    (Machine::Cpu { ram, .. }, _) => *ram,
                };
                DeviceFit {
                    device: *device,
                    need,
                    limit,
                }
            })
            .collect()
    }

    pub fn fits(&self, plan: &LlamaPlan) -> bool {
        self.fit(plan).iter().all(DeviceFit::fits)
    }
}
