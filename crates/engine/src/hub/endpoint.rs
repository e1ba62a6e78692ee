//! The Hub's URL layout, built from an endpoint setting (`HF_ENDPOINT`, a mirror) so that the
//! page and the CLI fetch the same URLs, as huggingface_hub builds them:
//! `{endpoint}/api/models/{repo}[/revision/{rev}]` for the file list and
//! `{endpoint}/{repo}/resolve/{rev}/{file}` for a file (revision percent-encoded, `/` included).

use super::error::HubError;
use super::id::HubRef;

/// huggingface.co, the default endpoint.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// Where the Hub is: scheme, host (with port) and an optional path prefix, no trailing '/'.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubEndpoint {
    base: String,
    host: String,
}

/// What `parse(DEFAULT_ENDPOINT)` reads (`tests/engine/size.rs` checks it), written out: an `expect` on the parse
/// linked the Hub error's `Debug` into the page's first load.
impl Default for HubEndpoint {
    fn default() -> Self {
        HubEndpoint {
            base: DEFAULT_ENDPOINT.to_string(),
            host: "huggingface.co".to_string(),
        }
    }
}

impl HubEndpoint {
    /// Reads `http(s)://host[:port][/path]`; no user, query or fragment.
    pub fn parse(text: &str) -> Result<HubEndpoint, HubError> {
        let text = text.trim().trim_end_matches('/');
        let bad = || HubError::BadEndpoint(text.chars().take(80).collect());
        let rest = text
            .strip_prefix("https://")
            .or_else(|| text.strip_prefix("http://"))
            .ok_or_else(bad)?;
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let host_ok = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c));
        let path_ok = path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./~".contains(c));
        if !host_ok || !path_ok || text.len() > 200 {
            return Err(bad());
        }
        Ok(HubEndpoint {
            base: text.to_string(),
            host: host.to_ascii_lowercase(),
        })
    }

    /// The endpoint as written (no trailing '/').
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `host[:port]`, lower-case: a token goes only to URLs on this host.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Whether `url` is on the endpoint's scheme, host and port (a redirect to a CDN is not).
    pub fn owns(&self, url: &str) -> bool {
        let scheme_len = self.base.len() - self.base.trim_start_matches("https://").len();
        let scheme_len = if scheme_len == 0 {
            "http://".len()
        } else {
            scheme_len
        };
        let (scheme, _) = self.base.split_at(scheme_len);
        url.strip_prefix(scheme)
            .map(|rest| rest.split(['/', '?', '#']).next().unwrap_or(""))
            .is_some_and(|host| host.eq_ignore_ascii_case(&self.host))
    }

    /// The file list (and commit) of a model at a revision.
    pub(crate) fn model_info_url(&self, r: &HubRef) -> String {
        match &r.revision {
            Some(rev) => format!(
                "{}/api/models/{}/revision/{}",
                self.base,
                r.repo,
                encode_segment(rev)
            ),
            None => format!("{}/api/models/{}", self.base, r.repo),
        }
    }

    /// [`Self::model_info_url`] with each file's size in the listing (huggingface_hub's
    /// `model_info(files_metadata=True)` asks the same `?blobs=true`).
    pub fn model_files_url(&self, r: &HubRef) -> String {
        format!("{}?blobs=true", self.model_info_url(r))
    }

    /// A file of the repository at the reference's revision (`main` when none).
    pub(crate) fn file_url(&self, r: &HubRef, file: &str) -> String {
        format!(
            "{}/{}/resolve/{}/{}",
            self.base,
            r.repo,
            encode_segment(r.revision_or_main()),
            file
        )
    }
}

/// Percent-encodes everything but unreserved characters (Python's `quote(s, safe="")`).
fn encode_segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::parse_model_id;

    #[test]
    fn urls_follow_the_hub_layout_on_any_endpoint() {
        let hub = HubEndpoint::default();
        let r = parse_model_id("Qwen/Qwen2.5-7B").unwrap();
        assert_eq!(
            hub.model_info_url(&r),
            "https://huggingface.co/api/models/Qwen/Qwen2.5-7B"
        );
        assert_eq!(
            hub.file_url(&r, "config.json"),
            "https://huggingface.co/Qwen/Qwen2.5-7B/resolve/main/config.json"
        );
        let mirror = HubEndpoint::parse("https://hf-mirror.com/").unwrap();
        let pr = parse_model_id("org/m@refs/pr/3").unwrap();
        assert_eq!(
            mirror.model_info_url(&pr),
            "https://hf-mirror.com/api/models/org/m/revision/refs%2Fpr%2F3"
        );
        assert_eq!(
            mirror.file_url(&pr, "model-00001-of-00002.safetensors"),
            "https://hf-mirror.com/org/m/resolve/refs%2Fpr%2F3/model-00001-of-00002.safetensors"
        );
    }

    #[test]
    fn a_token_belongs_only_to_the_endpoint_host() {
        let local = HubEndpoint::parse("http://127.0.0.1:8123").unwrap();
        assert_eq!(local.host(), "127.0.0.1:8123");
        assert!(local.owns("http://127.0.0.1:8123/api/models/a/b"));
        assert!(!local.owns("http://127.0.0.1:8124/a/b"));
        assert!(!local.owns("https://127.0.0.1:8123/a/b"));
        assert!(!local.owns("http://127.0.0.1:8123.evil.example/a"));
        let hub = HubEndpoint::default();
        assert!(!hub.owns("https://cdn-lfs.huggingface.co/repos/x"));
        assert!(hub.owns("https://HuggingFace.co/x"));
    }

    #[test]
    fn an_endpoint_with_a_user_a_query_or_no_scheme_is_refused() {
        for bad in [
            "huggingface.co",
            "ftp://x",
            "https://user@x",
            "https://x/?q=1",
            "https://",
        ] {
            assert!(HubEndpoint::parse(bad).is_err(), "{bad}");
        }
    }
}
