//! llama.cpp (and Ollama, which runs it) as engine physics: where a GGUF model's layers go for
//! given flags, and the model, KV, compute and output buffers on each device, checked against
//! llama.cpp's own printed sizes (tools/llamacpp/results.json; `results_tests.rs`).

pub use crate::gguf::{
    read_gguf, Detail, DraftValue, GgmlType, GgufDraft, GgufError, GgufHeader, GgufLimit,
    GgufSummary, LayerTensors, MetaArray, MetaValue, MetadataEntry, SummaryError, TensorGroup,
    TensorInfo, ValueType, PADDING_PER_TENSOR, STORED_ARRAY_MAX,
};

mod bandwidth;
mod compute;
mod draft;
mod error;
mod kv;
mod mac;
mod machine;
mod mapping;
mod offload;
mod placement;
mod plan;
mod projector;
mod quantize;
mod recurrent;
mod settings;
mod shape;
mod shares;
mod solve;
mod speed;
mod uma;

pub use bandwidth::gpu_bandwidth;
pub use compute::ComputeBuffer;
pub use draft::LlamaDraft;
pub use error::{KvPart, LlamaError, LlamaFlag, MissingKey};
pub use kv::{ContextSizes, KvCache};
pub use mac::{Mac, MacChip, MAC_CHIPS};
pub use machine::{DeviceFit, Machine, DEFAULT_HOST_BANDWIDTH};
pub use placement::{Backend, LlamaDevice, Placement};
pub use plan::{plan_llama, plan_placed, DeviceBuffers, LlamaPlan};
pub use projector::{Projector, ProjectorError, ProjectorFile};
pub use quantize::synthesize_gguf;
pub use recurrent::RecurrentState;
pub(crate) use settings::MAX_GPUS;
pub use settings::{LlamaSettings, CACHE_TYPES, MAX_LAYERS_FLAG, MAX_PARALLEL};
pub use shape::{AttentionLayer, LlamaShape};
pub use shares::{TensorShares, EVEN_SPLIT};
pub use solve::{best_quant, launch_commands, max_context, max_gpu_layers, LaunchCommands};
pub use speed::{decode_bound, DeviceReads, SpeedBound};
pub use uma::{UmaBox, UmaKind};

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod machine_tests;
#[cfg(test)]
mod offload_tests;
#[cfg(test)]
mod placement_tests;
#[cfg(test)]
mod real_boxes_tests;
#[cfg(test)]
mod results_tests;
#[cfg(test)]
mod uma_tests;
