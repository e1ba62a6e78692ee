//! vLLM's CUDA graphs against the graph memory public logs print (`validation/vllm_graphs.jsonl`):
//! graphs × layers × `GRAPH_KIB_PER_LAYER` KiB ÷ tensor-parallel ranks. Where a case's counts come
//! from its settings (`"counts": "settings"`) the graph counts the engine derives are checked
//! against the counts the log shows; elsewhere (spec decoding, capture lists the settings do not
//! give) the rule is taken at the logged counts.

use std::path::Path;

use crate::{
    estimate, scenario::VllmVersion, server::captured_graphs, Architecture, Job, ModelChoice,
    Scenario, GIB,
};
use serde_json::Value;

fn cases() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/vllm_graphs.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} does not load: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

/// The case's model: its preset, or (for a model with no preset) a dense shape with the layer
/// count the case gives, which is all the graph rule reads of a model.
fn model(c: &Value) -> ModelChoice {
    match c["model"].as_str() {
        Some(id) => ModelChoice::Preset(
            crate::model::presets::find(id)
                .unwrap_or_else(|| panic!("no preset {id}"))
                .id,
        ),
        None => {
            let layers = c["layers"]
                .as_u64()
                .expect("layers where no preset is named");
            ModelChoice::Custom {
                name: c["id"].as_str().unwrap().into(),
                arch: Box::new(Architecture::llama(
                    32_000, 4_096, 14_336, layers, 32, 8, false,
                )),
                source: None,
            }
        }
    }
}

fn scenario(c: &Value) -> Scenario {
    let num = |k: &str| c[k].as_u64().unwrap_or_else(|| panic!("{k} in {c}"));
    let defaults = Scenario::default();
    Scenario {
        job: Job::Serving,
        model: model(c),
        vllm: VllmVersion::from_key(c["vllm"].as_str().unwrap()).unwrap(),
        tp: num("tp"),
        gpus: num("tp"),
        max_num_seqs: c["max_num_seqs"].as_u64().unwrap_or(defaults.max_num_seqs),
        batched_tokens: num("batched_tokens"),
        ..defaults
    }
}

/// (id, graphs the log shows, engine bytes at those graphs, measured bytes) for every case.
fn compared() -> Vec<(String, u64, f64, f64)> {
    cases()
        .iter()
        .map(|c| {
            let s = scenario(c);
            let id = c["id"].as_str().unwrap().to_string();
            let logged = c["graphs"].as_array().unwrap();
            let logged = (logged[0].as_u64().unwrap(), logged[1].as_u64().unwrap());
            let derived = captured_graphs(&s);
            if c["counts"].as_str() == Some("settings") {
                assert_eq!(derived, logged, "{id}");
            }
            // the rule is linear in the graphs: the engine's bytes for its own count, scaled to
            // the log's
            let per_graph =
                estimate(&s).unwrap().cuda_graphs as f64 / (derived.0 + derived.1) as f64;
            let engine = per_graph * (logged.0 + logged.1) as f64;
            let measured = c["measured_gib"].as_f64().unwrap() * GIB as f64;
            (id, logged.0 + logged.1, engine, measured)
        })
        .collect()
}

fn error_pct(engine: f64, measured: f64) -> f64 {
    (engine - measured) / measured * 100.0
}

#[test]
fn every_logged_run_lands_within_the_band_docs_serving_md_states() {
    let rows = compared();
    assert!(rows.len() >= 7, "{rows:?}");
    for (id, graphs, engine, measured) in &rows {
        let error = error_pct(*engine, *measured);
        println!("{id}: {graphs} graphs, engine {engine:.0} B, log {measured:.0} B, {error:+.1} %");
        // docs/serving.md: from about four fifths too little to about two and a half times
        assert!((-80.0..=140.0).contains(&error), "{id}: {error:+.1} %");
    }
}

#[test]
fn the_rule_over_reserves_where_many_graphs_share_a_pool_and_under_reserves_for_a_handful() {
    // graphs share one memory pool and reuse its blocks, so the pool grows less than linearly
    // with the capture sizes: the linear rule is high for vLLM's 86 default graphs and low for
    // the 5 to 7 graphs of a spec-decoding run
    for (id, graphs, engine, measured) in compared() {
        let error = error_pct(engine, measured);
        if graphs <= 10 {
            assert!(error < -30.0, "{id}: {graphs} graphs, {error:+.1} %");
        }
        if graphs >= 80 && id != "VLLM-GRAPH-07" {
            assert!(error > 100.0, "{id}: {graphs} graphs, {error:+.1} %");
        }
    }
}

#[test]
fn llama_3_2_1b_graphs_land_within_a_rounding_of_the_log_and_gpt_oss_at_tp_8_is_the_known_miss() {
    let rows = compared();
    let get = |id: &str| rows.iter().find(|r| r.0 == id).unwrap().clone();
    // 35 graphs × 16 layers × 384 KiB = 215,040 KiB = 0.205 GiB, logged as 0.21
    let (_, _, small, _) = get("VLLM-GRAPH-01");
    assert_eq!(small, (35 * 16 * 384 * 1024) as f64);
    // (51 + 35) graphs × 36 layers × 384 KiB ÷ 8 ranks = 148,608 KiB = 145.1 MiB against 62 MiB:
    // the graphs of a MoE model at TP 8 keep less than its layers' share of the rule
    let (_, _, moe, measured) = get("VLLM-GRAPH-02");
    assert_eq!(moe, (86 * 36 * 384 * 1024 / 8) as f64);
    assert!(moe > 2.0 * measured, "{moe} vs {measured}");
}
