//! A hybrid model's recurrent state: one convolution window and one SSM (or delta-rule) state per
//! sequence and recurrent layer, however long the sequence, and how each server pools it.

use super::{Breakdown, Budget, Component, Phase, ServingFit};
use crate::formula::{Arg, Formula, Msg};
use crate::scenario::Server;
use crate::scenario::{Job, Scenario};
use crate::units::{div_ceil, prod};

/// What a server pages for a hybrid model, per rank: the attention layers' bytes per token and
/// the recurrent layers' state per sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecurrentPages {
    pub(crate) attention_layers: u64,
    pub(crate) recurrent_layers: u64,
    /// K and V of one token in one attention layer.
    pub(crate) token_bytes: u64,
    /// One sequence's state in one recurrent layer.
    pub(crate) state_bytes: u64,
}

impl RecurrentPages {
    /// vLLM's groups (`vllm/v1/core/kv_cache_utils.py`, `_get_kv_cache_groups_uniform_page_size`):
    /// layers per group (the smaller of the attention and recurrent counts, or the larger when
    /// it is under 1.5 × the smaller), then the attention groups and the state groups.
    pub(crate) fn vllm_groups(&self) -> (u64, u64, u64) {
        let (a, r) = (self.attention_layers, self.recurrent_layers);
        let (small, large) = (a.min(r).max(1), a.max(r).max(1));
        let group = if 2 * large < 3 * small { large } else { small };
        (group, div_ceil(a, group), div_ceil(r, group))
    }

    /// Blocks of `block` tokens one request of `len` tokens takes in vLLM: ⌈len / block⌉ in each
    /// attention group and one in each state group (`get_max_concurrency_for_kv_cache_config`).
    pub(crate) fn vllm_blocks_per_request(&self, block: u64, len: u64) -> u64 {
        let (_, attention, states) = self.vllm_groups();
        attention * div_ceil(len, block.max(1)) + states
    }
}

/// The tokens a vLLM attention block holds for a hybrid model: the smallest multiple of the
/// kernel's 16 whose page (block × bytes per token) holds one layer's state
/// (`vllm/model_executor/models/config.py`, `HybridAttentionMambaModelConfig`), or the block size
/// asked for when that is larger. The state's page is padded to the attention page.
pub(crate) fn hybrid_block_size(pages: &RecurrentPages, asked: u64) -> u64 {
    let kernel = 16;
    let token = pages.token_bytes.max(1);
    let least = kernel * div_ceil(pages.state_bytes, kernel * token);
    asked.max(least).max(1)
}

impl Budget<'_> {
    /// Bytes of one recurrent layer's state for one sequence on one rank, in the dtypes the job
    /// keeps it: the convolution window in the model's dtype everywhere; the SSM state in the
    /// model's dtype in transformers (its hybrid caches allocate both like the weights) and in
    /// vLLM unless the config asks for fp32 (`mamba_ssm_cache_dtype`, which vLLM reads for
    /// Nemotron-H), in fp32 in SGLang (`mamba_ssm_dtype`, float32 by default).
    pub(super) fn state_per_layer(&self) -> u64 {
        let Some(r) = &self.arch.recurrent else {
            return 0;
        };
        let s = self.scenario;
        let ssm = if (s.job == Job::Serving && s.server == Server::Sglang) || r.state_fp32 {
            4
        } else {
            self.act_bytes
        };
        r.layer_state_bytes(self.arch.hidden, self.tp, self.act_bytes, ssm)
    }

    /// What a server pages, when the model has recurrent layers.
    pub(super) fn recurrent_pages(&self) -> Option<RecurrentPages> {
        self.arch.recurrent.as_ref()?;
        let attention_layers = self.arch.attention_layers();
        Some(RecurrentPages {
            attention_layers,
            recurrent_layers: self.arch.recurrent_layers(),
            token_bytes: self.kv_bytes(1, 1) / attention_layers.max(1),
            state_bytes: self.state_per_layer(),
        })
    }

    /// The state of the batch (or of a server's concurrent requests): alive from the first token
    /// to the last. vLLM keeps each layer's state in a page padded to the attention page.
    pub(super) fn recurrent_state(&mut self) {
        let Some(pages) = self.recurrent_pages() else {
            return;
        };
        let s = self.scenario;
        let serving = s.job == Job::Serving;
        let seqs = if serving { s.concurrency } else { s.batch };
        let per_layer = if serving && s.server == Server::Vllm {
            hybrid_block_size(&pages, s.block_size) * pages.token_bytes
        } else {
            pages.state_bytes
        };
        let bytes = prod(&[seqs, pages.recurrent_layers, per_layer]);
        self.push(Component::KvCache, Phase::Always, bytes, |b| {
            let r = b.arch.recurrent.as_ref().expect("a hybrid");
            let args = [
                Arg::Int(seqs),
                Arg::Int(pages.recurrent_layers),
                Arg::Count(per_layer),
                Arg::Int(r.conv_kernel.saturating_sub(1)),
            ];
            let mut f = Formula::of(Msg::RecurrentState, &args);
            if per_layer > pages.state_bytes {
                f.push(Msg::StatePadded, &[Arg::Count(pages.state_bytes)]);
            }
            f.equals(bytes)
        });
    }
}

