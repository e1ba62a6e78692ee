//! The settings registry: one descriptor per setting of a scenario.
//!
//! The link codec, the CLI's flags and `--help`, range checks, the solver's bounds and the page's
//! controls all read [`SETTINGS`]. Adding a setting means one descriptor here, its physics, and its
//! label and help in both languages (the shells' text tables, keyed by [`Setting::id`]).
//! The model (`m`, `p`, `cfg`, `mn`) and the page's language are not settings of the budget and are
//! read by the link codec itself.

use crate::dtype::{KvDtype, WeightFormat};
use crate::framework::{Batching, Framework};
use crate::gpus::Gpu;
use crate::llamacpp::{TensorShares, UmaKind, CACHE_TYPES, MAC_CHIPS};
use crate::presets;
use crate::scenario::{
    Attention, Checkpointing, DpFramework, Job, LocalMachine, LoraTargets, Loss, Offload,
    Optimizer, PipelineSchedule, Scenario, SplitMode, Switch, VllmVersion, WeightsLoad, Zero,
};
use crate::server::{CudaGraphs, Server, SpecMethod};
use crate::units::Unit;
use crate::weight_parts::{WeightPart, PART_FOLLOWS};

/// A setting's value as the registry reads and writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingValue {
    Number(u64),
    /// The key of one choice.
    Choice(&'static str),
    On(bool),
    Targets(LoraTargets),
    /// Each GPU's share of the layers.
    Shares(TensorShares),
}

/// The kind of input a setting takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingKind {
    /// A whole number in `min..=max`; the page's slider spans `slider` on a log scale (`log`),
    /// stepping through powers of two when `pow2`.
    Number {
        min: u64,
        max: u64,
        slider: (u64, u64),
        log: bool,
        pow2: bool,
    },
    /// One of a list of keys.
    Choice,
    /// On or off (`1` / `0` in links and flags).
    Switch,
    /// A set of LoRA target modules ("q,v" or "all").
    Targets,
    /// A share per GPU ("3,1"), or `even`.
    Shares,
}

/// Why a value was refused for a setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a key this setting knows.
    NotAChoice,
    /// Not a whole number within the setting's range.
    OutOfRange { min: u64, max: u64 },
    /// A switch takes 0 or 1.
    NotASwitch,
    /// Not a list of LoRA target modules.
    NotTargets,
    /// Not a list of shares, one per GPU (or `even`).
    NotShares,
}

/// One setting: how it is named in links, on the command line and on the page, what it accepts,
/// and where it lives on a [`Scenario`].
pub struct Setting {
    /// The link key (`b` in `?b=8`); never changes, shared links depend on it.
    pub key: &'static str,
    /// The CLI flag without `--`; never changes, scripts depend on it.
    pub flag: &'static str,
    /// Stable id of the page's control, and the key of its label and help texts.
    pub id: &'static str,
    /// What the CLI's `--help` shows as the value (`N`, `0|1`, or the choices).
    pub value_hint: &'static str,
    pub kind: SettingKind,
    /// Whether the setting means something for this scenario (its job, its weights).
    pub applies: fn(&Scenario) -> bool,
    read: fn(&Scenario) -> SettingValue,
    write: fn(&mut Scenario, SettingValue),
    /// Every key a choice accepts (in display order).
    keys: fn() -> Vec<&'static str>,
}

