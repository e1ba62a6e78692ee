//! A draft model beside the target in llama-server (`-md FILE`, `-cd N`, `-ngld N`):
//! `tools/server/server.cpp` (`load_model`) loads it with the target's settings but its own
//! GPU layers (`-ngld`), one sequence, F16 caches (`-ctkd` / `-ctvd` default), and a context of
//! `-cd` cells, or the target's cells per sequence when `-cd` is 0; then every slot creates its
//! own draft context (`init`: `slot.ctx_dft = llama_init_from_model(model_dft, cparams_dft)`), so
//! the draft's KV cache, compute buffers and output buffer are held once per slot (`-np`), its
//! weights once.

use std::sync::Arc;

use super::error::LlamaError;
use super::placement::Backend;
use super::plan::{plan_llama, LlamaPlan};
use super::settings::LlamaSettings;
use crate::gguf::{GgmlType, GgufHeader};

/// The draft model and its own settings: `-md`, `-ngld` and `-cd`.
#[derive(Clone, Debug, PartialEq)]
pub struct LlamaDraft {
    /// The draft's file as `-md` names it.
    pub file: String,
    pub header: Arc<GgufHeader>,
    /// `-ngld`: the draft's layers on the GPUs; None = all.
    pub gpu_layers: Option<u64>,
    /// `-cd`: the draft's context; None (0) = the target's cells per sequence.
    pub context: Option<u64>,
}

impl LlamaDraft {
    /// The draft's own plan beside a target whose cells per sequence are `target_cells`.
    pub(super) fn plan(
        &self,
        target: &LlamaSettings,
        target_cells: u64,
        backend: Backend,
    ) -> Result<LlamaPlan, LlamaError> {
        let settings = LlamaSettings {
            gpu_layers: self.gpu_layers,
            context: Some(self.context.unwrap_or(target_cells)),
            parallel: 1,
            cache_k: GgmlType::F16,
            cache_v: GgmlType::F16,
            cpu_moe_layers: 0,
            projector: None,
            draft: None,
            ..target.clone()
        };
        plan_llama(&self.header, &settings, backend)
    }
}

/// Adds the draft's buffers to each of `plan`'s devices: its weights once, its context once
/// per slot.
pub(super) fn add_draft(plan: &mut LlamaPlan, drafted: LlamaPlan, slots: u64) {
    for (device, d) in &drafted.devices {
        let per_slot = d.kv + d.compute + d.output;
        let bytes = d
            .model
            .saturating_add(per_slot.saturating_mul(slots.max(1)));
        if let Some((_, b)) = plan.devices.iter_mut().find(|(t, _)| t == device) {
            b.draft = b.draft.saturating_add(bytes);
        }
    }
    plan.draft = Some(Box::new(drafted));
}
