//! A GGUF file's header from the Hub, in the engine's read order
//! (`vram_engine::hub::GgufPartsRead`: Range requests for growing prefixes of each part), each
//! answer handed to the llama.cpp module's GGUF reader (`vram_local_run::parts_reply`, the
//! reader of a picked file) until it has every part's header. Only the header is asked for; the
//! tensor data is never read.

use vram_engine::hub::{GgufPartsRead, GgufReadError, PartsNext};
use vram_engine::{hub::HubEndpoint, hub::HubSource};

use super::read::{drive, HubProblem};
use super::Fetch;

/// What the GGUF reader answers for the prefixes it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartsAnswer {
    /// Every header read: the model's summary in `gg=` text form.
    Summary(String),
    /// Read part `.0` to its first `.1` bytes.
    More(usize, u64),
    /// Why the files give no model, English then Chinese.
    Refused([String; 2]),
    /// An answer that is none of these (the module did not load).
    Broken,
}

impl PartsAnswer {
    /// The llama.cpp module's reply parts (`["gguf", text]`, `["more", bytes, part]`,
    /// `["error", en, zh]`).
    pub fn from_parts(parts: Vec<String>) -> PartsAnswer {
        match <[String; 3]>::try_from(parts) {
            Ok([kind, bytes, part]) if kind == "more" => match (part.parse(), bytes.parse()) {
                (Ok(part), Ok(bytes)) => PartsAnswer::More(part, bytes),
                _ => PartsAnswer::Broken,
            },
            Ok([kind, en, zh]) if kind == "error" => PartsAnswer::Refused([en, zh]),
            Ok(_) => PartsAnswer::Broken,
            Err(parts) => match <[String; 2]>::try_from(parts) {
                Ok([kind, text]) if kind == "gguf" => PartsAnswer::Summary(text),
                _ => PartsAnswer::Broken,
            },
        }
    }
}

/// The GGUF reader: each part's first bytes and each part's file size in, its answer out.
pub trait PartsReader {
    fn read(&self, parts: &[Vec<u8>], sizes: &[u64]) -> PartsAnswer;
}

/// A GGUF model read from the Hub.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufRead {
    /// Its summary, in `gg=` text form.
    pub summary: String,
    pub source: HubSource,
    /// The file's parts, in order.
    pub parts: Vec<String>,
    /// Bytes fetched in all, and the Range requests that fetched them.
    pub fetched: u64,
    pub requests: usize,
}

/// Reads the header of the GGUF file in `parts` (one path, or a split file's parts in order) of
/// the repository at `source`'s revision.
pub async fn read_gguf_file<F: Fetch, R: PartsReader>(
    fetch: &F,
    endpoint: &HubEndpoint,
    source: &HubSource,
    parts: &[String],
    reader: &R,
) -> Result<GgufRead, HubProblem> {
    let unread = || HubProblem::GgufUnread(parts.first().cloned().unwrap_or_default());
    let next = |bytes: &[Vec<u8>], sizes: &[u64]| match reader.read(bytes, sizes) {
        PartsAnswer::Summary(summary) => PartsNext::Done(summary),
        PartsAnswer::More(part, upto) => PartsNext::More { part, upto },
        PartsAnswer::Refused(said) => PartsNext::Refused(HubProblem::GgufRefused(said)),
        PartsAnswer::Broken => PartsNext::Refused(unread()),
    };
    let read = GgufPartsRead::new(
        endpoint.clone(),
        &source.repo,
        &source.revision,
        parts.to_vec(),
        next,
    );
    match drive(fetch, read).await {
        Ok(read) => Ok(GgufRead {
            summary: read.header,
            source: source.clone(),
            parts: parts.to_vec(),
            fetched: read.fetched,
            requests: read.requests,
        }),
        Err(GgufReadError::Fetch(f)) => Err(HubProblem::Fetch(f)),
        Err(GgufReadError::Unread) => Err(unread()),
        Err(GgufReadError::Refused(problem)) => Err(problem),
    }
}
