//! A GGUF file's header from the Hub, in the page's read order: the entry chosen from the
//! repository's files grouped as the page groups them (`gguf_entries`), then each part in turn
//! read with Range requests for growing prefixes (24 bytes first: magic, version and counts;
//! then max(needed, 2 × read), as the page's reader asks), never past the cap, and the parts
//! joined into one model (`with_split_parts`).

use vram_engine::{
    choose_gguf_entry, gguf_entries, missing_split_parts, read_gguf, GgufChoice, GgufEntry,
    GgufError, GgufHeader, HubRef, RepoListing, MIB,
};
use vram_text::{fetch_failure, Lang};

use super::http::Client;

/// The first bytes asked of a part: the magic, version and the two counts.
const FIXED_HEADER: u64 = 24;
/// The most bytes asked of one part (vocabularies and templates stay far below).
const MAX_PART_BYTES: u64 = 256 * MIB;

/// A GGUF file read from the Hub: the joined header and what reading it took.
pub struct GgufRead {
    /// The first part's path, the name the plan shows.
    pub file: String,
    pub parts: Vec<String>,
    pub header: GgufHeader,
    /// Bytes fetched for the headers, and the Range requests that fetched them.
    pub fetched: u64,
    pub requests: usize,
}

/// Reads the header of the GGUF entry `wanted` names (a quantization or a file name).
pub fn read(
    client: &Client,
    r: &HubRef,
    listing: &RepoListing,
    wanted: Option<&str>,
) -> Result<GgufRead, String> {
    let entries = gguf_entries(listing);
    let entry = choose(&r.repo, listing, &entries, wanted)?;
    let (mut fetched, mut requests) = (0, 0);
    let mut headers = Vec::with_capacity(entry.parts.len());
    for part in &entry.parts {
        let read = part_header(client, r, part)?;
        fetched += read.fetched;
        requests += read.requests;
        headers.push(read.header);
    }
    let mut headers = headers.into_iter();
    let first = headers.next().ok_or("no GGUF part to read")?;
    let header = first
        .with_split_parts(&headers.collect::<Vec<_>>())
        .ok_or_else(|| {
            format!(
                "{}: its parts repeat a tensor; they are not one split model",
                entry.name()
            )
        })?;
    Ok(GgufRead {
        file: entry.name().to_string(),
        parts: entry.parts.clone(),
        header,
        fetched,
        requests,
    })
}

/// The entry asked for, or a line that lists what is there.
fn choose<'a>(
    repo: &str,
    listing: &RepoListing,
    entries: &'a [GgufEntry],
    wanted: Option<&str>,
) -> Result<&'a GgufEntry, String> {
    let names = |found: &[&GgufEntry]| {
        found
            .iter()
            .map(|e| described(e))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (choose_gguf_entry(entries, wanted), wanted) {
        (GgufChoice::One(entry), _) => Ok(entry),
        (GgufChoice::Several(found), Some(w)) => Err(format!(
            "{repo}: {w:?} fits {} GGUF files; name one with --hf-file: {}",
            found.len(),
            names(&found)
        )),
        (_, Some(w)) => {
            let part = listing.gguf_files().into_iter().find(|f| f.contains(w));
            let missing = part
                .as_deref()
                .map_or(Vec::new(), |p| missing_split_parts(listing, p));
            match (part, missing.is_empty()) {
                (Some(p), false) => Err(format!(
                    "{p} is part of a split GGUF whose other parts are not all in {repo}: {} missing",
                    missing.join(", ")
                )),
                _ => Err(format!(
                    "{repo} has no GGUF file matching {w:?}; it has: {}",
                    names(&entries.iter().collect::<Vec<_>>())
                )),
            }
        }
        (_, None) => Err(format!("{repo} has no GGUF model files")),
    }
}

/// An entry as a list shows it: its first file, and its part count when split.
fn described(entry: &GgufEntry) -> String {
    match entry.parts.len() {
        1 => entry.name().to_string(),
        n => format!("{} ({n} parts)", entry.name()),
    }
}

/// One part's header, and what reading it took.
struct PartRead {
    header: GgufHeader,
    fetched: u64,
    requests: usize,
}

/// One part's header from growing prefixes; each request starts where the last one ended.
fn part_header(client: &Client, r: &HubRef, part: &str) -> Result<PartRead, String> {
    let url = client.endpoint().file_url(r, part);
    let mut bytes: Vec<u8> = Vec::new();
    let (mut want, mut size, mut requests) = (FIXED_HEADER, u64::MAX, 0);
    loop {
        let have = bytes.len() as u64;
        let more = client
            .range_upto(&r.repo, &url, have, want - have)
            .map_err(|f| fetch_failure(Lang::En, &f))?;
        requests += 1;
        size = more.total.unwrap_or(size);
        if (more.bytes.len() as u64) < want - have {
            size = have + more.bytes.len() as u64;
        }
        bytes.extend_from_slice(&more.bytes);
        let have = bytes.len() as u64;
        match read_gguf(&bytes) {
            Ok(header) => {
                return Ok(PartRead {
                    header,
                    fetched: have,
                    requests,
                })
            }
            Err(GgufError::NeedMoreBytes { needed }) if needed > MAX_PART_BYTES => {
                return Err(format!(
                    "{part}: the GGUF header is longer than {} MiB",
                    MAX_PART_BYTES / MIB
                ))
            }
            Err(GgufError::NeedMoreBytes { .. }) if have >= size => {
                return Err(format!("{part}: the file ends inside its GGUF header"))
            }
            Err(GgufError::NeedMoreBytes { needed }) => {
                want = needed.max(2 * have).min(MAX_PART_BYTES).min(size);
            }
            Err(e) => return Err(format!("{part}: {e}")),
        }
    }
}
