//! A llama.cpp / Ollama run from a scenario (the page's, a link's, the CLI's): its GGUF header
//! (a picked file's summary, or the preset quantized as llama.cpp would), its flags, the machine,
//! and everything the page shows: buffers per device against their limits, the solver's answers,
//! the commands and the decode-speed bound at every -ngl.

mod ollama;

pub use ollama::with_ollama_defaults;

use crate::dtype::WeightFormat;
use crate::gguf::GgufHeader;
use crate::llamacpp::{
    best_quant, decode_bound, launch_commands, max_context, max_gpu_layers, plan_llama,
    synthesize_gguf, DeviceFit, LaunchCommands, LlamaDraft, LlamaError, LlamaPlan, LlamaSettings,
    Mac, Machine, SpeedBound, UmaBox, DEFAULT_HOST_BANDWIDTH, MAC_CHIPS, MAX_GPUS,
};
use crate::scenario::{LocalMachine, Scenario, SplitMode};
use crate::units::{GIB, MIB};

/// Everything the page shows for a local run.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalOverview {
    pub settings: LlamaSettings,
    pub machine: Machine,
    pub plan: LlamaPlan,
    /// Host first, then each GPU: need against limit.
    pub fit: Vec<DeviceFit>,
    pub fits: bool,
    /// The largest -ngl that fits (None: not even -ngl 0).
    pub max_gpu_layers: Option<u64>,
    /// The longest -c that fits (None: not even the shortest).
    pub max_context: Option<u64>,
    pub commands: LaunchCommands,
    pub speed: SpeedBound,
    /// The decode bound with an empty context at every -ngl from 0 to all layers and the output.
    pub speed_by_layers: Vec<(u64, f64)>,
    /// The model's weight bytes.
    pub model_bytes: u64,
    /// For a preset: the highest-precision GGUF format whose every layer fits on the GPUs
    /// (None when none does, or when the model is a picked file).
    pub best_format: Option<WeightFormat>,
    /// The same run with Ollama's defaults for its model and machine.
    pub ollama: Scenario,
}

/// The memory option of `chip` nearest to `gb`: the Mac a run is planned for.
pub fn nearest_mac_memory(chip: &str, gb: u64) -> u64 {
    MAC_CHIPS
        .iter()
        .find(|c| c.key == chip)
        .and_then(|c| c.options.iter().map(|o| o.0).min_by_key(|m| m.abs_diff(gb)))
        .unwrap_or(gb)
}

/// `--tensor-split` for `gpus` GPUs: the shares given, else llama.cpp's default, each GPU's free
/// memory (`llama_model_load`, src/llama-model.cpp: "default split, by free memory",
/// `splits[i] = free` from `ggml_backend_dev_memory`, then normalised by their sum). GPUs alike
/// with the same memory held split evenly, which is written 1,1; a mixed box splits by its free
/// MiB.
fn default_split(s: &Scenario, gpus: usize) -> Vec<f32> {
    let mixed = s.machine == LocalMachine::Gpu && gpus > 1 && s.mixed_gpus();
    if !s.tensor_split.is_even() || !mixed {
        return s.tensor_split.for_gpus(gpus);
    }
    let held = s.held_mib * MIB;
    (0..gpus)
        .map(|i| (s.gpu_at(i, gpus).visible_bytes().saturating_sub(held) / MIB) as f32)
        .collect()
}

/// The scenario's llama.cpp flags.
pub fn local_settings(s: &Scenario) -> LlamaSettings {
    let single_gpu = s.split_mode == SplitMode::Single && s.machine == LocalMachine::Gpu;
    let gpus = match s.machine {
        LocalMachine::Gpu if single_gpu => 1,
        LocalMachine::Gpu => (s.gpus as usize).clamp(1, MAX_GPUS),
        LocalMachine::Mac | LocalMachine::Uma | LocalMachine::Cpu => 1,
    };
    LlamaSettings {
        gpu_layers: Some(s.ngl),
        context: (s.n_ctx > 0).then_some(s.n_ctx),
        parallel: s.n_parallel,
        kv_unified: s.kv_unified,
        batch: s.n_batch,
        ubatch: s.n_ubatch,
        cache_k: s.cache_k,
        cache_v: s.cache_v,
        flash_attn: s.flash_attn,
        mmap: s.mmap,
        swa_full: s.swa_full,
        cpu_moe_layers: s.cpu_moe,
        op_offload: s.op_offload,
        tensor_split: default_split(s, gpus),
        single_gpu: single_gpu && s.gpus > 1,
        projector: s.mmproj.as_ref().map(|f| f.projector),
        projector_offload: s.mmproj_offload,
        draft: local_draft(s),
    }
}

