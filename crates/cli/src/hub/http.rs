//! HTTP for `--hf`: GETs with a size limit, Range reads, redirects followed by hand so that the
//! token goes only to the endpoint's host, and every failure as the engine's [`FetchFailure`].

use std::io::Read;
use std::time::Duration;

use ureq::http::Response;
use ureq::Body;
use vram_engine::{
    content_range_total, range_header, redirect_target, status_failure, FetchFailure, HubEndpoint,
    MAX_REDIRECTS,
};

/// A client for one endpoint, with an optional token.
pub struct Client {
    agent: ureq::Agent,
    endpoint: HubEndpoint,
    token: Option<String>,
    timeout: u64,
}

/// Bytes read by a Range request, and the whole file's length when the server said.
pub struct Ranged {
    pub bytes: Vec<u8>,
    pub total: Option<u64>,
}

impl Client {
    pub fn new(endpoint: HubEndpoint, token: Option<String>, timeout_seconds: u64) -> Client {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(timeout_seconds)))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("vram-budget/", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            agent: config.into(),
            endpoint,
            token: token.filter(|t| !t.trim().is_empty()),
            timeout: timeout_seconds,
        }
    }

    pub fn endpoint(&self) -> &HubEndpoint {
        &self.endpoint
    }

    /// A whole answer as text, refused past `limit` bytes.
    pub fn text(&self, repo: &str, url: &str, limit: u64) -> Result<String, FetchFailure> {
        let response = self.get(repo, url, None)?;
        let bytes = self.read_limited(response, url, limit + 1)?;
        if bytes.len() as u64 > limit {
            return Err(FetchFailure::TooLarge {
                url: url.to_string(),
                limit,
            });
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Exactly `len` bytes from `start`, or [`FetchFailure::Truncated`].
    pub fn range(
        &self,
        repo: &str,
        url: &str,
        start: u64,
        len: u64,
    ) -> Result<Ranged, FetchFailure> {
        let got = self.range_upto(repo, url, start, len)?;
        if (got.bytes.len() as u64) < len {
            return Err(FetchFailure::Truncated {
                url: url.to_string(),
                expected: len,
                got: got.bytes.len() as u64,
            });
        }
        Ok(got)
    }

    /// Up to `len` bytes from `start` (fewer when the file ends); a server that ignores Range
    /// is read no further than asked.
    pub fn range_upto(
        &self,
        repo: &str,
        url: &str,
        start: u64,
        len: u64,
    ) -> Result<Ranged, FetchFailure> {
        let response = self.get(repo, url, Some(range_header(start, len)))?;
        let partial = response.status().as_u16() == 206;
        let total = response
            .headers()
            .get("content-range")
            .and_then(|v| v.to_str().ok())
            .and_then(content_range_total);
        let mut bytes = if partial {
            self.read_limited(response, url, len)?
        } else {
            // a plain 200: the file from byte 0, so skip to `start` and keep `len`
            let mut all = self.read_limited(response, url, start + len)?;
            all.drain(..(start as usize).min(all.len()));
            all
        };
        bytes.truncate(len as usize);
        Ok(Ranged { bytes, total })
    }

    /// A GET that follows redirects itself: the token only on the endpoint's host.
    fn get(
        &self,
        repo: &str,
        url: &str,
        range: Option<String>,
    ) -> Result<Response<Body>, FetchFailure> {
        let mut current = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let mut request = self.agent.get(&current);
            if let Some(r) = &range {
                request = request.header("Range", r);
            }
            if let (Some(token), true) = (&self.token, self.endpoint.owns(&current)) {
                request = request.header("Authorization", &format!("Bearer {token}"));
            }
            let response = request
                .call()
                .map_err(|e| self.network_failure(&current, e))?;
            let status = response.status().as_u16();
            if (300..400).contains(&status) {
                let location = response
                    .headers()
                    .get("location")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|l| redirect_target(&current, l))
                    .ok_or_else(|| FetchFailure::BadRedirect {
                        url: current.clone(),
                    })?;
                current = location;
                continue;
            }
            let retry = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok());
            return match status_failure(status, repo, &current, retry) {
                Some(f) => Err(f),
                None => Ok(response),
            };
        }
        Err(FetchFailure::TooManyRedirects {
            url: url.to_string(),
        })
    }

    /// At most `limit` bytes of a body; a body the network cut short is as far as it got.
    fn read_limited(
        &self,
        response: Response<Body>,
        url: &str,
        limit: u64,
    ) -> Result<Vec<u8>, FetchFailure> {
        let mut out = Vec::new();
        let mut reader = response.into_body().into_reader().take(limit);
        match reader.read_to_end(&mut out) {
            Ok(_) => Ok(out),
            Err(e) if is_timeout(&e) => Err(FetchFailure::TimedOut {
                seconds: self.timeout,
            }),
            Err(_) if !out.is_empty() => Ok(out),
            Err(_) => Err(FetchFailure::Offline {
                host: host_of(url).to_string(),
            }),
        }
    }

    fn network_failure(&self, url: &str, e: ureq::Error) -> FetchFailure {
        match e {
            ureq::Error::Timeout(_) => FetchFailure::TimedOut {
                seconds: self.timeout,
            },
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                FetchFailure::TimedOut {
                    seconds: self.timeout,
                }
            }
            _ => FetchFailure::Offline {
                host: host_of(url).to_string(),
            },
        }
    }
}

/// `host[:port]` of a URL.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?', '#']).next().unwrap_or(rest)
}

/// Whether a read failed on the timeout (ureq wraps its own timeout in an io::Error).
fn is_timeout(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::TimedOut
        || e.get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>())
            .is_some_and(|u| matches!(u, ureq::Error::Timeout(_)))
}
