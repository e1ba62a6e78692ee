//! Whether an element is on screen, as a signal the page's effects can read.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, IntersectionObserver, IntersectionObserverEntry};

use crate::reactive::*;

/// Keeps `on_screen` equal to whether any of `el` is inside the viewport, from the first layout
/// on: an `IntersectionObserver`, returned so that the panel can let go of `el` when it leaves the
/// page (as when the job becomes a local run). The observer has no margin: with 200 px below the
/// viewport counted as on screen, a press on `#batch` (scrolled to its middle) also built the fit
/// table just below the fold, and 11–15 of its 25 presses missed the frame; with none, 1–4 did
/// (issue 16, tenth round). A panel scrolled into sight during a drag shows the step before for
/// one frame; every panel catches up when input pauses (`results::answer_section`).
pub fn watch(el: &Element, on_screen: RwSignal<bool>) -> Option<IntersectionObserver> {
    let seen = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let last = entries.iter().last();
        if let Some(entry) = last.and_then(|e| e.dyn_into::<IntersectionObserverEntry>().ok()) {
            on_screen.set(entry.is_intersecting());
        }
    });
    let observer = IntersectionObserver::new(seen.as_ref().unchecked_ref()).ok()?;
    observer.observe(el);
    seen.forget();
    Some(observer)
}
