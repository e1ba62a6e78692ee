//! "Your measurement": paste or upload what the job really used, see it beside the estimate at
//! the same level, and, when they differ by more than 10 %, copy a ready report.

use leptos::prelude::*;
use vram_engine::{
    Breakdown, Comparison, Component, Measurement, Target, Unit, MAX_MEASUREMENT_BYTES,
};
use vram_text::{level_name, level_note, reading_note, source_name};
use wasm_bindgen::JsCast;

use crate::chart::escape;
use crate::i18n::{self, t, Lang};
use crate::readers::{self, Refused};
use crate::state::AppState;
use vram_engine::signed_decimal;

/// A difference above this many hundredths of a percent of the measurement is a mismatch (10 %).
const MISMATCH_BASIS_POINTS: i128 = 1_000;

fn mismatched(c: &Comparison) -> bool {
    c.basis_points()
        .is_some_and(|bp| bp.abs() > MISMATCH_BASIS_POINTS)
}

/// The figure the chart marks: the first that counts the whole device or all tensors, else the
/// first compared; its bytes and label ("PyTorch reserved (peak): 22.50 GiB").
pub fn marker(lang: Lang, unit: Unit, m: &Measurement, b: &Breakdown) -> Option<(u64, String)> {
    let all = m.compare(b);
    let whole = |c: &&Comparison| {
        matches!(
            c.level.target(),
            Some(
                Target::Total | Target::TensorsAndReserve | Target::Tensors | Target::ServingBudget
            )
        )
    };
    let c = all.iter().find(whole).or(all.first())?;
    let label = format!("{}: {}", level_name(lang, c.level), unit.format(c.measured));
    Some((c.measured, label))
}

