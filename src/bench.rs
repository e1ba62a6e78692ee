//! The browser benchmark's hook, built only with `--features bench` (scripts/bench.sh builds
//! dist-bench/ with it); the production page does not carry it.

/// The page's clock, in milliseconds (`performance.now()`).
fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Times the engine inside the page (called by the browser benchmark through `window.wasmBindings`):
/// microseconds per estimate, per solver run and per "memory vs sequence" sweep.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn engine_bench() -> String {
    use vram_engine::{estimate_with, solve, Overview, Scenario};
    let s = Scenario::default();
    let arch = s.model.architecture().expect("default preset");
    let n = 2_000;
    let t0 = now();
    for _ in 0..n {
        let _ = std::hint::black_box(estimate_with(&s, &arch, true));
    }
    let estimate_us = (now() - t0) * 1000.0 / n as f64;
    let t0 = now();
    for _ in 0..20 {
        let _ = std::hint::black_box(solve(&s, &arch));
    }
    let solve_us = (now() - t0) * 1000.0 / 20.0;
    let t0 = now();
    for _ in 0..20 {
        // the top of the page's memo and the fit panels', as a step with them in sight
        if let Ok(o) = Overview::compute(&s) {
            let _ = std::hint::black_box(vram_engine::sweep(&s, &o.arch));
            let _ = std::hint::black_box(vram_engine::Advice::compute(&s, &o));
            let _ = std::hint::black_box(vram_engine::verdicts(&s, &o.arch));
        }
    }
    let page_us = (now() - t0) * 1000.0 / 20.0;
    // what a step's frame computes: the overview, without the growth chart's sweep
    let t0 = now();
    for _ in 0..20 {
        let _ = std::hint::black_box(Overview::compute(&s));
    }
    let frame_us = (now() - t0) * 1000.0 / 20.0;
    // written by vram_engine::decimal, as the page writes numbers: `{:.1}` would link core's float
    // printing into the benchmark's build, which the page it measures does not carry
    let d = vram_engine::decimal;
    format!(
        "estimate {} us, solver {} us, whole page memo (estimate + verdicts + solver + bars + sweep) {} us, a step's frame (estimate + bars) {} us",
        d(estimate_us, 1),
        d(solve_us, 0),
        d(page_us, 0),
        d(frame_us, 0)
    )
}

/// A patch's writes made nowhere: what the patch costs before the page's nodes are touched.
struct Unwritten;

impl crate::chart::patch::Tree for Unwritten {
    fn set_attribute(&self, _: &str, _: &str) {}
    fn remove_attribute(&self, _: &str) {}
    fn set_text(&self, _: &str) {}
    fn set_inner_html(&self, _: &str) {}
    fn element_child(&self, _: usize) -> Option<Self> {
        Some(Unwritten)
    }
    fn first_child(&self) -> Option<Self> {
        Some(Unwritten)
    }
    fn next_sibling(&self) -> Option<Self> {
        Some(Unwritten)
    }
    fn insert_html(&self, _: &str, _: &str) {}
    fn remove(&self) {}
}

/// Times a step's patch of the bars inside the page (called by the browser benchmark): the
/// default job's bars and the same job with twice the batch, their axis held as while a slider
/// moves, patched in turn into an element outside the page, and the same patches with their
/// writes made nowhere (the reading of the markup alone): microseconds per step, each way.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn patch_bench() -> String {
    use crate::chart::{self, patch::patch_inner, Held};
    use crate::components::results::selected_line;
    use crate::i18n::Lang;
    use vram_engine::{Overview, Scenario};
    use wasm_bindgen::JsCast;
    let base = Scenario::default();
    let mut doubled = base.clone();
    doubled.batch *= 2;
    let held = Some(Held {
        top: 1000.0,
        grown: false,
    });
    let bars = |s: &Scenario| {
        let o = Overview::compute(s).expect("the default job computes");
        let (limit, name) = selected_line(s);
        let (shapes, _) = chart::stacked(
            &chart::bars(&o.bars),
            s.gpus,
            (limit, &name),
            s.unit,
            Lang::En,
            None,
            held,
        );
        chart::svg_text(&shapes, chart::BARS_SIZE, chart::stacked_title(Lang::En))
    };
    let markups = [bars(&base), bars(&doubled)];
    let Some(host) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("div").ok())
    else {
        return String::new();
    };
    host.set_inner_html(&markups[0]);
    let host: web_sys::Node = host.unchecked_into();
    let n = 400;
    let time = |patch: &dyn Fn(&str, &str)| {
        let t0 = now();
        for i in 0..n {
            patch(&markups[i % 2], &markups[(i + 1) % 2]);
        }
        (now() - t0) * 1000.0 / n as f64
    };
    let on_host = |old: &str, new: &str| patch_inner(&host, old, new);
    let nowhere = |old: &str, new: &str| patch_inner(&Unwritten, old, new);
    // once each way first: V8 compiles a WebAssembly function when it is first called
    let _ = (time(&on_host), time(&nowhere));
    let (whole_us, reading_us) = (time(&on_host), time(&nowhere));
    let d = vram_engine::decimal;
    format!(
        "bars patched per step ({} bytes of markup): {} us, of which reading the markup {} us",
        markups[1].len(),
        d(whole_us, 0),
        d(reading_us, 0)
    )
}
