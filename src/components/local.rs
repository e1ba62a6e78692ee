//! The llama.cpp / Ollama job: the GGUF file (picked, dropped, or the preset quantized), and a
//! panel that shows what the local job's module answers (the run's buffers per device, verdict,
//! solver answers, commands and decode-speed chart), computed there.

use vram_engine::{
    link::PageSettings, llamacpp::ProjectorFile, llamacpp::TensorShares, scenario::GgufFile, Job,
};
use vram_text::{llama_word, LlamaWord as W};
use wasm_bindgen::JsCast;

use leptos::prelude::*;

use crate::i18n::{t, Lang};
use crate::local_module::{local_view, read_picked, PickProblem, Picked};
use crate::modules::{preload, Module};
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

/// Reads `file`'s header and makes it the run's model, or its projector when it is one (or says
/// why neither).
fn pick(st: AppState, problem: RwSignal<Option<PickProblem>>, file: web_sys::File) {
    let name: String = file.name().chars().take(80).collect();
    leptos::task::spawn_local(async move {
        match read_picked(&file).await {
            Ok(picked) => {
                problem.set(None);
                st.edit(|s| match picked {
                    Picked::Model(summary) => {
                        s.gguf = Some(Box::new(GgufFile {
                            name,
                            summary,
                            source: None,
                        }))
                    }
                    Picked::Projector(projector) => {
                        s.mmproj = Some(Box::new(ProjectorFile { name, projector }))
                    }
                });
            }
            Err(p) => problem.set(Some(p)),
        }
    });
}

/// Picks each of `files` (a model and its projector may come together).
fn pick_all(
    st: AppState,
    problem: RwSignal<Option<PickProblem>>,
    files: Option<web_sys::FileList>,
) {
    let Some(files) = files else { return };
    for i in 0..files.length().min(2) {
        if let Some(file) = files.get(i) {
            pick(st, problem, file);
        }
    }
}

/// The file panel's markup: the model's and the projector's names, the file input, the buttons
/// that clear them, and why the last pick was refused. Written as one string (the panel listens
/// for its inputs' events), so the page carries one element's code for it.
/// The picked `.gguf` file (or the preset it stands in for) and the vision projector, with
/// the file input, their clear buttons and why a pick was refused; shown for a local run.
#[component]
pub fn LocalModelFile() -> impl IntoView {
    let st = expect_context::<AppState>();
    let problem = RwSignal::new(None::<PickProblem>);
    let lang = move || st.lang.get();
    let w = move |x| llama_word(lang(), x);
    let files = Memo::new(move |_| {
        let l = lang();
        st.scenario.with(|s| {
            let model = match &s.gguf {
                Some(f) => f.name.clone(),
                None => format!("{} ({})", s.model.name(), llama_word(l, W::FromPreset)),
            };
            let projector = s.mmproj.as_ref().map(|f| f.name.clone());
            (model, s.gguf.is_some(), projector)
        })
    });
    let picked = move |ev: web_sys::Event| {
        let files = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|i| i.files());
        pick_all(st, problem, files);
    };
    let dropped = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        let files = ev.data_transfer().and_then(|d| d.files());
        pick_all(st, problem, files);
    };
    view! {
        <div id="gguf-box">
            <Show when=move || is_local(&st)>
                <section
                    class="panel"
                    id="gguf-drop"
                    aria-labelledby="gguf-h"
                    on:dragover=|ev| ev.prevent_default()
                    on:drop=dropped
                >
                    <h2 id="gguf-h">{move || w(W::ModelFile)}</h2>
                    <p id="gguf-name">{move || files.get().0}</p>
                    <p id="mmproj-name">
                        {move || w(W::ProjectorFile)} ": "
                        {move || files.get().2.unwrap_or_else(|| w(W::NoProjector).into())}
                    </p>
                    <label class="file">
                        {move || w(W::PickFile)}
                        <input type="file" id="gguf-file" accept=".gguf" multiple on:change=picked/>
                    </label>
                    <button
                        type="button"
                        id="gguf-clear"
                        hidden=move || !files.get().1
                        on:click=move |_| st.edit(|s| s.gguf = None)
                    >
                        {move || w(W::UsePreset)}
                    </button>
                    <button
                        type="button"
                        id="mmproj-clear"
                        hidden=move || files.get().2.is_none()
                        on:click=move |_| st.edit(|s| s.mmproj = None)
                    >
                        {move || w(W::RemoveProjector)}
                    </button>
                    <p class="input-error" id="gguf-error" role="alert">
                        {move || problem.with(|p| p.as_ref().map(|p| problem_text(lang(), p)))}
                    </p>
                </section>
            </Show>
        </div>
    }
}

#[derive(Clone, PartialEq)]
enum Shown {
    Loading,
    Markup(vram_messages::LocalView),
    NotLoaded,
}

/// The local run's answer, asked of the module whenever the scenario changes while the job is
/// local; the last answer stays until the next arrives, and an answer to an older query is dropped.
/// The llama.cpp / Ollama run's answer and its speed chart, written by the on-demand llama.cpp
/// module (`crates/local-web`) for the scenario's link.
#[component]
pub fn LocalResults() -> impl IntoView {
    let st = expect_context::<AppState>();
    let shown = RwSignal::new(Shown::Loading);
    let latest = StoredValue::new(String::new());
    Effect::new(move |_| {
        let Some(query) = st.scenario.with(|s| {
            (s.job == Job::Local).then(|| vram_engine::link::encode(s, &PageSettings::default()))
        }) else {
            return;
        };
        preload(Module::Local);
        latest.set_value(query.clone());
        leptos::task::spawn_local(async move {
            let answer = local_view(&query).await;
            if latest.with_value(|l| *l == query) {
                shown.set(answer.map_or(Shown::NotLoaded, Shown::Markup));
            }
        });
    });
    let part = move |chart: bool| -> String {
        let l = st.lang.get();
        shown.with(|s| match s {
            Shown::Markup(view) => {
                let m = &view.0[usize::from(l == Lang::Zh)];
                if chart {
                    m.chart.clone()
                } else {
                    m.results.clone()
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
    // the tensor split's box is in the module's markup: one listener on the answer
    let split_typed = move |ev: web_sys::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .filter(|i| i.id() == "local-tensor-split")
        else {
            return;
        };
        let lang = st.lang.get_untracked();
        let said = match TensorShares::parse(&input.value()) {
            Some(shares) => {
                let gpus = st.scenario.with_untracked(|s| s.gpus as usize);
                st.edit(|s| s.tensor_split = shares);
                (!shares.applies_to(gpus)).then(|| llama_word(lang, W::SplitCount))
            }
            None => Some(llama_word(lang, W::SplitInvalid)),
        };
        if let Some(p) = input.next_element_sibling() {
            p.set_text_content(Some(said.unwrap_or("")));
        }
    };
    let loading = move || shown.with(|s| *s == Shown::Loading);
    view! {
        <section
            class="panel local"
            id="local"
            aria-busy=move || loading().to_string()
            on:change=split_typed
            inner_html=move || part(false)
        ></section>
        <section class="panel">
            <h2>{move || llama_word(st.lang.get(), W::SpeedChart)}</h2>
            <div id="local-speed" class="chart" inner_html=move || part(true)></div>
        </section>
    }
}
