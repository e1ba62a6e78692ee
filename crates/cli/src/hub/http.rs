//! HTTP for `--hf`: the GETs the engine's Hub reads ask for (`vram_engine::hub`), each with its
//! Range and size limit, redirects followed by hand so that the token goes only to the
//! endpoint's host, and every network failure as the engine's [`FetchFailure`].

use std::io::Read;
use std::time::Duration;

use ureq::http::Response;
use ureq::Body;
use vram_engine::hub::{Get, Got, HubRead, Step};
use vram_engine::{
    hub::content_range_total, hub::range_header, hub::redirect_target, hub::FetchFailure,
    hub::HubEndpoint, hub::MAX_REDIRECTS,
};

/// A client for one endpoint, with an optional token.
pub struct Client {
    agent: ureq::Agent,
    endpoint: HubEndpoint,
    token: Option<String>,
    timeout: u64,
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

    /// Runs a read of the Hub to its answer, fetching each GET it asks for.
    pub fn drive<R: HubRead>(&self, mut read: R) -> R::Answer {
        let mut step = read.start();
        loop {
            match step {
                Step::Get(get) => step = read.answer(self.fetch(&get)),
                Step::Done(answer) => return answer,
            }
        }
    }

    /// One GET: its status, at most `limit + 1` bytes of a success's body, the file's length
    /// from `Content-Range`, and `Retry-After`.
    fn fetch(&self, get: &Get) -> Result<Got, FetchFailure> {
        let response = self.get(
            &get.url,
            get.range.map(|(start, len)| range_header(start, len)),
        )?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let status = response.status().as_u16();
        let total = header("content-range")
            .as_deref()
            .and_then(content_range_total);
        let retry_after = header("retry-after");
        let bytes = match status {
            200..=299 => self.read_limited(response, &get.url, get.limit + 1)?,
            _ => Vec::new(),
        };
        Ok(Got {
            status,
            bytes,
            total,
            retry_after,
        })
    }

    /// A GET that follows redirects itself: the token only on the endpoint's host.
    fn get(&self, url: &str, range: Option<String>) -> Result<Response<Body>, FetchFailure> {
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
            return Ok(response);
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
