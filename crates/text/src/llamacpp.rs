//! The words of the llama.cpp plan: its errors, devices, buffers and answers, in both languages.

use vram_engine::{
    llamacpp::KvPart, llamacpp::LlamaDevice, llamacpp::LlamaError, llamacpp::LlamaFlag,
    llamacpp::MissingKey,
};

use crate::Lang;

/// A label the llama.cpp report prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlamaWord {
    Model,
    KvCache,
    Compute,
    Output,
    Total,
    Limit,
    Fits,
    DoesNotFit,
    LargestNgl,
    LongestContext,
    BestQuant,
    NoAlternatives,
    NothingFits,
    Offloaded,
    Context,
    Mapped,
    SpeedBound,
    EmptyContext,
    FullContext,
    MixedCache,
    WorkingSet,
    WiredLimit,
    GpuMayAllocate,
    OsMemory,
    Commands,
    TokensPerSecond,
    NotGguf,
    HeaderTooLong,
    Layers,
    Device,
    Projector,
    NotAProjector,
    SpeedChart,
    ModelFile,
    PickFile,
    UsePreset,
    FromPreset,
    NoProjector,
    RemoveProjector,
    ProjectorFile,
    SplitCount,
    SplitInvalid,
    OllamaDefaults,
    AreOllamaDefaults,
}

pub fn llama_word(lang: Lang, w: LlamaWord) -> &'static str {
    use LlamaWord::*;
    let (en, zh) = match w {
        Model => ("model", "模型"),
        KvCache => ("KV cache", "KV 缓存"),
        Compute => ("compute", "计算缓冲"),
        Output => ("output", "输出缓冲"),
        Total => ("total", "合计"),
        Limit => ("limit", "上限"),
        Fits => ("fits", "放得下"),
        DoesNotFit => ("does not fit", "放不下"),
        LargestNgl => ("Largest -ngl that fits", "放得下的最大 -ngl"),
        LongestContext => (
            "Longest -c that fits, up to the context the model was trained for",
            "放得下的最长 -c（不超过模型训练时的上下文长度）",
        ),
        BestQuant => (
            "Best quantization that fits on the GPU",
            "整个放进 GPU 的最佳量化",
        ),
        NoAlternatives => (
            "no alternatives given (--gguf-alt FILE, once per file)",
            "未提供其他量化文件（每个文件一次 --gguf-alt FILE）",
        ),
        NothingFits => ("nothing fits", "都放不下"),
        Offloaded => (
            "layers on GPUs (output counted)",
            "放在 GPU 上的层（含输出层）",
        ),
        Context => ("context", "上下文"),
        Mapped => ("weights memory-mapped from the file", "权重由文件内存映射"),
        SpeedBound => ("Decode speed at most", "解码速度上限"),
        EmptyContext => ("empty context", "空上下文"),
        FullContext => ("full context", "满上下文"),
        MixedCache => (
            "Ollama has one cache type for K and V; it uses the V type here",
            "Ollama 的 K、V 只能用同一种缓存类型；此处取 V 的类型",
        ),
        WorkingSet => ("GPU working set", "GPU 工作集"),
        WiredLimit => ("raise it with", "可用以下命令调高"),
        GpuMayAllocate => ("the GPU may allocate", "GPU 可分配"),
        OsMemory => ("memory the OS sees", "操作系统可见内存"),
        Commands => ("Commands", "启动命令"),
        TokensPerSecond => ("tokens/s at most", "tokens/s 上限"),
        NotGguf => ("not a readable GGUF header", "不是可读的 GGUF 文件头"),
        HeaderTooLong => (
            "the GGUF header is longer than 256 MiB",
            "GGUF 文件头超过 256 MiB",
        ),
        Layers => ("layers", "层"),
        Device => ("device", "设备"),
        Projector => ("projector (mmproj)", "视觉投影器 (mmproj)"),
        NotAProjector => (
            "not a vision projector (a clip GGUF with a vision encoder)",
            "不是视觉投影器（带视觉编码器的 clip GGUF）",
        ),
        SpeedChart => (
            "Decode tokens/s by -ngl: an upper bound from memory bandwidth",
            "按 -ngl 的解码 tokens/s：由内存带宽得出的上限",
        ),
        ModelFile => ("GGUF file", "GGUF 文件"),
        PickFile => (
            "Pick or drop a .gguf file, and its mmproj projector for images: only their headers are read, and the link keeps a summary",
            "选择或拖入 .gguf 文件（看图可再加 mmproj 投影器）：只读取文件头，链接保存其摘要",
        ),
        UsePreset => ("use the preset instead", "改用预设模型"),
        FromPreset => (
            "the preset, quantized as llama-quantize would",
            "预设模型，按 llama-quantize 的规则量化",
        ),
        NoProjector => ("none (text only)", "无（仅文本）"),
        RemoveProjector => ("remove the projector", "移除投影器"),
        ProjectorFile => (
            "Vision projector (--mmproj)",
            "视觉投影器 (--mmproj)",
        ),
        OllamaDefaults => (
            "Open with Ollama's defaults (v0.30+: the context its GPU memory picks, one request, flash attention auto, as many layers as fit):",
            "按 Ollama 默认设置打开（v0.30 起：按 GPU 内存取上下文、一个请求、自动 flash attention、尽量多的层）：",
        ),
        AreOllamaDefaults => (
            "These are Ollama's defaults (v0.30 and later) for this model on this machine.",
            "这就是 Ollama（v0.30 起）对此模型和机器的默认设置。",
        ),
        SplitCount => (
            "names another number of GPUs than the machine has: the layers are split evenly",
            "与机器的 GPU 数不同：各层平均分配",
        ),
        SplitInvalid => (
            "not a share per GPU: 3,1 or 0.75,0.25 (each at most 1000), or even",
            "不是每块 GPU 一个的比例：3,1 或 0.75,0.25（每个不超过 1000），或 even",
        ),
    };
    lang.pick(en, zh)
}

