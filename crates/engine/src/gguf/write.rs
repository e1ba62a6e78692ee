//! Writing a GGUF header (v3, no tensor data): how a model summary or a synthesized preset becomes
//! a header the reader and llama.cpp's planner take like a file's, and how tests build fixtures.

use super::ggml_type::GgmlType;

/// GGUF's default data alignment (no `general.alignment` is written).
const ALIGNMENT: u64 = 32;

/// A metadata value the writer can store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DraftValue {
    U64(u64),
    Text(String),
    /// One u32 per layer (per-layer head counts, feed-forward widths).
    U32s(Vec<u32>),
}

/// A header to write: metadata entries, then tensor infos (name, dims in ggml order, type).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GgufDraft {
    pub metadata: Vec<(String, DraftValue)>,
    pub tensors: Vec<(String, Vec<u64>, GgmlType)>,
}

fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_value(out: &mut Vec<u8>, value: &DraftValue) {
    match value {
        DraftValue::U64(n) => {
            out.extend_from_slice(&10u32.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
        }
        DraftValue::Text(s) => {
            out.extend_from_slice(&8u32.to_le_bytes());
            put_string(out, s);
        }
        DraftValue::U32s(values) => {
            out.extend_from_slice(&9u32.to_le_bytes());
            out.extend_from_slice(&4u32.to_le_bytes());
            out.extend_from_slice(&(values.len() as u64).to_le_bytes());
            values
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        }
    }
}

impl GgufDraft {
    /// The header's bytes; each tensor's offset follows the one before, rounded up to 32 bytes.
    /// A tensor whose elements are not whole blocks of its type gets no bytes (the reader
    /// refuses it, as it would a file's).
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(&(self.tensors.len() as u64).to_le_bytes());
        out.extend_from_slice(&(self.metadata.len() as u64).to_le_bytes());
        for (key, value) in &self.metadata {
            put_string(&mut out, key);
            put_value(&mut out, value);
        }
        let mut offset = 0u64;
        for (name, dims, ty) in &self.tensors {
            put_string(&mut out, name);
            out.extend_from_slice(&(dims.len() as u32).to_le_bytes());
            dims.iter()
                .for_each(|d| out.extend_from_slice(&d.to_le_bytes()));
            out.extend_from_slice(&ty.id().to_le_bytes());
            out.extend_from_slice(&offset.to_le_bytes());
            let elements = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
            let bytes = elements.and_then(|n| ty.bytes_for(n)).unwrap_or(0);
            offset = offset.saturating_add(bytes).next_multiple_of(ALIGNMENT);
        }
        out
    }
}
