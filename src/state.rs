//! The page's state: a handful of signals and one memo that every view reads.

use leptos::prelude::*;
use vram_engine::link::{self, PageSettings};
use vram_engine::{fit, memory, Architecture, Breakdown, Scenario, Solved, Verdict};

use crate::i18n::Lang;

/// Everything the engine computed for the current scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Computed {
    pub arch: Architecture,
    pub breakdown: Breakdown,
    pub verdicts: Vec<Verdict>,
    pub solved: Solved,
    /// The same job over 1, 2, 4, 8 GPUs (and the chosen count): (GPUs, breakdown).
    pub bars: Vec<(u64, Breakdown)>,
    /// Total per GPU as the sequence (or prompt) grows: (tokens, bytes).
    pub sweep: Vec<(u64, u64)>,
}

/// The page state, shared through context.
#[derive(Clone, Copy)]
pub struct AppState {
    pub scenario: RwSignal<Scenario>,
    pub lang: RwSignal<Lang>,
    /// What the opening link carried that was ignored.
    pub notices: RwSignal<Vec<String>>,
    /// The one memo: the breakdown and everything derived from it, or the reason it failed.
    pub computed: Memo<Result<Computed, String>>,
}

impl AppState {
    /// State from the page's URL (defaults for whatever the link lacks).
    pub fn from_location() -> AppState {
        let search = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default();
        let decoded = link::decode(&search);
        let lang = decoded
            .page
            .lang
            .and_then(Lang::from_key)
            .unwrap_or_else(Lang::from_browser);
        let scenario = RwSignal::new(decoded.scenario);
        let computed = Memo::new(move |_| scenario.with(compute));
        AppState {
            scenario,
            lang: RwSignal::new(lang),
            notices: RwSignal::new(decoded.notices),
            computed,
        }
    }

    /// The query string of the current state.
    pub fn query(&self) -> String {
        let page = PageSettings {
            lang: Some(self.lang.get().key()),
        };
        self.scenario.with(|s| link::encode(s, &page))
    }

    /// Changes the scenario in place.
    pub fn edit(&self, f: impl FnOnce(&mut Scenario)) {
        self.scenario.update(f);
    }
}

/// Sequence lengths for the "memory vs sequence length" view: 128 tokens to 1M, log-spaced.
fn sweep_points() -> Vec<u64> {
    (0..=26)
        .map(|i| (128.0 * 2f64.powf(i as f64 * 13.0 / 26.0)).round() as u64)
        .collect()
}

pub fn compute(s: &Scenario) -> Result<Computed, String> {
    let arch = s.model.architecture().map_err(|e| e.to_string())?;
    let breakdown = memory::estimate_with(s, &arch, true).map_err(|e| e.to_string())?;
    let verdicts = fit::verdicts(s, &arch).map_err(|e| e.to_string())?;
    let solved = fit::solve(s, &arch);
    let mut counts: Vec<u64> = vec![1, 2, 4, 8];
    if !counts.contains(&s.gpus) {
        counts.push(s.gpus);
        counts.sort_unstable();
    }
    let bars = counts
        .into_iter()
        .filter_map(|n| {
            let t = if n == s.gpus {
                s.clone()
            } else {
                fit::spread(s, n)?
            };
            memory::estimate_with(&t, &arch, false).ok().map(|b| (n, b))
        })
        .collect();
    let sweep = sweep_points()
        .into_iter()
        .filter_map(|len| {
            let mut t = s.clone();
            t.seq = len;
            memory::estimate_with(&t, &arch, false)
                .ok()
                .map(|b| (len, b.total))
        })
        .collect();
    Ok(Computed {
        arch,
        breakdown,
        verdicts,
        solved,
        bars,
        sweep,
    })
}
