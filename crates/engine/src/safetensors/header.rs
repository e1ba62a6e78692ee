//! Reading a safetensors header: an 8-byte little-endian length, then that many bytes of JSON
//! mapping each tensor name to its dtype, shape and `[begin, end)` offsets into the data that
//! follows, plus an optional `__metadata__` object of strings.
//! Spec: <https://github.com/huggingface/safetensors#format>; the checks follow the safetensors
//! crate's `Metadata::validate` (tensors tile the data section in offset order).

use super::dtype::SafeDtype;
use super::error::{EntryField, SafetensorsError, SafetensorsLimit};
use serde::Deserialize;

use crate::json::{self, Lenient, Value, Whole};

/// The length prefix before the JSON header, in bytes.
pub const LENGTH_PREFIX: u64 = 8;

/// One tensor as the header describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SafeTensor {
    name: String,
    dtype: SafeDtype,
    shape: Vec<u64>,
    begin: u64,
    end: u64,
}

impl SafeTensor {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn dtype(&self) -> SafeDtype {
        self.dtype
    }

    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Elements: the product of the shape (1 for a scalar).
    pub fn elements(&self) -> u64 {
        self.shape.iter().product()
    }

    /// Exact bytes of its data: elements × bits / 8.
    pub fn bytes(&self) -> u64 {
        self.end - self.begin
    }

    /// Where its data starts, from the start of the data section.
    pub fn offset(&self) -> u64 {
        self.begin
    }
}

/// A whole header: tensors in offset order, `__metadata__` pairs, and the sizes around them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SafetensorsHeader {
    tensors: Vec<SafeTensor>,
    metadata: Vec<(String, String)>,
    header_bytes: u64,
}

impl SafetensorsHeader {
    pub fn tensors(&self) -> &[SafeTensor] {
        &self.tensors
    }

    /// `__metadata__` as (key, value), in document order.
    pub fn metadata(&self) -> &[(String, String)] {
        &self.metadata
    }

    /// Bytes of the JSON header (without the 8-byte length).
    pub fn header_bytes(&self) -> u64 {
        self.header_bytes
    }

    /// Bytes of tensor data after the header.
    pub fn data_bytes(&self) -> u64 {
        self.tensors.last().map_or(0, |t| t.end)
    }

    /// The whole file's length: length prefix, header and data.
    pub fn file_bytes(&self) -> u64 {
        LENGTH_PREFIX + self.header_bytes + self.data_bytes()
    }

    /// Checks the file's length when it is known (an HTTP Content-Range total, a file's size).
    pub fn check_file_length(&self, actual: u64) -> Result<(), SafetensorsError> {
        let expected = self.file_bytes();
        if actual == expected {
            Ok(())
        } else {
            Err(SafetensorsError::FileLength { expected, actual })
        }
    }
}

/// The header's length from the file's first 8 bytes, checked against the limit before any
/// more is read.
pub(crate) fn header_length(first: &[u8]) -> Result<u64, SafetensorsError> {
    let prefix: [u8; 8] =
        first
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or(SafetensorsError::NeedMoreBytes {
                needed: LENGTH_PREFIX,
            })?;
    let n = u64::from_le_bytes(prefix);
    let limit = SafetensorsLimit::HeaderBytes;
    if n > limit.max() {
        return Err(SafetensorsError::OverLimit { limit, value: n });
    }
    Ok(n)
}

/// Reads a header from the file's first bytes (the length prefix and at least the header).
pub fn read_safetensors(bytes: &[u8]) -> Result<SafetensorsHeader, SafetensorsError> {
    let n = header_length(bytes)?;
    let end = LENGTH_PREFIX + n;
    let json_bytes = bytes
        .get(LENGTH_PREFIX as usize..end as usize)
        .ok_or(SafetensorsError::NeedMoreBytes { needed: end })?;
    read_header_json(json_bytes)
}

/// Reads the JSON header alone (the bytes after the length prefix).
pub fn read_header_json(json_bytes: &[u8]) -> Result<SafetensorsHeader, SafetensorsError> {
    let limit = SafetensorsLimit::HeaderBytes;
    if json_bytes.len() as u64 > limit.max() {
        let value = json_bytes.len() as u64;
        return Err(SafetensorsError::OverLimit { limit, value });
    }
    if json_bytes.first() != Some(&b'{') {
        return Err(SafetensorsError::NotAHeader);
    }
    let text = std::str::from_utf8(json_bytes).map_err(|_| SafetensorsError::NotUtf8)?;
    // the spec allows trailing spaces as padding to an 8-byte boundary
    let value = json::parse(text.trim_end_matches(' ')).map_err(SafetensorsError::NotJson)?;
    let object = value.as_object().ok_or(SafetensorsError::NotAHeader)?;
    check_count(SafetensorsLimit::Tensors, object.len())?;
    let mut metadata = Vec::new();
    let mut tensors = Vec::with_capacity(object.len());
    for (name, entry) in object.iter() {
        if name == "__metadata__" {
            metadata = read_metadata(entry)?;
        } else {
            tensors.push(read_entry(name, entry)?);
        }
    }
    check_tiling(&mut tensors)?;
    Ok(SafetensorsHeader {
        tensors,
        metadata,
        header_bytes: json_bytes.len() as u64,
    })
}

