//! The bar chart's one label (`chart::SEGMENT_LABEL`): it shows the title of the segment that
//! has the keyboard's focus or, without one, the segment under the pointer, 4 px above the
//! segment, and hides when neither is on a segment. The chart's
//! view leaves the label as this module set it, so it is set again after each step and follows
//! a segment that a step moved or changed.
//!
//! The segments are found by walking up from an event's element, not with `closest` or
//! `querySelector(":hover")`: each DOM call the page makes adds its glue to the first load.

use std::cell::RefCell;

use wasm_bindgen::JsCast;
use web_sys::Element;

/// The chart's host, whose events move the label.
const HOST: &str = "chart";

thread_local! {
    /// The segment that has the focus, and the one under the pointer, as the last events left
    /// them.
    static FOCUSED: RefCell<Option<Element>> = const { RefCell::new(None) };
    static POINTED: RefCell<Option<Element>> = const { RefCell::new(None) };
}

/// The focus entered the chart: the label shows the focused segment, if it is one.
pub fn focus_in(ev: &web_sys::FocusEvent) {
    held(&FOCUSED, super::event_element(ev));
}

/// The focus left an element of the chart for its `relatedTarget`, which may be a segment.
pub fn focus_out(ev: &web_sys::FocusEvent) {
    held(&FOCUSED, related(ev));
}

/// The pointer entered an element of the chart.
pub fn pointer_over(ev: &web_sys::MouseEvent) {
    held(&POINTED, super::event_element(ev));
}

/// The pointer left an element of the chart for its `relatedTarget`.
pub fn pointer_out(ev: &web_sys::MouseEvent) {
    held(&POINTED, related(ev));
}

/// Shows the label again after the chart changed: the same segment elements stay, with
/// their new place and title. A chart built anew has new ones, and the label hides until
/// the pointer or the focus moves. With no segment held (every step of a slider), nothing is
/// looked up or written: the label is hidden as the last event or the markup left it.
pub fn show_again() {
    let mut held_one = false;
    for slot in [&FOCUSED, &POINTED] {
        slot.with_borrow_mut(|s| {
            held_one |= s.is_some();
            if s.as_ref().and_then(|s| segment(s.clone())).is_none() {
                *s = None;
            }
        });
    }
    if held_one {
        show();
    }
}

/// `slot` now holds the segment `element` is in (or none), and the label follows.
fn held(slot: &'static std::thread::LocalKey<RefCell<Option<Element>>>, element: Option<Element>) {
    slot.set(element.and_then(segment));
    show();
}

/// The element the pointer or the focus goes to as it leaves the event's element.
fn related(ev: &web_sys::Event) -> Option<Element> {
    let related = js_sys::Reflect::get(ev, &"relatedTarget".into()).ok()?;
    related.dyn_into::<Element>().ok()
}

/// The chart's segment `element` is in (or is), while it is on the page's chart.
fn segment(element: Element) -> Option<Element> {
    let mut at = Some(element);
    let mut found = None;
    while let Some(el) = at {
        if el.id() == HOST {
            return found;
        }
        if found.is_none() && el.get_attribute("class").as_deref() == Some("seg") {
            found = Some(el.clone());
        }
        at = el.parent_element();
    }
    None
}

/// The label showing the focused or pointed segment's title above it, or hidden for none. The
/// label is moved to the segment's top left corner, its first point (its `y` in the markup puts
/// it 4 px above), as written, without reading the numbers.
fn show() {
    let Some(label) = leptos::prelude::document().get_element_by_id("seg-hover") else {
        return;
    };
    let shown = FOCUSED
        .with_borrow(Clone::clone)
        .or_else(|| POINTED.with_borrow(Clone::clone));
    let placed = shown.and_then(|s| {
        let title = s.first_element_child()?.text_content()?;
        // the polygon's first point is its top left corner, "x,y"
        let points = s.get_attribute("points")?;
        let at = format!("translate({})", points.split(' ').next()?);
        Some((at, title))
    });
    let Some((at, title)) = placed else {
        let _ = label.set_attribute("display", "none");
        return;
    };
    let _ = label.set_attribute("transform", &at);
    label.set_text_content(Some(&title));
    let _ = label.remove_attribute("display");
}
