//! The page: header, controls on one side, the answer on the other; the URL follows every change.

use leptos::prelude::*;
use vram_engine::scenario::Panel;
use vram_engine::Job;

use crate::components::local::{LocalModelFile, LocalResults};
use crate::components::measured::MeasuredPanel;
use crate::components::model::ModelPicker;
use crate::components::results::{Charts, Explanations, FitPanel, GpuTable, VerdictLine};
use crate::components::settings::SettingsList;
use crate::i18n::{t, Lang};
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

/// The whole page, mounted on `<body>`.
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
    follow_the_url(st);
    // the document's language follows the toggle (screen readers, fonts)
    Effect::new(move |_| {
        let lang = st.lang.get();
        if let Some(html) = document().document_element() {
            let _ = html.set_attribute("lang", if lang == Lang::Zh { "zh-CN" } else { "en" });
        }
    });
    let local = Memo::new(move |_| st.scenario.with(|s| s.job == Job::Local));
    let moving = crate::components::moving::SlidersMoving::new();
    provide_context(moving);
    let painted = after_first_paint();
    view! {
        <div id="app" on:input=move |ev| moving.saw(&ev)>
            <Header/>
            <Notices/>
            <main class="layout">
                // the settings follow one frame after the first result: the verdict and the bars
                // reach the screen without waiting for some forty controls to be built (their
                // column keeps its width, so nothing moves when they come)
                <div class="controls">
                    <Show when=move || painted.get()>
                        <ModelPicker/>
                        <LocalModelFile/>
                        <PanelSection heading="job-h" key="job" host="job-settings" panel=Panel::Job/>
                        <PanelSection
                            heading="hw-h"
                            key="gpu"
                            host="hardware-settings"
                            panel=Panel::Hardware
                        />
                        <details class="panel advanced" id="advanced">
                            <summary>{move || t(st.lang.get(), "advanced")}</summary>
                            <SettingsList host="advanced-settings" panel=Panel::Advanced/>
                        </details>
                    </Show>
                </div>
                <div class="results" data-stale=move || (!painted.get()).then_some("")>
                    <Show when=move || !local.get() fallback=LocalResults>
                        <VerdictLine/>
                        <Charts/>
                        // below the charts: built once the first result is on screen
                        <Show when=move || painted.get()>
                            <FitPanel/>
                            <GpuTable/>
                            <MeasuredPanel/>
                            <Explanations/>
                        </Show>
                    </Show>
                </div>
            </main>
            <footer class="footer">
                <p>{move || t(st.lang.get(), "tagline")} " · GiB = 2^30 B, GB = 10^9 B"</p>
            </footer>
        </div>
    }
}

/// Whether the page's first frame has been drawn: the settings and the parts below the first
/// result (the solver, the GPU table, the formulas, the growth chart) wait for it, so the verdict
/// and the bars reach the screen without them. Also a context ([`FirstPaint`]).
fn after_first_paint() -> RwSignal<bool> {
    let painted = RwSignal::new(false);
    // an animation frame comes before the paint; a task queued from it runs after
    request_animation_frame(move || {
        set_timeout(move || painted.set(true), std::time::Duration::ZERO)
    });
    provide_context(FirstPaint(painted));
    painted
}

/// Whether the page's first frame has been drawn.
#[derive(Clone, Copy)]
pub struct FirstPaint(pub RwSignal<bool>);

/// The URL and the share box follow the state without a history entry per slider tick; while a
/// slider is being dragged they are written once the input pauses (250 ms), not on every tick.
/// The box says `data-settled="0"` until it holds the current link.
fn follow_the_url(st: AppState) -> RwSignal<bool> {
    let settled = RwSignal::new(true);
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let q = st.query();
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        if settled.get_untracked() {
            settled.set(false);
        }
        let write = move || {
            let w = window();
            let path = w.location().pathname().unwrap_or_default();
            if let Ok(h) = w.history() {
                let _ = h.replace_state_with_url(
                    &wasm_bindgen::JsValue::NULL,
                    "",
                    Some(&format!("{path}?{q}")),
                );
            }
            settled.set(true);
        };
        let handle = set_timeout_with_handle(write, std::time::Duration::from_millis(250)).ok();
        pending.set_value(handle);
    });
    provide_context(UrlSettled(settled));
    settled
}

/// Whether the address bar and the share box hold the current link.
#[derive(Clone, Copy)]
struct UrlSettled(RwSignal<bool>);

