//! Everything the page shows for one scenario: what the top of the page shows, computed in one
//! call (the breakdown, the selected GPU's fit and the same job over more GPUs), memory as the
//! sequence grows ([`sweep`], which only the growth chart shows, drawn after a step's frame),
//! and what the fit panel below it adds ([`Advice`]: the solver and the remedies), computed only
//! when that panel is built (as is the fit table's [`fit::verdicts`]).

use crate::error::EngineError;
use crate::fit::{self, Answer, Need, Remedy};
use crate::memory::{estimate_with, Breakdown};
use crate::model::Architecture;
use crate::scenario::Scenario;

/// The page's view of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Overview {
    pub arch: Architecture,
    pub breakdown: Breakdown,
    /// What the job may use of the selected GPU and needs of it: its verdict's budget and
    /// headroom, without the search over GPU counts that the fit table's verdicts make.
    pub need: Need,
    /// The same job over 1, 2, 4, 8 GPUs (and the chosen count): (GPUs, breakdown).
    pub bars: Vec<(u64, Breakdown)>,
}

/// Sequence lengths of the sweep: 128 tokens to 1M, log-spaced (27 points).
pub fn sweep_points() -> Vec<u64> {
    (0..=26)
        .map(|i| (128.0 * 2f64.powf(i as f64 * 13.0 / 26.0)).round() as u64)
        .collect()
}

impl Overview {
    pub fn compute(s: &Scenario) -> Result<Overview, EngineError> {
        let arch = s.model.architecture()?;
        let breakdown = estimate_with(s, &arch, true)?;
        let need = Need::on(s, &breakdown, s.gpu);
        let mut counts: Vec<u64> = vec![1, 2, 4, 8];
        if !counts.contains(&s.gpus) {
            // in order, without a sort (its code would be in the page for this list alone)
            counts.insert(counts.partition_point(|c| *c < s.gpus), s.gpus);
        }
        let bars = counts
            .into_iter()
            .filter_map(|n| {
                let t = if n == s.gpus {
                    s.clone()
                } else {
                    fit::spread(s, n)?
                };
                estimate_with(&t, &arch, false).ok().map(|b| (n, b))
            })
            .collect();
        Ok(Overview {
            arch,
            breakdown,
            need,
            bars,
        })
    }
}

/// Total per GPU as the sequence (or prompt, or a served request) of `s` grows over
/// [`sweep_points`], for its architecture `arch`: (tokens, bytes). Apart from [`Overview`]
/// because it is 27 estimates of the 32 an overview would make, and only the growth chart reads
/// it: a caller that does not draw that chart does not pay for it.
pub fn sweep(s: &Scenario, arch: &Architecture) -> Vec<(u64, u64)> {
    sweep_points()
        .into_iter()
        .filter_map(|len| {
            let t = s.with_swept_tokens(len);
            estimate_with(&t, arch, false).ok().map(|b| (len, b.total))
        })
        .collect()
}

/// What the fit panel shows beyond the overview: the solver's searches cost about as much as
/// the rest of the page's answer together, so the page computes them only while that panel is
/// in sight.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    /// The solver's answers for the selected GPU, in the job's order.
    pub answers: Vec<Answer>,
    /// When the job does not fit the selected GPU: single changes that make it fit, with the
    /// total per GPU each then needs.
    pub remedies: Vec<(Remedy, u64)>,
}

impl Advice {
    /// The advice for `s`, whose overview is `o`.
    pub fn compute(s: &Scenario, o: &Overview) -> Advice {
        Advice {
            answers: fit::solve(s, &o.arch),
            remedies: fit::remedies(s, &o.arch, &o.breakdown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overview_holds_the_chosen_gpu_count_among_its_bars_and_a_rising_sweep() {
        let s = Scenario {
            gpus: 16,
            zero: crate::scenario::Zero::Z3,
            ..Scenario::default()
        };
        let o = Overview::compute(&s).unwrap();
        assert!(o
            .bars
            .iter()
            .any(|(n, b)| *n == 16 && *b == estimate_with(&s, &o.arch, false).unwrap()));
        let swept = sweep(&s, &o.arch);
        assert_eq!(swept.len(), 27);
        assert!(swept.windows(2).all(|w| w[0].1 <= w[1].1));
    }

    #[test]
    fn the_overviews_need_is_the_selected_gpus_verdict_and_a_job_that_fits_it_lists_no_remedy() {
        let serving = Scenario {
            job: crate::Job::Serving,
            ..Scenario::default()
        };
        let full = Scenario {
            job: crate::Job::Full,
            gpu: crate::Gpu::H100,
            ..Scenario::default()
        };
        let mut fitting = 0;
        for s in [Scenario::default(), serving, full] {
            let o = Overview::compute(&s).unwrap();
            let a = Advice::compute(&s, &o);
            let verdicts = fit::verdicts(&s, &o.arch).unwrap();
            let v = verdicts.iter().find(|v| v.gpu == s.gpu).unwrap();
            assert_eq!(
                (o.need.budget, o.need.fits(), o.need.headroom()),
                (v.budget, v.fits, v.headroom)
            );
            // the solver's panel says "no single change" from the need: a job that fits lists none
            if o.need.fits() {
                assert!(a.remedies.is_empty(), "{:?}", a.remedies);
                fitting += 1;
            }
        }
        assert!(fitting > 0, "no job here fits: the remedy check never ran");
    }

    #[test]
    fn a_servers_sweep_follows_the_request_length_not_the_unused_sequence_setting() {
        let s = Scenario {
            job: crate::Job::Serving,
            ..Scenario::default()
        };
        let swept = sweep(&s, &s.model.architecture().unwrap());
        let (first, last) = (swept[0].1, swept[swept.len() - 1].1);
        // 16 requests of 1M tokens need far more KV cache than 16 of 128
        assert!(last > first * 10, "{first} -> {last}");
    }
}
