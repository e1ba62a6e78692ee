//! Unified-memory PCs beside the Macs: one pool of LPDDR5X that the CPU and an integrated GPU
//! share, with the limits their drivers put on the GPU's part.
//!
//! - **NVIDIA DGX Spark** (GB10, 128 GB, 273 GB/s; NVIDIA's DGX Spark datasheet). The driver
//!   gives the GPU whatever the OS has free: on an integrated device llama.cpp reads the free
//!   memory from `/proc/meminfo`'s `MemAvailable` instead of `cudaMemGetInfo`
//!   (ggml-org/llama.cpp#17368, `ggml_backend_cuda_device_get_memory`), and NVML reports no
//!   memory of its own (leptonai/gpud#1170 falls back to the system's: `total_bytes`
//!   128501256192, "120 GiB"). So the GPU and the host together fit in the memory DGX OS sees,
//!   119.68 GiB of the 128.
//! - **AMD Ryzen AI Max+ 395** ("Strix Halo", Radeon 8060S, 256-bit LPDDR5X-8000: 256 GB/s;
//!   sold with 32, 64 or 128 GB). The BIOS carves a dedicated "VRAM" out of the memory (512 MB
//!   to 96 GB), which the OS no longer sees; the rest is system RAM, of which the GPU may map the
//!   GTT, by default half (TTM's limit: "By default the GTT memory is half of the system",
//!   ROCm/legacy-rocm-build#2774, rjmalagon/ollama-linux-amd-apu#4), raised with `ttm.pages_limit=N` in 4 KiB
//!   pages (25165824 pages give exactly 96 GiB of GTT and llama.cpp's HIP backend then reports
//!   "Total VRAM: 98304 MiB", noamsto/nix-amd-ai#42). ROCm reports both pools, but one buffer
//!   lives in one of them (ROCm/legacy-rocm-build#6004): the GPU's limit here is the larger pool, never their
//!   sum, the side that never promises memory the GPU cannot map.

use crate::named::named_enum;
use crate::units::{GIB, KIB, MIB};

/// What DGX OS reports as the system's memory on a 128 GB DGX Spark (leptonai/gpud#1170).
pub(crate) const SPARK_OS_BYTES: u64 = 128_501_256_192;

/// A Linux page, the unit of `ttm.pages_limit`.
const PAGE: u64 = 4 * KIB;

named_enum! {
    /// A unified-memory PC.
    pub enum UmaKind {
        DgxSpark => ("spark", "NVIDIA DGX Spark (GB10)"),
        RyzenAiMax395 => ("ai-max-395", "AMD Ryzen AI Max+ 395"),
    }
}

impl UmaKind {
    /// The memory options, GB as sold (which are GiB).
    pub fn memory_options(self) -> &'static [u64] {
        match self {
            UmaKind::DgxSpark => &[128],
            UmaKind::RyzenAiMax395 => &[32, 64, 128],
        }
    }

    /// Bandwidth in bytes per second: GB10's 273 GB/s; 256 bits × 8000 MT/s = 256 GB/s.
    pub fn bandwidth(self) -> u64 {
        match self {
            UmaKind::DgxSpark => 273_000_000_000,
            UmaKind::RyzenAiMax395 => 256_000_000_000,
        }
    }
}

/// One unified-memory PC: its kind and memory, and for the Ryzen its BIOS carve-out and GTT limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UmaBox {
    pub kind: UmaKind,
    pub memory_gib: u64,
    /// The BIOS's dedicated VRAM in MiB (the Ryzen's "UMA frame buffer size").
    pub carve_out_mib: u64,
    /// `ttm.pages_limit` as MiB; None: the kernel's default, half of the OS's memory.
    pub(crate) gtt_limit_mib: Option<u64>,
}

impl UmaBox {
    /// `kind` with the memory option nearest to `gb`, the carve-out (clamped to the memory) and
    /// the GTT limit (0: the kernel's default).
    pub fn new(kind: UmaKind, gb: u64, carve_out_mib: u64, gtt_mib: u64) -> UmaBox {
        let memory_gib = kind
            .memory_options()
            .iter()
            .copied()
            .min_by_key(|m| m.abs_diff(gb))
            .unwrap_or(128);
        let carve_out_mib = match kind {
            UmaKind::DgxSpark => 0,
            UmaKind::RyzenAiMax395 => carve_out_mib.min(memory_gib * 1024 * 3 / 4),
        };
        UmaBox {
            kind,
            memory_gib,
            carve_out_mib,
            gtt_limit_mib: (gtt_mib > 0).then_some(gtt_mib),
        }
    }

    pub(crate) fn memory_bytes(&self) -> u64 {
        self.memory_gib * GIB
    }

