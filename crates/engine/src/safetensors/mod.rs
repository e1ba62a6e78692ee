//! safetensors checkpoints read from their headers alone: each shard's 8-byte length and JSON
//! header (fetched with two HTTP Range requests, never the weights), the index that names the
//! shards, and the exact bytes per tensor summed into what a budget needs.
//! Every count and length is bounded ([`SafetensorsLimit`]) and all size arithmetic is checked.

mod compare;
mod dtype;
mod error;
mod header;
mod index;
mod sizing;

pub(crate) use compare::compare_with_config;
pub use compare::FileDifference;
pub use dtype::SafeDtype;
pub use error::{EntryField, IndexError, SafetensorsError, SafetensorsLimit};
pub(crate) use header::header_length;
pub use header::{
    read_header_json, read_safetensors, SafeTensor, SafetensorsHeader, LENGTH_PREFIX,
};
#[cfg(test)]
pub(crate) use index::is_shard_name;
pub use index::{read_index, SafetensorsIndex, MAX_INDEX_BYTES};
pub(crate) use sizing::size_weights;
pub use sizing::{quant_scheme, tensor_role, FileWeights, QuantScheme, Tally, TensorRole};

#[cfg(test)]
mod format_tests;