fn check_count(limit: SafetensorsLimit, n: usize) -> Result<(), SafetensorsError> {
    if n as u64 > limit.max() {
        Err(SafetensorsError::OverLimit {
            limit,
            value: n as u64,
        })
    } else {
        Ok(())
    }
}

/// The first characters of a name, for an error.
pub(crate) fn shown_name(name: &str) -> String {
    name.chars().take(80).collect()
}

fn read_metadata(entry: &Value) -> Result<Vec<(String, String)>, SafetensorsError> {
    let object = entry.as_object().ok_or(SafetensorsError::BadMetadata)?;
    check_count(SafetensorsLimit::MetadataEntries, object.len())?;
    object
        .iter()
        .map(|(k, v)| match v.as_str() {
            Some(s) => Ok((k.clone(), s.to_string())),
            None => Err(SafetensorsError::BadMetadata),
        })
        .collect()
}

/// A tensor's entry as the header writes it; a field of another type is read as missing, and the
/// error names it.
#[derive(Deserialize)]
struct TensorEntry {
    #[serde(default)]
    dtype: Lenient<String>,
    #[serde(default)]
    shape: Lenient<Vec<Lenient<Whole>>>,
    #[serde(default)]
    data_offsets: Lenient<[Whole; 2]>,
}

fn read_entry(name: &str, entry: &Value) -> Result<SafeTensor, SafetensorsError> {
    check_count(SafetensorsLimit::NameLength, name.len())?;
    let bad = |field| SafetensorsError::BadEntry {
        tensor: shown_name(name),
        field,
    };
    let entry: TensorEntry = Some(entry)
        .filter(|e| e.is_object())
        .and_then(json::typed)
        .ok_or(bad(EntryField::Entry))?;
    let dtype_name = entry.dtype.0.ok_or(bad(EntryField::Dtype))?;
    let dtype =
        SafeDtype::from_header(&dtype_name).ok_or_else(|| SafetensorsError::UnknownDtype {
            tensor: shown_name(name),
            dtype: dtype_name.chars().take(20).collect(),
        })?;
    let dimensions = entry.shape.0.ok_or(bad(EntryField::Shape))?;
    check_count(SafetensorsLimit::Dimensions, dimensions.len())?;
    let shape = dimensions
        .into_iter()
        .map(|d| d.0.map(|w| w.0).ok_or(bad(EntryField::Shape)))
        .collect::<Result<Vec<u64>, _>>()?;
    let [Whole(begin), Whole(end)] = entry.data_offsets.0.ok_or(bad(EntryField::DataOffsets))?;
    let too_large = || SafetensorsError::TensorTooLarge {
        tensor: shown_name(name),
    };
    let elements = shape
        .iter()
        .try_fold(1u64, |n, d| n.checked_mul(*d))
        .ok_or_else(too_large)?;
    let bits = elements.checked_mul(dtype.bits()).ok_or_else(too_large)?;
    let span = end.checked_sub(begin).ok_or(bad(EntryField::DataOffsets))?;
    // sub-byte types must fill whole bytes, as the safetensors crate requires
    if !bits.is_multiple_of(8) || bits / 8 != span {
        return Err(SafetensorsError::WrongSize {
            tensor: shown_name(name),
            offsets: span,
            shape: bits.div_ceil(8),
        });
    }
    Ok(SafeTensor {
        name: name.to_string(),
        dtype,
        shape,
        begin,
        end,
    })
}

