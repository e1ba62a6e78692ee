//! The names of the engine's choices (components, jobs, optimizers, checkpointing, attention,
//! losses, remedies, ZeRO stages, offload, data-parallel frameworks, weight loading, vLLM
//! versions, pipeline schedules, CUDA graphs, speculative decoding, split modes, local
//! machines) in both languages: English is the
//! engine's label, Chinese written `zh!("…")` and loaded on demand in the page (`zh.rs` collects
//! every pair with [`enumerated_pairs`]). The components' short names keep their Chinese in the
//! first load: "Weights" is also the weights setting's label, whose Chinese differs.

use vram_engine::{
    fit::Remedy, scenario::Attention, scenario::Batching, scenario::Checkpointing,
    scenario::CudaGraphs, scenario::DpFramework, scenario::Framework, scenario::LocalMachine,
    scenario::Loss, scenario::Offload, scenario::Optimizer, scenario::PipelineSchedule,
    scenario::SpecMethod, scenario::SplitMode, scenario::VllmVersion, scenario::WeightsLoad,
    scenario::Zero, Component, Job,
};

use crate::zh;
use crate::Lang;

pub fn machine(lang: Lang, m: LocalMachine) -> &'static str {
    lang.text(
        m.label(),
        match m {
            LocalMachine::Gpu => zh!("GPU + CPU 内存"),
            LocalMachine::Mac => zh!("Mac（统一内存）"),
            LocalMachine::Uma => zh!("DGX Spark / Ryzen AI Max（统一内存）"),
            LocalMachine::Cpu => zh!("只用 CPU"),
        },
    )
}

pub fn job(lang: Lang, j: Job) -> &'static str {
    lang.text(
        j.label(),
        match j {
            Job::Inference => zh!("推理"),
            Job::Serving => zh!("服务 (vLLM / SGLang)"),
            Job::Full => zh!("全参数微调"),
            Job::Lora => zh!("LoRA"),
            Job::Qlora => zh!("QLoRA"),
            Job::Local => zh!("llama.cpp / Ollama"),
        },
    )
}

pub fn optimizer(lang: Lang, o: Optimizer) -> &'static str {
    lang.text(
        o.label(),
        match o {
            Optimizer::AdamW => zh!("AdamW"),
            Optimizer::AdamWBf16 => zh!("AdamW（bf16 状态）"),
            Optimizer::AdamW8bit => zh!("AdamW 8-bit"),
            Optimizer::Adafactor => zh!("Adafactor"),
            Optimizer::Lion => zh!("Lion"),
            Optimizer::SgdMomentum => zh!("SGD + 动量"),
            Optimizer::Sgd => zh!("SGD"),
        },
    )
}

pub fn ckpt(lang: Lang, c: Checkpointing) -> &'static str {
    lang.text(
        c.label(),
        match c {
            Checkpointing::None => zh!("关闭"),
            Checkpointing::Selective => zh!("选择性（注意力）"),
            Checkpointing::Op => zh!("选择性（算子级：保留每隔一个矩阵乘的输出）"),
            Checkpointing::Full => zh!("每一层"),
        },
    )
}

pub fn attention(lang: Lang, a: Attention) -> &'static str {
    lang.text(
        a.label(),
        match a {
            Attention::Flash => zh!("SDPA / FlashAttention"),
            Attention::Eager => zh!("eager（显式注意力矩阵）"),
        },
    )
}

pub fn loss(lang: Lang, l: Loss) -> &'static str {
    lang.text(
        l.label(),
        match l {
            Loss::Full => zh!("完整 logits，升为 fp32"),
            Loss::Full16 => zh!("完整 logits，16 位损失（不升精度）"),
            Loss::Chunked => zh!("分块交叉熵"),
            Loss::ChunkedCompiled => zh!("分块交叉熵，编译（保留 16 位 logits）"),
            Loss::Fused => zh!("融合线性层 + 交叉熵（不生成 logits）"),
            Loss::Unsloth => zh!("fp32 分块融合交叉熵，每块最多 4 GiB（Unsloth）"),
            Loss::NoLmHead => zh!("无语言模型头（分类器）"),
        },
    )
}

pub fn framework(lang: Lang, f: Framework) -> &'static str {
    lang.text(
        f.label(),
        match f {
            Framework::Trl => zh!("TRL SFTTrainer"),
            Framework::Transformers => zh!("transformers Trainer + PEFT"),
            Framework::Unsloth => zh!("Unsloth"),
            Framework::Torchtune => zh!("torchtune"),
            Framework::Axolotl => zh!("axolotl"),
            Framework::LlamaFactory => zh!("LLaMA-Factory"),
        },
    )
}

