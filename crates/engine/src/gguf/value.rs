//! GGUF metadata values and the little-endian cursor that reads them.

use super::error::{GgufError, GgufLimit};

/// Arrays longer than this are counted and skipped, not stored (vocabularies, merges, scores).
pub const STORED_ARRAY_MAX: u64 = 1024;

/// A GGUF metadata value type (`enum gguf_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    Bool,
    String,
    Array,
    U64,
    I64,
    F64,
}

impl ValueType {
    const ALL: [ValueType; 13] = [
        ValueType::U8,
        ValueType::I8,
        ValueType::U16,
        ValueType::I16,
        ValueType::U32,
        ValueType::I32,
        ValueType::F32,
        ValueType::Bool,
        ValueType::String,
        ValueType::Array,
        ValueType::U64,
        ValueType::I64,
        ValueType::F64,
    ];

    pub(crate) fn from_id(id: u32) -> Option<ValueType> {
        usize::try_from(id)
            .ok()
            .and_then(|i| Self::ALL.get(i).copied())
    }

    /// Bytes of one value of a fixed-size type; None for strings and arrays.
    pub fn fixed_size(self) -> Option<u64> {
        match self {
            ValueType::U8 | ValueType::I8 | ValueType::Bool => Some(1),
            ValueType::U16 | ValueType::I16 => Some(2),
            ValueType::U32 | ValueType::I32 | ValueType::F32 => Some(4),
            ValueType::U64 | ValueType::I64 | ValueType::F64 => Some(8),
            ValueType::String | ValueType::Array => None,
        }
    }
}

/// One metadata value.
#[derive(Clone, Debug, PartialEq)]
pub enum MetaValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    Array(MetaArray),
    U64(u64),
    I64(i64),
    F64(f64),
}

/// An array value: its element type and length always, its values only when it is short
/// (at most [`STORED_ARRAY_MAX`] elements).
#[derive(Clone, Debug, PartialEq)]
pub struct MetaArray {
    pub(crate) element_type: ValueType,
    pub len: u64,
    pub values: Option<Vec<MetaValue>>,
}

impl MetaValue {
    /// The value as a non-negative integer, whatever integer type stores it.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            MetaValue::U8(v) => Some(v.into()),
            MetaValue::U16(v) => Some(v.into()),
            MetaValue::U32(v) => Some(v.into()),
            MetaValue::U64(v) => Some(v),
            MetaValue::I8(v) => u64::try_from(v).ok(),
            MetaValue::I16(v) => u64::try_from(v).ok(),
            MetaValue::I32(v) => u64::try_from(v).ok(),
            MetaValue::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            MetaValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&MetaArray> {
        match self {
            MetaValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// Reads little-endian values from a prefix of a file; running off its end is `NeedMoreBytes`.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    /// The next `n` bytes; when the slice is shorter, how long it must be.
    pub fn take(&mut self, n: u64) -> Result<&'a [u8], GgufError> {
        let needed = self.position().saturating_add(n);
        let end = usize::try_from(needed)
            .ok()
            .filter(|&end| end <= self.bytes.len())
            .ok_or(GgufError::NeedMoreBytes { needed })?;
        let taken = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N as u64)?);
        Ok(out)
    }

    pub fn u32(&mut self) -> Result<u32, GgufError> {
        self.array().map(u32::from_le_bytes)
    }

    pub fn u64(&mut self) -> Result<u64, GgufError> {
        self.array().map(u64::from_le_bytes)
    }

    /// A GGUF string's bytes (u64 length, then the bytes), at most `limit` long.
    pub fn string_bytes(&mut self, limit: GgufLimit) -> Result<&'a [u8], GgufError> {
        let len = self.u64()?;
        if len > limit.max() {
            return Err(GgufError::OverLimit { limit, value: len });
        }
        self.take(len)
    }

    pub fn string(&mut self, limit: GgufLimit) -> Result<String, GgufError> {
        let offset = self.position();
        let bytes = self.string_bytes(limit)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| GgufError::NotUtf8 { offset })
    }

    /// One value of type `ty`; `key` names it in errors.
    pub fn value(&mut self, ty: ValueType, key: &str) -> Result<MetaValue, GgufError> {
        Ok(match ty {
            ValueType::U8 => MetaValue::U8(u8::from_le_bytes(self.array()?)),
            ValueType::I8 => MetaValue::I8(i8::from_le_bytes(self.array()?)),
            ValueType::U16 => MetaValue::U16(u16::from_le_bytes(self.array()?)),
            ValueType::I16 => MetaValue::I16(i16::from_le_bytes(self.array()?)),
            ValueType::U32 => MetaValue::U32(self.u32()?),
            ValueType::I32 => MetaValue::I32(i32::from_le_bytes(self.array()?)),
            ValueType::F32 => MetaValue::F32(f32::from_le_bytes(self.array()?)),
            ValueType::Bool => MetaValue::Bool(self.array::<1>()?[0] != 0),
            ValueType::String => MetaValue::String(self.string(GgufLimit::StringLength)?),
            ValueType::U64 => MetaValue::U64(self.u64()?),
            ValueType::I64 => MetaValue::I64(i64::from_le_bytes(self.array()?)),
            ValueType::F64 => MetaValue::F64(f64::from_le_bytes(self.array()?)),
            ValueType::Array => MetaValue::Array(self.meta_array(key)?),
        })
    }

    fn meta_array(&mut self, key: &str) -> Result<MetaArray, GgufError> {
        let type_id = self.u32()?;
        let element_type =
            ValueType::from_id(type_id).ok_or_else(|| GgufError::UnknownValueType {
                key: key.to_string(),
                type_id,
            })?;
        if element_type == ValueType::Array {
            return Err(GgufError::NestedArray {
                key: key.to_string(),
            });
        }
        let len = self.u64()?;
        if len > GgufLimit::ArrayLength.max() {
            return Err(GgufError::OverLimit {
                limit: GgufLimit::ArrayLength,
                value: len,
            });
        }
        let values = if len <= STORED_ARRAY_MAX {
            let values = (0..len).map(|_| self.value(element_type, key));
            Some(values.collect::<Result<Vec<_>, _>>()?)
        } else {
            self.skip_values(element_type, len)?;
            None
        };
        Ok(MetaArray {
            element_type,
            len,
            values,
        })
    }

    /// Steps over `len` values without storing them (strings are still length-checked).
    fn skip_values(&mut self, ty: ValueType, len: u64) -> Result<(), GgufError> {
        match ty.fixed_size() {
            Some(size) => {
                // len and size are bounded (2^24, 8), so the product cannot overflow
                self.take(len * size)?;
            }
            None => {
                for _ in 0..len {
                    self.string_bytes(GgufLimit::StringLength)?;
                }
            }
        }
        Ok(())
    }
}
