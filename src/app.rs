//! The page: header, controls on one side, the answer on the other; the URL follows every change.

use std::rc::Rc;

use vram_engine::Job;

use crate::chart::escape;
use crate::components::event_target_id;
use crate::components::local::{local_model_file, local_results};
use crate::components::measured::measured_panel;
use crate::components::model::model_picker;
use crate::components::results::{charts, explanations, fit_panel, gpu_table, verdict_line};
use crate::components::settings_list::{settings_list, Look};
use crate::dom::{self, Drawn, Piece};
use crate::i18n::{t, Lang};
use crate::reactive::*;
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

/// Starts the page: the state from the link, each component's state and effects, the skeleton
/// written into `#app` (patched in place when a piece of it changes), one listener per event kind.
pub fn start() {
    // the wasm-bindgen executor drives the effects
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    owner.with(setup);
    // the page lives as long as the tab
    std::mem::forget(owner);
}

fn setup() {
    let st = AppState::from_location();
    provide_context(st);
    provide_context(Drawn(RwSignal::new(0)));
    // the measurement beside the estimate, which the chart marks and the panel tabulates
    provide_context(crate::components::measured::shown(st));
    // a link or a browser asking for Chinese: English until the Chinese table is in (tens of ms)
    if st.lang.get_untracked() == Lang::Zh && !vram_text::zh_ready() {
        st.lang.set(Lang::En);
        Effect::new(move |_| crate::zh::switch_to(st, Lang::Zh));
    }
    follow_the_url(st);
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
    let local = Memo::new(move |_| st.scenario.with(|s| s.job == Job::Local));
    let answer = dom::while_shown(Memo::new(move |_| !local.get()), || {
        dom::joined(vec![
            verdict_line(),
            charts(),
            fit_panel(),
            gpu_table(),
            measured_panel(),
            explanations(),
        ])
    });
    let local_answer = dom::while_shown(local, local_results);
    dom::draw_skeleton(dom::joined(vec![
        header(),
        notices(),
        dom::fixed(r#"<main class="layout"><div class="controls">"#.into()),
        model_picker(),
        local_model_file(),
        panel("job-h", "job", "job-settings", JOB_PANEL),
        panel("hw-h", "gpu", "hardware-settings", HARDWARE_PANEL),
        advanced(),
        dom::fixed(r#"</div><div class="results">"#.into()),
        answer,
        local_answer,
        Rc::new(move || {
            let l = st.lang.get();
            format!(
                r#"</div></main><footer class="footer"><p>{} · GiB = 2^30 B, GB = 10^9 B</p></footer>"#,
                escape(t(l, "tagline"))
            )
        }),
    ]));
    dom::listen_to_document();
    crate::warm::start(st.scenario.get_untracked(), st.lang.get_untracked());
}

/// The URL and the share box follow the state without a history entry per slider tick; while a
/// slider is being dragged they are written once the input pauses (250 ms), not on every tick:
/// the box's text would otherwise damage the top of the page on every frame (issue 16). The box
/// says `data-settled="0"` until it holds the current link.
fn follow_the_url(st: AppState) {
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let q = st.query();
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        if let Some(b) = dom::by_id("share-url") {
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
            if let Some(b) = dom::by_id("share-url") {
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
        pending.set_value(set_timeout_with_handle(
            write,
            std::time::Duration::from_millis(250),
        ));
    });
}

/// Writes `text` to the clipboard, then tells `done` whether it could.
pub fn copy_text(text: &str, done: Box<dyn FnOnce(bool)>) {
    let Some(w) = web_sys::window() else { return };
    let promise = w.navigator().clipboard().write_text(text);
    crate::reactive::spawn_local(async move {
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}

/// A click inside markup that was on the copy button `button`: the text of `source` to the
/// clipboard, then `said[0]` (copied) or `said[1]` (failed) in `status`.
pub fn copy_on_click(
    e: &web_sys::Event,
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

fn header() -> Piece {
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
    dom::patched_after_paint("title-box", title);
    dom::patched_after_paint("tools-box", tools);
    dom::on("tools-box", "click", move |e| {
        match event_target_id(e).as_str() {
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
        }
    });
    let unit = settings_list("unit-settings", HEADER_PANEL);
    Rc::new(move || {
        format!(
            r#"<header class="header"><div id="title-box"></div><div class="header-tools">{}<div class="settings" id="tools-box"></div></div></header>"#,
            unit()
        )
    })
}

fn notices() -> Piece {
    let st = expect_context::<AppState>();
    // the list as escaped markup (a notice may quote the link); one click handler for its button
    dom::on("notices", "click", move |e| {
        if event_target_id(e) == "notice-close" {
            st.notices.set(Vec::new());
        }
    });
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
    dom::patched_after_paint("notices", markup);
    dom::fixed(r#"<div id="notices"></div>"#.into())
}

/// The page's panels: which settings each shows, in order, and how. Every setting of the
/// engine's registry appears in exactly one (a test checks it).
pub(crate) const JOB_PANEL: &[(&str, Look)] = &[
    ("job", Look::Buttons),
    ("framework", Look::Plain),
    ("weights", Look::Steps),
    ("switch-qh", Look::Plain),
    ("switch-a16", Look::Plain),
    ("switch-ku", Look::Plain),
    ("switch-c32", Look::Plain),
    ("batch", Look::Plain),
    ("seq", Look::Plain),
    ("sample-len", Look::Plain),
    ("batching", Look::Plain),
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
    ("eval-batch", Look::Plain),
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
    ("local-draft", Look::Plain),
    ("local-draft-ctx", Look::Plain),
    ("local-draft-ngl", Look::Plain),
    ("local-ctk", Look::Plain),
    ("local-ctv", Look::Plain),
    ("local-fa", Look::Plain),
    ("local-ncmoe", Look::Plain),
];
pub(crate) const HARDWARE_PANEL: &[(&str, Look)] = &[
    ("local-machine", Look::Buttons),
    ("gpu", Look::Plain),
    ("gpus", Look::Plain),
    ("gpu-held", Look::Plain),
    ("last-gpu", Look::Plain),
    ("tp", Look::Plain),
    ("expert-parallel", Look::Plain),
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
    ("local-uma", Look::Plain),
    ("local-uma-memory", Look::Plain),
    ("local-uma-vram", Look::Plain),
    ("local-gtt", Look::Plain),
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
    ("kept-16bit", Look::Plain),
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

/// A panel of settings under its heading.
fn panel(
    heading: &'static str,
    key: &'static str,
    host: &'static str,
    settings: &'static [(&'static str, Look)],
) -> Piece {
    let st = expect_context::<AppState>();
    let list = settings_list(host, settings);
    Rc::new(move || {
        format!(
            r#"<section class="panel" aria-labelledby="{heading}"><h2 id="{heading}">{}</h2>{}</section>"#,
            escape(t(st.lang.get(), key)),
            list()
        )
    })
}

fn advanced() -> Piece {
    let st = expect_context::<AppState>();
    let list = settings_list("advanced-settings", ADVANCED_PANEL);
    Rc::new(move || {
        format!(
            r#"<details class="panel advanced" id="advanced"><summary>{}</summary>{}</details>"#,
            escape(t(st.lang.get(), "advanced")),
            list()
        )
    })
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
