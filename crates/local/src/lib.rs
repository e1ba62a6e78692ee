//! The on-demand module of the llama.cpp / Ollama job: everything only a local run needs (the
//! GGUF reader and the header writer behind a `gg=` link, the run's plan, solver and speed, the
//! presets quantized as llama-quantize would, and the rendering of the answer with its tokens/s
//! chart). Trunk builds it, as the cdylib `crates/local-web`, into `dist/` beside the page and the
//! page imports it with a dynamic `import()` the first time a local run is shown
//! (`src/local_module.rs`), so none of it is in the first load.
//!
//! # Interface
//!
//! Each export takes plain JavaScript values (bytes, numbers, the page's query) and returns the
//! postcard bytes of a `vram-messages` type (`vram_messages::encode`), which the page decodes
//! into the same type:
//!
//! - `read_gguf_header`, `read_gguf_parts`: a [`GgufReply`]: the header's summary in `gg=` text
//!   form ([`vram_engine::llamacpp::GgufSummary::to_text`]), a projector's `mp=` text, how many
//!   bytes to send next, or why the file gives no model;
//! - `local_view`: a [`LocalView`], the run's answer and decode-speed chart as escaped markup in
//!   each of the page's languages.

mod chart;
mod header;
mod view;

pub use header::{header_reply, parts_reply, MAX_HEADER};
pub use view::local_reply;

use vram_messages::encode;
pub use vram_messages::{GgufReply, LocalMarkup, LocalView};
use vram_text::Lang;
use wasm_bindgen::prelude::wasm_bindgen;

/// The languages of a reply's texts, in the order it carries them.
pub const LANGS: [Lang; 2] = [Lang::En, Lang::Zh];

/// `header_reply` for the page: the first bytes of a picked file of `file_size` bytes.
#[wasm_bindgen]
pub fn read_gguf_header(bytes: &[u8], file_size: f64) -> Vec<u8> {
    encode(&header_reply(bytes, file_size as u64))
}

/// `parts_reply` for the Hub reader (`crates/readers`): `bytes` holds each part's first bytes one
/// after the other, `lengths[i]` of them for part i, a file of `sizes[i]` bytes.
#[wasm_bindgen]
pub fn read_gguf_parts(bytes: &[u8], lengths: &[f64], sizes: &[f64]) -> Vec<u8> {
    let mut parts = Vec::with_capacity(lengths.len());
    let mut rest = bytes;
    for &n in lengths {
        let (part, tail) = rest.split_at((n as usize).min(rest.len()));
        parts.push(part);
        rest = tail;
    }
    let sizes: Vec<u64> = sizes.iter().map(|&s| s as u64).collect();
    encode(&parts_reply(&parts, &sizes))
}

/// `local_reply` for the page: the page's whole query string.
#[wasm_bindgen]
pub fn local_view(query: &str) -> Vec<u8> {
    encode(&local_reply(query))
}