impl Setting {
    /// The setting with link key `key`.
    pub fn by_key(key: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.key == key)
    }

    /// The setting with CLI flag `flag` (without `--`).
    pub fn by_flag(flag: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.flag == flag)
    }

    /// The setting with page id `id`.
    pub fn by_id(id: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.id == id)
    }

    /// The setting's current value on `s`.
    pub fn get(&self, s: &Scenario) -> SettingValue {
        (self.read)(s)
    }

    /// Sets an already-checked value (use [`Setting::parse`] for text).
    pub fn set(&self, s: &mut Scenario, v: SettingValue) {
        (self.write)(s, v)
    }

    /// Every key a choice setting accepts; empty for other kinds.
    pub fn keys(&self) -> Vec<&'static str> {
        (self.keys)()
    }

    /// The choices the page offers for `s`: what the engine allows with the other settings.
    pub fn offered(&self, s: &Scenario) -> Vec<&'static str> {
        match self.key {
            "w" => WeightFormat::ALL
                .iter()
                .filter(|f| s.job.allows(**f))
                .map(|f| f.key())
                .collect(),
            _ if WeightPart::from_key(self.key).is_some() => std::iter::once(PART_FOLLOWS)
                .chain(
                    WeightFormat::ALL
                        .iter()
                        .filter(|f| !mixes_formats(s) || s.job.allows_part(**f))
                        .map(|f| f.key()),
                )
                .collect(),
            _ => self.keys(),
        }
    }

    /// The range of a numeric setting.
    pub fn range(&self) -> Option<(u64, u64)> {
        match self.kind {
            SettingKind::Number { min, max, .. } => Some((min, max)),
            _ => None,
        }
    }

    /// Reads a value written as in a link or on the command line.
    pub fn parse(&self, text: &str) -> Result<SettingValue, Refusal> {
        match self.kind {
            SettingKind::Number { min, max, .. } => match text.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(SettingValue::Number(n)),
                _ => Err(Refusal::OutOfRange { min, max }),
            },
            SettingKind::Choice => self
                .keys()
                .into_iter()
                .find(|k| k.eq_ignore_ascii_case(text))
                .map(SettingValue::Choice)
                .ok_or(Refusal::NotAChoice),
            SettingKind::Switch => match text {
                "1" => Ok(SettingValue::On(true)),
                "0" => Ok(SettingValue::On(false)),
                _ => Err(Refusal::NotASwitch),
            },
            SettingKind::Targets => LoraTargets::parse(text)
                .map(SettingValue::Targets)
                .map_err(|_| Refusal::NotTargets),
            SettingKind::Shares => TensorShares::parse(text)
                .map(SettingValue::Shares)
                .ok_or(Refusal::NotShares),
        }
    }

    /// Parses `text` and sets it on `s`.
    pub fn apply(&self, s: &mut Scenario, text: &str) -> Result<(), Refusal> {
        let v = self.parse(text)?;
        self.set(s, v);
        Ok(())
    }

    /// The value as a link or the CLI writes it.
    pub fn text(&self, s: &Scenario) -> String {
        match self.get(s) {
            SettingValue::Number(n) => n.to_string(),
            SettingValue::Choice(k) => k.to_string(),
            SettingValue::On(on) => u8::from(on).to_string(),
            SettingValue::Targets(t) => t.key(),
            SettingValue::Shares(t) => t.key(),
        }
    }
}

