//! A chart's shapes as SVG elements that stay on the page from one step to the next.
//!
//! `SvgChart` renders an `<svg>` with its title, then one element per [`Shape`] with Leptos'
//! keyed `<For>`. An element's key is its [`Form`]: where it stands (the how-manieth shape of its
//! tag and class it is, or its id where it has one), its tag, the attributes it may have and
//! whether it has a title. A slider step redraws the whole chart into a new list of shapes; a
//! shape that appears (a label that now fits its segment) adds one element and moves no key of
//! another tag or class, so `<For>` keeps every other element. Each element holds its shape in
//! a signal of its own, which one effect per chart sets only where the shape changed; each
//! attribute is a closure whose value Leptos writes only when it differs from the one it wrote
//! last: a step that moves a segment sets that polygon's `points` and its title's text, and
//! nothing else.
//!
//! An element whose form changes is replaced; one with an id (the measured marker, the segment
//! label) keeps its key wherever it stands. The segment label (`SEGMENT_LABEL`) never changes,
//! so what the page's handlers write into it stays.

use std::collections::HashMap;

use leptos::attr::any_attribute::{AnyAttribute, IntoAnyAttribute};
use leptos::attr::custom::custom_attribute;
use leptos::prelude::*;
use leptos::svg;
use vram_svg::{Shape, Tag};

/// What keys an element: where it stands, its tag, every attribute it may have and whether it
/// has a title. The element a form made can show any shape of that form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Form {
    pub place: Place,
    pub tag: Tag,
    pub names: Vec<&'static str>,
    pub title: bool,
}

/// Where an element stands: the how-manieth shape of its tag and class it is among its
/// siblings, or its id, which is the same wherever it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Nth(Option<&'static str>, usize),
    Id(&'static str),
}

/// The forms of `shapes`, in order: the keys of their elements.
pub fn forms(shapes: &[Shape]) -> Vec<Form> {
    let mut seen: HashMap<(Tag, Option<&'static str>), usize> = HashMap::new();
    shapes
        .iter()
        .map(|s| {
            let place = match s.id {
                Some(id) => Place::Id(id),
                None => {
                    let n = seen.entry((s.tag(), s.class)).or_default();
                    *n += 1;
                    Place::Nth(s.class, *n - 1)
                }
            };
            Form {
                place,
                tag: s.tag(),
                names: s.names().collect(),
                title: s.title.is_some(),
            }
        })
        .collect()
}

/// The shape of `shapes` that `form` shows, if it is still there.
pub fn shape_of<'a>(shapes: &'a [Shape], form: &Form) -> Option<&'a Shape> {
    let at = forms(shapes).iter().position(|f| f == form)?;
    shapes.get(at)
}

/// An `<svg>` of `width` by `height` pixels titled `title`, holding `shapes` as elements that
/// stay from one step to the next (see the module's doc).
#[component]
pub fn SvgChart(
    #[prop(into)] shapes: Signal<Vec<Shape>>,
    width: u32,
    height: u32,
    #[prop(into)] title: Signal<String>,
) -> impl IntoView {
    let view_box = format!("0 0 {width} {height}");
    // the keys of this step's shapes, worked out once per step
    let keyed = Memo::new(move |_| shapes.with(|s| forms(s)));
    // each element's shape, by its key: a step tells an element its shape only when it changed,
    // so an element that stays reads nothing else of the chart
    let slots = StoredValue::new(HashMap::<Form, RwSignal<Option<Shape>>>::new());
    Effect::new(move |_| {
        keyed.with(|forms| {
            shapes.with(|shapes| {
                slots.with_value(|slots| tell_changed(slots, forms, shapes));
            })
        })
    });
    view! {
        <svg
            width=width.to_string()
            height=height.to_string()
            viewBox=view_box
            xmlns="http://www.w3.org/2000/svg"
        >
            <title>{move || title.get()}</title>
            <For
                each=move || keyed.get()
                key=Form::clone
                children=move |form| {
                    // its shape stands where its key stands among this step's keys
                    let now = untrack(|| {
                        let at = keyed.with(|k| k.iter().position(|f| *f == form))?;
                        shapes.with(|s| s.get(at).cloned())
                    });
                    let shape = RwSignal::new(now);
                    slots.update_value(|m| {
                        m.insert(form.clone(), shape);
                    });
                    on_cleanup({
                        let form = form.clone();
                        move || slots.update_value(|m| {
                            m.remove(&form);
                        })
                    });
                    element(shape.into(), &form)
                }
            />
        </svg>
    }
}

/// Tells each element of `slots` that stays its shape in `shapes` (keyed by `forms`), where it
/// changed.
fn tell_changed(slots: &HashMap<Form, RwSignal<Option<Shape>>>, forms: &[Form], shapes: &[Shape]) {
    for (form, shape) in forms.iter().zip(shapes) {
        if let Some(slot) = slots.get(form) {
            if slot.with_untracked(|was| was.as_ref() != Some(shape)) {
                slot.set(Some(shape.clone()));
            }
        }
    }
}

