//! A GGUF file's header from the Hub, in the engine's read order
//! (`vram_engine::hub::GgufPartsRead`: Range requests for growing prefixes of each part), each
//! answer handed to the llama.cpp module's GGUF reader (`vram_local_run::parts_reply`, the
//! reader of a picked file) until it has every part's header. Only the header is asked for; the
//! tensor data is never read.

use vram_engine::hub::{GgufPartsRead, GgufReadError, PartsNext};
use vram_engine::{hub::HubEndpoint, hub::HubSource};
use vram_messages::GgufReply;

use super::read::{drive, HubProblem};
use super::Fetch;

/// The GGUF reader: each part's first bytes and each part's file size in, its answer out (None
/// when it gave none: the module did not load).
pub trait PartsReader {
    fn read(&self, parts: &[Vec<u8>], sizes: &[u64]) -> Option<GgufReply>;
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
        Some(GgufReply::Gguf(summary)) => PartsNext::Done(summary),
        Some(GgufReply::MorePart { part, bytes }) => PartsNext::More {
            part: part as usize,
            upto: bytes,
        },
        Some(GgufReply::Error(said)) => PartsNext::Refused(HubProblem::GgufRefused(said)),
        _ => PartsNext::Refused(unread()),
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
