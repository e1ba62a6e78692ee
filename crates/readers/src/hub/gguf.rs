//! A GGUF file's header from the Hub: Range requests for growing prefixes of each part (24 bytes
//! first: magic, version and counts), each answer handed to the llama.cpp module's GGUF reader
//! (`vram_local_run::parts_reply`, the reader of a picked file) until it has every part's header.
//! Only the header is asked for; the tensor data is never read.

use vram_engine::{FetchFailure, HubEndpoint, HubRef, HubSource};

use super::read::{HubProblem, Reader};
use super::Fetch;

/// The most bytes asked of one part (the llama.cpp module stops at its own 256 MiB first).
const MAX_PART_BYTES: u64 = 256 << 20;

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
    let pinned = HubRef {
        repo: source.repo.clone(),
        revision: Some(source.revision.clone()),
        file: None,
    };
    let files = Reader {
        fetch,
        endpoint,
        repo: &source.repo,
    };
    let mut bytes: Vec<Vec<u8>> = vec![Vec::new(); parts.len()];
    // unknown until a part's first answer gives its length
    let mut sizes: Vec<u64> = vec![u64::MAX; parts.len()];
    let (mut fetched, mut requests) = (0u64, 0usize);
    let (mut part, mut want) = (0usize, 24u64);
    let unread = || HubProblem::GgufUnread(parts.first().cloned().unwrap_or_default());
    loop {
        let Some(have) = bytes.get(part).map(|b| b.len() as u64) else {
            return Err(unread());
        };
        if want <= have || want > MAX_PART_BYTES {
            return Err(unread());
        }
        let url = endpoint.file_url(&pinned, &parts[part]);
        let got = files.range_upto(&url, have, want - have).await?;
        requests += 1;
        fetched += got.bytes.len() as u64;
        sizes[part] = got.total.unwrap_or(sizes[part]);
        if (got.bytes.len() as u64) < want - have {
            sizes[part] = have + got.bytes.len() as u64;
        }
        bytes[part].extend_from_slice(&got.bytes);
        match reader.read(&bytes, &sizes) {
            PartsAnswer::Summary(summary) => {
                return Ok(GgufRead {
                    summary,
                    source: source.clone(),
                    parts: parts.to_vec(),
                    fetched,
                    requests,
                })
            }
            PartsAnswer::More(next_part, next) => (part, want) = (next_part, next),
            PartsAnswer::Refused(said) => return Err(HubProblem::GgufRefused(said)),
            PartsAnswer::Broken => return Err(unread()),
        }
    }
}

impl<F: Fetch> Reader<'_, F> {
    /// At most `len` bytes from `start` (fewer at the file's end).
    pub(super) async fn range_upto(
        &self,
        url: &str,
        start: u64,
        len: u64,
    ) -> Result<super::Got, FetchFailure> {
        let mut got = self.ok(url, Some((start, len)), start + len).await?;
        if got.status != 206 {
            got.bytes.drain(..(start as usize).min(got.bytes.len()));
        }
        got.bytes.truncate(len as usize);
        Ok(got)
    }
}
