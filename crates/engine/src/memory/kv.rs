//! Inference and serving: the KV cache as it grows (or as a server pools it), the prefill's
//! transients, and how a vLLM-style server fills a GPU.

use super::{prefill_activation_bytes, Breakdown, Budget, Component, Phase};
use crate::formula::{Arg, Formula, Msg};
use crate::model::Architecture;
use crate::scenario::{Attention, Job, Scenario};
use crate::units::{div_ceil, prod, scale};

/// How a server fills the selected GPU (vLLM's arithmetic, or SGLang's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServingFit {
    /// What the server reserves up front: vLLM gpu_memory_utilization × the driver's total;
    /// SGLang mem_fraction_static × what is free before loading.
    pub budget: u64,
    /// What is left for KV blocks after weights, activations and non-torch memory.
    pub kv_pool: u64,
    pub kv_bytes_per_token: u64,
    pub blocks: u64,
    pub tokens: u64,
    /// Requests of the average length that fit at once.
    pub max_concurrency: u64,
    /// Whether one request of max_model_len fits in the pool (vLLM refuses to start otherwise).
    pub max_len_fits: bool,
    /// Tokens per block: the scenario's, or the larger one vLLM picks for a hybrid model.
    pub block_size: u64,
    /// A hybrid model's requests whose recurrent state the pool holds at once: SGLang's
    /// `max_mamba_cache_size`, vLLM's maximum concurrency at max_model_len; 0 for other models.
    pub(crate) state_slots: u64,
}

impl ServingFit {
    /// How a vLLM-style server started with this budget's settings fills `gpu`: it reserves
    /// gpu_memory_utilization × capacity and gives KV blocks whatever the weights, the profiled
    /// activations and the non-torch memory leave (the allocator reserve is part of that pool).
    /// V0 deducts the whole non-torch memory it measures (`vllm/worker/worker.py`,
    /// `determine_num_available_blocks`); V1 measures from a snapshot taken after the CUDA
    /// context exists (`vllm/v1/worker/gpu_worker.py`, `init_device` then
    /// `determine_available_memory`: `requested_memory` = total × utilization − the increase
    /// since the snapshot), so the context is not deducted again.
    ///
    /// The budget is `gpu_memory_utilization` × the total the driver reports (`cudaMemGetInfo`),
    /// not nvidia-smi's. CUDA graphs come out of it only from V1 0.21 on; before, they are
    /// captured after the pool is sized.
    pub fn on(b: &Breakdown, s: &Scenario, gpu: crate::gpus::Gpu) -> ServingFit {
        if s.server == crate::scenario::Server::Sglang {
            return ServingFit::sglang(b, s, gpu);
        }
        let budget = scale(gpu.visible_bytes(), s.gpu_util_pct, 100);
        let before_snapshot = if s.vllm.is_v1() {
            b.bytes(Component::Context) - b.cuda_graphs - b.comm_buffers
        } else {
            0
        };
        let fixed = b.total
            - b.bytes(Component::KvCache)
            - b.bytes(Component::Reserve)
            - before_snapshot
            - b.graphs_after_sizing(s);
        let kv_pool = budget.saturating_sub(fixed);
        match &b.recurrent {
            Some(pages) => ServingFit::vllm_hybrid(s, pages, b.kv_bytes_per_token, budget, kv_pool),
            None => ServingFit::of_pool(b, s, budget, kv_pool),
        }
    }

    /// What a KV pool of `kv_pool` bytes, carved from `budget`, holds: whole blocks (SGLang's
    /// pages) of `block_size` tokens, and the requests that fit in them at once. vLLM and SGLang
    /// differ in how they size the pool, not in how they fill it.
    pub(super) fn of_pool(b: &Breakdown, s: &Scenario, budget: u64, kv_pool: u64) -> ServingFit {
        let per_token = b.kv_bytes_per_token.max(1);
        let blocks = kv_pool / prod(&[per_token, s.block_size]).max(1);
        let tokens = blocks * s.block_size;
        let (shared, own) = prefix_split(s);
        // an encoder–decoder request also holds its cross-attention cache, in tokens' worth
        let own = own + div_ceil(b.cross_kv_per_sequence, per_token);
        ServingFit {
            budget,
            kv_pool,
            kv_bytes_per_token: per_token,
            blocks,
            tokens,
            max_concurrency: tokens.saturating_sub(shared) / own.max(1),
            max_len_fits: tokens >= s.max_model_len,
            block_size: s.block_size,
            state_slots: 0,
        }
    }
}

