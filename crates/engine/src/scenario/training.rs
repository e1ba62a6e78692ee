//! A training job's choices: the optimizer, checkpointing, the attention kernel, the loss, and
//! how the job is sharded, offloaded and pipelined.

use crate::named::named_enum;

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
    pub(crate) fn can_page(self) -> bool {
        matches!(
            self,
            Optimizer::AdamW | Optimizer::AdamW8bit | Optimizer::Lion
        )
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
