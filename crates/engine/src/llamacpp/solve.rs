//! The solver for llama.cpp: the most layers on the GPUs, the longest context, the
//! highest-precision file that fits whole; and the flags to type for llama-server and Ollama.

use super::error::LlamaError;
use super::kv::CELL_PAD;
use super::machine::Machine;
use super::plan::plan_llama;
use super::settings::{LlamaSettings, MAX_CONTEXT};
use crate::gguf::GgufHeader;

fn fits(header: &GgufHeader, s: &LlamaSettings, machine: &Machine) -> Result<bool, LlamaError> {
    Ok(machine.fits(&plan_llama(header, s, machine.backend())?))
}

/// The largest -ngl (0 ..= n_layer + 1, the output counted) whose buffers fit; None when even
/// -ngl 0 does not (the host is too small).
pub fn max_gpu_layers(
    header: &GgufHeader,
    settings: &LlamaSettings,
    machine: &Machine,
) -> Result<Option<u64>, LlamaError> {
    let n_layer = plan_llama(header, settings, machine.backend())?
        .shape
        .n_layer;
    for ngl in (0..=n_layer + 1).rev() {
        let s = LlamaSettings {
            gpu_layers: Some(ngl),
            ..settings.clone()
        };
        if fits(header, &s, machine)? {
            return Ok(Some(ngl));
        }
    }
    Ok(None)
}

/// The longest -c (a multiple of 256 × -np) that fits, up to the training context; None when
/// even the shortest does not.
pub fn max_context(
    header: &GgufHeader,
    settings: &LlamaSettings,
    machine: &Machine,
) -> Result<Option<u64>, LlamaError> {
    let shape = plan_llama(header, settings, machine.backend())?.shape;
    let step = CELL_PAD * settings.parallel;
    let ceiling = shape.n_ctx_train.unwrap_or(MAX_CONTEXT).min(MAX_CONTEXT);
    let with = |steps: u64| LlamaSettings {
        context: Some(steps * step),
        ..settings.clone()
    };
    let (mut lo, mut hi) = (0u64, (ceiling / step).max(1));
    if !fits(header, &with(1), machine)? {
        return Ok(None);
    }
    lo += 1;
    if fits(header, &with(hi), machine)? {
        return Ok(Some(hi * step));
    }
    // lo fits, hi does not
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(header, &with(mid), machine)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo * step))
}

/// Among other quantizations of the same model, the index of the one with the most weight bytes
/// that fits with every layer on the GPUs; None when none does.
pub fn best_quant(
    candidates: &[&GgufHeader],
    settings: &LlamaSettings,
    machine: &Machine,
) -> Result<Option<usize>, LlamaError> {
    let all = LlamaSettings {
        gpu_layers: None,
        ..settings.clone()
    };
    let mut best: Option<(usize, u64)> = None;
    for (i, header) in candidates.iter().enumerate() {
        if fits(header, &all, machine)? && best.is_none_or(|(_, b)| header.tensor_bytes() > b) {
            best = Some((i, header.tensor_bytes()));
        }
    }
    Ok(best.map(|(i, _)| i))
}

/// How to start the run: llama-server's flags, and Ollama's environment and model parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchCommands {
    /// (flag, value), value empty for a bare flag: `-ngl 33 -c 16384 -fa on`.
    pub llama_server: Vec<(&'static str, String)>,
    /// Server environment: OLLAMA_NUM_PARALLEL, OLLAMA_FLASH_ATTENTION, OLLAMA_KV_CACHE_TYPE.
    pub ollama_env: Vec<(&'static str, String)>,
    /// Modelfile / API options: num_ctx (per sequence), num_gpu (layers), num_batch.
    pub ollama_options: Vec<(&'static str, String)>,
    /// Ollama has one cache type for K and V: true when the settings use two.
    pub ollama_mixed_cache: bool,
}

/// The flags that reproduce `settings`; defaults left out except -ngl, -c and -fa.
pub fn launch_commands(s: &LlamaSettings, n_layer: u64) -> LaunchCommands {
    let d = LlamaSettings::default();
    let ngl = s.gpu_layers.unwrap_or(n_layer + 1).min(n_layer + 1);
    let mut server: Vec<(&'static str, String)> = vec![("-ngl", ngl.to_string())];
    if let Some(c) = s.context {
        server.push(("-c", c.to_string()));
    }
    server.push(("-fa", if s.flash_attn { "on" } else { "off" }.into()));
    let mut push_if = |differs: bool, flag, value: String| {
        if differs {
            server.push((flag, value));
        }
    };
    push_if(s.parallel != d.parallel, "-np", s.parallel.to_string());
    push_if(s.kv_unified, "--kv-unified", String::new());
    push_if(s.batch != d.batch, "-b", s.batch.to_string());
    push_if(s.ubatch != d.ubatch, "-ub", s.ubatch.to_string());
    push_if(
        s.cache_k != d.cache_k,
        "--cache-type-k",
        s.cache_k.name().into(),
    );
    push_if(
        s.cache_v != d.cache_v,
        "--cache-type-v",
        s.cache_v.name().into(),
    );
    push_if(!s.mmap, "--no-mmap", String::new());
    push_if(s.swa_full, "--swa-full", String::new());
    push_if(!s.op_offload, "--no-op-offload", String::new());
    push_if(
        s.projector.is_some() && !s.projector_offload,
        "--no-mmproj-offload",
        String::new(),
    );
    push_if(
        s.cpu_moe_layers > 0,
        "--n-cpu-moe",
        s.cpu_moe_layers.to_string(),
    );
    let split = s
        .tensor_split
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>();
    push_if(s.tensor_split.len() > 1, "--tensor-split", split.join(","));
    push_if(s.single_gpu, "-sm", "none".into());
    if let Some(draft) = &s.draft {
        server.push(("-md", draft.file.clone()));
        if let Some(ngld) = draft.gpu_layers {
            server.push(("-ngld", ngld.to_string()));
        }
        if let Some(cd) = draft.context {
            server.push(("-cd", cd.to_string()));
        }
    }
    let mut env = vec![
        ("OLLAMA_NUM_PARALLEL", s.parallel.to_string()),
        ("OLLAMA_FLASH_ATTENTION", u8::from(s.flash_attn).to_string()),
    ];
    if s.cache_k != d.cache_k || s.cache_v != d.cache_v {
        env.push(("OLLAMA_KV_CACHE_TYPE", s.cache_v.name().into()));
    }
    let mut options = vec![("num_gpu", ngl.to_string())];
    if let Some(c) = s.context {
        options.insert(0, ("num_ctx", (c / s.parallel.max(1)).to_string()));
    }
    if s.batch != d.batch {
        options.push(("num_batch", s.batch.to_string()));
    }
    LaunchCommands {
        llama_server: server,
        ollama_env: env,
        ollama_options: options,
        ollama_mixed_cache: s.cache_k != s.cache_v,
    }
}
