//! A picked `.gguf` file's header, read from as many of its first bytes as the page has sent.

use vram_engine::{read_gguf, GgufError, GgufSummary};
use vram_text::{llama_word, LlamaWord};

use crate::{Reply, LANGS};

/// The longest header read (vocabularies and chat templates stay far below).
pub const MAX_HEADER: u64 = 268_435_456;

/// The summary of the header that `bytes` (the start of a file of `file_size` bytes) holds, or
/// how many bytes to send next, or why the file gives no model.
pub fn header_reply(bytes: &[u8], file_size: u64) -> Reply {
    let have = bytes.len() as u64;
    match read_gguf(bytes) {
        Ok(header) => match GgufSummary::of(&header) {
            // what a link can carry, so that a shared link plans what the page shows
            Ok(summary) => Reply::Gguf(summary.for_link().to_text()),
            Err(_) => said(LlamaWord::NotGguf),
        },
        Err(GgufError::NeedMoreBytes { needed }) if needed > MAX_HEADER => {
            said(LlamaWord::HeaderTooLong)
        }
        Err(GgufError::NeedMoreBytes { .. }) if have >= file_size => said(LlamaWord::NotGguf),
        Err(GgufError::NeedMoreBytes { needed }) => {
            Reply::More(needed.max(2 * have).min(MAX_HEADER).min(file_size))
        }
        Err(_) => said(LlamaWord::NotGguf),
    }
}

fn said(word: LlamaWord) -> Reply {
    Reply::Error(LANGS.map(|l| llama_word(l, word).to_string()))
}
