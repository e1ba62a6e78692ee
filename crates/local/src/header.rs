//! A picked `.gguf` file's header, read from as many of its first bytes as the page has sent.

use vram_engine::{
    llamacpp::read_gguf, llamacpp::GgufError, llamacpp::GgufSummary, llamacpp::Projector,
};
use vram_text::{llama_word, LlamaWord};

use crate::{GgufReply, LANGS};

/// The longest header read (vocabularies and chat templates stay far below).
pub const MAX_HEADER: u64 = 268_435_456;

/// The summary of the header that `bytes` (the start of a file of `file_size` bytes) holds, or
/// how many bytes to send next, or why the file gives no model. A multimodal projector
/// (`--mmproj`, architecture `clip`) answers with its `mp=` form, so that one picker takes both
/// files of a vision model.
pub fn header_reply(bytes: &[u8], file_size: u64) -> GgufReply {
    let have = bytes.len() as u64;
    match read_gguf(bytes) {
        Ok(header) if header.architecture() == Some("clip") => match Projector::of(&header) {
            Ok(p) => GgufReply::Projector(p.to_text()),
            Err(_) => said(LlamaWord::NotAProjector),
        },
        Ok(header) => match GgufSummary::of(&header) {
            // what a link can carry, so that a shared link plans what the page shows
            Ok(summary) => GgufReply::Gguf(summary.for_link().to_text()),
            Err(_) => said(LlamaWord::NotGguf),
        },
        Err(GgufError::NeedMoreBytes { needed }) if needed > MAX_HEADER => {
            said(LlamaWord::HeaderTooLong)
        }
        Err(GgufError::NeedMoreBytes { .. }) if have >= file_size => said(LlamaWord::NotGguf),
        Err(GgufError::NeedMoreBytes { needed }) => {
            GgufReply::More(needed.max(2 * have).min(MAX_HEADER).min(file_size))
        }
        Err(_) => said(LlamaWord::NotGguf),
    }
}

/// The first bytes every read asks for: magic, version and the two counts.
const FIXED_HEADER: u64 = 24;

/// [`header_reply`] for a model in one or more files (a split GGUF's parts, in order): `parts[i]`
/// holds the first bytes of part i, a file of `sizes[i]` bytes. The summary of all their headers
/// together (the first part's metadata, every part's tensors), or which part to read to how many
/// bytes next, or why the files give no model.
pub fn parts_reply(parts: &[&[u8]], sizes: &[u64]) -> GgufReply {
    let mut headers = Vec::with_capacity(parts.len());
    for (part, (bytes, &size)) in parts.iter().zip(sizes).enumerate() {
        let have = bytes.len() as u64;
        match read_gguf(bytes) {
            Ok(header) => headers.push(header),
            Err(GgufError::NeedMoreBytes { needed }) if needed > MAX_HEADER => {
                return said(LlamaWord::HeaderTooLong)
            }
            Err(GgufError::NeedMoreBytes { .. }) if have >= size => {
                return said(LlamaWord::NotGguf)
            }
            Err(GgufError::NeedMoreBytes { needed }) => {
                let next = needed.max(2 * have).max(FIXED_HEADER);
                return GgufReply::MorePart {
                    part: part as u32,
                    bytes: next.min(MAX_HEADER).min(size),
                };
            }
            Err(_) => return said(LlamaWord::NotGguf),
        }
    }
    let mut headers = headers.into_iter();
    let joined = headers
        .next()
        .and_then(|first| first.with_split_parts(&headers.collect::<Vec<_>>()));
    match joined.map(|h| GgufSummary::of(&h)) {
        // what a link can carry, as for a picked file
        Some(Ok(summary)) => GgufReply::Gguf(summary.for_link().to_text()),
        _ => said(LlamaWord::NotGguf),
    }
}

fn said(word: LlamaWord) -> GgufReply {
    GgufReply::Error(LANGS.map(|l| llama_word(l, word).to_string()))
}
