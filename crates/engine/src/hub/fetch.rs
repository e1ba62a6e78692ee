//! What the shells need to fetch from the Hub and report, without doing it: the Range header
//! for a header read, the total a Content-Range gives, where a redirect goes, and why a fetch
//! failed (HTTP status, network), as data for `vram-text`.

/// Why a fetch did not give what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchFailure {
    /// 404: no such repository, revision or file.
    NotFound {
        url: String,
    },
    /// 401 or 403: a gated or private repository.
    Gated {
        repo: String,
        status: u16,
    },
    /// 429, with the seconds to wait when the Hub says (Retry-After).
    RateLimited {
        retry_after: Option<u64>,
    },
    /// Any other status that is not a success or a redirect.
    Status {
        status: u16,
        url: String,
    },
    /// No connection: the host is unknown, refuses, or TLS failed.
    Offline {
        host: String,
    },
    TimedOut {
        seconds: u64,
    },
    /// The answer is larger than what is read for it.
    TooLarge {
        url: String,
        limit: u64,
    },
    /// Fewer bytes came than were asked for (a cut header).
    Truncated {
        url: String,
        expected: u64,
        got: u64,
    },
    TooManyRedirects {
        url: String,
    },
    /// A redirect without a usable `Location`.
    BadRedirect {
        url: String,
    },
}

/// Redirects followed before giving up (the Hub sends one, to its file CDN).
pub const MAX_REDIRECTS: usize = 5;

/// The failure an HTTP status means; `None` for a success (2xx) or a redirect (3xx).
pub fn status_failure(
    status: u16,
    repo: &str,
    url: &str,
    retry_after: Option<&str>,
) -> Option<FetchFailure> {
    match status {
        200..=399 => None,
        401 | 403 => Some(FetchFailure::Gated {
            repo: repo.to_string(),
            status,
        }),
        404 => Some(FetchFailure::NotFound {
            url: url.to_string(),
        }),
        429 => Some(FetchFailure::RateLimited {
            retry_after: retry_after.and_then(|v| v.trim().parse().ok()),
        }),
        _ => Some(FetchFailure::Status {
            status,
            url: url.to_string(),
        }),
    }
}

/// The `Range` header value for `len` bytes from `start` (`len` ≥ 1).
pub fn range_header(start: u64, len: u64) -> String {
    format!("bytes={start}-{}", start + len.max(1) - 1)
}

/// The whole file's length from a `Content-Range: bytes 0-7/12345` value.
pub fn content_range_total(value: &str) -> Option<u64> {
    value.trim().rsplit_once('/')?.1.parse().ok()
}

/// Where a redirect goes: an absolute `Location`, or a path resolved against the current URL's
/// scheme and host. `None` for anything else.
pub fn redirect_target(current: &str, location: &str) -> Option<String> {
    let location = location.trim();
    if location.starts_with("https://") || location.starts_with("http://") {
        return Some(location.to_string());
    }
    if !location.starts_with('/') || location.starts_with("//") {
        return None;
    }
    let scheme_end = current.find("://")? + 3;
    let host_end = current[scheme_end..]
        .find('/')
        .map_or(current.len(), |i| scheme_end + i);
    Some(format!("{}{location}", &current[..host_end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_failures_users_can_act_on() {
        assert_eq!(status_failure(206, "a/b", "u", None), None);
        assert_eq!(status_failure(302, "a/b", "u", None), None);
        assert_eq!(
            status_failure(403, "a/b", "u", None),
            Some(FetchFailure::Gated {
                repo: "a/b".into(),
                status: 403
            })
        );
        assert_eq!(
            status_failure(429, "a/b", "u", Some("30")),
            Some(FetchFailure::RateLimited {
                retry_after: Some(30)
            })
        );
        assert!(matches!(
            status_failure(500, "a/b", "u", None),
            Some(FetchFailure::Status { status: 500, .. })
        ));
    }

    #[test]
    fn ranges_totals_and_redirects_read_as_http_writes_them() {
        assert_eq!(range_header(0, 8), "bytes=0-7");
        assert_eq!(range_header(8, 100), "bytes=8-107");
        assert_eq!(
            content_range_total("bytes 0-7/16060522496"),
            Some(16_060_522_496)
        );
        assert_eq!(content_range_total("bytes 0-7/*"), None);
        assert_eq!(
            redirect_target("http://127.0.0.1:9/a/resolve/main/x", "/cdn/x?sig=1").as_deref(),
            Some("http://127.0.0.1:9/cdn/x?sig=1")
        );
        assert_eq!(
            redirect_target("https://huggingface.co/a", "https://cdn-lfs.hf.co/x").as_deref(),
            Some("https://cdn-lfs.hf.co/x")
        );
        assert_eq!(
            redirect_target("https://huggingface.co/a", "//evil/x"),
            None
        );
    }
}
