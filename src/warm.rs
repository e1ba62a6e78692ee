//! The step's code made ready before the first step (issue 16). Chromium compiles a WebAssembly
//! function only when it is first called, and compiles it again, optimised, on a background
//! thread once it has run enough. Both happened during a user's first slider steps: the first
//! step compiled what a step calls (1–3 ms on the main thread) and the next thirty optimised it
//! (about 60 ms of compiling on the machine's other core, beside the drawing of those steps).
//! Once the first result is on screen this module runs what a step runs (the engine, the bars'
//! and the growth chart's markup, and the patch, into two elements that are not in the page) for
//! the job one step away and back, one round per task, so that the compiling is done before the
//! first step. It writes nothing to the page, its link or its history.

use vram_engine::{Job, Overview, Scenario};

use crate::chart;
use crate::components::results::selected_line;
use crate::i18n::Lang;

/// How many jobs one step away are drawn, each followed by the job itself: about 100 ms of work
/// in 24 tasks, after which a trace of the benchmark's first presses shows about 1 ms of
/// compiling where it showed about 60 (BENCHMARKS.md, the sixteenth round).
const ROUNDS: usize = 24;

/// The job `base` with its batch, its sequence length or its GPU count doubled, by `round`: what
/// the step's code runs for, with numbers that change every bar and the growth curve.
fn one_step_away(base: &Scenario, round: usize) -> Scenario {
    let mut s = base.clone();
    match round % 3 {
        0 => s.batch *= 2,
        1 => s.seq *= 2,
        _ => s.gpus *= 2,
    }
    s
}

/// Two elements outside the page, the markup each holds, and what to step next.
struct Warmer {
    base: Scenario,
    lang: Lang,
    hosts: [(web_sys::Node, String); 2],
    round: usize,
}

/// Job `s`'s answer in `lang` drawn into `hosts` (the bars', the growth chart's), as a step draws
/// it into the page.
fn draw(hosts: &mut [(web_sys::Node, String); 2], lang: Lang, s: &Scenario) {
    let Ok(o) = Overview::compute(s) else { return };
    let (limit, name) = selected_line(s);
    let line = (limit, name.as_str());
    let serving = s.job == Job::Serving;
    let (bars, _) = chart::stacked(
        &chart::bars(&o.bars),
        s.gpus,
        line,
        s.unit,
        lang,
        None,
        None,
    );
    let at = s.swept_tokens();
    let swept = vram_engine::sweep(s, &o.arch);
    let (sweep, _) = chart::sweep(&swept, at, serving, line, s.unit, lang, None);
    let bars = chart::svg_text(&bars, chart::BARS_SIZE, chart::stacked_title(lang));
    let title = chart::sweep_title(lang, serving);
    let sweep = chart::svg_text(&sweep, chart::SWEEP_SIZE, title);
    for ((host, shown), now) in hosts.iter_mut().zip([bars, sweep]) {
        chart::patch::patch_inner(host, shown, &now);
        *shown = now;
    }
}

impl Warmer {
    /// The next job one step away drawn, then the job itself; false once all are.
    fn task(&mut self) -> bool {
        let away = one_step_away(&self.base, self.round);
        draw(&mut self.hosts, self.lang, &away);
        draw(&mut self.hosts, self.lang, &self.base);
        self.round += 1;
        self.round < ROUNDS
    }
}

/// Starts warming the step's code for `base` in `lang`, one round per task, the first task after
/// the next paint (the first result's).
pub fn start(base: Scenario, lang: Lang) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let host = || doc.create_element("div").ok().map(web_sys::Node::from);
    let (Some(a), Some(b)) = (host(), host()) else {
        return;
    };
    let warmer = Warmer {
        base,
        lang,
        hosts: [(a, String::new()), (b, String::new())],
        round: 0,
    };
    crate::later::after_next_paint(move || next(warmer));
}

/// Runs one task of `warmer` and posts the next.
fn next(mut warmer: Warmer) {
    if !warmer.task() {
        return;
    }
    crate::reactive::set_timeout_with_handle(move || next(warmer), std::time::Duration::ZERO);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_one_step_away_draws_other_bars_so_the_patch_has_work_each_round() {
        let base = Scenario::default();
        for round in 0..3 {
            let away = one_step_away(&base, round);
            assert_ne!(away, base, "round {round}");
            // the bars' markup, as the page draws it
            let bars = |s: &Scenario| chart::steps::charts(s)[0].clone();
            assert_ne!(bars(&away), bars(&base), "round {round}");
        }
    }
}
