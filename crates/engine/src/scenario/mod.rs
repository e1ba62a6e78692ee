//! A scenario: the model, the job, the numbers and the hardware. Everything the page and the CLI set.

use crate::config;
use crate::dtype::WeightFormat;
use crate::error::EngineError;
use crate::gguf::GgufSummary;
use crate::gpus::Gpu;
use crate::hub::HubSource;
use crate::model::Architecture;
use crate::named::named_enum;
use crate::presets;
pub use crate::settings::Scenario;
use crate::settings::{SettingValue, SETTINGS};
use crate::weight_parts::PartFormats;

named_enum! {
    /// What the GPU is asked to do.
    pub enum Job {
        Inference => ("infer", "Inference"),
        Serving => ("serve", "Serving (vLLM / SGLang)"),
        Full => ("full", "Full fine-tune"),
        Lora => ("lora", "LoRA"),
        Qlora => ("qlora", "QLoRA"),
        Local => ("local", "llama.cpp / Ollama"),
    }
}

impl Job {
    pub fn is_training(self) -> bool {
        matches!(self, Job::Full | Job::Lora | Job::Qlora)
    }

    pub fn is_peft(self) -> bool {
        matches!(self, Job::Lora | Job::Qlora)
    }

    /// The weights a job starts with: a llama.cpp run Q4_K_M, the build `ollama pull` fetches
    /// for a model's default tag (ollama.com/library: `llama3.1:8b` is `8b-instruct-q4_K_M`),
    /// every other job 16-bit weights.
    pub fn default_weights(self) -> WeightFormat {
        match self {
            Job::Local => WeightFormat::GgufQ4KM,
            _ => WeightFormat::Bf16,
        }
    }

    /// Whether the job can run on weights stored in `format`: full fine-tuning and LoRA update
    /// or sit on 16/32-bit weights, QLoRA trains adapters over a bitsandbytes 4-bit base, NF4 or
    /// FP4 (the quantized bases its backward runs through); inference and serving take any.
    pub fn allows(self, format: WeightFormat) -> bool {
        match self {
            Job::Full | Job::Lora => !format.is_quantized(),
            Job::Qlora => matches!(
                format,
                WeightFormat::Nf4 | WeightFormat::Nf4Dq | WeightFormat::Fp4 | WeightFormat::Fp4Dq
            ),
            Job::Inference | Job::Serving => true,
            // the formats llama.cpp's quantizer writes (bf16 / fp16 as an f16 file)
            Job::Local => matches!(
                format,
                WeightFormat::Fp32
                    | WeightFormat::Bf16
                    | WeightFormat::GgufQ8_0
                    | WeightFormat::GgufQ6K
                    | WeightFormat::GgufQ5KM
                    | WeightFormat::GgufQ4KM
                    | WeightFormat::GgufQ3KM
                    | WeightFormat::GgufQ2K
            ),
        }
    }

    /// Whether the job can keep one part of the model in `format` while the rest has another:
    /// inference and serving any format, QLoRA a frozen 16/32-bit part or a bitsandbytes 4-bit
    /// one; the other jobs store every part alike.
    pub fn allows_part(self, format: WeightFormat) -> bool {
        match self {
            Job::Inference | Job::Serving => true,
            Job::Qlora => !format.is_quantized() || self.allows(format),
            Job::Full | Job::Lora | Job::Local => false,
        }
    }
}

named_enum! {
    /// The optimizer and where its states live.
    pub enum Optimizer {
        AdamW => ("adamw", "AdamW"),
        AdamWBf16 => ("adamw_bf16", "AdamW, bf16 states"),
        AdamW8bit => ("adamw_8bit", "AdamW 8-bit"),
        Adafactor => ("adafactor", "Adafactor"),
        Lion => ("lion", "Lion"),
        SgdMomentum => ("sgd_momentum", "SGD + momentum"),
        Sgd => ("sgd", "SGD"),
    }
}

