//! Small components: generic inputs, the model picker, the results.

pub mod controls;
pub mod hub;
pub mod local;
pub mod measured;
pub mod model;
pub mod moving;
pub mod on_screen;
pub mod results;
pub mod segment_label;
pub mod settings_list;

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

/// Shows `value` in the input or text box `id`: the panels written as markup are written once,
/// not bound, so a value the page sets (a file's text, its name) goes to the element itself.
pub fn show_value(id: &str, value: &str) {
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id));
    if let Some(el) = el {
        let _ = js_sys::Reflect::set(&el, &"value".into(), &value.into());
    }
}

/// Under a box read on demand: why its text was refused (`{box}-error`, escaped) and
/// "Reading …" while the module reads it (`{box}-status`), as markup.
pub fn error_and_status(
    box_id: &str,
    lang: crate::i18n::Lang,
    error: Option<&str>,
    reading: bool,
) -> String {
    let error = error.map(vram_text::escape).unwrap_or_default();
    let status = if reading {
        crate::i18n::t(lang, "reading")
    } else {
        ""
    };
    format!(
        r#"<p class="input-error" id="{box_id}-error" role="alert">{error}</p><p id="{box_id}-status" role="status">{status}</p>"#
    )
}
