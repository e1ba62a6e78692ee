//! A model read with the fewest bytes: the repository's file list (the commit it lists pins every
//! later read), then for safetensors the index when there is one, config.json, and each shard's
//! header (its 8-byte length, then the header alone); a GGUF repository stops at the list.

use super::{source, FetchFailure, Get, Got, HubRead, Step};
use crate::config::{parse_config, MAX_CONFIG_BYTES};
use crate::error::EngineError;
use crate::hub::{
    parse_model_id, read_listing, HubEndpoint, HubError, HubRef, HubSource, RepoListing,
    WeightFiles, CONFIG_FILE, INDEX_FILE, MAX_LISTING_BYTES,
};
use crate::model::{Architecture, StoredWeights};
use crate::safetensors::{
    compare_with_config, header_length, read_header_json, read_index, size_weights, FileDifference,
    FileWeights, IndexError, SafetensorsError, SafetensorsHeader, LENGTH_PREFIX, MAX_INDEX_BYTES,
};

/// Why a model was not read.
#[derive(Clone, Debug, PartialEq)]
pub enum HubReadError {
    /// Not a model id, or a file list that cannot be read.
    Id(HubError),
    Fetch(FetchFailure),
    Config(EngineError),
    Index(IndexError),
    /// A shard's header (the shard's file name, why).
    Shard(String, SafetensorsError),
    /// Neither safetensors nor GGUF files at this revision (the repository).
    NoWeights(String),
}

impl From<FetchFailure> for HubReadError {
    fn from(f: FetchFailure) -> Self {
        HubReadError::Fetch(f)
    }
}

/// A safetensors model read from its files.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointRead {
    /// The config's architecture, with the files' exact bytes when they hold a known format.
    pub arch: Architecture,
    /// The repository at the commit its file list gave, and the day it was read.
    pub source: HubSource,
    pub files: FileWeights,
    pub differences: Vec<FileDifference>,
    /// The shard files whose headers were read, in order.
    pub shards: Vec<String>,
    /// Bytes fetched in all: file list, index, config and headers.
    pub fetched: u64,
}

/// A GGUF repository's file list, to choose a file from.
#[derive(Clone, Debug, PartialEq)]
pub struct GgufListing {
    /// The repository at the commit its file list gave (and the file its URL named, if any).
    pub pinned: HubRef,
    /// The same, and the day it was read.
    pub source: HubSource,
    pub listing: RepoListing,
}

/// What a repository gave.
#[derive(Clone, Debug, PartialEq)]
pub enum RepoRead {
    Checkpoint(Box<CheckpointRead>),
    Gguf(Box<GgufListing>),
}

/// The read of the model a model id (or Hub URL) names.
pub struct ModelRead {
    endpoint: HubEndpoint,
    asked: Result<HubRef, HubError>,
    read_on: String,
    gguf_wanted: bool,
    /// The GET asked for last, and what its answer is for.
    asking: Option<(Get, Want)>,
    pinned: HubRef,
    fetched: u64,
    shards: Vec<String>,
    index_total: Option<u64>,
    arch: Option<Architecture>,
    packed_bits: u64,
    headers: Vec<SafetensorsHeader>,
}

/// What an answer is read as.
#[derive(Clone, Copy)]
enum Want {
    Listing,
    Index,
    Config,
    /// Shard `.0`'s 8-byte header length.
    Length(usize),
    /// Shard `.0`'s header, and the file length the first read gave.
    Header(usize, Option<u64>),
}

impl ModelRead {
    /// Reads `id` from `endpoint` on the day `read_on` (`YYYY-MM-DD`, which dates the link).
    pub fn new(endpoint: HubEndpoint, id: &str, read_on: &str) -> ModelRead {
        ModelRead {
            endpoint,
            asked: parse_model_id(id),
            read_on: read_on.to_string(),
            gguf_wanted: false,
            asking: None,
            pinned: HubRef {
                repo: String::new(),
                revision: None,
                file: None,
            },
            fetched: 0,
            shards: Vec::new(),
            index_total: None,
            arch: None,
            packed_bits: 4,
            headers: Vec::new(),
        }
    }

    /// With `wanted` (or when the id's URL names a `.gguf` file), a repository that also holds
    /// safetensors answers with its GGUF files.
    pub fn wanting_gguf(mut self, wanted: bool) -> ModelRead {
        self.gguf_wanted = wanted;
        self
    }

    fn ask(&mut self, get: Get, want: Want) -> Step<Result<RepoRead, HubReadError>> {
        self.asking = Some((get.clone(), want));
        Step::Get(get)
    }

    fn file(
        &mut self,
        name: &str,
        limit: usize,
        want: Want,
    ) -> Step<Result<RepoRead, HubReadError>> {
        let url = self.endpoint.file_url(&self.pinned, name);
        self.ask(Get::text(url, limit as u64), want)
    }

