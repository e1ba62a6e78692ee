//! llama.cpp (and Ollama, which runs it) as engine physics: where a GGUF model's layers go for
//! given flags, and the model, KV, compute and output buffers on each device, checked against
//! llama.cpp's own printed sizes (tools/llamacpp/results.json; crates/engine/tests/llamacpp.rs).

mod compute;
mod error;
mod kv;
mod placement;
mod plan;
mod settings;
mod shape;

pub use compute::ComputeBuffer;
pub use error::{KvPart, LlamaError, LlamaFlag, MissingKey};
pub use kv::{ContextSizes, KvCache, CELL_PAD};
pub use placement::{is_expert, Backend, LlamaDevice, Placement};
pub use plan::{plan_llama, DeviceBuffers, LlamaPlan};
pub use settings::{
    parse_cache_type, parse_count, parse_on_off, parse_tensor_split, LlamaSettings, CACHE_TYPES,
    MAX_CONTEXT, MAX_GPUS, MAX_LAYERS_FLAG, MAX_PARALLEL,
};
pub use shape::{AttentionLayer, LlamaShape};
