//! llama-server with a draft model (`-md`, `-cd`, `-ngld`): the draft's weights once, its own
//! context (F16 caches, one sequence) once per slot.

use std::sync::Arc;

use vram_engine::*;
use vram_engine::{llamacpp::*, local::*};

fn header(id: &str) -> GgufHeader {
    let a = vram_engine::model::presets::find(id)
        .unwrap()
        .architecture();
    synthesize_gguf(&a, WeightFormat::GgufQ4KM).unwrap()
}

fn settings(draft: Option<LlamaDraft>) -> LlamaSettings {
    LlamaSettings {
        context: Some(8_192),
        parallel: 2,
        draft,
        ..LlamaSettings::default()
    }
}

fn draft(gpu_layers: Option<u64>, context: Option<u64>) -> Option<LlamaDraft> {
    Some(LlamaDraft {
        file: "Llama-3.2-1B.gguf".into(),
        header: Arc::new(header("llama-3.2-1b")),
        gpu_layers,
        context,
    })
}

#[test]
fn a_draft_model_keeps_its_weights_once_and_a_context_per_slot() {
    let target = header("llama-3.1-8b");
    let alone = plan_llama(&target, &settings(None), Backend::Cuda).unwrap();
    let plan = plan_llama(&target, &settings(draft(None, None)), Backend::Cuda).unwrap();
    let drafted = plan.draft.as_ref().unwrap();
    // -cd 0: the target's 8,192 / 2 = 4,096 cells per sequence, one sequence
    assert_eq!(drafted.sizes.n_ctx, 4_096);
    let gpu = LlamaDevice::Gpu(0);
    let d = drafted.device(gpu).unwrap();
    // Llama 3.2 1B's cache in F16 whatever the target's: 4,096 cells × 16 layers × 2 × 8 KV
    // heads × 64 × 2 B
    assert_eq!(d.kv, 4_096 * 16 * 2 * 8 * 64 * 2);
    let on_gpu = plan.device(gpu).unwrap();
    assert_eq!(on_gpu.draft, d.model + 2 * (d.kv + d.compute + d.output));
    assert_eq!(
        on_gpu.total(),
        alone.device(gpu).unwrap().total() + on_gpu.draft
    );
}

#[test]
fn the_draft_s_own_context_and_gpu_layers_are_its_own() {
    let target = header("llama-3.1-8b");
    let plan = plan_llama(
        &target,
        &settings(draft(Some(0), Some(2_048))),
        Backend::Cuda,
    )
    .unwrap();
    let drafted = plan.draft.as_ref().unwrap();
    assert_eq!(drafted.sizes.n_ctx, 2_048);
    // -ngld 0: the draft's layers and cache stay in host memory
    let gpu = drafted.device(LlamaDevice::Gpu(0)).unwrap();
    assert_eq!((gpu.layers, gpu.kv), (0, 0));
    assert!(plan.host().draft > drafted.host().model);
}

#[test]
fn a_local_job_with_a_draft_names_it_in_the_llama_server_command_and_fits_less() {
    let open = |link: &str| {
        let d = vram_engine::link::decode(link);
        assert!(d.notices.is_empty(), "{:?}", d.notices);
        LocalOverview::compute(&d.scenario).unwrap()
    };
    let plain = open("?v=1&m=llama-3.1-8b&j=local&w=q4_k_m");
    let drafted = open("?v=1&m=llama-3.1-8b&j=local&w=q4_k_m&md=llama-3.2-1b&cd=1024&ngld=8");
    let flags = &drafted.commands.llama_server;
    for (flag, value) in [
        ("-md", "Llama-3.2-1B.gguf"),
        ("-ngld", "8"),
        ("-cd", "1024"),
    ] {
        assert!(
            flags.iter().any(|(f, v)| *f == flag && v == value),
            "{flag} {value} in {flags:?}"
        );
    }
    assert!(drafted.plan.devices[1].1.total() > plain.plan.devices[1].1.total());
    assert!(drafted.max_context <= plain.max_context);
}
