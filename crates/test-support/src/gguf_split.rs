//! A split GGUF model for tests, laid out as llama.cpp's `gguf-split` writes one (tools/gguf-split:
//! "Save all metadata in first split only"; every part gets `split.no`, `split.count` and
//! `split.tensors.count`, then its own tensors). The split keys are written as u64 here
//! (gguf-split writes u16 / i32); the reader takes any integer.

use vram_engine::{
    llamacpp::read_gguf, llamacpp::DraftValue, llamacpp::GgufDraft, llamacpp::GgufSummary,
};

/// The model `summary` stands for, in `parts` files: each file's header bytes.
pub fn split_parts(summary: &GgufSummary, parts: usize) -> Vec<Vec<u8>> {
    let draft = summary.draft();
    let total = draft.tensors.len() as u64;
    let per = draft.tensors.len().div_ceil(parts);
    draft
        .tensors
        .chunks(per)
        .enumerate()
        .map(|(i, tensors)| {
            let mut metadata = match i {
                0 => draft.metadata.clone(),
                _ => Vec::new(),
            };
            metadata.push(("split.no".into(), DraftValue::U64(i as u64)));
            metadata.push(("split.count".into(), DraftValue::U64(parts as u64)));
            metadata.push(("split.tensors.count".into(), DraftValue::U64(total)));
            GgufDraft {
                metadata,
                tensors: tensors.to_vec(),
            }
            .bytes()
        })
        .collect()
}

/// The whole length of the file whose header is `bytes`: where its data starts plus the data.
pub fn file_length(bytes: &[u8]) -> u64 {
    let header = read_gguf(bytes).expect("a GGUF header");
    header.data_offset() + header.data_bytes()
}
