//! Why a safetensors header or index could not be read, as data (the shells put it into words).

use crate::json::JsonError;

/// A count or length the reader refuses past a fixed maximum (see [`SafetensorsLimit::max`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SafetensorsLimit {
    /// Bytes of the JSON header.
    HeaderBytes,
    /// Tensors in one header, or names in one index.
    Tensors,
    /// Bytes of a tensor name.
    NameLength,
    /// Dimensions of one tensor.
    Dimensions,
    /// Entries of `__metadata__`.
    MetadataEntries,
    /// Shard files one index names.
    Shards,
}

impl SafetensorsLimit {
    /// The largest value the reader accepts.
    pub const fn max(self) -> u64 {
        match self {
            // the safetensors crate's own MAX_HEADER_SIZE (100,000,000 bytes)
            SafetensorsLimit::HeaderBytes => 100_000_000,
            // DeepSeek-V3's 163 shards hold about 91,000 tensors in all
            SafetensorsLimit::Tensors => 1 << 18,
            SafetensorsLimit::NameLength => 1_024,
            SafetensorsLimit::Dimensions => 16,
            SafetensorsLimit::MetadataEntries => 1_024,
            SafetensorsLimit::Shards => 4_096,
        }
    }
}

/// A field of a tensor's entry in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryField {
    /// The entry is not an object.
    Entry,
    Dtype,
    Shape,
    DataOffsets,
}

/// What is wrong with a safetensors header (`NeedMoreBytes` is not a defect: read more).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SafetensorsError {
    /// The bytes end before the 8-byte length or inside the header: read at least `needed`.
    NeedMoreBytes {
        needed: u64,
    },
    OverLimit {
        limit: SafetensorsLimit,
        value: u64,
    },
    /// The header does not start with '{' (the spec requires a JSON object).
    NotAHeader,
    NotUtf8,
    NotJson(JsonError),
    /// An entry lacks a field or holds the wrong kind of value (`tensor`: its first characters).
    BadEntry {
        tensor: String,
        field: EntryField,
    },
    UnknownDtype {
        tensor: String,
        dtype: String,
    },
    /// `__metadata__` is not an object of strings.
    BadMetadata,
    /// A shape whose elements or bytes overflow 64 bits.
    TensorTooLarge {
        tensor: String,
    },
    /// The data offsets span other than the shape's bytes.
    WrongSize {
        tensor: String,
        offsets: u64,
        shape: u64,
    },
    /// Tensors must tile the data section from byte 0 without gaps or overlaps.
    NotContiguous {
        tensor: String,
        begin: u64,
        expected: u64,
    },
    /// The file is not 8 + header + data bytes long.
    FileLength {
        expected: u64,
        actual: u64,
    },
}

/// What is wrong with a `model.safetensors.index.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexError {
    TooLarge {
        bytes: u64,
        limit: u64,
    },
    NotJson(JsonError),
    /// No `weight_map` object.
    NoWeightMap,
    /// A `weight_map` value that is not a file name ending in `.safetensors` (its first characters).
    BadShard(String),
    OverLimit {
        limit: SafetensorsLimit,
        value: u64,
    },
}

impl std::fmt::Display for SafetensorsError {
    /// The error's kind and numbers, for logs and tests; users see the shells' sentences.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for SafetensorsError {}

impl std::fmt::Display for IndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for IndexError {}
