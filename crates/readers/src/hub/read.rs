//! Reading a safetensors model from the Hub with the fewest bytes, in the CLI's order.

use vram_engine::{
    compare_with_config, gguf_entries, header_length, json_whole, parse_config, parse_json,
    parse_model_id, read_header_json, read_index, read_listing, size_weights, status_failure,
    Architecture, EngineError, FetchFailure, FileDifference, FileWeights, GgufEntry, HubEndpoint,
    HubError, HubRef, HubSource, IndexError, SafetensorsError, SafetensorsHeader, StoredWeights,
    WeightFiles, CONFIG_FILE, INDEX_FILE, MAX_CONFIG_BYTES, MAX_INDEX_BYTES, MAX_LISTING_BYTES,
    SAFETENSORS_LENGTH_PREFIX,
};

use super::{Fetch, Got};

/// A safetensors model read from the Hub.
#[derive(Clone, Debug, PartialEq)]
pub struct HubRead {
    /// The config's architecture, with the files' exact bytes when they hold a known format.
    pub arch: Architecture,
    pub source: HubSource,
    pub files: FileWeights,
    pub differences: Vec<FileDifference>,
    /// The shard files whose headers were read, in order.
    pub shards: Vec<String>,
    /// Bytes fetched in all: listing, config, index and headers.
    pub fetched: u64,
}

/// Why the model was not read.
#[derive(Clone, Debug, PartialEq)]
pub enum HubProblem {
    Id(HubError),
    Fetch(FetchFailure),
    Config(EngineError),
    Index(IndexError),
    Shard(String, SafetensorsError),
    /// A GGUF file's header could not be read (the reader stopped answering, or asked for
    /// more than a header holds).
    GgufUnread(String),
    /// The llama.cpp module's reason a GGUF file gives no model, English then Chinese.
    GgufRefused([String; 2]),
    /// Neither safetensors nor GGUF files at this revision.
    NoWeights(String),
}

impl From<FetchFailure> for HubProblem {
    fn from(f: FetchFailure) -> Self {
        HubProblem::Fetch(f)
    }
}

/// A GGUF repository: its model files to pick from, at the commit listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufRepo {
    pub source: HubSource,
    pub entries: Vec<GgufEntry>,
}

/// What a repository holds: a safetensors model read, or GGUF files to pick from.
#[derive(Clone, Debug, PartialEq)]
pub enum HubAnswer {
    Model(Box<HubRead>),
    Gguf(GgufRepo),
}

/// Reads the model `id` names from `endpoint`, or lists its GGUF files; `today` (`YYYY-MM-DD`)
/// dates the link.
pub async fn read_model<F: Fetch>(
    fetch: &F,
    endpoint: &HubEndpoint,
    id: &str,
    today: &str,
) -> Result<HubAnswer, HubProblem> {
    let asked = parse_model_id(id).map_err(HubProblem::Id)?;
    let reader = Reader {
        fetch,
        endpoint,
        repo: &asked.repo,
    };
    let listing_text = reader
        .text(&endpoint.model_files_url(&asked), MAX_LISTING_BYTES as u64)
        .await?;
    let listing = read_listing(&listing_text).map_err(HubProblem::Id)?;
    // the commit the revision resolved to pins every file read after the listing
    let pinned = HubRef {
        revision: listing.sha.clone().or(asked.revision.clone()),
        ..asked.clone()
    };
    let mut fetched = listing_text.len() as u64;
    let (shards, index_total) = match listing.weight_files() {
        WeightFiles::Index => {
            let text = reader
                .text(
                    &endpoint.file_url(&pinned, INDEX_FILE),
                    MAX_INDEX_BYTES as u64,
                )
                .await?;
            fetched += text.len() as u64;
            let index = read_index(&text).map_err(HubProblem::Index)?;
            (index.shards().to_vec(), index.total_size())
        }
        WeightFiles::Files(files) => (files, None),
        WeightFiles::Gguf(_) => {
            return Ok(HubAnswer::Gguf(GgufRepo {
                source: HubSource {
                    repo: pinned.repo.clone(),
                    revision: pinned.revision_or_main().to_string(),
                    read_on: today.to_string(),
                },
                entries: gguf_entries(&listing),
            }))
        }
        WeightFiles::Nothing => return Err(HubProblem::NoWeights(pinned.repo)),
    };
    let config = reader
        .text(
            &endpoint.file_url(&pinned, CONFIG_FILE),
            MAX_CONFIG_BYTES as u64,
        )
        .await?;
    fetched += config.len() as u64;
    let mut arch = parse_config(&config).map_err(HubProblem::Config)?;
    let mut headers = Vec::with_capacity(shards.len());
    for shard in &shards {
        let (header, bytes) = reader.shard_header(&pinned, shard).await?;
        fetched += bytes;
        headers.push(header);
    }
    let files = size_weights(
        headers.iter().flat_map(SafetensorsHeader::tensors),
        packed_bits(&config),
    );
    let differences = compare_with_config(&arch, &files, index_total);
    arch.stored = files.stored_format().map(|format| StoredWeights {
        format,
        bytes: files.weight_bytes(),
    });
    Ok(HubAnswer::Model(Box::new(HubRead {
        arch,
        source: HubSource {
            repo: pinned.repo.clone(),
            revision: pinned.revision_or_main().to_string(),
            read_on: today.to_string(),
        },
        files,
        differences,
        shards,
        fetched,
    })))
}