impl Optimizer {
    /// Whether bitsandbytes has a paged variant (PagedAdamW, PagedAdamW8bit, PagedLion).
    pub fn can_page(self) -> bool {
        matches!(
            self,
            Optimizer::AdamW | Optimizer::AdamW8bit | Optimizer::Lion
        )
    }
}

named_enum! {
    /// The vLLM engine whose start-up profile sizes the KV pool.
    pub enum VllmVersion {
        /// vLLM V0 (`vllm/worker/worker.py` `determine_num_available_blocks`): the non-torch memory
        /// (CUDA context, NCCL, cuBLAS) is measured and deducted; CUDA graphs are captured after
        /// the KV cache is sized, out of the remaining `1 - gpu_memory_utilization`.
        V0 => ("v0", "V0 (up to 0.10)"),
        /// vLLM V1 (`vllm/v1/worker/gpu_worker.py` `determine_available_memory`): the budget is
        /// gpu_memory_utilization × the total the driver reports, and what existed before the
        /// worker's first snapshot (the CUDA context) is not deducted again.
        V1 => ("v1", "V1 (0.8 to 0.20)"),
        /// vLLM V1 from 0.21 (`gpu_worker.py` `determine_available_memory`,
        /// `profile_cudagraph_memory`, on by default since v0.21.0): as V1, and the CUDA graphs'
        /// estimated memory is deducted from the KV budget before the pool is sized.
        V1Graphs => ("v1g", "V1 (0.21 and later)"),
    }
}

impl VllmVersion {
    /// Whether the engine measures from a snapshot taken after the CUDA context exists.
    pub fn is_v1(self) -> bool {
        self != VllmVersion::V0
    }

    /// Whether the KV budget makes room for the CUDA graphs (else they are captured after the
    /// pool is sized, out of what `gpu_memory_utilization` leaves).
    pub fn budgets_graphs(self) -> bool {
        self == VllmVersion::V1Graphs
    }
}

named_enum! {
    /// Gradient (activation) checkpointing.
    pub enum Checkpointing {
        None => ("none", "off"),
        /// Megatron's `--recompute-granularity selective`: attention's core (the softmax and its
        /// dropout, the seq × seq part) is recomputed, everything else kept (Korthikanti et al.
        /// 2022, "Reducing Activation Recomputation in Large Transformer Models", §5: sbh(34 +
        /// 5as/h) per layer becomes sbh·34).
        Selective => ("selective", "selective (attention)"),
        /// Operator-level selective checkpointing as torchtitan runs it (`mode = "selective"`,
        /// `selective_ac_option = "op"`): each layer keeps its input, the attention kernel's
        /// output and every other matmul's output, and recomputes the rest in backward.
        Op => ("op", "selective (op: every other matmul output kept)"),
        Full => ("full", "every layer"),
    }
}

named_enum! {
    /// The order a training pipeline runs its micro-batches in, which decides how many of them
    /// each stage holds activations for (Narayanan et al. 2021, "Efficient Large-Scale Language
    /// Model Training on GPU Clusters Using Megatron-LM", section 2.2).
    pub enum PipelineSchedule {
        /// One forward, one backward (PipeDream-Flush; Megatron's default, torch.distributed.pipelining
        /// `Schedule1F1B`): stage i of p keeps at most p − i micro-batches in flight.
        OneFOneB => ("1f1b", "1F1B"),
        /// Every forward first, then every backward (`ScheduleGPipe`): each stage keeps all the
        /// step's micro-batches.
        GPipe => ("gpipe", "GPipe"),
        /// Interleaved 1F1B (Megatron `--num-layers-per-virtual-pipeline-stage`,
        /// `ScheduleInterleaved1F1B`): each GPU holds several model chunks; GPU i of p warms up
        /// (chunks − 1) × p + 2 × (p − i − 1) chunk-forwards before its first backward.
        Interleaved => ("interleaved", "interleaved 1F1B"),
    }
}

