//! llama-server with a draft model (`-md`, `-cd`, `-ngld`): the draft's weights once, its own
//! context (F16 caches, one sequence) once per slot.

use vram_engine::*;

fn header(id: &str) -> GgufHeader {
    let a = find_preset(id).unwrap().architecture();
    synthesize_gguf(&a, WeightFormat::GgufQ4KM).unwrap()
}

fn settings() -> LlamaSettings {
    LlamaSettings {
        context: Some(8_192),
        parallel: 2,
        ..LlamaSettings::default()
    }
}

#[test]
fn a_draft_model_keeps_its_weights_once_and_a_context_per_slot() {
    let (target, draft) = (header("llama-3.1-8b"), header("llama-3.2-1b"));
    let alone = plan_llama(&target, &settings(), Backend::Cuda).unwrap();
    let plan = plan_with_draft(
        &target,
        &draft,
        &settings(),
        LlamaDraft::default(),
        Backend::Cuda,
    )
    .unwrap();
    let drafted = plan.draft.as_ref().unwrap();
    // -cd 0: the target's 8,192 / 2 = 4,096 cells per sequence, one sequence
    assert_eq!(drafted.sizes.n_ctx, 4_096);
    let gpu = LlamaDevice::Gpu(0);
    let d = drafted.device(gpu).unwrap();
    // Llama 3.2 1B's cache in F16 whatever the target's: 4,096 cells × 16 layers × 2 × 8 KV heads
    // × 64 × 2 B
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
    let (target, draft) = (header("llama-3.1-8b"), header("llama-3.2-1b"));
    let own = LlamaDraft {
        gpu_layers: Some(0),
        context: Some(2_048),
    };
    let plan = plan_with_draft(&target, &draft, &settings(), own, Backend::Cuda).unwrap();
    let drafted = plan.draft.as_ref().unwrap();
    assert_eq!(drafted.sizes.n_ctx, 2_048);
    // -ngld 0: the draft's layers and cache stay in host memory
    let gpu = drafted.device(LlamaDevice::Gpu(0)).unwrap();
    assert_eq!((gpu.layers, gpu.kv), (0, 0));
    assert!(plan.host().draft > drafted.host().model);
}
