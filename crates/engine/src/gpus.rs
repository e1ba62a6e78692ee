//! The GPU catalog: the memory each card really shows (nvidia-smi / rocm-smi total, MiB).

use crate::named::named_enum;
use crate::units::MIB;

named_enum! {
    /// A GPU model, with the capacity the driver reports.
    pub enum Gpu {
        Rtx3060 => ("rtx3060", "RTX 3060 12GB"),
        T4 => ("t4", "Tesla T4 16GB"),
        Rtx5070Ti => ("rtx5070ti", "RTX 5070 Ti 16GB"),
        Rtx5080 => ("rtx5080", "RTX 5080 16GB"),
        Rx9070Xt => ("rx9070xt", "Radeon RX 9070 XT 16GB"),
        RtxA4000 => ("a4000", "RTX A4000 16GB"),
        Rtx4080 => ("rtx4080", "RTX 4080 16GB"),
        Rtx4060Ti => ("rtx4060ti", "RTX 4060 Ti 16GB"),
        A10 => ("a10", "A10 / A10G 24GB"),
        L4 => ("l4", "L4 24GB"),
        Rx7900Xtx => ("rx7900xtx", "Radeon RX 7900 XTX 24GB"),
        Rtx4090 => ("rtx4090", "RTX 4090 24GB"),
        Rtx4090D => ("rtx4090d", "RTX 4090 D 24GB"),
        RtxA5000 => ("a5000", "RTX A5000 24GB"),
        Rtx3090 => ("rtx3090", "RTX 3090 24GB"),
        Rtx5090 => ("rtx5090", "RTX 5090 32GB"),
        V100_32 => ("v100-32", "V100 32GB"),
        A100_40 => ("a100-40", "A100 40GB"),
        L40S => ("l40s", "L40S 48GB"),
        L20 => ("l20", "L20 48GB"),
        A40 => ("a40", "A40 48GB"),
        L40 => ("l40", "L40 48GB"),
        RtxA6000 => ("a6000", "RTX A6000 48GB"),
        Rtx6000Ada => ("rtx6000ada", "RTX 6000 Ada 48GB"),
        H100 => ("h100", "H100 80GB"),
        H800 => ("h800", "H800 80GB"),
        A100_80 => ("a100-80", "A100 80GB"),
        A800 => ("a800", "A800 80GB"),
        H100Nvl => ("h100-nvl", "H100 NVL 94GB"),
        H20 => ("h20", "H20 96GB"),
        RtxPro6000 => ("rtxpro6000", "RTX PRO 6000 Blackwell 96GB"),
        H200 => ("h200", "H200 141GB"),
        B200 => ("b200", "B200 180GB"),
        Gb200 => ("gb200", "GB200 186GB (per GPU)"),
        Mi300x => ("mi300x", "MI300X 192GB"),
        Mi325x => ("mi325x", "MI325X 256GB"),
        B300 => ("b300", "B300 288GB"),
        Gb300 => ("gb300", "GB300 288GB (per GPU)"),
        Mi355x => ("mi355x", "MI355X 288GB"),
    }
}

