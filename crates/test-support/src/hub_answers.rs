//! What a stand-in Hugging Face Hub answers, shared by the CLI's stand-in
//! (`crates/cli/tests/cli/hub_server/`) and the browser tests' (`crates/e2e/src/hub.rs`), which each
//! frame it in their own HTTP: where a path points in the Hub's URL layout, the listing's JSON,
//! and a file or the Range of it that was asked for.

/// Where a path below the endpoint (without its query) points.
#[derive(Debug, PartialEq, Eq)]
pub enum HubPath<'a> {
    /// `/api/models/{owner}/{name}[/revision/{rev}]`: the repository's listing.
    Listing {
        repo: String,
    },
    /// `/{owner}/{name}/resolve/{rev}/{file}`: a file at a revision.
    File {
        repo: String,
        file: &'a str,
    },
    Elsewhere,
}

/// Reads a path in the Hub's URL layout.
pub fn hub_path(path: &str) -> HubPath<'_> {
    if let Some(api) = path.strip_prefix("/api/models/") {
        let parts: Vec<&str> = api.splitn(3, '/').collect();
        return HubPath::Listing {
            repo: parts[..2.min(parts.len())].join("/"),
        };
    }
    let parts: Vec<&str> = path.trim_start_matches('/').splitn(5, '/').collect();
    match parts.as_slice() {
        [owner, name, "resolve", _rev, file] => HubPath::File {
            repo: format!("{owner}/{name}"),
            file,
        },
        _ => HubPath::Elsewhere,
    }
}

/// The listing's JSON: the repository, its commit, and its files (sorted by name), each with
/// its size when given (the Hub gives sizes for `?blobs=true`).
pub fn listing_json(repo: &str, sha: &str, files: &[(&str, Option<u64>)]) -> String {
    let mut files = files.to_vec();
    files.sort();
    let siblings: Vec<String> = files
        .iter()
        .map(|(name, size)| match size {
            Some(size) => format!("{{\"rfilename\":{name:?},\"size\":{size}}}"),
            None => format!("{{\"rfilename\":{name:?}}}"),
        })
        .collect();
    format!(
        "{{\"id\":{repo:?},\"sha\":\"{sha}\",\"siblings\":[{}]}}",
        siblings.join(",")
    )
}

/// A file's answer: 200 and all its bytes, or 206 with the `Content-Range` value for the asked
/// `Range: bytes=a-b` (the whole length the file claims after the '/'); bytes past what the
/// server holds are not sent, so a cut file answers short.
pub struct FileAnswer<'a> {
    pub status: u16,
    pub content_range: Option<String>,
    pub body: &'a [u8],
}

pub fn file_answer<'a>(bytes: &'a [u8], claimed_len: u64, range: Option<&str>) -> FileAnswer<'a> {
    let Some((start, end)) = range.and_then(parse_range) else {
        return FileAnswer {
            status: 200,
            content_range: None,
            body: bytes,
        };
    };
    let have = bytes.len() as u64;
    let from = start.min(have);
    FileAnswer {
        status: 206,
        content_range: Some(format!("bytes {start}-{end}/{claimed_len}")),
        body: &bytes[from as usize..(end.saturating_add(1)).clamp(from, have) as usize],
    }
}

/// `bytes=a-b` as (a, b).
fn parse_range(value: &str) -> Option<(u64, u64)> {
    let (a, b) = value.trim().strip_prefix("bytes=")?.split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}