/// `quantization_config.bits` (GPTQ/AWQ), 4 when absent.
fn packed_bits(config: &str) -> u64 {
    parse_json(config)
        .ok()
        .and_then(|v| json_whole(v.get("quantization_config")?.get("bits")?))
        .unwrap_or(4)
}

pub(super) struct Reader<'a, F> {
    pub(super) fetch: &'a F,
    pub(super) endpoint: &'a HubEndpoint,
    pub(super) repo: &'a str,
}

impl<F: Fetch> Reader<'_, F> {
    /// A GET whose status is a success, else the failure it means.
    pub(super) async fn ok(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
        limit: u64,
    ) -> Result<Got, FetchFailure> {
        let got = self.fetch.get(url, range, limit).await?;
        match status_failure(got.status, self.repo, url, got.retry_after.as_deref()) {
            Some(f) => Err(f),
            None => Ok(got),
        }
    }

    /// A whole text file of at most `limit` bytes.
    async fn text(&self, url: &str, limit: u64) -> Result<String, FetchFailure> {
        let got = self.ok(url, None, limit).await?;
        if got.bytes.len() as u64 > limit {
            return Err(FetchFailure::TooLarge {
                url: url.to_string(),
                limit,
            });
        }
        Ok(String::from_utf8_lossy(&got.bytes).into_owned())
    }

    /// Exactly `len` bytes from `start` (a server that ignores Range sends the file from 0).
    async fn range(&self, url: &str, start: u64, len: u64) -> Result<Got, FetchFailure> {
        let mut got = self.ok(url, Some((start, len)), start + len).await?;
        if got.status != 206 {
            got.bytes.drain(..(start as usize).min(got.bytes.len()));
        }
        got.bytes.truncate(len as usize);
        if (got.bytes.len() as u64) < len {
            return Err(FetchFailure::Truncated {
                url: url.to_string(),
                expected: len,
                got: got.bytes.len() as u64,
            });
        }
        Ok(got)
    }

    /// One shard's header: its 8-byte length, then the header alone; the file's length checked
    /// when the server gives it.
    async fn shard_header(
        &self,
        r: &HubRef,
        shard: &str,
    ) -> Result<(SafetensorsHeader, u64), HubProblem> {
        let url = self.endpoint.file_url(r, shard);
        let what = |e| HubProblem::Shard(shard.to_string(), e);
        let first = self.range(&url, 0, SAFETENSORS_LENGTH_PREFIX).await?;
        let n = header_length(&first.bytes).map_err(what)?;
        let json = self.range(&url, SAFETENSORS_LENGTH_PREFIX, n).await?;
        let header = read_header_json(&json.bytes).map_err(what)?;
        if let Some(total) = json.total.or(first.total) {
            header.check_file_length(total).map_err(what)?;
        }
        Ok((header, SAFETENSORS_LENGTH_PREFIX + n))
    }
}
