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

use js_sys::{ArrayBuffer, Date, Uint8Array};
use vram_engine::{iso_date, range_header, FetchFailure, HubEndpoint};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, RequestInit, Response};

use super::{hub_reply, read_model, Fetch, Got};
use crate::Reply;

/// Seconds one request may take, its body included.
const TIMEOUT_SECONDS: u64 = 30;

/// Reads a model in the browser: the reply for the page.
pub async fn read_hub(id: &str, endpoint: &str, token: &str) -> Reply {
    let endpoint = match endpoint.trim() {
        "" => Ok(HubEndpoint::default()),
        e => HubEndpoint::parse(e),
    };
    let endpoint = match endpoint {
        Ok(e) => e,
        Err(e) => return hub_reply(Err(super::HubProblem::Id(e))),
    };
    let fetch = BrowserFetch {
        endpoint: endpoint.clone(),
        token: Some(token.trim().to_string()).filter(|t| !t.is_empty()),
    };
    let today = iso_date((Date::now() / 1000.0) as u64);
    hub_reply(read_model(&fetch, &endpoint, id, &today).await)
}

struct BrowserFetch {
    endpoint: HubEndpoint,
    token: Option<String>,
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
                (TIMEOUT_SECONDS * 1000) as i32,
            )
            .map_err(|_| self.offline(url))?;
        let got = self.fetch(&window, &controller, url, range, limit).await;
        window.clear_timeout_with_handle(timer);
        drop(abort);
        got.map_err(|failure| match controller.signal().aborted() {
            true => FetchFailure::TimedOut {
                seconds: TIMEOUT_SECONDS,
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
                .and_then(vram_engine::content_range_total),
            retry_after: header("retry-after"),
        })
    }
}
