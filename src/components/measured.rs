//! "Your measurement": paste or upload what the job really used, see it beside the estimate at
//! the same level, and, when they differ by more than 10 %, copy a ready report.

use vram_engine::{Estimated, MAX_MEASUREMENT_BYTES};
use wasm_bindgen::JsCast;

use crate::chart::escape;
use crate::dom::{self, patched_after_paint, Piece};
use crate::i18n::{t, Lang};
use crate::reactive::*;
use crate::readers::{self, Refused};
use crate::state::AppState;

/// What the readers module wrote of the measurement beside the estimate
/// (`crates/readers/src/measured_view.rs`): the table, the report (empty unless a figure is more
/// than 10 % off) and the chart's marker. Empty until a measurement is shown and the module is in.
#[derive(Clone, Default, PartialEq)]
pub struct Shown {
    pub table: String,
    pub report: String,
    pub marker: Option<(u64, String)>,
}

/// The measurement as the readers module writes it: the module loads when a measurement is first
/// shown (pasted, or carried by the link), and the view follows every change after that. When the
/// module cannot be loaded, the table's place says so (the next measurement tries again).
pub fn shown(st: AppState) -> Memo<Shown> {
    let writer = RwSignal::new_local(None::<js_sys::Function>);
    let unavailable = RwSignal::new(false);
    Effect::new(move |_| {
        if st.measured.with(Option::is_some) && writer.with_untracked(Option::is_none) {
            crate::reactive::spawn_local(async move {
                let f = readers::export(readers::READERS, "measured_view").await;
                unavailable.set(f.is_err());
                writer.set(f.ok());
            });
        }
    });
    Memo::new(move |_| {
        let Some(m) = st.measured.get() else {
            return Shown::default();
        };
        let (lang, unit) = (st.lang.get(), st.scenario.with(|s| s.unit));
        if unavailable.get() {
            let said = escape(t(lang, "readers_failed"));
            let table = format!(
                r#"<p class="input-error" id="measured-unavailable" role="alert">{said}</p>"#
            );
            return Shown {
                table,
                ..Shown::default()
            };
        }
        let estimated = st.computed.with(|c| {
            let c = c.as_ref().ok()?;
            Some(Estimated::of(&c.breakdown).to_link())
        });
        let link = st.share_url();
        writer.with(|w| {
            let (Some(f), Some(estimated)) = (w, estimated) else {
                return Shown::default();
            };
            let args = [lang.key(), unit.key(), &link, &m.to_full_link(), &estimated];
            let parts = readers::call_now(f, &args);
            match <[String; 5]>::try_from(parts) {
                Ok([kind, table, report, bytes, label]) if kind == "measured" => Shown {
                    table,
                    report,
                    marker: bytes.parse().ok().map(|b| (b, label)),
                },
                _ => Shown::default(),
            }
        })
    })
}

pub fn measured_panel() -> Piece {
    let st = expect_context::<AppState>();
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<Refused>);
    // the readers load on demand: "reading …" until the module answers
    let reading = RwSignal::new(false);
    // a refused text leaves the previous comparison (and budget) as they were
    let apply = move |body: String| {
        reading.set(true);
        crate::reactive::spawn_local(async move {
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
    let on_file = move |ev: &web_sys::Event| {
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
            crate::reactive::spawn_local(async move {
                error.set(Some(readers::measurement_too_large(bytes).await));
            });
            return;
        }
        let promise = file.text();
        crate::reactive::spawn_local(async move {
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
    let form = Memo::new(move |_| measured_form(st.lang.get(), &text.get_untracked()));
    let said = Memo::new(move |_| {
        let l = st.lang.get();
        error.with(|e| {
            let error = e
                .as_ref()
                .map(|e| e.sentence(l).unwrap_or(t(l, "readers_failed")));
            crate::components::error_and_status("measured", l, error, reading.get())
        })
    });
    patched_after_paint("measured-form", form);
    patched_after_paint("measured-said", said);
    let target = crate::components::event_target_id;
    dom::on("measured", "focusin", |_| readers::preload());
    dom::on("measured", "input", move |ev| {
        if target(ev) == "measured-text" {
            text.set(event_target_value(ev))
        }
    });
    dom::on("measured", "click", move |ev| {
        if target(ev) == "measured-apply" {
            apply(text.get_untracked())
        }
    });
    dom::on("measured", "change", move |ev| {
        if target(ev) == "measured-file" {
            on_file(ev)
        }
    });
    measured_table();
    mismatch_report();
    dom::fixed(
        r#"<section class="panel" aria-labelledby="measured-h" id="measured"><div id="measured-form"></div><div id="measured-said"></div><div id="measured-table-box"></div><div id="mismatch-box"></div></section>"#
            .into(),
    )
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
fn measured_table() {
    let shown = expect_context::<Memo<Shown>>();
    let markup = Memo::new(move |_| shown.with(|v| v.table.clone()));
    patched_after_paint("measured-table-box", markup);
}

/// When a figure is more than 10 % off: a Markdown report to paste into an issue, as markup with
/// a copy button (one click handler).
fn mismatch_report() {
    let st = expect_context::<AppState>();
    let shown = expect_context::<Memo<Shown>>();
    let markup = Memo::new(move |_| shown.with(|v| v.report.clone()));
    let copy = move |e: &web_sys::Event| {
        let l = st.lang.get_untracked();
        let said = [t(l, "report_copied"), t(l, "copy_failed")];
        crate::app::copy_on_click(
            e,
            "mismatch-copy",
            "mismatch-report",
            "mismatch-status",
            said,
        );
    };
    patched_after_paint("mismatch-box", markup);
    dom::on("mismatch-box", "click", copy);
}

#[cfg(test)]
// the readers module's source, compiled into the page's tests: the module is a cdylib (an rlib
// beside it grew it by 9.5 KB gzip after link-time optimisation)
#[path = "../../crates/readers/src/measured_view.rs"]
mod measured_view;

#[cfg(test)]
mod tests {
    use vram_engine::{parse_measurement, Estimated, Overview, Scenario};
    use vram_text::Lang;

    #[test]
    fn the_comparison_table_and_the_report_are_markup_the_patch_reads_so_a_step_patches_them_in_place(
    ) {
        let s = Scenario::default();
        let c = Overview::compute(&s).unwrap();
        let m = parse_measurement("max_memory_allocated = 21.3 GiB\nmax_memory_reserved = 40 GiB")
            .unwrap();
        for l in [Lang::En, Lang::Zh] {
            let e = Estimated::of(&c.breakdown);
            let v = super::measured_view::MeasuredView::of(l, s.unit, "https://x/?v=1&b=4", &m, &e);
            assert!(v.table.contains("<tr data-level="), "{}", v.table);
            assert!(v.report.contains("| "), "{}", v.report);
            for html in [v.table, v.report] {
                let wrapped = format!("<x>{html}</x>");
                assert!(crate::chart::markup::reads_whole(&wrapped), "{html}");
            }
        }
    }
}
