//! The answer: the verdict, the stacked chart, the sequence view, the fit table, the solver, and
//! each component's formula with this scenario's numbers.

use leptos::prelude::*;
use vram_engine::{
    fit::serve_command, fit::startup_concurrency, fit::Advice, scenario::Server, Component, Gpu,
    Job, Phase, Scenario, Unit, Verdict,
};
use vram_engine::{units::decimal, units::signed_decimal, units::thousands};

use crate::chart;
use crate::components::moving::SlidersMoving;
use crate::components::segment_label;
use crate::i18n::{self, t, Lang};
use crate::state::AppState;

/// When a line is alive, in the job's words (the engine's), translated.
fn phase_text(lang: Lang, job: Job, p: Phase) -> &'static str {
    i18n::phase(lang, p.describe(job))
}

/// What the verdict says: an error, or the total, the fit and the server's lines.
#[derive(Clone, PartialEq)]
enum Said {
    Error(String),
    Budget(Box<Budget>),
}

/// The verdict's numbers, written in the page's language and unit.
#[derive(Clone, PartialEq)]
struct Budget {
    fits: bool,
    total: String,
    tensors: String,
    peak: &'static str,
    gpu: &'static str,
    headroom: String,
    equation: String,
    cpu: Option<String>,
    serving: Option<ServingLine>,
    /// Where measured runs like this one landed (`vram_engine::fit::estimate_band`), in words.
    band: String,
    /// The band holds the card's limit: runs like this one landed on both sides of it.
    borderline: bool,
    /// For training: the framework the answer assumes and the step its peak follows, in words.
    basis: Vec<String>,
    /// Memory is left over (what `headroom` says is to spare, not missing).
    spare: bool,
    /// Why the server would not start on these GPUs, whatever the memory says.
    refusal: Option<String>,
}

#[derive(Clone, PartialEq)]
struct ServingLine {
    sglang: bool,
    budget: String,
    kv_pool: String,
    blocks: String,
    concurrency: u64,
    too_small: bool,
}

/// The verdict in `l`, from the page's state.
fn verdict_of(st: &AppState, l: Lang) -> Said {
    let (unit, gpu, job, util, server) = st
        .scenario
        .with(|s| (s.unit, s.gpu, s.job, s.gpu_util_pct, s.server));
    st.computed.with(|c| {
        let c = match c {
            Err(e) => return Said::Error(format!("{} {}", t(l, "error"), vram_text::error(l, e))),
            Ok(c) => c,
        };
        let b = &c.breakdown;
        let need = c.need;
        // every job is measured against what the CUDA driver reports, a server against
        // gpu_memory_utilization × that
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
        // a server's band is about its KV pool, what its logs print; a job's about its total
        let band = st.scenario.with(vram_engine::fit::estimate_band);
        let banded = b.serving.map_or(b.total, |f| f.kv_pool);
        let borderline = job != Job::Serving
            && band
                .bounds(b.total)
                .is_some_and(|(low, high)| low <= need.budget && need.budget < high);
        let serving = b.serving.map(|f| ServingLine {
            sglang: server == Server::Sglang,
            budget: unit.format(f.budget),
            kv_pool: unit.format(f.kv_pool),
            blocks: thousands(f.blocks),
            concurrency: f.max_concurrency,
            too_small: !f.max_len_fits,
        });
        Said::Budget(Box::new(Budget {
            fits: need.fits(),
            total: unit.format(b.total),
            tensors: unit.format(b.tensors),
            peak: phase_text(l, job, b.peak_phase),
            gpu: gpu.label(),
            headroom: unit.format(need.headroom().unsigned_abs()),
            equation,
            cpu: (b.cpu > 0).then(|| unit.format(b.cpu)),
            serving,
            band: vram_text::error_band(l, &band, banded, unit),
            borderline,
            basis: st.scenario.with(|s| vram_text::training_basis(l, s)),
            spare: need.headroom() >= 0,
            refusal: need
                .refusal
                .map(|r| vram_text::start_refusal(l, &r, |x| unit.format(x))),
        }))
    })
}