    /// The memory the OS sees: DGX OS's figure, or the Ryzen's memory less the carve-out.
    pub fn os_bytes(&self) -> u64 {
        match self.kind {
            UmaKind::DgxSpark => SPARK_OS_BYTES,
            UmaKind::RyzenAiMax395 => self.memory_bytes() - self.carve_out_mib * MIB,
        }
    }

    /// The GTT the GPU may map from the OS's memory: the limit given (whole pages, at most the
    /// OS's memory), else half of it in whole pages.
    pub fn gtt_bytes(&self) -> u64 {
        match self.gtt_limit_mib {
            Some(mib) => (mib * MIB).min(self.os_bytes()) / PAGE * PAGE,
            None => self.os_bytes() / 2 / PAGE * PAGE,
        }
    }

    /// Whether the GPU's buffers come out of the OS's memory (DGX Spark; the Ryzen when its GTT
    /// is the larger pool) rather than the BIOS's carve-out.
    pub fn gpu_draws_on_os_memory(&self) -> bool {
        match self.kind {
            UmaKind::DgxSpark => true,
            UmaKind::RyzenAiMax395 => self.gtt_bytes() >= self.carve_out_mib * MIB,
        }
    }

    /// What the GPU may allocate: all the OS's memory on a DGX Spark; the larger of the
    /// carve-out and the GTT on the Ryzen.
    pub fn gpu_limit(&self) -> u64 {
        match self.kind {
            UmaKind::DgxSpark => self.os_bytes(),
            UmaKind::RyzenAiMax395 => self.gtt_bytes().max(self.carve_out_mib * MIB),
        }
    }

    /// What the host may allocate beside a GPU that needs `gpu_need`: the OS's memory, less the
    /// GPU's buffers when they come out of it.
    pub(crate) fn host_limit(&self, gpu_need: u64) -> u64 {
        if self.gpu_draws_on_os_memory() {
            self.os_bytes().saturating_sub(gpu_need)
        } else {
            self.os_bytes()
        }
    }

    /// `ttm.pages_limit` for a GTT of `gib` GiB: 262,144 pages per GiB.
    pub fn pages_limit_for(gib: u64) -> u64 {
        gib * GIB / PAGE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dgx_spark_gives_its_gpu_the_119_68_gib_dgx_os_sees() {
        let spark = UmaBox::new(UmaKind::DgxSpark, 128, 4_096, 0);
        // 128,501,256,192 B / 2^30 = 119.68 GiB; no carve-out on GB10
        assert_eq!(spark.gpu_limit(), 128_501_256_192);
        assert_eq!(spark.carve_out_mib, 0);
        // 100 GiB on the GPU leaves 128,501,256,192 − 107,374,182,400 = 21,127,073,792 B
        assert_eq!(spark.host_limit(100 * GIB), 21_127_073_792);
    }

    #[test]
    fn a_ryzen_ai_max_maps_half_its_ram_by_default_and_the_pages_limit_when_set() {
        // 128 GiB less a 512 MiB carve-out: 131,072 − 512 = 130,560 MiB; half: 65,280 MiB
        let halo = UmaBox::new(UmaKind::RyzenAiMax395, 128, 512, 0);
        assert_eq!(halo.gpu_limit(), 65_280 * MIB);
        assert!(halo.gpu_draws_on_os_memory());
        // ttm.pages_limit=25165824 → 96 GiB, llama.cpp's "Total VRAM: 98304 MiB"
        assert_eq!(UmaBox::pages_limit_for(96), 25_165_824);
        let raised = UmaBox::new(UmaKind::RyzenAiMax395, 128, 512, 98_304);
        assert_eq!(raised.gpu_limit(), 98_304 * MIB);
        assert_eq!(raised.host_limit(90 * GIB), 130_560 * MIB - 90 * GIB);
    }

    #[test]
    fn a_96_gib_carve_out_is_the_gpus_whole_pool_and_leaves_the_os_32() {
        // 96 GiB carved: the OS sees 32 GiB, its GTT half of that (16 GiB) is the smaller pool
        let halo = UmaBox::new(UmaKind::RyzenAiMax395, 128, 98_304, 0);
        assert_eq!(halo.os_bytes(), 32 * GIB);
        assert_eq!(halo.gpu_limit(), 96 * GIB);
        assert!(!halo.gpu_draws_on_os_memory());
        assert_eq!(halo.host_limit(90 * GIB), 32 * GIB);
    }

    #[test]
    fn memory_snaps_to_an_option_the_box_is_sold_with() {
        assert_eq!(
            UmaBox::new(UmaKind::RyzenAiMax395, 100, 512, 0).memory_gib,
            128
        );
        assert_eq!(UmaBox::new(UmaKind::DgxSpark, 64, 0, 0).memory_gib, 128);
    }
}
