//! The llama.cpp / Ollama job: the GGUF file (picked, dropped, or the preset quantized), and the
//! run's buffers per device, verdict, solver answers, commands and decode-speed chart.

use leptos::prelude::*;
use vram_engine::{GgufFile, Job, LlamaDevice, LlamaError, LocalOverview, Machine, Unit};
use vram_text::{llama_device, llama_error, llama_word, LlamaWord as W};
use wasm_bindgen::JsCast;

use crate::chart::escape as esc;
use crate::chart_speed::speed_chart;
use crate::gguf_file::{read_gguf_summary, PickProblem};
use crate::i18n::Lang;
use crate::state::AppState;

fn is_local(st: &AppState) -> bool {
    st.scenario.with(|s| s.job == Job::Local)
}

fn problem_text(lang: Lang, p: &PickProblem) -> String {
    match p {
        PickProblem::Unreadable => crate::i18n::t(lang, "file_unreadable").to_string(),
        PickProblem::TooLong => llama_word(lang, W::HeaderTooLong).to_string(),
        PickProblem::NotGguf | PickProblem::NoSummary => llama_word(lang, W::NotGguf).to_string(),
    }
}

/// Reads `file`'s header and makes it the run's model (or says why not).
fn pick(st: AppState, problem: RwSignal<Option<PickProblem>>, file: web_sys::File) {
    let name: String = file.name().chars().take(80).collect();
    leptos::task::spawn_local(async move {
        match read_gguf_summary(&file).await {
            Ok(summary) => {
                problem.set(None);
                st.edit(|s| s.gguf = Some(Box::new(GgufFile { name, summary })));
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

/// The local run's answer: computed only while the job is llama.cpp / Ollama.
#[component]
pub fn LocalResults() -> impl IntoView {
    let st = expect_context::<AppState>();
    // (results, chart) as escaped markup, computed once per change while the job is local
    let shown = Memo::new(move |_| {
        let l = st.lang.get();
        st.scenario.with(|s| {
            if s.job != Job::Local {
                return (String::new(), String::new());
            }
            let file = s.gguf.as_ref().map_or("model.gguf", |f| f.name.as_str());
            match LocalOverview::compute(s) {
                Ok(o) => (results_markup(&o, l, s.unit, file), chart_markup(&o, l)),
                Err(e) => (error_markup(&e, l), String::new()),
            }
        })
    });
    view! {
        <section class="panel local" id="local" inner_html=move || shown.with(|m| m.0.clone())></section>
        <section class="panel">
            <h2>{move || llama_word(st.lang.get(), W::SpeedChart)}</h2>
            <div id="local-speed" class="chart" inner_html=move || shown.with(|m| m.1.clone())></div>
        </section>
    }
}

fn chart_markup(o: &LocalOverview, l: Lang) -> String {
    speed_chart(
        &o.speed_by_layers,
        o.plan.placement.offloaded,
        o.max_gpu_layers,
        "-ngl",
        llama_word(l, W::TokensPerSecond),
        llama_word(l, W::SpeedChart),
    )
}

fn error_markup(e: &LlamaError, l: Lang) -> String {
    format!(
        r#"<p id="verdict" class="verdict error" role="alert">{}</p><strong id="total" hidden></strong>"#,
        esc(&llama_error(l, e))
    )
}

/// The verdict, the table of devices, the answers and the commands, escaped.
fn results_markup(o: &LocalOverview, l: Lang, unit: Unit, file: &str) -> String {
    let w = |x| llama_word(l, x);
    let size = |b: u64| esc(&unit.format(b));
    let verdict = if o.fits { W::Fits } else { W::DoesNotFit };
    let gpu_total = o.plan.gpu_total();
    let mut html = format!(
        r#"<p id="verdict" class="verdict {}"><strong>{}</strong> · GPU <strong id="total">{}</strong> · {} <span id="local-ram-total">{}</span> · {} {}/{}</p>"#,
        if o.fits { "fits" } else { "nofit" },
        esc(w(verdict)),
        size(gpu_total),
        esc(&llama_device(l, LlamaDevice::Host)),
        size(o.plan.host().total()),
        esc(w(W::Offloaded)),
        o.plan.placement.offloaded,
        o.plan.shape.n_layer + 1,
    );
    html.push_str(&format!(
        "<div class=\"table-wrap\"><table id=\"local-devices\"><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>",
        esc(w(W::Device)), esc(w(W::Model)), esc(w(W::KvCache)), esc(w(W::Compute)),
        esc(w(W::Output)), esc(w(W::Total)), esc(w(W::Limit))
    ));
    for ((device, b), fit) in o.plan.devices.iter().zip(&o.fit) {
        let key = match device {
            LlamaDevice::Host => "host".to_string(),
            LlamaDevice::Gpu(i) => format!("gpu{i}"),
        };
        let limit = fit.limit.map(size).unwrap_or_else(|| "–".into());
        html.push_str(&format!(
            r#"<tr data-device="{key}" class="{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td data-bytes="{}">{}</td><td data-limit="{}">{limit}</td></tr>"#,
            if fit.fits() { "fits" } else { "nofit" },
            esc(&llama_device(l, *device)),
            size(b.model),
            size(b.kv),
            size(b.compute),
            size(b.output),
            b.total(),
            size(b.total()),
            fit.limit.unwrap_or(0),
        ));
    }
    html.push_str("</table></div>");
    if let Machine::Mac(mac) = o.machine {
        html.push_str(&format!(
            r#"<p id="local-mac-note">{} {}: <span id="local-working-set">{}</span> / {} GB · {}: <code>sudo sysctl iogpu.wired_limit_mb={}</code></p>"#,
            esc(mac.label),
            esc(w(W::WorkingSet)),
            size(mac.working_set()),
            mac.memory_gib,
            esc(w(W::WiredLimit)),
            mac.memory_gib * 1024 * 7 / 8
        ));
    }
    let answer = |v: Option<u64>| v.map_or_else(|| esc(w(W::NothingFits)), |n| n.to_string());
    let best = match o.best_format {
        Some(f) => format!(
            r#"<li>{}: <strong id="local-best">{}</strong></li>"#,
            esc(w(W::BestQuant)),
            esc(f.label())
        ),
        None => String::new(),
    };
    html.push_str(&format!(
        r#"<ul id="local-answers">{best}<li>{}: <strong id="local-max-ngl">{}</strong></li><li>{}: <strong id="local-max-ctx">{}</strong></li><li>{}: <strong id="local-speed-bound">{:.1}</strong> tok/s ({}) · {:.1} tok/s ({})</li></ul>"#,
        esc(w(W::LargestNgl)),
        answer(o.max_gpu_layers),
        esc(w(W::LongestContext)),
        answer(o.max_context),
        esc(w(W::SpeedBound)),
        o.speed.empty_context,
        esc(w(W::EmptyContext)),
        o.speed.full_context,
        esc(w(W::FullContext)),
    ));
    html.push_str(&commands_markup(o, l, file));
    html
}

/// `llama-server …` and Ollama's settings, each in a block a user can copy.
fn commands_markup(o: &LocalOverview, l: Lang, file: &str) -> String {
    let c = &o.commands;
    let mut server = format!("llama-server -m {file}");
    for (flag, value) in &c.llama_server {
        server.push(' ');
        server.push_str(flag);
        if !value.is_empty() {
            server.push(' ');
            server.push_str(value);
        }
    }
    let env: Vec<String> = c
        .ollama_env
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let params: Vec<String> = c
        .ollama_options
        .iter()
        .map(|(k, v)| format!("PARAMETER {k} {v}"))
        .collect();
    let mixed = if c.ollama_mixed_cache {
        format!(
            "<p class=\"muted\">{}</p>",
            esc(llama_word(l, W::MixedCache))
        )
    } else {
        String::new()
    };
    format!(
        r#"<h3>{}</h3><pre id="local-server">{}</pre><pre id="local-ollama">{} ollama serve
{}</pre>{mixed}"#,
        esc(llama_word(l, W::Commands)),
        esc(&server),
        esc(&env.join(" ")),
        esc(&params.join("\n")),
    )
}
