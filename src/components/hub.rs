//! A model from the Hugging Face Hub: an id (`owner/name`, `owner/name@rev`, a Hub URL), read
//! on request by the on-demand readers module (`crates/readers/src/hub/`), which fetches the
//! file list, config.json, the index and each shard's header, never the weights. A GGUF
//! repository's files are listed to pick from; the one picked has its header read (Range
//! requests, by the readers module) into the llama.cpp job (by the llama.cpp module's reader).

use leptos::prelude::*;
use vram_engine::{GgufFile, HubEndpoint, HubSource, Job, ModelChoice, DEFAULT_ENDPOINT};

use crate::chart::escape as esc;
use crate::components::{event_element, event_target_id};
use crate::i18n::{t, Lang};
use crate::readers::{self, HubModel, HubReply, HubRequest, Refused, HUB_TIMEOUT_MS};
use crate::state::AppState;

/// A GGUF repository's files, listed to pick from (the readers module's markup).
type Listed = (HubSource, String);

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
    let listed = RwSignal::new(None::<Listed>);
    let set_endpoint = move |text: String| match HubEndpoint::parse(&text) {
        Ok(e) => {
            bad_endpoint.set(false);
            st.hub_endpoint
                .set((e != HubEndpoint::default()).then_some(e));
        }
        Err(_) => bad_endpoint.set(true),
    };
    let request = move || HubRequest {
        endpoint: st
            .hub_endpoint
            .with_untracked(|e| e.as_ref().map(|e| e.base().to_string()))
            .unwrap_or_default(),
        token: token.get_untracked(),
        timeout_ms: timeout_ms(),
    };
    // a read may start when none is pending; what an earlier read said goes, and the budget
    // keeps its model until this one is read
    let start = move || {
        if reading.get_untracked() || bad_endpoint.get_untracked() {
            return false;
        }
        reading.set(true);
        error.set(None);
        lines.set(None);
        true
    };
    let read = move || {
        if !start() {
            return;
        }
        listed.set(None);
        let (asked, request) = (id.get_untracked(), request());
        leptos::task::spawn_local(async move {
            let got = readers::read_hub(&asked, &request).await;
            reading.set(false);
            match got {
                Ok(HubReply::Model(model)) => use_model(&st, *model, lines),
                Ok(HubReply::Ggufs {
                    source,
                    said,
                    markup,
                }) => {
                    crate::local_module::preload();
                    lines.set(Some(said));
                    listed.set(Some((source, markup)));
                }
                // the previous budget stays; the message sits under the box
                Err(r) => error.set(Some(r)),
            }
        });
    };
    let pick = move |parts: String| {
        let Some(source) = listed.with_untracked(|l| l.as_ref().map(|(s, _)| s.clone())) else {
            return;
        };
        if !start() {
            return;
        }
        let request = request();
        leptos::task::spawn_local(async move {
            let got = readers::read_hub_gguf(&source, &parts, &request).await;
            reading.set(false);
            match got {
                Ok(g) => {
                    lines.set(Some(g.lines));
                    st.edit(|s| {
                        s.job = Job::Local;
                        s.gguf = Some(Box::new(GgufFile {
                            name: g.name.chars().take(80).collect(),
                            summary: g.summary,
                            source: Some(g.source),
                        }));
                    });
                }
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
        listed.with(|l| {
            if let Some((_, markup)) = l {
                out.push_str(markup);
            }
        });
        st.scenario.with(|s| {
            let gguf_source = s.gguf.as_ref().and_then(|f| f.source.as_ref());
            let model_source = match &s.model {
                ModelChoice::Custom {
                    source: Some(src), ..
                } => Some(src),
                _ => None,
            };
            if let Some(src) = gguf_source.or(model_source) {
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
    let target = event_target_id;
    let clicked = move |ev: &web_sys::Event| match event_element(ev)
        .and_then(|e| e.get_attribute("data-parts"))
    {
        Some(parts) => pick(parts),
        None if target(ev) == "hub-read" => read(),
        None => {}
    };
    view! {
        <div class="field" id="hub-box" on:focusin=|_| readers::preload()
            on:click=move |ev| clicked(&ev)
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
