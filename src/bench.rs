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
    use vram_engine::{fit::solve, memory::estimate_with, Overview, Scenario};
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
            let _ = std::hint::black_box(vram_engine::fit::sweep(&s, &o.arch));
            let _ = std::hint::black_box(vram_engine::fit::Advice::compute(&s, &o));
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
    // written by vram_engine::units::decimal, as the page writes numbers: `{:.1}` would link core's float
    // printing into the benchmark's build, which the page it measures does not carry
    let d = vram_engine::units::decimal;
    format!(
        "estimate {} us, solver {} us, whole page memo (estimate + verdicts + solver + bars + sweep) {} us, a step's frame (estimate + bars) {} us",
        d(estimate_us, 1),
        d(solve_us, 0),
        d(page_us, 0),
        d(frame_us, 0)
    )
}
