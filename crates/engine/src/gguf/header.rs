//! Reading the header: magic, version, counts, metadata, tensor infos.
//!
//! Layout (GGUF v2 and v3, little-endian): "GGUF", u32 version, u64 tensor count, u64 metadata
//! count; each metadata entry a string key, a u32 value type and the value; each tensor info a
//! string name, u32 dimension count, u64 per dimension, u32 ggml type, u64 data offset. Tensor
//! data starts at the next multiple of `general.alignment` (default 32) after the infos.

use std::collections::HashSet;

use super::error::{GgufError, GgufLimit};
use super::ggml_type::GgmlType;
use super::value::{Cursor, MetaValue, ValueType};

const MAGIC: [u8; 4] = *b"GGUF";
const DEFAULT_ALIGNMENT: u64 = 32;

/// One metadata entry.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataEntry {
    key: String,
    value: MetaValue,
}

impl MetadataEntry {
    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn value(&self) -> &MetaValue {
        &self.value
    }
}

/// One tensor's description; `bytes` is its exact size as ggml stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    name: String,
    dims: Vec<u64>,
    ggml_type: GgmlType,
    offset: u64,
    bytes: u64,
}

impl TensorInfo {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Dimensions in ggml's order: `dims[0]` is the row length.
    pub fn dims(&self) -> &[u64] {
        &self.dims
    }

    pub fn ggml_type(&self) -> GgmlType {
        self.ggml_type
    }

    /// Where its data starts, from the start of the data section.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Its bytes: elements / block size × bytes per block.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn elements(&self) -> u64 {
        // every dimension and the product were checked when the tensor was read
        self.dims.iter().product()
    }

    /// N for a tensor named `blk.N.…`, the repeating layers' prefix in llama.cpp.
    pub fn layer(&self) -> Option<u32> {
        let rest = self.name.strip_prefix("blk.")?;
        let (index, _) = rest.split_once('.')?;
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        index.parse().ok()
    }
}

/// A GGUF file's header, read from a prefix of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct GgufHeader {
    version: u32,
    alignment: u64,
    header_bytes: u64,
    data_bytes: u64,
    metadata: Vec<MetadataEntry>,
    tensors: Vec<TensorInfo>,
}

impl GgufHeader {
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The data section's alignment (`general.alignment`, 32 when absent).
    #[cfg(test)]
    pub(crate) fn alignment(&self) -> u64 {
        self.alignment
    }

    /// Bytes from the start of the file to the end of the last tensor info.
    pub fn header_bytes(&self) -> u64 {
        self.header_bytes
    }

    /// Where tensor data starts in the file: `header_bytes` rounded up to `alignment`.
    pub fn data_offset(&self) -> u64 {
        // header_bytes fits in memory and alignment is at most 2^31
        self.header_bytes.next_multiple_of(self.alignment)
    }

    pub fn metadata(&self) -> &[MetadataEntry] {
        &self.metadata
    }

    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.metadata
            .iter()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }

    pub fn tensors(&self) -> &[TensorInfo] {
        &self.tensors
    }

    pub fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// Every tensor's bytes added up (what llama.cpp calls the model size).
    pub fn tensor_bytes(&self) -> u64 {
        self.tensors.iter().map(TensorInfo::bytes).sum()
    }

    /// The data section's length: the last tensor's offset plus its bytes, padded to alignment
    /// (the file's length is `data_offset() + data_bytes()`).
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    /// A split model (llama.cpp's `gguf-split`: the first part holds the metadata, every part its
    /// own tensors) as one header: the first part's, with the other parts' tensors and data after
    /// its own. `None` when a tensor name repeats or the data sizes overflow.
    pub fn with_split_parts(mut self, rest: &[GgufHeader]) -> Option<GgufHeader> {
        let mut names: HashSet<String> = self.tensors.iter().map(|t| t.name.clone()).collect();
        for part in rest {
            if !part.tensors.iter().all(|t| names.insert(t.name.clone())) {
                return None;
            }
            self.data_bytes = self.data_bytes.checked_add(part.data_bytes)?;
            self.tensors.extend(part.tensors.iter().cloned());
        }
        Some(self)
    }
}

/// Reads a GGUF header from the first bytes of a file. When `bytes` ends before the header
/// does, the error is `NeedMoreBytes` with a length to read next (a lower bound).
pub fn read_gguf(bytes: &[u8]) -> Result<GgufHeader, GgufError> {
    let mut cursor = Cursor::new(bytes);
    let mut magic = [0u8; 4];
    magic.copy_from_slice(cursor.take(4)?);
    if magic != MAGIC {
        return Err(GgufError::NotGguf { magic });
    }
    let version = cursor.u32()?;
    if !(2..=3).contains(&version) {
        return Err(GgufError::UnsupportedVersion { version });
    }
    let tensor_count = counted(cursor.u64()?, GgufLimit::Tensors)?;
    let metadata_count = counted(cursor.u64()?, GgufLimit::MetadataEntries)?;
    let metadata = read_metadata(&mut cursor, metadata_count)?;
    let alignment = alignment(&metadata)?;
    let (tensors, data_bytes) = read_tensor_infos(&mut cursor, tensor_count, alignment)?;
    Ok(GgufHeader {
        version,
        alignment,
        header_bytes: cursor.position(),
        data_bytes,
        metadata,
        tensors,
    })
}

