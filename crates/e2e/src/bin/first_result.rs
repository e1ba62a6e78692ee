//! First result on screen, as issue 41 measures it (not a test): each load in a fresh headless
//! Chromium process with the cache disabled, the time from navigation start to the first `<rect>`
//! inside a chart (the page draws its bars' segments as `<polygon>`s, so either), for the page and, in the same run, for a trivial page holding one inline SVG.
//!
//! Usage: cargo run -p e2e --release --bin first-result [-- LOADS]   (default 6)
//! Serves dist/ (or $VRAM_E2E_DIST); needs chromium and chromedriver on PATH. Prints each load
//! and the medians. VRAM_FIRST_PROFILE=file records V8's CPU profile of the page's first load
//! into file (a `wasm-opt -g` build keeps the wasm's function names) and prints where its time
//! went up to the first rect.

use e2e::{dist_dir, Driver, Session, StaticServer};
use serde_json::json;

/// The trivial page: one inline SVG with one rectangle.
const TRIVIAL: &str = r##"<!DOCTYPE html><html><head><meta charset="utf-8"><title>one svg</title></head><body><div class="chart"><svg width="640" height="340"><rect x="10" y="10" width="100" height="100" fill="#1f77b4"/></svg></div></body></html>"##;

/// Installed before a document's own scripts: stamps `window.__firstRect` with performance.now()
/// when the first `<rect>` or `<polygon>` inside a `.chart` is in the document.
const WATCH: &str = "const SHAPE = '.chart rect, .chart polygon';
new MutationObserver((_, o) => {
  if (document.querySelector(SHAPE)) { window.__firstRect = performance.now(); o.disconnect(); }
}).observe(document, {childList: true, subtree: true});";

/// One load of `url` in a fresh browser: milliseconds from navigation start to the first rect,
/// and to the end of the page's wasm download (NaN for a page without one).
fn one_load(url: &str, profile: Option<&std::ffi::OsStr>) -> (f64, f64) {
    let driver = Driver::start();
    let session = Session::new(&driver, 1280, 1000);
    if profile.is_some() {
        e2e::profile::start(&session);
    }
    session.cdp("Network.enable", json!({}));
    session.cdp("Network.setCacheDisabled", json!({ "cacheDisabled": true }));
    session.cdp(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": WATCH }),
    );
    session.goto(url);
    session.wait_for(".chart rect, .chart polygon", 30);
    let seen = session.js(
        "const wasm = performance.getEntriesByType('resource').find((r) => r.name.endsWith('_bg.wasm'));
         return [window.__firstRect, wasm ? wasm.responseEnd : null];",
        vec![],
    );
    let at = |i: usize| seen[i].as_f64().unwrap_or(f64::NAN);
    if let Some(path) = profile {
        let profile = e2e::profile::stop_into(&session, path);
        e2e::profile::print_top(&profile, 1, "page load", "a load", 40);
    }
    (at(0), at(1))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    (v[(n - 1) / 2] + v[n / 2]) / 2.0
}

fn main() {
    let loads: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6);
    let server = StaticServer::start_with(dist_dir(), &[("trivial.html", TRIVIAL)]);
    let profile = std::env::var_os("VRAM_FIRST_PROFILE");
    let (mut page, mut trivial) = (Vec::new(), Vec::new());
    for i in 0..loads {
        // alternated, so that both see the same machine; only the first load is profiled
        let profiled = profile.as_deref().filter(|_| i == 0);
        let (first, wasm) = one_load(&server.url("/"), profiled);
        page.push(first);
        trivial.push(one_load(&server.url("/trivial.html"), None).0);
        println!(
            "load {}: page {first:.1} ms (its wasm downloaded at {wasm:.1} ms), trivial page {:.1} ms",
            i + 1,
            trivial[i]
        );
    }
    println!(
        "first result on screen, median of {loads} fresh browsers: page {:.1} ms, trivial page {:.1} ms",
        median(page),
        median(trivial)
    );
}
