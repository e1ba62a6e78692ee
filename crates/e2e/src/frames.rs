//! Interaction to next paint, measured as the browser measures it: trusted key presses on focused
//! sliders (WebDriver key actions), each timed by the Event Timing API from the input event to the
//! next frame painted. Chromium rounds those durations to 8 ms and reports only entries of at least
//! `durationThreshold` (16 ms, the lowest it allows), so a step that is not reported took under
//! 16 ms: the share is counted over the steps pressed, not over the entries.

use serde_json::json;

use crate::Session;

/// The blank-page floor: one slider and a 70-rectangle SVG redrawn whole on each step, served by
/// the benchmark at [`FLOOR_PATH`] (never part of the page).
pub const FLOOR_PAGE: &str = include_str!("../pages/frame-floor.html");
pub const FLOOR_PATH: &str = "frame-floor.html";

/// The wide floor: the same work per step laid out as the page lays out its answer (the slider
/// at the left, the total and the chart across the answer column), so that a step damages about
/// as much of the window as a step of the page, served at [`WIDE_FLOOR_PATH`].
pub const WIDE_FLOOR_PAGE: &str = include_str!("../pages/frame-floor-wide.html");
pub const WIDE_FLOOR_PATH: &str = "frame-floor-wide.html";

/// The floors' script: what each step redraws (both pages load it from [`FLOOR_SCRIPT_PATH`]).
pub const FLOOR_SCRIPT: &str = include_str!("../pages/frame-floor.js");
pub const FLOOR_SCRIPT_PATH: &str = "frame-floor.js";

/// A slider to step, and whether a step is Chromium's big step (PageUp/PageDown, a tenth of the
/// range) instead of an arrow: on a power-of-two slider one arrow step is 1/1000 of the range and
/// rarely changes the value.
#[derive(Clone, Copy)]
pub struct Slider {
    pub css: &'static str,
    pub big_step: bool,
}

/// One run of steps: how many were pressed, the Event Timing duration of each slow one (16 ms or
/// more), how many changed the total, and how many showed the new total in the frame that
/// followed the input (the page did its work before that frame, not after it).
#[derive(Debug, Default)]
pub struct FrameRun {
    pub steps: usize,
    pub slow: Vec<f64>,
    pub changed: usize,
    pub same_frame: usize,
    pub inputs: usize,
    /// How many slow steps each slider had (by the id of the event's target), in id order.
    pub slow_per_slider: Vec<(String, usize)>,
    /// Where each slow step's time went, from its slowest entry: the input's wait for the main
    /// thread, the event handlers, and the rest until the frame was presented (ms, unrounded
    /// but for the last, which takes the rounding of the duration).
    pub slow_phases: Vec<Phases>,
    /// Each press's main-thread time, unrounded (ms): from the keydown's timestamp until a task
    /// posted from the next animation frame runs, that is until the frame's style, layout,
    /// paint and commit are done. What comes after (raster, the display compositor) is not in it.
    pub main_thread: Vec<f64>,
}

/// Installed once per page load: collects Event Timing entries and, for every `input`, whether
/// `total` (a CSS selector) already shows a new text in the next animation frame.
const OBSERVE: &str = r#"
if (!window.__frames) {
  const f = window.__frames = {events: [], inputs: 0, sameFrame: 0, mainThread: []};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) f.events.push({name: e.name, duration: e.duration, id: e.interactionId, target: (e.target && e.target.id) || '', delay: e.processingStart - e.startTime, handlers: e.processingEnd - e.processingStart});
  }).observe({type: 'event', durationThreshold: 16, buffered: true});
  const total = () => { const e = document.querySelector(arguments[0]); return e ? e.textContent : null; };
  addEventListener('keydown', (k) => {
    const t0 = k.timeStamp;
    requestAnimationFrame(() => {
      const mc = new MessageChannel();
      mc.port1.onmessage = () => f.mainThread.push(performance.now() - t0);
      mc.port2.postMessage(0);
    });
  }, true);
  addEventListener('input', () => {
    f.inputs++;
    const before = total();
    requestAnimationFrame(() => { if (total() !== before) f.sameFrame++; });
  }, true);
}
"#;