fn counted(value: u64, limit: GgufLimit) -> Result<u64, GgufError> {
    if value > limit.max() {
        return Err(GgufError::OverLimit { limit, value });
    }
    Ok(value)
}

fn read_metadata(cursor: &mut Cursor<'_>, count: u64) -> Result<Vec<MetadataEntry>, GgufError> {
    let mut seen = HashSet::new();
    let mut metadata = Vec::new();
    for _ in 0..count {
        let key = cursor.string(GgufLimit::StringLength)?;
        let type_id = cursor.u32()?;
        let ty = ValueType::from_id(type_id).ok_or_else(|| GgufError::UnknownValueType {
            key: key.clone(),
            type_id,
        })?;
        let value = cursor.value(ty, &key)?;
        if !seen.insert(key.clone()) {
            return Err(GgufError::DuplicateKey { key });
        }
        metadata.push(MetadataEntry { key, value });
    }
    Ok(metadata)
}

fn alignment(metadata: &[MetadataEntry]) -> Result<u64, GgufError> {
    match metadata.iter().find(|m| m.key == "general.alignment") {
        None => Ok(DEFAULT_ALIGNMENT),
        Some(MetadataEntry {
            value: MetaValue::U32(a),
            ..
        }) if a.is_power_of_two() => Ok(u64::from(*a)),
        Some(_) => Err(GgufError::BadAlignment),
    }
}

/// The tensor infos, and the data section's length they add up to.
fn read_tensor_infos(
    cursor: &mut Cursor<'_>,
    count: u64,
    alignment: u64,
) -> Result<(Vec<TensorInfo>, u64), GgufError> {
    let mut names = HashSet::new();
    let mut tensors = Vec::new();
    let mut expected_offset = 0u64;
    for _ in 0..count {
        let tensor = read_tensor_info(cursor)?;
        if !names.insert(tensor.name.clone()) {
            return Err(GgufError::DuplicateTensor { name: tensor.name });
        }
        if tensor.offset != expected_offset {
            return Err(GgufError::UnexpectedOffset {
                tensor: tensor.name,
                offset: tensor.offset,
                expected: expected_offset,
            });
        }
        let too_large = || GgufError::TensorTooLarge {
            tensor: tensor.name.clone(),
        };
        let padded_bytes = tensor
            .bytes
            .checked_next_multiple_of(alignment)
            .ok_or_else(too_large)?;
        expected_offset = expected_offset
            .checked_add(padded_bytes)
            .ok_or_else(too_large)?;
        tensors.push(tensor);
    }
    Ok((tensors, expected_offset))
}

fn read_tensor_info(cursor: &mut Cursor<'_>) -> Result<TensorInfo, GgufError> {
    let name_at = cursor.position();
    let name_bytes = cursor.string_bytes(GgufLimit::TensorNameLength)?;
    let name = std::str::from_utf8(name_bytes)
        .map_err(|_| GgufError::NotUtf8 { offset: name_at })?
        .to_string();
    let dim_count = counted(u64::from(cursor.u32()?), GgufLimit::Dimensions)?;
    let dims = (0..dim_count)
        .map(|_| cursor.u64())
        .collect::<Result<Vec<_>, _>>()?;
    let type_id = cursor.u32()?;
    let offset = cursor.u64()?;
    let ggml_type = GgmlType::from_id(type_id).ok_or_else(|| GgufError::UnknownTensorType {
        tensor: name.clone(),
        type_id,
    })?;
    let bytes = tensor_bytes(&name, &dims, ggml_type)?;
    Ok(TensorInfo {
        name,
        dims,
        ggml_type,
        offset,
        bytes,
    })
}

/// ggml's size of a contiguous tensor: row bytes (whole blocks) × the other dimensions. Like
/// ggml, refuses dimensions above i64::MAX and element counts that overflow i64.
fn tensor_bytes(name: &str, dims: &[u64], ty: GgmlType) -> Result<u64, GgufError> {
    let too_large = || GgufError::TensorTooLarge {
        tensor: name.to_string(),
    };
    let max = i64::MAX as u64;
    let mut elements = 1u64;
    for &dim in dims {
        elements = elements
            .checked_mul(dim)
            .filter(|&e| e <= max && dim <= max)
            .ok_or_else(too_large)?;
    }
    let row = dims.first().copied().unwrap_or(1);
    if !row.is_multiple_of(ty.block_size()) {
        return Err(GgufError::PartialBlock {
            tensor: name.to_string(),
            row,
            block: ty.block_size(),
        });
    }
    ty.bytes_for(elements).ok_or_else(too_large)
}
