//! GGUF headers: what a llama.cpp / Ollama model file holds, read from its first bytes.
//!
//! The page reads a prefix of the file (File.slice), the CLI the start of it; when the prefix ends
//! inside the header, [`read_gguf`] answers [`GgufError::NeedMoreBytes`] with a length to read.
//! That length is a lower bound (the next value's end): grow the prefix geometrically, e.g. to
//! max(needed, 2 × bytes read), so a header with a 150,000-token vocabulary takes a few reads.
//! Counts and lengths are bounded ([`GgufLimit`]) and all size arithmetic is checked: no input panics.
//! Sums of tensor bytes cannot overflow: the reader checks that the padded sizes add up in u64.

mod coarse;
mod error;
mod ggml_type;
mod header;
mod model;
mod names;
mod summary;
mod value;
mod write;

pub use coarse::{Detail, PADDING_PER_TENSOR};
pub use error::{GgufError, GgufLimit};
pub use ggml_type::GgmlType;
pub use header::{read_gguf, GgufHeader, MetadataEntry, TensorInfo};
pub(crate) use model::LayerCounts;
pub use model::LayerTensors;
pub(crate) use names::is_expert;
pub use summary::{GgufSummary, SummaryError, TensorGroup};
pub use value::{MetaArray, MetaValue, ValueType, STORED_ARRAY_MAX};
pub use write::{DraftValue, GgufDraft};

#[cfg(test)]
mod llamacpp_tests;
#[cfg(test)]
mod summary_tests;
#[cfg(test)]
mod tests;
