//! The page: header, controls on one side, the answer on the other; the URL follows every change.

use leptos::prelude::*;
use vram_engine::{Job, LoraTargets, Setting, SettingKind, SettingValue};

use crate::chart::escape;
use crate::components::controls::{EnumSlider, Segmented, SelectField, SliderNumber};
use crate::components::event_target_id;
use crate::components::local::{LocalModelFile, LocalResults};
use crate::components::measured::MeasuredPanel;
use crate::components::model::ModelPicker;
use crate::components::results::{Charts, Explanations, FitTable, VerdictLine};
use crate::i18n::{self, t, tr, Lang};
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
    let lang = move || st.lang.get();
    let copied = RwSignal::new(None::<&'static str>);
    let link = move || st.share_url();
    let copy = move |_| {
        copy_text(
            &link(),
            Box::new(move |ok| copied.set(Some(if ok { "copied" } else { "copy_failed" }))),
        )
    };
    view! {
        <header class="header">
            <div>
                <h1>{tr("title")}</h1>
                <p class="tagline">{tr("tagline")}</p>
            </div>
            <div class="header-tools">
                {panel(HEADER_PANEL)}
                <button type="button" id="lang-toggle" lang=move || if lang() == Lang::En { "zh" } else { "en" }
                    on:click=move |_| crate::zh::switch_to(st, if lang() == Lang::En { Lang::Zh } else { Lang::En })>{tr("language")}</button>
                <div class="share">
                    <input type="text" id="share-url" readonly aria-label="share link" data-settled="1"
                        value=untrack(link) />
                    <button type="button" id="copy-link" on:click=copy>{tr("copy_link")}</button>
                    <span id="copy-status" role="status">{move || copied.get().map(|k| t(lang(), k))}</span>
                </div>
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
    move || {
        let l = st.lang.get();
        st.notices.with(|notices| {
            (!notices.is_empty()).then(|| {
                let items: String = notices
                    .iter()
                    .map(|n| format!("<li>{}</li>", escape(&vram_text::notice(l, n))))
                    .collect();
                let html = format!(
                    r#"<strong>{}</strong><ul>{items}</ul><button type="button" id="notice-close" aria-label="close">×</button>"#,
                    escape(t(l, "notice"))
                );
                view! { <div class="notice" id="link-notice" role="status" on:click=close inner_html=html></div> }
            })
        })
    }
}

/// How a setting's control looks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    /// A select (choices), a slider with a box (numbers), a checkbox (switches).
    Plain,
    /// A stepped slider with a select beside it.
    Steps,
    /// A row of buttons.
    Buttons,
}

