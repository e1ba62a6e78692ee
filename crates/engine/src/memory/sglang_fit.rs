//! How SGLang fills a GPU: `mem_fraction_static` of the memory free before loading holds the
//! weights and the KV pool; activations and CUDA graphs live in the rest (see `crate::sglang`).

use super::{Breakdown, Component, ServingFit};
use crate::gpus::Gpu;
use crate::scenario::Scenario;
use crate::sglang::mem_fraction_permille;
use crate::units::{scale, MIB};

/// SGLang's split of one GPU, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SglangSplit {
    /// `mem_fraction_static`, in thousandths.
    pub permille: u64,
    /// What is free before the weights load: the driver's total less the CUDA context, the
    /// communicators and what other processes hold (`total_gpu_memory` in
    /// `profile_max_num_token`, read from free memory).
    pub free_before: u64,
    /// `mem_fraction_static` × `free_before`: the weights and the KV pool.
    pub static_budget: u64,
    /// What loading takes of the static share: weights, LoRA slots, a proposer's weights.
    pub loaded: u64,
    /// What runs outside it: the largest activations and logits, and the CUDA graphs.
    pub(crate) dynamic: u64,
}

impl Breakdown {
    /// How SGLang started with the scenario's settings splits `gpu` (the breakdown being the one
    /// on that card, [`Breakdown::on_gpu`]).
    pub fn sglang_split(&self, s: &Scenario, gpu: Gpu) -> SglangSplit {
        let permille = mem_fraction_permille(s, gpu);
        // what other processes hold is not free either
        let context = s.context_mib * MIB + self.comm_buffers + s.held_mib * MIB;
        let free_before = gpu.visible_bytes().saturating_sub(context);
        let loaded = self.bytes(Component::Weights) + self.bytes(Component::Adapter);
        let dynamic = self.largest(Component::Activations)
            + self.largest(Component::Logits)
            + self.cuda_graphs;
        SglangSplit {
            permille,
            free_before,
            static_budget: scale(free_before, permille, 1_000),
            loaded,
            dynamic,
        }
    }
}

impl ServingFit {
    /// SGLang's pool: `max_total_num_tokens` = (static share − what loading took) / KV bytes per
    /// token, aligned down to the page size (`--page-size`, the scenario's block size).
    pub(super) fn sglang(b: &Breakdown, s: &Scenario, gpu: Gpu) -> ServingFit {
        let split = b.sglang_split(s, gpu);
        let kv_pool = split.static_budget.saturating_sub(split.loaded);
        if b.recurrent.is_some() {
            return ServingFit::sglang_hybrid(b, s, split.static_budget, kv_pool);
        }
        ServingFit::of_pool(b, s, split.static_budget, kv_pool)
    }
}