fn always(_: &Scenario) -> bool {
    true
}
fn training(s: &Scenario) -> bool {
    s.job.is_training()
}
fn peft(s: &Scenario) -> bool {
    s.job.is_peft()
}
/// QLoRA over a bitsandbytes 4-bit base.
fn qlora_bnb(s: &Scenario) -> bool {
    s.job == Job::Qlora && s.effective_weights().bnb_4bit_double_quant().is_some()
}
/// Training on samples that may be shorter than the cap.
fn training_samples(s: &Scenario) -> bool {
    s.job.is_training() && !s.model.is_encoder_decoder()
}
/// Training with an optimizer bitsandbytes can page.
fn pageable(s: &Scenario) -> bool {
    s.job.is_training() && s.optimizer.can_page()
}
/// Training under a torch DDP wrapper.
fn ddp(s: &Scenario) -> bool {
    s.job.is_training() && s.dp_framework == DpFramework::Ddp
}
/// Training whose states FSDP shards over several GPUs.
fn fsdp_sharding(s: &Scenario) -> bool {
    sharding(s) && s.dp_framework.is_fsdp()
}
/// Training whose weights are sharded over several GPUs.
fn sharded(s: &Scenario) -> bool {
    s.job.is_training() && s.zero == Zero::Z3 && s.gpus > 1
}
/// Training whose states are sharded over several GPUs.
fn sharding(s: &Scenario) -> bool {
    s.job.is_training() && s.zero != Zero::Z0 && s.gpus > 1
}
/// Training under the interleaved pipeline schedule.
fn interleaved_pipeline(s: &Scenario) -> bool {
    training_pipeline(s) && s.pipeline_schedule == PipelineSchedule::Interleaved
}
/// Training over tensor-parallel GPUs.
fn tensor_parallel_training(s: &Scenario) -> bool {
    s.job.is_training() && s.tp > 1
}
/// Training whose layers are split over pipeline stages.
fn training_pipeline(s: &Scenario) -> bool {
    s.job.is_training() && s.pp > 1
}
fn inference(s: &Scenario) -> bool {
    s.job == Job::Inference
}
fn serving(s: &Scenario) -> bool {
    s.job == Job::Serving
}
/// A vLLM server.
fn vllm_serving(s: &Scenario) -> bool {
    s.job == Job::Serving && s.server == Server::Vllm
}
/// An SGLang server.
fn sglang_serving(s: &Scenario) -> bool {
    s.job == Job::Serving && s.server == Server::Sglang
}
/// A server split over several GPUs with tensor parallelism.
fn serving_split(s: &Scenario) -> bool {
    s.job == Job::Serving && s.tp > 1
}
/// A server that speculates.
fn speculating(s: &Scenario) -> bool {
    s.job == Job::Serving && s.spec != SpecMethod::Off
}
/// A server that speculates with a separate draft model.
fn drafting(s: &Scenario) -> bool {
    s.job == Job::Serving && s.spec == SpecMethod::Draft
}
/// A job whose layers may split over pipeline stages or GPUs (not a server, not llama.cpp's own split).
fn splits_layers(s: &Scenario) -> bool {
    s.job != Job::Local
}
fn generating(s: &Scenario) -> bool {
    matches!(s.job, Job::Inference | Job::Serving)
}
/// A quantized base that is not being fully trained: which parts stay 16-bit matters (a GGUF
/// file's per-tensor types already say it).
fn quantized_base(s: &Scenario) -> bool {
    s.effective_weights().is_quantized() && !matches!(s.job, Job::Full | Job::Local)
}
/// A llama.cpp / Ollama run.
fn local(s: &Scenario) -> bool {
    s.job == Job::Local
}
/// llama.cpp with a draft model (`-md`).
fn local_drafting(s: &Scenario) -> bool {
    local(s) && s.llama_draft != "none"
}
fn not_local(s: &Scenario) -> bool {
    s.job != Job::Local
}
/// The transformers / vLLM jobs' batch and sequence (not a server's, not llama.cpp's).
/// Training an encoder–decoder model: its target length apart from the source (`seq`).
fn encoder_decoder_training(s: &Scenario) -> bool {
    s.job.is_training() && s.model.is_encoder_decoder()
}
fn transformer_batch(s: &Scenario) -> bool {
    s.job != Job::Serving && s.job != Job::Local
}
/// A cache dtype for transformers and vLLM (llama.cpp has its own K and V types).
fn transformer_kv(s: &Scenario) -> bool {
    !s.job.is_training() && s.job != Job::Local
}
/// The GPU model and count: every job but a llama.cpp run on a Mac or the CPU alone.
fn on_gpus(s: &Scenario) -> bool {
    s.job != Job::Local || s.machine == LocalMachine::Gpu
}
/// The weight format, unless a GGUF file fixes every tensor's type.
fn weights_chosen(s: &Scenario) -> bool {
    s.job != Job::Local || s.gguf.is_none()
}
/// A llama.cpp run on several GPUs.
fn local_gpus_several(s: &Scenario) -> bool {
    local_gpus(s) && s.gpus > 1
}
/// Several GPUs that may be of two models: a llama.cpp split or a vLLM tensor-parallel group.
fn mixable_gpus(s: &Scenario) -> bool {
    local_gpus_several(s) || (s.job == Job::Serving && s.tp > 1)
}
/// The key of "every GPU alike" among the last GPU's choices.
const SAME_GPU: &str = "same";
fn last_gpu_keys() -> Vec<&'static str> {
    std::iter::once(SAME_GPU)
        .chain(Gpu::ALL.iter().map(|g| g.key()))
        .collect()
}
/// A llama.cpp run that loads a multimodal projector.
fn local_projector(s: &Scenario) -> bool {
    s.job == Job::Local && s.mmproj.is_some()
}
/// A llama.cpp run on GPUs.
fn local_gpus(s: &Scenario) -> bool {
    s.job == Job::Local && s.machine == LocalMachine::Gpu
}
fn local_mac(s: &Scenario) -> bool {
    s.job == Job::Local && s.machine == LocalMachine::Mac
}
/// A llama.cpp run on a unified-memory PC (DGX Spark, Ryzen AI Max).
fn local_uma(s: &Scenario) -> bool {
    s.job == Job::Local && s.machine == LocalMachine::Uma
}
/// The Ryzen AI Max's BIOS carve-out and GTT limit.
fn local_ryzen_uma(s: &Scenario) -> bool {
    local_uma(s) && s.uma_kind == UmaKind::RyzenAiMax395
}
/// A host whose RAM is separate from the GPU's: GPUs beside CPU RAM, or the CPU alone.
fn local_ram(s: &Scenario) -> bool {
    s.job == Job::Local && matches!(s.machine, LocalMachine::Gpu | LocalMachine::Cpu)
}
/// A job that can keep parts of the model in formats of their own (not a full fine-tune, not
/// LoRA over 16-bit weights, not a GGUF file's own per-tensor types).
fn mixes_formats(s: &Scenario) -> bool {
    matches!(s.job, Job::Inference | Job::Serving | Job::Qlora)
}
/// A part's choices: follow the weights' format, or one of the formats.
fn part_format_keys() -> Vec<&'static str> {
    std::iter::once(PART_FOLLOWS)
        .chain(WeightFormat::ALL.iter().map(|f| f.key()))
        .collect()
}
fn cache_type_keys() -> Vec<&'static str> {
    CACHE_TYPES.iter().map(|t| t.name()).collect()
}
fn mac_chip_keys() -> Vec<&'static str> {
    MAC_CHIPS.iter().map(|c| c.key).collect()
}
fn no_keys() -> Vec<&'static str> {
    Vec::new()
}

