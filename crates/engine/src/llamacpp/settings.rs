//! llama.cpp's settings that change memory, with its defaults (common/common.h, llama-server):
//! -ngl all layers, -c from the file (here 4096 when unread), -np 1, -b 2048, -ub 512, f16 caches,
//! flash attention on, mmap on, op offload on.

use super::projector::Projector;
use crate::gguf::GgmlType;

/// The cache types llama.cpp's `--cache-type-k/-v` accept (common/arg.cpp `kv_cache_types`).
pub const CACHE_TYPES: [GgmlType; 9] = [
    GgmlType::F32,
    GgmlType::F16,
    GgmlType::Bf16,
    GgmlType::Q8_0,
    GgmlType::Q4_0,
    GgmlType::Q4_1,
    GgmlType::Iq4Nl,
    GgmlType::Q5_0,
    GgmlType::Q5_1,
];

/// Largest values the engine accepts (llama.cpp's own limits are int32).
pub(crate) const MAX_CONTEXT: u64 = 1 << 24;
pub const MAX_PARALLEL: u64 = 1024;
pub const MAX_LAYERS_FLAG: u64 = 1 << 16;
pub(crate) const MAX_GPUS: usize = 16;

/// One run of llama-server / llama-cli as far as memory goes.
#[derive(Clone, Debug, PartialEq)]
pub struct LlamaSettings {
    /// `-ngl`: how many layers (the output counts as one) go to the GPUs; None = all.
    pub gpu_layers: Option<u64>,
    /// `-c`: total context over all sequences; None = the model's training context.
    pub context: Option<u64>,
    /// `-np`: parallel sequences (slots).
    pub parallel: u64,
    /// `--kv-unified`: one cache stream shared by all sequences (llama-server turns it on when
    /// -np is auto); off gives each sequence its own n_ctx / np cells.
    pub kv_unified: bool,
    pub batch: u64,
    pub ubatch: u64,
    pub cache_k: GgmlType,
    pub cache_v: GgmlType,
    pub flash_attn: bool,
    pub mmap: bool,
    /// `--swa-full`: sliding-window layers keep the whole context.
    pub swa_full: bool,
    /// `--n-cpu-moe N`: expert weights of layers 0..N stay in host memory.
    pub cpu_moe_layers: u64,
    /// Op offload (`--no-op-offload` turns it off): a CUDA GPU runs a micro-batch's ops on host
    /// weights, copying each weight into its compute buffer (see `offload`).
    pub op_offload: bool,
    /// `--tensor-split`: share of the layers per GPU; its length is the number of GPUs.
    pub tensor_split: Vec<f32>,
    /// `-sm none`: every offloaded layer on the main GPU, whatever the machine's other GPUs (the
    /// split then names one GPU).
    pub single_gpu: bool,
    /// `--mmproj FILE`: a multimodal projector loaded beside the model.
    pub projector: Option<Projector>,
    /// The projector on the first GPU (llama.cpp's default), or in host memory
    /// (`--no-mmproj-offload`).
    pub projector_offload: bool,
    /// `-md FILE`: a draft model for speculative decoding, with its own `-ngld` and `-cd`.
    pub draft: Option<super::draft::LlamaDraft>,
}

impl Default for LlamaSettings {
    fn default() -> Self {
        LlamaSettings {
            gpu_layers: None,
            context: None,
            parallel: 1,
            kv_unified: false,
            batch: 2048,
            ubatch: 512,
            cache_k: GgmlType::F16,
            cache_v: GgmlType::F16,
            flash_attn: true,
            mmap: true,
            swa_full: false,
            cpu_moe_layers: 0,
            op_offload: true,
            tensor_split: vec![1.0],
            single_gpu: false,
            projector: None,
            projector_offload: true,
            draft: None,
        }
    }
}

impl LlamaSettings {
    /// The number of GPUs the split names (0 when -ngl 0 leaves them unused is still this).
    pub fn gpus(&self) -> usize {
        self.tensor_split.len()
    }
}
