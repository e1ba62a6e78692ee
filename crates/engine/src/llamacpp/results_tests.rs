//! The llama.cpp plan against llama.cpp's own printed buffers (tools/llamacpp/results.json): the
//! context sizes and every KV cache exactly, the model buffer to the printed 0.01 MiB, the
//! compute buffer within 10 % (it is a fitted formula for the graph's peak), and the refusals.

use std::path::{Path, PathBuf};

use crate::{
    llamacpp::plan_llama, llamacpp::read_gguf, llamacpp::Backend, llamacpp::GgmlType,
    llamacpp::GgufHeader, llamacpp::LlamaDevice, llamacpp::LlamaError, llamacpp::LlamaPlan,
    llamacpp::LlamaSettings,
};
use serde_json::Value;

const MIB: f64 = 1024.0 * 1024.0;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn results() -> Value {
    let text = std::fs::read_to_string(root().join("tools/llamacpp/results.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn header_of(results: &Value, name: &str) -> GgufHeader {
    let models = results["models"].as_array().unwrap();
    let model = models.iter().find(|m| m["name"] == name).unwrap();
    let bytes = std::fs::read(root().join(model["fixture"].as_str().unwrap())).unwrap();
    read_gguf(&bytes).unwrap()
}

fn mib(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / MIB)
}

fn cache(name: &str) -> GgmlType {
    GgmlType::ALL
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap()
}

/// The settings of a run: everything on the CPU backend, no mmap, as the script loaded it.
fn settings_of(inputs: &Value) -> LlamaSettings {
    let n = |k: &str| inputs[k].as_u64().unwrap();
    LlamaSettings {
        gpu_layers: Some(0),
        context: Some(n("n_ctx")),
        parallel: n("n_seq_max"),
        kv_unified: inputs["kv_unified"].as_bool().unwrap(),
        batch: n("n_batch"),
        ubatch: n("n_ubatch"),
        cache_k: cache(inputs["type_k"].as_str().unwrap()),
        cache_v: cache(inputs["type_v"].as_str().unwrap()),
        flash_attn: inputs["flash_attn"].as_bool().unwrap(),
        mmap: false,
        swa_full: inputs["swa_full"].as_bool().unwrap(),
        ..LlamaSettings::default()
    }
}

/// Every run llama.cpp accepted, with the engine's plan for it.
fn planned_runs() -> Vec<(Value, LlamaPlan)> {
    let results = results();
    let mut out = Vec::new();
    for run in results["runs"].as_array().unwrap() {
        if run.get("refused").is_some() {
            continue;
        }
        let header = header_of(&results, run["model"].as_str().unwrap());
        let plan = plan_llama(&header, &settings_of(&run["inputs"]), Backend::CpuOnly)
            .unwrap_or_else(|e| panic!("{run}: {e:?}"));
        out.push((run.clone(), plan));
    }
    out
}

#[test]
fn the_context_sizes_are_llama_cpps_after_padding_and_clamping() {
    for (run, plan) in planned_runs() {
        let c = &run["context"];
        let printed = |k: &str| c[k].as_str().unwrap().parse::<u64>().unwrap();
        assert_eq!(plan.sizes.n_ctx, printed("n_ctx"), "{run}");
        assert_eq!(plan.sizes.n_ctx_seq, printed("n_ctx_seq"), "{run}");
        assert_eq!(plan.sizes.n_batch, printed("n_batch"), "{run}");
        assert_eq!(plan.sizes.n_ubatch, printed("n_ubatch"), "{run}");
    }
}

#[test]
fn every_kv_cache_and_kv_buffer_matches_llama_cpp_exactly() {
    let mut checked = 0;
    for (run, plan) in planned_runs() {
        let printed = run["kv_caches"].as_array().unwrap();
        assert_eq!(plan.kv_caches.len(), printed.len(), "{run}");
        let buffers: Vec<&str> = run["kv_buffers_mib"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_str().unwrap())
            .collect();
        for ((ours, theirs), buffer) in plan.kv_caches.iter().zip(printed).zip(buffers) {
            assert_eq!(ours.cells_per_stream, theirs["cells_per_stream"], "{run}");
            assert_eq!(ours.streams, theirs["streams"], "{run}");
            let layers: Vec<u64> = theirs["layer_indices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(ours.layers, layers, "{run}");
            assert_eq!(mib(ours.k_bytes), theirs["k_mib"], "{run}");
            assert_eq!(mib(ours.v_bytes), theirs["v_mib"], "{run}");
            assert_eq!(mib(ours.bytes()), buffer, "{run}");
            checked += 1;
        }
        assert_eq!(
            plan.host().kv,
            plan.kv_caches.iter().map(|c| c.bytes()).sum::<u64>()
        );
    }
    assert!(checked > 380, "{checked}");
}

#[test]
fn the_host_model_buffer_matches_llama_cpps_cpu_buffer() {
    let results = results();
    for model in results["models"].as_array().unwrap() {
        let name = model["name"].as_str().unwrap();
        let header = header_of(&results, name);
        let settings = LlamaSettings {
            gpu_layers: Some(0),
            context: Some(1024),
            mmap: false,
            ..LlamaSettings::default()
        };
        let plan = plan_llama(&header, &settings, Backend::CpuOnly).unwrap();
        let printed = model["load"]["model_buffers_mib"]["CPU"].as_str().unwrap();
        assert_eq!(mib(plan.host().model), printed, "{name}");
        assert_eq!(plan.device(LlamaDevice::Gpu(0)), None);
    }
}

/// (run, engine MiB, llama.cpp MiB, relative error) for every accepted run.
fn compute_errors() -> Vec<(Value, f64, f64, f64)> {
    planned_runs()
        .into_iter()
        .map(|(run, plan)| {
            let ours = plan.host().compute as f64 / MIB;
            let theirs: f64 = run["compute_buffers_mib"]["CPU"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            (run, ours, theirs, (ours - theirs) / theirs)
        })
        .collect()
}

#[test]
fn the_compute_buffer_is_within_ten_percent_of_every_run() {
    let errors = compute_errors();
    for (run, ours, theirs, err) in &errors {
        assert!(
            err.abs() <= 0.10,
            "{ours:.2} vs {theirs} MiB ({err:+.3}): {run}"
        );
    }
    let mut by_model: Vec<(String, Vec<f64>)> = Vec::new();
    for (run, _, _, err) in &errors {
        let name = run["model"].as_str().unwrap().to_string();
        match by_model.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(err.abs()),
            None => by_model.push((name, vec![err.abs()])),
        }
    }
    for (name, mut v) in by_model {
        v.sort_by(f64::total_cmp);
        let median = v[v.len() / 2];
        let max = v[v.len() - 1];
        println!(
            "{name}: {} runs, median {:.1} %, max {:.1} %",
            v.len(),
            median * 100.0,
            max * 100.0
        );
    }
}

#[test]
fn llama_cpp_refuses_what_the_engine_refuses() {
    let results = results();
    let mut refused = 0;
    for run in results["runs"].as_array().unwrap() {
        if run.get("refused").is_none() {
            continue;
        }
        let header = header_of(&results, run["model"].as_str().unwrap());
        let got = plan_llama(&header, &settings_of(&run["inputs"]), Backend::CpuOnly);
        assert!(
            matches!(got, Err(LlamaError::BlockDoesNotDivideHead { .. })),
            "{run}: {got:?}"
        );
        refused += 1;
    }
    assert_eq!(refused, 16);
}

#[test]
fn a_quantized_v_cache_without_flash_attention_is_refused() {
    let header = header_of(&results(), "llama-f16");
    let settings = LlamaSettings {
        cache_v: GgmlType::Q8_0,
        flash_attn: false,
        ..LlamaSettings::default()
    };
    let got = plan_llama(&header, &settings, Backend::Cuda);
    assert_eq!(
        got.unwrap_err(),
        LlamaError::QuantizedVNeedsFlashAttention {
            cache: GgmlType::Q8_0
        }
    );
}
