//! A local run's answer as escaped markup: the verdict, the table of devices, the solver's
//! answers, the commands, and the decode-speed chart, in each of the page's languages.

use vram_engine::{
    link::Ignored, link::Notice, llamacpp::LlamaDevice, llamacpp::LlamaError, llamacpp::Machine,
    llamacpp::TensorShares, local::LocalOverview, Scenario, Setting, Unit, SETTINGS,
};
use vram_text::{escape, llama_device, llama_error, llama_word, notice, Lang, LlamaWord as W};

use crate::chart::speed_chart;
use crate::{LocalMarkup, LocalView, LANGS};

/// The answer for the scenario in the page's `query`, in every language. A `gg=` summary whose
/// header does not read (the page checks only its form) is said in place of an answer.
pub fn local_reply(query: &str) -> LocalView {
    let opened = vram_engine::link::decode(query);
    let s = &opened.scenario;
    let unread = opened.notices.iter().find(|n| {
        matches!(
            n,
            Notice::Ignored {
                why: Ignored::NotAGgufSummary,
                ..
            }
        )
    });
    if let Some(n) = unread {
        return LocalView(LANGS.map(|l| LocalMarkup {
            results: verdict_error(&notice(l, n)),
            chart: String::new(),
        }));
    }
    let file = s.gguf.as_ref().map_or("model.gguf", |f| f.name.as_str());
    let files = Files {
        model: file,
        projector: s.mmproj.as_ref().map(|f| f.name.as_str()),
    };
    // a file too detailed for a link is kept as each layer's bytes: say so beside the answer
    let detail = opened.notices.iter().find(|n| n.is_information());
    let overview = LocalOverview::compute(s);
    LocalView(LANGS.map(|l| match &overview {
        Ok(o) => {
            let note = detail.map_or(String::new(), |n| {
                format!(
                    r#"<p id="gguf-detail" class="note">{}</p>"#,
                    escape(&notice(l, n))
                )
            });
            LocalMarkup {
                results: note
                    + &results_markup(o, l, s.unit, &files, &s.tensor_split)
                    + &ollama_markup(query, s, &o.ollama, l),
                chart: chart_markup(o, l),
            }
        }
        Err(e) => LocalMarkup {
            results: error_markup(e, l),
            chart: String::new(),
        },
    }))
}

/// The files a run loads, as the command line names them.
struct Files<'a> {
    model: &'a str,
    projector: Option<&'a str>,
}

fn verdict_error(sentence: &str) -> String {
    format!(
        r#"<p id="verdict" class="verdict error" role="alert">{}</p><strong id="total" hidden></strong>"#,
        escape(sentence)
    )
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
    verdict_error(&llama_error(l, e))
}

