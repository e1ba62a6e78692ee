//! A vLLM start-up log, V0 and V1. What each version prints about memory:
//!
//! - V0 before 0.6.4: "Loading model weights took 14.9888 GB" (GiB: vLLM divides by 2^30),
//!   "# GPU blocks: 1952, # CPU blocks: 2048", "Maximum concurrency for 20000 tokens per request: 1.56x";
//! - 0.6.4–0.6.5: "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=…
//!   peak_torch_memory=17.06GiB … non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90";
//! - 0.6.6–0.8 (V0): "the current vLLM instance can use total_gpu_memory (79.22GiB) x
//!   gpu_memory_utilization (0.90) = 71.29GiB", "model weights take 19.86GiB; non_torch_memory takes
//!   0.16GiB; PyTorch activation peak memory takes 36.63GiB; the rest of the memory reserved for KV
//!   Cache is 14.65GiB.", "# CUDA blocks: 6001, # CPU blocks: 1638";
//! - V1: "Model loading took 14.9889 GiB and 3.65 seconds", "Available KV cache memory: 6.51 GiB",
//!   "GPU KV cache size: 42,656 tokens", "Maximum concurrency for 32,768 tokens per request: 1.30x",
//!   "Graph capturing finished in 5 secs, took 0.54 GiB", "Estimated CUDA graph memory: 0.73 GiB total".

use super::quantity::{self, Decimal};
use super::{at_line, count, lines, Collect, Level, MeasureError};

pub(crate) const MARKERS: &[&str] = &[
    "Loading model weights took",
    "Model loading took",
    "model weights take",
    "Memory profiling",
    "instance can use",
    "GPU blocks:",
    "CUDA blocks:",
    "cuda blocks:",
    "GPU KV cache size",
    "Available KV cache memory",
    "Maximum concurrency for",
    "kv_cache_size=",
    "Graph capturing finished",
];

/// Phrases in order, the size after the last, its level, and whether "GB" there means GiB.
const SIZES: &[(&[&str], Level, bool)] = &[
    (&["Loading model weights took"], Level::VllmWeights, true),
    (&["Model loading took"], Level::VllmWeights, false),
    (&["model weights take"], Level::VllmWeights, false),
    (&["total_gpu_memory"], Level::DeviceTotal, false),
    (&["non_torch_memory"], Level::VllmNonTorch, false),
    (
        &["PyTorch activation peak memory"],
        Level::VllmActivationPeak,
        false,
    ),
    (&["peak_torch_memory"], Level::VllmTorchPeak, false),
    (&["reserved for KV Cache is"], Level::VllmKvCache, false),
    (&["available_kv_cache_memory"], Level::VllmKvCache, false),
    (&["kv_cache_size"], Level::VllmKvCache, false),
    (&["Available KV cache memory"], Level::VllmKvCache, false),
    (
        &["Graph capturing finished", "took"],
        Level::VllmCudaGraph,
        false,
    ),
    (
        &["Estimated CUDA graph memory"],
        Level::VllmCudaGraph,
        false,
    ),
];

/// How far after its phrase a size may stand.
const WINDOW: usize = 24;

pub(crate) fn read(text: &str, c: &mut Collect) -> Result<(), MeasureError> {
    for (n, line) in lines(text) {
        for &(phrases, level, binary) in SIZES {
            let Some(rest) = after_all(line, phrases) else {
                continue;
            };
            if let Some(q) = at_line(n, quantity::first_quantity(rest, WINDOW, binary))? {
                c.figure(level, q, None);
            }
        }
        budget(n, line, c)?;
        counts(n, line, c)?;
    }
    Ok(())
}

/// "the current vLLM instance can use 71.29GiB" or "… (0.90) = 71.29GiB".
fn budget(n: usize, line: &str, c: &mut Collect) -> Result<(), MeasureError> {
    let Some(rest) = after_all(line, &["instance can use"]) else {
        return Ok(());
    };
    let rest = rest.rfind('=').map_or(rest, |at| &rest[at + 1..]);
    if let Some(q) = at_line(n, quantity::first_quantity(rest, WINDOW, false))? {
        c.figure(Level::VllmBudget, q, None);
    }
    Ok(())
}

fn counts(n: usize, line: &str, c: &mut Collect) -> Result<(), MeasureError> {
    let lower = line.to_ascii_lowercase();
    let number = |phrase: &str, window: usize| -> Option<Decimal> {
        let at = lower.find(phrase)? + phrase.len();
        quantity::first_decimal(&line[at..], window)
    };
    let whole = |phrase: &str| number(phrase, 4).and_then(Decimal::whole);
    let facts = c.facts();
    let blocks = whole("gpu blocks:").or_else(|| whole("cuda blocks:"));
    if let Some(v) = count(n, blocks)? {
        facts.gpu_blocks = Some(v);
    }
    if let Some(v) = count(n, whole("cpu blocks:"))? {
        facts.cpu_blocks = Some(v);
    }
    if let Some(v) = count(n, whole("gpu kv cache size:"))? {
        facts.kv_tokens = Some(v);
    }
    if let Some(v) = count(
        n,
        number("gpu_memory_utilization", 8).and_then(Decimal::hundredths),
    )? {
        facts.gpu_util_hundredths = Some(v);
    }
    if let Some(v) = count(n, whole("maximum concurrency for"))? {
        facts.concurrency_tokens = Some(v);
        let x = number("per request:", 4).and_then(Decimal::hundredths);
        facts.concurrency_hundredths = count(n, x)?;
    }
    Ok(())
}

/// The text after each phrase found in turn, or None when one is missing.
fn after_all<'a>(line: &'a str, phrases: &[&str]) -> Option<&'a str> {
    phrases
        .iter()
        .try_fold(line, |rest, p| rest.find(p).map(|at| &rest[at + p.len()..]))
}
