//! The GPU catalog: the memory each card really shows (nvidia-smi / rocm-smi total, MiB).

use crate::named::named_enum;
use crate::units::MIB;

named_enum! {
    /// A GPU model, with the capacity the driver reports.
    pub enum Gpu {
        T4 => ("t4", "Tesla T4 16GB"),
        Rtx4080 => ("rtx4080", "RTX 4080 16GB"),
        A10 => ("a10", "A10 / A10G 24GB"),
        L4 => ("l4", "L4 24GB"),
        Rtx4090 => ("rtx4090", "RTX 4090 24GB"),
        Rtx4090D => ("rtx4090d", "RTX 4090 D 24GB"),
        Rtx3090 => ("rtx3090", "RTX 3090 24GB"),
        Rtx5090 => ("rtx5090", "RTX 5090 32GB"),
        V100_32 => ("v100-32", "V100 32GB"),
        A100_40 => ("a100-40", "A100 40GB"),
        L40S => ("l40s", "L40S 48GB"),
        L20 => ("l20", "L20 48GB"),
        RtxA6000 => ("a6000", "RTX A6000 48GB"),
        H100 => ("h100", "H100 80GB"),
        H800 => ("h800", "H800 80GB"),
        A100_80 => ("a100-80", "A100 80GB"),
        A800 => ("a800", "A800 80GB"),
        H100Nvl => ("h100-nvl", "H100 NVL 94GB"),
        H20 => ("h20", "H20 96GB"),
        H200 => ("h200", "H200 141GB"),
        B200 => ("b200", "B200 180GB"),
        Mi300x => ("mi300x", "MI300X 192GB"),
    }
}

impl Gpu {
    /// Total memory as the driver reports it, in MiB.
    pub fn mib(self) -> u64 {
        match self {
            Gpu::T4 => 15_360,
            Gpu::Rtx4080 => 16_376,
            Gpu::V100_32 => 32_768,
            Gpu::L4 => 23_034,
            Gpu::A10 => 23_028,
            Gpu::Rtx3090 => 24_576,
            Gpu::Rtx4090 | Gpu::Rtx4090D => 24_564,
            Gpu::Rtx5090 => 32_607,
            Gpu::A100_40 => 40_960,
            Gpu::L40S | Gpu::L20 => 46_068,
            Gpu::RtxA6000 => 49_140,
            Gpu::A100_80 | Gpu::A800 => 81_920,
            Gpu::H100 | Gpu::H800 => 81_559,
            Gpu::H20 => 97_871,
            Gpu::H100Nvl => 95_830,
            Gpu::H200 => 143_771,
            Gpu::B200 => 183_359,
            Gpu::Mi300x => 196_592,
        }
    }

    /// Total memory in bytes.
    pub fn bytes(self) -> u64 {
        self.mib() * MIB
    }

    /// The total the CUDA driver reports to a process (`cudaMemGetInfo`,
    /// `torch.cuda.mem_get_info()[1]`), in MiB: below nvidia-smi's figure by what the driver keeps
    /// for itself. vLLM's budget is `gpu_memory_utilization` × this total.
    ///
    /// Measured where a public log prints it (vLLM's `total_gpu_memory`), else the catalog figure
    /// less [`DRIVER_KEEPS_MIB`].
    pub fn visible_mib(self) -> u64 {
        match self {
            // vLLM PR #10511 and PR #12126 (H100 80GB): "total_gpu_memory (79.22GiB)"
            Gpu::H100 => 81_121,
            // vLLM issue #10517 (RTX 3090): "total_gpu_memory (23.58GiB)"
            Gpu::Rtx3090 => 24_146,
            // vLLM issue #16570 (4 × A100 40GB): "total_gpu_memory (39.38GiB)"
            Gpu::A100_40 => 40_325,
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
            Gpu::Rtx4080 | Gpu::Rtx4090 | Gpu::Rtx4090D | Gpu::Rtx3090 | Gpu::Rtx5090 => {
                Interconnect::PcieHost
            }
            Gpu::T4 | Gpu::A10 | Gpu::L4 | Gpu::L40S | Gpu::L20 => Interconnect::PcieP2p,
            Gpu::V100_32 | Gpu::RtxA6000 | Gpu::H100Nvl => Interconnect::NvLink,
            Gpu::A100_40
            | Gpu::A100_80
            | Gpu::A800
            | Gpu::H100
            | Gpu::H800
            | Gpu::H20
            | Gpu::H200
            | Gpu::B200
            | Gpu::Mi300x => Interconnect::Fabric,
        }
    }

    /// Whether NCCL runs NVLink SHARP (NVLS) here: NVSwitch systems from Hopper on. Not A100
    /// ("NVLS was a new feature of H100", NVIDIA/nccl-tests issue #228) nor H800 (its NCCL log
    /// prints "0 nvls channels", NVIDIA/nccl issue #892).
    pub fn has_nvls(self) -> bool {
        matches!(self, Gpu::H100 | Gpu::H20 | Gpu::H200 | Gpu::B200)
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
/// (pegainfer issue #422, "total GPU memory 24112 MiB"); A100 40GB 40,960 − 40,325 = 635 MiB.
/// The median.
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
    fn the_driver_shows_a_process_less_than_nvidia_smi_on_every_card() {
        for g in Gpu::ALL {
            let kept = g.mib() - g.visible_mib();
            assert!((400..=700).contains(&kept), "{}: {kept}", g.key());
        }
        assert_eq!(Gpu::A100_80.visible_mib(), 81_920 - DRIVER_KEEPS_MIB);
    }

    #[test]
    fn geforce_cards_have_no_peer_to_peer_and_only_hopper_switches_run_nvls() {
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
