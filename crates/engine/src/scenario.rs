//! A scenario: the model, the job, the numbers and the hardware. Everything the page and the CLI set.

use crate::config;
use crate::dtype::{KvDtype, WeightFormat};
use crate::error::EngineError;
use crate::framework::{Batching, Framework};
use crate::gguf::{GgmlType, GgufSummary};
use crate::gpus::Gpu;
use crate::hub::HubSource;
use crate::llamacpp::{ProjectorFile, TensorShares, UmaKind};
use crate::model::Architecture;
use crate::named::named_enum;
use crate::presets;
use crate::server::{CudaGraphs, Server, SpecMethod};
use crate::settings::{SettingValue, SETTINGS};
use crate::units::Unit;
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

named_enum! {
    /// The on/off settings. The key is the link key (and the CLI's flag name after `--`).
    pub enum Switch {
        MasterWeights => ("mw", "fp32 master weights (LoRA: fp32 adapters)"),
        LoraDropout => ("ld", "LoRA dropout (adapters keep their own input copy)"),
        TrainEmbedHead => ("mts", "embeddings and head trained in full (modules_to_save)"),
        Dora => ("dora", "DoRA (magnitude + direction adapters)"),
        OptimizerInBackward => ("obw", "optimizer step fused into backward"),
        OffloadActivations => ("ao", "activations offloaded to CPU memory"),
        QuantizeHead => ("qh", "output head quantized too"),
        Attention16 => ("a16", "attention kept 16-bit (only the MLP quantized)"),
        StaticKv => ("ks", "KV cache preallocated for the max model length"),
        KvAllHeads => ("kvh", "KV cache keeps every attention head (GQA expanded)"),
        PagedOptimizer => ("po", "paged optimizer states (bitsandbytes, CUDA unified memory)"),
        BucketView => ("gbv", "DDP gradient_as_bucket_view (gradients live in the buckets)"),
        SequenceParallel => ("sqp", "sequence parallel (norms and layer inputs split over the tensor-parallel GPUs)"),
        FsdpNoSync => ("fns", "FSDP no_sync while accumulating (unsharded gradients kept)"),
        KbitUpcast => ("ku", "prepare_model_for_kbit_training (16-bit parameters upcast to fp32)"),
        Compute32 => ("c32", "bnb_4bit_compute_dtype=float32 (4-bit matrices dequantized to fp32)"),
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

/// Every setting of a budget. Fields are plain so the page can bind them; `validate` checks ranges.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub model: ModelChoice,
    pub job: Job,
    pub weights: WeightFormat,
    /// Parts of the model stored in a format of their own (a mixed checkpoint).
    pub weight_parts: PartFormats,
    pub kv_dtype: KvDtype,
    /// Micro-batch per GPU (training) or concurrent sequences (inference).
    pub batch: u64,
    /// Tokens per sequence (training: the cap, `max_seq_length`) or prompt tokens (inference).
    pub seq: u64,
    /// Training: the length of the data's samples (the longest a batch holds), below the cap;
    /// 0: as long as the cap.
    pub sample_len: u64,
    /// Training: how a batch's samples become rows (padding, packing, padding-free).
    pub batching: Batching,
    /// Parameters of linear matrices a quantized checkpoint keeps 16-bit in single layers
    /// (Unsloth's dynamic 4-bit checkpoints, read from `llm_int8_skip_modules`); 0: none.
    pub kept_16bit: u64,
    /// Training: the evaluation loop's sequences a step (`per_device_eval_batch_size`); 0: no
    /// evaluation during training.
    pub eval_batch: u64,
    /// The fine-tuning framework whose defaults the training settings started from.
    pub framework: Framework,
    /// PEFT's `prepare_model_for_kbit_training`: the 16-bit parameters of a 4-bit base
    /// (embeddings, head, norms) upcast to fp32.
    pub kbit_upcast: bool,
    /// `bnb_4bit_compute_dtype=float32`: each 4-bit matrix dequantized to fp32 for its matmul.
    pub compute_fp32: bool,
    /// Generated tokens (inference).
    pub gen: u64,
    /// Target tokens an encoder–decoder model trains on (its decoder's length; `seq` is then the
    /// source the encoder reads).
    pub target_len: u64,
    pub grad_accum: u64,
    /// Target global batch in sequences (micro-batch × accumulation × data-parallel ranks); 0: none.
    pub global_batch: u64,
    pub lora_rank: u64,
    pub lora_targets: LoraTargets,
    /// Dropout on the adapters' input (PEFT lora_dropout > 0): each adapter keeps its own copy and a mask.
    pub lora_dropout: bool,
    /// PEFT modules_to_save on the embeddings and the head: trainable full copies, not adapters.
    pub train_embed_head: bool,
    /// DoRA (PEFT use_dora): a trainable magnitude per output of each adapted matrix; each adapted
    /// layer keeps its base output for the scaling and builds W + BA to take its column norm.
    pub dora: bool,
    pub optimizer: Optimizer,
    /// The optimizer steps each parameter as soon as its gradient exists (torchtune
    /// optimizer_in_bwd, LOMO): gradients are freed one at a time and never all exist.
    pub optimizer_in_backward: bool,
    /// Saved activations go to CPU memory during the forward and come back for the backward.
    pub offload_activations: bool,
    /// The output head is quantized with the linear layers (litgpt / Lightning quantize every
    /// Linear); transformers and the GPTQ/AWQ exporters keep it 16-bit.
    pub quantize_head: bool,
    /// Only the MLP (experts) is quantized; attention projections stay 16-bit (FP8 recipes such as
    /// Meta's Llama 3.1 405B FP8).
    pub attention_16bit: bool,
    /// Inference: the KV cache is allocated up front for `max_model_len` tokens (static caches of
    /// transformers, torchtune, TensorRT-LLM), not grown with the tokens.
    pub static_kv: bool,
    /// Inference: the cache holds K and V after the GQA expansion, one per attention head (an
    /// implementation some libraries had), not one per KV head.
    pub kv_all_heads: bool,
    /// bitsandbytes' paged optimizers (PagedAdamW, PagedAdamW8bit, PagedLion; HF Trainer
    /// `paged_adamw_32bit` / `paged_adamw_8bit`): the states of large tensors live in CUDA unified
    /// memory, outside PyTorch's caching allocator.
    pub paged_optimizer: bool,
    /// fp32 master weights (mixed precision); for LoRA, adapters kept in fp32.
    pub master_weights: bool,
    pub checkpointing: Checkpointing,
    pub attention: Attention,
    pub loss: Loss,
    pub gpus: u64,
    pub zero: Zero,
    pub offload: Offload,
    /// The data-parallel framework, whose communication buffers add to the model states.
    pub dp_framework: DpFramework,
    /// DDP `gradient_as_bucket_view`: the gradients are views into the buckets, not a second copy.
    pub bucket_view: bool,
    /// FSDP `no_sync()` on the accumulating micro-batches: the unsharded gradients stay until the
    /// step's last micro-batch reduce-scatters them.
    pub fsdp_no_sync: bool,
    /// How a sharded job loads its weights.
    pub weights_load: WeightsLoad,
    /// Ranks one shard spans (FSDP HYBRID_SHARD: the GPUs of a node; replicated across groups);
    /// 0: all data-parallel ranks.
    pub shard_group: u64,
    pub tp: u64,
    /// Pipeline stages: the layers split over this many GPUs in sequence (training pipelines, or
    /// an inference model spread by layers as accelerate's `device_map` does); 1: no split.
    pub pp: u64,
    /// The training pipeline's schedule.
    pub pipeline_schedule: PipelineSchedule,
    /// Model chunks per GPU under the interleaved schedule (virtual pipeline stages).
    pub virtual_stages: u64,
    /// Sequence parallelism beside tensor parallelism (Megatron `--sequence-parallel`,
    /// torchtitan's `SequenceParallel` norms): what tensor parallelism leaves replicated (the
    /// norms, the layer inputs a checkpoint keeps) is split along the sequence instead.
    pub sequence_parallel: bool,
    /// The serving engine whose start-up arithmetic sizes the KV pool.
    pub server: Server,
    /// vLLM gpu_memory_utilization, in percent.
    pub gpu_util_pct: u64,
    /// SGLang mem_fraction_static, in thousandths; 0: SGLang's default for the GPU
    /// (`sglang::default_mem_fraction_permille`).
    pub mem_fraction_permille: u64,
    pub block_size: u64,
    pub max_model_len: u64,
    /// Average tokens of a request (prompt + output), for serving.
    pub avg_tokens: u64,
    /// Concurrent requests to plan for (serving).
    pub concurrency: u64,
    /// Tokens of one prefill/profile batch (vLLM max_num_batched_tokens).
    pub batched_tokens: u64,
    /// Sequences of one batch (vLLM max_num_seqs): the start-up profile samples one token for each.
    pub max_num_seqs: u64,
    /// Which vLLM engine sizes the KV pool.
    pub vllm: VllmVersion,
    /// vLLM `--max-loras`: adapter slots allocated at start-up (0: LoRA serving off).
    pub max_loras: u64,
    /// vLLM `--max-lora-rank`: the rank every slot is allocated for.
    pub max_lora_rank: u64,
    /// Tokens of a prompt prefix every request shares (vLLM automatic prefix caching; 0: off).
    pub shared_prefix: u64,
    /// Whether the server captures CUDA graphs (`--enforce-eager` turns them off).
    pub cuda_graphs: CudaGraphs,
    /// NCCL and custom all-reduce buffers per GPU when tensor parallel, in MiB; 0: from the GPUs'
    /// interconnect (`server::comm_mib`).
    pub comm_mib: u64,
    /// Speculative decoding method (vLLM `--speculative-config`).
    pub spec: SpecMethod,
    /// Tokens proposed per step (`num_speculative_tokens`).
    pub spec_tokens: u64,
    /// The draft model's preset id, for the draft method.
    pub draft_model: &'static str,
    /// CUDA context, cuBLAS/NCCL workspaces and other memory outside the allocator, in MiB.
    pub context_mib: u64,
    /// Caching-allocator reserve and fragmentation, in percent of the tensor peak.
    pub reserve_pct: u64,
    pub gpu: Gpu,
    pub unit: Unit,
    /// llama.cpp `-ngl`: layers on the GPUs, the output counted as one (999: all).
    pub ngl: u64,
    /// llama.cpp `-c`: context over all slots; 0 takes the model's training context.
    pub n_ctx: u64,
    /// llama.cpp `-np`: parallel sequences (slots).
    pub n_parallel: u64,
    /// llama.cpp `-md`: a draft model's preset id ("none": no draft), in the target's format.
    pub llama_draft: &'static str,
    /// llama.cpp `-cd`: the draft's context (0: the target's cells per sequence).
    pub draft_ctx: u64,
    /// llama.cpp `-ngld`: the draft's layers on the GPUs (999: all).
    pub draft_ngl: u64,
    /// llama.cpp `-b` / `-ub`: logical and physical batch.
    pub n_batch: u64,
    pub n_ubatch: u64,
    /// `--cache-type-k` / `--cache-type-v`.
    pub cache_k: GgmlType,
    pub cache_v: GgmlType,
    /// `-fa on|off`.
    pub flash_attn: bool,
    /// mmap on (llama.cpp's default) or `--no-mmap`.
    pub mmap: bool,
    /// `--n-cpu-moe N`: the experts of the first N layers stay in CPU RAM.
    pub cpu_moe: u64,
    /// Op offload on (llama.cpp's default) or `--no-op-offload`.
    pub op_offload: bool,
    /// `--kv-unified`: one cache stream shared by all slots (off: n_ctx / -np cells each).
    pub kv_unified: bool,
    /// `--swa-full`: sliding-window layers cache the whole context.
    pub swa_full: bool,
    pub machine: LocalMachine,
    /// A Mac: the chip's key in the catalog and its memory in GB.
    pub mac_chip: &'static str,
    pub mac_memory_gb: u64,
    /// `sudo sysctl iogpu.wired_limit_mb=N`; 0: macOS's default working set.
    pub wired_limit_mb: u64,
    /// A unified-memory PC: which, its memory in GB, the Ryzen's BIOS carve-out in MiB and its
    /// GTT limit (`ttm.pages_limit` as MiB; 0: the kernel's default, half the OS's memory).
    pub uma_kind: UmaKind,
    pub uma_memory_gb: u64,
    pub uma_carve_out_mib: u64,
    pub gtt_limit_mib: u64,
    /// vLLM `--enable-expert-parallel` / SGLang `--ep-size`: a MoE model's routed experts spread
    /// over all the server's GPUs, its attention split over `tp` and replicated on each of the
    /// `gpus / tp` data-parallel ranks, each with its own requests and KV cache.
    pub expert_parallel: bool,
    /// Memory other processes already hold on each GPU (a desktop, another job), MiB: what the
    /// driver reports as used before the job starts.
    pub held_mib: u64,
    /// A box of mixed GPUs: the model of its last GPU (the others are `gpu`); None: all alike.
    pub last_gpu: Option<Gpu>,
    /// The host's RAM in GiB; 0: not given (not checked).
    pub ram_gib: u64,
    /// The host RAM's bandwidth in GB/s for the decode-speed bound; 0: dual-channel DDR5-5600's
    /// 89.6 GB/s.
    pub ram_gbps: u64,
    /// `--tensor-split`: each GPU's share of the layers (even unless given).
    pub tensor_split: TensorShares,
    /// `--split-mode`: by layer over the GPUs, or all on the main one.
    pub split_mode: SplitMode,
    /// The GGUF file a local run plans; None: the preset in the chosen GGUF quant.
    pub gguf: Option<Box<GgufFile>>,
    /// A multimodal projector loaded beside the model (`--mmproj`).
    pub mmproj: Option<Box<ProjectorFile>>,
    /// The projector on the first GPU (llama.cpp's default); off: `--no-mmproj-offload`.
    pub mmproj_offload: bool,
}

impl Default for Scenario {
    fn default() -> Scenario {
        Scenario {
            model: ModelChoice::Preset("llama-3.1-8b"),
            job: Job::Lora,
            weights: WeightFormat::Bf16,
            weight_parts: PartFormats::default(),
            kv_dtype: KvDtype::Bf16,
            batch: 4,
            seq: 2_048,
            sample_len: 0,
            batching: Batching::Longest,
            eval_batch: 0,
            kept_16bit: 0,
            framework: Framework::Trl,
            kbit_upcast: false,
            compute_fp32: false,
            gen: 512,
            target_len: 128,
            grad_accum: 1,
            global_batch: 0,
            lora_rank: 16,
            lora_targets: LoraTargets::all_linear(),
            lora_dropout: false,
            train_embed_head: false,
            dora: false,
            optimizer: Optimizer::AdamW,
            optimizer_in_backward: false,
            offload_activations: false,
            quantize_head: false,
            attention_16bit: false,
            static_kv: false,
            kv_all_heads: false,
            paged_optimizer: false,
            master_weights: true,
            checkpointing: Checkpointing::Full,
            attention: Attention::Flash,
            loss: Loss::Fused,
            gpus: 1,
            zero: Zero::Z0,
            offload: Offload::None,
            dp_framework: DpFramework::None,
            bucket_view: false,
            fsdp_no_sync: false,
            weights_load: WeightsLoad::Sharded,
            shard_group: 0,
            tp: 1,
            pp: 1,
            pipeline_schedule: PipelineSchedule::OneFOneB,
            // torchtitan's default for multi-stage schedules (two stages per rank)
            virtual_stages: 2,
            sequence_parallel: false,
            server: Server::Vllm,
            gpu_util_pct: 90,
            mem_fraction_permille: 0,
            block_size: 16,
            max_model_len: 8_192,
            avg_tokens: 1_024,
            concurrency: 16,
            batched_tokens: 8_192,
            // vLLM's SchedulerConfig default (vllm/config.py); V1 raises it to 1024 on GPUs of
            // 70 GiB and more (vllm/engine/arg_utils.py, _set_default_args_v1)
            max_num_seqs: 256,
            // what `vllm serve` runs today: V0 was removed in vLLM 0.11, and CUDA-graph memory
            // profiling is on by default from 0.21
            vllm: VllmVersion::V1Graphs,
            max_loras: 0,
            // vLLM's LoRAConfig default (vllm/config/lora.py)
            max_lora_rank: 16,
            shared_prefix: 0,
            cuda_graphs: CudaGraphs::Captured,
            // vLLM PR #10511: non-torch memory 1.79 GiB at TP 1 and 3.58 GiB at TP 2 (H100)
            comm_mib: 0,
            spec: SpecMethod::Off,
            spec_tokens: 3,
            draft_model: "llama-3.2-1b",
            context_mib: 1_024,
            reserve_pct: 5,
            gpu: Gpu::Rtx4090,
            unit: Unit::Gib,
            // llama.cpp's defaults (common/common.h), -ngl 999 as its docs write "all layers",
            // and the 4096-token context llama-server and Ollama start with
            ngl: 999,
            n_ctx: 4_096,
            n_parallel: 1,
            llama_draft: "none",
            draft_ctx: 0,
            draft_ngl: 999,
            n_batch: 2_048,
            n_ubatch: 512,
            cache_k: GgmlType::F16,
            cache_v: GgmlType::F16,
            flash_attn: true,
            mmap: true,
            cpu_moe: 0,
            op_offload: true,
            kv_unified: false,
            swa_full: false,
            machine: LocalMachine::Gpu,
            mac_chip: "M4-MAX",
            mac_memory_gb: 64,
            wired_limit_mb: 0,
            expert_parallel: false,
            held_mib: 0,
            last_gpu: None,
            uma_kind: UmaKind::DgxSpark,
            uma_memory_gb: 128,
            uma_carve_out_mib: 512,
            gtt_limit_mib: 0,
            ram_gib: 0,
            ram_gbps: 0,
            tensor_split: TensorShares::EVEN,
            split_mode: SplitMode::Layer,
            gguf: None,
            mmproj: None,
            mmproj_offload: true,
        }
    }
}

impl Scenario {
    /// The on/off setting `w`.
    pub fn switch(&self, w: Switch) -> bool {
        match w {
            Switch::MasterWeights => self.master_weights,
            Switch::LoraDropout => self.lora_dropout,
            Switch::TrainEmbedHead => self.train_embed_head,
            Switch::Dora => self.dora,
            Switch::OptimizerInBackward => self.optimizer_in_backward,
            Switch::OffloadActivations => self.offload_activations,
            Switch::QuantizeHead => self.quantize_head,
            Switch::Attention16 => self.attention_16bit,
            Switch::StaticKv => self.static_kv,
            Switch::KvAllHeads => self.kv_all_heads,
            Switch::PagedOptimizer => self.paged_optimizer,
            Switch::BucketView => self.bucket_view,
            Switch::SequenceParallel => self.sequence_parallel,
            Switch::FsdpNoSync => self.fsdp_no_sync,
            Switch::KbitUpcast => self.kbit_upcast,
            Switch::Compute32 => self.compute_fp32,
        }
    }

    /// Turns the on/off setting `w` on or off.
    pub fn set_switch(&mut self, w: Switch, on: bool) {
        let slot = match w {
            Switch::MasterWeights => &mut self.master_weights,
            Switch::LoraDropout => &mut self.lora_dropout,
            Switch::TrainEmbedHead => &mut self.train_embed_head,
            Switch::Dora => &mut self.dora,
            Switch::OptimizerInBackward => &mut self.optimizer_in_backward,
            Switch::OffloadActivations => &mut self.offload_activations,
            Switch::QuantizeHead => &mut self.quantize_head,
            Switch::Attention16 => &mut self.attention_16bit,
            Switch::StaticKv => &mut self.static_kv,
            Switch::KvAllHeads => &mut self.kv_all_heads,
            Switch::PagedOptimizer => &mut self.paged_optimizer,
            Switch::BucketView => &mut self.bucket_view,
            Switch::SequenceParallel => &mut self.sequence_parallel,
            Switch::FsdpNoSync => &mut self.fsdp_no_sync,
            Switch::KbitUpcast => &mut self.kbit_upcast,
            Switch::Compute32 => &mut self.compute_fp32,
        };
        *slot = on;
    }

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
