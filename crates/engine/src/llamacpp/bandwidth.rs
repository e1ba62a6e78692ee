//! Memory bandwidth of the catalog's GPUs, bytes per second, from each vendor's datasheet:
//! NVIDIA product pages / datasheets (T4 320 GB/s, A10 600, L4 300, L40S and L20 864, RTX A6000
//! 768, V100 SXM2 900, A100 40 GB SXM 1,555, A100/A800 80 GB SXM 2,039, H100/H800 SXM 3,350,
//! H100 NVL 3,900, H20 4,000, H200 4,800, B200 8,000), GeForce specifications (RTX 3090 936,
//! RTX 4080 716.8, RTX 4090 / 4090 D 1,008, RTX 5090 1,792, RTX 3060 12 GB 360, RTX 4060 Ti 288,
//! RTX 5070 Ti 896, RTX 5080 960), NVIDIA's workstation and data-center datasheets (RTX A4000 448,
//! RTX A5000 768, A40 696, L40 864, RTX 6000 Ada 960, RTX PRO 6000 Blackwell 1,792, B300, GB200
//! and GB300 8,000 per GPU) and AMD's (MI300X 5,300, MI325X 6,000, MI355X 8,000, Radeon RX 7900
//! XTX 960, RX 9070 XT 640).

use crate::gpus::Gpu;

/// GB/s × 10 per GPU (decimal GB, as vendors quote it).
fn deci_gbps(gpu: Gpu) -> u64 {
    match gpu {
        Gpu::Rtx3060 => 3_600,
        Gpu::T4 => 3_200,
        Gpu::Rtx5070Ti => 8_960,
        Gpu::Rtx5080 => 9_600,
        Gpu::Rx9070Xt => 6_400,
        Gpu::RtxA4000 => 4_480,
        Gpu::Rtx4060Ti => 2_880,
        Gpu::Rx7900Xtx => 9_600,
        Gpu::RtxA5000 => 7_680,
        Gpu::A40 => 6_960,
        Gpu::L40 => 8_640,
        Gpu::Rtx6000Ada => 9_600,
        Gpu::RtxPro6000 => 17_920,
        Gpu::Gb200 | Gpu::B300 | Gpu::Gb300 | Gpu::Mi355x => 80_000,
        Gpu::Mi325x => 60_000,
        Gpu::Rtx4080 => 7_168,
        Gpu::A10 => 6_000,
        Gpu::L4 => 3_000,
        Gpu::Rtx4090 | Gpu::Rtx4090D => 10_080,
        Gpu::Rtx3090 => 9_360,
        Gpu::Rtx5090 => 17_920,
        Gpu::V100_32 => 9_000,
        Gpu::A100_40 => 15_550,
        Gpu::L40S | Gpu::L20 => 8_640,
        Gpu::RtxA6000 => 7_680,
        Gpu::H100 | Gpu::H800 => 33_500,
        Gpu::A100_80 | Gpu::A800 => 20_390,
        Gpu::H100Nvl => 39_000,
        Gpu::H20 => 40_000,
        Gpu::H200 => 48_000,
        Gpu::B200 => 80_000,
        Gpu::Mi300x => 53_000,
    }
}

/// Bytes per second.
pub fn gpu_bandwidth(gpu: Gpu) -> u64 {
    deci_gbps(gpu) * 100_000_000
}
