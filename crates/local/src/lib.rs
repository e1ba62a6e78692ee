//! The on-demand module of the llama.cpp / Ollama job: everything only a local run needs (the
//! GGUF reader and the header writer behind a `gg=` link, the run's plan, solver and speed, the
//! presets quantized as llama-quantize would, and the rendering of the answer with its tokens/s
//! chart). Trunk builds it, as the cdylib `crates/local-web`, into `dist/` beside the page and the
//! page imports it with a dynamic `import()` the first time a local run is shown
//! (`src/local_module.rs`), so none of it is in the first load.
//!
//! # Interface
//!
//! Each export takes plain JavaScript values and returns an array of strings whose first element
//! says what the rest is ([`Reply::into_parts`]):
//!
//! - `["gguf", summary]`: a picked file's header read, as the `gg=` text form
//!   ([`vram_engine::llamacpp::GgufSummary::to_text`]); the page reads it back with `from_text`;
//! - `["projector", text]`: a picked file that is a multimodal projector (`clip`), as the `mp=`
//!   text form ([`vram_engine::llamacpp::Projector::to_text`]);
//! - `["more", bytes]`: the header goes on past the bytes given: send the file's first `bytes`;
//!   from `read_gguf_parts`, `["more", bytes, part]`: send part `part`'s first `bytes`;
//! - `["local", results_en, chart_en, results_zh, chart_zh]`: a local run's answer and decode-speed
//!   chart as escaped markup, one pair per [`LANGS`] entry, so the page follows its language toggle
//!   without asking again;
//! - `["error", english, chinese]`: why the input gives nothing.

mod chart;
mod header;
mod view;

pub use header::{header_reply, parts_reply, MAX_HEADER};
pub use view::local_reply;

use vram_text::Lang;
use wasm_bindgen::prelude::wasm_bindgen;

/// The languages of a reply's texts, in the order it carries them.
pub const LANGS: [Lang; 2] = [Lang::En, Lang::Zh];

/// What the module gives the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A header's summary, in `gg=` text form.
    Gguf(String),
    /// A multimodal projector, in `mp=` text form.
    Projector(String),
    /// Read again with this many bytes from the file's start.
    More(u64),
    /// Read again with this many bytes from the start of this part (of a split model).
    MorePart(usize, u64),
    /// (results, chart) markup per entry of [`LANGS`].
    Local([(String, String); 2]),
    /// Why the input gives nothing: one sentence per entry of [`LANGS`].
    Error([String; 2]),
}

impl Reply {
    /// The array of strings the page receives: the kind first, then its text.
    pub fn into_parts(self) -> Vec<String> {
        match self {
            Reply::Gguf(text) => vec!["gguf".into(), text],
            Reply::Projector(text) => vec!["projector".into(), text],
            Reply::More(bytes) => vec!["more".into(), bytes.to_string()],
            Reply::MorePart(part, bytes) => {
                vec!["more".into(), bytes.to_string(), part.to_string()]
            }
            Reply::Local([(r_en, c_en), (r_zh, c_zh)]) => {
                vec!["local".into(), r_en, c_en, r_zh, c_zh]
            }
            Reply::Error([en, zh]) => vec!["error".into(), en, zh],
        }
    }
}

/// `header_reply` for the page: the first bytes of a picked file of `file_size` bytes.
#[wasm_bindgen]
pub fn read_gguf_header(bytes: &[u8], file_size: f64) -> Vec<String> {
    header_reply(bytes, file_size as u64).into_parts()
}

/// `parts_reply` for the Hub reader (`crates/readers`): `bytes` holds each part's first bytes one
/// after the other, `lengths[i]` of them for part i, a file of `sizes[i]` bytes.
#[wasm_bindgen]
pub fn read_gguf_parts(bytes: &[u8], lengths: &[f64], sizes: &[f64]) -> Vec<String> {
    let mut parts = Vec::with_capacity(lengths.len());
    let mut rest = bytes;
    for &n in lengths {
        let (part, tail) = rest.split_at((n as usize).min(rest.len()));
        parts.push(part);
        rest = tail;
    }
    let sizes: Vec<u64> = sizes.iter().map(|&s| s as u64).collect();
    parts_reply(&parts, &sizes).into_parts()
}

/// `local_reply` for the page: the page's whole query string.
#[wasm_bindgen]
pub fn local_view(query: &str) -> Vec<String> {
    local_reply(query).into_parts()
}
