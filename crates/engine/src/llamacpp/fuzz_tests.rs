//! Fuzzing llama.cpp's settings: arbitrary text into the flag parsers, arbitrary numbers into
//! the plan on every GGUF fixture. Nothing panics; what is accepted adds up.
//! `FUZZ_CASES` sets the cases per target (default 500).

use std::path::Path;

use super::kv::CELL_PAD;
use super::settings::MAX_CONTEXT;
use crate::llamacpp::*;
use proptest::prelude::*;
use proptest::sample::select;

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500)
}

fn headers() -> Vec<GgufHeader> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gguf");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| read_gguf(&std::fs::read(f).unwrap()).unwrap())
        .collect()
}

fn arb_count() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..8,
        0u64..70_000,
        Just(MAX_CONTEXT),
        Just(MAX_CONTEXT + 1),
        any::<u64>()
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn a_tensor_split_never_panics_and_always_names_a_gpu(text in ".{0,40}") {
        if let Some(shares) = TensorShares::parse(&text) {
            let split = shares.for_gpus(shares.gpus().max(1));
            prop_assert!(!split.is_empty() && split.len() <= MAX_GPUS);
            prop_assert!(split.iter().any(|&x| x > 0.0));
        }
    }

    #[test]
    fn any_settings_plan_or_refuse_and_the_parts_add_up(
        model in 0usize..8,
        ngl in prop::option::of(arb_count()),
        context in prop::option::of(arb_count()),
        parallel in arb_count(),
        unified in any::<bool>(),
        batch in arb_count(),
        ubatch in arb_count(),
        k in select(CACHE_TYPES.to_vec()),
        v in select(CACHE_TYPES.to_vec()),
        flash_attn in any::<bool>(),
        cpu_moe in arb_count(),
        split in prop::collection::vec(0.0f32..4.0, 1..4),
        backend in select(vec![Backend::Cuda, Backend::Metal, Backend::CpuOnly]),
    ) {
        let header = &headers()[model];
        let settings = LlamaSettings {
            gpu_layers: ngl,
            context,
            parallel,
            kv_unified: unified,
            batch,
            ubatch,
            cache_k: k,
            cache_v: v,
            flash_attn,
            cpu_moe_layers: cpu_moe,
            tensor_split: split,
            ..LlamaSettings::default()
        };
        if let Ok(plan) = plan_llama(header, &settings, backend) {
            // a GPU buffer wrapping the mapped file may span host tensors: counted once in the total
            let parts: u64 = plan.devices.iter().map(|(_, b)| b.model + b.kv + b.compute + b.output - b.shared).sum();
            prop_assert_eq!(parts, plan.total());
            prop_assert!(plan.devices.iter().all(|(_, b)| b.shared <= b.model));
            let kv: u64 = plan.devices.iter().map(|(_, b)| b.kv).sum();
            let caches: u64 = plan.kv_caches.iter().map(|c| c.bytes()).sum();
            prop_assert!(kv >= caches);
            prop_assert!(plan.sizes.n_ubatch <= plan.sizes.n_batch);
            prop_assert!(plan.sizes.n_ctx_seq % CELL_PAD == 0);
        }
    }
}
