//! English and Chinese text. Every string the page shows goes through `t`.

use vram_engine::{
    Attention, Checkpointing, Component, Formula, Gpu, Job, KvDtype, LocalMachine, Loss, Moment,
    Offload, Optimizer, Remedy, SplitMode, Unit, WeightFormat, Zero, PART_FOLLOWS,
};

pub use vram_text::Lang;

use leptos::prelude::{expect_context, Get};

use crate::state::AppState;

/// The browser's language: Chinese for any zh-*, English otherwise.
pub fn browser_lang() -> Lang {
    let nav = web_sys::window()
        .map(|w| w.navigator().language().unwrap_or_default())
        .unwrap_or_default();
    if nav.to_ascii_lowercase().starts_with("zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// The text for `key`, following the language toggle. One closure type for every fixed text of
/// the page, so Leptos renders them all with the same code (a closure per call site would be
/// compiled once per site).
pub fn tr(key: &'static str) -> impl Fn() -> &'static str + Copy + Send + Sync + 'static {
    let lang = expect_context::<AppState>().lang;
    move || t(lang.get(), key)
}

/// The text for `key` in `lang` ("?" when it is missing: caught by a test in `vram_text`).
pub fn t(lang: Lang, key: &str) -> &'static str {
    vram_text::page_text(lang, key)
}

/// A moment of the peak as the engine describes it (`Phase::describe`), in `lang`.
pub fn phase(lang: Lang, moment: Moment) -> &'static str {
    vram_text::moment(lang, moment)
}

/// The component's name.
pub fn component(lang: Lang, c: Component) -> &'static str {
    match lang {
        Lang::En => c.label(),
        Lang::Zh => match c {
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
    }
}

/// What the component is, one sentence (shown above its formula).
pub fn component_doc(lang: Lang, c: Component) -> &'static str {
    match (lang, c) {
        (Lang::En, Component::Weights) => "Every parameter in its stored format; quantized formats include their scales, embeddings and head often stay 16-bit.",
        (Lang::En, Component::Adapter) => "The low-rank matrices LoRA trains: r × (d_in + d_out) per targeted matrix.",
        (Lang::En, Component::Master) => "Mixed precision keeps an fp32 copy the optimizer updates (or, for fp32 weights, 16-bit copies for compute).",
        (Lang::En, Component::Gradients) => "One gradient per trainable parameter. Accumulation adds into the same buffer.",
        (Lang::En, Component::Optimizer) => "AdamW keeps two moments per trainable parameter; a frozen (quantized) base has none.",
        (Lang::En, Component::Activations) => "What the forward pass keeps for backward, per layer and token; checkpointing keeps only layer inputs.",
        (Lang::En, Component::Logits) => "batch × seq × vocab, upcast to fp32 for the loss, plus its gradient: often the peak with 128k+ vocabularies.",
        (Lang::En, Component::KvCache) => "Keys and values of every past token: follows KV heads (GQA/MQA) or the MLA latent, capped by sliding windows.",
        (Lang::En, Component::Context) => "CUDA context, kernels, cuBLAS/NCCL workspaces: outside PyTorch's allocator, visible in nvidia-smi.",
        (Lang::En, Component::Reserve) => "The caching allocator's reserved-but-unused blocks and fragmentation.",
        (Lang::Zh, Component::Weights) => "全部参数按存储格式计算；量化格式包含缩放因子，嵌入层和输出头通常保持 16 位。",
        (Lang::Zh, Component::Adapter) => "LoRA 训练的低秩矩阵：每个目标矩阵 r × (d_in + d_out)。",
        (Lang::Zh, Component::Master) => "混合精度会保留一份供优化器更新的 fp32 副本（fp32 权重时则是用于计算的 16 位副本）。",
        (Lang::Zh, Component::Gradients) => "每个可训练参数一个梯度。梯度累积在同一缓冲区内相加。",
        (Lang::Zh, Component::Optimizer) => "AdamW 为每个可训练参数保存两个动量；冻结（量化）的基座模型没有。",
        (Lang::Zh, Component::Activations) => "前向传播为反向传播保存的张量，按层、按 token 计算；梯度检查点只保存每层输入。",
        (Lang::Zh, Component::Logits) => "batch × seq × 词表，计算损失时升为 fp32，外加其梯度：词表 128k 以上时常常是峰值。",
        (Lang::Zh, Component::KvCache) => "所有历史 token 的 K 和 V：取决于 KV 头数（GQA/MQA）或 MLA 的潜向量，滑动窗口会封顶。",
        (Lang::Zh, Component::Context) => "CUDA 上下文、内核、cuBLAS/NCCL 工作区：不在 PyTorch 分配器内，nvidia-smi 可见。",
        (Lang::Zh, Component::Reserve) => "缓存分配器已预留但未使用的块与碎片。",
    }
}

