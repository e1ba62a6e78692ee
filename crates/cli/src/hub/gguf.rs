//! A GGUF file's header from the Hub: the entry chosen from the repository's files grouped as
//! the page groups them (`gguf_entries`), then its parts read in the engine's order
//! (`vram_engine::hub::GgufPartsRead`, with the engine's reader of their prefixes) and joined
//! into one model.

use vram_engine::hub::{
    read_gguf_parts, GgufListing, GgufPartsError, GgufPartsRead, GgufReadError, MAX_PART_BYTES,
};
use vram_engine::{
    hub::choose_gguf_entry, hub::gguf_entries, hub::missing_split_parts, hub::GgufChoice,
    hub::GgufEntry, hub::RepoListing, llamacpp::GgufHeader,
};
use vram_text::{fetch_failure, gguf_unread, Lang};

use super::http::Client;

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
    listed: &GgufListing,
    wanted: Option<&str>,
) -> Result<GgufRead, String> {
    let (r, listing) = (&listed.pinned, &listed.listing);
    let entries = gguf_entries(listing);
    let entry = choose(&r.repo, listing, &entries, wanted)?;
    let parts = GgufPartsRead::new(
        client.endpoint().clone(),
        &r.repo,
        r.revision_or_main(),
        entry.parts.clone(),
        read_gguf_parts,
    );
    let read = client.drive(parts).map_err(|e| refused(entry, &e))?;
    Ok(GgufRead {
        file: entry.name().to_string(),
        parts: entry.parts.clone(),
        header: read.header,
        fetched: read.fetched,
        requests: read.requests,
    })
}

/// Why the entry's header was not read, in one line that names the part.
fn refused(entry: &GgufEntry, e: &GgufReadError<GgufPartsError>) -> String {
    match e {
        GgufReadError::Fetch(f) => fetch_failure(Lang::En, f),
        GgufReadError::Unread => gguf_unread(Lang::En, entry.name()),
        GgufReadError::Refused(e @ GgufPartsError::NotOneModel) => gguf_refused(entry.name(), e),
        GgufReadError::Refused(
            e @ (GgufPartsError::TooLong { part }
            | GgufPartsError::EndsInHeader { part }
            | GgufPartsError::Unreadable { part, .. }),
        ) => gguf_refused(&entry.parts[*part], e),
    }
}

/// Why a GGUF file (or a split model's part) gives no header, in one line that names it.
pub fn gguf_refused(file: &str, e: &GgufPartsError) -> String {
    match e {
        GgufPartsError::TooLong { .. } => format!(
            "{file}: the GGUF header is longer than {} MiB",
            MAX_PART_BYTES >> 20
        ),
        GgufPartsError::EndsInHeader { .. } => {
            format!("{file}: the file ends inside its GGUF header")
        }
        GgufPartsError::Unreadable { error, .. } => format!("{file}: {error}"),
        GgufPartsError::NotOneModel => {
            format!("{file}: its parts repeat a tensor; they are not one split model")
        }
    }
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