named_enum! {
    /// The attention kernel: fused kernels never store the seq x seq score matrix.
    pub enum Attention {
        Flash => ("flash", "SDPA / FlashAttention"),
        Eager => ("eager", "eager (materialised scores)"),
    }
}

named_enum! {
    /// How the loss is computed over the vocabulary.
    pub enum Loss {
        Full => ("full", "full logits, fp32 upcast"),
        Full16 => ("full16", "full logits, 16-bit loss (no upcast)"),
        Chunked => ("chunked", "chunked cross-entropy"),
        ChunkedCompiled => ("compiled", "chunked cross-entropy, compiled (keeps 16-bit logits)"),
        Fused => ("fused", "fused linear + CE (no logits)"),
        /// Unsloth's fused cross-entropy (unsloth_zoo `fused_losses/cross_entropy_loss.py`): fp32
        /// logits and their gradient a chunk at a time, the chunks sized to half the free memory
        /// and at most 4 GiB of logits each.
        Unsloth => ("unsloth", "fused CE in fp32 chunks of up to 4 GiB (Unsloth)"),
        NoLmHead => ("none", "no LM head (classifier)"),
    }
}

named_enum! {
    /// ZeRO stage (FSDP: 1-2 = SHARD_GRAD_OP, 3 = FULL_SHARD).
    pub enum Zero {
        Z0 => ("0", "ZeRO 0 / DDP"),
        Z1 => ("1", "ZeRO 1: optimizer states"),
        Z2 => ("2", "ZeRO 2: + gradients"),
        Z3 => ("3", "ZeRO 3 / FSDP: + weights"),
    }
}

impl Zero {
    /// The stage number: what it shards is physics, so it never follows the variants' order.
    pub fn stage(self) -> u8 {
        match self {
            Zero::Z0 => 0,
            Zero::Z1 => 1,
            Zero::Z2 => 2,
            Zero::Z3 => 3,
        }
    }
}

named_enum! {
    /// The data-parallel framework whose buffers come with the sharding. `none` counts the model
    /// states alone (the sharding arithmetic of the ZeRO paper), with no framework's buffers.
    pub enum DpFramework {
        None => ("none", "model states only"),
        /// torch DistributedDataParallel: gradient buckets (`bucket_cap_mb`).
        Ddp => ("ddp", "PyTorch DDP"),
        /// DeepSpeed ZeRO: the reduce bucket (`reduce_bucket_size`) and, at stage 3, the prefetch
        /// bucket and live parameters.
        DeepSpeed => ("deepspeed", "DeepSpeed"),
        /// torch FullyShardedDataParallel (flat parameters per wrapped unit).
        Fsdp1 => ("fsdp1", "FSDP1 (flat parameters)"),
        /// torch `fully_shard` (per-parameter DTensor sharding per wrapped module).
        Fsdp2 => ("fsdp2", "FSDP2 (fully_shard)"),
    }
}

impl DpFramework {
    pub fn is_fsdp(self) -> bool {
        matches!(self, DpFramework::Fsdp1 | DpFramework::Fsdp2)
    }
}

named_enum! {
    /// How a sharded job gets its weights onto the GPUs.
    pub enum WeightsLoad {
        /// Each rank materializes only its shard (meta-device init, DeepSpeed `zero.Init`, or a
        /// model kept on the CPU until FSDP moves it unit by unit).
        Sharded => ("sharded", "each rank its shard (meta device)"),
        /// Every rank loads the full state dict onto its GPU, then shards it.
        Full => ("full", "full model on every rank first"),
        /// Rank 0 loads on the CPU; `sync_module_states` broadcasts one unit at a time.
        Rank0 => ("rank0", "rank 0 + sync_module_states"),
    }
}

named_enum! {
    /// What ZeRO-Offload moves to CPU memory.
    pub enum Offload {
        None => ("none", "nothing"),
        Optimizer => ("opt", "optimizer states"),
        All => ("all", "optimizer states + weights"),
    }
}

