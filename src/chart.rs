//! The charts, drawn with plotters into a list of SVG elements ([`Shape`]), which the page
//! renders keyed (`view`). Stacked bars are rectangles on running totals (plotters has no
//! stacked series); segments, capacity lines, labels and markers are added as shapes of their own,
//! with the classes, ids and data attributes the page's styles and handlers read.

pub mod view;

use plotters::prelude::*;

use vram_engine::scenario::CAPACITY_LINES_GIB;
use vram_engine::GIB;
use vram_engine::{Breakdown, Component, Unit};
// text, axes and grid in INK follow the page's theme: it is kept as `currentColor`
pub use vram_svg::Shape;
use vram_svg::{Anchor, Axis, Colour, Geometry, Paint, Shapes, Stroke, Text, Transform, INK};

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
fn box_points((ax, ay): (i32, i32), (bx, by): (i32, i32)) -> Vec<(i32, i32)> {
    let (right, bottom) = (bx.max(ax + 1), by.max(ay + 1));
    vec![(ax, ay), (right, ay), (right, bottom), (ax, bottom)]
}

/// A component's colour as a shape's fill.
fn fill_of(c: Component) -> Colour {
    let RGBColor(r, g, b) = colour(c);
    Colour::opaque(Paint::Rgb(r, g, b))
}

/// The selected GPU's line and label: red.
const SELECTED: Paint = Paint::Rgb(0xd6, 0x27, 0x28);

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

/// The bar chart's size in pixels.
pub const BARS_SIZE: (u32, u32) = (640, 340);
/// The growth chart's size in pixels.
pub const SWEEP_SIZE: (u32, u32) = (640, 260);

/// The bar chart's one label for the segment under the pointer or the keyboard's focus, hidden
/// until one is (`components::segment_label` shows it), drawn last so it is painted above every
/// bar. One per chart rather than one per segment: a step wrote each segment's value twice, in
/// its title and in its label, and a segment's label was painted under the segment above it
///.
pub const SEGMENT_LABEL: Shape = Shape {
    geometry: Geometry::Text(Text {
        x: None,
        y: Some(-4),
        dy: None,
        anchor: None,
        font: None,
        middle: false,
        content: String::new(),
    }),
    id: Some("seg-hover"),
    class: Some("seg-label"),
    focusable: false,
    data: Vec::new(),
    fill: None,
    stroke: None,
    transform: None,
    hidden: true,
    title: None,
};

/// The bar chart's title, in `lang`.
pub fn stacked_title(lang: Lang) -> &'static str {
    t(lang, "chart_title")
}

/// The growth chart's title, in `lang`: against request length for a server.
pub fn sweep_title(lang: Lang, serving: bool) -> &'static str {
    t(lang, if serving { "request_view" } else { "seq_view" })
}

/// A chart's shapes written as an SVG document of `size` pixels titled `title`; nothing for a
/// chart that was not drawn (no shapes).
#[cfg(test)]
pub fn svg_text(shapes: &[Shape], size: (u32, u32), title: &str) -> String {
    if shapes.is_empty() {
        return String::new();
    }
    vram_svg::markup(shapes, size, title)
}

/// A text of `class` at `at`, saying `content`, anchored at `anchor` (its start where none), its
/// middle on `at` where `middle`.
fn text(
    class: &'static str,
    at: (i32, i32),
    anchor: Option<Anchor>,
    middle: bool,
    content: String,
) -> Shape {
    Shape {
        class: Some(class),
        ..Shape::new(Geometry::Text(Text {
            x: Some(at.0),
            y: Some(at.1),
            anchor,
            middle,
            content,
            ..Text::default()
        }))
    }
}

/// A line of `class` from `from` to `to` in `stroke`.
fn line(class: &'static str, from: (i32, i32), to: (i32, i32), stroke: Stroke) -> Shape {
    Shape {
        class: Some(class),
        stroke: Some(stroke),
        ..Shape::new(Geometry::Line(Some((from, to))))
    }
}

/// How many components a bar stacks: [`Component::ALL`].
const PARTS: usize = Component::ALL.len();

/// One bar of the chart: its GPU count, its total, and each component's bytes at the peak in
/// [`Component::ALL`]'s order. What the chart draws of a breakdown, small enough to keep between
/// steps without copying the breakdown.
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
/// ticks and the capacity lines and showed in the page's slowest steps.
const GROW_AHEAD: f64 = 2.0;