/// Writes `text` to the clipboard, then tells `done` whether it could.
pub fn copy_text(text: &str, done: impl FnOnce(bool) + 'static) {
    let promise = window().navigator().clipboard().write_text(text);
    leptos::task::spawn_local(async move {
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}

/// The text of the element `source` to the clipboard; `said` holds whether it went.
pub fn copy_element_text(source: &str, said: RwSignal<Option<bool>>) {
    let text = document()
        .get_element_by_id(source)
        .and_then(|e| e.text_content());
    if let Some(text) = text {
        copy_text(&text, move |ok| said.set(Some(ok)));
    }
}

#[component]
fn Header() -> impl IntoView {
    let st = expect_context::<AppState>();
    let settled = expect_context::<UrlSettled>().0;
    let copied = RwSignal::new(None::<&'static str>);
    let lang = move || st.lang.get();
    // the share box shows the link once the address bar holds it, not on every step of a drag
    let link = Memo::new(move |was: Option<&String>| {
        let now = settled.get();
        match was {
            Some(was) if !now => was.clone(),
            _ => untrack(|| st.share_url()),
        }
    });
    let toggle = move |_| {
        let to = if st.lang.get_untracked() == Lang::En {
            Lang::Zh
        } else {
            Lang::En
        };
        crate::zh::switch_to(st, to);
    };
    let copy = move |_| {
        copy_text(&st.share_url(), move |ok| {
            copied.set(Some(if ok { "copied" } else { "copy_failed" }))
        })
    };
    view! {
        <header class="header">
            <div id="title-box">
                <h1>{move || t(lang(), "title")}</h1>
                <p class="tagline">{move || t(lang(), "tagline")}</p>
            </div>
            <div class="header-tools">
                <SettingsList host="unit-settings" panel=Panel::Header/>
                <div class="settings" id="tools-box">
                    <button
                        type="button"
                        id="lang-toggle"
                        lang=move || if lang() == Lang::En { "zh" } else { "en" }
                        on:click=toggle
                    >
                        {move || t(lang(), "language")}
                    </button>
                    <div class="share">
                        <input
                            type="text"
                            id="share-url"
                            readonly
                            aria-label="share link"
                            data-settled=move || if settled.get() { "1" } else { "0" }
                            prop:value=move || link.get()
                        />
                        <button type="button" id="copy-link" on:click=copy>
                            {move || t(lang(), "copy_link")}
                        </button>
                        <span id="copy-status" role="status">
                            {move || copied.get().map_or("", |k| t(lang(), k))}
                        </span>
                    </div>
                </div>
            </div>
        </header>
    }
}

/// What the opening link carried that was ignored, with a button that closes the list.
#[component]
fn Notices() -> impl IntoView {
    let st = expect_context::<AppState>();
    view! {
        <div id="notices">
            <Show when=move || st.notices.with(|n| !n.is_empty())>
                <div class="notice" id="link-notice" role="status">
                    <strong>{move || t(st.lang.get(), "notice")}</strong>
                    <ul>
                        {move || {
                            let l = st.lang.get();
                            st.notices
                                .with(|n| {
                                    n.iter()
                                        .map(|n| view! { <li>{vram_text::notice(l, n)}</li> })
                                        .collect_view()
                                })
                        }}
                    </ul>
                    <button
                        type="button"
                        id="notice-close"
                        aria-label="close"
                        on:click=move |_| st.notices.set(Vec::new())
                    >
                        "×"
                    </button>
                </div>
            </Show>
        </div>
    }
}

/// A panel of settings under its heading.
#[component]
fn PanelSection(
    heading: &'static str,
    key: &'static str,
    host: &'static str,
    panel: Panel,
) -> impl IntoView {
    let st = expect_context::<AppState>();
    view! {
        <section class="panel" aria-labelledby=heading>
            <h2 id=heading>{move || t(st.lang.get(), key)}</h2>
            <SettingsList host panel/>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use vram_engine::SETTINGS;

    #[test]
    fn no_two_settings_of_a_panel_share_a_rank() {
        for (i, a) in SETTINGS.iter().enumerate() {
            for b in &SETTINGS[i + 1..] {
                assert!(
                    a.place.panel != b.place.panel || a.place.rank != b.place.rank,
                    "{} and {} share rank {} on {:?}",
                    a.id,
                    b.id,
                    a.place.rank,
                    a.place.panel
                );
            }
        }
    }
}