impl Budget<'_> {
    /// KV-cache bytes of `seqs` sequences of `ctx` tokens of context, on one rank.
    pub(super) fn kv_bytes(&self, seqs: u64, ctx: u64) -> u64 {
        let bits = self.scenario.kv_dtype.bits();
        if self.scenario.kv_all_heads && self.arch.mla.is_none() {
            kv_bytes_with_heads(self.arch, self.arch.heads, bits, self.tp, seqs, ctx)
        } else {
            kv_cache_bytes(self.arch, bits, self.tp, seqs, ctx)
        }
    }

    pub(super) fn inference(&mut self) {
        if self.scenario.job == Job::Serving {
            self.serving();
        } else {
            self.generation();
        }
    }

    /// A server: one profiled forward over the batched tokens, sampling logits, and the KV cache
    /// of the concurrent requests.
    fn serving(&mut self) {
        let s = self.scenario;
        let tokens = s.batched_tokens;
        let act = prefill_activation_bytes(self.arch, s, self.act_bytes, self.tp, 1, tokens);
        // the profile spreads the batched tokens over up to max_num_seqs sequences and samples
        // one token for each (V0 `profile_run` in vllm/worker/model_runner.py; V1
        // `_dummy_sampler_run` in vllm/v1/worker/gpu_model_runner.py): logits in fp32
        // with speculative decoding each sequence verifies decode_query_len tokens
        let sampled = s
            .max_num_seqs
            .saturating_mul(crate::server::decode_query_len(s))
            .min(tokens);
        let logits = prod(&[
            sampled,
            div_ceil(self.arch.vocab, self.tp),
            4 + self.act_bytes,
        ]);
        self.push(Component::Activations, Phase::Compute, act, |_| {
            Formula::of(Msg::ServingForward, &[Arg::Count(tokens)]).equals(act)
        });
        // the sampler runs where the head is: the last pipeline stage
        let logits = if self.stage.head { logits } else { 0 };
        self.push(Component::Logits, Phase::Compute, logits, |b| {
            let args = [
                Arg::Int(sampled),
                Arg::Count(b.arch.vocab),
                Arg::Int(4 + b.act_bytes),
            ];
            Formula::of(Msg::ServingLogits, &args).equals(logits)
        });
        let (shared, own) = prefix_split(s);
        // each data-parallel attention rank serves its share of the requests with its own cache
        let requests = div_ceil(s.concurrency, s.attention_ranks());
        let kv = self.kv_bytes(requests, own) + self.kv_bytes(1, shared);
        self.push(Component::KvCache, Phase::Always, kv, |b| {
            let args = [
                Arg::Int(requests),
                Arg::Count(own),
                Arg::Int(s.block_size),
                Arg::Count(b.kv_bytes(1, 1)),
            ];
            let mut f = Formula::of(Msg::ServingKv, &args);
            if shared > 0 {
                f.push(Msg::SharedPrefix, &[Arg::Count(shared)]);
            }
            f.equals(kv)
        });
        self.proposer_kv(prod(&[requests, own]) + shared);
        self.lora_slots();
        self.server_extras();
    }

    /// vLLM's multi-LoRA buffers, allocated when the model loads, before the profile sizes the KV
    /// pool (`vllm/lora/layers/base_linear.py`, `create_lora_weights`): for each of `max_loras`
    /// slots and each linear module, A (max_lora_rank × d_in) and B (d_out × max_lora_rank) in
    /// the model's dtype (`lora_dtype` auto). A column-parallel module splits d_out over the
    /// tensor-parallel ranks, a row-parallel one (o, down) d_in. Routed experts are not counted.
    fn lora_slots(&mut self) {
        let s = self.scenario;
        if s.max_loras == 0 {
            return;
        }
        let (r, tp) = (s.max_lora_rank, self.tp);
        let sum = |ms: &[(&str, u64, u64)]| -> u64 {
            ms.iter()
                .map(|(n, i, o)| match *n {
                    "o" | "down" => r * (div_ceil(*i, tp) + o),
                    _ => r * (i + div_ceil(*o, tp)),
                })
                .sum()
        };
        let a = self.arch;
        let mut per_slot = a.attention_layers() * sum(&a.attention_matrices());
        per_slot += a.dense_layers() * sum(&a.mlp_matrices(a.intermediate));
        let elem = self.format.compute_bytes();
        let bytes = prod(&[s.max_loras, per_slot, elem]);
        self.push(Component::Adapter, Phase::Always, bytes, |_| {
            let args = [
                Arg::Int(s.max_loras),
                Arg::Count(per_slot),
                Arg::Int(r),
                Arg::Int(elem),
            ];
            Formula::of(Msg::LoraSlots, &args).equals(bytes)
        });
    }

    /// Generating from a prompt: the KV cache, the prefill's dequantized matrix, activations and
    /// last-token logits.
    fn generation(&mut self) {
        let s = self.scenario;
        let prompt = s.seq;
        let full = s.seq + s.gen;
        if s.static_kv {
            self.static_kv(full);
        } else {
            self.growing_kv(prompt, full);
        }
        if self.dequantizes_4bit() && prod(&[s.batch, prompt]) > 1 {
            // bitsandbytes dequantizes each 4-bit matrix to 16-bit to multiply more than one token
            let (n, dq) = self.largest_in_16_bit();
            self.push(Component::Weights, Phase::Compute, dq, |_| {
                Formula::of(Msg::PrefillDequantized, &[Arg::Count(n)]).equals(dq)
            });
        }
        let act = prefill_activation_bytes(self.arch, s, self.act_bytes, self.tp, s.batch, prompt);
        self.push(Component::Activations, Phase::Compute, act, |_| {
            let mut f = Formula::of(Msg::PrefillActivations, &[Arg::Count(s.batch * prompt)]);
            if s.attention == Attention::Eager {
                f.push(Msg::PrefillEagerScores, &[]);
            }
            f.equals(act)
        });
        if !self.stage.head {
            return;
        }
        let logits = prod(&[
            s.batch,
            div_ceil(self.arch.vocab, self.tp),
            4 + self.act_bytes,
        ]);
        self.push(Component::Logits, Phase::Compute, logits, |b| {
            let args = [
                Arg::Int(s.batch),
                Arg::Count(b.arch.vocab),
                Arg::Int(4 + b.act_bytes),
            ];
            Formula::of(Msg::GenerationLogits, &args).equals(logits)
        });
    }

    /// When every attention head is cached rather than the KV heads, the formula says so.
    fn heads_note(&self, f: &mut Formula) {
        let a = self.arch;
        if self.scenario.kv_all_heads && a.mla.is_none() && a.kv_heads < a.heads {
            f.push(
                Msg::AllHeadsCached,
                &[Arg::Int(a.heads), Arg::Int(a.kv_heads)],
            );
        }
    }

    /// A static cache, allocated for its whole length before the first token; past it, what
    /// generation needs (`full` tokens).
    fn static_kv(&mut self, full: u64) {
        let s = self.scenario;
        let len = s.max_model_len.max(full);
        let kv = self.kv_bytes(s.batch, len);
        self.push(Component::KvCache, Phase::Always, kv, |b| {
            let msg = if len > s.max_model_len {
                Msg::StaticKvPastMaxLength
            } else {
                Msg::StaticKv
            };
            let args = [
                Arg::Int(s.batch),
                Arg::Count(len),
                Arg::Count(b.kv_bytes(1, 1)),
            ];
            let mut f = Formula::of(msg, &args);
            b.heads_note(&mut f);
            f.equals(kv)
        });
    }

    /// The cache as it grows: the prompt's at the prefill, prompt + generated at the end.
    fn growing_kv(&mut self, prompt: u64, full: u64) {
        let s = self.scenario;
        let a = self.arch;
        let kv_prompt = self.kv_bytes(s.batch, prompt);
        let kv_full = self.kv_bytes(s.batch, full);
        self.push(Component::KvCache, Phase::Compute, kv_prompt, |b| {
            let args = [
                Arg::Int(s.batch),
                Arg::Count(prompt),
                Arg::Count(b.kv_bytes(1, 1)),
            ];
            let mut f = Formula::of(Msg::PromptKv, &args);
            b.heads_note(&mut f);
            f.and(Msg::AtThePrefill, &[]).equals(kv_prompt)
        });
        self.push(Component::KvCache, Phase::Step, kv_full, |b| {
            let args = [
                Arg::Int(s.batch),
                Arg::Count(full),
                Arg::Count(b.kv_bytes(1, 1)),
            ];
            let mut f = Formula::of(Msg::GeneratedKv, &args);
            if let Some(w) = a.sliding_window {
                let args = [
                    Arg::Int(a.sliding_layers),
                    Arg::Int(a.layers),
                    Arg::Count(w),
                ];
                f.push(Msg::SlidingLayers, &args);
            }
            b.heads_note(&mut f);
            f.equals(kv_full)
        });
    }
}