/// A choice setting over a named enum's field.
macro_rules! choice {
    ($key:literal, $flag:literal, $id:literal, $hint:literal, $ty:ty, $field:ident, $applies:expr) => {
        Setting {
            key: $key,
            flag: $flag,
            id: $id,
            value_hint: $hint,
            kind: SettingKind::Choice,
            applies: $applies,
            read: |s| SettingValue::Choice(s.$field.key()),
            write: |s, v| {
                if let SettingValue::Choice(k) = v {
                    if let Some(x) = <$ty>::from_key(k) {
                        s.$field = x;
                    }
                }
            },
            keys: || <$ty>::ALL.iter().map(|x| x.key()).collect(),
        }
    };
}

/// An on/off setting over one of the scenario's [`Switch`]es.
macro_rules! switch {
    ($w:expr, $flag:literal, $id:literal, $applies:expr) => {
        Setting {
            key: $w.key(),
            flag: $flag,
            id: $id,
            value_hint: "0|1",
            kind: SettingKind::Switch,
            applies: $applies,
            read: |s| SettingValue::On(s.switch($w)),
            write: |s, v| {
                if let SettingValue::On(on) = v {
                    s.set_switch($w, on)
                }
            },
            keys: no_keys,
        }
    };
}

/// A whole-number setting over a `u64` field.
macro_rules! number {
    ($key:literal, $flag:literal, $id:literal, $field:ident, $min:expr, $max:expr, slider $smin:expr, $smax:expr, $log:expr, $pow2:expr, $applies:expr) => {
        Setting {
            key: $key,
            flag: $flag,
            id: $id,
            value_hint: "N",
            kind: SettingKind::Number {
                min: $min,
                max: $max,
                slider: ($smin, $smax),
                log: $log,
                pow2: $pow2,
            },
            applies: $applies,
            read: |s| SettingValue::Number(s.$field),
            write: |s, v| {
                if let SettingValue::Number(n) = v {
                    s.$field = n;
                }
            },
            keys: no_keys,
        }
    };
}

/// The format one part of the model is stored in (`auto`: the weights' format).
macro_rules! part_format {
    ($part:expr, $flag:literal, $id:literal) => {
        Setting {
            key: $part.key(),
            flag: $flag,
            id: $id,
            value_hint: "F",
            kind: SettingKind::Choice,
            applies: mixes_formats,
            read: |s| {
                SettingValue::Choice(s.weight_parts.get($part).map_or(PART_FOLLOWS, |f| f.key()))
            },
            write: |s, v| {
                if let SettingValue::Choice(k) = v {
                    s.weight_parts.set($part, WeightFormat::from_key(k));
                }
            },
            keys: part_format_keys,
        }
    };
}

/// A llama.cpp cache type (`--cache-type-k/-v`) over a `GgmlType` field.
macro_rules! cache_type {
    ($key:literal, $flag:literal, $id:literal, $field:ident) => {
        Setting {
            key: $key,
            flag: $flag,
            id: $id,
            value_hint: "T",
            kind: SettingKind::Choice,
            applies: local,
            read: |s| SettingValue::Choice(s.$field.name()),
            write: |s, v| {
                if let SettingValue::Choice(k) = v {
                    if let Some(t) = CACHE_TYPES.into_iter().find(|t| t.name() == k) {
                        s.$field = t;
                    }
                }
            },
            keys: cache_type_keys,
        }
    };
}