named_enum! {
    /// Where a llama.cpp / Ollama run lives: GPUs beside CPU RAM, a Mac's unified memory, or
    /// the CPU alone.
    pub enum LocalMachine {
        Gpu => ("gpu", "GPU + CPU RAM"),
        Mac => ("mac", "Mac (unified memory)"),
        Uma => ("uma", "DGX Spark / Ryzen AI Max (unified memory)"),
        Cpu => ("cpu", "CPU only"),
    }
}

/// A GGUF file picked on the page (or read from a link): its name and its summary, and the Hub
/// repository it was read from (the link's `hf=` beside `gg=`), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufFile {
    pub name: String,
    pub summary: GgufSummary,
    pub source: Option<HubSource>,
}

named_enum! {
    /// llama.cpp's `--split-mode` over several GPUs (`llama_prepare_model_devices`): by layer, each
    /// GPU its share of the layers and their KV (the default); or `none`, every offloaded layer on
    /// the main GPU and the others unused. `row` is left out: its CUDA split buffer was removed
    /// (PR #24216, 2026), and `tensor` is experimental.
    pub enum SplitMode {
        Layer => ("layer", "by layer (default)"),
        Single => ("none", "one GPU (-sm none)"),
    }
}

/// LoRA target modules as a small set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoraTargets(u16);

impl LoraTargets {
    /// Every module LoRA can target, with its key.
    pub const NAMES: [&'static str; 9] =
        ["q", "k", "v", "o", "gate", "up", "down", "embed", "head"];

    pub fn empty() -> LoraTargets {
        LoraTargets(0)
    }

    /// q, k, v, o, gate, up and down: the first seven of [`Self::NAMES`] (no `expect` on a parse,
    /// which linked the engine's error `Debug` into the page).
    pub fn all_linear() -> LoraTargets {
        LoraTargets(0b111_1111)
    }

    pub fn contains(self, name: &str) -> bool {
        Self::NAMES
            .iter()
            .position(|n| *n == name)
            .is_some_and(|i| self.0 & (1 << i) != 0)
    }

    pub fn with(self, name: &str, on: bool) -> LoraTargets {
        match Self::NAMES.iter().position(|n| *n == name) {
            Some(i) if on => LoraTargets(self.0 | (1 << i)),
            Some(i) => LoraTargets(self.0 & !(1 << i)),
            None => self,
        }
    }

    /// Reads "q,v" or "all".
    pub fn parse(text: &str) -> Result<LoraTargets, EngineError> {
        if text == "all" {
            return Ok(LoraTargets::all_linear());
        }
        let mut t = LoraTargets::empty();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if !Self::NAMES.contains(&part) {
                return Err(EngineError::UnknownLoraTarget(
                    part.chars().take(40).collect(),
                ));
            }
            t = t.with(part, true);
        }
        Ok(t)
    }

    pub fn names(self) -> Vec<&'static str> {
        Self::NAMES
            .iter()
            .copied()
            .filter(|n| self.contains(n))
            .collect()
    }

    pub fn key(self) -> String {
        self.names().join(",")
    }
}

/// Which model: a preset, a pasted config.json, or a bare parameter count.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelChoice {
    Preset(&'static str),
    Custom {
        name: String,
        arch: Box<Architecture>,
        /// The Hub repository it was read from, when it was.
        source: Option<crate::hub::HubSource>,
    },
    Params(u64),
}

impl ModelChoice {
    /// The architecture behind the choice.
    pub fn architecture(&self) -> Result<Architecture, EngineError> {
        match self {
            ModelChoice::Preset(id) => presets::find(id)
                .map(|p| p.architecture())
                .ok_or_else(|| EngineError::UnknownPreset(id.to_string())),
            ModelChoice::Custom { arch, .. } => {
                arch.validate()?;
                Ok((**arch).clone())
            }
            ModelChoice::Params(n) => Architecture::from_param_count(*n),
        }
    }