/// A server's tokens as (shared, own): with automatic prefix caching the full blocks of the prefix
/// every request shares are stored once (vLLM hashes only full blocks, `vllm/v1/core/
/// kv_cache_utils.py` `hash_request_tokens`), and each request keeps the rest of its average
/// length, rounded up to blocks.
pub(super) fn prefix_split(s: &Scenario) -> (u64, u64) {
    let shared = s.shared_prefix.min(s.avg_tokens) / s.block_size * s.block_size;
    let own = div_ceil(s.avg_tokens - shared, s.block_size) * s.block_size;
    (shared, own)
}

/// KV-cache bytes for `seqs` sequences of `ctx` tokens: 2 (K and V) × KV heads per rank × head_dim
/// × bits/8 per layer and token; MLA caches one latent (kv_lora_rank + rope dim); sliding-window
/// layers keep at most `window` tokens.
pub(crate) fn kv_cache_bytes(a: &Architecture, bits: u64, tp: u64, seqs: u64, ctx: u64) -> u64 {
    kv_bytes_with_heads(a, a.kv_heads, bits, tp, seqs, ctx)
}

/// [`kv_cache_bytes`] with `heads` K/V heads cached per layer (not MLA).
fn kv_bytes_with_heads(
    a: &Architecture,
    heads: u64,
    bits: u64,
    tp: u64,
    seqs: u64,
    ctx: u64,
) -> u64 {
    let per_layer_token_bits = match &a.mla {
        Some(m) => (m.kv_lora_rank + m.rope_dim) * bits,
        None => 2 * div_ceil(heads, tp) * a.head_dim * bits,
    };
    let full_layers = a.full_attention_layers();
    let sliding_layers = a.attention_layers() - full_layers;
    let window = a.sliding_window.unwrap_or(ctx).min(ctx);
    let token_layers = prod(&[full_layers, ctx]).saturating_add(prod(&[sliding_layers, window]));
    div_ceil(prod(&[seqs, token_layers, per_layer_token_bits]), 8)
}