/// The verdict, the table of devices, the answers and the commands, escaped.
fn results_markup(
    o: &LocalOverview,
    l: Lang,
    unit: Unit,
    files: &Files,
    shares: &TensorShares,
) -> String {
    let w = |x| llama_word(l, x);
    let size = |b: u64| escape(&unit.format(b));
    let verdict = if o.fits { W::Fits } else { W::DoesNotFit };
    let gpu_total = o.plan.gpu_total();
    let mut html = format!(
        r#"<p id="verdict" class="verdict {}"><strong>{}</strong> · GPU <strong id="total">{}</strong> · {} <span id="local-ram-total">{}</span> · {} {}/{}</p>"#,
        if o.fits { "fits" } else { "nofit" },
        escape(w(verdict)),
        size(gpu_total),
        escape(&llama_device(l, LlamaDevice::Host)),
        size(o.plan.host().total()),
        escape(w(W::Offloaded)),
        o.plan.placement.offloaded,
        o.plan.shape.n_layer + 1,
    );
    html.push_str(&split_markup(o, l, shares));
    let projector = files.projector.is_some();
    let projector_head = match projector {
        true => format!("<th>{}</th>", escape(w(W::Projector))),
        false => String::new(),
    };
    html.push_str(&format!(
        "<div class=\"table-wrap\"><table id=\"local-devices\"><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th>{projector_head}<th>{}</th><th>{}</th></tr>",
        escape(w(W::Device)), escape(w(W::Model)), escape(w(W::KvCache)), escape(w(W::Compute)),
        escape(w(W::Output)), escape(w(W::Total)), escape(w(W::Limit))
    ));
    for ((device, b), fit) in o.plan.devices.iter().zip(&o.fit) {
        let key = match device {
            LlamaDevice::Host => "host".to_string(),
            LlamaDevice::Gpu(i) => format!("gpu{i}"),
        };
        let limit = fit.limit.map(size).unwrap_or_else(|| "–".into());
        let projector_cell = match projector {
            true => {
                let bytes = b.projector + b.projector_compute;
                format!(r#"<td data-projector="{bytes}">{}</td>"#, size(bytes))
            }
            false => String::new(),
        };
        html.push_str(&format!(
            r#"<tr data-device="{key}" class="{}"><td>{}</td><td data-model="{}">{}</td><td>{}</td><td>{}</td><td>{}</td>{projector_cell}<td data-bytes="{}">{}</td><td data-limit="{}">{limit}</td></tr>"#,
            if fit.fits() { "fits" } else { "nofit" },
            escape(&llama_device(l, *device)),
            b.model,
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
            escape(mac.label),
            escape(w(W::WorkingSet)),
            size(mac.working_set()),
            mac.memory_gib,
            escape(w(W::WiredLimit)),
            mac.memory_gib * 1024 * 7 / 8
        ));
    }
    let answer = |v: Option<u64>| v.map_or_else(|| escape(w(W::NothingFits)), |n| n.to_string());
    let best = match o.best_format {
        Some(f) => format!(
            r#"<li>{}: <strong id="local-best">{}</strong></li>"#,
            escape(w(W::BestQuant)),
            escape(f.label())
        ),
        None => String::new(),
    };
    html.push_str(&format!(
        r#"<ul id="local-answers">{best}<li>{}: <strong id="local-max-ngl">{}</strong></li><li>{}: <strong id="local-max-ctx">{}</strong></li><li>{}: <strong id="local-speed-bound">{:.1}</strong> tok/s ({}) · {:.1} tok/s ({})</li></ul>"#,
        escape(w(W::LargestNgl)),
        answer(o.max_gpu_layers),
        escape(w(W::LongestContext)),
        answer(o.max_context),
        escape(w(W::SpeedBound)),
        o.speed.empty_context,
        escape(w(W::EmptyContext)),
        o.speed.full_context,
        escape(w(W::FullContext)),
    ));
    html.push_str(&commands_markup(o, l, files));
    html
}

/// The `--tensor-split` box above the table of GPUs (the page listens for its changes), with a
/// word when the shares name another number of GPUs than the machine has.
fn split_markup(o: &LocalOverview, l: Lang, shares: &TensorShares) -> String {
    let Machine::Gpus { count, .. } = o.machine else {
        return String::new();
    };
    let typed = if shares.is_even() {
        String::new()
    } else {
        shares.key()
    };
    let said = match shares.applies_to(count) {
        true => "",
        false => llama_word(l, W::SplitCount),
    };
    format!(
        r#"<div class="field" id="local-split"><label for="local-tensor-split">{}</label><input type="text" id="local-tensor-split" inputmode="decimal" placeholder="even" autocomplete="off" value="{}" aria-describedby="local-tensor-split-err"><p class="input-error" id="local-tensor-split-err" role="status">{}</p></div>"#,
        escape(vram_text::setting_label(l, "local-tensor-split")),
        escape(&typed),
        escape(said),
    )
}

/// `query` with the settings Ollama's defaults change (those whose value differs in `o`), in
/// `l`: the page's own pairs are kept as they came (already escaped), so the link needs no
/// encoder here.
fn ollama_query(query: &str, s: &Scenario, o: &Scenario, l: Lang) -> String {
    let changed: Vec<&Setting> = SETTINGS
        .iter()
        .filter(|st| st.get(s) != st.get(o))
        .collect();
    let kept = query.trim_start_matches('?').split('&').filter(|pair| {
        let key = pair.split('=').next().unwrap_or("");
        !pair.is_empty() && key != "lang" && !changed.iter().any(|st| st.key == key)
    });
    kept.map(str::to_string)
        .chain(
            changed
                .iter()
                .map(|st| format!("{}={}", st.key, st.text(o))),
        )
        .chain(std::iter::once(format!("lang={}", l.key())))
        .collect::<Vec<_>>()
        .join("&")
}

/// A link that opens this run with Ollama's defaults (v0.30 and later), or a word that these are
/// they.
fn ollama_markup(query: &str, s: &Scenario, o: &Scenario, l: Lang) -> String {
    if o == s {
        return format!(
            r#"<p id="local-ollama-note" class="muted">{}</p>"#,
            escape(llama_word(l, W::AreOllamaDefaults))
        );
    }
    format!(
        r#"<p id="local-ollama-note"><a id="local-ollama-defaults" href="?{}">{}</a> {}</p>"#,
        escape(&ollama_query(query, s, o, l)),
        escape(llama_word(l, W::OllamaDefaults)),
        escape(&format!(
            "-c {} -np 1 -b {} -ub {} -fa on, f16 cache, -ngl {}",
            o.n_ctx, o.n_batch, o.n_ubatch, o.ngl
        )),
    )
}

/// `llama-server …` and Ollama's settings, each in a block a user can copy.
fn commands_markup(o: &LocalOverview, l: Lang, files: &Files) -> String {
    let c = &o.commands;
    let mut server = format!("llama-server -m {}", files.model);
    if let Some(p) = files.projector {
        server.push_str(&format!(" --mmproj {p}"));
    }
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
            escape(llama_word(l, W::MixedCache))
        )
    } else {
        String::new()
    };
    format!(
        r#"<h3>{}</h3><pre id="local-server">{}</pre><pre id="local-ollama">{} ollama serve
{}</pre>{mixed}"#,
        escape(llama_word(l, W::Commands)),
        escape(&server),
        escape(&env.join(" ")),
        escape(&params.join("\n")),
    )
}
