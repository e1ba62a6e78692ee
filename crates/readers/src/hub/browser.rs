//! The browser's side of the Hub client: `fetch` with a `Range` header, a timeout through an
//! `AbortController`, the answer's length checked before its body is read.
//!
//! Redirects: the browser follows them itself (`redirect: "follow"`, the default). A page cannot
//! follow them by hand: with `redirect: "manual"` a cross-origin redirect comes back as an
//! "opaque-redirect" response whose status is 0 and whose `Location` is hidden
//! (https://fetch.spec.whatwg.org/#concept-filtered-response-opaque-redirect). The token is still
//! kept to the endpoint's host: it is set only on URLs the endpoint owns, and on a redirect to
//! another origin the browser removes `Authorization` before following it (HTTP-redirect fetch,
//! "if request's current URL's origin is not same origin with locationURL's origin, then for each
//! headerName of CORS non-wildcard request-header name, delete headerName from request's header
//! list": https://fetch.spec.whatwg.org/#http-redirect-fetch, whatwg/fetch#1544). Since the
//! browser reports no redirect count, too many redirects read as a network failure (offline).

use js_sys::{ArrayBuffer, Date, Float64Array, Function, Uint8Array};
use vram_engine::{
    hub::iso_date, hub::range_header, hub::FetchFailure, hub::HubEndpoint, hub::HubSource,
};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, RequestInit, Response};

use super::{
    gguf_reply, hub_reply, read_gguf_file, read_model, Fetch, Got, HubProblem, HubReply,
    PartsReader,
};
use vram_messages::{decode, GgufReply};

/// How the page asks: the endpoint (empty: huggingface.co), the token (empty: none) and the
/// milliseconds one request may take, its body included (the page passes its default, 30 s;
/// its tests a few seconds).
pub struct Request<'a> {
    pub endpoint: &'a str,
    pub token: &'a str,
    pub timeout_ms: f64,
}

impl Request<'_> {
    fn fetch(&self) -> Result<BrowserFetch, HubProblem> {
        let endpoint = match self.endpoint.trim() {
            "" => Ok(HubEndpoint::default()),
            e => HubEndpoint::parse(e),
        };
        Ok(BrowserFetch {
            endpoint: endpoint.map_err(HubProblem::Id)?,
            token: Some(self.token.trim().to_string()).filter(|t| !t.is_empty()),
            timeout_ms: self.timeout_ms.clamp(1.0, 600_000.0) as u32,
        })
    }
}

/// Reads a model (or lists a GGUF repository's files) in the browser: the reply for the page.
pub async fn read_hub(id: &str, endpoint: &str, token: &str, timeout_ms: f64) -> HubReply {
    let request = Request {
        endpoint,
        token,
        timeout_ms,
    };
    let fetch = match request.fetch() {
        Ok(f) => f,
        Err(p) => return hub_reply(Err(p)),
    };
    let today = iso_date((Date::now() / 1000.0) as u64);
    hub_reply(read_model(&fetch, &fetch.endpoint, id, &today).await)
}

/// The llama.cpp module's `read_gguf_parts(bytes, lengths, sizes)`, called synchronously: a
/// [`GgufReply`]'s bytes.
struct JsReader(Function);

impl PartsReader for JsReader {
    fn read(&self, parts: &[Vec<u8>], sizes: &[u64]) -> Option<GgufReply> {
        let bytes = Uint8Array::from(parts.concat().as_slice());
        let lengths: Vec<f64> = parts.iter().map(|p| p.len() as f64).collect();
        let sizes: Vec<f64> = sizes.iter().map(|&s| s as f64).collect();
        let reply = self.0.call3(
            &JsValue::NULL,
            &bytes,
            &Float64Array::from(lengths.as_slice()),
            &Float64Array::from(sizes.as_slice()),
        );
        let bytes = reply.ok()?.dyn_into::<Uint8Array>().ok()?.to_vec();
        decode(&bytes)
    }
}