/// The top a chart's axis shows: the one that fits it, or, while a slider is moving, the highest
/// top shown since it began (`held`), so the axis, its grid and its labels stay put and a step
/// moves only the bars; the axis grows at once when the bars outgrow it (to what fits them the
/// first time, [`GROW_AHEAD`] of that when the movement has grown it before), and fits them
/// again once input pauses.
fn shown_top(fitted: f64, held: Option<Held>) -> f64 {
    match held {
        None => fitted,
        Some(h) if fitted <= h.top => h.top,
        Some(h) if !h.grown => fitted,
        Some(_) => round_top(fitted * GROW_AHEAD),
    }
}

/// Stacked bars: one per GPU count, one segment per component, capacity lines behind, the
/// selected GPU's `line` (bytes, and its name: its capacity, or a server's budget) in red, and
/// `marker` (bytes, label): a dashed line across the current bar at what the user measured.
/// The axis fits the bars, or holds at `held` while a slider moves ([`shown_top`]); the shapes
/// ([`BARS_SIZE`], none where plotters could not draw) come back with the top it shows (in
/// `unit`).
pub fn stacked(
    bars: &[Bar],
    current: u64,
    line: (u64, &str),
    unit: Unit,
    lang: Lang,
    marker: Option<(u64, &str)>,
    held: Option<Held>,
) -> (Vec<Shape>, f64) {
    let (limit, name) = line;
    let ymax = shown_top(
        fitted_top(bars, limit, unit, marker.map_or(0, |m| m.0)),
        held,
    );
    let ubytes = unit.bytes() as f64;
    let cap = limit as f64 / ubytes;
    let n = bars.len().max(1) as f64;
    let mut shapes = Vec::new();
    let mut overlay = Vec::new();
    // plotters reports a failed draw; the page then shows no chart rather than half of one
    let drawn = (|| -> Result<(), NotDrawn> {
        let root = Shapes::new(&mut shapes, BARS_SIZE).into_drawing_area();
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
        overlay.extend(capacity_marks(ymax, cap, ubytes, across));
        let ((x1, y1), (x2, _)) = across(cap);
        let red = Stroke {
            colour: Colour::opaque(SELECTED),
            width: Some(2),
            dash: None,
        };
        overlay.push(self::line("cap selected", (x1, y1), (x2, y1), red));
        let at = (x2 + 4, y1 - 10);
        overlay.push(text("cap-label selected", at, None, true, name.to_string()));
        for (i, b) in bars.iter().enumerate() {
            let gpus = b.gpus;
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
                // (SEGMENT_LABEL) shows it on hover and focus
                let top_left = chart.backend_coord(&(x0, y1));
                let bottom_right = chart.backend_coord(&(x1, y0));
                overlay.push(Shape {
                    class: Some("seg"),
                    focusable: true,
                    data: vec![
                        ("data-component", c.key().to_string()),
                        ("data-gpus", gpus.to_string()),
                    ],
                    fill: Some(fill_of(*c)),
                    title: Some(format!(
                        "{}: {}",
                        i18n::component(lang, *c),
                        unit.format(bytes)
                    )),
                    ..Shape::new(Geometry::Polygon(box_points(top_left, bottom_right)))
                });
            }
            let (tx, ty) = chart.backend_coord(&((x0 + x1) / 2.0, b.total as f64 / ubytes));
            let (lx, ly) = chart.backend_coord(&((x0 + x1) / 2.0, 0.0));
            let gpus_label = match (lang, gpus) {
                (Lang::Zh, _) => format!("{gpus} 卡"),
                (Lang::En, 1) => "1 GPU".to_string(),
                (Lang::En, _) => format!("{gpus} GPUs"),
            };
            let is_current = gpus == current;
            let total = vram_engine::units::decimal(b.total as f64 / ubytes, 1);
            let middle = Some(Anchor::Middle);
            let (total_class, label_class) = if is_current {
                ("bar-total current", "bar-label current")
            } else {
                ("bar-total", "bar-label")
            };
            overlay.push(text(total_class, (tx, ty - 5), middle, false, total));
            overlay.push(text(label_class, (lx, ly + 16), middle, false, gpus_label));
            if let Some((bytes, label)) = marker.filter(|_| is_current) {
                let (ax, y) = chart.backend_coord(&(x0, bytes as f64 / ubytes));
                let (bx, _) = chart.backend_coord(&(x1, 0.0));
                overlay.push(measured_marker(ax - 6, bx + 6, y, label));
            }
        }
        // last, so it is painted above every bar
        overlay.push(SEGMENT_LABEL);
        root.present()?;
        Ok(())
    })();
    if drawn.is_err() {
        return (Vec::new(), ymax);
    }
    shapes.extend(overlay);
    (shapes, ymax)
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
/// ([`shown_top`]) its axis holds at `held` while a slider moves; the shapes ([`SWEEP_SIZE`],
/// none where plotters could not draw) come back with the top it shows (in `unit`).
pub fn sweep(
    points: &[(u64, u64)],
    current_seq: u64,
    serving: bool,
    line: (u64, &str),
    unit: Unit,
    lang: Lang,
    held: Option<f64>,
) -> (Vec<Shape>, f64) {
    let (limit, name) = line;
    let ubytes = unit.bytes() as f64;
    let cap = limit as f64 / ubytes;
    // the curve's axis holds, but never grows ahead of it: it is drawn after the step's frame
    let held = held.map(|top| Held { top, grown: false });
    let ymax = shown_top(sweep_fitted_top(points, cap, ubytes), held);
    if points.len() < 2 {
        return (Vec::new(), ymax);
    }
    // x is log2(tokens) on a plain axis: the same coordinate type as the bars (one copy of plotters' code)
    let lx = |t: u64| (t.max(1) as f64).log2();
    let (x0, x1) = (lx(points[0].0), lx(points[points.len() - 1].0));
    let mut shapes = Vec::new();
    let mut overlay = Vec::new();
    // plotters reports a failed draw; the page then shows no chart rather than half of one
    let drawn = (|| -> Result<(), NotDrawn> {
        let root = Shapes::new(&mut shapes, SWEEP_SIZE).into_drawing_area();
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
        let at = (px + 4, py);
        overlay.push(text("cap-label selected", at, None, true, name.to_string()));
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
        // inserting and removing elements
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
        overlay.push(Shape {
            class: Some("limit-mark"),
            transform: Some(Transform::Translate(at.0, at.1)),
            hidden: crossing.is_none(),
            ..Shape::new(Geometry::Group(vec![
                Shape {
                    class: Some("limit"),
                    ..Shape::new(Geometry::Circle(None, 4))
                },
                text("limit-label", (6, 16), None, false, label),
            ]))
        });
        root.present()?;
        Ok(())
    })();
    if drawn.is_err() {
        return (Vec::new(), ymax);
    }
    shapes.extend(overlay);
    (shapes, ymax)
}

