//! The box text is pasted into, with its apply button and file input: the measurement panel's
//! and the config picker's (`{id}-text`, `{id}-apply`, `{id}-file`).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::i18n::t;
use crate::state::AppState;

/// Why a picked file's text was not read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FileProblem {
    /// Larger than the box reads: its size in bytes.
    TooLarge(f64),
    /// The browser could not read it.
    Unreadable,
}

/// A textarea, its apply button and its file input. The button applies the text; a picked file
/// within `max_bytes` is read into the box and applied.
#[component]
pub fn PasteBox(
    /// The ids' prefix.
    id: &'static str,
    rows: u32,
    placeholder: &'static str,
    /// The file input's `accept`.
    accept: &'static str,
    /// The button's text key.
    apply_label: &'static str,
    /// The largest file read, in bytes.
    max_bytes: usize,
    /// The box's text.
    text: RwSignal<String>,
    /// Called with the text applied.
    on_apply: Callback<String>,
    /// Called with a file picked, before it is read.
    on_pick: Callback<web_sys::File>,
    /// Called when a picked file is not read.
    on_refused: Callback<FileProblem>,
) -> impl IntoView {
    let st = expect_context::<AppState>();
    let lang = move || st.lang.get();
    let on_file = move |ev: web_sys::Event| {
        let Some(file) = picked_file(&ev) else {
            return;
        };
        if file.size() > max_bytes as f64 {
            on_refused.run(FileProblem::TooLarge(file.size()));
            return;
        }
        on_pick.run(file.clone());
        let promise = file.text();
        leptos::task::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(v) => {
                    let body = v.as_string().unwrap_or_default();
                    text.set(body.clone());
                    on_apply.run(body);
                }
                Err(_) => on_refused.run(FileProblem::Unreadable),
            }
        });
    };
    view! {
        <textarea
            id=format!("{id}-text")
            rows=rows
            spellcheck="false"
            placeholder=placeholder
            prop:value=move || text.get()
            on:input=move |ev| text.set(event_target_value(&ev))
        ></textarea>
        <div class="row">
            <button
                type="button"
                id=format!("{id}-apply")
                on:click=move |_| on_apply.run(text.get_untracked())
            >
                {move || t(lang(), apply_label)}
            </button>
            <label class="file">
                {move || t(lang(), "upload_config")}
                <input type="file" id=format!("{id}-file") accept=accept on:change=on_file/>
            </label>
        </div>
    }
}

/// The first file of a file input's change event.
fn picked_file(ev: &web_sys::Event) -> Option<web_sys::File> {
    ev.target()?
        .dyn_into::<web_sys::HtmlInputElement>()
        .ok()?
        .files()?
        .get(0)
}
