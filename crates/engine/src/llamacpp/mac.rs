//! Apple Silicon Macs: unified memory, of which the GPU may wire only Metal's
//! `recommendedMaxWorkingSetSize` by default, and its bandwidth.
//!
//! The default working set, as Metal reports it (ggml-metal prints it at start-up):
//! - two thirds of the RAM up to 36 GB: 16 GB M1 → 10922.67 MiB (abetlen/llama-cpp-python#687,
//!   2023), 16 GB M4 → 11453.25 MB (10^6 B) in llama.cpp's own CI (ggml-org/ci, llama.cpp build
//!   4418, 2025-01), 32 GB M1 Max → 21845.34 MiB (ggml-org/llama.cpp#2011);
//! - three quarters above: 64 GB M2 Max → about 48 GB (ggml-org/llama.cpp#1870), 96 GB M2 Max →
//!   73728 MiB (ggml-org/llama.cpp#3213), "75 % of total RAM" (gpustack/gpustack#1375);
//! - 84 % from 128 GB on macOS 26: 128 GB M5 Max → 107.52 GiB (antirez/ds4#893 and #890,
//!   2026-08, measured before any sysctl), 128 GB M4 Max → 115448.73 MB = 110100 MiB with
//!   ggml-metal reporting `MTLGPUFamilyMetal4`, i.e. macOS 26 (osaurus-ai/osaurus#1958 reports
//!   the same ~84 % on macOS 26). Older macOS gave 128 GB Macs three quarters (96 GiB); no
//!   public macOS 26 figure was found for 48–96 GB, where the rule keeps three quarters, the
//!   side that never promises memory the GPU cannot wire.
//!
//! Metal rounds the figure up to whole 16 KiB pages (hence 115448.73 MB, not 115448.72).
//! `sudo sysctl iogpu.wired_limit_mb=N` (macOS 14+) sets it to N MiB until reboot, and Metal then
//! reports exactly N (AlexsJones/llmfit#754; 112.00 GiB for N = 114688 in antirez/ds4#893).
//!
//! Memory options and bandwidth: Apple's announcements of each chip (apple.com/newsroom: M1 Pro
//! and M1 Max 2021-10, M1 Ultra 2022-03, M2 2022-06, M2 Pro and M2 Max 2023-01, M2 Ultra 2023-06,
//! M3 family 2023-10, M4 2024-05, M4 Pro and M4 Max 2024-10, M3 Ultra 2025-03) and the MacBook
//! Pro / Mac Studio tech-specs pages (apple.com/macbook-pro/specs, apple.com/mac-studio/specs) for
//! the binned Max chips (M3 Max 14-core CPU: 300 GB/s; M4 Max 14-core CPU: 410 GB/s). The M1's
//! 68.25 GB/s is its LPDDR4X-4266 on a 128-bit bus (Apple publishes no figure).

use crate::units::{GIB, KIB, MIB};

/// Apple silicon's page, the granule Metal reports its working set in.
const METAL_PAGE: u64 = 16 * KIB;

/// A chip, with its memory options (GB as Apple sells them, which are GiB) and bandwidth (GB/s)
/// per option.
pub struct MacChip {
    pub key: &'static str,
    pub label: &'static str,
    /// (memory GiB, bandwidth GB/s × 100)
    pub options: &'static [(u64, u64)],
}

