//! Browser benchmark (not a test): interaction and load times of the built page in headless
//! Chromium, measured inside the page with performance.now() and driven through WebDriver, and
//! the engine timed inside the wasm (`engine_bench`, exported by the page); and interaction to
//! next paint as Chromium reports it (Event Timing API, see `e2e::frames`) on the page and on two
//! blank-page floors (the floor's work in a corner, and the same work spread over the page's
//! layout), in a second browser whose frames do not wait for a 60 Hz tick.
//!
//! Usage: cargo run -p e2e --release --bin browser-bench [-- CHANGES LOADS STEPS]   (defaults 240 20 25)
//! STEPS: key presses per slider for interaction to next paint (six sliders on the page, and six
//! times as many on the blank-page floor, one slider).
//! Serves dist/ (or $VRAM_E2E_DIST); needs chromium and chromedriver on PATH.
//! VRAM_BENCH_RAW=1 prints every change's raw timings, and each press's main-thread time, to
//! stderr.
//! VRAM_E2E_CHROME_ARGS adds Chromium switches (e.g. `--js-flags=--no-liftoff`) for an experiment.
//! VRAM_BENCH_HIDE=#chart,#seq-chart hides those elements (visibility: hidden) before the page's
//! key presses: what painting them costs a step. VRAM_BENCH_TRACE=file records Chromium's trace;
//! VRAM_BENCH_CSS adds style rules to the page before its key presses (e.g. `#chart svg { display:
//! none }`: a part neither styled, laid out nor painted). VRAM_BENCH_TRACE_CATEGORIES replaces
//! the trace's categories (e.g. add `viz` for the damaged area, `v8.wasm` for the WebAssembly
//! compiled during the presses); with VRAM_BENCH_PAINTS=1 a traced run also names the elements
//! Chromium painted and their time. VRAM_BENCH_ONLY=#weights,#batch
//! presses only those of the page's sliders, in that order. VRAM_BENCH_FLOORS=0 leaves both
//! floors out, for quicker alternated runs of two builds of the page (the figures BENCHMARKS.md
//! reports keep them). VRAM_BENCH_PROFILE=file records V8's CPU profile of the page's presses
//! into file and prints the functions with the most script time (build with `wasm-opt -g` to keep
//! the wasm's function names).
//! Prints median / p95 / max of each measure, the budgets of BENCHMARKS.md met or not, and the
//! machine it ran on. Exits 1 when a measurement could not be taken, never for a missed budget.

use e2e::frames::{
    self, FrameRun, Slider, FLOOR_PAGE, FLOOR_PATH, FLOOR_SCRIPT, FLOOR_SCRIPT_PATH,
    WIDE_FLOOR_PAGE, WIDE_FLOOR_PATH,
};
use e2e::{dist_dir, Driver, Session, StaticServer};
use serde_json::json;

/// (median, p95, max), nearest-rank on the sorted values.
fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let pick = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    (pick(0.5), pick(0.95), *v.last().unwrap())
}

/// Calls of the page's engine_bench after the warm-up call.
const ENGINE_RUNS: usize = 7;

fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT MET"
    }
}