/// Before a step: the slider's value and range, and the total's text.
const BEFORE_STEP: &str = r#"
const e = document.querySelector(arguments[0]), t = document.querySelector(arguments[1]);
return e ? [Number(e.value), Number(e.min), Number(e.max), t ? t.textContent : null] : null;
"#;

/// After a step: once the next frame has been rendered, the total's text.
const AFTER_STEP: &str = r#"
const [sel, done] = [arguments[0], arguments[arguments.length - 1]];
requestAnimationFrame(() => {
  const mc = new MessageChannel();
  mc.port1.onmessage = () => { const t = document.querySelector(sel); done(t ? t.textContent : null); };
  mc.port2.postMessage(0);
});
"#;

/// The Event Timing entries of the run, read after the last paint has been reported.
const COLLECT: &str = r#"
const done = arguments[arguments.length - 1];
setTimeout(() => done(window.__frames || null), 500);
"#;

/// WebDriver's codes for the keys (W3C WebDriver, "keyboard actions").
fn key(up: bool, big: bool) -> &'static str {
    match (up, big) {
        (true, false) => "\u{E014}",  // ArrowRight
        (false, false) => "\u{E012}", // ArrowLeft
        (true, true) => "\u{E00E}",   // PageUp
        (false, true) => "\u{E00F}",  // PageDown
    }
}

/// The pause between one slider's presses and the next slider's: longer than the page's
/// `components::moving::PAUSE` (600 ms).
pub const BETWEEN_SLIDERS: std::time::Duration = std::time::Duration::from_millis(1000);

/// Before a slider's steps: the slider scrolled into view and focused, as a user reaches it
/// (scrolling, or Tab) before stepping it. WebDriver's send-keys focuses an element that is not
/// focused and scrolls it into view in the same frame as its first key, so without this the
/// first step of a slider below the fold painted a scroll of up to 1,100 px and a focus ring
/// along with the step. Later keys go to the focused slider
/// without scrolling.
const REACH_SLIDER: &str = r#"
const e = document.querySelector(arguments[0]);
if (e) { e.scrollIntoView({block: 'center'}); e.focus({preventScroll: true}); }
return !!e;
"#;

/// Presses `steps_each` keys on each slider in turn (up until the end of its range, then down),
/// waiting for the frame after each and pausing between sliders, and reads the Event Timing
/// entries of the whole run.
/// `total` is the selector of the text every change should update.
pub fn run_steps(
    session: &Session,
    sliders: &[Slider],
    steps_each: usize,
    total: &str,
) -> Result<FrameRun, String> {
    session.js(OBSERVE, vec![json!(total)]);
    let mut run = FrameRun::default();
    for slider in sliders {
        session.js(REACH_SLIDER, vec![json!(slider.css)]);
        // a user pauses between reaching a slider and stepping it, and between sliders: the
        // scroll's frames, and what the page holds while a slider moves (the bars' axis) or
        // leaves until input pauses (panels off screen), settle before the first step
        std::thread::sleep(BETWEEN_SLIDERS);
        let mut up = true;
        for _ in 0..steps_each {
            let before = session.js(BEFORE_STEP, vec![json!(slider.css), json!(total)]);
            let (Some(value), Some(min), Some(max)) =
                (before[0].as_f64(), before[1].as_f64(), before[2].as_f64())
            else {
                return Err(format!("no slider {}", slider.css));
            };
            if value >= max {
                up = false;
            } else if value <= min {
                up = true;
            }
            session.press(slider.css, key(up, slider.big_step));
            let after = session.js_async(AFTER_STEP, vec![json!(total)]);
            run.steps += 1;
            run.changed += usize::from(after != before[3]);
        }
    }
    let seen = session.js_async(COLLECT, vec![]);
    let events = seen["events"]
        .as_array()
        .ok_or("no Event Timing entries were collected")?;
    run.slow = slowest_per_interaction(
        events
            .iter()
            .filter_map(|e| Some((e["id"].as_u64()?, e["duration"].as_f64()?))),
    );
    run.slow_per_slider = slow_per_target(
        events
            .iter()
            .filter_map(|e| Some((e["id"].as_u64()?, e["target"].as_str()?.to_string()))),
    );
    run.slow_phases = phases_of_slowest(events.iter().filter_map(|e| {
        Some((
            e["id"].as_u64()?,
            Phases {
                delay: e["delay"].as_f64()?,
                handlers: e["handlers"].as_f64()?,
                to_paint: e["duration"].as_f64()?
                    - e["delay"].as_f64()?
                    - e["handlers"].as_f64()?,
            },
        ))
    }));
    run.inputs = seen["inputs"].as_u64().unwrap_or(0) as usize;
    run.same_frame = seen["sameFrame"].as_u64().unwrap_or(0) as usize;
    run.main_thread = seen["mainThread"]
        .as_array()
        .map(|v| v.iter().filter_map(serde_json::Value::as_f64).collect())
        .unwrap_or_default();
    Ok(run)
}

