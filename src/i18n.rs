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

/// The text for `key` in `lang`; the key itself when it is missing (caught by a test).
pub fn t(lang: Lang, key: &str) -> &'static str {
    match TEXT.iter().find(|(k, _, _)| *k == key) {
        Some((_, en, zh)) => match lang {
            Lang::En => en,
            Lang::Zh => zh,
        },
        None => "?",
    }
}

const TEXT: &[(&str, &str, &str)] = &[
    ("title", "vram-budget", "vram-budget 显存预算"),
    ("tagline", "How much GPU memory an LLM job needs, and whether it fits.", "大模型任务需要多少显存，放得下吗？"),
    ("model", "Model", "模型"),
    ("preset", "Preset", "预设模型"),
    ("search", "Search models", "搜索模型"),
    ("source_preset", "Preset", "预设"),
    ("source_params", "Parameter count", "参数量"),
    ("source_config", "config.json", "config.json"),
    ("params_slider", "Parameters", "参数量"),
    ("approx_note", "Approximate dense shape from the count alone (params ≈ 12·h²·L); paste a config.json for the exact model.", "仅凭参数量推出的近似稠密结构（参数量 ≈ 12·h²·L）；粘贴 config.json 可得到精确结构。"),
    ("paste_config", "Paste a config.json", "粘贴 config.json"),
    ("use_config", "Use this config", "使用此配置"),
    ("upload_config", "or upload a file", "或上传文件"),
    ("config_name", "Name", "名称"),
    ("job", "Job", "任务"),
    ("weights", "Weights", "权重格式"),
    ("kv_dtype", "KV cache dtype", "KV Cache 精度"),
    ("batch", "Batch (per GPU)", "批大小（每卡）"),
    ("seq", "Sequence length", "序列长度"),
    ("prompt", "Prompt tokens", "提示词 token 数"),
    ("source", "Source tokens (encoder)", "源 token 数（编码器）"),
    ("gen", "Generated tokens", "生成 token 数"),
    ("grad_accum", "Gradient accumulation", "梯度累积步数"),
    ("lora_rank", "LoRA rank", "LoRA 秩"),
    ("lora_targets", "LoRA target modules", "LoRA 目标模块"),
    ("optimizer", "Optimizer", "优化器"),
    ("ckpt", "Gradient checkpointing", "梯度检查点"),
    ("attention", "Attention kernel", "注意力实现"),
    ("loss", "Loss", "损失计算"),
    ("gpus", "GPUs", "GPU 数量"),
    ("zero", "ZeRO stage", "ZeRO 阶段"),
    ("offload", "CPU offload", "CPU 卸载"),
    ("tp", "Tensor parallel", "张量并行"),
    ("gpu", "GPU", "GPU 型号"),
    ("concurrency", "Concurrent requests", "并发请求数"),
    ("avg_tokens", "Average request tokens", "平均请求长度（token）"),
    ("gpu_util", "gpu_memory_utilization (%)", "gpu_memory_utilization (%)"),
    ("block_size", "KV block size", "KV 块大小"),
    ("max_model_len", "max_model_len", "max_model_len"),
    ("batched_tokens", "max_num_batched_tokens", "max_num_batched_tokens"),
    ("advanced", "Advanced: overheads and serving details", "高级：固定开销与服务参数"),
    ("context_mib", "CUDA context & workspaces (MiB)", "CUDA 上下文与工作区 (MiB)"),
    ("reserve_pct", "Allocator reserve (%)", "分配器预留 (%)"),
    ("units", "Units", "单位"),
    ("copy_link", "Copy link", "复制链接"),
    ("copied", "Link copied", "链接已复制"),
    ("copy_failed", "Copy the link from the box", "请从输入框手动复制链接"),
    ("per_gpu", "per GPU", "每卡"),
    ("needs", "Needs", "需要"),
    ("fits", "fits", "放得下"),
    ("does_not_fit", "does not fit", "放不下"),
    ("headroom", "Headroom", "余量"),
    ("short_by", "short by", "还差"),
    ("chart_title", "Memory per GPU by component", "每卡显存构成"),
    ("chart_note", "Bars: the same job spread over more GPUs (ZeRO-3 for training, tensor parallel for inference). Lines: GPU capacities; the selected GPU is highlighted.", "柱：同一任务分摊到更多 GPU（训练用 ZeRO-3，推理用张量并行）。横线：常见显卡容量，所选 GPU 高亮。"),
    ("seq_view", "Total memory as sequence length grows", "总显存随序列长度的变化"),
    ("request_view", "Total memory as the average request grows (at this concurrency)", "总显存随平均请求长度的变化（按当前并发数）"),
    ("fit_table", "Every GPU", "所有 GPU"),
    ("verdict", "Fits?", "放得下？"),
    ("gpus_needed", "GPUs needed", "所需 GPU 数"),
    ("yes", "yes", "是"),
    ("no", "no", "否"),
    ("solver", "On the selected GPU", "在所选 GPU 上"),
    ("budget_capacity", "Budget / capacity", "预算 / 容量"),
    ("serve_command", "Start the server", "启动服务"),
    ("copy_command", "Copy the commands", "复制命令"),
    ("remedies", "It fits with any one of these changes:", "任选以下一项改动即可放下："),
    ("no_remedy", "No single change makes it fit on this GPU: see how many GPUs it needs below, or combine changes.", "单独任何一项改动都放不下：请看下方所需 GPU 数，或组合多项改动。"),
    ("explain", "How each number is computed", "每一项是怎么算出来的"),
    ("total", "Total", "合计"),
    ("tensors", "live tensors", "张量"),
    ("peak_at", "peak at", "峰值出现在"),
    ("not_at_peak", "not alive at the peak", "峰值时刻不占用"),
    ("cpu_ram", "CPU memory for offload", "CPU 卸载内存"),
    ("serving_fill", "vLLM reserves", "vLLM 预留"),
    ("serving_fill_sglang", "SGLang's static share", "SGLang 静态显存"),
    ("kv_pool", "KV pool", "KV 缓存池"),
    ("blocks", "blocks", "块"),
    ("requests_at_once", "requests at once", "个请求同时运行"),
    ("too_small_for_max_len", "too small for one max_model_len request: vLLM would refuse to start", "容纳不下一个 max_model_len 的请求：vLLM 将无法启动"),
    ("notice", "Some settings in the link were ignored:", "链接中有设置被忽略："),
    ("error", "Cannot estimate:", "无法估算："),
    ("architecture", "Shape", "结构"),
    ("params", "params", "参数"),
    ("active", "active", "激活"),
    ("trainable", "trainable", "可训练"),
    ("layers", "layers", "层"),
    ("hidden", "hidden", "隐藏维度"),
    ("heads", "heads", "注意力头"),
    ("kv_heads", "KV heads", "KV 头"),
    ("vocab", "vocab", "词表"),
    ("experts", "experts", "专家"),
    ("window", "sliding window", "滑动窗口"),
    ("language", "中文", "English"),
    ("panic", "Something went wrong inside the page. Reload it; if it happens again, the link in the address bar reproduces it.", "页面内部出错。请刷新；如果再次出现，地址栏中的链接可以复现该问题。"),
    ("accum_note", "Gradient accumulation reuses one gradient buffer: it adds to memory nothing beyond one micro-batch.", "梯度累积复用同一个梯度缓冲区：显存只按一个 micro-batch 计算，不会乘以累积步数。"),
    ("file_unreadable", "The file could not be read.", "无法读取该文件。"),
    ("config_too_big", "This file is larger than 1 MiB; a config.json is a few KiB. It was not read.", "文件超过 1 MiB；config.json 通常只有几 KiB。未读取。"),
    ("measured_h", "Your measurement", "你的实测"),
    ("measured_help", "Paste what the job really used: a vLLM or llama.cpp log, torch.cuda.memory_stats() or memory_summary(), nvidia-smi, the measuring tool's JSON, or a size such as \"21.3 GiB allocated\". It is read here and never sent anywhere.", "粘贴任务实际占用的显存：vLLM 或 llama.cpp 日志、torch.cuda.memory_stats() 或 memory_summary()、nvidia-smi、测量工具的 JSON，或 \"21.3 GiB allocated\" 这样的大小。内容只在本页读取，不会发送到任何地方。"),
    ("measured_apply", "Compare", "比较"),
    ("reading", "Reading …", "正在读取……"),
    ("source_hub", "Hugging Face id", "Hugging Face ID"),
    ("hub_id", "Model id or Hub URL (owner/name, owner/name@revision)", "模型 ID 或 Hub 网址（owner/name、owner/name@revision）"),
    ("hub_read", "Read", "读取"),
    ("hub_read_on", "read on", "读取于"),
    ("hub_access", "Endpoint and token", "端点与令牌"),
    ("hub_endpoint", "Endpoint: the Hub or a mirror", "端点：Hub 或镜像"),
    ("hub_bad_endpoint", "Not an endpoint: http(s)://host[:port][/path], such as https://hf-mirror.com.", "不是有效端点：应为 http(s)://host[:port][/path]，例如 https://hf-mirror.com。"),
    ("hub_token", "Token (gated or private models)", "令牌（受限或私有模型）"),
    ("hub_token_note", "Kept in this tab's memory only: never in the link, never stored, sent only to the endpoint's host. Only config.json, the index and the file headers are read, never the weights.", "只保存在本标签页的内存中：不进链接、不存储，只发送给端点所在主机。只读取 config.json、索引和文件头，不下载权重。"),
    ("local_loading", "Working out the llama.cpp run…", "正在计算 llama.cpp 运行…"),
    ("local_failed", "the llama.cpp module could not be loaded; check the connection and reload", "llama.cpp 模块未能加载；请检查网络后刷新"),
    ("readers_failed", "the reader could not be loaded; check the connection and try again", "读取模块未能加载；请检查网络后重试"),
    ("measured", "Measured", "实测"),
    ("estimate", "Estimate", "估算"),
    ("difference", "Estimate − measured", "估算 − 实测"),
    ("not_compared", "no estimate at this level", "估算中没有对应口径"),
    ("mismatch_h", "The estimate is more than 10 % off. Help fix it: copy this report into an issue and fill in the versions.", "估算与实测相差超过 10%。欢迎帮助改进：复制这份报告提交 issue，并填写版本信息。"),
    ("copy_report", "Copy report", "复制报告"),
    ("report_copied", "Report copied", "报告已复制"),
    ("report_title", "vram-budget: estimate vs measurement", "vram-budget：估算与实测对比"),
    ("report_scenario", "Scenario", "场景"),
    ("report_source", "Measured with", "实测来源"),
    ("report_level", "Level", "口径"),
    ("report_components", "Estimate per component (per GPU, at the peak):", "各部分估算（每卡，峰值时刻）："),
    ("report_versions", "Versions (please fill in):", "版本（请填写）："),
    ("report_driver", "driver / CUDA", "驱动 / CUDA"),
];

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

#[cfg(test)]
mod tests {
    use super::*;

    // the formulas' and moments' sentences, and the test that the Chinese ones leave no English
    // words for any job or switch, live in crates/text with the renderer

    #[test]
    fn every_key_has_text_in_both_languages() {
        for (k, en, zh) in TEXT {
            assert!(!en.is_empty() && !zh.is_empty(), "{k}");
        }
        let keys: Vec<&str> = TEXT.iter().map(|(k, _, _)| *k).collect();
        let mut dedup = keys.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(keys.len(), dedup.len(), "duplicate keys");
    }
}
