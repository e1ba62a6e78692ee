//! Small components: generic inputs, the model picker, the results.

pub mod controls;
pub mod hub;
pub mod local;
pub mod measured;
pub mod model;
pub mod on_screen;
pub mod results;

use wasm_bindgen::JsCast;

/// The element an event happened on: the panels written as markup listen on their container.
pub fn event_element(ev: &web_sys::Event) -> Option<web_sys::Element> {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
}

/// The id of the element an event happened on ("" when it has none).
pub fn event_target_id(ev: &web_sys::Event) -> String {
    event_element(ev).map(|e| e.id()).unwrap_or_default()
}