    /// The file list read: the index, config.json, or the GGUF files.
    fn listed(&mut self, text: &str) -> Result<Step<Result<RepoRead, HubReadError>>, HubReadError> {
        let listing = read_listing(text).map_err(HubReadError::Id)?;
        let asked = self.asked.clone().map_err(HubReadError::Id)?;
        self.pinned = HubRef {
            revision: listing.sha.clone().or(asked.revision.clone()),
            ..asked
        };
        let names_gguf = self
            .pinned
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with(".gguf"));
        let gguf = || {
            Ok(Step::Done(Ok(RepoRead::Gguf(Box::new(GgufListing {
                pinned: self.pinned.clone(),
                source: source(&self.pinned, &self.read_on),
                listing: listing.clone(),
            })))))
        };
        match listing.weight_files() {
            WeightFiles::Gguf(_) => gguf(),
            _ if self.gguf_wanted || names_gguf => gguf(),
            WeightFiles::Index => Ok(self.file(INDEX_FILE, MAX_INDEX_BYTES, Want::Index)),
            WeightFiles::Files(files) => {
                self.shards = files;
                Ok(self.file(CONFIG_FILE, MAX_CONFIG_BYTES, Want::Config))
            }
            WeightFiles::Nothing => Err(HubReadError::NoWeights(self.pinned.repo.clone())),
        }
    }

    /// The next shard's length, or the model when every header is read.
    fn next_shard(&mut self) -> Step<Result<RepoRead, HubReadError>> {
        let i = self.headers.len();
        match self.shards.get(i) {
            Some(shard) => {
                let url = self.endpoint.file_url(&self.pinned, shard);
                self.ask(Get::range(url, 0, LENGTH_PREFIX), Want::Length(i))
            }
            None => Step::Done(Ok(RepoRead::Checkpoint(Box::new(self.checkpoint())))),
        }
    }

    fn checkpoint(&mut self) -> CheckpointRead {
        let files = size_weights(
            self.headers.iter().flat_map(SafetensorsHeader::tensors),
            self.packed_bits,
        );
        let mut arch = self
            .arch
            .take()
            .expect("config.json is read before the shards");
        let differences = compare_with_config(&arch, &files, self.index_total);
        arch.stored = files.stored_format().map(|format| StoredWeights {
            format,
            bytes: files.weight_bytes(),
        });
        CheckpointRead {
            arch,
            source: source(&self.pinned, &self.read_on),
            files,
            differences,
            shards: std::mem::take(&mut self.shards),
            fetched: self.fetched,
        }
    }

    /// A whole text file's answer, counted in the bytes fetched.
    fn text(&mut self, get: &Get, got: Result<Got, FetchFailure>) -> Result<String, HubReadError> {
        let body = get.body(&self.pinned.repo, got)?;
        self.fetched += body.bytes.len() as u64;
        Ok(String::from_utf8_lossy(&body.bytes).into_owned())
    }

    fn shard_error(&self, i: usize, e: SafetensorsError) -> HubReadError {
        HubReadError::Shard(self.shards[i].clone(), e)
    }

    fn read(
        &mut self,
        get: &Get,
        want: Want,
        got: Result<Got, FetchFailure>,
    ) -> Result<Step<Result<RepoRead, HubReadError>>, HubReadError> {
        match want {
            Want::Listing => {
                let text = self.text(get, got)?;
                self.listed(&text)
            }
            Want::Index => {
                let text = self.text(get, got)?;
                let index = read_index(&text).map_err(HubReadError::Index)?;
                self.shards = index.shards().to_vec();
                self.index_total = index.total_size();
                Ok(self.file(CONFIG_FILE, MAX_CONFIG_BYTES, Want::Config))
            }
            Want::Config => {
                let text = self.text(get, got)?;
                self.arch = Some(parse_config(&text).map_err(HubReadError::Config)?);
                self.packed_bits = packed_bits(&text);
                Ok(self.next_shard())
            }
            Want::Length(i) => {
                let body = get.exact(&self.pinned.repo, got)?;
                let n = header_length(&body.bytes).map_err(|e| self.shard_error(i, e))?;
                let header = Get::range(get.url.clone(), LENGTH_PREFIX, n);
                Ok(self.ask(header, Want::Header(i, body.total)))
            }
            Want::Header(i, first_total) => {
                let body = get.exact(&self.pinned.repo, got)?;
                let header = read_header_json(&body.bytes).map_err(|e| self.shard_error(i, e))?;
                if let Some(total) = body.total.or(first_total) {
                    header
                        .check_file_length(total)
                        .map_err(|e| self.shard_error(i, e))?;
                }
                self.fetched += LENGTH_PREFIX + body.bytes.len() as u64;
                self.headers.push(header);
                Ok(self.next_shard())
            }
        }
    }
}

impl HubRead for ModelRead {
    type Answer = Result<RepoRead, HubReadError>;

    fn start(&mut self) -> Step<Self::Answer> {
        match &self.asked {
            Ok(asked) => {
                let url = self.endpoint.model_files_url(asked);
                self.pinned.repo = asked.repo.clone();
                self.ask(Get::text(url, MAX_LISTING_BYTES as u64), Want::Listing)
            }
            Err(e) => Step::Done(Err(HubReadError::Id(e.clone()))),
        }
    }

    fn answer(&mut self, got: Result<Got, FetchFailure>) -> Step<Self::Answer> {
        let (get, want) = self.asking.take().expect("an answer follows a GET");
        self.read(&get, want, got)
            .unwrap_or_else(|e| Step::Done(Err(e)))
    }
}

/// `quantization_config.bits` (GPTQ/AWQ), 4 when absent.
fn packed_bits(config: &str) -> u64 {
    crate::json::parse(config)
        .ok()
        .and_then(|v| v.get("quantization_config")?.get("bits")?.as_u64())
        .unwrap_or(4)
}