/// "Needs 22.46 GiB per GPU: fits RTX 4090 24GB, 1.53 GiB to spare." One element that stays (the
/// phone layout keeps it in sight, screen readers follow it); its lines stay too, and a step
/// rewrites only the numbers and words that changed.
#[component]
pub fn VerdictLine() -> impl IntoView {
    let st = expect_context::<AppState>();
    let said = Memo::new(move |_| verdict_of(&st, st.lang.get()));
    let class = move || {
        said.with(|s| match s {
            Said::Error(_) => "verdict error",
            Said::Budget(b) if b.fits => "verdict fits",
            Said::Budget(_) => "verdict nofit",
        })
    };
    let failed = move || said.with(|s| matches!(s, Said::Error(_)));
    let error = move || {
        said.with(|s| match s {
            Said::Error(text) => text.clone(),
            Said::Budget(_) => String::new(),
        })
    };
    view! {
        <div id="verdict-box">
            <div
                id="verdict"
                class=class
                role=move || failed().then_some("alert")
                aria-live=move || (!failed()).then_some("polite")
            >
                <Show when=failed fallback=move || budget_lines(said)>
                    {error}
                </Show>
            </div>
        </div>
    }
}

/// The verdict's lines for a budget: each text reads its own part of `said`.
fn budget_lines(said: Memo<Said>) -> impl IntoView {
    let st = expect_context::<AppState>();
    // the budget `said` holds, if it holds one
    let budget = move |f: &dyn Fn(&Budget) -> Option<String>| {
        said.with(|s| match s {
            Said::Budget(b) => f(b),
            Said::Error(_) => None,
        })
    };
    let part = move |f: fn(&Budget) -> String| move || budget(&|b| Some(f(b)));
    let has =
        move |f: fn(&Budget) -> bool| move || said.with(|s| matches!(s, Said::Budget(b) if f(b)));
    // an optional line stays in place, hidden unless the budget has something to say in it
    let hidden_unless = move |f: fn(&Budget) -> bool| {
        let shown = has(f);
        move || !shown()
    };
    let word = move |key: &'static str| move || t(st.lang.get(), key);
    let fits = has(|b| b.fits);
    let fit = move || t(st.lang.get(), if fits() { "fits" } else { "does_not_fit" });
    let spare = has(|b| b.spare);
    let head = move || t(st.lang.get(), if spare() { "headroom" } else { "short_by" });
    let serving =
        move |f: fn(&ServingLine) -> String| move || budget(&|b| b.serving.as_ref().map(f));
    let sglang = has(|b| b.serving.as_ref().is_some_and(|f| f.sglang));
    let fill = move || {
        let key = if sglang() {
            "serving_fill_sglang"
        } else {
            "serving_fill"
        };
        t(st.lang.get(), key)
    };
    let too_small = has(|b| b.serving.as_ref().is_some_and(|f| f.too_small));
    let too_small =
        move || too_small().then(|| format!(" · {}", t(st.lang.get(), "too_small_for_max_len")));
    view! {
        <p class="total-line">
            {word("needs")} " " <strong id="total">{part(|b| b.total.clone())}</strong> " "
            {word("per_gpu")}
            <span class="muted">
                " (" {word("tensors")} " " <span id="tensors">{part(|b| b.tensors.clone())}</span>
                ", " {word("peak_at")} " " {part(|b| b.peak.to_string())} ")"
            </span>
        </p>
        <p class="fit-line" id="fit-line">
            <strong>{part(|b| b.gpu.to_string())}</strong> ": " {fit} " · " {head} " "
            {part(|b| b.headroom.clone())} " (" {part(|b| b.equation.clone())} ")"
        </p>
        <p id="start-refusal" hidden=hidden_unless(|b| b.refusal.is_some())>
            <strong>{part(|b| b.refusal.clone().unwrap_or_default())}</strong>
        </p>
        <p id="borderline-line" hidden=hidden_unless(|b| b.borderline)>
            <strong>{move || vram_text::borderline_why(st.lang.get())}</strong>
        </p>
        <p id="cpu-line" hidden=hidden_unless(|b| b.cpu.is_some())>
            {word("cpu_ram")} ": " {part(|b| b.cpu.clone().unwrap_or_default())}
        </p>
        <p id="serving-line" hidden=hidden_unless(|b| b.serving.is_some())>
                {fill} " " {serving(|f| f.budget.clone())} " · " {word("kv_pool")} " "
                {serving(|f| f.kv_pool.clone())} " = " {serving(|f| f.blocks.clone())} " "
                {word("blocks")} " · ~"
                <strong id="serving-concurrency">
                    {serving(|f| f.concurrency.to_string())}
            </strong> " " {word("requests_at_once")} {too_small}
        </p>
        <p class="muted" id="error-band">{part(|b| b.band.clone())}</p>
        <p class="muted" id="training-basis" hidden=hidden_unless(|b| !b.basis.is_empty())>
            {part(|b| b.basis.join(" · "))}
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget_of(st: &AppState) -> Budget {
        match verdict_of(st, Lang::En) {
            Said::Budget(b) => *b,
            Said::Error(e) => panic!("{e}"),
        }
    }

    #[test]
    fn the_verdict_says_where_runs_like_this_landed_and_borderline_where_that_holds_the_cards_limit(
    ) {
        let st = AppState::for_job(Scenario::default(), Lang::En);
        let small = budget_of(&st);
        assert!(small.band.contains('%'), "{}", small.band);
        // a sequence whose total sits just under the card's limit: the band holds the limit
        let mut found = None;
        for seq in (256..=16_384).step_by(64) {
            st.edit(|s| s.seq = seq);
            let (total, budget) = st
                .computed
                .with_untracked(|c| c.as_ref().ok().map(|c| (c.breakdown.total, c.need.budget)))
                .expect("the default job computes");
            if total <= budget && total * 100 >= budget * 97 {
                found = Some(budget_of(&st));
                break;
            }
        }
        let edge = found.expect("a sequence length within 3 % under the card's limit");
        assert!(edge.fits && edge.borderline, "{}", edge.band);
        st.edit(|s| s.seq = 256);
        assert!(!budget_of(&st).borderline);
    }
}

/// The selected GPU's line in the charts of job `s`: the total the driver reports, or a vLLM
/// server's budget ("H100 80GB × 90%") of it (SGLang's static share holds only weights and KV).
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

/// The stacked bars and the growth chart, with the legend.
#[component]
pub fn Charts() -> impl IntoView {
    let st = expect_context::<AppState>();
    let shown = expect_context::<Memo<vram_messages::MeasuredView>>();
    // while a slider moves the axes hold (they only grow) and fit again once input pauses: a
    // step then moves the bars, not the ticks, grid lines and labels
    let moving = expect_context::<SlidersMoving>().moving;
    let held_top = StoredValue::new(None::<chart::Held>);
    let bars = Memo::new(move |_| {
        let l = st.lang.get();
        let (gpus, unit) = st.scenario.with(|s| (s.gpus, s.unit));
        let (limit, name) = st.scenario.with(selected_line);
        let held = moving.get().then(|| held_top.get_value()).flatten();
        st.computed
            .with(|c| {
                let c = c.as_ref().ok()?;
                let bars = chart::bars(&c.bars);
                shown.with(|v| {
                    let marker = v.marker.as_ref().map(|(b, label)| (*b, label.as_str()));
                    let (shapes, top) =
                        chart::stacked(&bars, gpus, (limit, name.as_str()), unit, l, marker, held);
                    held_top.set_value(Some(chart::Held::after(held, top)));
                    Some(shapes)
                })
            })
            .unwrap_or_default()
    });
    let sweep_top = StoredValue::new(None::<f64>);
    let sweep = Memo::new(move |_| {
        let l = st.lang.get();
        let (at, serving, unit) = st
            .scenario
            .with(|s| (s.swept_tokens(), s.job == Job::Serving, s.unit));
        let (limit, name) = st.scenario.with(selected_line);
        let held = moving.get().then(|| sweep_top.get_value()).flatten();
        st.growth
            .with(|g| {
                let g = g.as_ref()?;
                let (shapes, top) =
                    chart::sweep(g, at, serving, (limit, name.as_str()), unit, l, held);
                sweep_top.set_value(Some(top));
                Some(shapes)
            })
            .unwrap_or_default()
    });
    // the first draw stamped for the load benchmark (navigation start -> first chart), and the
    // segment label shown again on the segment it was on
    let first_draw = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if bars.with(|b| !b.is_empty()) {
            if first_draw.get_untracked().is_none() {
                let now = window().performance().map(|p| p.now()).unwrap_or(0.0);
                first_draw.set(Some(decimal(now, 1)));
            }
            // once this step's attributes are written (the chart's elements are told their
            // shapes by effects of their own), before the frame is painted
            request_animation_frame(segment_label::show_again);
        }
    });
    let lang = move || st.lang.get();
    let title = move || chart::stacked_title(lang());
    let sweep_title = move || {
        let serving = st.scenario.with(|s| s.job == Job::Serving);
        chart::sweep_title(lang(), serving)
    };
    // each chart reads its memo's shapes where they are: one drawing per step, never a copy
    let drawn = |shapes: Memo<Vec<chart::Shape>>| move || shapes.with(|s| !s.is_empty());
    let (bars_w, bars_h) = chart::BARS_SIZE;
    let (sweep_w, sweep_h) = chart::SWEEP_SIZE;
    let painted = expect_context::<crate::app::FirstPaint>().0;
    view! {
        <section class="panel charts" aria-labelledby="chart-h">
            <h2 id="chart-h">{title}</h2>
            <div
                class="chart"
                id="chart"
                role="img"
                aria-label=title
                data-first-draw=move || first_draw.get()
                on:focusin=move |ev| segment_label::focus_in(&ev)
                on:focusout=move |ev| segment_label::focus_out(&ev)
                on:mouseover=move |ev| segment_label::pointer_over(&ev)
                on:mouseout=move |ev| segment_label::pointer_out(&ev)
            >
                <Show when=drawn(bars)>
                    <chart::view::SvgChart
                        shapes=bars
                        width=bars_w
                        height=bars_h
                        title=Signal::derive(move || title().to_string())
                    />
                </Show>
            </div>
            <Legend/>
            <p class="note">{move || t(lang(), "chart_note")}</p>
            <h3>{sweep_title}</h3>
            <div
                class="chart"
                id="seq-chart"
                role="img"
                aria-label=sweep_title
            >
                <Show when=move || painted.get() && drawn(sweep)()>
                    <chart::view::SvgChart
                        shapes=sweep
                        width=sweep_w
                        height=sweep_h
                        title=Signal::derive(move || sweep_title().to_string())
                    />
                </Show>
            </div>
        </section>
    }
}

