//! vLLM's CUDA graphs against the graph memory public logs print (`validation/vllm_graphs.jsonl`):
//! graphs × layers × `GRAPH_KIB_PER_LAYER` KiB ÷ tensor-parallel ranks, with the graph counts the
//! engine derives from each run's settings checked against the counts the log shows.

use std::path::Path;

use serde_json::Value;
use vram_engine::{
    estimate, memory::captured_graphs, scenario::VllmVersion, Job, ModelChoice, Scenario, GIB,
};

fn cases() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/vllm_graphs.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} does not load: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn scenario(c: &Value) -> Scenario {
    let num = |k: &str| c[k].as_u64().unwrap_or_else(|| panic!("{k} in {c}"));
    let model = c["model"].as_str().unwrap();
    let preset =
        vram_engine::model::presets::find(model).unwrap_or_else(|| panic!("no preset {model}"));
    Scenario {
        job: Job::Serving,
        model: ModelChoice::Preset(preset.id),
        vllm: VllmVersion::from_key(c["vllm"].as_str().unwrap()).unwrap(),
        tp: num("tp"),
        gpus: num("tp"),
        max_num_seqs: num("max_num_seqs"),
        batched_tokens: num("batched_tokens"),
        ..Scenario::default()
    }
}

/// (id, engine bytes, measured bytes) for every case.
fn compared() -> Vec<(String, u64, f64)> {
    cases()
        .iter()
        .map(|c| {
            let s = scenario(c);
            let logged = c["graphs"].as_array().unwrap();
            let logged = (logged[0].as_u64().unwrap(), logged[1].as_u64().unwrap());
            assert_eq!(captured_graphs(&s), logged, "{}", c["id"]);
            let engine = estimate(&s).unwrap().cuda_graphs;
            let measured = c["measured_gib"].as_f64().unwrap() * GIB as f64;
            (c["id"].as_str().unwrap().to_string(), engine, measured)
        })
        .collect()
}

#[test]
fn every_logged_run_captures_the_graphs_its_settings_give_and_the_rule_never_under_reserves() {
    let rows = compared();
    assert!(rows.len() >= 2, "{rows:?}");
    for (id, engine, measured) in &rows {
        let error = (*engine as f64 - measured) / measured * 100.0;
        println!("{id}: engine {engine} B, log {measured:.0} B, {error:+.1} %");
        // 0.21 GiB is printed to two decimals: anything within half a hundredth of a GiB below
        assert!(
            *engine as f64 >= measured - 0.005 * GIB as f64,
            "{id}: {error:+.1} %"
        );
    }
}

#[test]
fn llama_3_2_1b_graphs_land_within_a_rounding_of_the_log_and_gpt_oss_at_tp_8_is_the_known_miss() {
    let rows = compared();
    let get = |id: &str| rows.iter().find(|r| r.0 == id).unwrap().clone();
    // 35 graphs × 16 layers × 384 KiB = 215,040 KiB = 0.205 GiB, logged as 0.21
    let (_, small, _) = get("VLLM-GRAPH-01");
    assert_eq!(small, 35 * 16 * 384 * 1024);
    // (51 + 35) graphs × 36 layers × 384 KiB ÷ 8 ranks = 148,608 KiB = 145.1 MiB against 62 MiB:
    // the graphs of a MoE model at TP 8 keep less than its layers' share of the rule
    let (_, moe, measured) = get("VLLM-GRAPH-02");
    assert_eq!(moe, 86 * 36 * 384 * 1024 / 8);
    assert!(moe as f64 > 2.0 * measured, "{moe} vs {measured}");
}
