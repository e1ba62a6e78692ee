//! Ollama's defaults as a preset of the llama.cpp settings (`with_ollama_defaults`, after
//! ollama/ollama v0.30+): the context its GPU memory picks, capped at the model's, one request,
//! the batch that goes with the context, flash attention and f16 caches, as many layers as fit.

use super::ollama::{ollama_batch, ollama_context};
use crate::{
    llamacpp::max_gpu_layers, llamacpp::GgmlType, local::local_header, local::local_machine,
    local::local_settings, local::with_ollama_defaults, scenario::LocalMachine, Gpu, Job, Scenario,
    WeightFormat, GIB,
};

fn run(gpu: Gpu, gpus: u64) -> Scenario {
    Scenario {
        job: Job::Local,
        weights: WeightFormat::GgufQ4KM,
        gpu,
        gpus,
        n_parallel: 4,
        n_batch: 4096,
        flash_attn: false,
        cache_k: GgmlType::Q8_0,
        ..Scenario::default()
    }
}

fn ollama(s: &Scenario) -> Scenario {
    with_ollama_defaults(s, &local_header(s).unwrap())
}

#[test]
fn the_context_follows_the_gpus_memory_in_ollamas_three_tiers() {
    assert_eq!(ollama_context(12 * GIB), 4_096);
    assert_eq!(ollama_context(23 * GIB), 32_768);
    assert_eq!(ollama_context(47 * GIB), 262_144);
    // an RTX 4090 reports 23.55 GiB to a process: the middle tier
    assert_eq!(ollama(&run(Gpu::T4, 1)).n_ctx, 4_096);
    assert_eq!(ollama(&run(Gpu::Rtx4090, 1)).n_ctx, 32_768);
}

#[test]
fn the_top_tier_is_capped_at_the_context_the_model_was_trained_for() {
    // Llama 3.1 8B: 131,072 positions, under the 262,144 that two 24 GB cards pick
    let two = ollama(&run(Gpu::Rtx4090, 2));
    assert_eq!(two.n_ctx, 131_072);
    assert_eq!((two.n_batch, two.n_ubatch), (2_048, 2_048));
}

#[test]
fn one_request_the_batch_of_its_context_flash_attention_and_f16_caches() {
    let o = ollama(&run(Gpu::Rtx4090, 1));
    assert_eq!(o.n_parallel, 1);
    assert_eq!((o.n_batch, o.n_ubatch), (ollama_batch(32_768), 1_024));
    assert!(o.flash_attn);
    assert_eq!((o.cache_k, o.cache_v), (GgmlType::F16, GgmlType::F16));
    assert_eq!(ollama_batch(4_096), 512);
}

#[test]
fn the_layers_are_as_many_as_fit_and_the_preset_applied_twice_is_the_same() {
    for gpu in [Gpu::T4, Gpu::Rtx4090] {
        let o = ollama(&run(gpu, 1));
        let settings = crate::llamacpp::LlamaSettings {
            gpu_layers: None,
            ..local_settings(&o)
        };
        let fits =
            max_gpu_layers(&local_header(&o).unwrap(), &settings, &local_machine(&o)).unwrap();
        assert_eq!(Some(o.ngl), fits, "{gpu:?}");
        assert_eq!(ollama(&o), o, "{gpu:?}");
    }
}

#[test]
fn the_cpu_alone_gets_no_layers_off_the_host_and_no_mmap() {
    let cpu = Scenario {
        machine: LocalMachine::Cpu,
        ..run(Gpu::Rtx4090, 1)
    };
    let o = ollama(&cpu);
    assert_eq!((o.ngl, o.mmap, o.n_ctx), (0, false, 4_096));
}

#[test]
fn a_mac_picks_its_tier_from_the_gpu_working_set() {
    let mac = |chip, gb| Scenario {
        machine: LocalMachine::Mac,
        mac_chip: chip,
        mac_memory_gb: gb,
        ..run(Gpu::Rtx4090, 1)
    };
    // 16 GB: the GPU may wire 2/3 of it, 10.67 GiB: the lowest tier
    assert_eq!(ollama(&mac("M4", 16)).n_ctx, 4_096);
    // 36 GB: 2/3 of it, 24 GiB: the middle tier; 48 GB: 3/4 of it, 36 GiB, still the middle one
    assert_eq!(ollama(&mac("M4-MAX", 36)).n_ctx, 32_768);
    assert_eq!(ollama(&mac("M4-MAX", 48)).n_ctx, 32_768);
    // 128 GB: 96 GiB wired, the top tier, capped at the model's 131,072
    assert_eq!(ollama(&mac("M4-MAX", 128)).n_ctx, 131_072);
}
