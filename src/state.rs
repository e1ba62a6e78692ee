//! The page's state: a handful of signals and one memo that every view reads.

use vram_engine::{
    hub::HubEndpoint, link::Notice, link::PageSettings, measured::Measurement, EngineError,
    Overview, Scenario,
};

use crate::i18n::{browser_lang, Lang};
use leptos::prelude::*;

/// The page state, shared through context.
#[derive(Clone, Copy)]
pub struct AppState {
    pub scenario: RwSignal<Scenario>,
    pub lang: RwSignal<Lang>,
    /// What the opening link carried that was ignored (rendered in the page's language).
    pub notices: RwSignal<Vec<Notice>>,
    /// "Your measurement", compared with the estimate; it travels in the link (`ms=`).
    pub measured: RwSignal<Option<Measurement>>,
    /// The Hub endpoint model ids are read from, when not huggingface.co (`hfe=`).
    pub hub_endpoint: RwSignal<Option<HubEndpoint>>,
    /// The memo the page's answer reads: the breakdown and what derives from it, or the reason
    /// it failed. What only the fit panel shows (`vram_engine::fit::Advice`) that panel computes when
    /// it is built, so a step computes it only while the panel is in sight.
    pub computed: Memo<Result<Overview, EngineError>>,
    /// The growth chart's sweep (total per GPU as the sequence grows), apart from `computed`:
    /// only that chart reads it, after a step's frame, so the frame does not compute it.
    pub growth: Memo<Option<Vec<(u64, u64)>>>,
}

impl AppState {
    /// State from the page's URL (defaults for whatever the link lacks).
    pub fn from_location() -> AppState {
        let search = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default();
        // a `gg=` summary is checked for its form here; the local job's module reads its header
        let decoded = vram_engine::link::decode_gguf_unread(&search);
        let lang = decoded
            .page
            .lang
            .and_then(Lang::from_key)
            .unwrap_or_else(browser_lang);
        let state = AppState::for_job(decoded.scenario, lang);
        state.notices.set(decoded.notices);
        state.measured.set(decoded.page.measured);
        state.hub_endpoint.set(decoded.page.hub_endpoint);
        state
    }

    /// State for `job` in `lang`, with nothing else from a link, and the memos that derive from
    /// it.
    pub fn for_job(job: Scenario, lang: Lang) -> AppState {
        let scenario = RwSignal::new(job);
        let computed = Memo::new(move |_| scenario.with(Overview::compute));
        let growth = Memo::new(move |_| {
            computed.with(|c| {
                let arch = &c.as_ref().ok()?.arch;
                Some(scenario.with(|s| vram_engine::fit::sweep(s, arch)))
            })
        });
        AppState {
            scenario,
            lang: RwSignal::new(lang),
            notices: RwSignal::new(Vec::new()),
            measured: RwSignal::new(None),
            hub_endpoint: RwSignal::new(None),
            computed,
            growth,
        }
    }

    /// The query string of the current state.
    pub fn query(&self) -> String {
        let page = PageSettings {
            lang: Some(self.lang.get().key()),
            measured: self.measured.get(),
            hub_endpoint: self.hub_endpoint.get(),
        };
        self.scenario.with(|s| vram_engine::link::encode(s, &page))
    }

    /// The whole share link of the current state.
    pub fn share_url(&self) -> String {
        let base = web_sys::window().and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        });
        format!("{}?{}", base.unwrap_or_default(), self.query())
    }

    /// Changes the scenario in place, then lets the engine make the settings work together
    /// (the page keeps no rule of its own).
    pub fn edit(&self, f: impl FnOnce(&mut Scenario)) {
        self.scenario.update(|s| {
            f(s);
            s.normalize();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_growth_memo_follows_the_job_and_holds_the_engines_sweep_for_it() {
        let st = AppState::for_job(Scenario::default(), Lang::En);
        let before = st.growth.get_untracked().expect("the default job computes");
        st.edit(|s| s.batch *= 4);
        let s = st.scenario.get_untracked();
        let after = st
            .growth
            .get_untracked()
            .expect("four times the batch computes");
        assert_eq!(
            after,
            vram_engine::fit::sweep(&s, &s.model.architecture().unwrap())
        );
        // a larger batch needs more at every length of the sweep
        assert!(after
            .iter()
            .zip(&before)
            .all(|(a, b)| a.0 == b.0 && a.1 > b.1));
    }
}
