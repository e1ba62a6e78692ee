//! The llama.cpp / Ollama job: the GGUF file (picked, dropped, or the preset quantized), and a
//! panel that shows what the local job's module answers (the run's buffers per device, verdict,
//! solver answers, commands and decode-speed chart), computed there.

use vram_engine::{encode_link, GgufFile, Job, PageSettings, ProjectorFile, TensorShares};
use vram_text::{llama_word, LlamaWord as W};
use wasm_bindgen::JsCast;

use std::rc::Rc;

use crate::components::event_target_id;
use crate::dom::{self, patched_after_paint, Piece};
use crate::i18n::{t, Lang};
use crate::local_module::{local_view, preload, read_picked, LocalMarkup, PickProblem, Picked};
use crate::reactive::*;
use crate::state::AppState;
use vram_text::escape;

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
    crate::reactive::spawn_local(async move {
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
fn file_panel_markup(st: AppState, lang: Lang, problem: Option<&PickProblem>) -> String {
    let w = |x| escape(llama_word(lang, x));
    let (model, has_file, projector, has_projector) = st.scenario.with(|s| {
        let model = match &s.gguf {
            Some(f) => f.name.clone(),
            None => format!("{} ({})", s.model.name(), llama_word(lang, W::FromPreset)),
        };
        let projector = s.mmproj.as_ref().map(|f| f.name.clone());
        (
            model,
            s.gguf.is_some(),
            projector
                .clone()
                .unwrap_or_else(|| llama_word(lang, W::NoProjector).into()),
            projector.is_some(),
        )
    });
    let hidden = |shown: bool| if shown { "" } else { r#" hidden="""# };
    format!(
        r#"<h2 id="gguf-h">{}</h2><p id="gguf-name">{}</p><p id="mmproj-name">{}: {}</p><label class="file">{}<input type="file" id="gguf-file" accept=".gguf" multiple="" /></label><button type="button" id="gguf-clear"{}>{}</button><button type="button" id="mmproj-clear"{}>{}</button><p class="input-error" id="gguf-error" role="alert">{}</p>"#,
        w(W::ModelFile),
        escape(&model),
        w(W::ProjectorFile),
        escape(&projector),
        w(W::PickFile),
        hidden(has_file),
        w(W::UsePreset),
        hidden(has_projector),
        w(W::RemoveProjector),
        problem
            .map(|p| escape(&problem_text(lang, p)))
            .unwrap_or_default(),
    )
}

/// The GGUF files of a local run: a file input (the model, and a vision projector if any) that
/// also takes dropped files.
pub fn local_model_file() -> Piece {
    let st = expect_context::<AppState>();
    let problem = RwSignal::new(None::<PickProblem>);
    // a memo: a slider step that leaves the files alone does not write the panel again
    let markup = Memo::new(move |_| {
        if !is_local(&st) {
            return String::new();
        }
        let lang = st.lang.get();
        let panel = problem.with(|p| file_panel_markup(st, lang, p.as_ref()));
        format!(
            r#"<section class="panel" id="gguf-drop" aria-labelledby="gguf-h">{panel}</section>"#
        )
    });
    patched_after_paint("gguf-box", markup);
    let on_change = move |ev: &web_sys::Event| {
        let files = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .filter(|i| i.id() == "gguf-file")
            .and_then(|i| i.files());
        pick_all(st, problem, files);
    };
    let on_click = move |ev: &web_sys::Event| match event_target_id(ev).as_str() {
        "gguf-clear" => st.edit(|s| s.gguf = None),
        "mmproj-clear" => st.edit(|s| s.mmproj = None),
        _ => {}
    };
    let on_drop = move |ev: &web_sys::Event| {
        ev.prevent_default();
        let files = ev
            .dyn_ref::<web_sys::DragEvent>()
            .and_then(|d| d.data_transfer())
            .and_then(|d| d.files());
        pick_all(st, problem, files);
    };
    dom::on("gguf-box", "dragover", |ev| ev.prevent_default());
    dom::on("gguf-box", "drop", on_drop);
    dom::on("gguf-box", "change", on_change);
    dom::on("gguf-box", "click", on_click);
    dom::fixed(r#"<div id="gguf-box"></div>"#.into())
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
pub fn local_results() -> Piece {
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
        crate::reactive::spawn_local(async move {
            let answer = local_view(&query).await;
            if latest.with_value(|l| *l == query) {
                shown.set(answer.map_or(Shown::NotLoaded, Shown::Markup));
            }
        });
    });
    let part = move |chart: bool| -> String {
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
    // the module's answer holds the --tensor-split box: its change reaches the scenario here
    let on_change = move |ev: &web_sys::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .filter(|i| i.id() == "local-tensor-split")
        else {
            return;
        };
        let lang = st.lang.get_untracked();
        // what the box says until the module answers (or when the scenario does not change)
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
    patched_after_paint("local", Memo::new(move |_| part(false)));
    patched_after_paint("local-speed", Memo::new(move |_| part(true)));
    dom::on("local", "change", on_change);
    let loading = Memo::new(move |_| shown.with(|s| *s == Shown::Loading));
    Rc::new(move || {
        format!(
            r#"<section class="panel local" id="local" aria-busy="{}"></section><section class="panel"><h2>{}</h2><div id="local-speed" class="chart"></div></section>"#,
            loading.get(),
            escape(llama_word(st.lang.get(), W::SpeedChart))
        )
    })
}
