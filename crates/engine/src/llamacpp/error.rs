use crate::gguf::GgmlType;

/// Which of the two caches a refusal is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KvPart {
    K,
    V,
}

/// A hyperparameter llama.cpp needs to size the run, missing from the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingKey {
    BlockCount,
    EmbeddingLength,
    HeadCount,
    VocabSize,
    Layers,
}

/// A setting llama.cpp's flags can take, named for errors about its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlamaFlag {
    GpuLayers,
    Context,
    Parallel,
    Batch,
    Ubatch,
    CacheTypeK,
    CacheTypeV,
    FlashAttn,
    CpuMoe,
    TensorSplit,
    Mac,
    GpuMemory,
}

/// Why llama.cpp would refuse these settings for this file, or why they cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlamaError {
    /// The header lacks a key llama.cpp reads to build the model.
    Missing(MissingKey),
    /// `llama_init_from_model`: "quantized V cache requires flash_attn to be enabled".
    QuantizedVNeedsFlashAttention { cache: GgmlType },
    /// With flash attention a quantized cache's blocks must divide each head.
    BlockDoesNotDivideHead {
        part: KvPart,
        cache: GgmlType,
        block: u64,
        head: u64,
    },
    /// A K or V row (KV heads × head size) is not a whole number of the cache type's blocks.
    RowNotWholeBlocks {
        part: KvPart,
        cache: GgmlType,
        width: u64,
    },
    /// A value outside the range the flag accepts.
    OutOfRange {
        flag: LlamaFlag,
        value: u64,
        min: u64,
        max: u64,
    },
    /// A value the flag does not know (a cache type, on/off, a Mac, a split).
    Unreadable { flag: LlamaFlag, text: String },
    /// Sizes past u64 (no real model comes near).
    Overflow,
    /// The model has no GGUF form here: a preset with attention llama.cpp names otherwise (MLA)
    /// or with recurrent layers, a weight format llama.cpp does not write, or a link's model that
    /// does not read back.
    NoGgufForm,
}