/// The page's panels: which settings each shows, in order, and how. Every setting of the
/// engine's registry appears in exactly one (a test checks it).
const JOB_PANEL: &[(&str, Look)] = &[
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
const HARDWARE_PANEL: &[(&str, Look)] = &[
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
const ADVANCED_PANEL: &[(&str, Look)] = &[
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
const HEADER_PANEL: &[(&str, Look)] = &[("unit", Look::Buttons)];

/// The controls of a panel's settings.
fn panel(settings: &'static [(&'static str, Look)]) -> impl IntoView {
    settings
        .iter()
        .map(|&(id, look)| view! { <SettingControl id=id look=look /> })
        .collect_view()
}

/// The label of a setting in the page's language (the sequence reads "prompt" for inference,
/// "source" for an encoder–decoder model); a memo, so a slider step that leaves the label alone
/// does not write it again.
fn label(setting: &'static Setting) -> Signal<String> {
    let st = expect_context::<AppState>();
    Signal::from(Memo::new(move |_| {
        let lang = st.lang.get();
        if setting.id == "seq" && st.scenario.with(|s| s.model.is_encoder_decoder()) {
            return t(lang, "source").to_string();
        }
        if setting.id == "seq" && st.scenario.with(|s| s.job == Job::Inference) {
            return t(lang, "prompt").to_string();
        }
        vram_text::setting_label(lang, setting.id).to_string()
    }))
}

/// The control of one setting of the engine's registry, shown while it applies to the scenario.
#[component]
fn SettingControl(id: &'static str, look: Look) -> impl IntoView {
    let st = expect_context::<AppState>();
    let setting = Setting::by_id(id).expect("a setting of the registry");
    let applies = move || st.scenario.with(|s| (setting.applies)(s));
    view! { <Show when=applies>{control(setting, look)}</Show> }
}

/// The input for a setting, by its kind.
fn control(setting: &'static Setting, look: Look) -> AnyView {
    let st = expect_context::<AppState>();
    let id = setting.id;
    match setting.kind {
        SettingKind::Number { .. } if setting.key == "tp" => tp_select(setting).into_any(),
        SettingKind::Number {
            min,
            max,
            slider,
            log,
            pow2,
        } => view! {
            <SliderNumber id=id label=label(setting)
                value=Memo::new(move |_| st.scenario.with(|s| match setting.get(s) { SettingValue::Number(n) => n, _ => 0 }))
                on_change=Callback::new(move |v| st.edit(|s| setting.set(s, SettingValue::Number(v))))
                min=slider.0 max=slider.1 limit_min=min limit_max=max log=log pow2=pow2 />
        }
        .into_any(),
        SettingKind::Choice => choice(setting, look).into_any(),
        SettingKind::Switch => view! { <SwitchField setting=setting /> }.into_any(),
        SettingKind::Targets => view! { <LoraTargetsField /> }.into_any(),
        // the tensor split's box sits above the per-GPU table the local module renders
        SettingKind::Shares => ().into_any(),
    }
}

/// A choice setting: the options the engine offers for the scenario, labelled in the page's
/// language; a memo, so its `<option>`s are built again only when the offer changes.
fn choice(setting: &'static Setting, look: Look) -> impl IntoView {
    let st = expect_context::<AppState>();
    let options = Memo::new(move |_| {
        let lang = st.lang.get();
        st.scenario.with(|s| {
            setting
                .offered(s)
                .into_iter()
                .map(|k| (k, i18n::choice(lang, setting.key, k)))
                .collect::<Vec<_>>()
        })
    });
    // a QLoRA job shows the quantization it will really use; a memo, so a step that leaves the
    // choice alone does not set every `<option>`'s `selected` again
    let value = Memo::new(move |_| st.scenario.with(|s| shown_choice(setting, s)));
    let on_change =
        Callback::new(move |k: &'static str| st.edit(|s| setting.set(s, SettingValue::Choice(k))));
    let id = setting.id;
    match look {
        Look::Buttons => view! { <Segmented id=id label=label(setting) options=options value=value on_change=on_change /> }.into_any(),
        Look::Steps => view! { <EnumSlider id=id label=label(setting) options=options value=value on_change=on_change /> }.into_any(),
        Look::Plain => view! { <SelectField id=id label=label(setting) options=options value=value on_change=on_change /> }.into_any(),
    }
}

/// The option a choice's control shows for `s`: its value, or for the weights the format a QLoRA
/// job will really use.
pub fn shown_choice(setting: &Setting, s: &vram_engine::Scenario) -> &'static str {
    match setting.key {
        "w" => s.effective_weights().key(),
        _ => match setting.get(s) {
            SettingValue::Choice(k) => k,
            _ => "",
        },
    }
}

/// The tensor-parallel degree: the degrees the engine offers for the GPU count.
fn tp_select(setting: &'static Setting) -> impl IntoView {
    let st = expect_context::<AppState>();
    const KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", "64"];
    let options = Memo::new(move |_| {
        let offered = st.scenario.with(|s| s.tp_choices());
        KEYS.iter()
            .filter(|k| k.parse::<u64>().is_ok_and(|t| offered.contains(&t)))
            .map(|k| (*k, k.to_string()))
            .collect::<Vec<_>>()
    });
    let value = Memo::new(move |_| {
        let t = st.scenario.with(|s| s.tp);
        KEYS.into_iter()
            .find(|k| k.parse::<u64>().ok() == Some(t))
            .unwrap_or("1")
    });
    let on_change = Callback::new(move |k: &'static str| {
        if let Ok(v) = k.parse::<u64>() {
            st.edit(|s| setting.set(s, SettingValue::Number(v)))
        }
    });
    view! { <SelectField id=setting.id label=label(setting) options=options value=value on_change=on_change /> }
}

/// A checkbox for one of the engine's on/off settings.
#[component]
fn SwitchField(setting: &'static Setting) -> impl IntoView {
    let st = expect_context::<AppState>();
    let id = setting.id;
    let on = Memo::new(move |_| {
        st.scenario
            .with(|s| setting.get(s) == SettingValue::On(true))
    });
    view! {
        <div class="field toggle">
            <input type="checkbox" id=id prop:checked=on
                on:change=move |ev| { let on = event_target_checked(&ev); st.edit(|s| setting.set(s, SettingValue::On(on))) } />
            <label for=id>{label(setting)}</label>
        </div>
    }
}

#[component]
fn JobControls() -> impl IntoView {
    view! {
        <section class="panel" aria-labelledby="job-h">
            <h2 id="job-h">{tr("job")}</h2>
            {panel(JOB_PANEL)}
        </section>
    }
}

#[component]
fn LoraTargetsField() -> impl IntoView {
    let st = expect_context::<AppState>();
    view! {
        <fieldset class="field targets" id="lora-targets">
            <legend>{move || vram_text::setting_label(st.lang.get(), "lora-targets")}</legend>
            {LoraTargets::NAMES.iter().map(|name| {
                let name: &'static str = name;
                let id = format!("target-{name}");
                let on = Memo::new(move |_| st.scenario.with(|s| s.lora_targets.contains(name)));
                view! {
                    <label class="chip"><input type="checkbox" id=id
                        prop:checked=on
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            let next = st.scenario.with_untracked(|s| s.lora_targets.with(name, on));
                            // the last target cannot be unticked (the engine would reset all seven)
                            if next != LoraTargets::empty() { st.edit(|s| s.lora_targets = next); }
                        } />{name}</label>
                }
            }).collect_view()}
        </fieldset>
    }
}

#[component]
fn HardwareControls() -> impl IntoView {
    view! {
        <section class="panel" aria-labelledby="hw-h">
            <h2 id="hw-h">{tr("gpu")}</h2>
            {panel(HARDWARE_PANEL)}
        </section>
    }
}

#[component]
fn Advanced() -> impl IntoView {
    view! {
        <details class="panel advanced" id="advanced">
            <summary>{tr("advanced")}</summary>
            {panel(ADVANCED_PANEL)}
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