/// A key press is one interaction (its keydown, input and keyup share an interaction id): its
/// duration is the longest of its entries. Entries without an interaction id are not steps.
fn slowest_per_interaction(entries: impl Iterator<Item = (u64, f64)>) -> Vec<f64> {
    let mut by_id = std::collections::BTreeMap::<u64, f64>::new();
    for (id, ms) in entries.filter(|(id, _)| *id > 0) {
        let slot = by_id.entry(id).or_insert(0.0);
        *slot = slot.max(ms);
    }
    by_id.into_values().collect()
}

/// One Event Timing entry's duration in three parts (ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phases {
    /// From the input to its handlers' start: the main thread was busy with other work.
    pub delay: f64,
    /// The event's handlers (and the microtasks they queued).
    pub handlers: f64,
    /// From the handlers' end to the frame presented: style, layout, paint, raster, display.
    pub to_paint: f64,
}

impl Phases {
    fn total(&self) -> f64 {
        self.delay + self.handlers + self.to_paint
    }
}

/// The phases of each interaction's slowest entry (the one that gives its duration).
fn phases_of_slowest(entries: impl Iterator<Item = (u64, Phases)>) -> Vec<Phases> {
    let mut by_id = std::collections::BTreeMap::<u64, Phases>::new();
    for (id, p) in entries.filter(|(id, _)| *id > 0) {
        let slot = by_id.entry(id).or_insert(p);
        if p.total() > slot.total() {
            *slot = p;
        }
    }
    by_id.into_values().collect()
}

/// How many slow interactions each target had: an interaction counts once, for the target of its
/// first entry (a key press's keydown, input and keyup share their slider).
fn slow_per_target(entries: impl Iterator<Item = (u64, String)>) -> Vec<(String, usize)> {
    let mut target_of = std::collections::BTreeMap::<u64, String>::new();
    for (id, target) in entries.filter(|(id, _)| *id > 0) {
        target_of.entry(id).or_insert(target);
    }
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for target in target_of.into_values() {
        *counts.entry(target).or_insert(0) += 1;
    }
    counts.into_iter().collect()
}

impl FrameRun {
    /// Steps painted in under 16 ms: those Chromium did not report.
    pub fn within_16ms(&self) -> usize {
        self.steps.saturating_sub(self.slow.len())
    }

