//! The charts, drawn with plotters into SVG strings. Stacked bars are rectangles on running
//! totals (plotters has no stacked series); tooltips and labels are added as escaped SVG text.

use plotters::prelude::*;

use vram_engine::CAPACITY_LINES_GIB;
use vram_engine::GIB;
use vram_engine::{Breakdown, Component, Unit};
// text, axes and grid in INK follow the page's theme: `Svg` writes it `currentColor`
use vram_svg::{Axis, Svg, INK};
pub use vram_text::escape;

use crate::i18n::{self, t, Lang};

/// A fixed colour per component, in the legend's order; they never move.
pub fn colour(c: Component) -> RGBColor {
    match c {
        Component::Weights => RGBColor(0x4e, 0x79, 0xa7),
        Component::Adapter => RGBColor(0xf2, 0x8e, 0x2b),
        Component::Master => RGBColor(0xe1, 0x57, 0x59),
        Component::Gradients => RGBColor(0x76, 0xb7, 0xb2),
        Component::Optimizer => RGBColor(0x59, 0xa1, 0x4f),
        Component::Activations => RGBColor(0xed, 0xc9, 0x48),
        Component::Logits => RGBColor(0xb0, 0x7a, 0xa1),
        Component::KvCache => RGBColor(0xff, 0x9d, 0xa7),
        Component::Context => RGBColor(0x9c, 0x75, 0x5f),
        Component::Reserve => RGBColor(0xba, 0xb0, 0xac),
    }
}

/// A segment's corners as a polygon's `points`, clockwise from `top_left` (where its label
/// goes), at least 1 px wide and high so a small part stays visible and can take the pointer.
fn box_points((ax, ay): (i32, i32), (bx, by): (i32, i32)) -> String {
    let (right, bottom) = (bx.max(ax + 1), by.max(ay + 1));
    format!("{ax},{ay} {right},{ay} {right},{bottom} {ax},{bottom}")
}

pub fn css_colour(c: Component) -> String {
    let RGBColor(r, g, b) = colour(c);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A chart plotters could not draw. Only that it failed matters (the page then shows no chart), so
/// plotters' error is dropped: boxing it as `dyn Error` linked `std::io::Error`'s messages and
/// formatting into the first load.
struct NotDrawn;

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for NotDrawn {
    fn from(_: DrawingAreaErrorKind<E>) -> NotDrawn {
        NotDrawn
    }
}

// Fonts are named by `FontFamily::SansSerif`, never by the string "sans-serif": plotters reads a
// family's name with `str::to_lowercase`, which linked Unicode's case tables into the first load.

const W: u32 = 640;
const H: u32 = 340;

/// The bar chart's one label for the segment under the pointer or the keyboard's focus, hidden
/// until one is (`components::segment_label` shows it). One per chart rather than one per
/// segment: a step wrote each segment's value twice, in its title and in its label, and a
/// segment's label was painted under the segment above it (issue 16).
pub const SEGMENT_LABEL: &str =
    r#"<text id="seg-hover" class="seg-label" y="-4" display="none"></text>"#;

/// How many components a bar stacks: [`Component::ALL`].
const PARTS: usize = Component::ALL.len();

/// One bar of the chart: its GPU count, its total, and each component's bytes at the peak in
/// [`Component::ALL`]'s order. What the chart draws of a breakdown, small enough to keep between
/// steps ([`bars_at_once`]) without copying the breakdown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    pub gpus: u64,
    pub total: u64,
    pub parts: [u64; PARTS],
}

impl Bar {
    pub fn of(gpus: u64, b: &Breakdown) -> Bar {
        let mut parts = [0; PARTS];
        for (part, c) in parts.iter_mut().zip(Component::ALL) {
            *part = b.bytes(*c);
        }
        Bar {
            gpus,
            total: b.total,
            parts,
        }
    }
}

/// The bars of an overview's (GPU count, breakdown) pairs.
pub fn bars(of: &[(u64, Breakdown)]) -> Vec<Bar> {
    of.iter().map(|(gpus, b)| Bar::of(*gpus, b)).collect()
}

/// The top of the bars' axis that fits them (in `unit`): the tallest bar, the selected GPU's
/// `limit` and what the user `measured` (bytes), with an eighth to spare, rounded up.
fn fitted_top(bars: &[Bar], limit: u64, unit: Unit, measured: u64) -> f64 {
    let tallest = bars.iter().map(|b| b.total).max().unwrap_or(0);
    let highest = tallest.max(measured).max(limit);
    round_top(highest as f64 / unit.bytes() as f64 * 1.12)
}

