//! The Hub's read order, written once and without I/O. A read is a step machine: it asks for one
//! GET at a time ([`Get`]: a URL, a byte range, a size limit), and the shell fetches it and hands
//! back what came ([`Got`]) or why nothing did. The CLI drives it with a blocking client, the
//! page with the browser's `fetch`; both follow redirects and send the token themselves.
//!
//! Two reads: [`ModelRead`] (the file list, then the index, config.json and two Range reads per
//! safetensors shard; or, for a GGUF repository, the list to choose from) and [`GgufPartsRead`]
//! (a GGUF file's header, each part read with Range requests for growing prefixes).

mod gguf;
mod model;

pub use gguf::{
    read_gguf_parts, GgufPartsError, GgufPartsRead, GgufReadError, PartsNext, PartsRead,
    FIRST_READ, MAX_PART_BYTES,
};
pub use model::{CheckpointRead, GgufListing, HubReadError, ModelRead, RepoRead};

use super::{status_failure, FetchFailure, HubRef, HubSource};

/// One GET a read asks for: `range` is `(start, len)`; a body over `limit` bytes need not be
/// read past `limit + 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Get {
    pub url: String,
    pub range: Option<(u64, u64)>,
    pub limit: u64,
}

/// What a GET gave, redirects followed: its status, its body (at most `limit + 1` bytes), the
/// whole file's length when a `Content-Range` said it, and `Retry-After` on a 429.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Got {
    pub status: u16,
    pub bytes: Vec<u8>,
    pub total: Option<u64>,
    pub retry_after: Option<String>,
}

/// What a read does next: ask for a GET, or stop with its answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Step<T> {
    Get(Get),
    Done(T),
}

/// A read, driven by a shell: `start`, then `answer` each GET until it is done.
pub trait HubRead {
    type Answer;
    /// The first step.
    fn start(&mut self) -> Step<Self::Answer>;
    /// The next step, given what the last GET gave.
    fn answer(&mut self, got: Result<Got, FetchFailure>) -> Step<Self::Answer>;
}

impl Get {
    /// A whole file of at most `limit` bytes.
    fn text(url: String, limit: u64) -> Get {
        Get {
            url,
            range: None,
            limit,
        }
    }

    /// `len` bytes from `start` (a server that ignores Range sends the file from byte 0).
    fn range(url: String, start: u64, len: u64) -> Get {
        Get {
            url,
            range: Some((start, len)),
            limit: start + len,
        }
    }

    /// The answer's body, or the failure its status or size means: a text over its limit is
    /// `TooLarge`; a range is cut to what was asked (a plain 200 skips to the range's start).
    fn body(&self, repo: &str, got: Result<Got, FetchFailure>) -> Result<Got, FetchFailure> {
        let mut got = got?;
        let retry = got.retry_after.as_deref();
        if let Some(f) = status_failure(got.status, repo, &self.url, retry) {
            return Err(f);
        }
        match self.range {
            None if got.bytes.len() as u64 > self.limit => Err(FetchFailure::TooLarge {
                url: self.url.clone(),
                limit: self.limit,
            }),
            None => Ok(got),
            Some((start, len)) => {
                if got.status != 206 {
                    got.bytes.drain(..(start as usize).min(got.bytes.len()));
                }
                got.bytes.truncate(len as usize);
                Ok(got)
            }
        }
    }

    /// The body of a range that must come whole, else `Truncated`.
    fn exact(&self, repo: &str, got: Result<Got, FetchFailure>) -> Result<Got, FetchFailure> {
        let got = self.body(repo, got)?;
        let expected = self.range.map_or(0, |(_, len)| len);
        match (got.bytes.len() as u64) < expected {
            true => Err(FetchFailure::Truncated {
                url: self.url.clone(),
                expected,
                got: got.bytes.len() as u64,
            }),
            false => Ok(got),
        }
    }
}

/// Where a model read at `pinned` came from, read on `read_on` (`YYYY-MM-DD`).
fn source(pinned: &HubRef, read_on: &str) -> HubSource {
    HubSource {
        repo: pinned.repo.clone(),
        revision: pinned.revision_or_main().to_string(),
        read_on: read_on.to_string(),
    }
}

#[cfg(test)]
mod tests;