impl Gpu {
    /// Total memory as the driver reports it, in MiB: nvidia-smi's `Memory-Usage` total (ECC as
    /// the card ships: on for data-center cards, off for workstation ones), rocm-smi's
    /// `VRAM Total Memory (B)` for AMD's. Sources: modal-labs/modal-client#2797 (H100, A100, A10,
    /// L40S, L4, T4); geerlingguy/raspberry-pi-pcie-devices#790 (RTX 3060, 12288); nvidia-smi tables
    /// quoted in public issues and READMEs for the others (RTX 4060 Ti 16380, RTX 5070 Ti and 5080
    /// 16303, RTX A4000 16376, RTX A5000 24564, A40 and L40 46068 with ECC on, RTX 6000 Ada 49140,
    /// RTX PRO 6000 Blackwell Workstation and Server Edition 97887, GB200 189471, B300 SXM6 275040,
    /// GB300 284208); AMD's sysfs `mem_info_vram_total` (RX 9070 XT 17095983104 B, RX 7900 XTX
    /// 25753026560 B, MI300X 206141652992 B, MI355X 309220868096 B: each card's GiB less 16 MiB,
    /// the rule MI325X's 256 GiB follows).
    pub fn mib(self) -> u64 {
        match self {
            Gpu::Rtx3060 => 12_288,
            Gpu::T4 => 15_360,
            Gpu::Rtx5070Ti | Gpu::Rtx5080 => 16_303,
            Gpu::Rx9070Xt => 16_304,
            Gpu::Rtx4080 | Gpu::RtxA4000 => 16_376,
            Gpu::Rtx4060Ti => 16_380,
            Gpu::V100_32 => 32_768,
            Gpu::L4 => 23_034,
            Gpu::A10 => 23_028,
            Gpu::Rx7900Xtx => 24_560,
            Gpu::Rtx3090 => 24_576,
            Gpu::Rtx4090 | Gpu::Rtx4090D | Gpu::RtxA5000 => 24_564,
            Gpu::Rtx5090 => 32_607,
            Gpu::A100_40 => 40_960,
            Gpu::L40S | Gpu::L20 | Gpu::A40 | Gpu::L40 => 46_068,
            Gpu::RtxA6000 | Gpu::Rtx6000Ada => 49_140,
            Gpu::A100_80 | Gpu::A800 => 81_920,
            Gpu::H100 | Gpu::H800 => 81_559,
            Gpu::H20 => 97_871,
            Gpu::RtxPro6000 => 97_887,
            Gpu::H100Nvl => 95_830,
            Gpu::H200 => 143_771,
            Gpu::B200 => 183_359,
            Gpu::Gb200 => 189_471,
            Gpu::Mi300x => 196_592,
            Gpu::Mi325x => 262_128,
            Gpu::B300 => 275_040,
            Gpu::Gb300 => 284_208,
            Gpu::Mi355x => 294_896,
        }
    }

    /// An AMD card (ROCm / HIP).
    pub fn is_amd(self) -> bool {
        matches!(
            self,
            Gpu::Rx9070Xt | Gpu::Rx7900Xtx | Gpu::Mi300x | Gpu::Mi325x | Gpu::Mi355x
        )
    }

    /// Total memory in bytes.
    pub fn bytes(self) -> u64 {
        self.mib() * MIB
    }

    /// The total the CUDA driver reports to a process (`cudaMemGetInfo`,
    /// `torch.cuda.mem_get_info()[1]`), in MiB: below nvidia-smi's figure by what the driver keeps
    /// for itself. vLLM's budget is `gpu_memory_utilization` × this total.
    ///
    /// Measured where a public log prints it (vLLM's `total_gpu_memory`, llama.cpp's memory
    /// breakdown), else the catalog figure less [`DRIVER_KEEPS_MIB`]. HIP reports AMD's whole
    /// sysfs total: llama.cpp's breakdown prints `ROCm0 (RX 7900 XTX) | 24560` and
    /// `ROCm0 (RX 9070 XT) | 16304`, torch's `total_memory` on MI355X is 309220868096 B, and vLLM
    /// asks MI355X for "273.6 GiB" at 0.95 (SemiAnalysisAI/InferenceX#2522), i.e. 288 GiB total.
    pub fn visible_mib(self) -> u64 {
        match self {
            // vLLM PR #10511 and PR #12126 (H100 80GB): "total_gpu_memory (79.22GiB)"
            Gpu::H100 => 81_121,
            // vLLM issue #10517 (RTX 3090): "total_gpu_memory (23.58GiB)"
            Gpu::Rtx3090 => 24_146,
            // vLLM issue #16570 (4 × A100 40GB): "total_gpu_memory (39.38GiB)"
            Gpu::A100_40 => 40_325,
            // llama.cpp's memory breakdown: "CUDA0 (RTX 3060) | 11889 MiB total"
            Gpu::Rtx3060 => 11_889,
            // llama.cpp's memory breakdown in public logs of the Workstation Edition:
            // "CUDA0 (RTX PRO 6000 Blackwell Workstation Edition) | 97249 = …"
            Gpu::RtxPro6000 => 97_249,
            // a vLLM log on MI300X prints "total_gpu_memory (191.45GiB)": below rocm-smi's total
            Gpu::Mi300x => self.mib() - DRIVER_KEEPS_MIB,
            g if g.is_amd() => g.mib(),
            _ => self.mib() - DRIVER_KEEPS_MIB,
        }
    }

