//! Real boxes: memory other processes already hold on each GPU, and boxes of mixed GPUs (a
//! llama.cpp split over a 3090 and a 3060; vLLM refusing a tensor-parallel group of different
//! cards).

use crate::{
    estimate, fit::Need, fit::StartRefusal, link::PageSettings, llamacpp::LlamaDevice,
    local::local_machine, local::local_settings, local::LocalOverview, scenario::Server, Gpu, Job,
    ModelChoice, Scenario, WeightFormat, MIB,
};

fn local_pair(last: Gpu, held_mib: u64) -> Scenario {
    Scenario {
        job: Job::Local,
        model: ModelChoice::Preset("llama-3.1-8b"),
        weights: WeightFormat::GgufQ4KM,
        gpu: Gpu::Rtx3090,
        gpus: 2,
        last_gpu: Some(last),
        held_mib,
        ..Scenario::default()
    }
}

fn served(f: impl FnOnce(&mut Scenario)) -> (Scenario, Need) {
    let mut s = Scenario {
        job: Job::Serving,
        model: ModelChoice::Preset("llama-3.1-8b"),
        gpu: Gpu::Rtx4090,
        ..Scenario::default()
    };
    f(&mut s);
    let b = estimate(&s).unwrap();
    let need = Need::on(&s, &b, s.gpu);
    (s, need)
}

#[test]
fn llama_cpp_splits_a_3090_and_a_3060_by_their_free_memory_not_evenly() {
    // free: 24,146 MiB on the 3090 (vLLM's log), 11,889 MiB on the 3060 (llama.cpp's breakdown)
    let s = local_pair(Gpu::Rtx3060, 0);
    assert_eq!(local_settings(&s).tensor_split, vec![24_146.0, 11_889.0]);
    // 500 MiB held on each leaves 23,646 and 11,389
    let held = local_pair(Gpu::Rtx3060, 500);
    assert_eq!(local_settings(&held).tensor_split, vec![23_646.0, 11_389.0]);
    let machine = local_machine(&held);
    assert_eq!(machine.free_per_gpu(), vec![23_646 * MIB, 11_389 * MIB]);
    // each card is checked against its own free memory
    let o = LocalOverview::compute(&held).unwrap();
    let limit = |i| {
        o.fit
            .iter()
            .find(|f| f.device == LlamaDevice::Gpu(i))
            .and_then(|f| f.limit)
    };
    assert_eq!(limit(0), Some(23_646 * MIB));
    assert_eq!(limit(1), Some(11_389 * MIB));
    // the 3090 takes layer il while il / 33 < 23,646 / 35,035 = 0.675: layers 0 to 22 (23), the
    // 3060 layers 23 to 31 (9) and the output
    let on = |i| {
        let layers = &o.plan.placement.layers;
        layers.iter().filter(|d| **d == LlamaDevice::Gpu(i)).count()
    };
    assert_eq!((on(0), on(1)), (23, 9));
    assert_eq!(o.plan.placement.output, LlamaDevice::Gpu(1));
}

#[test]
fn two_cards_alike_still_split_evenly_and_typed_shares_win() {
    let alike = Scenario {
        last_gpu: None,
        ..local_pair(Gpu::Rtx3090, 0)
    };
    assert_eq!(local_settings(&alike).tensor_split, vec![1.0, 1.0]);
    let typed = Scenario {
        tensor_split: crate::llamacpp::TensorShares::parse("3,1").unwrap(),
        ..local_pair(Gpu::Rtx3060, 0)
    };
    assert_eq!(local_settings(&typed).tensor_split, vec![3.0, 1.0]);
}

#[test]
fn vllm_v1_will_not_start_when_other_processes_hold_more_than_utilization_leaves() {
    // RTX 4090: 24,119 MiB visible; 90 % is 21,707.1 MiB, so 2,411.9 MiB may be held by others
    let (_, fine) = served(|s| s.held_mib = 2_400);
    assert_eq!(fine.refusal, None);
    let (_, refused) = served(|s| s.held_mib = 2_500);
    let free = (24_119 - 2_500) * MIB;
    assert!(matches!(
        refused.refusal,
        Some(StartRefusal::FreeBelowRequested { free: f, .. }) if f == free
    ));
    assert!(!refused.fits());
    // V0 has no such check
    let (_, v0) = served(|s| {
        s.held_mib = 2_500;
        s.vllm = crate::scenario::VllmVersion::V0;
    });
    assert_eq!(v0.refusal, None);
}

#[test]
fn sglang_and_a_training_job_have_what_other_processes_leave() {
    let (_, free) = served(|s| s.server = Server::Sglang);
    let (_, held) = served(|s| {
        s.server = Server::Sglang;
        s.held_mib = 1_000;
    });
    // mem_fraction_static × (free before loading − 1,000 MiB)
    assert!(held.budget < free.budget);
    let lora = Scenario {
        job: Job::Lora,
        held_mib: 1_000,
        ..Scenario::default()
    };
    let b = estimate(&lora).unwrap();
    let need = Need::on(&lora, &b, lora.gpu);
    assert_eq!(need.budget, lora.gpu.visible_bytes() - 1_000 * MIB);
}

#[test]
fn vllm_refuses_a_tensor_parallel_group_of_a_4090_and_a_3090() {
    let (s, need) = served(|s| {
        s.gpus = 2;
        s.tp = 2;
        s.last_gpu = Some(Gpu::Rtx3090);
    });
    assert_eq!(
        need.refusal,
        Some(StartRefusal::MixedTensorParallel {
            gpu: Gpu::Rtx4090,
            other: Gpu::Rtx3090
        })
    );
    // the setting means nothing without a tensor-parallel group: one rank per replica runs
    let (_, replicas) = served(|s| {
        s.gpus = 2;
        s.last_gpu = Some(Gpu::Rtx3090);
    });
    assert_eq!(replicas.refusal, None);
    // the link carries the last GPU and the amount held
    let t = Scenario { held_mib: 700, ..s };
    let link = crate::link::encode(&t, &PageSettings::default());
    assert!(
        link.contains("g2=rtx3090") && link.contains("held=700"),
        "{link}"
    );
    assert_eq!(crate::link::decode(&link).scenario, t);
}
