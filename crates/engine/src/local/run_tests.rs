//! A llama.cpp / Ollama run from a scenario: presets quantized as llama.cpp's quantizer would,
//! the page's settings through the registry and the link, and the overview the page shows.

use crate::{
    link::PageSettings, llamacpp::read_gguf, llamacpp::GgmlType, llamacpp::GgufSummary,
    llamacpp::LlamaDevice, local::local_header, local::LocalOverview, scenario::GgufFile,
    scenario::LocalMachine, Job, Scenario, WeightFormat,
};

fn local(weights: WeightFormat) -> Scenario {
    Scenario {
        job: Job::Local,
        weights,
        ..Scenario::default()
    }
}

fn type_of(s: &Scenario, name: &str) -> GgmlType {
    local_header(s).unwrap().tensor(name).unwrap().ggml_type()
}

#[test]
fn q4_k_m_gives_attn_v_and_ffn_down_q6_k_where_use_more_bits_says() {
    let s = local(WeightFormat::GgufQ4KM);
    // use_more_bits(i, 32): i < 4, i >= 28, (i - 4) % 3 == 2
    for il in 0..32u64 {
        let more = !(4..28).contains(&il) || (il as i64 - 4).rem_euclid(3) == 2;
        let want = if more { GgmlType::Q6K } else { GgmlType::Q4K };
        assert_eq!(
            type_of(&s, &format!("blk.{il}.attn_v.weight")),
            want,
            "{il}"
        );
        assert_eq!(
            type_of(&s, &format!("blk.{il}.ffn_down.weight")),
            want,
            "{il}"
        );
        assert_eq!(
            type_of(&s, &format!("blk.{il}.attn_q.weight")),
            GgmlType::Q4K
        );
    }
    assert_eq!(type_of(&s, "output.weight"), GgmlType::Q6K);
    assert_eq!(type_of(&s, "token_embd.weight"), GgmlType::Q4K);
    assert_eq!(type_of(&s, "blk.0.attn_norm.weight"), GgmlType::F32);
}

#[test]
fn llama_3_1_8b_q4_k_m_weighs_what_the_published_file_does() {
    // bartowski/Meta-Llama-3.1-8B-Instruct-GGUF on Hugging Face lists the Q4_K_M file at 4.92 GB
    let bytes = local_header(&local(WeightFormat::GgufQ4KM))
        .unwrap()
        .tensor_bytes();
    let published = 4.92e9;
    assert!(
        (bytes as f64 / published - 1.0).abs() < 0.01,
        "{bytes} B against {published}"
    );
}

#[test]
fn q8_0_keeps_the_output_q8_0_and_f16_quantizes_nothing() {
    let q8 = local(WeightFormat::GgufQ8_0);
    assert_eq!(type_of(&q8, "output.weight"), GgmlType::Q8_0);
    assert_eq!(type_of(&q8, "blk.3.attn_v.weight"), GgmlType::Q8_0);
    let f16 = local(WeightFormat::Bf16);
    assert_eq!(type_of(&f16, "output.weight"), GgmlType::F16);
    assert_eq!(type_of(&f16, "blk.0.ffn_norm.weight"), GgmlType::F32);
}

#[test]
fn more_layers_on_the_gpu_move_memory_from_ram_to_vram() {
    let at = |ngl| {
        let s = Scenario {
            ngl,
            ..local(WeightFormat::GgufQ4KM)
        };
        let o = LocalOverview::compute(&s).unwrap();
        let gpu = o.plan.device(LlamaDevice::Gpu(0)).unwrap().total();
        (gpu, o.plan.host().total())
    };
    let (few_gpu, few_host) = at(4);
    let (many_gpu, many_host) = at(30);
    assert!(many_gpu > few_gpu + 2_000_000_000, "{few_gpu} → {many_gpu}");
    assert!(many_host < few_host, "{few_host} → {many_host}");
}

#[test]
fn a_mac_is_judged_against_its_working_set_not_its_memory() {
    let s = Scenario {
        machine: LocalMachine::Mac,
        mac_chip: "M2",
        mac_memory_gb: 16,
        weights: WeightFormat::Bf16,
        ..local(WeightFormat::Bf16)
    };
    // 16 GB: the working set is 2/3 in whole 16 KiB Metal pages (10922.67 MiB, as macOS reports
    // it), about 10.7 GiB; an 8B model in f16 needs about 15 GiB
    let o = LocalOverview::compute(&s).unwrap();
    let gpu = o
        .fit
        .iter()
        .find(|f| f.device == LlamaDevice::Gpu(0))
        .unwrap();
    assert_eq!(
        gpu.limit,
        Some((16 * (1 << 30) / 3 * 2_u64).next_multiple_of(16 << 10))
    );
    assert!(!o.fits);
    let q4 = Scenario {
        weights: WeightFormat::GgufQ4KM,
        ..s.clone()
    };
    assert!(LocalOverview::compute(&q4).unwrap().fits);
    // raising iogpu.wired_limit_mb raises the limit
    let wired = Scenario {
        wired_limit_mb: 14_000,
        ..s
    };
    let o = LocalOverview::compute(&wired).unwrap();
    assert_eq!(o.fit[1].limit, Some(14_000 * (1 << 20)));
}

#[test]
fn the_speed_bound_falls_as_layers_leave_the_gpu() {
    let o = LocalOverview::compute(&local(WeightFormat::GgufQ4KM)).unwrap();
    let first = o.speed_by_layers.first().unwrap().1;
    let last = o.speed_by_layers.last().unwrap().1;
    assert_eq!(o.speed_by_layers.len(), 34);
    assert!(last > 5.0 * first, "{first} → {last}");
}

