//! A model from the Hugging Face Hub: an id (`owner/name`, `owner/name@rev`, a Hub URL), read
//! on request. The box is the on-demand readers module's (`crates/readers/src/hub/panel.rs`):
//! this shell loads the module when the Hub source is chosen, forwards the box's events to it,
//! writes what it says, and applies what it read: a model (the file list, config.json, the index
//! and each shard's header, never the weights), or a GGUF file picked from a repository's list
//! (its header read in Range requests into the llama.cpp job by the llama.cpp module's reader).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use js_sys::Function;
use vram_engine::{
    hub::HubEndpoint, hub::HubSource, llamacpp::GgufSummary, model::decode_arch,
    scenario::GgufFile, Job, ModelChoice,
};
use vram_messages::{HubEvent, HubMessage};
use wasm_bindgen::prelude::*;

use leptos::prelude::*;

use crate::components::{event_element, event_target_id};
use crate::i18n::{t, Lang};
use crate::modules::{self, Module};
use crate::readers::{self, HUB_TIMEOUT_MS};
use crate::state::AppState;

/// The timeout of each request: the page's, or the shorter one a test set on `#hub-box` (read
/// as a whole number: a float parse would bring core's float parser into the first load).
fn timeout_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("hub-box"))
        .and_then(|e| e.get_attribute("data-timeout-ms"))
        .and_then(|v| v.trim().parse::<u32>().ok())
        .map_or(HUB_TIMEOUT_MS, f64::from)
}

/// What the box shows: its form and what it says, as the module wrote them.
#[derive(Clone, Copy)]
struct Shown {
    form: RwSignal<String>,
    said: RwSignal<String>,
}

/// One message of the module: shown, or applied to the budget.
fn on_message(st: AppState, shown: Shown, alive: &AtomicBool, message: HubMessage) {
    let alive = || alive.load(Ordering::Relaxed);
    let read = |source: &str, read_on: &str| HubSource::from_link(source, read_on).ok();
    match message {
        HubMessage::Form(markup) if alive() => shown.form.set(markup),
        HubMessage::Said(markup) if alive() => shown.said.set(markup),
        HubMessage::Endpoint(base) => st
            .hub_endpoint
            .set(HubEndpoint::parse(&base).ok().filter(|_| !base.is_empty())),
        HubMessage::PreloadLocal => modules::preload(Module::Local),
        HubMessage::Model {
            arch,
            source,
            read_on,
        } => {
            if let (Ok(arch), Some(source)) = (decode_arch(&arch), read(&source, &read_on)) {
                use_model(&st, arch, source);
            }
        }
        HubMessage::Gguf {
            summary,
            source,
            read_on,
            name,
        } => {
            if let (Ok(summary), Some(source)) =
                (GgufSummary::from_text(&summary), read(&source, &read_on))
            {
                st.edit(|s| {
                    s.job = Job::Local;
                    s.gguf = Some(Box::new(GgufFile {
                        name: name.chars().take(80).collect(),
                        summary,
                        source: Some(source),
                    }));
                });
            }
        }
        _ => {}
    }
}

/// The model read becomes the budget's, in the format its files are stored in when the job
/// can use it (as the CLI does with `--hf`).
fn use_model(st: &AppState, arch: vram_engine::Architecture, source: HubSource) {
    let format = arch.stored.map(|stored| stored.format);
    st.edit(|s| {
        s.model = ModelChoice::Custom {
            name: source.repo.clone(),
            arch: Box::new(arch),
            source: Some(source),
        };
        if let Some(f) = format.filter(|f| s.job.allows(*f)) {
            s.weights = f;
        }
    });
}

/// Where the budget's model was read from, under the box.
fn source_line(st: &AppState, l: Lang) -> Option<String> {
    st.scenario.with(|s| {
        let gguf_source = s.gguf.as_ref().and_then(|f| f.source.as_ref());
        let model_source = match &s.model {
            ModelChoice::Custom {
                source: Some(src), ..
            } => Some(src),
            _ => None,
        };
        gguf_source
            .or(model_source)
            .map(|src| format!("{} · {} {}", src.id(), t(l, "hub_read_on"), src.read_on))
    })
}

