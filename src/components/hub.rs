//! A model from the Hugging Face Hub: an id (`owner/name`, `owner/name@rev`, a Hub URL), read
//! on request by the on-demand readers module (`crates/readers/src/hub/`), which fetches the
//! file list, config.json, the index and each shard's header, never the weights.

use leptos::prelude::*;
use vram_engine::{HubEndpoint, ModelChoice, DEFAULT_ENDPOINT};

use wasm_bindgen::JsCast;

use crate::chart::escape as esc;
use crate::i18n::{t, Lang};
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
    let endpoint = st.hub_endpoint.with_untracked(|e| {
        e.as_ref()
            .map_or(DEFAULT_ENDPOINT.to_string(), |e| e.base().to_string())
    });
    let bad_endpoint = RwSignal::new(false);
    let reading = RwSignal::new(false);
    let error = RwSignal::new(None::<Refused>);
    let lines = RwSignal::new(None::<[String; 2]>);
    let set_endpoint = move |text: String| match HubEndpoint::parse(&text) {
        Ok(e) => {
            bad_endpoint.set(false);
            st.hub_endpoint
                .set((e != HubEndpoint::default()).then_some(e));
        }
        Err(_) => bad_endpoint.set(true),
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
        // what an earlier read said goes; the budget keeps its model until this one is read
        lines.set(None);
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
    // what the panel says, as one escaped string: fewer reactive nodes, a smaller first load
    let said = move || {
        let l = lang();
        let mut out = String::new();
        if reading.get() {
            out.push_str(&format!(
                r#"<p id="hub-status" role="status">{}</p>"#,
                t(l, "reading")
            ));
        }
        if bad_endpoint.get() {
            out.push_str(&format!(
                r#"<p class="input-error" role="alert">{}</p>"#,
                t(l, "hub_bad_endpoint")
            ));
        }
        error.with(|e| {
            if let Some(e) = e {
                let text = e.sentence(l).unwrap_or(t(l, "readers_failed"));
                out.push_str(&format!(
                    r#"<p class="input-error" id="hub-error" role="alert">{}</p>"#,
                    esc(text)
                ));
            }
        });
        lines.with(|read| {
            if let Some([en, zh]) = read {
                let items: String = l
                    .pick(en, zh)
                    .lines()
                    .map(|x| format!("<li>{}</li>", esc(x)))
                    .collect();
                out.push_str(&format!(r#"<ul class="note" id="hub-lines">{items}</ul>"#));
            }
        });
        st.scenario.with(|s| {
            if let ModelChoice::Custom {
                source: Some(src), ..
            } = &s.model
            {
                out.push_str(&format!(
                    r#"<p class="note" id="hub-source">{} · {} {}</p>"#,
                    esc(&src.id()),
                    t(l, "hub_read_on"),
                    src.read_on
                ));
            }
        });
        out
    };
    // the inputs as one escaped string with one handler per event kind on their container: a
    // tree of Leptos elements here cost the first load about 12 KB gzip
    let form = move || {
        let l = lang();
        form_markup(l, &id.get_untracked(), &endpoint)
    };
    let target = |ev: &web_sys::Event| {
        ev.target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|e| e.id())
            .unwrap_or_default()
    };
    view! {
        <div class="field" on:focusin=|_| readers::preload()
            on:click=move |ev| if target(&ev) == "hub-read" { read() }
            on:keydown=move |ev| if ev.key() == "Enter" && target(&ev) == "hub-id" { read() }
            on:input=move |ev| match target(&ev).as_str() {
                "hub-id" => id.set(event_target_value(&ev)),
                "hub-token" => token.set(event_target_value(&ev)),
                _ => {}
            }
            on:change=move |ev| if target(&ev) == "hub-endpoint" { set_endpoint(event_target_value(&ev)) }>
            <div inner_html=form></div>
            <div inner_html=said></div>
        </div>
    }
}

/// The id box, the Read button, and the endpoint and token under "Endpoint and token".
fn form_markup(l: Lang, id: &str, endpoint: &str) -> String {
    format!(
        r#"<label for="hub-id">{}</label><div class="row"><input type="text" id="hub-id" placeholder="Qwen/Qwen2.5-7B-Instruct" autocomplete="off" spellcheck="false" maxlength="300" value="{}"><button type="button" id="hub-read">{}</button></div><details id="hub-access"><summary>{}</summary><label for="hub-endpoint">{}</label><input type="url" id="hub-endpoint" spellcheck="false" maxlength="200" value="{}"><label for="hub-token">{}</label><input type="password" id="hub-token" autocomplete="off"><p class="note">{}</p></details>"#,
        esc(t(l, "hub_id")),
        esc(id),
        esc(t(l, "hub_read")),
        esc(t(l, "hub_access")),
        esc(t(l, "hub_endpoint")),
        esc(endpoint),
        esc(t(l, "hub_token")),
        esc(t(l, "hub_token_note")),
    )
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