#[test]
fn a_local_run_with_a_picked_file_restores_from_its_link() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gguf/llama-moe-q4_0.header.gguf"
    ))
    .unwrap();
    let summary = GgufSummary::of(&read_gguf(&bytes).unwrap()).unwrap();
    let s = Scenario {
        ngl: 3,
        n_ctx: 8192,
        n_parallel: 2,
        cache_k: GgmlType::Q8_0,
        flash_attn: false,
        mmap: false,
        cpu_moe: 1,
        machine: LocalMachine::Cpu,
        ram_gib: 32,
        gguf: Some(Box::new(GgufFile {
            name: "my model (q4).gguf".into(),
            summary,
            source: None,
        })),
        ..local(WeightFormat::Bf16)
    };
    let link = crate::link::encode(&s, &PageSettings::default());
    let opened = crate::link::decode(&link);
    assert!(opened.notices.is_empty(), "{:?}", opened.notices);
    assert_eq!(opened.scenario, s);
    assert_eq!(
        LocalOverview::compute(&opened.scenario),
        LocalOverview::compute(&s)
    );
}

#[test]
fn a_broken_model_summary_in_a_link_is_named_and_ignored() {
    let opened = crate::link::decode("?v=1&j=local&gg=llama~L1~x.weight,33,q4_0,");
    assert_eq!(opened.scenario.gguf, None);
    assert_eq!(opened.notices.len(), 1, "{:?}", opened.notices);
}

#[test]
fn the_best_preset_quant_is_the_largest_that_fits_whole_on_the_gpu() {
    let best = |machine, mac_memory_gb| {
        let s = Scenario {
            machine,
            mac_chip: "M2",
            mac_memory_gb,
            ..local(WeightFormat::GgufQ4KM)
        };
        LocalOverview::compute(&s).unwrap().best_format
    };
    // Llama 3.1 8B: f16 puts about 14.8 GiB on the GPU (token_embd stays in RAM), Q8_0 about 8;
    // (Q4_K_M 4.92 GiB with its cache and buffers); an M2 GPU may wire 2/3 of its memory:
    // 10.67 GiB of 16 GB, 5.33 of 8 GB
    assert_eq!(best(LocalMachine::Gpu, 16), Some(WeightFormat::Bf16));
    assert_eq!(best(LocalMachine::Mac, 16), Some(WeightFormat::GgufQ8_0));
    assert_eq!(best(LocalMachine::Mac, 8), Some(WeightFormat::GgufQ4KM));
}

#[test]
fn expert_tensors_are_told_from_their_names() {
    for name in [
        "blk.0.ffn_up_exps.weight",
        "blk.3.ffn_gate_up_exps.weight",
        "blk.9.ffn_down_chexps.weight",
        "blk.1.ffn_gate_exps.bias",
    ] {
        assert!(crate::gguf::is_expert(name), "{name}");
    }
    for name in [
        "blk.0.ffn_up.weight",
        "blk.0.ffn_up_shexp.weight",
        "blk.0.ffn_gate_inp.weight",
        "blk.0.attn_q.weight",
        "ffn_up_exps",
    ] {
        assert!(!crate::gguf::is_expert(name), "{name}");
    }
}

#[test]
fn a_unified_cache_and_a_full_sliding_window_cache_travel_in_the_link_and_change_the_kv() {
    let mut s = local(WeightFormat::GgufQ4KM);
    s.n_parallel = 4;
    s.n_ctx = 8_192;
    let split = LocalOverview::compute(&s).unwrap();
    s.kv_unified = true;
    s.swa_full = true;
    let link = crate::link::encode(&s, &PageSettings::default());
    assert!(link.contains("kvu=1") && link.contains("swf=1"), "{link}");
    let back = crate::link::decode(&link).scenario;
    assert!(back.kv_unified && back.swa_full);
    let unified = LocalOverview::compute(&back).unwrap();
    // one stream of 8,192 cells rather than four of 2,048: the same cells in all
    assert_eq!(unified.plan.sizes.streams, 1);
    assert_eq!(split.plan.sizes.streams, 4);
    assert_eq!(unified.plan.sizes.n_ctx_seq, 4 * split.plan.sizes.n_ctx_seq);
    assert!(unified.settings.kv_unified && unified.settings.swa_full);
}

#[test]
fn a_llama_cpp_run_starts_with_q4_k_m_as_ollama_pulls_and_keeps_a_chosen_format() {
    // a link that names only the job opens the Q4_K_M build; one that names bf16 keeps it
    assert_eq!(
        crate::link::decode("?v=1&j=local").scenario.weights,
        WeightFormat::GgufQ4KM
    );
    let chosen = crate::link::decode("?v=1&w=bf16&j=local").scenario;
    assert_eq!(chosen.weights, WeightFormat::Bf16);
    // and the link of a Q4_K_M run needs no `w=`, while other jobs keep 16-bit weights
    let link = crate::link::encode(&Scenario::for_job(Job::Local), &PageSettings::default());
    assert!(!link.contains("w="), "{link}");
    assert_eq!(
        crate::link::decode("?v=1&j=serve").scenario.weights,
        WeightFormat::Bf16
    );
    // moving to the llama.cpp job from a default run takes its default; a chosen format stays
    let mut s = Scenario::default();
    s.switch_job(Job::Local);
    assert_eq!(s.weights, WeightFormat::GgufQ4KM);
    let mut q8 = Scenario {
        weights: WeightFormat::GgufQ8_0,
        ..Scenario::default()
    };
    q8.switch_job(Job::Local);
    assert_eq!(q8.weights, WeightFormat::GgufQ8_0);
}
