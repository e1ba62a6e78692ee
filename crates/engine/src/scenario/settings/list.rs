//! The declaration of every setting: the [`Scenario`] field it sets, its default, and the
//! descriptor the link codec, the CLI, the page and the property tests read (see `declare.rs` for
//! the form of an entry). The entries' order is the order links write the settings in; a panel of
//! the page shows its settings by their rank (`at Panel(rank)`), which leaves that order alone.

use super::applies::*;
use super::declare::{declare_settings, look, setting};
use super::field::Field;
use super::{Look, Panel, Place, Setting, SettingKind, SettingValue};
use crate::dtype::{KvDtype, WeightFormat};
use crate::gguf::GgmlType;
use crate::gpus::Gpu;
use crate::llamacpp::{ProjectorFile, TensorShares, UmaKind};
use crate::scenario::{
    Attention, Checkpointing, DpFramework, GgufFile, Job, LocalMachine, LoraTargets, Loss,
    ModelChoice, Offload, Optimizer, PipelineSchedule, SplitMode, VllmVersion, WeightsLoad, Zero,
};
use crate::scenario::{Batching, Framework};
use crate::scenario::{CudaGraphs, Server, SpecMethod};
use crate::units::Unit;
use crate::weight_parts::{PartFormats, WeightPart, PART_FOLLOWS};