pub fn batching(lang: Lang, b: Batching) -> &'static str {
    lang.text(
        b.label(),
        match b {
            Batching::Longest => zh!("补齐到批内最长样本"),
            Batching::MaxLength => zh!("补齐到上限"),
            Batching::Packing => zh!("打包成上限长度的行"),
            Batching::PaddingFree => zh!("无填充（样本展平，不补齐）"),
        },
    )
}

pub fn remedy(lang: Lang, r: Remedy) -> &'static str {
    lang.text(
        r.label(),
        match r {
            Remedy::Checkpointing => zh!("每一层都做梯度检查点"),
            Remedy::FusedLoss => zh!("融合线性层 + 交叉熵（不生成完整 logits）"),
            Remedy::Adam8bit => zh!("8 位 AdamW"),
            Remedy::PureBf16 => zh!("纯 bf16：不保留 fp32 主权重或 fp32 适配器"),
            Remedy::StepInBackward => zh!("在反向传播中执行优化器更新"),
            Remedy::OffloadActivations => zh!("激活值卸载到 CPU 内存"),
            Remedy::Zero3 => zh!("在现有 GPU 上使用 ZeRO-3"),
            Remedy::OffloadOptimizer => zh!("优化器状态卸载到 CPU 内存"),
            Remedy::Qlora => zh!("QLoRA：基座模型用 NF4"),
            Remedy::KvFp8 => zh!("fp8 KV Cache"),
            Remedy::Int4 => zh!("4 位权重（AWQ）"),
        },
    )
}

pub fn zero(lang: Lang, z: Zero) -> &'static str {
    lang.text(
        z.label(),
        match z {
            Zero::Z0 => zh!("ZeRO 0 / DDP"),
            Zero::Z1 => zh!("ZeRO 1：切分优化器状态"),
            Zero::Z2 => zh!("ZeRO 2：+ 梯度"),
            Zero::Z3 => zh!("ZeRO 3 / FSDP：+ 权重"),
        },
    )
}

pub fn offload(lang: Lang, o: Offload) -> &'static str {
    lang.text(
        o.label(),
        match o {
            Offload::None => zh!("不卸载"),
            Offload::Optimizer => zh!("优化器状态"),
            Offload::All => zh!("优化器状态 + 权重"),
        },
    )
}

pub fn dp_framework(lang: Lang, d: DpFramework) -> &'static str {
    lang.text(
        d.label(),
        match d {
            DpFramework::None => zh!("只算模型状态"),
            DpFramework::Ddp => zh!("PyTorch DDP"),
            DpFramework::DeepSpeed => zh!("DeepSpeed"),
            DpFramework::Fsdp1 => zh!("FSDP1（扁平参数）"),
            DpFramework::Fsdp2 => zh!("FSDP2（fully_shard）"),
        },
    )
}

pub fn weights_load(lang: Lang, w: WeightsLoad) -> &'static str {
    lang.text(
        w.label(),
        match w {
            WeightsLoad::Sharded => zh!("每个 rank 只建自己的分片（meta 设备）"),
            WeightsLoad::Full => zh!("每个 rank 先载入完整模型"),
            WeightsLoad::Rank0 => zh!("rank 0 载入 + sync_module_states"),
        },
    )
}

pub fn vllm_version(lang: Lang, v: VllmVersion) -> &'static str {
    lang.text(
        v.label(),
        match v {
            VllmVersion::V0 => zh!("V0（0.10 及以前）"),
            VllmVersion::V1 => zh!("V1（0.8 至 0.20）"),
            VllmVersion::V1Graphs => zh!("V1（0.21 及以后）"),
        },
    )
}

pub fn pipeline_schedule(lang: Lang, p: PipelineSchedule) -> &'static str {
    lang.text(
        p.label(),
        match p {
            PipelineSchedule::OneFOneB => zh!("1F1B"),
            PipelineSchedule::GPipe => zh!("GPipe"),
            PipelineSchedule::Interleaved => zh!("交错式 1F1B"),
        },
    )
}

pub fn cuda_graphs(lang: Lang, g: CudaGraphs) -> &'static str {
    lang.text(
        g.label(),
        match g {
            CudaGraphs::Captured => zh!("捕获（默认）"),
            CudaGraphs::Eager => zh!("关闭（--enforce-eager）"),
        },
    )
}

pub fn spec_method(lang: Lang, m: SpecMethod) -> &'static str {
    lang.text(
        m.label(),
        match m {
            SpecMethod::Off => zh!("关闭"),
            SpecMethod::Ngram => zh!("n-gram（提示词查找）"),
            SpecMethod::Eagle => zh!("EAGLE 头"),
            SpecMethod::Mtp => zh!("MTP 层"),
            SpecMethod::Draft => zh!("草稿模型"),
        },
    )
}

pub fn split_mode(lang: Lang, m: SplitMode) -> &'static str {
    lang.text(
        m.label(),
        match m {
            SplitMode::Layer => zh!("按层（默认）"),
            SplitMode::Single => zh!("只用一块 GPU (-sm none)"),
        },
    )
}

