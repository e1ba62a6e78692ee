//! English and Chinese text. Every string the page shows goes through `t`.

use vram_engine::{memory::Formula, memory::Moment, Unit};

pub use vram_text::{component, component_doc, remedy, Lang};

/// The browser's language: Chinese for any zh-*, English otherwise.
pub fn browser_lang() -> Lang {
    let nav = web_sys::window()
        .map(|w| w.navigator().language().unwrap_or_default())
        .unwrap_or_default();
    if nav.to_ascii_lowercase().starts_with("zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// The text for `key` in `lang` ("?" when it is missing: caught by a test in `vram_text`).
pub fn t(lang: Lang, key: &str) -> &'static str {
    vram_text::page_text(lang, key)
}

/// A moment of the peak as the engine describes it (`Phase::describe`), in `lang`.
pub fn phase(lang: Lang, moment: Moment) -> &'static str {
    vram_text::moment(lang, moment)
}

/// The label of choice `key` of the setting with link key `setting`, in `lang` (the key itself
/// when the setting has no such choice: a test in `vram_text` walks the registry).
pub fn choice(lang: Lang, setting: &str, key: &str) -> String {
    vram_text::choice_label(lang, setting, key).unwrap_or_else(|| key.to_string())
}

/// The engine's formula in `lang`, sizes in `unit`: sentences from `vram_text`, the numbers
/// this scenario's.
pub fn formula(lang: Lang, formula: &Formula, unit: Unit) -> String {
    vram_text::formula(lang, formula, unit)
}