/// An on/off setting over a `bool` field of a llama.cpp run (shown for every local run, or when
/// `$applies` says).
macro_rules! local_switch {
    ($key:literal, $flag:literal, $id:literal, $field:ident) => {
        local_switch!($key, $flag, $id, $field, local)
    };
    ($key:literal, $flag:literal, $id:literal, $field:ident, $applies:expr) => {
        Setting {
            key: $key,
            flag: $flag,
            id: $id,
            value_hint: "0|1",
            kind: SettingKind::Switch,
            applies: $applies,
            read: |s| SettingValue::On(s.$field),
            write: |s, v| {
                if let SettingValue::On(on) = v {
                    s.$field = on;
                }
            },
            keys: no_keys,
        }
    };
}

/// Every setting of a scenario, in the order links write them.
pub static SETTINGS: &[Setting] = &[
    Setting {
        key: "j",
        flag: "job",
        id: "job",
        value_hint: "J",
        kind: SettingKind::Choice,
        applies: always,
        read: |s| SettingValue::Choice(s.job.key()),
        write: |s, v| {
            if let SettingValue::Choice(k) = v {
                if let Some(j) = Job::from_key(k) {
                    s.switch_job(j);
                }
            }
        },
        keys: || Job::ALL.iter().map(|j| j.key()).collect(),
    },
    // choosing a framework sets the settings its defaults decide (framework.rs); links and the
    // CLI apply it before every other setting they name
    Setting {
        key: "ft",
        flag: "framework",
        id: "framework",
        value_hint: "T",
        kind: SettingKind::Choice,
        applies: training,
        read: |s| SettingValue::Choice(s.framework.key()),
        write: |s, v| {
            if let SettingValue::Choice(k) = v {
                if let Some(f) = Framework::from_key(k) {
                    f.apply(s);
                }
            }
        },
        keys: || Framework::ALL.iter().map(|f| f.key()).collect(),
    },
    choice!(
        "w",
        "weights",
        "weights",
        "F",
        WeightFormat,
        weights,
        weights_chosen
    ),
    part_format!(
        WeightPart::Embeddings,
        "weights-embeddings",
        "weights-embeddings"
    ),
    part_format!(
        WeightPart::Attention,
        "weights-attention",
        "weights-attention"
    ),
    part_format!(WeightPart::Mlp, "weights-mlp", "weights-mlp"),
    part_format!(WeightPart::Head, "weights-head", "weights-head"),
    choice!(
        "kv",
        "kv",
        "kv-dtype",
        "D",
        KvDtype,
        kv_dtype,
        transformer_kv
    ),
    choice!(
        "o",
        "optimizer",
        "optimizer",
        "O",
        Optimizer,
        optimizer,
        training
    ),
    choice!(
        "gc",
        "ckpt",
        "ckpt",
        "C",
        Checkpointing,
        checkpointing,
        training
    ),
    choice!(
        "at",
        "attention",
        "attention",
        "A",
        Attention,
        attention,
        not_local
    ),
    choice!("ls", "loss", "loss", "L", Loss, loss, training),
    choice!("z", "zero", "zero", "S", Zero, zero, training),
    choice!("off", "offload", "offload", "O", Offload, offload, training),
    choice!(
        "dpf",
        "dp-framework",
        "dp-framework",
        "P",
        DpFramework,
        dp_framework,
        training
    ),
    choice!(
        "wl",
        "weights-load",
        "weights-load",
        "W",
        WeightsLoad,
        weights_load,
        sharded
    ),
    choice!("gpu", "gpu", "gpu", "G", Gpu, gpu, on_gpus),
    choice!(
        "vv",
        "vllm",
        "vllm-version",
        "V",
        VllmVersion,
        vllm,
        serving
    ),
    choice!("srv", "server", "server", "S", Server, server, serving),
    choice!("unit", "unit", "unit", "U", Unit, unit, always),
    switch!(
        Switch::MasterWeights,
        "master-weights",
        "switch-mw",
        training
    ),
    switch!(Switch::LoraDropout, "lora-dropout", "switch-ld", peft),
    switch!(
        Switch::TrainEmbedHead,
        "train-embed-head",
        "switch-mts",
        peft
    ),
    switch!(Switch::Dora, "dora", "switch-dora", peft),
    switch!(
        Switch::OptimizerInBackward,
        "optimizer-in-backward",
        "switch-obw",
        training
    ),
    switch!(
        Switch::OffloadActivations,
        "offload-activations",
        "switch-ao",
        training
    ),
    switch!(
        Switch::QuantizeHead,
        "quantize-head",
        "switch-qh",
        quantized_base
    ),
    switch!(
        Switch::Attention16,
        "attention-16bit",
        "switch-a16",
        quantized_base
    ),
    switch!(Switch::StaticKv, "static-kv", "switch-ks", inference),
    switch!(Switch::KvAllHeads, "kv-all-heads", "switch-kvh", inference),
    switch!(
        Switch::PagedOptimizer,
        "paged-optimizer",
        "switch-po",
        pageable
    ),
    switch!(Switch::BucketView, "bucket-view", "switch-gbv", ddp),
    switch!(
        Switch::FsdpNoSync,
        "fsdp-no-sync",
        "switch-fns",
        fsdp_sharding
    ),
    switch!(Switch::KbitUpcast, "kbit-upcast", "switch-ku", qlora_bnb),
    switch!(Switch::Compute32, "compute-fp32", "switch-c32", qlora_bnb),
    switch!(
        Switch::SequenceParallel,
        "sequence-parallel",
        "switch-sqp",
        tensor_parallel_training
    ),
    Setting {
        key: "t",
        flag: "targets",
        id: "lora-targets",
        value_hint: "L",
        kind: SettingKind::Targets,
        applies: peft,
        read: |s| SettingValue::Targets(s.lora_targets),
        write: |s, v| {
            if let SettingValue::Targets(t) = v {
                s.lora_targets = t;
            }
        },
        keys: no_keys,
    },
    number!("b", "batch", "batch", batch, 1, 1 << 20, slider 1, 1024, true, true, transformer_batch),
    number!("s", "seq", "seq", seq, 1, 10_485_760, slider 128, 1_048_576, true, false, transformer_batch),
    number!("k16", "kept-16bit", "kept-16bit", kept_16bit, 0, 1 << 44, slider 0, 1 << 34, true, false, quantized_base),
    number!("eb", "eval-batch", "eval-batch", eval_batch, 0, 1 << 20, slider 0, 1024, true, true, training),
    number!("sl", "sample-len", "sample-len", sample_len, 0, 10_485_760, slider 0, 1_048_576, true, false, training_samples),
    choice!(
        "pad",
        "batching",
        "batching",
        "B",
        Batching,
        batching,
        training_samples
    ),
    number!("g", "gen", "gen", gen, 0, 10_485_760, slider 1, 131_072, true, false, inference),
    number!("tl", "target-len", "target-len", target_len, 1, 10_485_760, slider 1, 131_072, true, false, encoder_decoder_training),
    number!("ga", "grad-accum", "grad-accum", grad_accum, 1, 65_536, slider 1, 128, true, true, training),
    number!("gb", "global-batch", "global-batch", global_batch, 0, 1 << 24, slider 0, 4096, true, true, training),
    number!("r", "rank", "lora-rank", lora_rank, 1, 65_536, slider 1, 1024, true, true, peft),
    number!("n", "gpus", "gpus", gpus, 1, 4_096, slider 1, 4096, true, true, on_gpus),
    number!("sg", "shard-group", "shard-group", shard_group, 0, 4_096, slider 0, 4096, true, true, sharding),
    number!("tp", "tp", "tp", tp, 1, 64, slider 1, 64, true, true, not_local),
    // pipeline parallelism: layers split over stages (training pipelines, inference device_map)
    number!("pp", "pp", "pp", pp, 1, 64, slider 1, 64, true, true, splits_layers),
    choice!(
        "pps",
        "pipeline-schedule",
        "pipeline-schedule",
        "K",
        PipelineSchedule,
        pipeline_schedule,
        training_pipeline
    ),
    number!("vs", "virtual-stages", "virtual-stages", virtual_stages, 2, 16, slider 2, 16, false, false, interleaved_pipeline),
    number!("u", "gpu-util", "gpu-util", gpu_util_pct, 10, 100, slider 10, 100, true, false, vllm_serving),
    number!("mfs", "mem-fraction-static", "mem-fraction-static", mem_fraction_permille, 0, 1_000, slider 0, 1_000, false, false, sglang_serving),
    number!("bs", "block-size", "block-size", block_size, 1, 1_024, slider 1, 256, true, true, serving),
    number!("ml", "max-model-len", "max-model-len", max_model_len, 1, 10_485_760, slider 128, 1_048_576, true, true, generating),
    number!("al", "avg-tokens", "avg-tokens", avg_tokens, 1, 10_485_760, slider 64, 131_072, true, false, serving),
    number!("c", "concurrency", "concurrency", concurrency, 1, 1 << 20, slider 1, 4096, true, false, serving),
    number!("bt", "batched-tokens", "batched-tokens", batched_tokens, 1, 10_485_760, slider 128, 131_072, true, true, serving),
    number!("ns", "max-num-seqs", "max-num-seqs", max_num_seqs, 1, 65_536, slider 1, 4_096, true, true, serving),
    number!("lm", "max-loras", "max-loras", max_loras, 0, 1_024, slider 0, 64, true, false, serving),
    number!("lr", "max-lora-rank", "max-lora-rank", max_lora_rank, 1, 512, slider 1, 512, true, true, serving),
    number!("px", "shared-prefix", "shared-prefix", shared_prefix, 0, 10_485_760, slider 0, 131_072, true, false, serving),
    // a vLLM server's start-up: CUDA graphs, communication buffers, speculative decoding
    choice!(
        "cg",
        "cuda-graphs",
        "cuda-graphs",
        "G",
        CudaGraphs,
        cuda_graphs,
        serving
    ),
    number!("nc", "comm-mib", "comm-mib", comm_mib, 0, 65_536, slider 0, 8_192, true, false, serving_split),
    choice!(
        "sd",
        "speculative",
        "speculative",
        "M",
        SpecMethod,
        spec,
        serving
    ),
    number!("sk", "spec-tokens", "spec-tokens", spec_tokens, 1, 16, slider 1, 16, false, false, speculating),
    Setting {
        key: "dm",
        flag: "draft-model",
        id: "draft-model",
        value_hint: "MODEL",
        kind: SettingKind::Choice,
        applies: drafting,
        read: |s| SettingValue::Choice(s.draft_model),
        write: |s, v| {
            if let SettingValue::Choice(k) = v {
                if let Some(p) = presets::find(k) {
                    s.draft_model = p.id;
                }
            }
        },
        keys: || presets::all().iter().map(|p| p.id).collect(),
    },
    number!("ctx", "context-mib", "context-mib", context_mib, 0, 65_536, slider 0, 8192, true, false, not_local),
    number!("rsv", "reserve", "reserve-pct", reserve_pct, 0, 100, slider 0, 100, true, false, not_local),
    // llama.cpp / Ollama: llama-server's flags (common/arg.cpp) and the machine
    number!("ngl", "ngl", "local-ngl", ngl, 0, 65_536, slider 0, 128, false, false, local),
    number!("lc", "ctx-size", "local-ctx", n_ctx, 0, 1 << 24, slider 0, 1_048_576, true, true, local),
    number!("np", "parallel", "local-parallel", n_parallel, 1, 1_024, slider 1, 64, true, true, local),
    Setting {
        key: "md",
        flag: "model-draft",
        id: "local-draft",
        value_hint: "MODEL",
        kind: SettingKind::Choice,
        applies: local,
        read: |s| SettingValue::Choice(s.llama_draft),
        write: |s, v| {
            if let SettingValue::Choice(k) = v {
                if k.eq_ignore_ascii_case("none") {
                    s.llama_draft = "none";
                } else if let Some(p) = presets::find(k) {
                    s.llama_draft = p.id;
                }
            }
        },
        keys: || {
            std::iter::once("none")
                .chain(presets::all().iter().map(|p| p.id))
                .collect()
        },
    },
    number!("cd", "ctx-size-draft", "local-draft-ctx", draft_ctx, 0, 1 << 24, slider 0, 1_048_576, true, true, local_drafting),
    number!("ngld", "gpu-layers-draft", "local-draft-ngl", draft_ngl, 0, 65_536, slider 0, 128, false, false, local_drafting),
    number!("lb", "batch-size", "local-batch", n_batch, 1, 1 << 24, slider 32, 8_192, true, true, local),
    number!("lub", "ubatch-size", "local-ubatch", n_ubatch, 1, 1 << 24, slider 32, 8_192, true, true, local),
    cache_type!("ctk", "cache-type-k", "local-ctk", cache_k),
    cache_type!("ctv", "cache-type-v", "local-ctv", cache_v),
    local_switch!("fa", "flash-attn", "local-fa", flash_attn),
    local_switch!("mmap", "mmap", "local-mmap", mmap),
    number!("ncm", "n-cpu-moe", "local-ncmoe", cpu_moe, 0, 65_536, slider 0, 128, false, false, local),
    local_switch!("oo", "op-offload", "local-op-offload", op_offload),
    local_switch!("kvu", "kv-unified", "local-kv-unified", kv_unified),
    local_switch!("swf", "swa-full", "local-swa-full", swa_full),
    local_switch!(
        "mpo",
        "mmproj-offload",
        "local-mmproj-offload",
        mmproj_offload,
        local_projector
    ),
    choice!(
        "sm",
        "split-mode",
        "local-split-mode",
        "M",
        SplitMode,
        split_mode,
        local_gpus_several
    ),
    choice!(
        "mch",
        "machine",
        "local-machine",
        "M",
        LocalMachine,
        machine,
        local
    ),
    Setting {
        key: "mac",
        flag: "mac",
        id: "local-mac",
        value_hint: "CHIP",
        kind: SettingKind::Choice,
        applies: local_mac,
        read: |s| SettingValue::Choice(s.mac_chip),
        write: |s, v| {
            if let SettingValue::Choice(k) = v {
                if let Some(c) = MAC_CHIPS.iter().find(|c| c.key == k) {
                    s.mac_chip = c.key;
                }
            }
        },
        keys: mac_chip_keys,
    },
    number!("mgb", "mac-memory", "local-mac-memory", mac_memory_gb, 8, 512, slider 8, 512, true, false, local_mac),
    number!("wmb", "wired-limit-mb", "local-wired", wired_limit_mb, 0, 1 << 24, slider 0, 524_288, true, false, local_mac),
    Setting {
        key: "ep",
        flag: "expert-parallel",
        id: "expert-parallel",
        value_hint: "0|1",
        kind: SettingKind::Switch,
        applies: serving,
        read: |s| SettingValue::On(s.expert_parallel),
        write: |s, v| {
            if let SettingValue::On(on) = v {
                s.expert_parallel = on;
            }
        },
        keys: no_keys,
    },
    number!("held", "held-mib", "gpu-held", held_mib, 0, 1 << 20, slider 0, 65_536, false, false, on_gpus),
    Setting {
        key: "g2",
        flag: "last-gpu",
        id: "last-gpu",
        value_hint: "GPU|same",
        kind: SettingKind::Choice,
        applies: mixable_gpus,
        read: |s| SettingValue::Choice(s.last_gpu.map_or(SAME_GPU, |g| g.key())),
        write: |s, v| {
            if let SettingValue::Choice(k) = v {
                s.last_gpu = Gpu::from_key(k);
            }
        },
        keys: last_gpu_keys,
    },
    choice!(
        "ub",
        "uma-box",
        "local-uma",
        "BOX",
        UmaKind,
        uma_kind,
        local_uma
    ),
    number!("ugb", "uma-memory", "local-uma-memory", uma_memory_gb, 32, 128, slider 32, 128, false, false, local_uma),
    number!("uvr", "uma-vram-mib", "local-uma-vram", uma_carve_out_mib, 512, 98_304, slider 512, 98_304, true, false, local_ryzen_uma),
    number!("gtt", "gtt-limit-mib", "local-gtt", gtt_limit_mib, 0, 131_072, slider 0, 131_072, false, false, local_ryzen_uma),
    number!("ram", "ram", "local-ram", ram_gib, 0, 65_536, slider 0, 1_024, true, false, local_ram),
    number!("rbw", "ram-bandwidth", "local-ram-bandwidth", ram_gbps, 0, 100_000, slider 0, 1_024, true, false, local_ram),
    Setting {
        key: "ts",
        flag: "tensor-split",
        id: "local-tensor-split",
        value_hint: "A,B|even",
        kind: SettingKind::Shares,
        applies: local_gpus,
        read: |s| SettingValue::Shares(s.tensor_split),
        write: |s, v| {
            if let SettingValue::Shares(t) = v {
                s.tensor_split = t;
            }
        },
        keys: no_keys,
    },
];
