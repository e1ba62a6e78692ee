//! Hybrid models against public server logs (`validation/hybrid.jsonl`).
//!
//! A vLLM case names a preset, the version, the GPUs and tensor parallelism, the pool the log
//! reported (`available_kv_gib`, "Available KV cache memory") and what the log printed from it
//! (`logged_block_size`, `logged_tokens`, `logged_max_concurrency`). The pool is given rather
//! than estimated, so the case checks the paging arithmetic alone (the weights and activations
//! are checked in `validation.rs`). A llama.cpp case gives the GGUF's keys the state depends on
//! and the slots (`-np`), and the R and S sizes `llama_memory_recurrent` printed, in MiB. Every
//! case carries the log's lines and their source.

use super::recurrent::hybrid_block_size;
use crate::{llamacpp::*, memory::*};
use serde_json::Value;

/// The bound on each printed figure: the 10 % on the KV / state pool.
const TARGET_PCT: f64 = 10.0;

fn cases() -> Vec<Value> {
    let path = format!(
        "{}/../../validation/hybrid.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn int(case: &Value, key: &str) -> u64 {
    case[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{}: {key}", case["id"]))
}

#[track_caller]
fn within(id: &str, what: &str, engine: f64, logged: f64) {
    let off = (engine / logged - 1.0) * 100.0;
    assert!(
        off.abs() <= TARGET_PCT,
        "{id}: {what} {engine} against the log's {logged} ({off:+.1} %)"
    );
}

#[test]
fn every_hybrid_log_s_tokens_and_concurrency_come_out_of_its_pool_within_ten_percent() {
    let cases = cases();
    assert!(!cases.is_empty(), "validation/hybrid.jsonl holds no case");
    for case in cases.iter().filter(|c| c["server"] == "vllm") {
        let id = case["id"].as_str().unwrap();
        let link = format!(
            "?v=1&m={}&j=serve&gpu={}&n={}&tp={}&ml={}",
            case["preset"].as_str().unwrap(),
            case["gpu"].as_str().unwrap(),
            int(case, "gpus"),
            int(case, "tp"),
            int(case, "max_model_len"),
        );
        let d = crate::link::decode(&link);
        assert!(d.notices.is_empty(), "{id}: {:?}", d.notices);
        let b = estimate(&d.scenario).unwrap();
        let pages = b.recurrent.unwrap_or_else(|| panic!("{id}: not a hybrid"));
        let block = hybrid_block_size(&pages, d.scenario.block_size);
        assert_eq!(block, int(case, "logged_block_size"), "{id}: block size");
        let pool = case["available_kv_gib"].as_f64().unwrap() * (1u64 << 30) as f64;
        let fit =
            ServingFit::vllm_hybrid(&d.scenario, &pages, b.kv_bytes_per_token, 0, pool as u64);
        within(
            id,
            "tokens",
            fit.tokens as f64,
            int(case, "logged_tokens") as f64,
        );
        // vLLM prints blocks / blocks per max_model_len request, to two decimals
        let per_request = pages.vllm_blocks_per_request(block, int(case, "max_model_len"));
        let concurrency = fit.blocks as f64 / per_request as f64;
        let logged = case["logged_max_concurrency"].as_f64().unwrap();
        within(id, "concurrency", concurrency, logged);
    }
}

/// A GGUF header with the keys a llama.cpp case names, and one tensor in each layer.
fn header_of(case: &Value) -> GgufHeader {
    let arch = case["arch"].as_str().unwrap();
    let n = |k: &str| DraftValue::U64(int(case, k));
    let layers = int(case, "block_count");
    let mut d = GgufDraft::default();
    let meta = [
        (
            "general.architecture".to_string(),
            DraftValue::Text(arch.into()),
        ),
        (format!("{arch}.block_count"), n("block_count")),
        (format!("{arch}.embedding_length"), n("embedding_length")),
        (format!("{arch}.attention.head_count"), DraftValue::U64(16)),
        (
            format!("{arch}.attention.head_count_kv"),
            DraftValue::U64(4),
        ),
        (format!("{arch}.vocab_size"), DraftValue::U64(1_000)),
        (
            format!("{arch}.full_attention_interval"),
            n("full_attention_interval"),
        ),
        (format!("{arch}.ssm.conv_kernel"), n("ssm_conv_kernel")),
        (format!("{arch}.ssm.inner_size"), n("ssm_inner_size")),
        (format!("{arch}.ssm.state_size"), n("ssm_state_size")),
        (format!("{arch}.ssm.group_count"), n("ssm_group_count")),
    ];
    d.metadata = meta.into_iter().collect();
    for il in 0..layers {
        d.tensors.push((
            format!("blk.{il}.ffn_up.weight"),
            vec![64, 64],
            GgmlType::F16,
        ));
    }
    read_gguf(&d.bytes()).unwrap()
}

#[test]
fn every_llama_cpp_log_s_recurrent_state_comes_out_of_its_keys_within_ten_percent() {
    let cases: Vec<Value> = cases()
        .into_iter()
        .filter(|c| c["server"] == "llama.cpp")
        .collect();
    assert!(
        !cases.is_empty(),
        "validation/hybrid.jsonl holds no llama.cpp case"
    );
    const MIB: f64 = (1u64 << 20) as f64;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let header = header_of(case);
        let layers = int(case, "block_count");
        let state = RecurrentState::of(&header, layers, int(case, "embedding_length")).unwrap();
        let recurrent = state.layers.iter().filter(|r| **r).count() as f64;
        let slots = int(case, "slots") as f64;
        let r = recurrent * slots * (state.n_embd_r * 4) as f64 / MIB;
        let s = recurrent * slots * (state.n_embd_s * 4) as f64 / MIB;
        within(id, "R (f32) MiB", r, case["logged_r_mib"].as_f64().unwrap());
        within(id, "S (f32) MiB", s, case["logged_s_mib"].as_f64().unwrap());
    }
}
