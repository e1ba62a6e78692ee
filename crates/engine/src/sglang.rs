//! SGLang's start-up arithmetic (`python -m sglang.launch_server`): its defaults by GPU memory
//! and tensor-parallel size, and how `mem_fraction_static` sizes the KV pool.
//!
//! Defaults: `python/sglang/srt/server_args.py`, `ServerArgs._handle_gpu_memory_settings` (v0.5):
//! `chunked_prefill_size` and `cuda_graph_max_bs` by the GPU's memory (nvidia-smi's total, MiB),
//! then `mem_fraction_static = round((gpu_mem − reserved_mem) / gpu_mem, 3)`. The pool:
//! `model_runner_kv_cache_mixin.py`, `profile_max_num_token` (v0.5.8): `rest_memory =
//! available_gpu_memory − total_gpu_memory × (1 − mem_fraction_static)`, where
//! `total_gpu_memory` is the memory free before the weights load (after the CUDA context and the
//! communicators exist) and `available_gpu_memory` what is free after; the pool holds
//! `rest_memory / cell_size` tokens, `max_total_num_tokens`, aligned down to the page size.

use crate::gpus::Gpu;
use crate::scenario::Scenario;
use crate::scenario::SpecMethod;

/// `chunked_prefill_size` and `cuda_graph_max_bs` SGLang picks for a GPU of `gpu_mib` MiB at
/// tensor-parallel size `tp` ("T4, 4080" below 20 GiB; "A10, 4090, 5090" below 35 GiB; "A100
/// (40GB), L40" below 60 GiB; "H100, A100" below 90 GiB; "H20, H200" below 160 GiB; "B200,
/// MI300" above).
pub fn memory_tier_defaults(gpu_mib: u64, tp: u64) -> (u64, u64) {
    const GIB: u64 = 1024;
    let wide = tp >= 4;
    match gpu_mib {
        m if m < 20 * GIB => (2_048, 8),
        m if m < 35 * GIB => (2_048, if wide { 80 } else { 24 }),
        m if m < 60 * GIB => (4_096, if wide { 160 } else { 32 }),
        m if m < 160 * GIB => (8_192, if wide { 512 } else { 256 }),
        _ => (16_384, 512),
    }
}

/// What SGLang keeps outside `mem_fraction_static`, in half-MiB (its figure has halves):
/// 512 MiB of metadata, 1.5 MiB per token of the prefill chunk (at least 2,048), 2 MiB per
/// graph batch, 1 GiB per 8 GPUs of tp × pp; at least 10 GiB above 60 GiB of memory; 2 GiB
/// more for an EAGLE or MTP proposer, 6 GiB for a draft model (STANDALONE).
fn reserved_half_mib(s: &Scenario, gpu_mib: u64) -> u64 {
    let (chunk, graph_bs) = memory_tier_defaults(gpu_mib, s.tp);
    let mut reserved = 2 * 512 + 3 * chunk.max(2_048) + 2 * 2 * graph_bs + s.tp * s.pp * 256;
    if gpu_mib > 60 * 1024 {
        reserved = reserved.max(2 * 10 * 1024);
    }
    reserved
        + match s.spec {
            SpecMethod::Off | SpecMethod::Ngram => 0,
            SpecMethod::Draft => 2 * 6 * 1024,
            SpecMethod::Eagle | SpecMethod::Mtp => 2 * 2 * 1024,
        }
}

/// SGLang's default `mem_fraction_static` on `gpu` for the scenario, in thousandths.
pub(crate) fn default_mem_fraction_permille(s: &Scenario, gpu: Gpu) -> u64 {
    let total = 2 * gpu.mib();
    let kept = total.saturating_sub(reserved_half_mib(s, gpu.mib()));
    (kept * 2_000 + total) / (2 * total)
}

/// The `mem_fraction_static` the server runs with, in thousandths: the user's, or SGLang's
/// default for `gpu`.
pub fn mem_fraction_permille(s: &Scenario, gpu: Gpu) -> u64 {
    match s.mem_fraction_permille {
        0 => default_mem_fraction_permille(s, gpu),
        set => set,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(gpu: Gpu, tp: u64) -> u64 {
        let s = Scenario {
            gpu,
            tp,
            gpus: tp,
            ..Scenario::default()
        };
        default_mem_fraction_permille(&s, gpu)
    }

    #[test]
    fn sglang_keeps_its_reserve_outside_the_static_fraction_as_server_args_computes_it() {
        // H100 (81,559 MiB): 512 + 8,192 × 1.5 + 256 × 2 + 1 × 1,024 / 8 = 13,440 MiB reserved
        assert_eq!(on(Gpu::H100, 1), 835);
        // RTX 4090 (24,564 MiB): 512 + 3,072 + 48 + 128 = 3,760 MiB
        assert_eq!(on(Gpu::Rtx4090, 1), 847);
        // tensor parallel: 4 GPUs reserve 512 MiB for themselves and larger graph batches
        assert!(on(Gpu::H100, 4) < on(Gpu::H100, 1));
        let set = Scenario {
            mem_fraction_permille: 700,
            ..Scenario::default()
        };
        assert_eq!(mem_fraction_permille(&set, Gpu::H100), 700);
    }

    #[test]
    fn the_tiers_follow_the_gpus_memory_as_server_args_names_them() {
        assert_eq!(memory_tier_defaults(Gpu::T4.mib(), 1), (2_048, 8));
        assert_eq!(memory_tier_defaults(Gpu::Rtx4090.mib(), 4), (2_048, 80));
        assert_eq!(memory_tier_defaults(Gpu::A100_40.mib(), 1), (4_096, 32));
        assert_eq!(memory_tier_defaults(Gpu::H200.mib(), 8), (8_192, 512));
        assert_eq!(memory_tier_defaults(Gpu::B200.mib(), 1), (16_384, 512));
    }
}