/// The bars' axis as a moving slider holds it: the top its last step showed, and whether this
/// movement has already had to grow it (a drag that keeps raising the bars). The growth chart
/// holds only a top: it never grows ahead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Held {
    pub top: f64,
    pub grown: bool,
}

impl Held {
    /// What a chart holds after a step that showed `top`, given what it held before the step
    /// (`None`: the slider was still, and the movement starts).
    pub fn after(before: Option<Held>, top: f64) -> Held {
        Held {
            top,
            grown: before.is_some_and(|h| h.grown || top > h.top),
        }
    }
}

/// How far ahead of the bars an axis grows the second time a movement outgrows it: a drag that
/// keeps raising the bars (batch, sequence length, precision: each step doubles them) then
/// grows the axis on every other step instead of on each. A growth rewrites the grid, the
/// ticks and the capacity lines and showed in the page's slowest steps (7–10 ms on the main
/// thread against 4–6, issue 16, nineteenth round).
const GROW_AHEAD: f64 = 2.0;

/// The top a chart's axis shows: the one that fits it, or, while a slider is moving, the highest
/// top shown since it began (`held`), so the axis, its grid and its labels stay put and a step
/// moves only the bars; the axis grows at once when the bars outgrow it (to what fits them the
/// first time, [`GROW_AHEAD`] of that when the movement has grown it before), and fits them
/// again once input pauses (issue 16).
fn shown_top(fitted: f64, held: Option<Held>) -> f64 {
    match held {
        None => fitted,
        Some(h) if fitted <= h.top => h.top,
        Some(h) if !h.grown => fitted,
        Some(_) => round_top(fitted * GROW_AHEAD),
    }
}

/// The bars a step shows in its own frame: the selected GPU count's (`gpus`) from the step's
/// answer (`now`), the other counts' as the chart last drew them all (`drawn`); those follow once
/// the frame is drawn. A step then writes one bar's segments in its frame instead of every
/// bar's, and the frame's damage ends at that bar (issue 16). All of `now` when the chart last
/// drew other GPU counts (a step of the GPU count itself), or nothing yet.
pub fn bars_at_once(now: &[Bar], drawn: Option<&[Bar]>, gpus: u64) -> Vec<Bar> {
    let same_counts =
        |d: &[Bar]| d.len() == now.len() && d.iter().zip(now).all(|(a, b)| a.gpus == b.gpus);
    match drawn {
        Some(d) if same_counts(d) => now
            .iter()
            .zip(d)
            .map(|(n, d)| if n.gpus == gpus { *n } else { *d })
            .collect(),
        _ => now.to_vec(),
    }
}

