//! The browser benchmark's slider steps replayed natively (`crates/e2e/src/frames.rs`): the six
//! sliders, 25 presses each, from the page's opening scenario, and the writes each press makes to
//! the page's charts through `patch_inner`, recorded instead of made. A whole rewrite
//! (`innerHTML`) is what a step must avoid: its elements are parsed, built, styled and laid out
//! anew, where a patched attribute restyles one element.

use std::cell::RefCell;
use std::rc::Rc;

use vram_engine::{Job, Overview, Scenario, Setting, SettingKind, SettingValue};

use super::model::Model;
use super::patch::{patch_inner, Tree};
use super::Held;
use crate::components::controls::log_pos;
use crate::components::settings_list::{asked, shown_choice, Asked, Input};
use crate::i18n::Lang;

/// One write a patch made.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    Attribute,
    Removed,
    Text,
    /// `innerHTML` of this many bytes, at this element (its path of child indices).
    Whole(Vec<usize>, usize),
    /// Elements inserted as markup of this many bytes.
    Inserted(usize),
    /// An element taken out.
    Gone,
}

/// An element of the record: its path from the host, and the log every element shares.
#[derive(Clone)]
pub struct Recorder {
    path: Vec<usize>,
    log: Rc<RefCell<Vec<Write>>>,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            path: Vec::new(),
            log: Rc::default(),
        }
    }
    pub fn take(&self) -> Vec<Write> {
        std::mem::take(&mut self.log.borrow_mut())
    }
    fn push(&self, w: Write) {
        self.log.borrow_mut().push(w);
    }
}

impl Tree for Recorder {
    fn set_attribute(&self, _: &str, _: &str) {
        self.push(Write::Attribute);
    }
    fn remove_attribute(&self, _: &str) {
        self.push(Write::Removed);
    }
    fn set_text(&self, _: &str) {
        self.push(Write::Text);
    }
    fn set_inner_html(&self, markup: &str) {
        self.push(Write::Whole(self.path.clone(), markup.len()));
    }
    fn element_child(&self, at: usize) -> Option<Self> {
        let mut path = self.path.clone();
        path.push(at);
        Some(Recorder {
            path,
            log: self.log.clone(),
        })
    }
    fn first_child(&self) -> Option<Self> {
        self.element_child(0)
    }
    fn next_sibling(&self) -> Option<Self> {
        let mut path = self.path.clone();
        *path.last_mut()? += 1;
        Some(Recorder {
            path,
            log: self.log.clone(),
        })
    }
    fn insert_html(&self, _: &str, markup: &str) {
        self.push(Write::Inserted(markup.len()));
    }
    fn remove(&self) {
        self.push(Write::Gone);
    }
}

/// A slider of the benchmark: its setting, and whether a press is Chromium's big step
/// (PageUp/PageDown, a tenth of the range) or an arrow (one slider position).
pub const BENCH_SLIDERS: [(&str, bool); 6] = [
    ("weights", false),
    ("seq", false),
    ("batch", true),
    ("lora-rank", true),
    ("grad-accum", true),
    ("gpus", true),
];

/// The scenario after each press on `id`, as the page's slider would make it: `presses` presses,
/// up until the end of the slider's range, then down.
pub fn presses(start: &Scenario, id: &str, big: bool, presses: usize) -> Vec<Scenario> {
    let setting = Setting::by_id(id).expect("a setting of the registry");
    let mut s = start.clone();
    let mut up = true;
    let mut out = Vec::new();
    for _ in 0..presses {
        // where the slider's thumb is and how far it can go, as the page's markup writes it
        let (lo, hi, pos) = match setting.kind {
            SettingKind::Number {
                slider: (min, max),
                log,
                ..
            } => {
                let SettingValue::Number(v) = setting.get(&s) else {
                    unreachable!()
                };
                if log {
                    (0, 1000, log_pos(v, min, max))
                } else {
                    (min, max, v.clamp(min, max))
                }
            }
            SettingKind::Choice => {
                let offered = setting.offered(&s);
                let key = shown_choice(setting, &s);
                let at = offered.iter().position(|k| *k == key).unwrap_or(0);
                (0, offered.len().saturating_sub(1) as u64, at as u64)
            }
            _ => panic!("{id} is not a slider"),
        };
        if pos >= hi {
            up = false;
        } else if pos <= lo {
            up = true;
        }
        // an arrow moves one position, a big step a tenth of the range (numbers only)
        let step = match setting.kind {
            SettingKind::Number { .. } if big => ((hi - lo) / 10).max(1),
            _ => 1,
        };
        let pos = if up {
            (pos + step).min(hi)
        } else {
            pos.saturating_sub(step).max(lo)
        };
        // the slider's input event, read as the page reads it
        let input = Input {
            kind: "range",
            setting: id,
            key: "",
            value: &pos.to_string(),
            checked: false,
        };
        match asked(&input, &s, Lang::En) {
            Asked::Set(setting, value) => setting.set(&mut s, value),
            _ => panic!("a press on {id} asks for no value"),
        }
        s.normalize();
        out.push(s.clone());
    }
    out
}