/// The component's name.
pub fn component(lang: Lang, c: Component) -> &'static str {
    lang.pick(
        c.label(),
        match c {
            Component::Weights => "权重",
            Component::Adapter => "LoRA 适配器",
            Component::Master => "主权重",
            Component::Gradients => "梯度",
            Component::Optimizer => "优化器状态",
            Component::Activations => "激活值",
            Component::Logits => "Logits 与损失",
            Component::KvCache => "KV Cache",
            Component::Context => "CUDA 上下文与工作区",
            Component::Reserve => "分配器预留",
        },
    )
}

/// What the component is, one sentence (shown above its formula).
pub fn component_doc(lang: Lang, c: Component) -> &'static str {
    match c {
        Component::Weights => lang.text(
            "Every parameter in its stored format; quantized formats include their scales, embeddings and head often stay 16-bit.",
            zh!("全部参数按存储格式计算；量化格式包含缩放因子，嵌入层和输出头通常保持 16 位。"),
        ),
        Component::Adapter => lang.text(
            "The low-rank matrices LoRA trains: r × (d_in + d_out) per targeted matrix.",
            zh!("LoRA 训练的低秩矩阵：每个目标矩阵 r × (d_in + d_out)。"),
        ),
        Component::Master => lang.text(
            "Mixed precision keeps an fp32 copy the optimizer updates (or, for fp32 weights, 16-bit copies for compute).",
            zh!("混合精度会保留一份供优化器更新的 fp32 副本（fp32 权重时则是用于计算的 16 位副本）。"),
        ),
        Component::Gradients => lang.text(
            "One gradient per trainable parameter. Accumulation adds into the same buffer.",
            zh!("每个可训练参数一个梯度。梯度累积在同一缓冲区内相加。"),
        ),
        Component::Optimizer => lang.text(
            "AdamW keeps two moments per trainable parameter; a frozen (quantized) base has none.",
            zh!("AdamW 为每个可训练参数保存两个动量；冻结（量化）的基座模型没有。"),
        ),
        Component::Activations => lang.text(
            "What the forward pass keeps for backward, per layer and token; checkpointing keeps only layer inputs.",
            zh!("前向传播为反向传播保存的张量，按层、按 token 计算；梯度检查点只保存每层输入。"),
        ),
        Component::Logits => lang.text(
            "batch × seq × vocab, upcast to fp32 for the loss, plus its gradient: often the peak with 128k+ vocabularies.",
            zh!("batch × seq × 词表，计算损失时升为 fp32，外加其梯度：词表 128k 以上时常常是峰值。"),
        ),
        Component::KvCache => lang.text(
            "Keys and values of every past token: follows KV heads (GQA/MQA) or the MLA latent, capped by sliding windows.",
            zh!("所有历史 token 的 K 和 V：取决于 KV 头数（GQA/MQA）或 MLA 的潜向量，滑动窗口会封顶。"),
        ),
        Component::Context => lang.text(
            "CUDA context, kernels, cuBLAS/NCCL workspaces: outside PyTorch's allocator, visible in nvidia-smi.",
            zh!("CUDA 上下文、内核、cuBLAS/NCCL 工作区：不在 PyTorch 分配器内，nvidia-smi 可见。"),
        ),
        Component::Reserve => lang.text(
            "The caching allocator's reserved-but-unused blocks and fragmentation.",
            zh!("缓存分配器已预留但未使用的块与碎片。"),
        ),
    }
}

/// Every (English, Chinese) pair the functions above give, for the on-demand table.
pub(crate) fn enumerated_pairs() -> Vec<(&'static str, &'static str)> {
    fn all<T: Copy>(
        values: &[T],
        f: fn(Lang, T) -> &'static str,
    ) -> Vec<(&'static str, &'static str)> {
        values
            .iter()
            .map(|v| (f(Lang::En, *v), f(Lang::Zh, *v)))
            .collect()
    }
    [
        all(Component::ALL, component_doc),
        all(LocalMachine::ALL, machine),
        all(Job::ALL, job),
        all(Optimizer::ALL, optimizer),
        all(Checkpointing::ALL, ckpt),
        all(Attention::ALL, attention),
        all(Loss::ALL, loss),
        all(Framework::ALL, framework),
        all(Batching::ALL, batching),
        all(Remedy::ALL, remedy),
        all(Zero::ALL, zero),
        all(Offload::ALL, offload),
        all(DpFramework::ALL, dp_framework),
        all(WeightsLoad::ALL, weights_load),
        all(VllmVersion::ALL, vllm_version),
        all(PipelineSchedule::ALL, pipeline_schedule),
        all(CudaGraphs::ALL, cuda_graphs),
        all(SpecMethod::ALL, spec_method),
        all(SplitMode::ALL, split_mode),
    ]
    .concat()
}
