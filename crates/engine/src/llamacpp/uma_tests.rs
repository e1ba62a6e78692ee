//! Unified-memory PCs beside the Macs (DGX Spark, Ryzen AI Max+ 395) in a llama.cpp run: the
//! link's settings, the GPU's limit each driver applies, and the host sharing the same memory.

use super::uma::SPARK_OS_BYTES;
use crate::{
    llamacpp::LlamaDevice, llamacpp::Machine, llamacpp::UmaKind, local::LocalOverview,
    scenario::LocalMachine, Job, ModelChoice, Scenario, WeightFormat, GIB, MIB,
};

fn uma_run(kind: UmaKind, carve_out_mib: u64, gtt_limit_mib: u64) -> Scenario {
    Scenario {
        job: Job::Local,
        machine: LocalMachine::Uma,
        uma_kind: kind,
        uma_memory_gb: 128,
        uma_carve_out_mib: carve_out_mib,
        gtt_limit_mib,
        model: ModelChoice::Preset("llama-3.1-70b"),
        weights: WeightFormat::GgufQ4KM,
        ngl: 99,
        n_ctx: 8_192,
        ..Scenario::default()
    }
}

fn gpu_limit(o: &LocalOverview) -> u64 {
    o.fit
        .iter()
        .find(|f| matches!(f.device, LlamaDevice::Gpu(_)))
        .and_then(|f| f.limit)
        .unwrap()
}

#[test]
fn a_link_opens_a_ryzen_ai_max_with_its_carve_out_and_gtt_limit() {
    let opened =
        crate::link::decode("?v=1&j=local&mch=uma&ub=ai-max-395&ugb=128&uvr=4096&gtt=98304");
    let s = opened.scenario;
    assert_eq!(s.machine, LocalMachine::Uma);
    assert_eq!(s.uma_kind, UmaKind::RyzenAiMax395);
    assert_eq!((s.uma_carve_out_mib, s.gtt_limit_mib), (4_096, 98_304));
}

#[test]
fn llama_3_1_70b_q4_k_m_fits_a_dgx_spark_whole_on_its_gpu() {
    let o = LocalOverview::compute(&uma_run(UmaKind::DgxSpark, 0, 0)).unwrap();
    assert!(matches!(o.machine, Machine::Uma(_)));
    // the GPU may take all 128,501,256,192 B DGX OS sees (llama.cpp reads MemAvailable)
    assert_eq!(gpu_limit(&o), SPARK_OS_BYTES);
    // ~40 GiB of Q4_K_M weights and 2.5 GiB of KV at 8k context
    assert!(o.fits, "{:?}", o.fit);
}

#[test]
fn a_ryzen_ai_max_on_the_kernels_default_gtt_maps_half_its_ram() {
    // 128 GiB less the 512 MiB carve-out: 130,560 MiB; TTM's default GTT is half, 65,280 MiB
    let o = LocalOverview::compute(&uma_run(UmaKind::RyzenAiMax395, 512, 0)).unwrap();
    assert_eq!(gpu_limit(&o), 65_280 * MIB);
    // ttm.pages_limit for 96 GiB raises it: 96 × 1,024 = 98,304 MiB
    let raised = LocalOverview::compute(&uma_run(UmaKind::RyzenAiMax395, 512, 98_304)).unwrap();
    assert_eq!(gpu_limit(&raised), 96 * GIB);
    // the host's limit is what the OS has left once the GPU's buffers are mapped from it
    let host = raised
        .fit
        .iter()
        .find(|f| f.device == LlamaDevice::Host)
        .unwrap();
    let gpu_need: u64 = raised
        .fit
        .iter()
        .filter(|f| f.device != LlamaDevice::Host)
        .map(|f| f.need)
        .sum();
    assert_eq!(host.limit, Some(130_560 * MIB - gpu_need));
}