/// The bar chart for a scenario and its `computed` overview, as the page draws it, its axis
/// fitted or held at a top (`None` fits it): its markup and the top it shows.
pub fn bars_of(s: &Scenario, computed: &Overview, held: Option<Held>) -> (String, f64) {
    drawn_bars(s, &super::bars(&computed.bars), held)
}

/// `bars` drawn for scenario `s` as [`bars_of`] draws its overview's.
pub fn drawn_bars(s: &Scenario, bars: &[super::Bar], held: Option<Held>) -> (String, f64) {
    let line = (s.gpu.visible_bytes(), s.gpu.label());
    let (shapes, top) = super::stacked(bars, s.gpus, line, s.unit, Lang::En, None, held);
    let title = super::stacked_title(Lang::En);
    (super::svg_text(&shapes, super::BARS_SIZE, title), top)
}

/// The growth chart, the same way as [`bars_of`].
pub fn growth_of(s: &Scenario, computed: &Overview, held: Option<f64>) -> (String, f64) {
    let line = (s.gpu.visible_bytes(), s.gpu.label());
    let (at, serving) = (s.swept_tokens(), s.job == Job::Serving);
    let swept = vram_engine::sweep(s, &computed.arch);
    let (shapes, top) = super::sweep(&swept, at, serving, line, s.unit, Lang::En, held);
    let title = super::sweep_title(Lang::En, serving);
    (super::svg_text(&shapes, super::SWEEP_SIZE, title), top)
}

