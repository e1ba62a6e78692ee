use std::fmt;

/// A count or length the reader refuses past a fixed maximum (see [`GgufLimit::max`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GgufLimit {
    Tensors,
    MetadataEntries,
    ArrayLength,
    StringLength,
    TensorNameLength,
    Dimensions,
}

impl GgufLimit {
    /// The largest value the reader accepts.
    pub const fn max(self) -> u64 {
        match self {
            // ggml allows more; no published model comes near (the largest have a few thousand)
            GgufLimit::Tensors => 1 << 20,
            GgufLimit::MetadataEntries => 1 << 16,
            // vocabularies and merges reach a few hundred thousand entries
            GgufLimit::ArrayLength => 1 << 24,
            // tokenizer.huggingface.json can be several MiB
            GgufLimit::StringLength => 1 << 26,
            // GGML_MAX_NAME is 64 bytes with the terminating zero
            GgufLimit::TensorNameLength => 63,
            // GGML_MAX_DIMS
            GgufLimit::Dimensions => 4,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            GgufLimit::Tensors => "tensor count",
            GgufLimit::MetadataEntries => "metadata entry count",
            GgufLimit::ArrayLength => "array length",
            GgufLimit::StringLength => "string length",
            GgufLimit::TensorNameLength => "tensor name length",
            GgufLimit::Dimensions => "tensor dimension count",
        }
    }
}

/// Why a GGUF header could not be read. `NeedMoreBytes` is not a defect of the file: read a
/// longer prefix (at least `needed` bytes) and try again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GgufError {
    /// The slice ends inside the header; the header is at least `needed` bytes long.
    NeedMoreBytes {
        needed: u64,
    },
    /// The file does not start with "GGUF".
    NotGguf {
        magic: [u8; 4],
    },
    /// A version other than 2 or 3 (version 1 and big-endian files included).
    UnsupportedVersion {
        version: u32,
    },
    OverLimit {
        limit: GgufLimit,
        value: u64,
    },
    /// A metadata value type id outside GGUF's 0..=12.
    UnknownValueType {
        key: String,
        type_id: u32,
    },
    /// An array whose elements are arrays (ggml refuses them too).
    NestedArray {
        key: String,
    },
    /// A key, tensor name or string value that is not UTF-8, at this byte offset.
    NotUtf8 {
        offset: u64,
    },
    DuplicateKey {
        key: String,
    },
    DuplicateTensor {
        name: String,
    },
    /// `general.alignment` is not an unsigned 32-bit power of two.
    BadAlignment,
    UnknownTensorType {
        tensor: String,
        type_id: u32,
    },
    /// A row (first dimension) that is not a whole number of its type's blocks.
    PartialBlock {
        tensor: String,
        row: u64,
        block: u64,
    },
    /// A dimension above i64::MAX, or elements or bytes that overflow.
    TensorTooLarge {
        tensor: String,
    },
    /// Tensor data must follow in order, each aligned: ggml rejects any other offset.
    UnexpectedOffset {
        tensor: String,
        offset: u64,
        expected: u64,
    },
}

impl fmt::Display for GgufError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GgufError::NeedMoreBytes { needed } => write!(
                f,
                "the GGUF header goes on past the bytes read: read at least {needed} bytes"
            ),
            GgufError::NotGguf { magic } => write!(
                f,
                "not a GGUF file: it starts with {magic:02x?}, not \"GGUF\""
            ),
            GgufError::UnsupportedVersion { version } => write!(
                f,
                "GGUF version {version} is not supported (2 and 3 are, little-endian)"
            ),
            GgufError::OverLimit { limit, value } => write!(
                f,
                "the GGUF {} is {value}, more than the {} this reader accepts",
                limit.name(),
                limit.max()
            ),
            GgufError::UnknownValueType { key, type_id } => {
                write!(f, "GGUF key \"{key}\" has an unknown value type {type_id}")
            }
            GgufError::NestedArray { key } => {
                write!(f, "GGUF key \"{key}\" holds an array of arrays")
            }
            GgufError::NotUtf8 { offset } => {
                write!(f, "the GGUF text at byte {offset} is not UTF-8")
            }
            GgufError::DuplicateKey { key } => write!(f, "GGUF key \"{key}\" appears twice"),
            GgufError::DuplicateTensor { name } => {
                write!(f, "GGUF tensor \"{name}\" appears twice")
            }
            GgufError::BadAlignment => write!(
                f,
                "general.alignment must be an unsigned 32-bit power of two"
            ),
            GgufError::UnknownTensorType { tensor, type_id } => {
                write!(f, "tensor \"{tensor}\" has an unknown ggml type {type_id}")
            }
            GgufError::PartialBlock { tensor, row, block } => write!(
                f,
                "tensor \"{tensor}\" has rows of {row} values, not a multiple of its block of {block}"
            ),
            GgufError::TensorTooLarge { tensor } => {
                write!(f, "tensor \"{tensor}\" is too large to address")
            }
            GgufError::UnexpectedOffset {
                tensor,
                offset,
                expected,
            } => write!(
                f,
                "tensor \"{tensor}\" starts at data offset {offset}, where ggml expects {expected}"
            ),
        }
    }
}

impl std::error::Error for GgufError {}
