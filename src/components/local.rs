//! The llama.cpp / Ollama job: the GGUF file (picked, dropped, or the preset quantized), and a
//! panel that shows what the local job's module answers (the run's buffers per device, verdict,
//! solver answers, commands and decode-speed chart), computed there.

use leptos::prelude::*;
use vram_engine::{encode_link, GgufFile, Job, PageSettings};
use vram_text::{llama_word, LlamaWord as W};
use wasm_bindgen::JsCast;

use crate::i18n::{t, Lang};
use crate::local_module::{local_view, preload, read_gguf_summary, LocalMarkup, PickProblem};
use crate::state::AppState;

fn is_local(st: &AppState) -> bool {
    st.scenario.with(|s| s.job == Job::Local)
}

fn problem_text(lang: Lang, p: &PickProblem) -> String {
    match p {
        PickProblem::Unreadable => t(lang, "file_unreadable").to_string(),
        PickProblem::Refused(r) => r
            .sentence(lang)
            .unwrap_or(t(lang, "local_failed"))
            .to_string(),
    }
}

/// Reads `file`'s header and makes it the run's model (or says why not).
fn pick(st: AppState, problem: RwSignal<Option<PickProblem>>, file: web_sys::File) {
    let name: String = file.name().chars().take(80).collect();
    leptos::task::spawn_local(async move {
        match read_gguf_summary(&file).await {
            Ok(summary) => {
                problem.set(None);
                st.edit(|s| {
                    s.gguf = Some(Box::new(GgufFile {
                        name,
                        summary,
                        source: None,
                    }))
                });
            }
            Err(p) => problem.set(Some(p)),
        }
    });
}

/// The GGUF file of a local run: a file input that also takes a dropped file.
#[component]
pub fn LocalModelFile() -> impl IntoView {
    let st = expect_context::<AppState>();
    let problem = RwSignal::new(None::<PickProblem>);
    let lang = move || st.lang.get();
    let on_file = move |ev: leptos::ev::Event| {
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|i| i.files())
            .and_then(|f| f.get(0));
        if let Some(file) = file {
            pick(st, problem, file);
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        let file = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0));
        if let Some(file) = file {
            pick(st, problem, file);
        }
    };
    let shown = move || {
        let l = lang();
        st.scenario.with(|s| match &s.gguf {
            Some(f) => f.name.clone(),
            None => format!("{} ({})", s.model.name(), llama_word(l, W::FromPreset)),
        })
    };
    let has_file = move || st.scenario.with(|s| s.gguf.is_some());
    view! {
        <Show when=move || is_local(&st)>
            <section class="panel" id="gguf-drop" aria-labelledby="gguf-h"
                on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default() on:drop=on_drop>
                <h2 id="gguf-h">{move || llama_word(lang(), W::ModelFile)}</h2>
                <p id="gguf-name">{shown}</p>
                <label class="file">{move || llama_word(lang(), W::PickFile)}
                    <input type="file" id="gguf-file" accept=".gguf" on:change=on_file /></label>
                <Show when=has_file>
                    <button type="button" id="gguf-clear" on:click=move |_| st.edit(|s| s.gguf = None)>
                        {move || llama_word(lang(), W::UsePreset)}</button>
                </Show>
                <p class="input-error" id="gguf-error" role="alert">{move || problem.with(|p| p.as_ref().map(|p| problem_text(lang(), p)))}</p>
            </section>
        </Show>
    }
}

/// What the panel shows: the module's markup for a scenario's query, or that it did not load.
#[derive(Clone, PartialEq)]
enum Shown {
    Loading,
    Markup(LocalMarkup),
    NotLoaded,
}

/// The local run's answer, asked of the module whenever the scenario changes while the job is
/// local; the last answer stays until the next arrives, and an answer to an older query is dropped.
#[component]
pub fn LocalResults() -> impl IntoView {
    let st = expect_context::<AppState>();
    let shown = RwSignal::new(Shown::Loading);
    let latest = StoredValue::new(String::new());
    Effect::new(move |_| {
        let Some(query) = st
            .scenario
            .with(|s| (s.job == Job::Local).then(|| encode_link(s, &PageSettings::default())))
        else {
            return;
        };
        preload();
        latest.set_value(query.clone());
        leptos::task::spawn_local(async move {
            let answer = local_view(&query).await;
            if latest.with_value(|l| *l == query) {
                shown.set(answer.map_or(Shown::NotLoaded, Shown::Markup));
            }
        });
    });
    let part = move |chart: bool| {
        let l = st.lang.get();
        shown.with(|s| match s {
            Shown::Markup(m) => {
                let (results, svg) = &m[usize::from(l == Lang::Zh)];
                if chart {
                    svg.clone()
                } else {
                    results.clone()
                }
            }
            Shown::Loading if !chart => format!(
                "<p class=\"muted\" id=\"local-loading\">{}</p>",
                t(l, "local_loading")
            ),
            Shown::NotLoaded if !chart => format!(
                "<p class=\"verdict error\" role=\"alert\">{}</p>",
                t(l, "local_failed")
            ),
            _ => String::new(),
        })
    };
    view! {
        <section class="panel local" id="local" aria-busy=move || if shown.with(|s| *s == Shown::Loading) { "true" } else { "false" } inner_html=move || part(false)></section>
        <section class="panel">
            <h2>{move || llama_word(st.lang.get(), W::SpeedChart)}</h2>
            <div id="local-speed" class="chart" inner_html=move || part(true)></div>
        </section>
    }
}
