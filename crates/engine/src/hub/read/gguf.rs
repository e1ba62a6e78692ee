//! A GGUF file's header from the Hub, never its tensor data: each part read with Range requests
//! for growing prefixes, 24 bytes first (magic, version and the two counts), each request
//! starting where the last one ended. After each answer a reader of the parts' prefixes says
//! what comes next: the header, more of one part, or why not. The CLI reads with
//! [`read_gguf_parts`]; the page hands the bytes to its llama.cpp module.

use super::{FetchFailure, Get, Got, HubRead, Step};
use crate::gguf::{read_gguf, GgufError, GgufHeader};
use crate::hub::{HubEndpoint, HubRef};

/// The first bytes asked of a part: the magic, version and the two counts.
pub const FIRST_READ: u64 = 24;
/// The most bytes asked of one part (vocabularies and chat templates stay far below).
pub const MAX_PART_BYTES: u64 = 256 << 20;

/// What a reader of the parts' prefixes says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartsNext<T, E> {
    /// Every part's header read, joined.
    Done(T),
    /// Read part `part` to its first `upto` bytes.
    More {
        part: usize,
        upto: u64,
    },
    Refused(E),
}

/// A GGUF header read from the Hub, and what reading it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartsRead<T> {
    pub header: T,
    /// Bytes fetched, and the Range requests that fetched them.
    pub fetched: u64,
    pub requests: usize,
}

/// Why a GGUF header was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GgufReadError<E> {
    Fetch(FetchFailure),
    /// The reader asked for nothing new, or for more than a header holds.
    Unread,
    Refused(E),
}

/// The read of a GGUF file's header: its parts (one path, or a split file's parts in order) at
/// a pinned revision, and the reader of their prefixes.
pub struct GgufPartsRead<D> {
    endpoint: HubEndpoint,
    pinned: HubRef,
    parts: Vec<String>,
    bytes: Vec<Vec<u8>>,
    /// Each part's length: unknown (`u64::MAX`) until an answer gives it.
    sizes: Vec<u64>,
    fetched: u64,
    requests: usize,
    /// The part being read, and the GET asked for it.
    asking: Option<(usize, Get)>,
    reader: D,
}

impl<D, T, E> GgufPartsRead<D>
where
    D: FnMut(&[Vec<u8>], &[u64]) -> PartsNext<T, E>,
{
    pub fn new(
        endpoint: HubEndpoint,
        repo: &str,
        revision: &str,
        parts: Vec<String>,
        reader: D,
    ) -> Self {
        let n = parts.len();
        GgufPartsRead {
            endpoint,
            pinned: HubRef {
                repo: repo.to_string(),
                revision: Some(revision.to_string()),
                file: None,
            },
            parts,
            bytes: vec![Vec::new(); n],
            sizes: vec![u64::MAX; n],
            fetched: 0,
            requests: 0,
            asking: None,
            reader,
        }
    }

    /// The GET for part `part` up to `upto` bytes, from where its bytes end.
    fn ask(&mut self, part: usize, upto: u64) -> Step<Result<PartsRead<T>, GgufReadError<E>>> {
        let have = match self.bytes.get(part) {
            Some(b) => b.len() as u64,
            None => return Step::Done(Err(GgufReadError::Unread)),
        };
        if upto <= have || upto > MAX_PART_BYTES {
            return Step::Done(Err(GgufReadError::Unread));
        }
        let url = self.endpoint.file_url(&self.pinned, &self.parts[part]);
        let get = Get::range(url, have, upto - have);
        self.asking = Some((part, get.clone()));
        Step::Get(get)
    }

    /// The answer for the part asked for, then the reader's word on all of them.
    fn read(&mut self, got: Result<Got, FetchFailure>) -> Result<PartsNext<T, E>, FetchFailure> {
        let (part, get) = self.asking.take().expect("an answer follows a GET");
        let (have, len) = get.range.expect("a part is read by ranges");
        let got = get.body(&self.pinned.repo, got)?;
        self.requests += 1;
        self.fetched += got.bytes.len() as u64;
        self.sizes[part] = got.total.unwrap_or(self.sizes[part]);
        // a short answer is the file's end
        if (got.bytes.len() as u64) < len {
            self.sizes[part] = have + got.bytes.len() as u64;
        }
        self.bytes[part].extend_from_slice(&got.bytes);
        Ok((self.reader)(&self.bytes, &self.sizes))
    }
}

impl<D, T, E> HubRead for GgufPartsRead<D>
where
    D: FnMut(&[Vec<u8>], &[u64]) -> PartsNext<T, E>,
{
    type Answer = Result<PartsRead<T>, GgufReadError<E>>;

    fn start(&mut self) -> Step<Self::Answer> {
        self.ask(0, FIRST_READ)
    }

    fn answer(&mut self, got: Result<Got, FetchFailure>) -> Step<Self::Answer> {
        match self.read(got) {
            Ok(PartsNext::Done(header)) => Step::Done(Ok(PartsRead {
                header,
                fetched: self.fetched,
                requests: self.requests,
            })),
            Ok(PartsNext::More { part, upto }) => self.ask(part, upto),
            Ok(PartsNext::Refused(e)) => Step::Done(Err(GgufReadError::Refused(e))),
            Err(f) => Step::Done(Err(GgufReadError::Fetch(f))),
        }
    }
}

/// Why the parts give no header (`part` counts from 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GgufPartsError {
    /// The header is longer than [`MAX_PART_BYTES`].
    TooLong {
        part: usize,
    },
    /// The file ends inside its header.
    EndsInHeader {
        part: usize,
    },
    Unreadable {
        part: usize,
        error: GgufError,
    },
    /// The parts repeat a tensor: they are not one split model.
    NotOneModel,
}

/// The engine's reader of the parts' prefixes: each part's header in turn, more of the first
/// part that needs it (what it needs, at least twice what it has, capped at the file's length),
/// then the parts joined into one header.
pub fn read_gguf_parts(parts: &[Vec<u8>], sizes: &[u64]) -> PartsNext<GgufHeader, GgufPartsError> {
    let mut headers = Vec::with_capacity(parts.len());
    for (part, (bytes, &size)) in parts.iter().zip(sizes).enumerate() {
        let have = bytes.len() as u64;
        match read_gguf(bytes) {
            Ok(header) => headers.push(header),
            Err(GgufError::NeedMoreBytes { needed }) if needed > MAX_PART_BYTES => {
                return PartsNext::Refused(GgufPartsError::TooLong { part })
            }
            Err(GgufError::NeedMoreBytes { .. }) if have >= size => {
                return PartsNext::Refused(GgufPartsError::EndsInHeader { part })
            }
            Err(GgufError::NeedMoreBytes { needed }) => {
                let upto = needed.max(2 * have).max(FIRST_READ);
                return PartsNext::More {
                    part,
                    upto: upto.min(MAX_PART_BYTES).min(size),
                };
            }
            Err(error) => return PartsNext::Refused(GgufPartsError::Unreadable { part, error }),
        }
    }
    let mut headers = headers.into_iter();
    match headers.next() {
        Some(first) => match first.with_split_parts(&headers.collect::<Vec<_>>()) {
            Some(joined) => PartsNext::Done(joined),
            None => PartsNext::Refused(GgufPartsError::NotOneModel),
        },
        None => PartsNext::Refused(GgufPartsError::NotOneModel),
    }
}
