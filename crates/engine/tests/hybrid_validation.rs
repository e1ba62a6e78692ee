//! Hybrid models against public server logs (`validation/hybrid.jsonl`): from the KV memory a
//! server reported, the block size, the tokens and the concurrency it printed.
//!
//! Each case names a preset, the server and its version, the GPUs and tensor parallelism, the
//! pool the log reported (`available_kv_gib`, vLLM's "Available KV cache memory") and what the
//! log printed from it (`logged_block_size`, `logged_tokens`, `logged_max_concurrency`), with the
//! log's lines and their source. The pool is given rather than estimated, so the case checks the
//! paging arithmetic alone (the weights and activations are checked in `validation.rs`).

use serde_json::Value;
use vram_engine::*;

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
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let link = format!(
            "?v=1&m={}&j=serve&gpu={}&n={}&tp={}&ml={}",
            case["preset"].as_str().unwrap(),
            case["gpu"].as_str().unwrap(),
            int(case, "gpus"),
            int(case, "tp"),
            int(case, "max_model_len"),
        );
        let d = decode_link(&link);
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