/// Both charts' markup for a scenario, as the page draws them with their axes fitted.
pub fn charts(s: &Scenario) -> [String; 2] {
    let c = Overview::compute(s).expect("the scenario computes");
    [bars_of(s, &c, None).0, growth_of(s, &c, None).0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every press of the benchmark on both charts: the markup before and after.
    fn bench_presses() -> Vec<(&'static str, [String; 2], [String; 2])> {
        let start = Scenario::default();
        let mut out = Vec::new();
        for (id, big) in BENCH_SLIDERS {
            let mut shown = charts(&start);
            for s in presses(&start, id, big, 25) {
                let next = charts(&s);
                out.push((id, shown, next.clone()));
                shown = next;
            }
        }
        out
    }

    #[test]
    fn a_patched_chart_shows_exactly_the_new_markup_after_every_benchmark_press() {
        for (id, old, new) in bench_presses() {
            for (old, new) in old.iter().zip(&new) {
                let page = Model::host(old);
                patch_inner(&page, old, new);
                assert_eq!(
                    page.printed(),
                    Model::host(new).printed(),
                    "a press on {id}"
                );
            }
        }
    }

    #[test]
    fn children_that_come_and_go_are_inserted_and_removed_where_they_belong() {
        let cases = [
            ("<a/><b/><c/>", "<a/><c/>"),
            ("<a/><c/>", "<a/><b/><c/>"),
            ("<a/><b/>", "<b/><a/>"),
            ("<a/>", "<b/><b/><a/><b/>"),
            ("<a x=\"1\"/><a x=\"2\"/>", "<b/><a x=\"3\"/>"),
            (
                r#"<g class="seg"><rect y="1"/></g><text>1</text>"#,
                r#"<text>2</text><g class="seg"><rect y="2"/><title>t</title></g>"#,
            ),
            (
                "<p>Needs <b>1 GiB</b> per GPU</p>",
                "<p>Needs <b>2 GiB</b> in all</p>",
            ),
            ("<p>a <b>1</b></p>", "<p><b>1</b> a</p>"),
            ("<p>a &lt; <b>1</b></p>", "<p>a &gt; <b>2</b></p>"),
            ("<p>a <b>1</b></p>", "<p>a &nbsp; <b>1</b></p>"),
            ("<div></div>", "<div><b>1</b><i>2</i></div>"),
            ("<div><b>1</b><i>2</i></div>", "<div></div>"),
            (
                r#"<a x="1"/><b/><c x="1"/><d/>"#,
                r#"<e/><a x="2"/><c x="2"/><f/><g/><d x="2"/>"#,
            ),
            (r#"<a/><b/><c/><d x="1"/>"#, r#"<d x="2"/><e/>"#),
        ];
        for (old, new) in cases {
            let page = Model::host(old);
            patch_inner(&page, old, new);
            assert_eq!(page.printed(), Model::host(new).printed(), "{old} -> {new}");
        }
    }

    #[test]
    fn a_page_holding_fewer_children_than_the_patch_wrote_last_is_written_whole() {
        let (old, new) = (r#"<a/><b/><c x="1"/>"#, r#"<a/><c x="2"/>"#);
        let page = Model::host("<a/>");
        patch_inner(&page, old, new);
        assert_eq!(page.printed(), Model::host(new).printed());
    }

    /// One of the page's charts drawn for a scenario, its axis fitted or held at a top (`None`
    /// fits it): its markup and the top it shows.
    type Drawn = fn(&Scenario, Option<Held>) -> (String, f64);

    fn bars(s: &Scenario, held: Option<Held>) -> (String, f64) {
        bars_of(s, &Overview::compute(s).unwrap(), held)
    }

    fn growth(s: &Scenario, held: Option<Held>) -> (String, f64) {
        growth_of(s, &Overview::compute(s).unwrap(), held.map(|h| h.top))
    }

    /// How a chart's axis follows the presses: fitted on every step, held while the slider
    /// moves but grown only to fit, or held as the page holds it (grown ahead the second time).
    #[derive(Clone, Copy, PartialEq)]
    enum Axis {
        Fitted,
        HeldToFit,
        Held,
    }

    /// A chart patched through the benchmark's presses on `id`, its axis following them as
    /// `axis` says: how many elements the patch inserted or removed, and how many writes it
    /// made in all.
    fn chart_writes(chart: Drawn, id: &str, big: bool, axis: Axis) -> (usize, usize) {
        let start = Scenario::default();
        let draw = |s: &Scenario, last: &mut Option<Held>| {
            let before = match axis {
                Axis::Fitted => None,
                Axis::HeldToFit => last.map(|h| Held { grown: false, ..h }),
                Axis::Held => *last,
            };
            let (svg, shown) = chart(s, before);
            *last = Some(Held::after(before, shown));
            svg
        };
        let mut top = None;
        let mut shown = draw(&start, &mut top);
        let host = Recorder::new();
        for s in presses(&start, id, big, 25) {
            let next = draw(&s, &mut top);
            patch_inner(&host, &shown, &next);
            shown = next;
        }
        let writes = host.take();
        let elements = writes
            .iter()
            .filter(|w| matches!(w, Write::Inserted(_) | Write::Gone))
            .count();
        (elements, writes.len())
    }

    /// Both figures of [`chart_writes`] for each slider, fitted and held, and their sums.
    fn fitted_and_held(chart: Drawn) -> ((usize, usize), (usize, usize)) {
        let (mut fitted, mut held) = ((0, 0), (0, 0));
        for (id, big) in BENCH_SLIDERS {
            let (f, h) = (
                chart_writes(chart, id, big, Axis::Fitted),
                chart_writes(chart, id, big, Axis::Held),
            );
            eprintln!("{id}: fitted {f:?}, held {h:?}");
            // held, the axis never makes a step write more than refitted on each step
            assert!(h.0 <= f.0 && h.1 <= f.1, "{id}: held {h:?}, fitted {f:?}");
            fitted = (fitted.0 + f.0, fitted.1 + f.1);
            held = (held.0 + h.0, held.1 + h.1);
        }
        (fitted, held)
    }

    /// Over the benchmark's 150 presses, `chart` held while a slider moves inserts and removes at
    /// most a `share`th of the elements it does fitted on every step, and takes at most three
    /// quarters of its writes.
    fn assert_held_writes_less(chart: Drawn, share: usize) {
        let (fitted, held) = fitted_and_held(chart);
        assert!(
            held.0 * share <= fitted.0,
            "elements: held {held:?}, fitted {fitted:?}"
        );
        assert!(
            held.1 * 4 <= fitted.1 * 3,
            "writes: held {held:?}, fitted {fitted:?}"
        );
    }

    #[test]
    fn a_drag_that_keeps_raising_the_bars_grows_their_axis_ahead_and_writes_less() {
        // batch and rank double the bars on each big step up: grown ahead the second time,
        // the axis grows on every other step, and its grid, ticks and capacity lines with it
        let (mut to_fit_sum, mut ahead_sum) = (0, 0);
        for id in ["batch", "lora-rank"] {
            let to_fit = chart_writes(bars, id, true, Axis::HeldToFit);
            let ahead = chart_writes(bars, id, true, Axis::Held);
            eprintln!("{id}: grown to fit {to_fit:?}, grown ahead {ahead:?}");
            assert!(ahead.1 < to_fit.1, "{id}: {ahead:?} against {to_fit:?}");
            (to_fit_sum, ahead_sum) = (to_fit_sum + to_fit.1, ahead_sum + ahead.1);
        }
        // a tenth fewer writes over both sliders' 50 presses
        assert!(
            ahead_sum * 10 <= to_fit_sum * 9,
            "{ahead_sum} against {to_fit_sum}"
        );
    }

    #[test]
    fn an_axis_held_while_a_slider_moves_moves_the_bars_and_leaves_the_ticks_in_place() {
        // ticks and grid lines come and go a third as often (they still do while the bars
        // outgrow the axis, and as the GPU count changes the bars)
        assert_held_writes_less(bars, 3);
    }

    #[test]
    fn a_growth_chart_axis_held_while_a_slider_moves_moves_the_curve_and_leaves_the_ticks() {
        // batch and rank steps raise the curve; held, its ticks come and go half as often
        assert_held_writes_less(growth, 2);
    }

    #[test]
    fn where_the_curve_stops_fitting_moves_as_attributes_and_is_never_inserted_or_removed() {
        // the weights slider moves the curve across the GPU's line and back: the mark shows
        // and hides rather than coming and going
        let (elements, writes) = chart_writes(growth, "weights", false, Axis::Held);
        assert_eq!(elements, 0);
        assert!(writes > 0);
        let s = Scenario::default();
        let (svg, _) = growth(&s, None);
        assert_eq!(svg.matches(r#"class="limit-mark""#).count(), 1, "{svg}");
    }

    #[test]
    fn a_steps_frame_writes_its_own_bar_and_the_paint_after_it_brings_every_bar_exactly() {
        // the page's bars while a slider moves: in a step's frame the selected GPU count's bar
        // from the step's answer and the others as last drawn (super::bars_at_once), then every
        // bar once the frame is drawn; both draws hold the axis as the page does
        let start = Scenario::default();
        let (mut in_frame, mut whole) = (0, 0);
        let counted = Recorder::new();
        for (id, big) in BENCH_SLIDERS {
            let c = Overview::compute(&start).unwrap();
            let (mut shown, top) = bars_of(&start, &c, None);
            let (mut drawn, mut held) = (super::super::bars(&c.bars), Held::after(None, top));
            let page = Model::host(&shown);
            for s in presses(&start, id, big, 25) {
                let c = Overview::compute(&s).unwrap();
                let now = super::super::bars(&c.bars);
                let bars = super::super::bars_at_once(&now, Some(&drawn), s.gpus);
                let (at_once, top) = drawn_bars(&s, &bars, Some(held));
                held = Held::after(Some(held), top);
                let (all, top) = drawn_bars(&s, &now, Some(held));
                held = Held::after(Some(held), top);
                // against what drawing every bar in the step's frame would have written
                patch_inner(&counted, &shown, &all);
                whole += counted.take().len();
                patch_inner(&counted, &shown, &at_once);
                in_frame += counted.take().len();
                patch_inner(&page, &shown, &at_once);
                patch_inner(&page, &at_once, &all);
                assert_eq!(
                    page.printed(),
                    Model::host(&all).printed(),
                    "a press on {id}"
                );
                (shown, drawn) = (all, now);
            }
        }
        eprintln!("writes in the steps' frames {in_frame}, every bar in them {whole}");
        // over the 150 presses, the steps' frames write at most half of what every bar takes
        assert!(in_frame * 2 <= whole, "{in_frame} against {whole}");
    }

    #[test]
    fn the_benchmark_steps_patch_both_charts_without_writing_either_whole() {
        let start = Scenario::default();
        let host = Recorder::new();
        let mut report = String::new();
        for (id, big) in BENCH_SLIDERS {
            let mut shown = charts(&start);
            for s in presses(&start, id, big, 25) {
                let next = charts(&s);
                for (old, new) in shown.iter().zip(&next) {
                    patch_inner(&host, old, new);
                }
                shown = next;
                for w in host.take() {
                    if let Write::Whole(path, bytes) = w {
                        report.push_str(&format!("{id}: {path:?} {bytes} B\n"));
                    }
                }
            }
        }
        assert_eq!(report, "");
    }
}