#[cfg(test)]
mod tests {
    use crate::memory::{estimate, Component};
    use crate::scenario::{Job, Scenario};

    fn served(f: impl FnOnce(&mut Scenario)) -> crate::memory::Breakdown {
        let mut s = Scenario {
            job: Job::Serving,
            ..Scenario::default()
        };
        f(&mut s);
        estimate(&s).unwrap()
    }

    #[test]
    fn lora_slots_take_rank_times_in_plus_out_of_every_linear_module_from_the_kv_pool() {
        let off = served(|_| {});
        let on = served(|s| s.max_loras = 4);
        // Llama 3.1 8B: q 4096→4096, k, v 4096→1024, o 4096→4096, gate, up 4096→14336, down
        // 14336→4096: 16 × 2 × (4096 + 4096) + 2 × 16 × (4096 + 1024) + 3 × 16 × (4096 + 14336)
        let per_layer = 16 * 2 * 8192 + 2 * 16 * 5120 + 3 * 16 * 18432;
        assert_eq!(on.bytes(Component::Adapter), 4 * 32 * per_layer * 2);
        let (a, b) = (off.serving.unwrap(), on.serving.unwrap());
        assert_eq!(a.kv_pool - b.kv_pool, on.bytes(Component::Adapter));
    }

    #[test]
    fn a_shared_prefix_is_cached_once_in_full_blocks() {
        let off = served(|_| {});
        let on = served(|s| s.shared_prefix = 520);
        // 512 of the 520 tokens fill blocks: 16 requests keep 512 tokens each, plus 512 once
        let per_token = off.kv_bytes_per_token;
        assert_eq!(off.bytes(Component::KvCache), 16 * 1024 * per_token);
        assert_eq!(on.bytes(Component::KvCache), (16 * 512 + 512) * per_token);
        let (a, b) = (off.serving.unwrap(), on.serving.unwrap());
        assert_eq!(b.max_concurrency, (b.tokens - 512) / 512);
        assert!(b.max_concurrency > a.max_concurrency);
    }
}