    /// [`Gpu::visible_mib`] in bytes.
    pub fn visible_bytes(self) -> u64 {
        self.visible_mib() * MIB
    }

    /// How several of these cards in one server reach each other (the usual build: SXM boards on
    /// NVSwitch, NVL and workstation cards in bridged pairs, GeForce cards on bare PCIe).
    pub fn interconnect(self) -> Interconnect {
        match self {
            // NVIDIA disables peer-to-peer on GeForce cards: vLLM logs "Custom allreduce is
            // disabled because your platform lacks GPU P2P capability" on 3090, 4090 and 5090 pairs
            Gpu::Rtx3060
            | Gpu::Rtx4060Ti
            | Gpu::Rtx4080
            | Gpu::Rtx4090
            | Gpu::Rtx4090D
            | Gpu::Rtx3090
            | Gpu::Rtx5070Ti
            | Gpu::Rtx5080
            | Gpu::Rtx5090 => Interconnect::PcieHost,
            // workstation and data-center PCIe cards without a bridge, and Radeon cards (RCCL's
            // P2P transport over PCIe)
            Gpu::T4
            | Gpu::A10
            | Gpu::L4
            | Gpu::L40S
            | Gpu::L20
            | Gpu::L40
            | Gpu::RtxA4000
            | Gpu::Rtx6000Ada
            | Gpu::RtxPro6000
            | Gpu::Rx9070Xt
            | Gpu::Rx7900Xtx => Interconnect::PcieP2p,
            // NVLink bridges pair A5000, A6000 and A40 cards
            Gpu::V100_32 | Gpu::RtxA6000 | Gpu::RtxA5000 | Gpu::A40 | Gpu::H100Nvl => {
                Interconnect::NvLink
            }
            Gpu::A100_40
            | Gpu::A100_80
            | Gpu::A800
            | Gpu::H100
            | Gpu::H800
            | Gpu::H20
            | Gpu::H200
            | Gpu::B200
            | Gpu::Gb200
            | Gpu::B300
            | Gpu::Gb300
            | Gpu::Mi300x
            | Gpu::Mi325x
            | Gpu::Mi355x => Interconnect::Fabric,
        }
    }

    /// Whether NCCL runs NVLink SHARP (NVLS) here: NVSwitch systems from Hopper on. Not A100
    /// ("NVLS was a new feature of H100", NVIDIA/nccl-tests issue #228) nor H800 (its NCCL log
    /// prints "0 nvls channels", NVIDIA/nccl issue #892).
    pub fn has_nvls(self) -> bool {
        matches!(
            self,
            Gpu::H100 | Gpu::H20 | Gpu::H200 | Gpu::B200 | Gpu::Gb200 | Gpu::B300 | Gpu::Gb300
        )
    }
}

/// How the GPUs of one server exchange data, as far as it decides where the buffers live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interconnect {
    /// Every GPU reaches every other directly: NVSwitch (SXM boards) or AMD's Infinity Fabric.
    Fabric,
    /// NVLink between bridged pairs or a mesh; peer-to-peer works.
    NvLink,
    /// PCIe with peer-to-peer: NCCL's P2P transport, buffers in device memory.
    PcieP2p,
    /// PCIe without peer-to-peer: NCCL goes through host shared memory.
    PcieHost,
}

impl Interconnect {
    /// Whether the GPUs can read each other's memory: NCCL's P2P transport (buffers in device
    /// memory) and vLLM's custom all-reduce need it.
    pub fn peer_to_peer(self) -> bool {
        self != Interconnect::PcieHost
    }
}