/// Stacked bars: one per GPU count, one segment per component, capacity lines behind, the
/// selected GPU's `line` (bytes, and its name: its capacity, or a server's budget) in red, and
/// `marker` (bytes, label): a dashed line across the current bar at what the user measured.
/// The axis fits the bars, or holds at `held` while a slider moves ([`shown_top`]); the markup
/// comes back with the top it shows (in `unit`).
pub fn stacked(
    bars: &[Bar],
    current: u64,
    line: (u64, &str),
    unit: Unit,
    lang: Lang,
    marker: Option<(u64, &str)>,
    held: Option<Held>,
) -> (String, f64) {
    let (limit, name) = line;
    let ymax = shown_top(
        fitted_top(bars, limit, unit, marker.map_or(0, |m| m.0)),
        held,
    );
    let ubytes = unit.bytes() as f64;
    let cap = limit as f64 / ubytes;
    let n = bars.len().max(1) as f64;
    let mut svg = String::new();
    let mut overlay = String::new();
    // plotters reports a failed draw; the page then shows no chart rather than half of one
    let drawn = (|| -> Result<(), NotDrawn> {
        let root = Svg::new(&mut svg, (W, H)).into_drawing_area();
        let Ok(mut chart) = ChartBuilder::on(&root)
            .margin_top(14)
            .margin_right(110)
            .margin_left(8)
            .x_label_area_size(30)
            .y_label_area_size(52)
            .build_cartesian_2d(Axis::from(0f64..n), Axis::from(0f64..ymax))
        else {
            return Err(NotDrawn);
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(unit.label())
            .label_style((FontFamily::SansSerif, 12).into_font().color(&INK))
            .axis_style(INK)
            .bold_line_style(INK.mix(0.12))
            // no faint minor grid: ~50 and ~140 more elements to draw on every step
            .max_light_lines(0)
            .draw()?;
        // capacity lines of common cards, then the selected one in red, all behind the bars
        let across = |y: f64| (chart.backend_coord(&(0.0, y)), chart.backend_coord(&(n, y)));
        overlay.push_str(&capacity_marks(ymax, cap, ubytes, across));
        let ((x1, y1), (x2, _)) = across(cap);
        overlay.push_str(&format!(
            r##"<line class="cap selected" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y1}" stroke="#d62728" stroke-width="2"/><text x="{}" y="{}" class="cap-label selected" dominant-baseline="middle">{}</text>"##,
            x2 + 4,
            y1 - 10,
            escape(name)
        ));
        for (i, b) in bars.iter().enumerate() {
            let gpus = &b.gpus;
            let x0 = i as f64 + 0.18;
            let x1 = i as f64 + 0.82;
            let mut base = 0u64;
            for (c, &bytes) in Component::ALL.iter().zip(&b.parts) {
                if bytes == 0 {
                    continue;
                }
                let y0 = base as f64 / ubytes;
                let y1 = (base + bytes) as f64 / ubytes;
                base += bytes;
                // one polygon per segment, drawn here rather than by plotters: it carries the
                // colour and takes the hover and focus, so a step moves one element, not two.
                // A segment that moves or grows changes one attribute, its `points`. Not a
                // `<rect>`: Chromium maps a rectangle's `x`, `y`, `width` and `height` to CSS
                // properties, so each one a step changed was styled again (20 to 40 elements
                // a step); `points` is geometry only, laid out and painted again but not
                // restyled. Not in a group with a `transform` either: each transformed
                // element is a node of Chromium's transform tree, which a step's frame walks
                // and sends to the compositor. Its title is its label; the chart's one label
                // (SEGMENT_LABEL) shows it on hover and focus (issue 16)
                let top_left = chart.backend_coord(&(x0, y1));
                let bottom_right = chart.backend_coord(&(x1, y0));
                let label = format!("{}: {}", i18n::component(lang, *c), unit.format(bytes));
                overlay.push_str(&format!(
                    r#"<polygon class="seg" tabindex="0" data-component="{}" data-gpus="{}" points="{}" fill="{}"><title>{}</title></polygon>"#,
                    c.key(),
                    gpus,
                    box_points(top_left, bottom_right),
                    css_colour(*c),
                    escape(&label),
                ));
            }
            let (tx, ty) = chart.backend_coord(&((x0 + x1) / 2.0, b.total as f64 / ubytes));
            let (lx, ly) = chart.backend_coord(&((x0 + x1) / 2.0, 0.0));
            let gpus_label = if *gpus == 1 {
                "1 GPU".to_string()
            } else {
                format!("{gpus} GPUs")
            };
            let gpus_label = if lang == Lang::Zh {
                format!("{gpus} 卡")
            } else {
                gpus_label
            };
            overlay.push_str(&format!(
                r#"<text x="{tx}" y="{}" text-anchor="middle" class="bar-total{}">{}</text><text x="{lx}" y="{}" text-anchor="middle" class="bar-label{}">{}</text>"#,
                ty - 5,
                if *gpus == current { " current" } else { "" },
                vram_engine::decimal(b.total as f64 / ubytes, 1),
                ly + 16,
                if *gpus == current { " current" } else { "" },
                escape(&gpus_label)
            ));
            if let Some((bytes, label)) = marker.filter(|_| *gpus == current) {
                let (ax, y) = chart.backend_coord(&(x0, bytes as f64 / ubytes));
                let (bx, _) = chart.backend_coord(&(x1, 0.0));
                overlay.push_str(&marker_svg(ax - 6, bx + 6, y, &escape(label)));
            }
        }
        // last, so it is painted above every bar
        overlay.push_str(SEGMENT_LABEL);
        root.present()?;
        Ok(())
    })();
    if drawn.is_err() {
        return (String::new(), ymax);
    }
    let title = format!(r#"<title>{}</title>"#, escape(t(lang, "chart_title")));
    (insert_overlay(&svg, &(title + &overlay)), ymax)
}

/// The top of the growth chart's axis that fits its curve (`points`' totals, bytes) against the
/// selected GPU's `cap` (in `ubytes`): up to three capacities, but always high enough to show
/// where the curve starts.
fn sweep_fitted_top(points: &[(u64, u64)], cap: f64, ubytes: f64) -> f64 {
    let tallest = points.iter().map(|p| p.1).max().unwrap_or(0) as f64 / ubytes;
    let lowest = points.iter().map(|p| p.1).min().unwrap_or(0) as f64 / ubytes;
    (cap * 3.0)
        .max(lowest * 1.5)
        .min(tallest * 1.05)
        .max(cap * 1.15)
}

/// Total per GPU against sequence length, or request length for a server (log scale), with
/// capacity lines and the selected GPU's `line` (bytes, and its name). Like the bars' axis
/// ([`shown_top`]) its axis holds at `held` while a slider moves; the markup comes back with the
/// top it shows (in `unit`).
pub fn sweep(
    points: &[(u64, u64)],
    current_seq: u64,
    serving: bool,
    line: (u64, &str),
    unit: Unit,
    lang: Lang,
    held: Option<f64>,
) -> (String, f64) {
    let (limit, name) = line;
    let ubytes = unit.bytes() as f64;
    let cap = limit as f64 / ubytes;
    // the curve's axis holds, but never grows ahead of it: it is drawn after the step's frame
    let held = held.map(|top| Held { top, grown: false });
    let ymax = shown_top(sweep_fitted_top(points, cap, ubytes), held);
    if points.len() < 2 {
        return (String::new(), ymax);
    }
    // x is log2(tokens) on a plain axis: the same coordinate type as the bars (one copy of plotters' code)
    let lx = |t: u64| (t.max(1) as f64).log2();
    let (x0, x1) = (lx(points[0].0), lx(points[points.len() - 1].0));
    let mut svg = String::new();
    let mut overlay = String::new();
    // plotters reports a failed draw; the page then shows no chart rather than half of one
    let drawn = (|| -> Result<(), NotDrawn> {
        let root = Svg::new(&mut svg, (W, 260)).into_drawing_area();
        let Ok(mut chart) = ChartBuilder::on(&root)
            .margin_top(10)
            .margin_right(110)
            .margin_left(8)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(Axis::from(x0..x1), Axis::from(0f64..ymax))
        else {
            return Err(NotDrawn);
        };
        chart
            .configure_mesh()
            .x_desc(match (lang, serving) {
                (Lang::Zh, false) => "序列长度（token）",
                (Lang::Zh, true) => "平均请求长度（token）",
                (Lang::En, false) => "sequence length (tokens)",
                (Lang::En, true) => "average request length (tokens)",
            })
            .y_desc(unit.label())
            .x_label_formatter(&|v| short_tokens(2f64.powf(*v)))
            .label_style((FontFamily::SansSerif, 12).into_font().color(&INK))
            .axis_style(INK)
            .bold_line_style(INK.mix(0.12))
            // no faint minor grid: ~50 and ~140 more elements to draw on every step
            .max_light_lines(0)
            .draw()?;
        for (_, y) in capacity_lines(ymax, cap, ubytes) {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x0, y), (x1, y)],
                INK.mix(0.3).stroke_width(1),
            )))?;
        }
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x0, cap), (x1, cap)],
            RGBColor(0xd6, 0x27, 0x28).stroke_width(2),
        )))?;
        let (px, py) = chart.backend_coord(&(x1, cap));
        overlay.push_str(&format!(r#"<text x="{}" y="{}" class="cap-label selected" dominant-baseline="middle">{}</text>"#, px + 4, py, escape(name)));
        // the curve until it leaves the chart: cut where it crosses the top, never flattened
        let mut line: Vec<(f64, f64)> = Vec::with_capacity(points.len());
        for (x, y) in points.iter().map(|(x, y)| (lx(*x), *y as f64 / ubytes)) {
            match line.last() {
                Some(&(px, py)) if y > ymax => {
                    line.push((px + (x - px) * (ymax - py) / (y - py), ymax));
                    break;
                }
                _ => line.push((x, y.min(ymax))),
            }
        }
        chart.draw_series(std::iter::once(PathElement::new(
            line,
            colour(Component::Weights).stroke_width(2),
        )))?;
        // max and min, not clamp: clamp panics on an empty range, and its message prints floats
        let cur = lx(current_seq).max(x0).min(x1);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(cur, 0.0), (cur, ymax)],
            INK.mix(0.5).stroke_width(1),
        )))?;
        // where it stops fitting: a group that is always there and hidden where the curve
        // never crosses the line, so a step that crosses it changes attributes rather than
        // inserting and removing elements (38 of the weights slider's 63 writes, issue 16)
        let crossing = points
            .windows(2)
            .find(|w| w[0].1 <= limit && w[1].1 > limit);
        let (at, label) = match crossing {
            Some(w) => (
                chart.backend_coord(&(lx(w[0].0), cap)),
                format!("≤ {}", short_tokens(w[0].0 as f64)),
            ),
            None => ((0, 0), String::new()),
        };
        overlay.push_str(&format!(
            r#"<g class="limit-mark" transform="translate({},{})"{}><circle r="4" class="limit"/><text x="6" y="16" class="limit-label">{}</text></g>"#,
            at.0,
            at.1,
            if crossing.is_some() { "" } else { r#" display="none""# },
            escape(&label)
        ));
        root.present()?;
        Ok(())
    })();
    if drawn.is_err() {
        return (String::new(), ymax);
    }
    let key = if serving { "request_view" } else { "seq_view" };
    let title = format!(r#"<title>{}</title>"#, escape(t(lang, key)));
    (insert_overlay(&svg, &(title + &overlay)), ymax)
}