/// Sorts tensors by offset and checks that they tile the data from byte 0 (a repeated name is
/// refused before, by the JSON reader).
fn check_tiling(tensors: &mut [SafeTensor]) -> Result<(), SafetensorsError> {
    tensors.sort_by_key(|t| (t.begin, t.end));
    let mut expected = 0;
    for t in tensors.iter() {
        if t.begin != expected {
            return Err(SafetensorsError::NotContiguous {
                tensor: shown_name(&t.name),
                begin: t.begin,
                expected,
            });
        }
        expected = t.end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(json: &str) -> Vec<u8> {
        let mut out = (json.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(json.as_bytes());
        out
    }

    #[test]
    fn a_header_reads_tensors_in_offset_order_with_exact_bytes() {
        let json = r#"{"__metadata__":{"format":"pt"},"b":{"dtype":"F16","shape":[2,3],"data_offsets":[16,28]},"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
        let h = read_safetensors(&file(json)).unwrap();
        let names: Vec<&str> = h.tensors().iter().map(|t| t.name()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(h.tensors()[1].bytes(), 2 * 3 * 2);
        assert_eq!(h.data_bytes(), 28);
        assert_eq!(h.metadata(), [("format".to_string(), "pt".to_string())]);
        assert_eq!(h.file_bytes(), 8 + json.len() as u64 + 28);
        assert!(h.check_file_length(h.file_bytes()).is_ok());
        assert!(h.check_file_length(h.file_bytes() - 1).is_err());
    }

    #[test]
    fn a_tensor_named_twice_is_refused_where_the_name_repeats() {
        // the second "a" is the header's bytes 54 to 56 (1-based): the error is at its end
        let json = r#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}"#;
        match read_safetensors(&file(json)) {
            Err(SafetensorsError::NotJson(e)) => {
                assert_eq!(e.why, crate::json::JsonProblem::DuplicateKey);
                assert_eq!((e.line, e.column), (1, 56));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_entry_field_of_the_wrong_type_is_named_in_the_error() {
        let read = |entry: &str| read_safetensors(&file(&format!(r#"{{"t":{entry}}}"#)));
        let bad = |field| {
            Err(SafetensorsError::BadEntry {
                tensor: "t".into(),
                field,
            })
        };
        for (entry, field) in [
            (r#"["U8",[1],[0,1]]"#, EntryField::Entry),
            (
                r#"{"dtype":5,"shape":[1],"data_offsets":[0,1]}"#,
                EntryField::Dtype,
            ),
            (
                r#"{"dtype":"U8","shape":"1","data_offsets":[0,1]}"#,
                EntryField::Shape,
            ),
            (
                r#"{"dtype":"U8","shape":[1,"a"],"data_offsets":[0,1]}"#,
                EntryField::Shape,
            ),
            (
                r#"{"dtype":"U8","shape":[1],"data_offsets":[1]}"#,
                EntryField::DataOffsets,
            ),
            (
                r#"{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}"#,
                EntryField::DataOffsets,
            ),
            (r#"{"dtype":"U8","shape":[1]}"#, EntryField::DataOffsets),
        ] {
            assert_eq!(read(entry), bad(field), "{entry}");
        }
        // one U8 is one byte: offsets 0 and 1.0 read as whole numbers
        let h = read(r#"{"dtype":"U8","shape":[1],"data_offsets":[0,1.0]}"#).unwrap();
        assert_eq!(h.data_bytes(), 1);
    }

    #[test]
    fn a_short_prefix_asks_for_the_bytes_it_lacks() {
        let bytes = file(r#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}"#);
        assert_eq!(
            read_safetensors(&bytes[..5]),
            Err(SafetensorsError::NeedMoreBytes { needed: 8 })
        );
        assert_eq!(
            read_safetensors(&bytes[..20]),
            Err(SafetensorsError::NeedMoreBytes {
                needed: bytes.len() as u64
            })
        );
    }

    #[test]
    fn a_header_length_over_the_limit_is_refused_before_reading_it() {
        let bytes = (200_000_000u64).to_le_bytes();
        assert_eq!(
            header_length(&bytes),
            Err(SafetensorsError::OverLimit {
                limit: SafetensorsLimit::HeaderBytes,
                value: 200_000_000
            })
        );
    }

    #[test]
    fn offsets_that_disagree_with_the_shape_or_leave_a_gap_are_refused() {
        let wrong = r#"{"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,7]}}"#;
        assert!(matches!(
            read_safetensors(&file(wrong)),
            Err(SafetensorsError::WrongSize {
                offsets: 7,
                shape: 8,
                ..
            })
        ));
        let gap = r#"{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[5,9]}}"#;
        assert!(matches!(
            read_safetensors(&file(gap)),
            Err(SafetensorsError::NotContiguous {
                begin: 5,
                expected: 4,
                ..
            })
        ));
    }

    #[test]
    fn sub_byte_types_must_fill_whole_bytes() {
        let odd = r#"{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}"#;
        assert!(read_safetensors(&file(odd)).is_err());
        let even = r#"{"a":{"dtype":"F4","shape":[2,3],"data_offsets":[0,3]}}"#;
        assert_eq!(read_safetensors(&file(even)).unwrap().data_bytes(), 3);
    }

    #[test]
    fn unknown_dtypes_and_bad_metadata_are_named() {
        let dtype = r#"{"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}}"#;
        assert!(matches!(
            read_safetensors(&file(dtype)),
            Err(SafetensorsError::UnknownDtype { .. })
        ));
        let meta = r#"{"__metadata__":{"n":1}}"#;
        assert_eq!(
            read_safetensors(&file(meta)),
            Err(SafetensorsError::BadMetadata)
        );
        assert_eq!(
            read_safetensors(&file("[1]")),
            Err(SafetensorsError::NotAHeader)
        );
    }

    #[test]
    fn trailing_space_padding_is_allowed_and_a_scalar_has_one_element() {
        let json = r#"{"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}   "#;
        let h = read_safetensors(&file(json)).unwrap();
        assert_eq!(h.tensors()[0].elements(), 1);
        assert_eq!(h.header_bytes(), json.len() as u64);
    }
}