    /// The 95th percentile (nearest rank) over all steps; `None` when it is under 16 ms.
    pub fn p95(&self) -> Option<f64> {
        let mut slow = self.slow.clone();
        slow.sort_by(|a, b| b.total_cmp(a));
        // ranks from the slowest: the p95 is the (steps - ceil(0.95 steps) + 1)-th slowest
        let from_top = self.steps - (self.steps * 95).div_ceil(100) + 1;
        slow.get(from_top - 1).copied()
    }

    pub fn max(&self) -> Option<f64> {
        self.slow.iter().copied().reduce(f64::max)
    }

    /// How many slow steps Chromium reported at 16 ms, at 24 ms, and at 32 ms or more (it rounds
    /// durations to 8 ms): a change that moves steps from 24 to 16 ms shows here before it
    /// shows in the share under 16 ms.
    pub fn spread(&self) -> [usize; 3] {
        let at = |lo: f64, hi: f64| self.slow.iter().filter(|d| (lo..hi).contains(*d)).count();
        [at(0.0, 20.0), at(20.0, 28.0), at(28.0, f64::INFINITY)]
    }

    /// The median and the 90th percentile (nearest rank) of [`FrameRun::main_thread`], and how
    /// many presses were done on the main thread within 8 ms.
    pub fn main_thread_summary(&self) -> Option<(f64, f64, usize)> {
        let mut ms = self.main_thread.clone();
        ms.sort_by(f64::total_cmp);
        let rank = |q: usize| ms[nearest_rank(ms.len(), q)];
        let within = ms.iter().filter(|m| **m < 8.0).count();
        (!ms.is_empty()).then(|| (rank(50), rank(90), within))
    }

    /// "142 of 150 steps (94.7 %) under 16 ms, p95 16 ms, max 24 ms (slow: 6 at 16, 2 at 24,
    /// 0 at 32+)".
    pub fn summary(&self) -> String {
        let ms = |v: Option<f64>| v.map_or("< 16 ms".to_string(), |v| format!("{v:.0} ms"));
        let [a, b, c] = self.spread();
        format!(
            "{} of {} steps ({:.1} %) under 16 ms, p95 {}, max {} (slow: {a} at 16, {b} at 24, {c} at 32+)",
            self.within_16ms(),
            self.steps,
            100.0 * self.within_16ms() as f64 / self.steps.max(1) as f64,
            ms(self.p95()),
            ms(self.max())
        )
    }
}

/// The index of the `percent`th percentile among `len` sorted values (nearest rank; 0 when
/// there are none).
pub(crate) fn nearest_rank(len: usize, percent: usize) -> usize {
    (len * percent).div_ceil(100).max(1) - 1
}

/// The parts of a press on the renderer's main thread, in a Chromium trace.
pub const PARTS: [&str; 8] = [
    "EventDispatch",
    "ParseHTML",
    "UpdateLayoutTree",
    "Layout",
    "PrePaint",
    "Paint",
    "Layerize",
    "Commit",
];

/// Where the last `presses` key presses of a Chromium trace spent the renderer's main thread,
/// from the keydown to the frame's commit: the median of each of [`PARTS`] (the keydown's
/// dispatch includes its input handler and the `innerHTML` parses), then of the whole span.
/// `None` when the trace holds fewer than `pressed` keydowns (the session's every press):
/// chromedriver keeps only the trace's last seconds, and the last presses would be others.
pub fn press_breakdown(
    events: &[serde_json::Value],
    presses: usize,
    pressed: usize,
) -> Option<Vec<f64>> {
    let spans = main_thread_spans(events);
    let keydowns = keydowns(&spans);
    if keydowns.len() < pressed {
        return None;
    }
    let mut columns = vec![Vec::new(); PARTS.len() + 1];
    for &t0 in keydowns.iter().skip(keydowns.len().saturating_sub(presses)) {
        let commit = commit_end_after(&spans, t0)?;
        for (part, column) in PARTS.iter().zip(columns.iter_mut()) {
            let ms: f64 = spans
                .iter()
                .filter(|s| s.0 == *part && s.1 >= t0 && s.1 < commit)
                .filter(|s| *part != "EventDispatch" || s.3 == "keydown")
                .map(|s| s.2 / 1000.0)
                .sum();
            column.push(ms);
        }
        columns[PARTS.len()].push((commit - t0) / 1000.0);
    }
    columns
        .into_iter()
        .map(|mut c| {
            c.sort_by(f64::total_cmp);
            c.get(c.len() / 2).copied()
        })
        .collect()
}