declare_settings! {
    /// Every setting of a budget. Fields are plain so the page can bind them; `validate` checks ranges.
    pub struct Scenario;

    model: ModelChoice = ModelChoice::Preset("llama-3.1-8b");
    job: Job = Job::Lora
        => ("j", "job", "job", "J") at Job(10, Buttons) if always, then(Scenario::switch_job);
    /// The fine-tuning framework whose defaults the training settings started from.
    framework: Framework = Framework::Trl
        => ("ft", "framework", "framework", "T") at Job(20) if training, then(|s: &mut Scenario, f: Framework| f.apply(s));
    weights: WeightFormat = WeightFormat::Bf16
        => ("w", "weights", "weights", "F") at Job(30, Steps) if weights_chosen;
    /// Parts of the model stored in a format of their own (a mixed checkpoint).
    weight_parts: PartFormats = PartFormats::default()
        => ("we", "weights-embeddings", "weights-embeddings", "F") at Advanced(10) if mixes_formats, part(WeightPart::Embeddings)
        => ("wa", "weights-attention", "weights-attention", "F") at Advanced(20) if mixes_formats, part(WeightPart::Attention)
        => ("wx", "weights-mlp", "weights-mlp", "F") at Advanced(30) if mixes_formats, part(WeightPart::Mlp)
        => ("wh", "weights-head", "weights-head", "F") at Advanced(40) if mixes_formats, part(WeightPart::Head);
    kv_dtype: KvDtype = KvDtype::Bf16
        => ("kv", "kv", "kv-dtype", "D") at Job(190) if transformer_kv;
    optimizer: Optimizer = Optimizer::AdamW
        => ("o", "optimizer", "optimizer", "O") at Job(280) if training;
    checkpointing: Checkpointing = Checkpointing::Full
        => ("gc", "ckpt", "ckpt", "C") at Job(310) if training;
    attention: Attention = Attention::Flash
        => ("at", "attention", "attention", "A") at Job(350) if not_local;
    loss: Loss = Loss::Fused
        => ("ls", "loss", "loss", "L") at Job(340) if training;
    zero: Zero = Zero::Z0
        => ("z", "zero", "zero", "S") at Hardware(120, Steps) if training;
    offload: Offload = Offload::None
        => ("off", "offload", "offload", "O") at Hardware(130) if training;
    /// The data-parallel framework, whose communication buffers add to the model states.
    dp_framework: DpFramework = DpFramework::None
        => ("dpf", "dp-framework", "dp-framework", "P") at Hardware(140) if training;
    /// How a sharded job loads its weights.
    weights_load: WeightsLoad = WeightsLoad::Sharded
        => ("wl", "weights-load", "weights-load", "W") at Hardware(160) if sharded;
    gpu: Gpu = Gpu::Rtx4090
        => ("gpu", "gpu", "gpu", "G") at Hardware(20) if on_gpus;
    /// Which vLLM engine sizes the KV pool.
    // what `vllm serve` runs today: V0 was removed in vLLM 0.11, and CUDA-graph memory
    // profiling is on by default from 0.21
    vllm: VllmVersion = VllmVersion::V1Graphs
        => ("vv", "vllm", "vllm-version", "V") at Advanced(150) if serving;
    /// The serving engine whose start-up arithmetic sizes the KV pool.
    server: Server = Server::Vllm
        => ("srv", "server", "server", "S") at Advanced(80) if serving;
    unit: Unit = Unit::Gib
        => ("unit", "unit", "unit", "U") at Header(10, Buttons) if always;
    /// fp32 master weights (mixed precision); for LoRA, adapters kept in fp32.
    master_weights: bool = true
        => ("mw", "master-weights", "switch-mw", "0|1") at Job(300) if training;
    /// Dropout on the adapters' input (PEFT lora_dropout > 0): each adapter keeps its own copy and a mask.
    lora_dropout: bool = false
        => ("ld", "lora-dropout", "switch-ld", "0|1") at Job(220) if peft;
    /// PEFT modules_to_save on the embeddings and the head: trainable full copies, not adapters.
    train_embed_head: bool = false
        => ("mts", "train-embed-head", "switch-mts", "0|1") at Job(230) if peft;
    /// DoRA (PEFT use_dora): a trainable magnitude per output of each adapted matrix; each adapted
    /// layer keeps its base output for the scaling and builds W + BA to take its column norm.
    dora: bool = false
        => ("dora", "dora", "switch-dora", "0|1") at Job(240) if peft;
    /// The optimizer steps each parameter as soon as its gradient exists (torchtune
    /// optimizer_in_bwd, LOMO): gradients are freed one at a time and never all exist.
    optimizer_in_backward: bool = false
        => ("obw", "optimizer-in-backward", "switch-obw", "0|1") at Job(330) if training;
    /// Saved activations go to CPU memory during the forward and come back for the backward.
    offload_activations: bool = false
        => ("ao", "offload-activations", "switch-ao", "0|1") at Job(320) if training;
    /// The output head is quantized with the linear layers (litgpt / Lightning quantize every
    /// Linear); transformers and the GPTQ/AWQ exporters keep it 16-bit.
    quantize_head: bool = false
        => ("qh", "quantize-head", "switch-qh", "0|1") at Job(40) if quantized_base;
    /// Only the MLP (experts) is quantized; attention projections stay 16-bit (FP8 recipes such as
    /// Meta's Llama 3.1 405B FP8).
    attention_16bit: bool = false
        => ("a16", "attention-16bit", "switch-a16", "0|1") at Job(50) if quantized_base;
    /// Inference: the KV cache is allocated up front for `max_model_len` tokens (static caches of
    /// transformers, torchtune, TensorRT-LLM), not grown with the tokens.
    static_kv: bool = false
        => ("ks", "static-kv", "switch-ks", "0|1") at Job(140) if inference;
    /// Inference: the cache holds K and V after the GQA expansion, one per attention head (an
    /// implementation some libraries had), not one per KV head.
    kv_all_heads: bool = false
        => ("kvh", "kv-all-heads", "switch-kvh", "0|1") at Job(150) if inference;
    /// bitsandbytes' paged optimizers (PagedAdamW, PagedAdamW8bit, PagedLion; HF Trainer
    /// `paged_adamw_32bit` / `paged_adamw_8bit`): the states of large tensors live in CUDA unified
    /// memory, outside PyTorch's caching allocator.
    paged_optimizer: bool = false
        => ("po", "paged-optimizer", "switch-po", "0|1") at Job(290) if pageable;
    /// DDP `gradient_as_bucket_view`: the gradients are views into the buckets, not a second copy.
    bucket_view: bool = false
        => ("gbv", "bucket-view", "switch-gbv", "0|1") at Hardware(170) if ddp;
    /// FSDP `no_sync()` on the accumulating micro-batches: the unsharded gradients stay until the
    /// step's last micro-batch reduce-scatters them.
    fsdp_no_sync: bool = false
        => ("fns", "fsdp-no-sync", "switch-fns", "0|1") at Hardware(180) if fsdp_sharding;
    /// PEFT's `prepare_model_for_kbit_training`: the 16-bit parameters of a 4-bit base
    /// (embeddings, head, norms) upcast to fp32.
    kbit_upcast: bool = false
        => ("ku", "kbit-upcast", "switch-ku", "0|1") at Job(60) if qlora_bnb;
    /// `bnb_4bit_compute_dtype=float32`: each 4-bit matrix dequantized to fp32 for its matmul.
    compute_fp32: bool = false
        => ("c32", "compute-fp32", "switch-c32", "0|1") at Job(70) if qlora_bnb;
    /// Sequence parallelism beside tensor parallelism (Megatron `--sequence-parallel`,
    /// torchtitan's `SequenceParallel` norms): what tensor parallelism leaves replicated (the
    /// norms, the layer inputs a checkpoint keeps) is split along the sequence instead.
    sequence_parallel: bool = false
        => ("sqp", "sequence-parallel", "switch-sqp", "0|1") at Hardware(80) if tensor_parallel_training;
    lora_targets: LoraTargets = LoraTargets::all_linear()
        => ("t", "targets", "lora-targets", "L") at Job(210) if peft;
    /// Micro-batch per GPU (training) or concurrent sequences (inference).
    batch: u64 = 4
        => ("b", "batch", "batch", "N") at Job(80) if transformer_batch, number(1, 1 << 20, slider 1, 1024, true, true);
    /// Tokens per sequence (training: the cap, `max_seq_length`) or prompt tokens (inference).
    seq: u64 = 2_048
        => ("s", "seq", "seq", "N") at Job(90) if transformer_batch, number(1, 10_485_760, slider 128, 1_048_576, true, false);
    /// Parameters of linear matrices a quantized checkpoint keeps 16-bit in single layers
    /// (Unsloth's dynamic 4-bit checkpoints, read from `llm_int8_skip_modules`); 0: none.
    kept_16bit: u64 = 0
        => ("k16", "kept-16bit", "kept-16bit", "N") at Advanced(50) if quantized_base, number(0, 1 << 44, slider 0, 1 << 34, true, false);
    /// Training: the evaluation loop's sequences a step (`per_device_eval_batch_size`); 0: no
    /// evaluation during training.
    eval_batch: u64 = 0
        => ("eb", "eval-batch", "eval-batch", "N") at Job(260) if training, number(0, 1 << 20, slider 0, 1024, true, true);
    /// Training: the length of the data's samples (the longest a batch holds), below the cap;
    /// 0: as long as the cap.
    sample_len: u64 = 0
        => ("sl", "sample-len", "sample-len", "N") at Job(100) if training_samples, number(0, 10_485_760, slider 0, 1_048_576, true, false);
    /// Training: how a batch's samples become rows (padding, packing, padding-free).
    batching: Batching = Batching::Longest
        => ("pad", "batching", "batching", "B") at Job(110) if training_samples;
    /// Generated tokens (inference).
    gen: u64 = 512
        => ("g", "gen", "gen", "N") at Job(120) if inference, number(0, 10_485_760, slider 1, 131_072, true, false);
    /// Target tokens an encoder–decoder model trains on (its decoder's length; `seq` is then the
    /// source the encoder reads).
    target_len: u64 = 128
        => ("tl", "target-len", "target-len", "N") at Job(130) if encoder_decoder_training, number(1, 10_485_760, slider 1, 131_072, true, false);
    grad_accum: u64 = 1
        => ("ga", "grad-accum", "grad-accum", "N") at Job(250) if training, number(1, 65_536, slider 1, 128, true, true);
    /// Target global batch in sequences (micro-batch × accumulation × data-parallel ranks); 0: none.
    global_batch: u64 = 0
        => ("gb", "global-batch", "global-batch", "N") at Job(270) if training, number(0, 1 << 24, slider 0, 4096, true, true);
    lora_rank: u64 = 16
        => ("r", "rank", "lora-rank", "N") at Job(200) if peft, number(1, 65_536, slider 1, 1024, true, true);
    gpus: u64 = 1
        => ("n", "gpus", "gpus", "N") at Hardware(30) if on_gpus, number(1, 4_096, slider 1, 4096, true, true);
    /// Ranks one shard spans (FSDP HYBRID_SHARD: the GPUs of a node; replicated across groups);
    /// 0: all data-parallel ranks.
    shard_group: u64 = 0
        => ("sg", "shard-group", "shard-group", "N") at Hardware(150) if sharding, number(0, 4_096, slider 0, 4096, true, true);
    tp: u64 = 1
        => ("tp", "tp", "tp", "N") at Hardware(60) if not_local, number(1, 64, slider 1, 64, true, true);
    /// Pipeline stages: the layers split over this many GPUs in sequence (training pipelines, or
    /// an inference model spread by layers as accelerate's `device_map` does); 1: no split.
    pp: u64 = 1
        => ("pp", "pp", "pp", "N") at Hardware(90) if splits_layers, number(1, 64, slider 1, 64, true, true);
    /// The training pipeline's schedule.
    pipeline_schedule: PipelineSchedule = PipelineSchedule::OneFOneB
        => ("pps", "pipeline-schedule", "pipeline-schedule", "K") at Hardware(100) if training_pipeline;
    /// Model chunks per GPU under the interleaved schedule (virtual pipeline stages).
    // torchtitan's default for multi-stage schedules (two stages per rank)
    virtual_stages: u64 = 2
        => ("vs", "virtual-stages", "virtual-stages", "N") at Hardware(110) if interleaved_pipeline, number(2, 16, slider 2, 16, false, false);
    /// vLLM gpu_memory_utilization, in percent.
    gpu_util_pct: u64 = 90
        => ("u", "gpu-util", "gpu-util", "N") at Advanced(90) if vllm_serving, number(10, 100, slider 10, 100, true, false);
    /// SGLang mem_fraction_static, in thousandths; 0: SGLang's default for the GPU
    /// (`sglang::default_mem_fraction_permille`).
    mem_fraction_permille: u64 = 0
        => ("mfs", "mem-fraction-static", "mem-fraction-static", "N") at Advanced(100) if sglang_serving, number(0, 1_000, slider 0, 1_000, false, false);
    block_size: u64 = 16
        => ("bs", "block-size", "block-size", "N") at Advanced(110) if serving, number(1, 1_024, slider 1, 256, true, true);
    max_model_len: u64 = 8_192
        => ("ml", "max-model-len", "max-model-len", "N") at Advanced(120) if generating, number(1, 10_485_760, slider 128, 1_048_576, true, true);
    /// Average tokens of a request (prompt + output), for serving.
    avg_tokens: u64 = 1_024
        => ("al", "avg-tokens", "avg-tokens", "N") at Job(170) if serving, number(1, 10_485_760, slider 64, 131_072, true, false);
    /// Concurrent requests to plan for (serving).
    concurrency: u64 = 16
        => ("c", "concurrency", "concurrency", "N") at Job(160) if serving, number(1, 1 << 20, slider 1, 4096, true, false);
    /// Tokens of one prefill/profile batch (vLLM max_num_batched_tokens).
    batched_tokens: u64 = 8_192
        => ("bt", "batched-tokens", "batched-tokens", "N") at Advanced(130) if serving, number(1, 10_485_760, slider 128, 131_072, true, true);
    /// Sequences of one batch (vLLM max_num_seqs): the start-up profile samples one token for each.
    // vLLM's SchedulerConfig default (vllm/config.py); V1 raises it to 1024 on GPUs of
    // 70 GiB and more (vllm/engine/arg_utils.py, _set_default_args_v1)
    max_num_seqs: u64 = 256
        => ("ns", "max-num-seqs", "max-num-seqs", "N") at Advanced(140) if serving, number(1, 65_536, slider 1, 4_096, true, true);
    /// vLLM `--max-loras`: adapter slots allocated at start-up (0: LoRA serving off).
    max_loras: u64 = 0
        => ("lm", "max-loras", "max-loras", "N") at Advanced(160) if serving, number(0, 1_024, slider 0, 64, true, false);
    /// vLLM `--max-lora-rank`: the rank every slot is allocated for.
    // vLLM's LoRAConfig default (vllm/config/lora.py)
    max_lora_rank: u64 = 16
        => ("lr", "max-lora-rank", "max-lora-rank", "N") at Advanced(170) if serving, number(1, 512, slider 1, 512, true, true);
    /// Tokens of a prompt prefix every request shares (vLLM automatic prefix caching; 0: off).
    shared_prefix: u64 = 0
        => ("px", "shared-prefix", "shared-prefix", "N") at Job(180) if serving, number(0, 10_485_760, slider 0, 131_072, true, false);
    /// Whether the server captures CUDA graphs (`--enforce-eager` turns them off).
    /// vLLM's and SGLang's `--cpu-offload-gb`: GiB of each GPU's weights kept in pinned CPU memory
    /// and streamed to the GPU for every forward pass (0: none).
    cpu_offload_gib: u64 = 0
        => ("cog", "cpu-offload-gb", "cpu-offload-gb", "N") at Advanced(180) if serving, number(0, 1_024, slider 0, 256, true, false);
    cuda_graphs: CudaGraphs = CudaGraphs::Captured
        => ("cg", "cuda-graphs", "cuda-graphs", "G") at Advanced(190) if serving;
    /// NCCL and custom all-reduce buffers per GPU when tensor parallel, in MiB; 0: from the GPUs'
    /// interconnect (`server::comm_mib`).
    // vLLM PR #10511: non-torch memory 1.79 GiB at TP 1 and 3.58 GiB at TP 2 (H100)
    comm_mib: u64 = 0
        => ("nc", "comm-mib", "comm-mib", "N") at Advanced(200) if serving_split, number(0, 65_536, slider 0, 8_192, true, false);
    /// Speculative decoding method (vLLM `--speculative-config`).
    spec: SpecMethod = SpecMethod::Off
        => ("sd", "speculative", "speculative", "M") at Advanced(210) if serving;
    /// Tokens proposed per step (`num_speculative_tokens`).
    spec_tokens: u64 = 3
        => ("sk", "spec-tokens", "spec-tokens", "N") at Advanced(220) if speculating, number(1, 16, slider 1, 16, false, false);
    /// The draft model's preset id, for the draft method.
    draft_model: &'static str = "llama-3.2-1b"
        => ("dm", "draft-model", "draft-model", "MODEL") at Advanced(230) if drafting, keys(preset_ids);
    /// CUDA context, cuBLAS/NCCL workspaces and other memory outside the allocator, in MiB.
    context_mib: u64 = 1_024
        => ("ctx", "context-mib", "context-mib", "N") at Advanced(60) if not_local, number(0, 65_536, slider 0, 8192, true, false);
    /// Caching-allocator reserve and fragmentation, in percent of the tensor peak.
    reserve_pct: u64 = 5
        => ("rsv", "reserve", "reserve-pct", "N") at Advanced(70) if not_local, number(0, 100, slider 0, 100, true, false);
    /// llama.cpp `-ngl`: layers on the GPUs, the output counted as one (999: all).
    // llama.cpp's defaults (common/common.h), -ngl 999 as its docs write "all layers",
    // and the 4096-token context llama-server and Ollama start with
    ngl: u64 = 999
        => ("ngl", "ngl", "local-ngl", "N") at Job(360) if local, number(0, 65_536, slider 0, 128, false, false);
    /// llama.cpp `-c`: context over all slots; 0 takes the model's training context.
    n_ctx: u64 = 4_096
        => ("lc", "ctx-size", "local-ctx", "N") at Job(370) if local, number(0, 1 << 24, slider 0, 1_048_576, true, true);
    /// llama.cpp `-np`: parallel sequences (slots).
    n_parallel: u64 = 1
        => ("np", "parallel", "local-parallel", "N") at Job(380) if local, number(1, 1_024, slider 1, 64, true, true);
    /// llama.cpp `-md`: a draft model's preset id ("none": no draft), in the target's format.
    llama_draft: &'static str = "none"
        => ("md", "model-draft", "local-draft", "MODEL") at Job(390) if local, keys(draft_or_none);
    /// llama.cpp `-cd`: the draft's context (0: the target's cells per sequence).
    draft_ctx: u64 = 0
        => ("cd", "ctx-size-draft", "local-draft-ctx", "N") at Job(400) if local_drafting, number(0, 1 << 24, slider 0, 1_048_576, true, true);
    /// llama.cpp `-ngld`: the draft's layers on the GPUs (999: all).
    draft_ngl: u64 = 999
        => ("ngld", "gpu-layers-draft", "local-draft-ngl", "N") at Job(410) if local_drafting, number(0, 65_536, slider 0, 128, false, false);
    /// llama.cpp `-b` / `-ub`: logical and physical batch.
    n_batch: u64 = 2_048
        => ("lb", "batch-size", "local-batch", "N") at Advanced(240) if local, number(1, 1 << 24, slider 32, 8_192, true, true);
    n_ubatch: u64 = 512
        => ("lub", "ubatch-size", "local-ubatch", "N") at Advanced(250) if local, number(1, 1 << 24, slider 32, 8_192, true, true);
    /// `--cache-type-k` / `--cache-type-v`.
    cache_k: GgmlType = GgmlType::F16
        => ("ctk", "cache-type-k", "local-ctk", "T") at Job(420) if local;
    cache_v: GgmlType = GgmlType::F16
        => ("ctv", "cache-type-v", "local-ctv", "T") at Job(430) if local;
    /// `-fa on|off`.
    flash_attn: bool = true
        => ("fa", "flash-attn", "local-fa", "0|1") at Job(440) if local;
    /// mmap on (llama.cpp's default) or `--no-mmap`.
    mmap: bool = true
        => ("mmap", "mmap", "local-mmap", "0|1") at Advanced(260) if local;
    /// `--n-cpu-moe N`: the experts of the first N layers stay in CPU RAM.
    cpu_moe: u64 = 0
        => ("ncm", "n-cpu-moe", "local-ncmoe", "N") at Job(450) if local, number(0, 65_536, slider 0, 128, false, false);
    /// Op offload on (llama.cpp's default) or `--no-op-offload`.
    op_offload: bool = true
        => ("oo", "op-offload", "local-op-offload", "0|1") at Advanced(270) if local;
    /// `--kv-unified`: one cache stream shared by all slots (off: n_ctx / -np cells each).
    kv_unified: bool = false
        => ("kvu", "kv-unified", "local-kv-unified", "0|1") at Advanced(280) if local;
    /// `--swa-full`: sliding-window layers cache the whole context.
    swa_full: bool = false
        => ("swf", "swa-full", "local-swa-full", "0|1") at Advanced(290) if local;
    /// The projector on the first GPU (llama.cpp's default); off: `--no-mmproj-offload`.
    mmproj_offload: bool = true
        => ("mpo", "mmproj-offload", "local-mmproj-offload", "0|1") at Hardware(280) if local_projector;
    /// `--split-mode`: by layer over the GPUs, or all on the main one.
    split_mode: SplitMode = SplitMode::Layer
        => ("sm", "split-mode", "local-split-mode", "M") at Hardware(290) if local_gpus_several;
    machine: LocalMachine = LocalMachine::Gpu
        => ("mch", "machine", "local-machine", "M") at Hardware(10, Buttons) if local;
    /// A Mac: the chip's key in the catalog and its memory in GB.
    mac_chip: &'static str = "M4-MAX"
        => ("mac", "mac", "local-mac", "CHIP") at Hardware(190) if local_mac, keys(mac_chip_keys);
    mac_memory_gb: u64 = 64
        => ("mgb", "mac-memory", "local-mac-memory", "N") at Hardware(200) if local_mac, number(8, 512, slider 8, 512, true, false);
    /// `sudo sysctl iogpu.wired_limit_mb=N`; 0: macOS's default working set.
    wired_limit_mb: u64 = 0
        => ("wmb", "wired-limit-mb", "local-wired", "N") at Hardware(210) if local_mac, number(0, 1 << 24, slider 0, 524_288, true, false);
    /// vLLM `--enable-expert-parallel` / SGLang `--ep-size`: a MoE model's routed experts spread
    /// over all the server's GPUs, its attention split over `tp` and replicated on each of the
    /// `gpus / tp` data-parallel ranks, each with its own requests and KV cache.
    expert_parallel: bool = false
        => ("ep", "expert-parallel", "expert-parallel", "0|1") at Hardware(70) if serving;
    /// Memory other processes already hold on each GPU (a desktop, another job), MiB: what the
    /// driver reports as used before the job starts.
    held_mib: u64 = 0
        => ("held", "held-mib", "gpu-held", "N") at Hardware(40) if on_gpus, number(0, 1 << 20, slider 0, 65_536, false, false);
    /// A box of mixed GPUs: the model of its last GPU (the others are `gpu`); None: all alike.
    last_gpu: Option<Gpu> = None
        => ("g2", "last-gpu", "last-gpu", "GPU|same") at Hardware(50) if mixable_gpus;
    /// A unified-memory PC: which, its memory in GB, the Ryzen's BIOS carve-out in MiB and its
    /// GTT limit (`ttm.pages_limit` as MiB; 0: the kernel's default, half the OS's memory).
    uma_kind: UmaKind = UmaKind::DgxSpark
        => ("ub", "uma-box", "local-uma", "BOX") at Hardware(220) if local_uma;
    uma_memory_gb: u64 = 128
        => ("ugb", "uma-memory", "local-uma-memory", "N") at Hardware(230) if local_uma, number(32, 128, slider 32, 128, false, false);
    uma_carve_out_mib: u64 = 512
        => ("uvr", "uma-vram-mib", "local-uma-vram", "N") at Hardware(240) if local_ryzen_uma, number(512, 98_304, slider 512, 98_304, true, false);
    gtt_limit_mib: u64 = 0
        => ("gtt", "gtt-limit-mib", "local-gtt", "N") at Hardware(250) if local_ryzen_uma, number(0, 131_072, slider 0, 131_072, false, false);
    /// The host's RAM in GiB; 0: not given (not checked).
    ram_gib: u64 = 0
        => ("ram", "ram", "local-ram", "N") at Hardware(260) if local_ram, number(0, 65_536, slider 0, 1_024, true, false);
    /// The host RAM's bandwidth in GB/s for the decode-speed bound; 0: dual-channel DDR5-5600's
    /// 89.6 GB/s.
    ram_gbps: u64 = 0
        => ("rbw", "ram-bandwidth", "local-ram-bandwidth", "N") at Hardware(270) if local_ram, number(0, 100_000, slider 0, 1_024, true, false);
    /// `--tensor-split`: each GPU's share of the layers (even unless given).
    tensor_split: TensorShares = TensorShares::EVEN
        => ("ts", "tensor-split", "local-tensor-split", "A,B|even") at Module(10) if local_gpus;
    /// The GGUF file a local run plans; None: the preset in the chosen GGUF quant.
    gguf: Option<Box<GgufFile>> = None;
    /// A multimodal projector loaded beside the model (`--mmproj`).
    mmproj: Option<Box<ProjectorFile>> = None;
}
