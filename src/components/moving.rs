//! Whether a slider is moving: set by every slider's input, cleared once input pauses. While it
//! is set the charts' axes hold (they only grow), so a drag moves the bars, not the ticks.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// How long input must pause before the sliders count as still.
pub const PAUSE: Duration = Duration::from_millis(600);

/// The page's one "a slider moves" signal, fed by the app's input events.
#[derive(Clone, Copy)]
pub struct SlidersMoving {
    pub moving: RwSignal<bool>,
    pending: StoredValue<Option<TimeoutHandle>>,
}

impl SlidersMoving {
    pub fn new() -> SlidersMoving {
        SlidersMoving {
            moving: RwSignal::new(false),
            pending: StoredValue::new(None),
        }
    }

    /// An input event anywhere on the page: a range slider's starts or prolongs the movement.
    pub fn saw(self, ev: &web_sys::Event) {
        let slider = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .is_some_and(|i| i.type_() == "range");
        if !slider {
            return;
        }
        if let Some(h) = self.pending.get_value() {
            h.clear();
        }
        if !self.moving.get_untracked() {
            self.moving.set(true);
        }
        let moving = self.moving;
        let handle = set_timeout_with_handle(move || moving.set(false), PAUSE).ok();
        self.pending.set_value(handle);
    }
}
