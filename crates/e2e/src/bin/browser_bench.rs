//! Browser benchmark (not a test): interaction and load times of the built page in headless
//! Chromium, measured inside the page with performance.now() and driven through WebDriver.
//!
//! Usage: cargo run -p e2e --release --bin browser-bench [-- CHANGES LOADS]
//! Prints median / p95 / max and the machine it ran on.

use e2e::{dist_dir, Driver, Session, StaticServer};
use serde_json::{json, Value};

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pick = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    (pick(0.5), pick(0.95), *v.last().unwrap())
}

/// One slider change: from dispatching `input` to the total and the chart both updated in the DOM.
const CHANGE: &str = r#"
const [sel, value, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const el = document.querySelector(sel);
const total = document.querySelector('#total');
const chart = document.querySelector('#chart');
const before = total.textContent, svgBefore = chart.innerHTML;
const t0 = performance.now();
el.value = value;
el.dispatchEvent(new Event('input', {bubbles: true}));
function check() {
  const t = document.querySelector('#total');
  if ((t && t.textContent !== before) || chart.innerHTML !== svgBefore) { done(performance.now() - t0); }
  else if (performance.now() - t0 > 2000) { done(-1); }
  else { queueMicrotask(check); }
}
queueMicrotask(check);
"#;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let changes = args.first().copied().unwrap_or(240);
    let loads = args.get(1).copied().unwrap_or(20);
    let server = StaticServer::start(dist_dir());
    let driver = Driver::start();
    let session = Session::new(&driver, 1280, 1000);

    // load: navigation start to the first chart drawn (the page stamps data-first-draw)
    let mut load = Vec::new();
    for i in 0..loads {
        session.goto(&server.url(&format!("/?v=1&b={}", 1 + i % 8)));
        session.wait_for("#chart[data-first-draw]", 30);
        let t = session.js(
            "return parseFloat(document.querySelector('#chart').dataset.firstDraw)",
            vec![],
        );
        load.push(t.as_f64().unwrap_or(f64::NAN));
    }

    // interaction: alternate sliders so every change alters the budget
    session.goto(&server.url("/"));
    session.wait_for("#chart[data-first-draw]", 30);
    let mut times = Vec::new();
    let mut failed = 0;
    for i in 0..changes {
        let (sel, value): (&str, Value) = match i % 3 {
            0 => ("#batch", json!(((i * 37) % 1000).to_string())),
            1 => ("#seq", json!(((i * 53) % 1000).to_string())),
            _ => ("#lora-rank", json!(((i * 71) % 1000).to_string())),
        };
        let ms = session
            .js_async(CHANGE, vec![json!(sel), value])
            .as_f64()
            .unwrap_or(-1.0);
        if ms < 0.0 {
            failed += 1;
        } else {
            times.push(ms);
        }
    }
    let ua = session.js("return navigator.userAgent", vec![]);
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    println!(
        "machine: {cpu}, {cores} cores; browser: {}",
        ua.as_str().unwrap_or("")
    );
    let (m, p, x) = stats(times.clone());
    println!("interaction (slider input -> total + chart in the DOM), {} changes ({} without a visible change): median {m:.2} ms, p95 {p:.2} ms, max {x:.2} ms", times.len(), failed);
    let (m, p, x) = stats(load);
    println!("load (navigation start -> first chart drawn), {loads} loads from 127.0.0.1: median {m:.1} ms, p95 {p:.1} ms, max {x:.1} ms");
    let engine = session.js("return window.wasmBindings && window.wasmBindings.engine_bench ? window.wasmBindings.engine_bench() : null", vec![]);
    if !engine.is_null() {
        println!("engine in wasm: {engine}");
    }
}