/// The label of choice `key` of the setting with link key `setting`, in `lang`.
pub fn choice(lang: Lang, setting: &str, key: &str) -> String {
    fn label<T: Copy>(from: Option<T>, f: impl Fn(T) -> String) -> Option<String> {
        from.map(f)
    }
    let text = match setting {
        "j" => label(Job::from_key(key), |j| job(lang, j).to_string()),
        "w" => label(WeightFormat::from_key(key), |f| {
            format!("{} · {:.2} bit", f.label(), f.bits().as_f64())
        }),
        "we" | "wa" | "wx" | "wh" if key == PART_FOLLOWS => Some(
            match lang {
                Lang::En => "auto (the weights' format)",
                Lang::Zh => "auto（与权重格式相同）",
            }
            .to_string(),
        ),
        "we" | "wa" | "wx" | "wh" => label(WeightFormat::from_key(key), |f| {
            format!("{} · {:.2} bit", f.label(), f.bits().as_f64())
        }),
        "kv" => label(KvDtype::from_key(key), |k| k.label().to_string()),
        "o" => label(Optimizer::from_key(key), |o| optimizer(lang, o).to_string()),
        "gc" => label(Checkpointing::from_key(key), |c| ckpt(lang, c).to_string()),
        "at" => label(Attention::from_key(key), |a| attention(lang, a).to_string()),
        "ls" => label(Loss::from_key(key), |l| loss(lang, l).to_string()),
        "z" => label(Zero::from_key(key), |z| zero(lang, z).to_string()),
        "off" => label(Offload::from_key(key), |o| offload(lang, o).to_string()),
        "gpu" => label(Gpu::from_key(key), |g| {
            format!("{} · {} MiB", g.label(), g.mib())
        }),
        "unit" => label(Unit::from_key(key), |u| u.label().to_string()),
        "mch" => label(LocalMachine::from_key(key), |m| {
            machine(lang, m).to_string()
        }),
        "sm" => label(SplitMode::from_key(key), |m| match (lang, m) {
            (Lang::En, m) => m.label().to_string(),
            (Lang::Zh, SplitMode::Layer) => "按层（默认）".into(),
            (Lang::Zh, SplitMode::Single) => "只用一块 GPU (-sm none)".into(),
        }),
        _ => None,
    };
    text.unwrap_or_else(|| key.to_string())
}

pub fn machine(lang: Lang, m: LocalMachine) -> &'static str {
    match (lang, m) {
        (Lang::En, _) => m.label(),
        (Lang::Zh, LocalMachine::Gpu) => "GPU + CPU 内存",
        (Lang::Zh, LocalMachine::Mac) => "Mac（统一内存）",
        (Lang::Zh, LocalMachine::Cpu) => "只用 CPU",
    }
}

pub fn job(lang: Lang, j: Job) -> &'static str {
    match lang {
        Lang::En => j.label(),
        Lang::Zh => match j {
            Job::Inference => "推理",
            Job::Serving => "服务 (vLLM / SGLang)",
            Job::Full => "全参数微调",
            Job::Lora => "LoRA",
            Job::Qlora => "QLoRA",
            Job::Local => "llama.cpp / Ollama",
        },
    }
}

pub fn optimizer(lang: Lang, o: Optimizer) -> &'static str {
    match (lang, o) {
        (Lang::En, o) => o.label(),
        (Lang::Zh, Optimizer::AdamW) => "AdamW",
        (Lang::Zh, Optimizer::AdamWBf16) => "AdamW（bf16 状态）",
        (Lang::Zh, Optimizer::AdamW8bit) => "AdamW 8-bit",
        (Lang::Zh, Optimizer::Adafactor) => "Adafactor",
        (Lang::Zh, Optimizer::Lion) => "Lion",
        (Lang::Zh, Optimizer::SgdMomentum) => "SGD + 动量",
        (Lang::Zh, Optimizer::Sgd) => "SGD",
    }
}