/// The chart's legend: a swatch (an SVG fill, which the page's CSP allows where an inline style
/// would not be) and the component's name.
#[component]
fn Legend() -> impl IntoView {
    let st = expect_context::<AppState>();
    view! {
        <ul class="legend" id="legend">
            {Component::ALL
                .iter()
                .map(|c| {
                    let c = *c;
                    view! {
                        <li data-component=c.key()>
                            <Swatch component=c/>
                            {move || i18n::component(st.lang.get(), c)}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

/// A component's colour as a one-pixel SVG square.
#[component]
fn Swatch(component: Component) -> impl IntoView {
    view! {
        <svg class="swatch" viewBox="0 0 1 1" aria-hidden="true">
            <rect width="1" height="1" fill=chart::css_colour(component)></rect>
        </svg>
    }
}

/// A memo of `f` that holds its last value while a slider moves and follows again once input
/// pauses: the panels below the charts are not rebuilt on every step of a drag.
fn paused<T: Clone + PartialEq + Send + Sync + 'static>(
    f: impl Fn() -> T + Send + Sync + 'static,
) -> Memo<T> {
    let moving = expect_context::<SlidersMoving>().moving;
    Memo::new(move |was: Option<&T>| match was {
        Some(was) if moving.get() => was.clone(),
        _ => f(),
    })
}

/// One panel of the answer below the charts, hidden while the scenario has no answer.
#[component]
fn Below(id: &'static str, heading: &'static str, children: Children) -> impl IntoView {
    let st = expect_context::<AppState>();
    let failed = Memo::new(move |_| st.computed.with(Result::is_err));
    // while a slider moves the panel holds what it showed, and says so
    let moving = expect_context::<SlidersMoving>().moving;
    view! {
        <section
            class="panel below"
            aria-labelledby=heading
            id=id
            hidden=failed
            data-stale=move || moving.get().then_some("")
        >
            {children()}
        </section>
    }
}

/// The solver's answers for the selected GPU, the changes that would make the job fit and, for a
/// server, the commands that start it.
#[component]
pub fn FitPanel() -> impl IntoView {
    let st = expect_context::<AppState>();
    let advice = paused(move || {
        st.computed.with(|c| {
            let c = c.as_ref().ok()?;
            Some(st.scenario.with(|s| (Advice::compute(s, c), s.unit)))
        })
    });
    let lang = move || st.lang.get();
    let gpu = move || st.scenario.with(|s| s.gpu.label());
    let answers = move || {
        let l = lang();
        advice.with(|a| {
            a.iter()
                .flat_map(|(a, _)| a.answers.iter())
                .map(|a| {
                    view! {
                        <dt>{vram_text::question(l, a.question)}</dt>
                        <dd id=format!("answer-{}", a.question.id()) data-setting=a.question.setting()>
                            {vram_text::answer(l, a)}
                        </dd>
                    }
                })
                .collect_view()
        })
    };
    let fits_here = Memo::new(move |_| {
        st.computed
            .with(|c| c.as_ref().is_ok_and(|c| c.need.fits()))
    });
    let remedies = move || {
        let l = lang();
        advice.with(|a| {
            let unit = a.as_ref().map_or(Unit::Gib, |(_, u)| *u);
            let remedies = a
                .as_ref()
                .map(|(a, _)| a.remedies.as_slice())
                .unwrap_or(&[]);
            if remedies.is_empty() {
                return (!fits_here.get())
                    .then(|| {
                        view! { <p class="remedies-h" id="no-remedy">{t(l, "no_remedy")}</p> }
                    })
                    .into_any();
            }
            let items = remedies
                .iter()
                .map(|(r, total)| {
                    view! {
                        <li data-remedy=r.key()>
                            {i18n::remedy(l, *r)} " → " <strong>{unit.format(*total)}</strong>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <p class="remedies-h">{t(l, "remedies")}</p>
                <ul class="remedies" id="remedies">{items}</ul>
            }
            .into_any()
        })
    };
    view! {
        <Below id="fit" heading="fit-h">
            <h2 id="fit-h">{move || t(lang(), "solver")} ": " {gpu}</h2>
            <dl class="solver" id="solver">{answers}</dl>
            <div>{remedies}</div>
            <div><ServeCommands/></div>
        </Below>
    }
}

/// For a server: the vLLM and SGLang commands that start it with these settings in a readonly box
/// with a copy button, and the maximum concurrency vLLM will print when it starts.
#[component]
fn ServeCommands() -> impl IntoView {
    let st = expect_context::<AppState>();
    let commands = paused(move || {
        let serving = st.computed.with(|c| c.as_ref().ok()?.breakdown.serving)?;
        let l = st.lang.get();
        Some(st.scenario.with(|s| {
            let text = [Server::Vllm, Server::Sglang].map(|server| serve_command(s, server).line());
            let startup = vram_text::startup_concurrency(
                l,
                s.max_model_len,
                startup_concurrency(&serving, s),
            );
            (text.join("\n\n"), startup)
        }))
    });
    let copied = RwSignal::new(None::<bool>);
    let lang = move || st.lang.get();
    move || {
        commands.get().map(|(text, startup)| {
            view! {
                <h2 id="serve-h">{t(lang(), "serve_command")}</h2>
                <textarea id="serve-command" readonly rows="6" aria-labelledby="serve-h" prop:value=text.clone()>
                    {text.clone()}
                </textarea>
                <p>
                    <button
                        type="button"
                        id="copy-serve"
                        on:click=move |_| crate::app::copy_element_text("serve-command", copied)
                    >
                        {t(lang(), "copy_command")}
                    </button>
                    " "
                    <span id="copy-serve-status" role="status">
                        {move || copied.get().map(|ok| if ok { "✓" } else { "✗" })}
                    </span>
                </p>
                <p class="note" id="startup-concurrency">{startup}</p>
            }
        })
    }
}

/// The fit table: every GPU of the catalog, whether the job fits it and how many it needs.
#[component]
pub fn GpuTable() -> impl IntoView {
    let st = expect_context::<AppState>();
    // the rows, the unit and the selected GPU hold together while a slider moves
    let verdicts = paused(move || {
        st.computed.with(|c| {
            let c = c.as_ref().ok()?;
            st.scenario.with(|s| {
                let rows = vram_engine::verdicts(s, &c.arch).ok()?;
                Some((rows, s.unit, s.gpu))
            })
        })
    });
    let lang = move || st.lang.get();
    let unit = move || st.scenario.with(|s| s.unit);
    let row = move |v: Verdict, unit: Unit, gpu: Gpu| {
        let selected = gpu == v.gpu;
        let class = match (selected, v.fits) {
            (true, true) => "selected fits",
            (true, false) => "selected",
            (false, true) => "fits",
            (false, false) => "",
        };
        let budget = if v.budget < v.capacity {
            format!(
                "{} / {}",
                decimal(unit.value(v.budget), 1),
                decimal(unit.value(v.capacity), 1)
            )
        } else {
            decimal(unit.value(v.capacity), 1)
        };
        view! {
            <tr id=format!("fit-{}", v.gpu.key()) class=class>
                <th scope="row">{v.gpu.label()}</th>
                <td>{budget}</td>
                <td class="verdict-cell">{t(lang(), if v.fits { "yes" } else { "no" })}</td>
                <td>{signed_decimal(v.headroom as f64 / unit.bytes() as f64, 1)}</td>
                <td>{v.gpus_needed.map(|n| n.to_string()).unwrap_or_else(|| "–".into())}</td>
            </tr>
        }
    };
    view! {
        <Below id="gpu-table" heading="gpu-table-h">
            <h2 id="gpu-table-h">{move || t(lang(), "fit_table")}</h2>
            <div class="table-wrap">
                <table id="fit-table">
                    <thead>
                        <tr>
                            <th scope="col">"GPU"</th>
                            <th scope="col">
                                {move || t(lang(), "budget_capacity")} " (" {move || unit().label()} ")"
                            </th>
                            <th scope="col">{move || t(lang(), "verdict")}</th>
                            <th scope="col">{move || t(lang(), "headroom")}</th>
                            <th scope="col">{move || t(lang(), "gpus_needed")}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            verdicts
                                .get()
                                .map(|(rows, unit, gpu)| {
                                    rows.into_iter().map(|v| row(v, unit, gpu)).collect_view()
                                })
                        }}
                    </tbody>
                </table>
            </div>
        </Below>
    }
}

/// Each component's formulas with this scenario's numbers.
#[component]
pub fn Explanations() -> impl IntoView {
    let st = expect_context::<AppState>();
    // the breakdown and the settings its words follow hold together while a slider moves
    let computed = paused(move || {
        let said = st.scenario.with(|s| (s.unit, s.job, s.grad_accum));
        (st.computed.get(), said)
    });
    let lang = move || st.lang.get();
    let body = move || {
        let l = lang();
        computed.with(|(c, (unit, job, ga))| {
            let (unit, job, ga) = (*unit, *job, *ga);
            let Ok(c) = c else { return ().into_any() };
            let b = &c.breakdown;
            let shown = Component::ALL.iter().copied().filter(|comp| {
                b.lines
                    .iter()
                    .any(|line| line.component == *comp && line.bytes > 0)
            });
            let sections = shown
                .map(|comp| {
                    let lines = b
                        .lines
                        .iter()
                        .filter(|line| line.component == comp)
                        .map(|line| {
                            let dead = !b.at_peak(line);
                            view! {
                                <li class:dead=dead>
                                    <span class="phase">"[" {phase_text(l, job, line.phase)} "]"</span>
                                    " "
                                    <code>{i18n::formula(l, &line.formula, unit)}</code>
                                    {dead.then(|| view! { <span class="muted">" (" {t(l, "not_at_peak")} ")"</span> })}
                                </li>
                            }
                        })
                        .collect_view();
                    view! {
                        <details id=format!("explain-{}", comp.key())>
                            <summary>
                                <Swatch component=comp/>
                                {i18n::component(l, comp)} ": " {unit.format(b.bytes(comp))}
                            </summary>
                            <p>{i18n::component_doc(l, comp)}</p>
                            <ul>{lines}</ul>
                        </details>
                    }
                })
                .collect_view();
            let accum = (job.is_training() && ga > 1)
                .then(|| view! { <p class="note" id="accum-note">{t(l, "accum_note")}</p> });
            view! { {sections} {accum} }.into_any()
        })
    };
    view! {
        <Below id="explanations" heading="explain-h">
            <h2 id="explain-h">{move || t(lang(), "explain")}</h2>
            <div>{body}</div>
        </Below>
    }
}