#[component]
pub fn HubPicker() -> impl IntoView {
    let st = expect_context::<AppState>();
    let shown = Shown {
        form: RwSignal::new(String::new()),
        said: RwSignal::new(String::new()),
    };
    // until the module has opened the box: `data-stale` (the browser tests' reads wait), then
    // open, or the reason it could not load
    let opened = RwSignal::new(None::<bool>);
    // the module's `hub_event`, once it has opened the box
    let events = StoredValue::new_local(None::<Function>);
    let alive = Arc::new(AtomicBool::new(true));
    {
        let alive = alive.clone();
        on_cleanup(move || alive.store(false, Ordering::Relaxed));
    }
    let sink: Function = Closure::<dyn Fn(JsValue)>::new(move |bytes: JsValue| {
        if let Some(message) = modules::decode(&bytes) {
            on_message(st, shown, &alive, message);
        }
    })
    .into_js_value()
    .into();
    let reader: Function =
        Closure::<dyn Fn() -> js_sys::Promise>::new(readers::gguf_reader_promise)
            .into_js_value()
            .into();
    let (id, endpoint) = (
        st.scenario.with_untracked(|s| match &s.model {
            ModelChoice::Custom {
                source: Some(src), ..
            } => src.repo.clone(),
            _ => String::new(),
        }),
        st.hub_endpoint
            .with_untracked(|e| e.as_ref().map(|e| e.base().to_string()))
            .unwrap_or_default(),
    );
    let lang = st.lang.get_untracked();
    leptos::task::spawn_local(async move {
        let open = readers::hub_open(&sink, &reader, lang, &id, &endpoint).await;
        opened.set(Some(open.is_ok()));
        events.set_value(open.ok());
    });
    // hands the module an event of the box, with the request timeout
    let forward = move |event: HubEvent| {
        events.with_value(|f| {
            if let Some(f) = f {
                let timeout = JsValue::from_f64(timeout_ms());
                let _ = f.call2(&JsValue::NULL, &modules::bytes(&event), &timeout);
            }
        })
    };
    // a language switch: the module writes the form again with what was typed
    Effect::new(move |was: Option<Lang>| {
        let l = st.lang.get();
        if was.is_some_and(|w| w != l) {
            forward(HubEvent::Lang(l.key().to_string()));
        }
        l
    });
    let lang = move || st.lang.get();
    let target = |ev: &web_sys::Event| event_target_id(ev);
    let clicked = move |ev: web_sys::MouseEvent| match event_element(&ev)
        .and_then(|e| e.get_attribute("data-parts"))
    {
        Some(parts) => forward(HubEvent::Pick(parts)),
        None if target(&ev) == "hub-read" => forward(HubEvent::Click {
            target: target(&ev),
        }),
        None => {}
    };
    let pressed = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Enter" && target(&ev) == "hub-id" {
            forward(HubEvent::Enter {
                target: target(&ev),
            })
        }
    };
    let typed = move |ev: web_sys::Event| HubEvent::Input {
        target: target(&ev),
        value: event_target_value(&ev),
    };
    let committed = move |ev: web_sys::Event| HubEvent::Change {
        target: target(&ev),
        value: event_target_value(&ev),
    };
    view! {
        <div
            class="field"
            id="hub-box"
            data-stale=move || opened.get().is_none().then_some("")
            on:click=clicked
            on:keydown=pressed
            on:input=move |ev| forward(typed(ev))
            on:change=move |ev| forward(committed(ev))
        >
            // the form and what the module says are markup the readers module writes
            <div id="hub-form" inner_html=move || shown.form.get()></div>
            <div id="hub-said" inner_html=move || shown.said.get()></div>
            <div id="hub-extra">
                <Show when=move || opened.get() == Some(false)>
                    <p class="input-error" id="hub-error" role="alert">
                        {move || t(lang(), "readers_failed")}
                    </p>
                </Show>
                {move || {
                    source_line(&st, lang())
                        .map(|line| view! { <p class="note" id="hub-source">{line}</p> })
                }}
            </div>
        </div>
    }
}