/// Reads a GGUF file's header from the Hub in the browser: the reply for the page.
pub async fn read_hub_gguf(
    source: &str,
    read_on: &str,
    parts: &str,
    request: &Request<'_>,
    reader: Function,
) -> HubReply {
    let fetch = match request.fetch() {
        Ok(f) => f,
        Err(p) => return gguf_reply(Err(p)),
    };
    let source = match HubSource::from_link(source, read_on) {
        Ok(s) => s,
        Err(e) => return gguf_reply(Err(HubProblem::Id(e))),
    };
    let parts: Vec<String> = parts.split('\n').map(str::to_string).collect();
    let reader = JsReader(reader);
    gguf_reply(read_gguf_file(&fetch, &fetch.endpoint, &source, &parts, &reader).await)
}

struct BrowserFetch {
    endpoint: HubEndpoint,
    token: Option<String>,
    timeout_ms: u32,
}

impl Fetch for BrowserFetch {
    async fn get(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
        limit: u64,
    ) -> Result<Got, FetchFailure> {
        let controller = AbortController::new().map_err(|_| self.offline(url))?;
        let abort = {
            let controller = controller.clone();
            Closure::once(move || controller.abort())
        };
        let window = web_sys::window().ok_or_else(|| self.offline(url))?;
        let timer = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                abort.as_ref().unchecked_ref(),
                self.timeout_ms as i32,
            )
            .map_err(|_| self.offline(url))?;
        let got = self.fetch(&window, &controller, url, range, limit).await;
        window.clear_timeout_with_handle(timer);
        drop(abort);
        got.map_err(|failure| match controller.signal().aborted() {
            true => FetchFailure::TimedOut {
                seconds: u64::from(self.timeout_ms).div_ceil(1000),
            },
            false => failure,
        })
    }
}

impl BrowserFetch {
    fn offline(&self, url: &str) -> FetchFailure {
        let host = url.split("://").nth(1).unwrap_or(url);
        FetchFailure::Offline {
            host: host.split('/').next().unwrap_or(host).to_string(),
        }
    }

    async fn fetch(
        &self,
        window: &web_sys::Window,
        controller: &AbortController,
        url: &str,
        range: Option<(u64, u64)>,
        limit: u64,
    ) -> Result<Got, FetchFailure> {
        let offline = |_: JsValue| self.offline(url);
        let headers = Headers::new().map_err(offline)?;
        if let Some((start, len)) = range {
            headers
                .set("Range", &range_header(start, len))
                .map_err(offline)?;
        }
        if let (Some(token), true) = (&self.token, self.endpoint.owns(url)) {
            headers
                .set("Authorization", &format!("Bearer {token}"))
                .map_err(offline)?;
        }
        let init = RequestInit::new();
        init.set_method("GET");
        init.set_headers(&headers);
        init.set_signal(Some(&controller.signal()));
        let response: Response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
            .await
            .map_err(offline)?
            .dyn_into()
            .map_err(offline)?;
        let header = |name: &str| response.headers().get(name).ok().flatten();
        let status = response.status();
        let too_large = || FetchFailure::TooLarge {
            url: url.to_string(),
            limit,
        };
        // the answer's length, when it says, is checked before a byte of its body is read
        let length = header("content-length").and_then(|v| v.trim().parse::<u64>().ok());
        if (200..300).contains(&status) && length.is_some_and(|n| n > limit + 1) {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        if (200..300).contains(&status) {
            let body: ArrayBuffer = JsFuture::from(response.array_buffer().map_err(offline)?)
                .await
                .map_err(offline)?
                .dyn_into()
                .map_err(offline)?;
            if u64::from(body.byte_length()) > limit + 1 {
                return Err(too_large());
            }
            bytes = Uint8Array::new(&body).to_vec();
        }
        Ok(Got {
            status,
            bytes,
            total: header("content-range")
                .as_deref()
                .and_then(vram_engine::hub::content_range_total),
            retry_after: header("retry-after"),
        })
    }
}
