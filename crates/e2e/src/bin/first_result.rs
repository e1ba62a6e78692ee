//! First result on screen, as issue 41 measures it (not a test): each load in a fresh headless
//! Chromium process with the cache disabled, the time from navigation start to the first `<rect>`
//! inside a chart, for the page and, in the same run, for a trivial page holding one inline SVG.
//!
//! Usage: cargo run -p e2e --release --bin first-result [-- LOADS]   (default 6)
//! Serves dist/ (or $VRAM_E2E_DIST); needs chromium and chromedriver on PATH. Prints each load
//! and the medians.

use e2e::{dist_dir, Driver, Session, StaticServer};
use serde_json::json;

/// The trivial page: one inline SVG with one rectangle.
const TRIVIAL: &str = r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>one svg</title></head><body><div class="chart"><svg width="640" height="340"><rect x="10" y="10" width="100" height="100" fill="#1f77b4"/></svg></div></body></html>"#;

/// Installed before a document's own scripts: stamps `window.__firstRect` with performance.now()
/// when the first `<rect>` inside a `.chart` is in the document.
const WATCH: &str = "new MutationObserver((_, o) => {
  if (document.querySelector('.chart rect')) { window.__firstRect = performance.now(); o.disconnect(); }
}).observe(document, {childList: true, subtree: true});";

/// One load of `url` in a fresh browser: milliseconds from navigation start to the first rect.
fn one_load(url: &str) -> f64 {
    let driver = Driver::start();
    let session = Session::new(&driver, 1280, 1000);
    session.cdp("Network.enable", json!({}));
    session.cdp("Network.setCacheDisabled", json!({ "cacheDisabled": true }));
    session.cdp(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": WATCH }),
    );
    session.goto(url);
    session.wait_for(".chart rect", 30);
    session
        .js("return window.__firstRect", vec![])
        .as_f64()
        .unwrap_or(f64::NAN)
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
    let (mut page, mut trivial) = (Vec::new(), Vec::new());
    for i in 0..loads {
        // alternated, so that both see the same machine
        page.push(one_load(&server.url("/")));
        trivial.push(one_load(&server.url("/trivial.html")));
        println!(
            "load {}: page {:.1} ms, trivial page {:.1} ms",
            i + 1,
            page[i],
            trivial[i]
        );
    }
    println!(
        "first result on screen, median of {loads} fresh browsers: page {:.1} ms, trivial page {:.1} ms",
        median(page),
        median(trivial)
    );
}