/// One slider change, started at the beginning of an animation frame as Chrome delivers input.
/// `dom`: from dispatching `input` until #total's text and #chart's SVG have both changed in the
/// DOM (watched with a MutationObserver, so updates made in later tasks or microtasks are seen;
/// the chart through its mutation records, and its new SVG checked against the old after timing).
/// `frame`: until the frame showing the change has been rendered on the main thread (style,
/// layout, paint): a task posted in that frame's requestAnimationFrame runs right after it.
/// `sync`: how long dispatchEvent itself took (the handler plus any synchronous updates).
const CHANGE: &str = r#"
const [sel, value, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const totalText = () => { const e = document.querySelector('#total'); return e ? e.textContent : null; };
const chartHtml = () => { const e = document.querySelector('#chart'); return e ? e.innerHTML : null; };
const afterFrame = (cb) => requestAnimationFrame(() => {
  const mc = new MessageChannel(); mc.port1.onmessage = cb; mc.port2.postMessage(0);
});
requestAnimationFrame(() => {
  const el = document.querySelector(sel);
  if (!el) { done({ok: false, error: 'no element ' + sel}); return; }
  // read before timing starts; inside the timed part the chart is watched through mutation
  // records (serialising its SVG on every check would cost more than the page's own work)
  const before = [totalText(), chartHtml()];
  const chart = document.querySelector('#chart');
  let tTotal = null, tChart = null, finished = false, frameRendered = null, pending = null;
  const mc = new MessageChannel();
  mc.port1.onmessage = () => { frameRendered = performance.now() - t0; if (pending) pending(); };
  const obs = new MutationObserver((records) => {
    if (tChart === null && (!chart.isConnected || records.some(r => r.target === chart || chart.contains(r.target)))) {
      tChart = performance.now() - t0;
    }
    check();
  });
  obs.observe(document.body, {subtree: true, childList: true, characterData: true});
  const timer = setTimeout(() => finish(false), 2000);
  const t0 = performance.now();
  el.value = value;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  const sync = performance.now() - t0;
  mc.port2.postMessage(0); // runs once this frame has been rendered
  check();
  function check() {
    if (finished) return;
    if (tTotal === null && totalText() !== before[0]) tTotal = performance.now() - t0;
    if (tTotal !== null && tChart !== null) finish(true);
  }
  function finish(ok) {
    finished = true; obs.disconnect(); clearTimeout(timer);
    const dom = performance.now() - t0;
    // after timing: the chart's SVG must really differ from before
    const chartChanged = chartHtml() !== before[1];
    const report = () => done({ok: ok && chartChanged, dom, sync, total: tTotal, chart: tChart, chartChanged,
                               frame: performance.now() - t0, firstFrame: frameRendered,
                               value: String(el.value), shown: totalText()});
    if (frameRendered !== null) afterFrame(report); else pending = report;
  }
});
"#;

/// The page's sliders stepped for interaction to next paint, in the default scenario: the two
/// stepped choices and the sequence by arrows, the power-of-two sliders by Chromium's big step.
const PAGE_SLIDERS: [Slider; 6] = [
    Slider {
        css: "#weights",
        big_step: false,
    },
    Slider {
        css: "#batch",
        big_step: true,
    },
    Slider {
        css: "#seq",
        big_step: false,
    },
    Slider {
        css: "#lora-rank",
        big_step: true,
    },
    Slider {
        css: "#grad-accum",
        big_step: true,
    },
    Slider {
        css: "#gpus",
        big_step: true,
    },
];

/// The two floors and their script, served beside the page.
const FLOORS: e2e::ExtraPages = &[
    (FLOOR_PATH, FLOOR_PAGE),
    (WIDE_FLOOR_PATH, WIDE_FLOOR_PAGE),
    (FLOOR_SCRIPT_PATH, FLOOR_SCRIPT),
];

/// Chromium switches of the next-paint session: frames start as soon as there is something to
/// draw instead of on the next 60 Hz tick. With the tick, a step waits 0-16.7 ms for it whatever
/// the page does, and the blank-page floor itself has about half its steps at 16 ms or more.
const NO_FRAME_TICK: [&str; 2] = ["--disable-gpu-vsync", "--disable-frame-rate-limit"];

/// Interaction to next paint on the page and on both floors, in the same run, in a browser of
/// their own. VRAM_BENCH_TRACE=file also records Chromium's trace of all three into file.
fn next_paint(
    driver: &Driver,
    server: &StaticServer,
    steps_each: usize,
) -> [Result<FrameRun, String>; 3] {
    let traced = std::env::var_os("VRAM_BENCH_TRACE");
    let session = &Session::with_args(driver, 1280, 1000, &NO_FRAME_TICK, traced.is_some());
    // each floor's presses: as many as the page's six sliders get, none with VRAM_BENCH_FLOORS=0
    let floor_presses = if std::env::var("VRAM_BENCH_FLOORS").is_ok_and(|v| v == "0") {
        0
    } else {
        steps_each * PAGE_SLIDERS.len()
    };
    let floor_at = |path: &str| {
        session.goto(&server.url(&format!("/{path}")));
        let slider = [Slider {
            css: "#s",
            big_step: false,
        }];
        frames::run_steps(session, &slider, floor_presses, "#total")
    };
    let floor = floor_at(FLOOR_PATH);
    let wide = floor_at(WIDE_FLOOR_PATH);
    session.goto(&server.url("/"));
    session.wait_for("#chart[data-first-draw]", 30);
    if let Some(hidden) = std::env::var_os("VRAM_BENCH_HIDE") {
        hide(session, &hidden.to_string_lossy());
    }
    if let Some(css) = std::env::var_os("VRAM_BENCH_CSS") {
        add_rules(session, &css.to_string_lossy());
    }
    let sliders = chosen_sliders();
    let profiled = std::env::var_os("VRAM_BENCH_PROFILE");
    if profiled.is_some() {
        e2e::profile::start(session);
    }
    let page = frames::run_steps(session, &sliders, steps_each, "#total");
    if let Some(path) = profiled {
        let profile = e2e::profile::stop_into(session, &path);
        let presses = sliders.len() * steps_each;
        e2e::profile::print_top(&profile, presses, "page presses", "a press", 60);
    }
    if let Some(path) = traced {
        let events = session.timeline();
        let _ = std::fs::write(&path, serde_json::Value::from(events.clone()).to_string());
        if std::env::var_os("VRAM_BENCH_PAINTS").is_some() {
            report_paints(session, &events);
        }
        // each floor's presses, then the page's (fewer with VRAM_BENCH_ONLY)
        let presses = steps_each * sliders.len();
        report_unrounded(&frames::press_durations(&events), floor_presses, presses);
        if let Some((lazy, optimised)) = frames::compiled_during_presses(&events, presses) {
            println!(
                "WebAssembly compiled within {} ms of the page's {presses} presses: {lazy:.1} ms on first calls (main thread), {optimised:.1} ms optimising (background threads)",
                frames::COMPILE_WINDOW_MS
            );
        }
        if let Some(draws) = e2e::draws::draws_after_presses(&events) {
            report_draws(&draws, floor_presses, presses);
        }
        match frames::press_breakdown(&events, presses, 2 * floor_presses + presses) {
            Some(ms) => {
                let parts: Vec<String> = frames::PARTS
                    .iter()
                    .zip(&ms)
                    .map(|(p, m)| format!("{p} {m:.2}"))
                    .collect();
                println!(
                    "renderer main thread per page press, keydown to commit, median ms (Chromium trace in {}): {}; whole span {:.2}",
                    path.to_string_lossy(),
                    parts.join(", "),
                    ms[frames::PARTS.len()]
                );
            }
            None => println!("the trace in {} does not hold every press (chromedriver keeps only the last seconds: use STEPS of about 3)", path.to_string_lossy()),
        }
    }
    [page, floor, wide]
}

/// What the display compositor drew for each floor's presses and the page's (a trace recorded
/// with `VRAM_BENCH_TRACE_CATEGORIES` naming `viz`); the floors only when the trace holds every
/// press of the session (chromedriver keeps only its last seconds).
fn report_draws(draws: &[e2e::draws::Draw], floor_presses: usize, presses: usize) {
    let n = draws.len();
    let mut parts = vec![("page", &draws[n.saturating_sub(presses)..])];
    if floor_presses > 0 && n == 2 * floor_presses + presses {
        parts.insert(0, ("blank floor", &draws[..floor_presses]));
        parts.insert(1, ("wide floor", &draws[floor_presses..2 * floor_presses]));
    }
    for (name, part) in parts {
        if let Some(line) = e2e::draws::summary(part) {
            println!("display compositor, {name} presses (a trace with viz): {line}");
        }
    }
}

/// "slow steps' time (median of N; Event Timing): input waiting 0.4 ms, handlers 3.1 ms, then
/// to the paint 13.0 ms": which part of the slow steps to shorten.
fn phases_line(phases: &[frames::Phases]) -> Option<String> {
    let median = |f: fn(&frames::Phases) -> f64| stats(phases.iter().map(f).collect()).0;
    (!phases.is_empty()).then(|| {
        format!(
            "slow steps' time (median of {}; Event Timing): input waiting {:.1} ms, handlers {:.1} ms, then to the paint {:.1} ms",
            phases.len(),
            median(|p| p.delay),
            median(|p| p.handlers),
            median(|p| p.to_paint)
        )
    })
}

/// The page's sliders, or those VRAM_BENCH_ONLY names (comma-separated selectors), in its order.
fn chosen_sliders() -> Vec<Slider> {
    let Some(only) = std::env::var_os("VRAM_BENCH_ONLY") else {
        return PAGE_SLIDERS.to_vec();
    };
    let only = only.to_string_lossy().to_string();
    let names: Vec<&str> = only.split(',').map(str::trim).collect();
    names
        .iter()
        .filter_map(|name| PAGE_SLIDERS.iter().find(|s| s.css == *name))
        .copied()
        .collect()
}

/// Chromium's `Paint` events of the trace by the element each painted (a panel on a layer of its
/// own, the document), with their count and time: which parts of the page the presses repaint.
/// The elements are named while the page is still open (the trace gives only node ids).
fn report_paints(session: &Session, events: &[serde_json::Value]) {
    session.cdp("DOM.getDocument", json!({"depth": -1}));
    let mut by_node = std::collections::BTreeMap::<u64, (usize, f64)>::new();
    for e in events
        .iter()
        .filter(|e| e["name"] == "Paint" && e["ph"] == "X")
    {
        if let Some(node) = e["args"]["data"]["nodeId"].as_u64() {
            let entry = by_node.entry(node).or_default();
            entry.0 += 1;
            entry.1 += e["dur"].as_f64().unwrap_or(0.0) / 1000.0;
        }
    }
    for (node, (count, ms)) in by_node {
        // a node of a floor's page, left before the page was opened, is no longer there
        let Some(d) = session.try_cdp("DOM.describeNode", json!({"backendNodeId": node})) else {
            println!("paint of node {node}: {count} paints, {ms:.2} ms: (a page since left)");
            continue;
        };
        println!(
            "paint of node {node}: {count} paints, {ms:.2} ms: {} {}",
            d["node"]["nodeName"], d["node"]["attributes"]
        );
    }
}

/// The median and the largest unrounded duration of the floor's, the wide floor's and the
/// page's presses, from the trace (the session's last key presses: `floor` on each floor, then
/// `page` on the page).
fn report_unrounded(durations: &[f64], floor: usize, page: usize) {
    let all = 2 * floor + page;
    if durations.len() < all {
        println!("the trace holds {} of the {all} presses (chromedriver keeps only the last seconds: use STEPS of about 3)", durations.len());
        return;
    }
    let last = &durations[durations.len() - all..];
    let runs = [&last[..floor], &last[floor..2 * floor], &last[2 * floor..]];
    let parts: Vec<String> = ["floor", "wide floor", "page"]
        .iter()
        .zip(runs)
        .map(|(name, run)| {
            let (median, _, max) = stats(run.to_vec());
            let under = run.iter().filter(|ms| **ms < 12.0).count();
            format!(
                "{name} median {median:.1} ms, max {max:.1} ms, {under} of {} under 12 ms",
                run.len()
            )
        })
        .collect();
    println!("unrounded durations from the trace (key event to frame presented; the tracing slows every part): {}", parts.join("; "));
}

/// Hides every element of the page matching each of the comma-separated `selectors` with
/// `visibility: hidden` (a style rule, so elements the page adds later are hidden too): they are
/// still updated, styled and laid out, but not painted or rastered, so a run with a chart hidden
/// tells what painting that chart costs a step.
fn hide(session: &Session, selectors: &str) {
    for css in selectors
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        let found = session.js(
            "return document.querySelectorAll(arguments[0]).length;",
            vec![json!(css)],
        );
        adopt_rules(
            session,
            &format!("{css} {{ visibility: hidden !important; }}"),
        );
        println!("VRAM_BENCH_HIDE: {css} hidden ({found} now)");
    }
}