/// The measured level: a dashed line with its label above, one element with a stable id.
fn marker_svg(x0: i32, x1: i32, y: i32, label: &str) -> String {
    format!(
        r#"<g id="measured-marker" class="measured-marker"><title>{label}</title><line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="currentColor" stroke-width="2" stroke-dasharray="6 4"/><text x="{x0}" y="{}" class="marker-label">{label}</text></g>"#,
        y - 5
    )
}

/// Round tops for the bars' axis, times a power of ten: each at most a quarter above the one before.
const ROUND_TOPS: [f64; 13] = [
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0,
];

/// The top of the bars' axis: `v` (at least 1) rounded up to a round number, so the axis, its grid
/// and its labels stay put while a slider moves the bars a little, and a step repaints the bars
/// that changed instead of the whole chart.
fn round_top(v: f64) -> f64 {
    let v = v.max(1.0);
    let mut decade = 1.0;
    while decade * 10.0 <= v {
        decade *= 10.0;
    }
    ROUND_TOPS
        .iter()
        .map(|m| m * decade)
        .find(|top| *top >= v)
        .unwrap_or(10.0 * decade)
}

/// The bars' capacity lines of common cards, each with its label, as markup. Every card's line
/// and label are always there, hidden (`display="none"`) where the card is above the axis's top
/// or within 3 % of the selected line (`cap`), so an axis that grows while a slider moves shows
/// lines rather than inserting elements, whose markup the browser would parse in the step's
/// frame (issue 16). `across(y)` is where a line at `y` starts and ends on the chart.
fn capacity_marks(
    ymax: f64,
    cap: f64,
    ubytes: f64,
    across: impl Fn(f64) -> ((i32, i32), (i32, i32)),
) -> String {
    let mut marks = String::new();
    for (gib, y) in capacity_heights(ubytes) {
        if capacity_shown(y, ymax, cap) {
            let ((x1, y1), (x2, _)) = across(y);
            marks.push_str(&format!(
                r#"<line class="cap" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y1}" stroke="currentColor" stroke-opacity="0.35"/><text x="{}" y="{y1}" class="cap-label" dominant-baseline="middle">{gib} GiB</text>"#,
                x2 + 4
            ));
        } else {
            marks.push_str(&format!(
                r#"<line class="cap" display="none"/><text class="cap-label" display="none">{gib} GiB</text>"#
            ));
        }
    }
    marks
}