/// What the driver keeps of nvidia-smi's total on the cards measured: H100 81,559 − 81,121 =
/// 438 MiB; RTX 3090 24,576 − 24,146 = 430 MiB; RTX 3090 Ti 24,564 − 24,112 = 452 MiB
/// (pegainfer issue #422, "total GPU memory 24112 MiB"); A100 40GB 40,960 − 40,325 = 635 MiB;
/// RTX 3060 12,288 − 11,889 = 399 MiB; RTX PRO 6000 Blackwell 97,887 − 97,249 = 638 MiB. The
/// median of the first four.
pub const DRIVER_KEEPS_MIB: u64 = 445;

/// Capacity lines drawn on the chart, in GiB.
pub const CAPACITY_LINES_GIB: [u64; 9] = [16, 24, 32, 40, 48, 80, 94, 141, 192];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::GIB;

    #[test]
    fn an_80_gb_a100_is_80_gib_and_a_4090_shows_24564_mib() {
        assert_eq!(Gpu::A100_80.bytes(), 80 * GIB);
        assert_eq!(Gpu::Rtx4090.mib(), 24_564);
    }

    #[test]
    fn the_driver_shows_a_process_less_than_nvidia_smi_on_every_nvidia_card() {
        for g in Gpu::ALL.iter().filter(|g| !g.is_amd()) {
            let kept = g.mib() - g.visible_mib();
            assert!((390..=700).contains(&kept), "{}: {kept}", g.key());
        }
        assert_eq!(Gpu::A100_80.visible_mib(), 81_920 - DRIVER_KEEPS_MIB);
        // 97,887 − 97,249 = 638 MiB kept on the RTX PRO 6000 Blackwell
        assert_eq!(Gpu::RtxPro6000.mib() - Gpu::RtxPro6000.visible_mib(), 638);
    }

    #[test]
    fn hip_shows_a_radeon_or_an_instinct_card_its_whole_sysfs_total() {
        // RX 7900 XTX: 25,753,026,560 B / 2^20 = 24,560 MiB, all of it visible to llama.cpp
        assert_eq!(Gpu::Rx7900Xtx.visible_mib(), 24_560);
        // MI355X: 309,220,868,096 B = 288 GiB − 16 MiB = 294,896 MiB
        assert_eq!(Gpu::Mi355x.bytes(), 309_220_868_096);
        assert_eq!(Gpu::Mi355x.visible_mib(), 294_896);
        // MI325X follows the same rule: 256 × 1,024 − 16 = 262,128 MiB
        assert_eq!(Gpu::Mi325x.mib(), 256 * 1_024 - 16);
    }

    #[test]
    fn grace_blackwell_gpus_hold_more_than_their_hgx_twins_and_all_run_nvls() {
        assert!(Gpu::Gb200.mib() > Gpu::B200.mib() && Gpu::Gb300.mib() > Gpu::B300.mib());
        for g in [Gpu::Gb200, Gpu::B300, Gpu::Gb300] {
            assert!(g.has_nvls(), "{}", g.key());
        }
    }

    #[test]
    fn geforce_cards_have_no_peer_to_peer_and_only_hopper_and_blackwell_switches_run_nvls() {
        assert!(!Gpu::Rtx4090.interconnect().peer_to_peer());
        assert!(Gpu::L40S.interconnect().peer_to_peer());
        assert_eq!(Gpu::H100.interconnect(), Interconnect::Fabric);
        assert!(Gpu::H100.has_nvls() && !Gpu::A100_80.has_nvls());
        for g in Gpu::ALL.iter().filter(|g| g.has_nvls()) {
            assert_eq!(g.interconnect(), Interconnect::Fabric, "{}", g.key());
        }
    }

    #[test]
    fn the_catalog_is_ordered_by_capacity() {
        let caps: Vec<u64> = Gpu::ALL.iter().map(|g| g.mib()).collect();
        assert!(caps.windows(2).all(|w| w[0] <= w[1]), "{caps:?}");
    }
}
