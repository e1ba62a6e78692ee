//! A stand-in Hugging Face Hub served by the test server under `/hub` on the page's own origin
//! (so the page's CSP `connect-src 'self'` allows it), in the Hub's URL layout:
//! `/hub/api/models/{repo}[/revision/{rev}]` lists a repository's files with a commit, and
//! `/hub/{repo}/resolve/{rev}/{file}` serves a file, honouring `Range: bytes=a-b` with a 206 and
//! the file's whole length in `Content-Range`. Gated repositories answer 401; slow ones answer
//! after a delay (a Hub that does not answer in time). Every request is recorded (path, Range).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use vram_test_support::hub_answers::{file_answer, hub_path, listing_json, HubPath};

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
        let (repo, file) = match hub_path(path) {
            HubPath::Listing { repo } => (repo, None),
            HubPath::File { repo, file } => (repo, Some(file)),
            HubPath::Elsewhere => return not_found(),
        };
        let Some((files, gated)) = self.repos.get(&repo) else {
            return not_found();
        };
        if *gated {
            return plain("401 Unauthorized", b"{\"error\":\"gated\"}");
        }
        let Some(file) = file else {
            let sized: Vec<(&str, Option<u64>)> = files
                .iter()
                .map(|(name, f)| (name.as_str(), Some(f.claimed_len)))
                .collect();
            return plain("200 OK", listing_json(&repo, SHA, &sized).as_bytes());
        };
        let Some(f) = files.get(file) else {
            return not_found();
        };
        let answer = file_answer(&f.bytes, f.claimed_len, range);
        match answer.content_range {
            Some(content_range) => Answer {
                status: "206 Partial Content",
                headers: vec![
                    "Content-Type: application/octet-stream".into(),
                    format!("Content-Range: {content_range}"),
                ],
                body: answer.body.to_vec(),
            },
            None => plain("200 OK", answer.body),
        }
    }
}
