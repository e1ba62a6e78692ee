//! The answer: the verdict, the stacked chart, the sequence view, the fit table, the solver, and
//! each component's formula with this scenario's numbers.

use vram_engine::{decimal, signed_decimal, thousands};
use vram_engine::{serve_command, startup_concurrency, Component, Job, Phase, Scenario, Server};

use std::rc::Rc;

use crate::chart;
use crate::chart::escape as esc;
use crate::components::measured;
use crate::dom::{self, patched_after_paint, Piece};
use crate::i18n::{self, t, Lang};
use crate::reactive::*;
use crate::state::AppState;

/// When a line is alive, in the job's words (the engine's), translated.
fn phase_text(lang: Lang, job: Job, p: Phase) -> &'static str {
    i18n::phase(lang, p.describe(job))
}

/// "Needs 22.46 GiB per GPU: fits RTX 4090 24GB, 1.53 GiB to spare." One element that stays (the
/// phone layout keeps it in sight, screen readers follow it); its lines are markup.
pub fn verdict_line() -> Piece {
    let st = expect_context::<AppState>();
    // the element itself is in the patched markup, not in the skeleton: a job that starts or
    // stops fitting changes its class, which in the skeleton would write the whole page's
    // skeleton again on that step (issue 16); its host is `display: contents`
    dom::patched_in_place(
        "verdict-box",
        Memo::new(move |_| verdict_box(&st)),
        |_, _| {},
    );
    dom::fixed(r#"<div id="verdict-box"></div>"#.into())
}

/// The verdict's element: its look (class, and `role="alert"` for an error, else a polite live
/// region) and its lines.
fn verdict_box(st: &AppState) -> String {
    let (class, error, lines) = verdict_markup(st);
    let role = if error {
        r#"role="alert""#
    } else {
        r#"aria-live="polite""#
    };
    format!(r#"<div id="verdict" class="{class}" {role}>{lines}</div>"#)
}

/// The verdict's class, whether it is an error, and its lines as markup from fixed words and the
/// engine's numbers, escaped.
fn verdict_markup(st: &AppState) -> (&'static str, bool, String) {
    let l = st.lang.get();
    let (unit, gpu, job, util, server) = st
        .scenario
        .with(|s| (s.unit, s.gpu, s.job, s.gpu_util_pct, s.server));
    let computed = st.computed.read();
    let c = match &*computed {
        Err(e) => {
            let text = format!("{} {}", t(l, "error"), vram_text::error(l, e));
            return ("verdict error", true, esc(&text));
        }
        Ok(c) => c,
    };
    let b = &c.breakdown;
    let need = c.need;
    let (fits, headroom) = (need.fits(), need.headroom());
    // every job is measured against what the CUDA driver reports, a server against
    // gpu_memory_utilization × that
    let budget = {
        let (budget, visible) = (unit.format(need.budget), unit.format(gpu.visible_bytes()));
        let equation = if job == Job::Serving && server == Server::Sglang {
            let split = st.scenario.with(|s| b.sglang_split(s, gpu));
            let free = unit.format(split.free_before);
            vram_text::sglang_budget_equation(l, split.permille, &budget, &free)
        } else {
            let util = (job == Job::Serving).then_some(util);
            let capacity = unit.format(gpu.bytes());
            vram_text::budget_equation(l, util, &budget, &visible, &capacity)
        };
        format!(" ({equation})")
    };
    let mut html = format!(
        r#"<p class="total-line">{} <strong id="total">{}</strong> {}<span class="muted"> ({} <span id="tensors">{}</span>, {} {})</span></p><p class="fit-line" id="fit-line"><strong>{}</strong>: {} · {} {}{}</p>"#,
        esc(t(l, "needs")),
        esc(&unit.format(b.total)),
        esc(t(l, "per_gpu")),
        esc(t(l, "tensors")),
        esc(&unit.format(b.tensors)),
        esc(t(l, "peak_at")),
        esc(phase_text(l, job, b.peak_phase)),
        esc(gpu.label()),
        esc(t(l, if fits { "fits" } else { "does_not_fit" })),
        esc(t(l, if fits { "headroom" } else { "short_by" })),
        esc(&unit.format(headroom.unsigned_abs())),
        esc(&budget)
    );
    if b.cpu > 0 {
        html.push_str(&format!(
            r#"<p id="cpu-line">{}: {}</p>"#,
            esc(t(l, "cpu_ram")),
            esc(&unit.format(b.cpu))
        ));
    }
    if let Some(f) = b.serving {
        let too_small = if f.max_len_fits {
            String::new()
        } else {
            format!(" · {}", t(l, "too_small_for_max_len"))
        };
        html.push_str(&format!(
            r#"<p id="serving-line">{} {} · {} {} = {} {} · ~<strong id="serving-concurrency">{}</strong> {}{}</p>"#,
            esc(t(l, if server == Server::Sglang { "serving_fill_sglang" } else { "serving_fill" })),
            esc(&unit.format(f.budget)),
            esc(t(l, "kv_pool")),
            esc(&unit.format(f.kv_pool)),
            thousands(f.blocks),
            esc(t(l, "blocks")),
            f.max_concurrency,
            esc(t(l, "requests_at_once")),
            esc(&too_small)
        ));
    }
    (
        if fits {
            "verdict fits"
        } else {
            "verdict nofit"
        },
        false,
        html,
    )
}

/// The selected GPU's line in the charts of job `s`: the total the driver reports, or a vLLM
/// server's budget ("H100 80GB × 90%") of it (SGLang's static share holds only weights and KV).
/// The warm-up (`crate::warm`) draws its charts with the same line.
pub fn selected_line(s: &Scenario) -> (u64, String) {
    let gpu = s.gpu;
    if s.job == Job::Serving && s.server == Server::Vllm {
        let util = s.gpu_util_pct;
        (
            gpu.visible_bytes() * util / 100,
            format!("{} × {util}%", gpu.label()),
        )
    } else {
        (gpu.visible_bytes(), gpu.label().to_string())
    }
}

/// What the bar chart reads and holds: the state, the measurement, whether a slider moves, the
/// axis it last showed and the bars it last drew whole.
#[derive(Clone, Copy)]
struct BarsChart {
    st: AppState,
    shown: Memo<measured::Shown>,
    moving: RwSignal<bool>,
    top_shown: StoredValue<Option<chart::Held>>,
    drawn: StoredValue<Option<Vec<chart::Bar>>>,
}

impl BarsChart {
    /// The chart's markup: every bar (`at_once` false), or what a step shows in its own frame,
    /// its GPU count's bar from its answer and the others as last drawn whole
    /// (`chart::bars_at_once`). Not inlined: both memos call this one copy of its code.
    #[inline(never)]
    fn markup(self, at_once: bool) -> String {
        let st = self.st;
        let l = st.lang.get();
        let (gpus, unit) = st.scenario.with(|s| (s.gpus, s.unit));
        let (limit, name) = st.scenario.with(selected_line);
        let held = self
            .moving
            .get()
            .then(|| self.top_shown.get_value())
            .flatten();
        st.computed.with(|c| {
            c.as_ref()
                .map(|c| {
                    let now = chart::bars(&c.bars);
                    let bars = if at_once {
                        self.drawn
                            .with_value(|d| chart::bars_at_once(&now, d.as_deref(), gpus))
                    } else {
                        self.drawn.set_value(Some(now.clone()));
                        now
                    };
                    self.shown.with(|v| {
                        let marker = v.marker.as_ref().map(|(b, label)| (*b, label.as_str()));
                        let line = (limit, name.as_str());
                        let (shapes, top) =
                            chart::stacked(&bars, gpus, line, unit, l, marker, held);
                        self.top_shown
                            .set_value(Some(chart::Held::after(held, top)));
                        let title = chart::stacked_title(l);
                        chart::svg_text(&shapes, chart::BARS_SIZE, title)
                    })
                })
                .unwrap_or_default()
        })
    }
}

pub fn charts() -> Piece {
    let st = expect_context::<AppState>();
    let shown = expect_context::<Memo<measured::Shown>>();
    // while a slider moves the bars' axis holds (it only grows) and fits them once input
    // pauses: a step then moves the bars, not the ticks, grid lines and labels (issue 16)
    let moving = super::moving::sliders_moving();
    let bars = BarsChart {
        st,
        shown,
        moving,
        top_shown: StoredValue::new(None),
        drawn: StoredValue::new(None),
    };
    let svg_at_once = Memo::new(move |_| bars.markup(true));
    let svg = Memo::new(move |_| bars.markup(false));
    // the growth chart's axis holds the same way: batch and rank steps raise the curve a little
    // and, refitted on each, its ticks and grid lines moved on nearly every step (issue 16)
    let sweep_top_shown = StoredValue::new(None::<f64>);
    let sweep = Memo::new(move |_| {
        let l = st.lang.get();
        let (at, serving, unit) = st
            .scenario
            .with(|s| (s.swept_tokens(), s.job == Job::Serving, s.unit));
        let (limit, name) = st.scenario.with(selected_line);
        let held = moving.get().then(|| sweep_top_shown.get_value()).flatten();
        st.growth.with(|g| {
            g.as_ref()
                .map(|g| {
                    let line = (limit, name.as_str());
                    let (shapes, top) = chart::sweep(g, at, serving, line, unit, l, held);
                    sweep_top_shown.set_value(Some(top));
                    let title = chart::sweep_title(l, serving);
                    chart::svg_text(&shapes, chart::SWEEP_SIZE, title)
                })
                .unwrap_or_default()
        })
    });
    let lang = move || st.lang.get();
    let sweep_title = move || {
        if st.scenario.with(|s| s.job == Job::Serving) {
            "request_view"
        } else {
            "seq_view"
        }
    };
    // both charts patched in place (chart::patch) from the markup they show, not replaced whole
    patched_after_paint("seq-chart", sweep);
    patched_after_paint("legend", Memo::new(move |_| legend_markup(lang())));
    super::segment_label::follow_pointer_and_focus();
    // the step's own GPU count's bar in the step's own frame, every bar once it is drawn, and
    // the first draw stamped for the load benchmark (navigation start -> first chart)
    dom::patched_now_and_after_paint("chart", svg_at_once, Some(svg), |el, whole| {
        super::segment_label::show_again();
        if whole && el.first_element_child().is_some() {
            let now = web_sys::window()
                .and_then(|w| w.performance())
                .map(|p| p.now())
                .unwrap_or(0.0);
            let _ = el.set_attribute("data-first-draw", &decimal(now, 1));
        }
    });
    let sweep_heading = Memo::new(move |_| t(lang(), sweep_title()));
    Rc::new(move || {
        let l = lang();
        let title = esc(t(l, "chart_title"));
        let sweep = esc(sweep_heading.get());
        format!(
            r#"<section class="panel charts" aria-labelledby="chart-h"><h2 id="chart-h">{title}</h2><div class="chart" id="chart" role="img" aria-label="{title}"></div><ul class="legend" id="legend"></ul><p class="note">{}</p><h3>{sweep}</h3><div class="chart" id="seq-chart" role="img" aria-label="{sweep}"></div></section>"#,
            esc(t(l, "chart_note"))
        )
    })
}

/// The chart's legend: a swatch (an SVG fill, which the page's CSP allows where an inline style
/// would not be) and the component's name, as markup.
fn legend_markup(l: Lang) -> String {
    Component::ALL
        .iter()
        .map(|c| {
            format!(
                r#"<li data-component="{}"><svg class="swatch" viewBox="0 0 1 1" aria-hidden="true"><rect width="1" height="1" fill="{}"/></svg>{}</li>"#,
                c.key(),
                chart::css_colour(*c),
                esc(i18n::component(l, *c))
            )
        })
        .collect()
}

/// For a server: the vLLM and SGLang commands that start it with these settings in a readonly box
/// with a copy button, and the maximum concurrency vLLM will print when it starts.
fn serve_markup(l: Lang, st: &AppState, c: &vram_engine::Overview) -> String {
    let Some(f) = c.breakdown.serving else {
        return String::new();
    };
    st.scenario.with(|s| {
        let text = [Server::Vllm, Server::Sglang].map(|server| serve_command(s, server).line());
        let startup = vram_text::startup_concurrency(l, s.max_model_len, startup_concurrency(&f, s));
        format!(
            r#"<h2 id="serve-h">{}</h2><textarea id="serve-command" readonly="" rows="6" aria-labelledby="serve-h">{}</textarea><p><button type="button" id="copy-serve">{}</button> <span id="copy-serve-status" role="status"></span></p><p class="note" id="startup-concurrency">{}</p>"#,
            esc(t(l, "serve_command")),
            esc(&text.join("\n\n")),
            esc(t(l, "copy_command")),
            esc(&startup)
        )
    })
}

/// The copy button of the serve commands: the box's text to the clipboard.
fn copy_serve(e: &web_sys::Event) {
    crate::app::copy_on_click(
        e,
        "copy-serve",
        "serve-command",
        "copy-serve-status",
        ["✓", "✗"],
    );
}

/// One panel of the answer below the charts: the section stays in the DOM and only the text and
/// attributes of its markup that changed reach the page (hidden while the scenario has no answer).
/// While the panel is off screen a step does not build it: the section says `data-stale` and the
/// panel is brought up to date when it comes near the screen or when input pauses (100 ms), so a
/// slider dragged at the top of the page pays only for what is in sight (issue 16). The page's
/// CSS keeps it out of style and layout while it is off screen.
fn answer_section(
    id: &'static str,
    heading: &'static str,
    host: &'static str,
    build: fn(&AppState) -> Option<String>,
    on_click: fn(&web_sys::Event),
) -> Piece {
    let st = expect_context::<AppState>();
    let on_screen = RwSignal::new(false);
    // set when input has paused with the panel off screen: build it anyway
    let due = RwSignal::new(false);
    let pending = StoredValue::new(None::<TimeoutHandle>);
    let observer = StoredValue::new_local(None::<web_sys::IntersectionObserver>);
    on_cleanup(move || {
        if let Some(o) = observer.try_update_value(Option::take).flatten() {
            o.disconnect();
        }
    });
    let write = move |el: &web_sys::Element, shown: &str| {
        let section = el.parent_element();
        if let (true, Some(section)) = (observer.with_value(Option::is_none), &section) {
            observer.set_value(super::on_screen::watch(section, on_screen));
        }
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        if !on_screen.get() && !due.get() {
            // what the panel reads, tracked without building it
            st.scenario.track();
            st.lang.track();
            st.computed.track();
            if let Some(section) = &section {
                let _ = section.set_attribute("data-stale", "");
            }
            let catch_up = move || due.set(true);
            let timer = set_timeout_with_handle(catch_up, std::time::Duration::from_millis(100));
            pending.set_value(timer);
            return shown.to_string();
        }
        due.update_untracked(|d| *d = false);
        let now = build(&st).unwrap_or_default();
        let node: &web_sys::Node = el;
        chart::patch::patch_inner(node, shown, &now);
        if let Some(section) = &section {
            let _ = section.remove_attribute("data-stale");
        }
        now
    };
    dom::host_after_paint(host, Box::new(write));
    dom::on(id, "click", on_click);
    let failed = Memo::new(move |_| st.computed.with(Result::is_err));
    Rc::new(move || {
        let hidden = if failed.get() { r#" hidden="""# } else { "" };
        format!(
            r#"<section class="panel below" aria-labelledby="{heading}" id="{id}"{hidden}><div id="{host}"></div></section>"#
        )
    })
}

pub fn fit_panel() -> Piece {
    answer_section("fit", "fit-h", "fit-box", fit_markup, copy_serve)
}

pub fn gpu_table() -> Piece {
    answer_section(
        "gpu-table",
        "gpu-table-h",
        "gpu-table-box",
        gpus_markup,
        |_| {},
    )
}

/// The fit table: every GPU of the catalog, whether the job fits it and how many it needs, as
/// markup from the catalog's fixed names and the engine's numbers. A panel of its own, so that a
/// step with only the solver in sight does not build it (issue 16, ninth round).
fn gpus_markup(st: &AppState) -> Option<String> {
    let l = st.lang.get();
    let (unit, selected) = st.scenario.with(|s| (s.unit, s.gpu));
    st.computed.with(|c| {
        let c = c.as_ref().ok()?;
        // computed here, not in the page's memo: only this panel shows it, and only in sight
        let verdicts = st.scenario.with(|s| vram_engine::verdicts(s, &c.arch).ok())?;
        // rows as markup from the catalog's fixed names and the engine's numbers
        let rows: String = verdicts
            .iter()
            .map(|v| {
                let head = signed_decimal(v.headroom as f64 / unit.bytes() as f64, 1);
                let class = match (v.gpu == selected, v.fits) {
                    (true, true) => "selected fits",
                    (true, false) => "selected",
                    (false, true) => "fits",
                    (false, false) => "",
                };
                format!(
                    r#"<tr id="fit-{}" class="{class}"><th scope="row">{}</th><td>{}</td><td class="verdict-cell">{}</td><td>{}</td><td>{}</td></tr>"#,
                    v.gpu.key(),
                    esc(v.gpu.label()),
                    if v.budget < v.capacity {
                        format!(
                            "{} / {}",
                            decimal(unit.value(v.budget), 1),
                            decimal(unit.value(v.capacity), 1)
                        )
                    } else {
                        decimal(unit.value(v.capacity), 1)
                    },
                    esc(if v.fits { t(l, "yes") } else { t(l, "no") }),
                    head,
                    v.gpus_needed.map(|n| n.to_string()).unwrap_or_else(|| "–".into())
                )
            })
            .collect();
        Some(format!(
            r#"<h2 id="gpu-table-h">{}</h2><div class="table-wrap"><table id="fit-table"><thead><tr><th scope="col">GPU</th><th scope="col">{} ({})</th><th scope="col">{}</th><th scope="col">{}</th><th scope="col">{}</th></tr></thead><tbody>{rows}</tbody></table></div>"#,
            esc(t(l, "fit_table")),
            esc(t(l, "budget_capacity")),
            unit.label(),
            esc(t(l, "verdict")),
            esc(t(l, "headroom")),
            esc(t(l, "gpus_needed"))
        ))
    })
}

/// The solver's answers, the changes that would make it fit and the serve commands, as markup
/// from the engine's fixed labels and numbers.
fn fit_markup(st: &AppState) -> Option<String> {
    let st = *st;
    let l = st.lang.get();
    let (unit, selected) = st.scenario.with(|s| (s.unit, s.gpu));
    st.computed.with(|c| {
        let c = c.as_ref().ok()?;
        // computed here, not in the page's memo: only this panel shows it, and only in sight
        let a = st.scenario.with(|s| vram_engine::Advice::compute(s, c));
        let answers: String = a
            .answers
            .iter()
            .map(|a| {
                format!(
                    r#"<dt>{}</dt><dd id="answer-{}" data-setting="{}">{}</dd>"#,
                    esc(vram_text::question(l, a.question)),
                    a.question.id(),
                    a.question.setting(),
                    esc(&vram_text::answer(l, a))
                )
            })
            .collect();
        // built as markup from the engine's fixed labels and numbers (nothing user-typed)
        let fits_here = c.need.fits();
        let remedies = if a.remedies.is_empty() {
            if fits_here {
                String::new()
            } else {
                format!(r#"<p class="remedies-h" id="no-remedy">{}</p>"#, esc(t(l, "no_remedy")))
            }
        } else {
            let items: String = a
                .remedies
                .iter()
                .map(|(r, total)| {
                    format!(
                        r#"<li data-remedy="{}">{} → <strong>{}</strong></li>"#,
                        r.key(),
                        esc(i18n::remedy(l, *r)),
                        esc(&unit.format(*total))
                    )
                })
                .collect();
            format!(
                r#"<p class="remedies-h">{}</p><ul class="remedies" id="remedies">{items}</ul>"#,
                esc(t(l, "remedies"))
            )
        };
        let serve = serve_markup(l, &st, c);
        Some(format!(
            r#"<h2 id="fit-h">{}: {}</h2><dl class="solver" id="solver">{answers}</dl><div>{remedies}</div><div>{serve}</div>"#,
            esc(t(l, "solver")),
            esc(selected.label()),
        ))
    })
}

pub fn explanations() -> Piece {
    answer_section(
        "explanations",
        "explain-h",
        "explanations-box",
        explanations_markup,
        |_| {},
    )
}

/// Each component's formulas with this scenario's numbers, as markup (the formulas escaped).
fn explanations_markup(st: &AppState) -> Option<String> {
    let l = st.lang.get();
    let (unit, job, ga) = st.scenario.with(|s| (s.unit, s.job, s.grad_accum));
    st.computed.with(|c| {
        c.as_ref().ok().map(|c| {
            let b = &c.breakdown;
            // markup from the engine's formulas (escaped) and fixed labels; the swatch is an
            // SVG fill, which the page's CSP allows where an inline style would not be
            let mut html = String::new();
            for comp in Component::ALL
                .iter()
                .filter(|comp| b.lines.iter().any(|line| line.component == **comp && line.bytes > 0))
            {
                html.push_str(&format!(
                    r#"<details id="explain-{}"><summary><svg class="swatch" viewBox="0 0 1 1" aria-hidden="true"><rect width="1" height="1" fill="{}"/></svg>{}: {}</summary><p>{}</p><ul>"#,
                    comp.key(),
                    chart::css_colour(*comp),
                    esc(i18n::component(l, *comp)),
                    esc(&unit.format(b.bytes(*comp))),
                    esc(i18n::component_doc(l, *comp))
                ));
                for line in b.lines.iter().filter(|line| line.component == *comp) {
                    let dead = !b.at_peak(line);
                    html.push_str(&format!(
                        r#"<li{}><span class="phase">[{}]</span> <code>{}</code>{}</li>"#,
                        if dead { r#" class="dead""# } else { "" },
                        esc(phase_text(l, job, line.phase)),
                        esc(&i18n::formula(l, &line.formula, unit)),
                        if dead {
                            format!(r#"<span class="muted"> ({})</span>"#, esc(t(l, "not_at_peak")))
                        } else {
                            String::new()
                        }
                    ));
                }
                html.push_str("</ul></details>");
            }
            if job.is_training() && ga > 1 {
                html.push_str(&format!(r#"<p class="note" id="accum-note">{}</p>"#, esc(t(l, "accum_note"))));
            }
            format!(r#"<h2 id="explain-h">{}</h2><div>{html}</div>"#, esc(t(l, "explain")))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::model::Model;
    use crate::chart::steps::{presses, Recorder, Write, BENCH_SLIDERS};

    #[test]
    fn the_benchmark_steps_patch_the_verdict_and_the_panels_exactly_and_without_writing_any_part_whole(
    ) {
        let st = AppState::for_job(vram_engine::Scenario::default(), Lang::En);
        let start = st.scenario.get_untracked();
        let host = Recorder::new();
        let panels = |st: &AppState| {
            [
                verdict_box(st),
                fit_markup(st).unwrap_or_default(),
                gpus_markup(st).unwrap_or_default(),
                explanations_markup(st).unwrap_or_default(),
            ]
        };
        let mut whole = Vec::new();
        for (id, big) in BENCH_SLIDERS {
            st.scenario.set(start.clone());
            let mut shown = panels(&st);
            for s in presses(&start, id, big, 25) {
                st.scenario.set(s);
                let next = panels(&st);
                for (old, new) in shown.iter().zip(&next) {
                    chart::patch::patch_inner(&host, old, new);
                    let page = Model::host(old);
                    chart::patch::patch_inner(&page, old, new);
                    assert_eq!(
                        page.printed(),
                        Model::host(new).printed(),
                        "a press on {id}"
                    );
                }
                shown = next;
                let writes = host.take();
                whole.extend(writes.into_iter().filter_map(|w| match w {
                    Write::Whole(path, bytes) => Some(format!("{id}: {path:?} {bytes} B")),
                    _ => None,
                }));
            }
        }
        assert_eq!(whole, Vec::<String>::new());
    }
}