    /// Whether the model has an encoder beside its decoder (T5, BART, Whisper).
    pub fn is_encoder_decoder(&self) -> bool {
        match self {
            ModelChoice::Preset(id) => presets::find(id).is_some_and(|p| p.is_encoder_decoder()),
            ModelChoice::Custom { arch, .. } => arch.encoder.is_some(),
            ModelChoice::Params(_) => false,
        }
    }

    /// The name shown for the model.
    pub fn name(&self) -> String {
        match self {
            ModelChoice::Preset(id) => presets::find(id)
                .map(|p| p.name.to_string())
                .unwrap_or_else(|| id.to_string()),
            ModelChoice::Custom { name, .. } => name.clone(),
            ModelChoice::Params(n) => format!(
                "{} dense (approximate shape)",
                crate::units::short_count(*n)
            ),
        }
    }

    /// A custom architecture from config.json text.
    pub fn from_config(name: &str, text: &str) -> Result<ModelChoice, EngineError> {
        Ok(ModelChoice::custom(name, config::parse_config(text)?))
    }

    /// A custom model named `name` (its first 80 characters).
    pub fn custom(name: &str, arch: Architecture) -> ModelChoice {
        ModelChoice::Custom {
            name: name.chars().take(80).collect(),
            arch: Box::new(arch),
            source: None,
        }
    }
}

impl Scenario {
    /// The job's defaults (its own weights, [`Scenario::for_job`]) with its framework's defaults
    /// for that job: what a link that names only the job and the framework opens with.
    pub fn defaults_of_framework(&self) -> Scenario {
        let mut d = Scenario::for_job(self.job);
        self.framework.apply(&mut d);
        d
    }

    /// Checks every setting against its range and the combinations that cannot work.
    pub fn validate(&self) -> Result<(), EngineError> {
        for st in SETTINGS {
            if let (Some((min, max)), SettingValue::Number(v)) = (st.range(), st.get(self)) {
                if !(min..=max).contains(&v) {
                    return Err(EngineError::OutOfRange {
                        setting: st.key.into(),
                        value: v,
                        min,
                        max,
                    });
                }
            }
        }
        if !self.gpus.is_multiple_of(self.tp) {
            return Err(EngineError::TpDoesNotDivide {
                gpus: self.gpus,
                tp: self.tp,
            });
        }
        let pp = self.pipeline_stages();
        if !self.gpus.is_multiple_of(self.tp * pp) {
            return Err(EngineError::PpDoesNotDivide {
                gpus: self.gpus,
                tp: self.tp,
                pp,
            });
        }
        if matches!(self.job, Job::Full | Job::Lora | Job::Local) && !self.job.allows(self.weights)
        {
            return Err(EngineError::FormatNotForJob {
                job: self.job,
                format: self.weights,
            });
        }
        if let Some((part, format)) = self
            .part_formats()
            .overridden()
            .find(|(_, f)| !self.job.allows_part(*f))
        {
            return Err(EngineError::PartFormatNotForJob {
                job: self.job,
                part,
                format,
            });
        }
        if self.job.is_training() && self.optimizer_in_backward && self.grad_accum > 1 {
            return Err(EngineError::StepInBackwardAccumulates {
                steps: self.grad_accum,
            });
        }
        if self.job.is_peft() && self.lora_targets == LoraTargets::empty() {
            return Err(EngineError::NoLoraTargets);
        }
        Ok(())
    }

    /// Tensor-parallel degrees the page offers: powers of two up to 64 that divide the GPUs of
    /// one pipeline stage.
    pub fn tp_choices(&self) -> Vec<u64> {
        let per_stage = self.gpus / self.pipeline_stages();
        (0..=6)
            .map(|i| 1u64 << i)
            .filter(|t| per_stage.is_multiple_of(*t))
            .collect()
    }

    /// The pipeline stages that apply (a llama.cpp run places its layers its own way).
    pub fn pipeline_stages(&self) -> u64 {
        if self.job == Job::Local {
            1
        } else {
            self.pp.max(1)
        }
    }

