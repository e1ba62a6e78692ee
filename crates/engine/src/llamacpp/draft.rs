//! A draft model beside the target in llama-server (`-md FILE`, `-cd N`, `-ngld N`):
//! `tools/server/server.cpp` (`load_model`) loads it with the target's settings but its own
//! GPU layers (`-ngld`), one sequence, F16 caches (`-ctkd` / `-ctvd` default), and a context of
//! `-cd` cells, or the target's cells per sequence when `-cd` is 0; then every slot creates its
//! own draft context (`init`: `slot.ctx_dft = llama_init_from_model(model_dft, cparams_dft)`), so
//! the draft's KV cache, compute buffers and output buffer are held once per slot (`-np`), its
//! weights once.

use super::error::LlamaError;
use super::placement::Backend;
use super::plan::{plan_llama, LlamaPlan};
use super::settings::LlamaSettings;
use crate::gguf::{GgmlType, GgufHeader};

/// The draft model's own settings: `-ngld` and `-cd`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LlamaDraft {
    /// `-ngld`: the draft's layers on the GPUs; None = all.
    pub gpu_layers: Option<u64>,
    /// `-cd`: the draft's context; None (0) = the target's cells per sequence.
    pub context: Option<u64>,
}

/// The target's plan with the draft model's buffers added to each device's `draft`.
pub fn plan_with_draft(
    header: &GgufHeader,
    draft_header: &GgufHeader,
    settings: &LlamaSettings,
    draft: LlamaDraft,
    backend: Backend,
) -> Result<LlamaPlan, LlamaError> {
    let mut plan = plan_llama(header, settings, backend)?;
    let draft_settings = LlamaSettings {
        gpu_layers: draft.gpu_layers,
        context: Some(draft.context.unwrap_or(plan.sizes.n_ctx_seq)),
        parallel: 1,
        cache_k: GgmlType::F16,
        cache_v: GgmlType::F16,
        cpu_moe_layers: 0,
        projector: None,
        ..settings.clone()
    };
    let drafted = plan_llama(draft_header, &draft_settings, backend)?;
    let slots = settings.parallel.max(1);
    for (device, d) in &drafted.devices {
        let per_slot = d.kv + d.compute + d.output;
        let bytes = d.model.saturating_add(per_slot.saturating_mul(slots));
        if let Some((_, b)) = plan.devices.iter_mut().find(|(t, _)| t == device) {
            b.draft = b.draft.saturating_add(bytes);
        }
    }
    plan.draft = Some(Box::new(drafted));
    Ok(plan)
}
