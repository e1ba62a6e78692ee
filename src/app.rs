//! The page: header, controls on one side, the answer on the other; the URL follows every change.

use leptos::prelude::*;
use vram_engine::Job;

use crate::chart::escape;
use crate::components::event_target_id;
use crate::components::local::{LocalModelFile, LocalResults};
use crate::components::measured::MeasuredPanel;
use crate::components::model::ModelPicker;
use crate::components::results::{Charts, Explanations, FitTable, VerdictLine};
use crate::components::settings_list::{Look, SettingsList};
use crate::i18n::{t, tr, Lang};
use crate::state::AppState;

/// Shows the error banner after a panic (called from the panic hook, outside Leptos).
pub fn show_panic_banner() {
    let lang = if web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
        .contains("lang=zh")
    {
        Lang::Zh
    } else {
        Lang::En
    };
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("panic-banner"))
    {
        el.set_text_content(Some(t(lang, "panic")));
        let _ = el.remove_attribute("hidden");
    }
}

#[component]
pub fn App() -> impl IntoView {
    let st = AppState::from_location();
    provide_context(st);
    // the measurement beside the estimate, which the chart marks and the panel tabulates
    provide_context(crate::components::measured::shown(st));
    // a link or a browser asking for Chinese: English until the Chinese table is in (tens of ms)
    if st.lang.get_untracked() == Lang::Zh && !vram_text::zh_ready() {
        st.lang.set(Lang::En);
        Effect::new(move |_| crate::zh::switch_to(st, Lang::Zh));
    }

    // the URL and the share box follow the state without a history entry per slider tick; while a
    // slider is being dragged they are written once the input pauses (250 ms), not on every tick:
    // the box's text would otherwise damage the top of the page on every frame (issue 16). The
    // box says `data-settled="0"` until it holds the current link.
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let q = st.query();
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let share_box = || {
            web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("share-url"))
        };
        if let Some(b) = share_box() {
            let _ = b.set_attribute("data-settled", "0");
        }
        let write = move || {
            let Some(w) = web_sys::window() else { return };
            let path = w.location().pathname().unwrap_or_default();
            if let Ok(h) = w.history() {
                let _ = h.replace_state_with_url(
                    &wasm_bindgen::JsValue::NULL,
                    "",
                    Some(&format!("{path}?{q}")),
                );
            }
            if let Some(b) = share_box() {
                if let Ok(input) =
                    wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(b.clone())
                {
                    input.set_value(&format!(
                        "{}{path}?{q}",
                        w.location().origin().unwrap_or_default()
                    ));
                }
                let _ = b.set_attribute("data-settled", "1");
            }
        };
        pending
            .set_value(set_timeout_with_handle(write, std::time::Duration::from_millis(250)).ok());
    });
    // the document's language follows the toggle at once (screen readers, fonts)
    Effect::new(move |_| {
        let lang = st.lang.get();
        if let Some(html) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = html.set_attribute("lang", if lang == Lang::Zh { "zh-CN" } else { "en" });
        }
    });

    view! {
        <Header />
        <Notices />
        <main class="layout">
            <div class="controls">
                <ModelPicker />
                <LocalModelFile />
                <JobControls />
                <HardwareControls />
                <Advanced />
            </div>
            <div class="results">
                <Show when=move || st.scenario.with(|s| s.job != Job::Local) fallback=LocalResults>
                    <VerdictLine />
                    <Charts />
                    <FitTable />
                    <MeasuredPanel />
                    <Explanations />
                </Show>
            </div>
        </main>
        <footer class="footer">
            <p>{tr("tagline")} " · GiB = 2^30 B, GB = 10^9 B"</p>
        </footer>
    }
}