/// A complete event of a trace's renderer main thread: its name, start (µs), duration (µs) and
/// the type of the DOM event it dispatched ("" for any other).
pub(crate) type Span<'a> = (&'a str, f64, f64, &'a str);

/// The complete events of the renderer's main thread (`CrRendererMain`) in a Chromium trace.
pub(crate) fn main_thread_spans(events: &[serde_json::Value]) -> Vec<Span<'_>> {
    let main: Vec<(u64, u64)> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["args"]["name"] == "CrRendererMain")
        .filter_map(|e| Some((e["pid"].as_u64()?, e["tid"].as_u64()?)))
        .collect();
    events
        .iter()
        .filter(|e| e["ph"] == "X")
        .filter(|e| {
            main.iter()
                .any(|m| e["pid"].as_u64() == Some(m.0) && e["tid"].as_u64() == Some(m.1))
        })
        .filter_map(|e| {
            let kind = e["args"]["data"]["type"].as_str().unwrap_or("");
            Some((
                e["name"].as_str()?,
                e["ts"].as_f64()?,
                e["dur"].as_f64()?,
                kind,
            ))
        })
        .collect()
}

/// When each keydown was dispatched on the main thread (µs), in the order of `spans`.
pub(crate) fn keydowns(spans: &[Span]) -> Vec<f64> {
    spans
        .iter()
        .filter(|s| s.0 == "EventDispatch" && s.3 == "keydown")
        .map(|s| s.1)
        .collect()
}

/// When the first commit to the compositor after `t0` ended (µs): the press's frame leaves the
/// main thread.
pub(crate) fn commit_end_after(spans: &[Span], t0: f64) -> Option<f64> {
    spans
        .iter()
        .filter(|s| s.0 == "Commit" && s.1 > t0)
        .map(|s| s.1 + s.2)
        .reduce(f64::min)
}

/// The unrounded duration (ms) of every key press in a Chromium trace, in order: the trace's
/// `EventTiming` events carry what the Event Timing API reports before it rounds to 8 ms (from
/// the key event to the frame presented), so a press can be looked at below that step (the
/// tracing itself slows every press).
pub fn press_durations(events: &[serde_json::Value]) -> Vec<f64> {
    let mut keydowns: Vec<(f64, f64)> = events
        .iter()
        .filter(|e| e["name"] == "EventTiming" && e["ph"] == "b")
        .map(|e| &e["args"]["data"])
        .filter(|d| d["type"] == "keydown")
        .filter_map(|d| Some((d["timeStamp"].as_f64()?, d["duration"].as_f64()?)))
        .collect();
    keydowns.sort_by(|a, b| a.0.total_cmp(&b.0));
    keydowns.into_iter().map(|(_, ms)| ms).collect()
}

/// How long a window after each key press is searched for compiling: the press's own frame and
/// its drawing (a press is painted within about 20 ms on this machine).
pub const COMPILE_WINDOW_MS: f64 = 25.0;

