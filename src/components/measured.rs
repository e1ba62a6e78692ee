//! "Your measurement": a pasted or uploaded log, nvidia-smi line or `memory_stats()` dump, read
//! by the on-demand readers module and compared with the estimate at the same level. The
//! comparison's table and report are written by that module (`crates/readers`); the chart marks
//! the measured figure.

use leptos::prelude::*;
use vram_engine::measured::Estimated;
use vram_messages::MeasuredView;

use crate::components::paste_box::{FileProblem, PasteBox};
use crate::components::ErrorAndStatus;
use crate::i18n::t;
use crate::modules::{call_now, export, preload, Module, Refused};
use crate::readers;
use crate::state::AppState;

/// The measurement compared with the estimate, following both: the readers module writes the
/// comparison (loaded the first time a measurement is shown).
pub fn shown(st: AppState) -> Memo<MeasuredView> {
    let writer = RwSignal::new_local(None::<js_sys::Function>);
    let unavailable = RwSignal::new(false);
    Effect::new(move |_| {
        if st.measured.with(Option::is_some) && writer.with_untracked(Option::is_none) {
            leptos::task::spawn_local(async move {
                let f = export(Module::Readers, "measured_view").await;
                unavailable.set(f.is_err());
                writer.set(f.ok());
            });
        }
    });
    Memo::new(move |_| {
        let Some(m) = st.measured.get() else {
            return MeasuredView::default();
        };
        let (lang, unit) = (st.lang.get(), st.scenario.with(|s| s.unit));
        if unavailable.get() {
            let said = vram_text::escape(t(lang, "readers_failed"));
            let table = format!(
                r#"<p class="input-error" id="measured-unavailable" role="alert">{said}</p>"#
            );
            return MeasuredView {
                table,
                ..MeasuredView::default()
            };
        }
        let estimated = st.computed.with(|c| {
            let c = c.as_ref().ok()?;
            Some(Estimated::of(&c.breakdown).to_link())
        });
        let link = st.share_url();
        writer.with(|w| {
            let (Some(f), Some(estimated)) = (w, estimated) else {
                return MeasuredView::default();
            };
            let args = [lang.key(), unit.key(), &link, &m.to_full_link(), &estimated];
            let args = args.map(wasm_bindgen::JsValue::from_str);
            call_now::<Option<MeasuredView>>(f, &args)
                .flatten()
                .unwrap_or_default()
        })
    })
}

/// The box a measurement is pasted into, its file input, and the comparison.
#[component]
pub fn MeasuredPanel() -> impl IntoView {
    let st = expect_context::<AppState>();
    let shown = expect_context::<Memo<MeasuredView>>();
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<Refused>);
    let reading = RwSignal::new(false);
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
    let on_refused = move |problem| match problem {
        FileProblem::TooLarge(bytes) => leptos::task::spawn_local(async move {
            error.set(Some(readers::measurement_too_large(bytes).await));
        }),
        // as before: an empty text, which the reader refuses with its own sentence
        FileProblem::Unreadable => apply(String::new()),
    };
    let lang = move || st.lang.get();
    let said = Signal::derive(move || {
        let l = lang();
        error.with(|e| {
            e.as_ref()
                .map(|e| e.sentence(l).unwrap_or(t(l, "readers_failed")).to_string())
        })
    });
    let copied = RwSignal::new(None::<bool>);
    // the report's copy button is in the module's markup: one listener on its box
    let copy = move |ev: web_sys::MouseEvent| {
        if crate::components::event_target_id(&ev) == "mismatch-copy" {
            crate::app::copy_element_text("mismatch-report", copied);
        }
    };
    Effect::new(move |_| {
        let l = lang();
        if let (Some(ok), Some(status)) = (
            copied.get(),
            document().get_element_by_id("mismatch-status"),
        ) {
            let said = t(l, if ok { "report_copied" } else { "copy_failed" });
            status.set_text_content(Some(said));
        }
    });
    view! {
        <section
            class="panel"
            aria-labelledby="measured-h"
            id="measured"
            on:focusin=|_| preload(Module::Readers)
        >
            <div id="measured-form">
                <h2 id="measured-h">{move || t(lang(), "measured_h")}</h2>
                <label class="note" for="measured-text">{move || t(lang(), "measured_help")}</label>
                <PasteBox
                    id="measured"
                    rows=5
                    placeholder="Loading model weights took 14.99 GB · 21.3 GiB allocated · …"
                    accept=".txt,.log,.json,text/plain,application/json"
                    apply_label="measured_apply"
                    max_bytes=vram_engine::measured::MAX_INPUT_BYTES
                    text=text
                    on_apply=Callback::new(apply)
                    on_pick=Callback::new(|_| ())
                    on_refused=Callback::new(on_refused)
                />
            </div>
            <div id="measured-said">
                <ErrorAndStatus id="measured" error=said reading/>
            </div>
            <div id="measured-table-box" inner_html=move || shown.with(|v| v.table.clone())></div>
            <div
                id="mismatch-box"
                on:click=copy
                inner_html=move || shown.with(|v| v.report.clone())
            ></div>
        </section>
    }
}