/// The element of `form`, showing `shape`: each attribute, its title and its text follow the
/// shape.
fn element(shape: Signal<Option<Shape>>, form: &Form) -> AnyView {
    let read = move |f: fn(&Shape) -> Option<String>| {
        move || shape.with(|s| s.as_ref().and_then(f)).unwrap_or_default()
    };
    let attributes: Vec<AnyAttribute> = form
        .names
        .iter()
        .map(|&name| {
            let value = move || shape.with(|s| s.as_ref().and_then(|s| s.attribute(name)));
            custom_attribute(name, value).into_any_attr()
        })
        .collect();
    let title = form
        .title
        .then(|| svg::title().child(read(|s| s.title.clone())));
    match form.tag {
        Tag::Rect => svg::rect().add_any_attr(attributes).child(title).into_any(),
        Tag::Line => svg::line().add_any_attr(attributes).child(title).into_any(),
        Tag::Polyline => svg::polyline()
            .add_any_attr(attributes)
            .child(title)
            .into_any(),
        Tag::Polygon => svg::polygon()
            .add_any_attr(attributes)
            .child(title)
            .into_any(),
        Tag::Circle => svg::circle()
            .add_any_attr(attributes)
            .child(title)
            .into_any(),
        Tag::Text => {
            let content = read(|s| s.content().map(str::to_string));
            svg::text()
                .add_any_attr(attributes)
                .child((title, content))
                .into_any()
        }
        Tag::Group => {
            let children = view! {
                <For
                    each=move || shape.with(|s| s.as_ref().map(|s| forms(s.children())).unwrap_or_default())
                    key=Form::clone
                    children=move |form| {
                        let child = Memo::new({
                            let form = form.clone();
                            move |_| {
                                shape.with(|s| s.as_ref().and_then(|s| shape_of(s.children(), &form)).cloned())
                            }
                        });
                        element(child.into(), &form)
                    }
                />
            };
            svg::g()
                .add_any_attr(attributes)
                .child((title, children))
                .into_any()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{bars, stacked, sweep, Held};
    use crate::i18n::Lang;
    use vram_engine::{Overview, Scenario};

    /// The default job's bars, and the sequence-length curve, with their axes held at `top`
    /// as while a slider moves.
    fn charts(s: &Scenario, top: f64) -> [Vec<Shape>; 2] {
        let o = Overview::compute(s).unwrap();
        let line = (s.gpu.bytes(), s.gpu.label());
        let held = Some(Held { top, grown: false });
        let (b, _) = stacked(&bars(&o.bars), s.gpus, line, s.unit, Lang::En, None, held);
        let swept = vram_engine::fit::sweep(s, &o.arch);
        let at = s.swept_tokens();
        let (c, _) = sweep(&swept, at, false, line, s.unit, Lang::En, Some(top));
        [b, c]
    }

    /// The attributes, title and text that differ between two shapes of the same form.
    fn changed(a: &Shape, b: &Shape) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = a
            .names()
            .filter(|n| a.attribute(n) != b.attribute(n))
            .collect();
        if a.title != b.title {
            out.push("title");
        }
        if a.content() != b.content() {
            out.push("text");
        }
        for (x, y) in a.children().iter().zip(b.children()) {
            out.extend(changed(x, y));
        }
        out
    }

    #[test]
    fn a_batch_step_keeps_every_element_and_changes_only_where_they_stand_and_what_they_say() {
        let s = Scenario::default();
        let doubled = Scenario {
            batch: s.batch * 2,
            ..s.clone()
        };
        // an axis held at 1000 (GiB or GB) while the slider moves: the bars grow under it
        let (before, after) = (charts(&s, 1000.0), charts(&doubled, 1000.0));
        let geometry = [
            "points",
            "x",
            "y",
            "x1",
            "y1",
            "x2",
            "y2",
            "transform",
            "display",
        ];
        let mut moved = 0;
        for (b, a) in before.iter().zip(&after) {
            assert_eq!(
                forms(b),
                forms(a),
                "the same keys: no element added or removed"
            );
            for (x, y) in b.iter().zip(a) {
                let what = changed(x, y);
                for name in &what {
                    assert!(
                        geometry.contains(name) || *name == "title" || *name == "text",
                        "{name} changed in {x:?}"
                    );
                }
                moved += usize::from(what.contains(&"points"));
            }
        }
        // every bar doubles its activations: the segments from there up move
        assert!(moved >= 3, "{moved} segments moved");
        // the axis, its ticks and its grid stay as they were: plotters' shapes come first, and
        // the bars' first shapes are its axis and grid lines
        assert_eq!(before[0][..5], after[0][..5]);
    }

    #[test]
    fn the_segment_label_and_the_measured_marker_are_keyed_by_their_ids_wherever_they_stand() {
        let s = Scenario::default();
        let o = Overview::compute(&s).unwrap();
        let line = (s.gpu.bytes(), s.gpu.label());
        let draw = |bars: &[crate::chart::Bar], marker| {
            stacked(bars, s.gpus, line, s.unit, Lang::En, marker, None).0
        };
        let all = bars(&o.bars);
        let (with, without) = (draw(&all, Some((10 << 30, "measured"))), draw(&all, None));
        let ids = |shapes: &[Shape]| -> Vec<Place> {
            forms(shapes)
                .into_iter()
                .map(|f| f.place)
                .filter(|p| matches!(p, Place::Id(_)))
                .collect()
        };
        assert_eq!(
            ids(&with),
            [Place::Id("measured-marker"), Place::Id("seg-hover")]
        );
        assert_eq!(ids(&without), [Place::Id("seg-hover")]);
        let label = forms(&without).pop().unwrap();
        assert_eq!(shape_of(&with, &label), Some(&crate::chart::SEGMENT_LABEL));
        // an index that now holds another tag shows nothing rather than the wrong element
        let text = forms(&without)
            .into_iter()
            .find(|f| f.tag == Tag::Text && matches!(f.place, Place::Nth(..)))
            .unwrap();
        let as_line = Form {
            tag: Tag::Line,
            ..text
        };
        assert_eq!(shape_of(&without, &as_line), None);
    }
}