/// Adds `css` (rules, e.g. `#chart svg { display: none }`) to the page's styles before its key
/// presses: what a part costs when it is not styled, laid out or painted at all.
fn add_rules(session: &Session, css: &str) {
    adopt_rules(session, css);
    println!("VRAM_BENCH_CSS: {css}");
}

/// Adds `css` to the page as an adopted style sheet, which the page's CSP allows where a
/// `<style>` element would not.
fn adopt_rules(session: &Session, css: &str) {
    session.js(
        "const s = new CSSStyleSheet(); s.replaceSync(arguments[0]); document.adoptedStyleSheets = [...document.adoptedStyleSheets, s];",
        vec![json!(css)],
    );
}

/// Prints the three runs (the page, the floor, the wide floor); true when one could not be
/// measured.
fn report_next_paint(runs: &[Result<FrameRun, String>; 3]) -> bool {
    println!("interaction to next paint (Event Timing API, trusted key presses through WebDriver; budget: 95 % of steps under 16 ms, none over 50 ms):");
    let mut broken = false;
    let names = ["page", "blank-page floor", "wide floor"];
    for (name, run) in names.into_iter().zip(runs) {
        match run {
            Ok(r) => {
                let met =
                    r.within_16ms() * 100 >= r.steps * 95 && r.max().is_none_or(|m| m <= 50.0);
                println!(
                    "  {name:<17} {}   budget: {}; {} steps changed the total, {} of {} inputs showed it in the next frame",
                    r.summary(),
                    verdict(met),
                    r.changed,
                    r.same_frame,
                    r.inputs
                );
                if let Some((median, p90, within)) = r.main_thread_summary() {
                    println!(
                        "    main thread, keydown to the frame's commit (unrounded): median {median:.1} ms, p90 {p90:.1} ms, {within} of {} within 8 ms",
                        r.main_thread.len()
                    );
                }
                if let Some(line) = phases_line(&r.slow_phases) {
                    println!("    {line}");
                }
                if r.slow_per_slider.len() > 1 {
                    let per: Vec<String> = r
                        .slow_per_slider
                        .iter()
                        .map(|(id, n)| format!("{id} {n}"))
                        .collect();
                    println!("    slow steps per slider: {}", per.join(", "));
                }
                if std::env::var_os("VRAM_BENCH_RAW").is_some() {
                    eprintln!("{name}: slow steps (ms) {:?}", r.slow);
                    let main: Vec<String> =
                        r.main_thread.iter().map(|m| format!("{m:.1}")).collect();
                    eprintln!("{name}: main thread per press (ms) {}", main.join(" "));
                }
            }
            Err(e) => {
                broken = true;
                println!("  {name}: not measured: {e}");
            }
        }
    }
    broken
}

