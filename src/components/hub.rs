//! A model from the Hugging Face Hub: an id (`owner/name`, `owner/name@rev`, a Hub URL), read
//! on request by the on-demand readers module (`crates/readers/src/hub/`), which fetches the
//! file list, config.json, the index and each shard's header, never the weights.

use leptos::prelude::*;
use vram_engine::{HubEndpoint, ModelChoice, DEFAULT_ENDPOINT};

use crate::i18n::{t, tr, Lang};
use crate::readers::{self, HubModel, Refused};
use crate::state::AppState;

#[component]
pub fn HubPicker() -> impl IntoView {
    let st = expect_context::<AppState>();
    let lang = move || st.lang.get();
    let id = RwSignal::new(st.scenario.with_untracked(|s| match &s.model {
        ModelChoice::Custom {
            source: Some(src), ..
        } => src.repo.clone(),
        _ => String::new(),
    }));
    // kept in this component's memory only: never in the link, never stored
    let token = RwSignal::new(String::new());
    let endpoint = RwSignal::new(st.hub_endpoint.with_untracked(|e| {
        e.as_ref()
            .map_or(DEFAULT_ENDPOINT.to_string(), |e| e.base().to_string())
    }));
    let bad_endpoint = RwSignal::new(false);
    let reading = RwSignal::new(false);
    let error = RwSignal::new(None::<Refused>);
    let lines = RwSignal::new(None::<[String; 2]>);
    let set_endpoint = move |text: String| {
        endpoint.set(text.clone());
        match HubEndpoint::parse(&text) {
            Ok(e) => {
                bad_endpoint.set(false);
                st.hub_endpoint
                    .set((e != HubEndpoint::default()).then_some(e));
            }
            Err(_) => bad_endpoint.set(true),
        }
    };
    let read = move || {
        if reading.get_untracked() || bad_endpoint.get_untracked() {
            return;
        }
        let base = st
            .hub_endpoint
            .with_untracked(|e| e.as_ref().map(|e| e.base().to_string()))
            .unwrap_or_default();
        let (asked, token) = (id.get_untracked(), token.get_untracked());
        reading.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let got = readers::read_hub(&asked, &base, &token).await;
            reading.set(false);
            match got {
                Ok(model) => use_model(&st, model, lines),
                // the previous budget stays; the message sits under the box
                Err(r) => error.set(Some(r)),
            }
        });
    };
    let read_on = move || {
        st.scenario.with(|s| match &s.model {
            ModelChoice::Custom {
                source: Some(src), ..
            } => Some(format!(
                "{} · {} {}",
                src.id(),
                t(lang(), "hub_read_on"),
                src.read_on
            )),
            _ => None,
        })
    };
    view! {
        <div class="field" on:focusin=|_| readers::preload()>
            <label for="hub-id">{tr("hub_id")}</label>
            <div class="row">
                <input type="text" id="hub-id" placeholder="Qwen/Qwen2.5-7B-Instruct" autocomplete="off" spellcheck="false" maxlength="300"
                    prop:value=move || id.get()
                    on:input=move |ev| id.set(event_target_value(&ev))
                    on:keydown=move |ev| if ev.key() == "Enter" { read() } />
                <button type="button" id="hub-read" prop:disabled=move || reading.get() on:click=move |_| read()>{tr("hub_read")}</button>
            </div>
            <span id="hub-status" role="status">{move || reading.get().then(|| t(lang(), "reading"))}</span>
            <p class="input-error" id="hub-error" role="alert">{move || error.with(|e| e.as_ref().map(|e| e.sentence(lang()).unwrap_or(t(lang(), "readers_failed")).to_string()))}</p>
            <ul class="note" id="hub-lines">
                {move || lines.with(|l| l.as_ref().map(|[en, zh]| {
                    let text = if lang() == Lang::Zh { zh } else { en };
                    text.lines().map(|line| view! { <li>{line.to_string()}</li> }).collect_view()
                }))}
            </ul>
            <p class="note" id="hub-source">{read_on}</p>
        </div>
        <details class="field" id="hub-access">
            <summary>{tr("hub_access")}</summary>
            <label for="hub-endpoint">{tr("hub_endpoint")}</label>
            <input type="url" id="hub-endpoint" list="hub-endpoints" spellcheck="false" maxlength="200"
                prop:value=move || endpoint.get()
                on:change=move |ev| set_endpoint(event_target_value(&ev)) />
            <datalist id="hub-endpoints"><option value="https://huggingface.co"></option><option value="https://hf-mirror.com"></option></datalist>
            <p class="input-error" id="hub-endpoint-error" role="alert">{move || bad_endpoint.get().then(|| t(lang(), "hub_bad_endpoint"))}</p>
            <label for="hub-token">{tr("hub_token")}</label>
            <input type="password" id="hub-token" autocomplete="off" spellcheck="false"
                prop:value=move || token.get()
                on:input=move |ev| token.set(event_target_value(&ev)) />
            <p class="note">{tr("hub_token_note")}</p>
        </details>
    }
}

/// The model read becomes the budget's, in the format its files are stored in when the job
/// can use it (as the CLI does with `--hf`).
fn use_model(st: &AppState, model: HubModel, lines: RwSignal<Option<[String; 2]>>) {
    let HubModel {
        arch,
        source,
        lines: read,
    } = model;
    lines.set(Some(read));
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
