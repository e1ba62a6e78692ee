//! The Hugging Face Hub, without I/O: model ids and URLs in, the Hub's URLs out, its file
//! listing read, and where a model came from as it travels in a link. The shells fetch; the
//! engine says what to fetch and reads what came back.

pub use crate::config::{parse_config, parse_quantization, Quantization, MAX_CONFIG_BYTES};
pub use crate::safetensors::{
    quant_scheme, read_header_json, read_index, read_safetensors, tensor_role, EntryField,
    FileDifference, FileWeights, IndexError, QuantScheme, SafeDtype, SafeTensor, SafetensorsError,
    SafetensorsHeader, SafetensorsIndex, SafetensorsLimit, Tally, TensorRole, LENGTH_PREFIX,
    MAX_INDEX_BYTES,
};

mod endpoint;
mod error;
mod fetch;
mod gguf_files;
mod id;
mod listing;
mod read;
mod source;

pub use endpoint::{HubEndpoint, DEFAULT_ENDPOINT};
pub use error::HubError;
pub use fetch::{
    content_range_total, range_header, redirect_target, status_failure, FetchFailure, MAX_REDIRECTS,
};
pub use gguf_files::{
    choose_gguf_entry, gguf_entries, missing_split_parts, quant_of, GgufChoice, GgufEntry,
};
pub(crate) use id::parse_model_id;
pub use id::HubRef;
pub(crate) use listing::read_listing;
pub use listing::{RepoListing, WeightFiles, CONFIG_FILE, INDEX_FILE, MAX_LISTING_BYTES};
pub use read::{
    read_gguf_parts, CheckpointRead, Get, GgufListing, GgufPartsError, GgufPartsRead,
    GgufReadError, Got, HubRead, HubReadError, ModelRead, PartsNext, PartsRead, RepoRead, Step,
    FIRST_READ, MAX_PART_BYTES,
};
pub use source::{check_date, iso_date, HubSource};

#[cfg(test)]
mod checkpoint_tests;
#[cfg(test)]
mod fuzz_tests;
