//! How a vLLM server is started, as far as it moves memory: CUDA graphs and speculative decoding.

use crate::named::named_enum;
use crate::scenario::{Scenario, VllmVersion};

named_enum! {
    /// Whether the server captures CUDA graphs for decoding (vLLM's default) or runs eagerly.
    pub enum CudaGraphs {
        /// vLLM's default: graphs for a list of batch sizes, captured at start-up.
        Captured => ("on", "captured (default)"),
        /// `--enforce-eager`: no graphs, no graph memory.
        Eager => ("eager", "off (--enforce-eager)"),
    }
}

named_enum! {
    /// Speculative decoding, as far as the method changes memory (vLLM `SpeculativeConfig`).
    pub enum SpecMethod {
        Off => ("off", "off"),
        /// Prompt-lookup n-grams: no weights, no KV; only the decode batches grow.
        Ngram => ("ngram", "n-gram (prompt lookup)"),
        /// An EAGLE head: one decoder layer and a fusing projection beside the target.
        Eagle => ("eagle", "EAGLE head"),
        /// The model's own multi-token-prediction layer (DeepSeek, Qwen3-Next, GLM).
        Mtp => ("mtp", "MTP layer"),
        /// A separate small draft model with its own weights and KV cache.
        Draft => ("draft", "draft model"),
    }
}

/// Tokens one decode step verifies per request: 1, plus the proposed tokens when speculating
/// (vLLM `decode_query_len`, `vllm/config/vllm.py`).
pub fn decode_query_len(s: &Scenario) -> u64 {
    match s.spec {
        SpecMethod::Off => 1,
        _ => 1 + s.spec_tokens,
    }
}

/// V0's batch sizes to capture: 1, 2, 4 and multiples of 8 up to 256 (`vllm/worker/model_runner.py`,
/// `_BATCH_SIZES_TO_CAPTURE`).
fn v0_sizes() -> impl Iterator<Item = u64> {
    [1, 2, 4].into_iter().chain((1..=32).map(|i| 8 * i))
}

/// V1's default capture sizes up to `max`: 1, 2, 4, multiples of 8 below 256, multiples of 16 from
/// 256 (`vllm/config/vllm.py`, `_set_cudagraph_sizes`).
fn v1_sizes(max: u64) -> impl Iterator<Item = u64> {
    [1, 2, 4]
        .into_iter()
        .chain((1..32).map(|i| 8 * i))
        .chain((0..).map(|i| 256 + 16 * i).take_while(move |n| *n <= max))
        .filter(move |n| *n <= max)
}

/// The CUDA graphs a server captures, as (mixed-batch graphs, decode-only full graphs).
///
/// V0 captures one full graph per batch size up to `max_num_seqs` rounded up to the next size
/// (`_get_graph_batch_size`). V1 (`vllm/config/vllm.py`) captures piecewise graphs for token counts
/// up to min(max_num_seqs × decode_query_len × 2, 512, max_num_batched_tokens), the largest always
/// among them, rounded up to multiples of decode_query_len when speculating
/// (`adjust_cudagraph_sizes_for_spec_decode`), and with FULL_AND_PIECEWISE (the default) full
/// decode graphs for the sizes up to max_num_seqs × decode_query_len.
pub fn captured_graphs(s: &Scenario) -> (u64, u64) {
    if s.cuda_graphs == CudaGraphs::Eager {
        return (0, 0);
    }
    if s.vllm == VllmVersion::V0 {
        let seqs = s.max_num_seqs;
        let padded = if seqs <= 2 {
            seqs
        } else if seqs <= 4 {
            4
        } else {
            seqs.div_ceil(8) * 8
        };
        return (v0_sizes().filter(|n| *n <= padded).count() as u64, 0);
    }
    let q = decode_query_len(s);
    let decode_tokens = s.max_num_seqs.saturating_mul(q);
    let max = decode_tokens
        .saturating_mul(2)
        .min(512)
        .min(s.batched_tokens)
        .max(1);
    let rounded = |n: u64| n.div_ceil(q) * q;
    let mut mixed: Vec<u64> = v1_sizes(max).map(rounded).filter(|n| *n <= max).collect();
    // already ascending (the sizes ascend, rounding up keeps their order, `max` is the largest):
    // no sort, whose code the page's first load would carry for this list alone
    mixed.push(max);
    debug_assert!(mixed.is_sorted());
    mixed.dedup();
    let full = mixed.iter().filter(|n| **n <= decode_tokens).count() as u64;
    (mixed.len() as u64, full)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v1(f: impl FnOnce(&mut Scenario)) -> (u64, u64) {
        let mut s = Scenario {
            vllm: VllmVersion::V1Graphs,
            ..Scenario::default()
        };
        f(&mut s);
        captured_graphs(&s)
    }

    #[test]
    fn v1_captures_51_mixed_and_35_decode_graphs_by_default_as_its_start_up_log_prints() {
        // "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)"
        assert_eq!(v1(|_| {}), (51, 35));
    }

    #[test]
    fn fewer_sequences_capture_fewer_graphs_and_eager_captures_none() {
        // max_num_seqs 8: sizes up to 16 (1, 2, 4, 8, 16), decode graphs up to 8
        assert_eq!(v1(|s| s.max_num_seqs = 8), (5, 4));
        assert_eq!(v1(|s| s.cuda_graphs = CudaGraphs::Eager), (0, 0));
    }

    #[test]
    fn v0_captures_one_graph_per_batch_size_up_to_max_num_seqs() {
        let v0 = |seqs| {
            captured_graphs(&Scenario {
                max_num_seqs: seqs,
                ..Scenario::default()
            })
        };
        assert_eq!(v0(256), (35, 0));
        assert_eq!(v0(20), (6, 0)); // 1, 2, 4, 8, 16, 24
    }

    #[test]
    fn speculating_rounds_the_sizes_up_to_the_tokens_each_request_verifies() {
        // 3 proposed tokens: 4 per request; sizes up to min(256 × 4 × 2, 512) rounded to 4s
        let (mixed, full) = v1(|s| {
            s.spec = SpecMethod::Ngram;
            s.spec_tokens = 3;
        });
        assert!(mixed < 51, "{mixed}");
        assert_eq!(full, mixed);
    }
}
