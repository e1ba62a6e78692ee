//! Ollama's defaults as a preset of the llama.cpp settings: what `ollama run` gives a GGUF model
//! when nothing is set. From v0.30.0 (PR #16031) Ollama starts llama.cpp's own `llama-server`
//! for GGML models (`llm/llama_server.go` `startLlamaServer`), read at ollama/ollama fb30760
//! (v0.33.0-rc2):
//!
//! - context per request: the sum of the GPUs' memory picks it (`server/routes.go` `Serve`,
//!   v0.15.5, PR #13946): 262,144 tokens from 47 GiB, 32,768 from 23 GiB, else 4,096, capped at
//!   the model's training context (`effectiveContext`);
//! - one request at a time (`OLLAMA_NUM_PARALLEL` = 1 since v0.10.0): `-c` = num_ctx × 1, `-np 1`;
//! - `-b` = `-ub` (`appendBatchArgs`), 512 up to a 4,096 context, 1,024 up to 32,768, 2,048 above
//!   (`automaticGenerationBatch`);
//! - `--flash-attn auto` (`appendFlashAttentionArgs`), which llama.cpp resolves to on wherever
//!   its backend has the kernels (the CPU, Metal, CUDA from compute capability 6);
//! - f16 K and V caches (`OLLAMA_KV_CACHE_TYPE` empty);
//! - no `-ngl`: llama-server fits as many layers as the memory holds, which the engine's own
//!   largest `-ngl` that fits stands for;
//! - mmap off on the CPU alone and on a Mac that does not hold every layer
//!   (`disableMmapDefaultReason`).

use super::local_machine;
use crate::gguf::{GgmlType, GgufHeader};
use crate::llamacpp::{max_gpu_layers, LlamaSettings, Machine};
use crate::scenario::Scenario;
use crate::units::GIB;

/// The context Ollama gives a request on GPUs with `gpu_bytes` of memory together.
pub(crate) fn ollama_context(gpu_bytes: u64) -> u64 {
    match gpu_bytes {
        b if b >= 47 * GIB => 262_144,
        b if b >= 23 * GIB => 32_768,
        _ => 4_096,
    }
}

/// The batch Ollama passes as both `-b` and `-ub` for a context of `n_ctx`.
pub(crate) fn ollama_batch(n_ctx: u64) -> u64 {
    match n_ctx {
        0..=4_096 => 512,
        4_097..=32_768 => 1_024,
        _ => 2_048,
    }
}

/// The GPU memory Ollama adds up to pick the context: every card's total (a Mac's GPU working
/// set, as Metal reports `recommendedMaxWorkingSetSize`); none on the CPU alone.
fn gpu_memory(machine: &Machine) -> u64 {
    match machine {
        Machine::Gpus { count, .. } => (0..*count)
            .filter_map(|i| machine.gpu_at(i))
            .map(|g| g.visible_bytes())
            .sum(),
        Machine::Mac(mac) => mac.working_set(),
        Machine::Uma(uma) => uma.gpu_limit(),
        Machine::Cpu { .. } => 0,
    }
}

/// `s` with Ollama's defaults for its model (`header`) on its machine.
pub fn with_ollama_defaults(s: &Scenario, header: &GgufHeader) -> Scenario {
    let machine = local_machine(s);
    let hp = header.hyperparameters();
    let trained = hp.context_length.filter(|&c| c > 0).unwrap_or(u64::MAX);
    let n_ctx = ollama_context(gpu_memory(&machine)).min(trained);
    let batch = ollama_batch(n_ctx);
    let mut out = Scenario {
        n_ctx,
        n_parallel: 1,
        kv_unified: false,
        n_batch: batch,
        n_ubatch: batch,
        flash_attn: true,
        cache_k: GgmlType::F16,
        cache_v: GgmlType::F16,
        ..s.clone()
    };
    let settings = LlamaSettings {
        gpu_layers: None,
        ..super::local_settings(&out)
    };
    let fitted = match machine {
        Machine::Cpu { .. } => Some(0),
        _ => max_gpu_layers(header, &settings, &machine).ok().flatten(),
    };
    out.ngl = fitted.unwrap_or(0);
    let all_layers = hp.block_count.unwrap_or(0) + 1;
    out.mmap = match machine {
        Machine::Cpu { .. } => false,
        Machine::Mac(_) => out.ngl >= all_layers,
        Machine::Gpus { .. } | Machine::Uma(_) => s.mmap,
    };
    out
}