/// A number after `key ` in the page's engine_bench text ("estimate 12.3 us, solver 456 us, ...").
/// What `calls` calls of the bench build's hook `hook` (`window.wasmBindings[hook]`) returned,
/// in order; none where the page has no such hook (a build without `--features bench`).
fn hook_texts(session: &Session, hook: &str, calls: usize) -> Vec<String> {
    let call =
        "const h = window.wasmBindings && window.wasmBindings[arguments[0]]; return h ? h() : null";
    (0..calls)
        .filter_map(|_| {
            session
                .js(call, vec![json!(hook)])
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

fn number_after(text: &str, key: &str) -> Option<f64> {
    let rest = &text[text.find(key)? + key.len()..];
    let num: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    num.parse().ok()
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let changes = args.first().copied().unwrap_or(240);
    let loads = args.get(1).copied().unwrap_or(20).max(1);
    let loadavg = || {
        std::fs::read_to_string("/proc/loadavg")
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    let load_before = loadavg();
    let dist = dist_dir();
    let steps_each = args.get(2).copied().unwrap_or(25);
    let server = StaticServer::start_with(dist.clone(), FLOORS);
    let driver = Driver::start();
    let session = Session::new(&driver, 1280, 1000);
    let mut broken = false;

    // load: navigation start to the first chart drawn (the page stamps data-first-draw with
    // performance.now()); the server sends Cache-Control: no-store, so every load fetches and
    // compiles everything again; the first load is also the browser's first (fresh profile)
    let mut load = Vec::new();
    for i in 0..loads {
        session.goto(&server.url(&format!("/?v=1&b={}", 1 << (i % 8))));
        session.wait_for("#chart[data-first-draw]", 30);
        let t = session.js(
            "return parseFloat(document.querySelector('#chart').dataset.firstDraw)",
            vec![],
        );
        load.push(t.as_f64().unwrap_or(f64::NAN));
    }
    let first_load = load[0];

    // interaction: the default scenario (LoRA, Llama 3.1 8B); batch, sequence length and LoRA
    // rank in turn, each time to a slider position that changes the value (batch and rank step
    // through powers of two, 100 positions apart; sequence length is log-scaled)
    session.goto(&server.url("/"));
    session.wait_for("#chart[data-first-draw]", 30);
    let sliders = ["#batch", "#seq", "#lora-rank"];
    let mut dom = Vec::new();
    let mut frame = Vec::new();
    let mut sync = Vec::new();
    let mut per_slider: [Vec<f64>; 3] = Default::default();
    let mut failed = Vec::new();
    for i in 0..changes {
        let which = i % 3;
        let k = i / 3;
        let pos = match which {
            0 => 100 * ((3 * k + 1) % 11),
            1 => 100 * ((7 * k + 3) % 11) + 37,
            _ => 100 * ((3 * k + 5) % 11),
        };
        let pos = pos.min(1000);
        let r = session.js_async(CHANGE, vec![json!(sliders[which]), json!(pos.to_string())]);
        if std::env::var_os("VRAM_BENCH_RAW").is_some() {
            eprintln!("{} = {pos}: {r}", sliders[which]);
        }
        if r["ok"].as_bool() == Some(true) {
            let ms = r["dom"].as_f64().unwrap_or(f64::NAN);
            dom.push(ms);
            per_slider[which].push(ms);
            frame.push(r["frame"].as_f64().unwrap_or(f64::NAN));
            sync.push(r["sync"].as_f64().unwrap_or(f64::NAN));
        } else {
            failed.push(format!("{} = {pos}: {r}", sliders[which]));
        }
    }

    let frames = next_paint(&driver, &server, steps_each);

    let ua = session.js("return navigator.userAgent", vec![]);
    // the engine inside the wasm: one call to warm up (V8 compiles wasm lazily and optimises hot
    // functions later), then ENGINE_RUNS calls; each is one sample of tens of milliseconds, so
    // other work on the machine moves single runs a lot: the median is reported, with the range
    let engine: Vec<String> = hook_texts(&session, "engine_bench", ENGINE_RUNS + 1)
        .into_iter()
        .skip(1)
        .collect();
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
    let browser = ua
        .as_str()
        .and_then(|u| {
            u.split_whitespace()
                .find(|w| w.starts_with("HeadlessChrome/") || w.starts_with("Chrome/"))
        })
        .unwrap_or("?");

    println!("machine: {cpu}, {cores} logical cores; browser: {browser} (headless, software rendering); page: {}", dist.display());
    println!(
        "load average before / after: {load_before} / {} (other work on the machine slows every figure)",
        loadavg()
    );
    println!(
        "interaction: {} slider changes ({} measured; batch, sequence length, LoRA rank in turn), input event -> #total text and #chart SVG both changed",
        changes,
        dom.len()
    );
    let (m, p, x) = stats(dom.clone());
    println!(
        "  DOM updated      median {m:6.2} ms  p95 {p:6.2} ms  max {x:6.2} ms   budget median < 8 ms: {}, p95 < 16 ms: {}{}",
        verdict(m < 8.0),
        verdict(p < 16.0),
        if dom.len() < 200 { " (fewer than 200 changes: not a budget run)" } else { "" }
    );
    let (fm, fp, fx) = stats(frame);
    println!("  frame rendered   median {fm:6.2} ms  p95 {fp:6.2} ms  max {fx:6.2} ms   (input at a frame's start -> that frame's style, layout, paint done)");
    let (sm, sp, sx) = stats(sync);
    println!("  dispatchEvent    median {sm:6.2} ms  p95 {sp:6.2} ms  max {sx:6.2} ms   (the part that ran synchronously inside the input event)");
    let names = ["batch", "seq", "lora-rank"];
    let per: Vec<String> = per_slider
        .iter()
        .zip(names)
        .map(|(v, n)| {
            let (m, p, _) = stats(v.clone());
            format!("{n} {m:.2} / {p:.2}")
        })
        .collect();
    println!("  per slider (DOM median / p95 ms): {}", per.join(", "));
    if !failed.is_empty() {
        broken = true;
        println!(
            "  {} change(s) did not update both #total and #chart within 2 s, e.g. {}",
            failed.len(),
            failed[0]
        );
    }
    broken |= report_next_paint(&frames);
    let (m, p, x) = stats(load.clone());
    println!(
        "load: {loads} loads from 127.0.0.1, no cache, navigation start -> first chart drawn: first {first_load:.1} ms, median {m:.1} ms, p95 {p:.1} ms, max {x:.1} ms   budget median < 300 ms: {}",
        verdict(m < 300.0)
    );
    if engine.is_empty() {
        broken = true;
        println!("engine in wasm: window.wasmBindings.engine_bench not found (is the page built from this tree?)");
    } else {
        println!(
            "engine in wasm (default scenario), last of {} runs: {}",
            engine.len(),
            engine[engine.len() - 1]
        );
        let pick = |key: &str| {
            let v: Vec<f64> = engine.iter().filter_map(|t| number_after(t, key)).collect();
            let (m, _, max) = stats(v.clone());
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            (m, min, max)
        };
        let (e, e_lo, e_hi) = pick("estimate");
        let (s, s_lo, s_hi) = pick("solver");
        let (w, w_lo, w_hi) = pick("sweep)");
        // what a step's frame computes: reported by builds since the growth chart's sweep left it
        let frame = if engine.iter().any(|t| t.contains("bars)")) {
            let (f, f_lo, f_hi) = pick("bars)");
            format!(", a step's frame {f:.0} us ({f_lo:.0}-{f_hi:.0})")
        } else {
            String::new()
        };
        println!("  median of {} runs (min-max): estimate {e:.1} us ({e_lo:.1}-{e_hi:.1}), solver {s:.0} us ({s_lo:.0}-{s_hi:.0}), whole memo {w:.0} us ({w_lo:.0}-{w_hi:.0}){frame}", engine.len());
        println!(
            "  budgets: estimate < 50 us: {}, solver < 1 ms: {}; the whole memo (27-point sweep included) is {:.0}% of the 8 ms interaction budget",
            verdict(e < 50.0),
            verdict(s < 1000.0),
            w / 80.0
        );
    }
    drop(session);
    drop(driver);
    drop(server);
    if broken {
        std::process::exit(1);
    }
}