impl ServingFit {
    /// vLLM's hybrid KV cache manager (`vllm/v1/core/kv_cache_utils.py`,
    /// `_get_kv_cache_groups_uniform_page_size`): the attention layers and the recurrent layers
    /// form groups of `min(attention, recurrent)` layers (the larger count when it is under 1.5 ×
    /// the smaller); every block is one page in each of a group's layers; a request takes
    /// ⌈tokens / block⌉ blocks in each attention group and one block in each recurrent group.
    /// vLLM prints `num_blocks / groups × block` as the KV cache size in tokens and
    /// `num_blocks / blocks per max_model_len request` as the maximum concurrency
    /// (`get_max_concurrency_for_kv_cache_config`).
    pub(crate) fn vllm_hybrid(
        s: &Scenario,
        pages: &RecurrentPages,
        per_token: u64,
        budget: u64,
        kv_pool: u64,
    ) -> ServingFit {
        let block = hybrid_block_size(pages, s.block_size);
        let page = block * pages.token_bytes.max(1);
        let (group, attention_groups, state_groups) = pages.vllm_groups();
        let blocks = kv_pool / prod(&[page, group]).max(1);
        let tokens = blocks / (attention_groups + state_groups).max(1) * block;
        let per_request = |len: u64| pages.vllm_blocks_per_request(block, len);
        ServingFit {
            budget,
            kv_pool,
            kv_bytes_per_token: per_token,
            blocks,
            tokens,
            max_concurrency: blocks / per_request(s.avg_tokens).max(1),
            max_len_fits: blocks >= per_request(s.max_model_len),
            block_size: block,
            state_slots: blocks / per_request(s.max_model_len).max(1),
        }
    }

    /// SGLang's separate state pool (`python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py`,
    /// `handle_max_mamba_cache`): with the radix cache on and no `--max-mamba-cache-size`, the
    /// state pool takes `mamba_full_memory_ratio / (1 + ratio)` (0.9 / 1.9) of what is left for
    /// caches, in whole requests' states; the KV pool takes the rest.
    pub(super) fn sglang_hybrid(b: &Breakdown, s: &Scenario, budget: u64, rest: u64) -> ServingFit {
        let pages = b.recurrent.expect("a hybrid");
        let per_request = pages.recurrent_layers * pages.state_bytes;
        let slots = prod(&[rest, 9]) / 19 / per_request.max(1);
        let kv_pool = rest - slots * per_request;
        let mut fit = ServingFit::of_pool(b, s, budget, kv_pool);
        fit.max_concurrency = fit.max_concurrency.min(slots);
        fit.max_len_fits = fit.max_len_fits && slots > 0;
        fit.state_slots = slots;
        fit
    }
}