/// WebAssembly compiled while the last `presses` key presses of a trace recorded with the
/// `v8.wasm` category were drawn: the milliseconds of lazy compiling on the renderer's main
/// thread (`wasm.CompileLazy`: a function's first call) and of optimising on background threads
/// (`wasm.TopTierCompilation`: a function that has run enough), within [`COMPILE_WINDOW_MS`] of
/// each keydown. Both competed with those presses for the machine's two cores. `None` when the
/// trace holds no WebAssembly events (recorded without `v8.wasm`).
pub fn compiled_during_presses(events: &[serde_json::Value], presses: usize) -> Option<(f64, f64)> {
    let spans: Vec<(&str, f64, f64)> = events
        .iter()
        .filter(|e| e["ph"] == "X")
        .filter_map(|e| Some((e["name"].as_str()?, e["ts"].as_f64()?, e["dur"].as_f64()?)))
        .filter(|(name, ..)| matches!(*name, "wasm.CompileLazy" | "wasm.TopTierCompilation"))
        .collect();
    if spans.is_empty() {
        return None;
    }
    let mut keydowns: Vec<f64> = events
        .iter()
        .filter(|e| e["name"] == "EventDispatch" && e["args"]["data"]["type"] == "keydown")
        .filter_map(|e| e["ts"].as_f64())
        .collect();
    keydowns.sort_by(f64::total_cmp);
    let last = &keydowns[keydowns.len().saturating_sub(presses)..];
    let within = |ts: f64| {
        last.iter()
            .any(|k| ts >= *k && ts < k + COMPILE_WINDOW_MS * 1000.0)
    };
    let ms_of = |kind: &str| -> f64 {
        spans
            .iter()
            .filter(|(name, ts, _)| *name == kind && within(*ts))
            .map(|(_, _, dur)| dur / 1000.0)
            .sum()
    };
    Some((ms_of("wasm.CompileLazy"), ms_of("wasm.TopTierCompilation")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(steps: usize, slow: &[f64]) -> FrameRun {
        FrameRun {
            steps,
            slow: slow.to_vec(),
            ..FrameRun::default()
        }
    }

    #[test]
    fn compiling_is_counted_only_within_a_window_after_the_last_presses() {
        let key = |ts: f64| {
            json!({"name": "EventDispatch", "ph": "X", "ts": ts, "dur": 100.0,
                                   "args": {"data": {"type": "keydown"}}})
        };
        let compile =
            |name: &str, ts: f64, dur: f64| json!({"name": name, "ph": "X", "ts": ts, "dur": dur});
        let events = vec![
            key(0.0),
            compile("wasm.TopTierCompilation", 5_000.0, 9_000.0),
            key(100_000.0),
            compile("wasm.CompileLazy", 101_000.0, 2_000.0),
            compile("wasm.TopTierCompilation", 110_000.0, 4_000.0),
            // after the window, and a kind that is not counted
            compile("wasm.TopTierCompilation", 130_000.0, 8_000.0),
            compile("wasm.ValidateFunctionsStreaming", 102_000.0, 1_000.0),
        ];
        assert_eq!(compiled_during_presses(&events, 1), Some((2.0, 4.0)));
        assert_eq!(compiled_during_presses(&events, 2), Some((2.0, 13.0)));
        assert_eq!(compiled_during_presses(&events[..1], 1), None);
    }

    #[test]
    fn a_trace_gives_each_key_press_its_unrounded_duration_in_order() {
        let timing = |ts: f64, kind: &str, ms: f64| {
            json!({"name": "EventTiming", "ph": "b",
                   "args": {"data": {"type": kind, "timeStamp": ts, "duration": ms}}})
        };
        let events = [
            timing(20.0, "keydown", 13.4),
            timing(20.5, "keyup", 9.0),
            json!({"name": "EventTiming", "ph": "e", "args": {}}),
            timing(10.0, "keydown", 5.8),
        ];
        assert_eq!(press_durations(&events), vec![5.8, 13.4]);
    }

    #[test]
    fn a_slow_steps_phases_come_from_its_slowest_entry_and_steps_without_an_id_are_left_out() {
        let p = |delay: f64, handlers: f64, to_paint: f64| Phases {
            delay,
            handlers,
            to_paint,
        };
        let entries = [
            (7, p(1.0, 4.0, 11.0)),
            (7, p(9.0, 0.1, 14.9)),
            (8, p(0.5, 6.0, 9.5)),
            (0, p(30.0, 1.0, 1.0)),
        ];
        let phases = phases_of_slowest(entries.into_iter());
        assert_eq!(phases, vec![p(9.0, 0.1, 14.9), p(0.5, 6.0, 9.5)]);
    }

    #[test]
    fn the_main_thread_summary_gives_the_median_the_p90_and_the_presses_within_8_ms() {
        let mut r = run(10, &[]);
        assert_eq!(r.main_thread_summary(), None);
        r.main_thread = vec![9.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 12.0, 2.0, 1.0];
        // sorted 1..9, 12: the 5th is the median, the 9th the p90 (nearest rank)
        assert_eq!(r.main_thread_summary(), Some((5.0, 9.0, 7)));
    }

    #[test]
    fn steps_chromium_did_not_report_count_as_under_16_ms() {
        let r = run(150, &[16.0, 24.0, 40.0]);
        assert_eq!(r.within_16ms(), 147);
        assert_eq!(r.max(), Some(40.0));
        assert!(r.summary().starts_with("147 of 150 steps (98.0 %)"));
    }

    #[test]
    fn slow_steps_are_counted_by_the_eight_millisecond_step_chromium_rounds_to() {
        let r = run(150, &[16.0, 16.0, 24.0, 32.0, 48.0]);
        assert_eq!(r.spread(), [2, 1, 2]);
        assert!(r.summary().ends_with("(slow: 2 at 16, 1 at 24, 2 at 32+)"));
    }

    #[test]
    fn the_p95_is_under_16_ms_until_more_than_one_step_in_twenty_is_slow() {
        // 150 steps: the p95 is the 143rd fastest, the 8th slowest
        assert_eq!(run(150, &[24.0; 7]).p95(), None);
        let eight = [16.0, 16.0, 24.0, 24.0, 32.0, 32.0, 40.0, 48.0];
        assert_eq!(run(150, &eight).p95(), Some(16.0));
        assert_eq!(run(20, &[24.0, 16.0]).p95(), Some(16.0));
    }

    #[test]
    fn a_press_is_timed_from_its_keydown_to_the_next_commit() {
        let x = |name: &str, ts: f64, dur: f64, kind: &str| json!({"ph": "X", "pid": 1, "tid": 2, "name": name, "ts": ts, "dur": dur, "args": {"data": {"type": kind}}});
        let events = [
            json!({"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "CrRendererMain"}}),
            x("EventDispatch", 1000.0, 4000.0, "keydown"),
            x("EventDispatch", 1100.0, 3000.0, "input"),
            x("Layout", 6000.0, 2000.0, ""),
            x("Commit", 9000.0, 1000.0, ""),
            x("Layout", 12000.0, 5000.0, ""),
        ];
        assert_eq!(press_breakdown(&events, 1, 2), None, "a press is missing");
        let parts = press_breakdown(&events, 1, 1).unwrap();
        assert_eq!(parts[0], 4.0); // the keydown, not the input inside it
        assert_eq!(parts[3], 2.0); // the layout after the commit is the next frame's
        assert_eq!(parts[PARTS.len()], 9.0);
    }

    #[test]
    fn slow_presses_are_counted_once_per_slider_they_were_made_on() {
        let entries = [
            (7, "batch"),
            (7, "batch"),
            (8, "seq"),
            (0, "seq"),
            (9, "batch"),
        ];
        let entries = entries.map(|(id, t)| (id, t.to_string()));
        assert_eq!(
            slow_per_target(entries.into_iter()),
            vec![("batch".to_string(), 2), ("seq".to_string(), 1)]
        );
    }

    #[test]
    fn a_key_press_counts_once_at_its_slowest_entry() {
        let entries = [(7, 16.0), (7, 24.0), (0, 48.0), (9, 16.0)];
        assert_eq!(
            slowest_per_interaction(entries.into_iter()),
            vec![24.0, 16.0]
        );
    }
}