/// The measured level: a dashed line from `x0` to `x1` at `y` with its label above, one group
/// with a stable id.
fn measured_marker(x0: i32, x1: i32, y: i32, label: &str) -> Shape {
    let dashed = Stroke {
        colour: Colour::opaque(Paint::Ink),
        width: Some(2),
        dash: Some((6, 4)),
    };
    Shape {
        id: Some("measured-marker"),
        class: Some("measured-marker"),
        title: Some(label.to_string()),
        ..Shape::new(Geometry::Group(vec![
            Shape {
                stroke: Some(dashed),
                ..Shape::new(Geometry::Line(Some(((x0, y), (x1, y)))))
            },
            text("marker-label", (x0, y - 5), None, false, label.to_string()),
        ]))
    }
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

/// The bars' capacity lines of common cards, each with its label. Every card's line and label
/// are always there, hidden (`display="none"`) where the card is above the axis's top or within
/// 3 % of the selected line (`cap`), so an axis that grows while a slider moves shows lines
/// rather than adding elements. `across(y)` is where a line at `y` starts and ends on
/// the chart.
fn capacity_marks(
    ymax: f64,
    cap: f64,
    ubytes: f64,
    across: impl Fn(f64) -> ((i32, i32), (i32, i32)),
) -> Vec<Shape> {
    let faint = Stroke {
        colour: Colour {
            paint: Paint::Ink,
            opacity: 35,
        },
        width: None,
        dash: None,
    };
    let mut marks = Vec::new();
    for (gib, y) in capacity_heights(ubytes) {
        let name = format!("{gib} GiB");
        if capacity_shown(y, ymax, cap) {
            let ((x1, y1), (x2, _)) = across(y);
            marks.push(line("cap", (x1, y1), (x2, y1), faint));
            marks.push(text("cap-label", (x2 + 4, y1), None, true, name));
        } else {
            let hidden = |geometry, class| Shape {
                class: Some(class),
                hidden: true,
                ..Shape::new(geometry)
            };
            marks.push(hidden(Geometry::Line(None), "cap"));
            let label = Text {
                content: name,
                ..Text::default()
            };
            marks.push(hidden(Geometry::Text(label), "cap-label"));
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
        format!("{}M", vram_engine::units::decimal(v / 1_048_576.0, 0))
    } else if v >= 1024.0 {
        format!("{}k", vram_engine::units::decimal(v / 1024.0, 0))
    } else {
        vram_engine::units::decimal(v, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::Gpu;
    use vram_engine::{estimate, Scenario};

    /// The bar chart of a scenario, its axis fitted.
    fn bars_chart(s: &Scenario) -> Vec<Shape> {
        let c = vram_engine::Overview::compute(s).unwrap();
        let line = (s.gpu.bytes(), s.gpu.label());
        stacked(&bars(&c.bars), s.gpus, line, s.unit, Lang::En, None, None).0
    }

    /// A chart's segments: its shapes of class "seg".
    fn segments(shapes: &[Shape]) -> Vec<&Shape> {
        shapes.iter().filter(|s| s.class == Some("seg")).collect()
    }

    #[test]
    fn a_segment_is_one_polygon_so_one_that_moves_changes_its_points_and_is_not_restyled() {
        let s = Scenario::default();
        // a larger LoRA rank: the adapters grow a little, under the same axis
        let mut bigger = s.clone();
        bigger.lora_rank *= 4;
        let (before, after) = (bars_chart(&s), bars_chart(&bigger));
        let (before, after) = (segments(&before), segments(&after));
        assert!(!before.is_empty());
        for seg in before.iter().chain(&after) {
            // no transform, and none of the attributes Chromium maps to CSS properties (a
            // rectangle's x, y, width and height): a step that moves it does not restyle it
            let names: Vec<&str> = seg.names().filter(|n| seg.attribute(n).is_some()).collect();
            assert_eq!(
                names,
                [
                    "class",
                    "tabindex",
                    "data-component",
                    "data-gpus",
                    "points",
                    "fill"
                ]
            );
            // it holds only the title that labels it
            assert!(seg.title.is_some() && seg.children().is_empty());
            // four corners, clockwise from the top left: a box at least 1 px each way
            let Geometry::Polygon(corners) = &seg.geometry else {
                panic!("{seg:?}");
            };
            let [(ax, ay), (bx, by), (cx, cy), (dx, dy)] = corners[..] else {
                panic!("{corners:?}");
            };
            assert!(ay == by && bx == cx && cy == dy && dx == ax, "{corners:?}");
            assert!(bx > ax && cy > by, "{corners:?}");
        }
        // the segments above the adapters move up and keep the rest: their points change;
        // the weights, at the bottom of each bar, stay as they were
        let moved = before
            .iter()
            .zip(&after)
            .filter(|(a, b)| a.geometry != b.geometry && a.data == b.data && a.title == b.title)
            .count();
        assert!(moved > 0, "no segment moved without changing inside");
        assert_eq!(before[0], after[0], "the first bar's weights stay put");
    }

    /// The default job's 1-GPU bar alone, its axis held at `held`: the markup and the bar.
    fn one_bar(held: Option<Held>) -> (String, Breakdown) {
        let s = Scenario::default();
        let b = estimate(&s).unwrap();
        let line = (s.gpu.bytes(), s.gpu.label());
        let (shapes, _) = stacked(&[Bar::of(1, &b)], 1, line, s.unit, Lang::En, None, held);
        (svg_text(&shapes, BARS_SIZE, "bars"), b)
    }

    #[test]
    fn an_axis_that_grows_shows_more_capacity_lines_without_adding_elements() {
        let (low, high) = (
            one_bar(None).0,
            one_bar(Some(Held {
                top: 150.0,
                grown: false,
            }))
            .0,
        );
        let count = |svg: &str, what: &str| svg.matches(what).count();
        for svg in [&low, &high] {
            // every card's line and label, and the selected line, whatever the axis shows
            assert_eq!(count(svg, r#"<line class="cap""#), CAPACITY_LINES_GIB.len());
            assert_eq!(count(svg, r#"<line class="cap selected""#), 1);
            assert_eq!(count(svg, r#"class="cap-label""#), CAPACITY_LINES_GIB.len());
        }
        let hidden = |svg: &str| count(svg, r#"<line class="cap" display="none"/>"#);
        assert!(hidden(&high) < hidden(&low), "{low}\n{high}");
        // the 192 GiB card is above an axis topped at 150 (GiB or GB); the 16 GiB card under both
        assert!(high.contains(r#"<text class="cap-label" display="none">192 GiB</text>"#));
        assert!(!high.contains(r#"display="none">16 GiB"#), "{high}");
        assert!(!low.contains(r#"display="none">16 GiB"#), "{low}");
    }

    #[test]
    fn the_stacked_chart_has_one_segment_per_nonzero_component() {
        let (svg, b) = one_bar(None);
        let segments = svg.matches(r#"class="seg""#).count();
        let nonzero = Component::ALL.iter().filter(|c| b.bytes(**c) > 0).count();
        assert_eq!(segments, nonzero);
        // each segment is one polygon, which carries its colour and takes hover and focus
        assert_eq!(svg.matches("<polygon").count(), segments, "{svg}");
        let weights = css_colour(Component::Weights);
        assert!(
            svg.contains(&format!(r#"fill="{weights}"><title>"#)),
            "{svg}"
        );
        assert!(!svg.contains(r#"<g class="seg""#), "{svg}");
        // and one label for them all, hidden, painted last, above every bar
        assert_eq!(svg.matches(r#"id="seg-hover""#).count(), 1, "{svg}");
        let label = r#"<text id="seg-hover" class="seg-label" y="-4" display="none"></text>"#;
        assert!(svg.contains(&format!("{label}</svg>")), "{svg}");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n") || svg.ends_with("</svg>"));
    }

    #[test]
    fn both_charts_stay_small_enough_to_redraw_on_every_slider_step() {
        // the faint minor grid was 54 of the bars' 60 lines and 138 of the curve's 153
        let s = Scenario::default();
        let c = vram_engine::Overview::compute(&s).unwrap();
        let (limit, name) = (s.gpu.bytes(), s.gpu.label());
        let (bars, _) = stacked(
            &super::bars(&c.bars),
            s.gpus,
            (limit, name),
            s.unit,
            Lang::En,
            None,
            None,
        );
        let (curve, _) = sweep(
            &vram_engine::fit::sweep(&s, &c.arch),
            s.seq,
            false,
            (limit, name),
            s.unit,
            Lang::En,
            None,
        );
        let bars = svg_text(&bars, BARS_SIZE, "bars");
        let curve = svg_text(&curve, SWEEP_SIZE, "curve");
        for svg in [&bars, &curve] {
            assert!(svg.matches("<line").count() <= 20, "{svg}");
            assert!(!svg.contains("<line opacity="), "{svg}");
        }
    }

    #[test]
    fn the_bars_axis_tops_out_at_a_round_number_that_holds_while_the_bars_move_a_little() {
        assert_eq!(round_top(56.1), 60.0);
        assert_eq!(round_top(59.9), 60.0);
        assert_eq!(round_top(60.0), 60.0);
        assert_eq!(round_top(60.1), 70.0);
        assert_eq!(round_top(101.0), 125.0);
        assert_eq!(round_top(0.3), 1.0);
        assert_eq!(round_top(9.5), 10.0);
        // never more than a quarter above what it has to show
        for v in [
            1.01, 1.51, 3.01, 3.3, 6.01, 12.6, 47.0, 250.1, 799.0, 1234.5,
        ] {
            let top = round_top(v);
            assert!(top >= v && top <= v * 1.25, "{v} -> {top}");
        }
    }

    #[test]
    fn while_a_slider_moves_the_axis_only_grows_and_at_rest_it_fits_the_bars() {
        let held = |top| Some(Held { top, grown: false });
        // at rest: the top that fits
        assert_eq!(shown_top(30.0, None), 30.0);
        // the bars shrank during the movement: the axis stays where it was
        assert_eq!(shown_top(30.0, held(50.0)), 50.0);
        // they outgrew it: it grows at once, never hiding a bar's top
        assert_eq!(shown_top(60.0, held(50.0)), 60.0);
        // the fitted top is the one the chart had before the axis could be held
        let s = Scenario::default();
        let c = vram_engine::Overview::compute(&s).unwrap();
        let fitted = fitted_top(&bars(&c.bars), s.gpu.bytes(), s.unit, 0);
        let tallest = c.bars.iter().map(|(_, b)| b.total).max().unwrap();
        let highest = tallest.max(s.gpu.bytes()) as f64 / s.unit.bytes() as f64;
        assert_eq!(fitted, round_top(highest * 1.12));
        assert!(fitted_top(&bars(&c.bars), s.gpu.bytes(), s.unit, 200 << 30) > 200.0);
    }

    #[test]
    fn a_movement_that_outgrows_the_axis_twice_grows_it_ahead_of_the_bars_the_second_time() {
        // the first growth of a movement fits the bars: one step that outgrows the axis
        // shows the same top during the movement and after it
        let start = Held::after(None, 30.0);
        assert!(!start.grown);
        let first = shown_top(40.0, Some(start));
        assert_eq!(first, 40.0);
        let after_first = Held::after(Some(start), first);
        assert!(after_first.grown);
        // the bars keep rising: the axis grows to twice what fits them, so the next doubling
        // of the bars stays under it
        let second = shown_top(80.0, Some(after_first));
        assert_eq!(second, round_top(160.0));
        assert!(shown_top(second, Some(Held::after(Some(after_first), second))) == second);
        // a movement that only holds the axis has not grown it
        assert!(!Held::after(Some(start), 30.0).grown);
        // at rest the axis fits the bars again, whatever the movement held
        assert_eq!(shown_top(40.0, None), 40.0);
        // the growth chart holds its axis but never grows it ahead of the curve
        let s = Scenario::default();
        let swept = vram_engine::fit::sweep(&s, &s.model.architecture().unwrap());
        let line = (s.gpu.bytes(), s.gpu.label());
        let at = s.swept_tokens();
        let (_, fitted) = sweep(&swept, at, false, line, s.unit, Lang::En, None);
        let low = Some(fitted / 4.0);
        let (_, shown) = sweep(&swept, at, false, line, s.unit, Lang::En, low);
        assert_eq!(shown, fitted);
    }

    #[test]
    fn a_measured_marker_sits_on_the_current_bar_with_its_label_escaped() {
        let s = Scenario::default();
        let b = estimate(&s).unwrap();
        let bars = [Bar::of(1, &b), Bar::of(2, &b)];
        let (shapes, top) = stacked(
            &bars,
            2,
            (s.gpu.bytes(), s.gpu.label()),
            s.unit,
            Lang::En,
            Some((200 << 30, "<b>x</b>")),
            None,
        );
        let svg = svg_text(&shapes, BARS_SIZE, "bars");
        assert_eq!(svg.matches(r#"id="measured-marker""#).count(), 1);
        assert!(svg.contains("&lt;b&gt;x&lt;/b&gt;") && !svg.contains("<b>"));
        // 200 GiB is above every bar: the axis grows to show it, and the marker's line is on
        // the chart, across the second bar
        assert!(top >= 200.0, "{top}");
        let marker = shapes
            .iter()
            .find(|s| s.id == Some("measured-marker"))
            .unwrap();
        let Geometry::Line(Some(((x0, y), (x1, _)))) = marker.children()[0].geometry else {
            panic!("{marker:?}");
        };
        assert!(y > 0 && y < BARS_SIZE.1 as i32, "{y}");
        assert!(x0 > BARS_SIZE.0 as i32 / 3 && x1 > x0, "{x0} {x1}");
    }

    #[test]
    fn a_curve_far_above_the_gpu_still_shows_where_it_starts() {
        // 100-200 GiB against a 24 GiB card: the axis reaches past the first point
        let gib = 1u64 << 30;
        let points: Vec<(u64, u64)> = (0..10).map(|i| (128 << i, (100 + 10 * i) * gib)).collect();
        let line = (Gpu::Rtx4090.bytes(), Gpu::Rtx4090.label());
        let (shapes, _) = sweep(
            &points,
            1024,
            false,
            line,
            vram_engine::Unit::Gib,
            Lang::En,
            None,
        );
        let svg = svg_text(&shapes, SWEEP_SIZE, "curve");
        let labels: Vec<f64> = svg
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next())
            // the y axis labels carry one decimal; the x axis writes whole token counts
            .filter(|t| t.contains('.'))
            .filter_map(|t| t.trim().parse::<f64>().ok())
            .collect();
        let top = labels.iter().cloned().fold(0.0, f64::max);
        assert!(top >= 100.0, "y axis tops out at {top}");
        // it never fits, so there is no point where it stops fitting: the mark is hidden
        assert!(
            svg.contains(r#"<g class="limit-mark" transform="translate(0,0)" display="none">"#),
            "{svg}"
        );
    }
}