/// The scenario's draft model (`-md`): its preset in the target's format, or in Q8_0 where
/// the target's is not a GGUF format; none for a preset without a GGUF form here.
fn local_draft(s: &Scenario) -> Option<LlamaDraft> {
    let arch = crate::model::presets::find(s.llama_draft)?.architecture();
    let header = synthesize_gguf(&arch, s.weights)
        .or_else(|_| synthesize_gguf(&arch, WeightFormat::GgufQ8_0))
        .ok()?;
    let name = crate::model::presets::find(s.llama_draft)?.name;
    let file = format!("{}.gguf", name.rsplit('/').next().unwrap_or(name));
    Some(LlamaDraft {
        file,
        header: std::sync::Arc::new(header),
        gpu_layers: Some(s.draft_ngl),
        context: (s.draft_ctx > 0).then_some(s.draft_ctx),
    })
}

/// The scenario's machine: its GPUs and RAM, its Mac, its unified-memory PC, or its CPU.
pub fn local_machine(s: &Scenario) -> Machine {
    let ram = (s.ram_gib > 0).then(|| s.ram_gib * GIB);
    let host_bandwidth = match s.ram_gbps {
        0 => DEFAULT_HOST_BANDWIDTH,
        gbps => gbps * 1_000_000_000,
    };
    match s.machine {
        LocalMachine::Gpu => {
            let count = (s.gpus as usize).clamp(1, MAX_GPUS);
            Machine::Gpus {
                gpu: s.gpu,
                last: s.gpu_at(count - 1, count),
                count,
                held: s.held_mib * MIB,
                ram,
                host_bandwidth,
            }
        }
        LocalMachine::Mac => {
            let gb = nearest_mac_memory(s.mac_chip, s.mac_memory_gb);
            let key = format!("{}-{gb}", s.mac_chip);
            let mac = Mac::find(&key)
                .or_else(|| Mac::find("M4-MAX-64"))
                .expect("the catalog has an M4 Max with 64 GB");
            Machine::Mac(match s.wired_limit_mb {
                0 => mac,
                mib => mac.with_wired_limit(mib),
            })
        }
        LocalMachine::Uma => Machine::Uma(UmaBox::new(
            s.uma_kind,
            s.uma_memory_gb,
            s.uma_carve_out_mib,
            s.gtt_limit_mib,
        )),
        LocalMachine::Cpu => Machine::Cpu {
            ram,
            bandwidth: host_bandwidth,
        },
    }
}

/// The GGUF header the run plans: the picked file's, else the preset in the chosen quant.
pub fn local_header(s: &Scenario) -> Result<GgufHeader, LlamaError> {
    match &s.gguf {
        Some(file) => file.summary.header().map_err(|_| LlamaError::NoGgufForm),
        None => {
            let arch = s.model.architecture().map_err(|_| LlamaError::NoGgufForm)?;
            synthesize_gguf(&arch, s.weights)
        }
    }
}

/// The preset's GGUF formats, best first, and the first of them that fits whole on the GPUs.
fn best_preset_format(s: &Scenario, machine: &Machine) -> Result<Option<WeightFormat>, LlamaError> {
    if s.gguf.is_some() {
        return Ok(None);
    }
    let Ok(arch) = s.model.architecture() else {
        return Ok(None);
    };
    let formats: Vec<WeightFormat> = WeightFormat::ALL
        .iter()
        .copied()
        .filter(|f| s.job.allows(*f))
        .collect();
    let headers = formats
        .iter()
        .map(|f| synthesize_gguf(&arch, *f))
        .collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<&GgufHeader> = headers.iter().collect();
    Ok(best_quant(&refs, &local_settings(s), machine)?.map(|i| formats[i]))
}

impl LocalOverview {
    pub fn compute(s: &Scenario) -> Result<LocalOverview, LlamaError> {
        let header = local_header(s)?;
        let settings = local_settings(s);
        let machine = local_machine(s);
        let plan = plan_llama(&header, &settings, machine.backend())?;
        let n_layer = plan.shape.n_layer;
        let bandwidth = |d| machine.bandwidth(d);
        let speed = decode_bound(&header, &plan, settings.cpu_moe_layers, bandwidth);
        let speed_by_layers = (0..=n_layer + 1)
            .map(|ngl| {
                let at = LlamaSettings {
                    gpu_layers: Some(ngl),
                    ..settings.clone()
                };
                let p = plan_llama(&header, &at, machine.backend())?;
                let bound = decode_bound(&header, &p, settings.cpu_moe_layers, bandwidth);
                Ok((ngl, bound.empty_context))
            })
            .collect::<Result<Vec<_>, LlamaError>>()?;
        Ok(LocalOverview {
            fit: machine.fit(&plan),
            fits: machine.fits(&plan),
            max_gpu_layers: max_gpu_layers(&header, &settings, &machine)?,
            max_context: max_context(&header, &settings, &machine)?,
            commands: launch_commands(&settings, n_layer),
            model_bytes: header.tensor_bytes(),
            best_format: best_preset_format(s, &machine)?,
            ollama: with_ollama_defaults(s, &header),
            settings,
            machine,
            plan,
            speed,
            speed_by_layers,
        })
    }
}

#[cfg(test)]
mod ollama_tests;
#[cfg(test)]
mod run_tests;
