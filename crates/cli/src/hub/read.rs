//! Reading a model from the Hub with the fewest bytes: the file list, config.json, the index,
//! and each shard's header (8 bytes, then the header alone), or a GGUF file's header (`gguf`).

use vram_engine::{
    compare_with_config, header_length, json_whole, parse_config, parse_json, read_header_json,
    read_index, read_listing, size_weights, Architecture, FetchFailure, FileDifference,
    FileWeights, HubRef, RepoListing, SafetensorsHeader, WeightFiles, CONFIG_FILE, INDEX_FILE,
    MAX_CONFIG_BYTES, MAX_INDEX_BYTES, MAX_LISTING_BYTES, SAFETENSORS_LENGTH_PREFIX,
};
use vram_text::{fetch_failure, hub_error, index_error, safetensors_error, Lang};

use super::gguf::{self, GgufRead};
use super::http::Client;

/// A safetensors model read from the Hub.
pub struct Checkpoint {
    pub arch: Architecture,
    pub files: FileWeights,
    pub differences: Vec<FileDifference>,
    /// The shard files read, in order.
    pub shards: Vec<String>,
    /// Bytes fetched in all: listing, config, index and headers.
    pub fetched: u64,
}

/// What the repository gave.
pub enum Model {
    Safetensors(Box<Checkpoint>),
    Gguf(Box<GgufRead>),
}

fn failed(f: FetchFailure) -> String {
    fetch_failure(Lang::En, &f)
}

/// The repository's files at the reference's revision; the commit it resolved to pins the rest.
pub fn listing(client: &Client, r: &HubRef) -> Result<(RepoListing, u64), String> {
    let url = client.endpoint().model_files_url(r);
    let text = client
        .text(&r.repo, &url, MAX_LISTING_BYTES as u64)
        .map_err(failed)?;
    let listing = read_listing(&text).map_err(|e| hub_error(Lang::En, &e))?;
    Ok((listing, text.len() as u64))
}

/// Reads the model: a GGUF when one was asked for or nothing else is there, else safetensors.
pub fn model(
    client: &Client,
    r: &HubRef,
    listing: &RepoListing,
    gguf_wanted: Option<&str>,
) -> Result<Model, String> {
    let wants_gguf = gguf_wanted.is_some_and(|w| w.to_ascii_lowercase().ends_with(".gguf"))
        || r.file.as_deref().is_some_and(|f| f.ends_with(".gguf"));
    let wanted = gguf_wanted.or(r.file.as_deref());
    let read_gguf = || gguf::read(client, r, listing, wanted).map(|g| Model::Gguf(Box::new(g)));
    match listing.weight_files() {
        WeightFiles::Gguf(_) => read_gguf(),
        _ if wants_gguf => read_gguf(),
        WeightFiles::Index => {
            let url = client.endpoint().file_url(r, INDEX_FILE);
            let text = client
                .text(&r.repo, &url, MAX_INDEX_BYTES as u64)
                .map_err(failed)?;
            let index = read_index(&text)
                .map_err(|e| format!("{INDEX_FILE}: {}", index_error(Lang::En, &e)))?;
            let mut c = safetensors(client, r, index.shards(), index.total_size())?;
            c.fetched += text.len() as u64;
            Ok(Model::Safetensors(Box::new(c)))
        }
        WeightFiles::Files(files) => Ok(Model::Safetensors(Box::new(safetensors(
            client, r, &files, None,
        )?))),
        WeightFiles::Nothing => Err(format!(
            "{} has no safetensors or GGUF files at this revision",
            r.repo
        )),
    }
}

fn safetensors(
    client: &Client,
    r: &HubRef,
    shards: &[String],
    index_total: Option<u64>,
) -> Result<Checkpoint, String> {
    let url = client.endpoint().file_url(r, CONFIG_FILE);
    let config = client
        .text(&r.repo, &url, MAX_CONFIG_BYTES as u64)
        .map_err(failed)?;
    let arch = parse_config(&config)
        .map_err(|e| format!("{CONFIG_FILE}: {}", vram_text::error(Lang::En, &e)))?;
    let bits = packed_bits(&config);
    let mut fetched = config.len() as u64;
    let mut headers = Vec::with_capacity(shards.len());
    for shard in shards {
        let (header, bytes) = shard_header(client, r, shard)?;
        fetched += bytes;
        headers.push(header);
    }
    let files = size_weights(headers.iter().flat_map(SafetensorsHeader::tensors), bits);
    let differences = compare_with_config(&arch, &files, index_total);
    Ok(Checkpoint {
        arch,
        files,
        differences,
        shards: shards.to_vec(),
        fetched,
    })
}

/// `quantization_config.bits` (GPTQ/AWQ), 4 when absent.
fn packed_bits(config: &str) -> u64 {
    parse_json(config)
        .ok()
        .and_then(|v| json_whole(v.get("quantization_config")?.get("bits")?))
        .unwrap_or(4)
}

/// One shard's header: its 8-byte length, then the header alone; the file's length checked
/// when the server gives it.
fn shard_header(
    client: &Client,
    r: &HubRef,
    shard: &str,
) -> Result<(SafetensorsHeader, u64), String> {
    let url = client.endpoint().file_url(r, shard);
    let what = |e| safetensors_error(Lang::En, shard, &e);
    let first = client
        .range(&r.repo, &url, 0, SAFETENSORS_LENGTH_PREFIX)
        .map_err(failed)?;
    let n = header_length(&first.bytes).map_err(what)?;
    let json = client
        .range(&r.repo, &url, SAFETENSORS_LENGTH_PREFIX, n)
        .map_err(failed)?;
    let header = read_header_json(&json.bytes).map_err(what)?;
    if let Some(total) = json.total.or(first.total) {
        header.check_file_length(total).map_err(what)?;
    }
    Ok((header, SAFETENSORS_LENGTH_PREFIX + n))
}