/// Writes `text` to the clipboard, then tells `done` whether it could.
pub fn copy_text(text: &str, done: Box<dyn FnOnce(bool)>) {
    let Some(w) = web_sys::window() else { return };
    let promise = w.navigator().clipboard().write_text(text);
    leptos::task::spawn_local(async move {
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}

/// A click inside markup that was on the copy button `button`: the text of `source` to the
/// clipboard, then `said[0]` (copied) or `said[1]` (failed) in `status`.
pub fn copy_on_click(
    e: &leptos::ev::MouseEvent,
    button: &str,
    source: &str,
    status: &str,
    said: [&'static str; 2],
) {
    let on_button = event_target_id(e) == button;
    let doc = web_sys::window().and_then(|w| w.document());
    let text = doc
        .as_ref()
        .and_then(|d| d.get_element_by_id(source)?.text_content());
    if let (true, Some(text)) = (on_button, text) {
        let status = doc.and_then(|d| d.get_element_by_id(status));
        let done = move |ok: bool| {
            if let Some(s) = &status {
                s.set_text_content(Some(said[usize::from(!ok)]));
            }
        };
        copy_text(&text, Box::new(done));
    }
}

#[component]
fn Header() -> impl IntoView {
    let st = expect_context::<AppState>();
    let copied = RwSignal::new(None::<&'static str>);
    // the share box's first link: the URL effect writes every later one into the box itself
    let first_link = escape(&untrack(|| st.share_url()));
    let title = Memo::new(move |_| {
        let l = st.lang.get();
        format!(
            r#"<h1>{}</h1><p class="tagline">{}</p>"#,
            escape(t(l, "title")),
            escape(t(l, "tagline"))
        )
    });
    let tools = Memo::new(move |_| {
        let l = st.lang.get();
        format!(
            r#"<button type="button" id="lang-toggle" lang="{}">{}</button><div class="share"><input type="text" id="share-url" readonly="" aria-label="share link" data-settled="1" value="{first_link}" /><button type="button" id="copy-link">{}</button><span id="copy-status" role="status">{}</span></div>"#,
            if l == Lang::En { "zh" } else { "en" },
            escape(t(l, "language")),
            escape(t(l, "copy_link")),
            copied.get().map_or("", |k| t(l, k))
        )
    });
    let (title_box, tools_box) = (
        NodeRef::<leptos::html::Div>::new(),
        NodeRef::<leptos::html::Div>::new(),
    );
    crate::components::patched_in_place(title_box, title);
    crate::components::patched_in_place(tools_box, tools);
    let clicked = move |e: leptos::ev::MouseEvent| match event_target_id(&e).as_str() {
        "lang-toggle" => {
            let to = if st.lang.get_untracked() == Lang::En {
                Lang::Zh
            } else {
                Lang::En
            };
            crate::zh::switch_to(st, to);
        }
        "copy-link" => copy_text(
            &st.share_url(),
            Box::new(move |ok| copied.set(Some(if ok { "copied" } else { "copy_failed" }))),
        ),
        _ => {}
    };
    view! {
        <header class="header">
            <div node_ref=title_box></div>
            <div class="header-tools">
                <SettingsList settings=HEADER_PANEL />
                <div class="settings" node_ref=tools_box on:click=clicked></div>
            </div>
        </header>
    }
}

#[component]
fn Notices() -> impl IntoView {
    let st = expect_context::<AppState>();
    // the list as escaped markup (a notice may quote the link); one click handler for its button
    let close = move |e: leptos::ev::MouseEvent| {
        if event_target_id(&e) == "notice-close" {
            st.notices.set(Vec::new());
        }
    };
    let markup = Memo::new(move |_| {
        let l = st.lang.get();
        st.notices.with(|notices| {
            if notices.is_empty() {
                return String::new();
            }
            let items: String = notices
                .iter()
                .map(|n| format!("<li>{}</li>", escape(&vram_text::notice(l, n))))
                .collect();
            format!(
                r#"<div class="notice" id="link-notice" role="status"><strong>{}</strong><ul>{items}</ul><button type="button" id="notice-close" aria-label="close">×</button></div>"#,
                escape(t(l, "notice"))
            )
        })
    });
    let host = NodeRef::<leptos::html::Div>::new();
    crate::components::patched_in_place(host, markup);
    view! { <div node_ref=host on:click=close></div> }
}

/// The page's panels: which settings each shows, in order, and how. Every setting of the
/// engine's registry appears in exactly one (a test checks it).
pub(crate) const JOB_PANEL: &[(&str, Look)] = &[
    ("job", Look::Buttons),
    ("weights", Look::Steps),
    ("switch-qh", Look::Plain),
    ("switch-a16", Look::Plain),
    ("batch", Look::Plain),
    ("seq", Look::Plain),
    ("gen", Look::Plain),
    ("target-len", Look::Plain),
    ("switch-ks", Look::Plain),
    ("switch-kvh", Look::Plain),
    ("concurrency", Look::Plain),
    ("avg-tokens", Look::Plain),
    ("shared-prefix", Look::Plain),
    ("kv-dtype", Look::Plain),
    ("lora-rank", Look::Plain),
    ("lora-targets", Look::Plain),
    ("switch-ld", Look::Plain),
    ("switch-mts", Look::Plain),
    ("switch-dora", Look::Plain),
    ("grad-accum", Look::Plain),
    ("global-batch", Look::Plain),
    ("optimizer", Look::Plain),
    ("switch-po", Look::Plain),
    ("switch-mw", Look::Plain),
    ("ckpt", Look::Plain),
    ("switch-ao", Look::Plain),
    ("switch-obw", Look::Plain),
    ("loss", Look::Plain),
    ("attention", Look::Plain),
    ("local-ngl", Look::Plain),
    ("local-ctx", Look::Plain),
    ("local-parallel", Look::Plain),
    ("local-ctk", Look::Plain),
    ("local-ctv", Look::Plain),
    ("local-fa", Look::Plain),
    ("local-ncmoe", Look::Plain),
];
pub(crate) const HARDWARE_PANEL: &[(&str, Look)] = &[
    ("local-machine", Look::Buttons),
    ("gpu", Look::Plain),
    ("gpus", Look::Plain),
    ("tp", Look::Plain),
    ("switch-sqp", Look::Plain),
    ("pp", Look::Plain),
    ("pipeline-schedule", Look::Plain),
    ("virtual-stages", Look::Plain),
    ("zero", Look::Steps),
    ("offload", Look::Plain),
    ("dp-framework", Look::Plain),
    ("shard-group", Look::Plain),
    ("weights-load", Look::Plain),
    ("switch-gbv", Look::Plain),
    ("switch-fns", Look::Plain),
    ("local-mac", Look::Plain),
    ("local-mac-memory", Look::Plain),
    ("local-wired", Look::Plain),
    ("local-ram", Look::Plain),
    ("local-ram-bandwidth", Look::Plain),
    ("local-mmproj-offload", Look::Plain),
    ("local-split-mode", Look::Plain),
];
#[cfg(test)]
/// Settings whose input the local job's module renders in its answer (`crates/local-web`), with
/// the page's one listener on that answer (`components/local.rs`).
const MODULE_RENDERED: &[(&str, Look)] = &[("local-tensor-split", Look::Plain)];
pub(crate) const ADVANCED_PANEL: &[(&str, Look)] = &[
    ("weights-embeddings", Look::Plain),
    ("weights-attention", Look::Plain),
    ("weights-mlp", Look::Plain),
    ("weights-head", Look::Plain),
    ("context-mib", Look::Plain),
    ("reserve-pct", Look::Plain),
    ("server", Look::Plain),
    ("gpu-util", Look::Plain),
    ("mem-fraction-static", Look::Plain),
    ("block-size", Look::Plain),
    ("max-model-len", Look::Plain),
    ("batched-tokens", Look::Plain),
    ("max-num-seqs", Look::Plain),
    ("vllm-version", Look::Plain),
    ("max-loras", Look::Plain),
    ("max-lora-rank", Look::Plain),
    ("cuda-graphs", Look::Plain),
    ("comm-mib", Look::Plain),
    ("speculative", Look::Plain),
    ("spec-tokens", Look::Plain),
    ("draft-model", Look::Plain),
    ("local-batch", Look::Plain),
    ("local-ubatch", Look::Plain),
    ("local-mmap", Look::Plain),
    ("local-op-offload", Look::Plain),
    ("local-kv-unified", Look::Plain),
    ("local-swa-full", Look::Plain),
];
pub(crate) const HEADER_PANEL: &[(&str, Look)] = &[("unit", Look::Buttons)];

#[component]
fn JobControls() -> impl IntoView {
    view! {
        <section class="panel" aria-labelledby="job-h">
            <h2 id="job-h">{tr("job")}</h2>
            <SettingsList settings=JOB_PANEL />
        </section>
    }
}

#[component]
fn HardwareControls() -> impl IntoView {
    view! {
        <section class="panel" aria-labelledby="hw-h">
            <h2 id="hw-h">{tr("gpu")}</h2>
            <SettingsList settings=HARDWARE_PANEL />
        </section>
    }
}

#[component]
fn Advanced() -> impl IntoView {
    view! {
        <details class="panel advanced" id="advanced">
            <summary>{tr("advanced")}</summary>
            <SettingsList settings=ADVANCED_PANEL />
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::SETTINGS;

    #[test]
    fn every_setting_of_the_registry_has_exactly_one_place_on_the_page() {
        let panels = [
            JOB_PANEL,
            HARDWARE_PANEL,
            ADVANCED_PANEL,
            HEADER_PANEL,
            MODULE_RENDERED,
        ];
        for st in SETTINGS {
            let places = panels
                .iter()
                .flat_map(|p| p.iter())
                .filter(|(id, _)| *id == st.id)
                .count();
            assert_eq!(places, 1, "{} is on the page {places} times", st.id);
        }
        let listed: usize = panels.iter().map(|p| p.len()).sum();
        assert_eq!(
            listed,
            SETTINGS.len(),
            "a panel lists an id the registry lacks"
        );
    }
}
