//! A stand-in Hugging Face Hub served by the test server under `/hub` on the page's own origin
//! (so the page's CSP `connect-src 'self'` allows it), in the Hub's URL layout:
//! `/hub/api/models/{repo}[/revision/{rev}]` lists a repository's files with a commit, and
//! `/hub/{repo}/resolve/{rev}/{file}` serves a file, honouring `Range: bytes=a-b` with a 206 and
//! the file's whole length in `Content-Range`. Gated repositories answer 401; slow ones answer
//! after a delay (a Hub that does not answer in time). Every request is recorded (path, Range).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The commit every listing answers with.
pub const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

/// A file: the bytes served, and the whole length a `Content-Range` claims (a shard's header
/// stands for a file of many gigabytes).
pub struct HubFile {
    pub bytes: Vec<u8>,
    pub claimed_len: u64,
}

/// A request the stand-in saw: its path below `/hub` and its `Range` header.
pub type SeenRequest = (String, Option<String>);

/// Repositories by `owner/name`: their files by name, and whether they are gated; the delay
/// before each answer of a slow repository; and every request seen (clone the `Arc` to read
/// them while the server owns the stand-in).
#[derive(Default)]
pub struct StandInHub {
    pub repos: HashMap<String, (HashMap<String, HubFile>, bool)>,
    pub slow: HashMap<String, Duration>,
    pub seen: Arc<Mutex<Vec<SeenRequest>>>,
}

/// What the server writes back: status line, extra headers, body.
pub struct Answer {
    pub status: &'static str,
    pub headers: Vec<String>,
    pub body: Vec<u8>,
}

impl StandInHub {
    /// The answer for `path` (below `/hub`) with an optional `Range` header value, after the
    /// repository's delay when it is a slow one.
    pub fn answer(&self, path: &str, range: Option<&str>) -> Answer {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push((path.to_string(), range.map(str::to_string)));
        }
        let delay = self.slow.iter().find(|(repo, _)| {
            path.contains(&format!("/{repo}/")) || path.ends_with(&format!("/{repo}"))
        });
        if let Some((_, delay)) = delay {
            std::thread::sleep(*delay);
        }
        self.answer_now(path, range)
    }

    fn answer_now(&self, path: &str, range: Option<&str>) -> Answer {
        let plain = |status, body: &[u8]| Answer {
            status,
            headers: vec!["Content-Type: application/json".into()],
            body: body.to_vec(),
        };
        let not_found = || plain("404 Not Found", b"{\"error\":\"Repository not found\"}");
        if let Some(rest) = path.strip_prefix("/api/models/") {
            let repo = rest.split("/revision/").next().unwrap_or(rest);
            let Some((files, gated)) = self.repos.get(repo) else {
                return not_found();
            };
            if *gated {
                return plain("401 Unauthorized", b"{\"error\":\"gated\"}");
            }
            let mut names: Vec<&String> = files.keys().collect();
            names.sort();
            let siblings: Vec<String> = names
                .iter()
                .map(|n| format!("{{\"rfilename\":{n:?},\"size\":{}}}", files[*n].claimed_len))
                .collect();
            let body = format!(
                "{{\"id\":{repo:?},\"sha\":\"{SHA}\",\"siblings\":[{}]}}",
                siblings.join(",")
            );
            return plain("200 OK", body.as_bytes());
        }
        let Some((repo, file)) = path
            .trim_start_matches('/')
            .split_once("/resolve/")
            .and_then(|(repo, rest)| Some((repo, rest.split_once('/')?.1)))
        else {
            return not_found();
        };
        let Some((files, gated)) = self.repos.get(repo) else {
            return not_found();
        };
        if *gated {
            return plain("401 Unauthorized", b"{\"error\":\"gated\"}");
        }
        let Some(f) = files.get(file) else {
            return not_found();
        };
        match range.and_then(parse_range) {
            Some((start, end)) => {
                let from = (start as usize).min(f.bytes.len());
                let to = ((end + 1) as usize).min(f.bytes.len());
                Answer {
                    status: "206 Partial Content",
                    headers: vec![
                        "Content-Type: application/octet-stream".into(),
                        format!("Content-Range: bytes {start}-{end}/{}", f.claimed_len),
                    ],
                    body: f.bytes[from..to].to_vec(),
                }
            }
            None => plain("200 OK", &f.bytes),
        }
    }
}

/// `bytes=a-b` as (a, b).
fn parse_range(value: &str) -> Option<(u64, u64)> {
    let (a, b) = value.trim().strip_prefix("bytes=")?.split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}