#[component]
pub fn MeasuredPanel() -> impl IntoView {
    let st = expect_context::<AppState>();
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<Refused>);
    // the readers load on demand: "reading …" until the module answers
    let reading = RwSignal::new(false);
    // a refused text leaves the previous comparison (and budget) as they were
    let apply = move |body: String| {
        reading.set(true);
        leptos::task::spawn_local(async move {
            let read = readers::read_measurement(&body).await;
            reading.set(false);
            match read {
                Ok(m) => {
                    error.set(None);
                    st.measured.set(Some(m));
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some(file) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|i| i.files())
            .and_then(|f| f.get(0))
        else {
            return;
        };
        if file.size() > MAX_MEASUREMENT_BYTES as f64 {
            let bytes = file.size();
            leptos::task::spawn_local(async move {
                error.set(Some(readers::measurement_too_large(bytes).await));
            });
            return;
        }
        let promise = file.text();
        leptos::task::spawn_local(async move {
            let body = wasm_bindgen_futures::JsFuture::from(promise).await;
            let body = body.ok().and_then(|v| v.as_string()).unwrap_or_default();
            text.set(body.clone());
            crate::components::show_value("measured-text", &body);
            apply(body);
        });
    };
    // the box and its buttons as one escaped string with one handler per event kind on the
    // section (a tree of Leptos elements here cost the first load KBs); written again only when
    // the language changes, with what the user typed
    let form = move || measured_form(st.lang.get(), &text.get_untracked());
    let said = move || {
        let l = st.lang.get();
        error.with(|e| {
            let error = e
                .as_ref()
                .map(|e| e.sentence(l).unwrap_or(t(l, "readers_failed")));
            crate::components::error_and_status("measured", l, error, reading.get())
        })
    };
    let target = crate::components::event_target_id;
    view! {
        <section class="panel" aria-labelledby="measured-h" id="measured" on:focusin=|_| readers::preload()
            on:input=move |ev| if target(&ev) == "measured-text" { text.set(event_target_value(&ev)) }
            on:click=move |ev| if target(&ev) == "measured-apply" { apply(text.get_untracked()) }
            on:change=move |ev| if target(&ev) == "measured-file" { on_file(ev) }>
            <div inner_html=form></div>
            <div inner_html=said></div>
            <MeasuredTable />
            <MismatchReport />
        </section>
    }
}

/// The panel's heading, help, text box, button and file input, as escaped markup.
fn measured_form(l: Lang, text: &str) -> String {
    format!(
        r#"<h2 id="measured-h">{}</h2><label class="note" for="measured-text">{}</label><textarea id="measured-text" rows="5" spellcheck="false" placeholder="Loading model weights took 14.99 GB · 21.3 GiB allocated · …">{}</textarea><div class="row"><button type="button" id="measured-apply">{}</button><label class="file">{}<input type="file" id="measured-file" accept=".txt,.log,.json,text/plain,application/json"></label></div>"#,
        escape(t(l, "measured_h")),
        escape(t(l, "measured_help")),
        escape(text),
        escape(t(l, "measured_apply")),
        escape(t(l, "upload_config")),
    )
}

/// Measured beside estimated, one row per compared level, each level explained.
#[component]
fn MeasuredTable() -> impl IntoView {
    let st = expect_context::<AppState>();
    let markup = Memo::new(move |_| {
        let Some(m) = st.measured.get() else {
            return String::new();
        };
        let l = st.lang.get();
        let unit = st.scenario.with(|s| s.unit);
        st.computed.with(|c| {
            c.as_ref().ok().map_or(String::new(), |c| {
                format!(
                    r#"<div class="table-wrap">{}</div>"#,
                    table_html(l, unit, &m, &c.breakdown)
                )
            })
        })
    });
    let host = NodeRef::<leptos::html::Div>::new();
    crate::components::patched_in_place(host, markup);
    view! { <div node_ref=host></div> }
}

/// The comparison as markup: fixed words and the engine's numbers, escaped.
fn table_html(l: Lang, unit: Unit, m: &Measurement, b: &Breakdown) -> String {
    let all = m.compare(b);
    let mut rows = String::new();
    for c in &all {
        rows.push_str(&format!(
            r#"<tr data-level="{}"{}><th scope="row">{}<br /><span class="note">{}</span></th><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            c.level.key(),
            if mismatched(c) { r#" class="off""# } else { "" },
            escape(level_name(l, c.level)),
            escape(level_note(l, c.level)),
            unit.format(c.measured),
            unit.format(c.estimated),
            difference(unit, c)
        ));
    }
    let mut notes: Vec<String> = m
        .figures()
        .iter()
        .filter(|f| !all.iter().any(|c| c.level == f.level))
        .map(|f| {
            format!(
                "{}: {} ({})",
                level_name(l, f.level),
                unit.format(f.bytes),
                t(l, "not_compared")
            )
        })
        .collect();
    for note in m.figures().iter().filter_map(|f| reading_note(l, f)) {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    let notes: String = notes
        .iter()
        .map(|n| format!("<li>{}</li>", escape(n)))
        .collect();
    format!(
        r#"<p class="note">{}</p><table id="measured-table"><thead><tr><th scope="col"></th><th scope="col">{}</th><th scope="col">{}</th><th scope="col">{}</th></tr></thead><tbody>{rows}</tbody></table><ul class="note">{notes}</ul>"#,
        escape(source_name(l, m.source())),
        t(l, "measured"),
        t(l, "estimate"),
        t(l, "difference")
    )
}

/// "+0.65 GiB (+185.7 %)": estimate minus measurement.
fn difference(unit: Unit, c: &Comparison) -> String {
    let d = c.difference() as f64 / unit.bytes() as f64;
    match c.percent() {
        Some(p) => format!(
            "{} {} ({} %)",
            signed_decimal(d, 2),
            unit.label(),
            signed_decimal(p, 1)
        ),
        None => format!("{} {}", signed_decimal(d, 2), unit.label()),
    }
}

/// When a figure is more than 10 % off: a Markdown report to paste into an issue, as markup with
/// a copy button (one click handler).
#[component]
fn MismatchReport() -> impl IntoView {
    let st = expect_context::<AppState>();
    let markup = Memo::new(move |_| {
        let Some(m) = st.measured.get() else {
            return String::new();
        };
        let l = st.lang.get();
        let unit = st.scenario.with(|s| s.unit);
        st.computed.with(|c| {
            let Some(b) = c.as_ref().ok().map(|c| &c.breakdown) else {
                return String::new();
            };
            if !m.compare(b).iter().any(mismatched) {
                return String::new();
            }
            report_box(l, unit, &st.share_url(), &m, b)
        })
    });
    let copy = move |e: leptos::ev::MouseEvent| {
        let l = st.lang.get_untracked();
        let said = [t(l, "report_copied"), t(l, "copy_failed")];
        crate::app::copy_on_click(
            &e,
            "mismatch-copy",
            "mismatch-report",
            "mismatch-status",
            said,
        );
    };
    let host = NodeRef::<leptos::html::Div>::new();
    crate::components::patched_in_place(host, markup);
    view! { <div on:click=copy node_ref=host></div> }
}

/// The report in a read-only box with its copy button, as escaped markup.
fn report_box(l: Lang, unit: Unit, link: &str, m: &Measurement, b: &Breakdown) -> String {
    format!(
        r#"<label class="note" for="mismatch-report">{}</label><textarea id="mismatch-report" rows="10" readonly="">{}</textarea><div class="row"><button type="button" id="mismatch-copy">{}</button><span id="mismatch-status" role="status"></span></div>"#,
        escape(t(l, "mismatch_h")),
        escape(&report_markdown(l, unit, link, m, b)),
        escape(t(l, "copy_report"))
    )
}

/// The report: the scenario's link, each measured figure with its level beside the estimate, the
/// estimate per component, and blanks for the versions.
fn report_markdown(l: Lang, unit: Unit, link: &str, m: &Measurement, b: &Breakdown) -> String {
    let mut o = format!(
        "### {}\n\n{}: {link}\n{}: {}\n\n| {} | {} | {} | {} |\n|---|---:|---:|---:|\n",
        t(l, "report_title"),
        t(l, "report_scenario"),
        t(l, "report_source"),
        source_name(l, m.source()),
        t(l, "report_level"),
        t(l, "measured"),
        t(l, "estimate"),
        t(l, "difference")
    );
    for c in m.compare(b) {
        o.push_str(&format!(
            "| {} (`{}`) | {} | {} | {} |\n",
            level_name(l, c.level),
            c.level.key(),
            unit.format(c.measured),
            unit.format(c.estimated),
            difference(unit, &c)
        ));
    }
    o.push_str(&format!("\n{}\n\n", t(l, "report_components")));
    for comp in Component::ALL.iter().filter(|c| b.bytes(**c) > 0) {
        o.push_str(&format!(
            "- {}: {}\n",
            i18n::component(l, *comp),
            unit.format(b.bytes(*comp))
        ));
    }
    o.push_str(&format!(
        "- {}: {}\n\n{}\n\n- torch: \n- transformers / vLLM / llama.cpp: \n- GPU: \n- {}: \n",
        t(l, "total"),
        unit.format(b.total),
        t(l, "report_versions"),
        t(l, "report_driver")
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{parse_measurement, Overview, Scenario};

    #[test]
    fn the_comparison_table_and_the_report_are_markup_the_patch_reads_so_a_step_patches_them_in_place(
    ) {
        let s = Scenario::default();
        let c = Overview::compute(&s).unwrap();
        let m = parse_measurement("21.3 GiB allocated, 22.5 GiB reserved").unwrap();
        for l in [Lang::En, Lang::Zh] {
            let table = table_html(l, s.unit, &m, &c.breakdown);
            assert!(table.contains("<tr data-level="), "{table}");
            let report = report_box(l, s.unit, "https://x/?v=1&b=4", &m, &c.breakdown);
            assert!(report.contains("| "), "{report}");
            for html in [table, report] {
                let wrapped = format!("<x>{html}</x>");
                assert!(crate::chart::markup::parse(&wrapped).is_some(), "{html}");
            }
        }
    }
}