pub fn ckpt(lang: Lang, c: Checkpointing) -> &'static str {
    match (lang, c) {
        (Lang::En, c) => c.label(),
        (Lang::Zh, Checkpointing::None) => "关闭",
        (Lang::Zh, Checkpointing::Selective) => "选择性（注意力）",
        (Lang::Zh, Checkpointing::Op) => "选择性（算子级：保留每隔一个矩阵乘的输出）",
        (Lang::Zh, Checkpointing::Full) => "每一层",
    }
}

pub fn attention(lang: Lang, a: Attention) -> &'static str {
    match (lang, a) {
        (Lang::En, a) => a.label(),
        (Lang::Zh, Attention::Flash) => "SDPA / FlashAttention",
        (Lang::Zh, Attention::Eager) => "eager（显式注意力矩阵）",
    }
}

pub fn loss(lang: Lang, l: Loss) -> &'static str {
    match (lang, l) {
        (Lang::En, l) => l.label(),
        (Lang::Zh, Loss::Full) => "完整 logits，升为 fp32",
        (Lang::Zh, Loss::Full16) => "完整 logits，16 位损失（不升精度）",
        (Lang::Zh, Loss::Chunked) => "分块交叉熵",
        (Lang::Zh, Loss::ChunkedCompiled) => "分块交叉熵，编译（保留 16 位 logits）",
        (Lang::Zh, Loss::Fused) => "融合线性层 + 交叉熵（不生成 logits）",
        (Lang::Zh, Loss::NoLmHead) => "无语言模型头（分类器）",
    }
}

pub fn remedy(lang: Lang, r: Remedy) -> &'static str {
    match (lang, r) {
        (Lang::En, r) => r.label(),
        (Lang::Zh, Remedy::Checkpointing) => "每一层都做梯度检查点",
        (Lang::Zh, Remedy::FusedLoss) => "融合线性层 + 交叉熵（不生成完整 logits）",
        (Lang::Zh, Remedy::Adam8bit) => "8 位 AdamW",
        (Lang::Zh, Remedy::PureBf16) => "纯 bf16：不保留 fp32 主权重或 fp32 适配器",
        (Lang::Zh, Remedy::StepInBackward) => "在反向传播中执行优化器更新",
        (Lang::Zh, Remedy::OffloadActivations) => "激活值卸载到 CPU 内存",
        (Lang::Zh, Remedy::Zero3) => "在现有 GPU 上使用 ZeRO-3",
        (Lang::Zh, Remedy::OffloadOptimizer) => "优化器状态卸载到 CPU 内存",
        (Lang::Zh, Remedy::Qlora) => "QLoRA：基座模型用 NF4",
        (Lang::Zh, Remedy::KvFp8) => "fp8 KV Cache",
        (Lang::Zh, Remedy::Int4) => "4 位权重（AWQ）",
    }
}

pub fn zero(lang: Lang, z: Zero) -> &'static str {
    match (lang, z) {
        (Lang::En, z) => z.label(),
        (Lang::Zh, Zero::Z0) => "ZeRO 0 / DDP",
        (Lang::Zh, Zero::Z1) => "ZeRO 1：切分优化器状态",
        (Lang::Zh, Zero::Z2) => "ZeRO 2：+ 梯度",
        (Lang::Zh, Zero::Z3) => "ZeRO 3 / FSDP：+ 权重",
    }
}

pub fn offload(lang: Lang, o: Offload) -> &'static str {
    match (lang, o) {
        (Lang::En, o) => o.label(),
        (Lang::Zh, Offload::None) => "不卸载",
        (Lang::Zh, Offload::Optimizer) => "优化器状态",
        (Lang::Zh, Offload::All) => "优化器状态 + 权重",
    }
}

/// The engine's formula in `lang`, sizes in `unit`: sentences from `vram_text`, the numbers
/// this scenario's.
pub fn formula(lang: Lang, formula: &Formula, unit: Unit) -> String {
    vram_text::formula(lang, formula, unit)
}