/// Whether a card's capacity line at `y` shows: not above the chart's top `ymax`, and not within
/// 3 % of the selected line `cap`, which would hide it.
fn capacity_shown(y: f64, ymax: f64, cap: f64) -> bool {
    y <= ymax && (y / cap - 1.0).abs() >= 0.03
}

/// Every common card's capacity: GiB, and its height in the chart's unit (`ubytes` a unit).
fn capacity_heights(ubytes: f64) -> impl Iterator<Item = (u64, f64)> {
    CAPACITY_LINES_GIB
        .iter()
        .map(move |&gib| (gib, (gib * GIB) as f64 / ubytes))
}

/// The common cards' capacities (GiB, height in the chart's unit) that show
/// ([`capacity_shown`]).
fn capacity_lines(ymax: f64, cap: f64, ubytes: f64) -> impl Iterator<Item = (u64, f64)> {
    capacity_heights(ubytes).filter(move |&(_, y)| capacity_shown(y, ymax, cap))
}

fn short_tokens(v: f64) -> String {
    if v >= 1_048_576.0 * 0.99 {
        format!("{}M", vram_engine::decimal(v / 1_048_576.0, 0))
    } else if v >= 1024.0 {
        format!("{}k", vram_engine::decimal(v / 1024.0, 0))
    } else {
        vram_engine::decimal(v, 0)
    }
}

fn insert_overlay(svg: &str, overlay: &str) -> String {
    match svg.rfind("</svg>") {
        Some(i) => format!("{}{}{}", &svg[..i], overlay, &svg[i..]),
        None => svg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_turns_markup_into_text() {
        assert_eq!(
            escape(r#"<img src=x onerror="alert(1)">"#),
            "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"
        );
    }
}