/// "GPU 0", "CPU RAM" (or the Mac's unified memory outside the GPU's working set).
pub fn llama_device(lang: Lang, d: LlamaDevice) -> String {
    match d {
        LlamaDevice::Host => lang.pick("CPU RAM", "CPU 内存").into(),
        LlamaDevice::Gpu(i) => format!("GPU {i}"),
    }
}

fn flag(f: LlamaFlag) -> &'static str {
    use LlamaFlag::*;
    match f {
        GpuLayers => "--ngl",
        Context => "--ctx",
        Parallel => "--parallel",
        Batch => "--batch-size",
        Ubatch => "--ubatch-size",
        CacheTypeK => "--cache-type-k",
        CacheTypeV => "--cache-type-v",
        FlashAttn => "--flash-attn",
        CpuMoe => "--n-cpu-moe",
        TensorSplit => "--tensor-split",
        Mac => "--mac",
        GpuMemory => "--gpu",
    }
}

fn key(k: MissingKey) -> &'static str {
    match k {
        MissingKey::BlockCount => "{arch}.block_count",
        MissingKey::EmbeddingLength => "{arch}.embedding_length",
        MissingKey::HeadCount => "{arch}.attention.head_count",
        MissingKey::VocabSize => "tokenizer.ggml.tokens",
        MissingKey::Layers => "blk.N.* tensors",
    }
}

fn part(p: KvPart) -> &'static str {
    match p {
        KvPart::K => "K",
        KvPart::V => "V",
    }
}

pub fn llama_error(lang: Lang, e: &LlamaError) -> String {
    let zh = lang == Lang::Zh;
    match e {
        LlamaError::Missing(k) => match zh {
            false => format!("the GGUF header has no {}, which llama.cpp needs", key(*k)),
            true => format!("GGUF 头缺少 llama.cpp 需要的 {}", key(*k)),
        },
        LlamaError::QuantizedVNeedsFlashAttention { cache } => match zh {
            false => format!("a quantized V cache ({}) needs flash attention: turn it on (llama.cpp -fa on)", cache.name()),
            true => format!("量化的 V 缓存（{}）需要 flash attention：请打开它（llama.cpp 的 -fa on）", cache.name()),
        },
        LlamaError::BlockDoesNotDivideHead { part: p, cache, block, head } => match zh {
            false => format!("llama.cpp refuses a {} cache of {}: its blocks of {block} values do not divide a head of {head}", part(*p), cache.name()),
            true => format!("llama.cpp 拒绝 {} 缓存使用 {}：{block} 个值的块不能整除 {head} 维的注意力头", part(*p), cache.name()),
        },
        LlamaError::RowNotWholeBlocks { part: p, cache, width } => match zh {
            false => format!("a {} row of {width} values is not whole {} blocks", part(*p), cache.name()),
            true => format!("{} 的一行 {width} 个值不是整数个 {} 块", part(*p), cache.name()),
        },
        LlamaError::OutOfRange { flag: f, value, min, max } => match zh {
            false => format!("{} {value} is out of range: {min} to {max}", flag(*f)),
            true => format!("{} {value} 超出范围：{min} 到 {max}", flag(*f)),
        },
        LlamaError::Unreadable { flag: f, text } => match zh {
            false => format!("{} cannot read \"{}\"", flag(*f), crate::shown(text)),
            true => format!("{} 无法读取“{}”", flag(*f), crate::shown(text)),
        },
        LlamaError::Overflow => lang.pick("the sizes are too large to count", "尺寸大到无法计算").into(),
        LlamaError::NoGgufForm => lang
            .pick(
                "this model has no GGUF form here (MLA attention, recurrent layers, a format llama.cpp does not write, or a model that did not read back): pick its .gguf file",
                "这个模型在这里没有 GGUF 形式（MLA 注意力、循环层、llama.cpp 不写的格式，或读不回来的模型）：请选择它的 .gguf 文件",
            )
            .into(),
    }
}
