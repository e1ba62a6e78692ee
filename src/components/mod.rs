//! The page's components: the settings' controls, the model picker, the answer, the measurement,
//! the Hub box and the llama.cpp job.

pub mod controls;
pub mod hub;
pub mod local;
pub mod measured;
pub mod model;
pub mod moving;
pub mod paste_box;
pub mod results;
pub mod segment_label;
pub mod settings;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::i18n::t;
use crate::state::AppState;

/// The element an event happened on.
pub fn event_element(ev: &web_sys::Event) -> Option<web_sys::Element> {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
}

/// The id of the element an event happened on ("" when it has none).
pub fn event_target_id(ev: &web_sys::Event) -> String {
    event_element(ev).map(|e| e.id()).unwrap_or_default()
}

/// Under a box read on demand: why its text was refused (`{box}-error`) and "Reading …" while
/// the module reads it (`{box}-status`).
#[component]
pub fn ErrorAndStatus(
    #[prop(into)] id: String,
    #[prop(into)] error: Signal<Option<String>>,
    #[prop(into)] reading: Signal<bool>,
) -> impl IntoView {
    let st = expect_context::<AppState>();
    view! {
        <p class="input-error" id=format!("{id}-error") role="alert">
            {move || error.get().unwrap_or_default()}
        </p>
        <p id=format!("{id}-status") role="status">
            {move || if reading.get() { t(st.lang.get(), "reading") } else { "" }}
        </p>
    }
}
