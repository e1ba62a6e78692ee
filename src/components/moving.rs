//! Whether a slider is moving: from a range input's `input` event until input pauses.

use std::time::Duration;

use wasm_bindgen::JsCast;

use crate::dom;
use crate::reactive::*;

/// How long input must pause before a slider counts as still: longer than a keyboard's delay
/// before a held arrow key repeats (about half a second), so holding a key is one movement.
pub const PAUSE: Duration = Duration::from_millis(600);

/// True while any slider of the page is moving (it is set on a slider's `input` event, before
/// that event's effects run, and cleared once input has paused for [`PAUSE`]).
pub fn sliders_moving() -> RwSignal<bool> {
    let moving = RwSignal::new(false);
    let pending = StoredValue::new(None::<TimeoutHandle>);
    dom::on("app", "input", move |ev| {
        let slider = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .is_some_and(|i| i.type_() == "range");
        if !slider {
            return;
        }
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        if !moving.get_untracked() {
            moving.set(true);
        }
        pending.set_value(set_timeout_with_handle(move || moving.set(false), PAUSE));
    });
    moving
}