pub const MAC_CHIPS: [MacChip; 16] = [
    chip("M1", "M1", &[(8, 6825), (16, 6825)]),
    chip("M1-PRO", "M1 Pro", &[(16, 20000), (32, 20000)]),
    chip("M1-MAX", "M1 Max", &[(32, 40000), (64, 40000)]),
    chip("M1-ULTRA", "M1 Ultra", &[(64, 80000), (128, 80000)]),
    chip("M2", "M2", &[(8, 10000), (16, 10000), (24, 10000)]),
    chip("M2-PRO", "M2 Pro", &[(16, 20000), (32, 20000)]),
    chip("M2-MAX", "M2 Max", &[(32, 40000), (64, 40000), (96, 40000)]),
    chip(
        "M2-ULTRA",
        "M2 Ultra",
        &[(64, 80000), (128, 80000), (192, 80000)],
    ),
    chip("M3", "M3", &[(8, 10000), (16, 10000), (24, 10000)]),
    chip("M3-PRO", "M3 Pro", &[(18, 15000), (36, 15000)]),
    chip(
        "M3-MAX",
        "M3 Max",
        &[
            (36, 30000),
            (48, 40000),
            (64, 40000),
            (96, 30000),
            (128, 40000),
        ],
    ),
    chip(
        "M3-ULTRA",
        "M3 Ultra",
        &[(96, 81900), (256, 81900), (512, 81900)],
    ),
    chip("M4", "M4", &[(16, 12000), (24, 12000), (32, 12000)]),
    chip("M4-PRO", "M4 Pro", &[(24, 27300), (48, 27300), (64, 27300)]),
    chip(
        "M4-MAX",
        "M4 Max",
        &[(36, 41000), (48, 54600), (64, 54600), (128, 54600)],
    ),
    chip("M4-MAX-BINNED", "M4 Max (14-core CPU)", &[(36, 41000)]),
];

const fn chip(key: &'static str, label: &'static str, options: &'static [(u64, u64)]) -> MacChip {
    MacChip {
        key,
        label,
        options,
    }
}

/// One Mac: a chip and its memory, and the wired limit if `iogpu.wired_limit_mb` was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mac {
    pub chip: &'static str,
    pub label: &'static str,
    pub memory_gib: u64,
    /// GB/s × 100.
    pub bandwidth_centi_gbps: u64,
    pub wired_limit_mib: Option<u64>,
}

impl Mac {
    /// "M3-MAX-64": a chip key and one of its memory options (case ignored).
    pub fn find(key: &str) -> Option<Mac> {
        let key = key.trim().to_ascii_uppercase();
        let (chip_key, gib) = key.rsplit_once('-')?;
        let gib: u64 = gib.trim_end_matches("GB").parse().ok()?;
        let chip = MAC_CHIPS.iter().find(|c| c.key == chip_key)?;
        let &(memory_gib, bw) = chip.options.iter().find(|(m, _)| *m == gib)?;
        Some(Mac {
            chip: chip.key,
            label: chip.label,
            memory_gib,
            bandwidth_centi_gbps: bw,
            wired_limit_mib: None,
        })
    }

    /// Every Mac of the catalog, as `find` keys.
    pub fn keys() -> Vec<String> {
        MAC_CHIPS
            .iter()
            .flat_map(|c| c.options.iter().map(move |(m, _)| format!("{}-{m}", c.key)))
            .collect()
    }

    pub(crate) fn memory_bytes(&self) -> u64 {
        self.memory_gib * GIB
    }

    /// macOS's default GPU working set: 2/3 of the memory up to 36 GB, 3/4 above, 84 % from
    /// 128 GB (macOS 26), in whole 16 KiB pages.
    pub fn default_working_set(&self) -> u64 {
        let memory = self.memory_bytes();
        let share = if self.memory_gib <= 36 {
            memory / 3 * 2
        } else if self.memory_gib < 128 {
            memory / 4 * 3
        } else {
            memory / 100 * 84
        };
        share.next_multiple_of(METAL_PAGE)
    }

    /// What Metal lets llama.cpp allocate: the wired limit when set, else the default.
    pub fn working_set(&self) -> u64 {
        match self.wired_limit_mib {
            Some(mib) => (mib * MIB).min(self.memory_bytes()),
            None => self.default_working_set(),
        }
    }

    pub(crate) fn with_wired_limit(self, mib: u64) -> Mac {
        Mac {
            wired_limit_mib: Some(mib),
            ..self
        }
    }
}