    /// Data-parallel ranks: the GPUs ÷ tensor parallel ÷ pipeline stages.
    pub fn data_parallel(&self) -> u64 {
        (self.gpus / (self.tp.max(1) * self.pipeline_stages())).max(1)
    }

    /// The length the "memory as it grows" view sweeps: the average request for a server (it sizes
    /// its cache by requests), the sequence (or prompt) otherwise.
    pub fn swept_tokens(&self) -> u64 {
        match self.job {
            Job::Serving => self.avg_tokens,
            _ => self.seq,
        }
    }

    /// The same scenario with the swept length set to `tokens`.
    pub fn with_swept_tokens(&self, tokens: u64) -> Scenario {
        let mut s = self.clone();
        match self.job {
            Job::Serving => s.avg_tokens = tokens,
            _ => s.seq = tokens,
        }
        s
    }

    /// The parts stored in a format of their own, for the jobs that can mix formats (the others
    /// store every part alike and ignore them).
    pub fn part_formats(&self) -> PartFormats {
        let mixes = self.weight_parts.overridden().next().is_some()
            && !matches!(self.job, Job::Full | Job::Lora | Job::Local);
        if mixes {
            self.weight_parts
        } else {
            PartFormats::default()
        }
    }

    /// Takes the format and the parts' formats a checkpoint's config.json names, except those
    /// `chosen` already (by link key) and those the job cannot use.
    pub fn apply_quantization(
        &mut self,
        q: &crate::config::Quantization,
        chosen: impl Fn(&str) -> bool,
    ) {
        if !chosen("w") && self.job.allows(q.format) {
            self.weights = q.format;
        }
        for (part, format) in q.parts.overridden() {
            if !chosen(part.key()) && self.job.allows_part(format) {
                self.weight_parts.set(part, Some(format));
            }
        }
        if !chosen("k16") {
            self.kept_16bit = self.model.architecture().map_or(0, |a| {
                let matrices: Vec<_> = a
                    .attention_matrices()
                    .into_iter()
                    .chain(a.mlp_matrices(a.intermediate))
                    .collect();
                crate::config::LAYER_MODULES
                    .iter()
                    .zip(q.kept_in_layers)
                    .filter_map(|((name, _), layers)| {
                        let (_, i, o) = matrices.iter().rfind(|(n, _, _)| n == name)?;
                        Some(u64::from(layers) * i * o)
                    })
                    .sum()
            });
        }
    }

    /// The model of GPU `i` of `count`: the last one's when the box is mixed.
    pub fn gpu_at(&self, i: usize, count: usize) -> Gpu {
        match self.last_gpu {
            Some(last) if count > 1 && i + 1 == count => last,
            _ => self.gpu,
        }
    }

    /// The data-parallel attention ranks of an expert-parallel server (1 otherwise).
    pub fn attention_ranks(&self) -> u64 {
        if self.job == Job::Serving && self.expert_parallel {
            (self.gpus / (self.tp * self.pp).max(1)).max(1)
        } else {
            1
        }
    }

    /// Whether the GPUs the job runs on are of different models.
    pub fn mixed_gpus(&self) -> bool {
        self.gpus > 1 && self.last_gpu.is_some_and(|g| g != self.gpu)
    }

    /// The default scenario for `job`, with the weights that job starts with.
    pub fn for_job(job: Job) -> Scenario {
        Scenario {
            job,
            weights: job.default_weights(),
            ..Scenario::default()
        }
    }

    /// Moves to `job`; weights left at the old job's default take the new job's.
    pub fn switch_job(&mut self, job: Job) {
        if self.weights == self.job.default_weights() {
            self.weights = job.default_weights();
        }
        self.job = job;
    }

    /// The quantization QLoRA uses when the chosen weights are not quantized.
    pub fn effective_weights(&self) -> WeightFormat {
        if self.job == Job::Qlora && !self.weights.is_quantized() {
            WeightFormat::Nf4Dq
        } else {
            self.weights
        }
    }
}
