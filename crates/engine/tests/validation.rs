//! The engine against measured GPU memory: the same comparison as `examples/validate.rs`
//! (which writes docs/accuracy.md), held to the targets the engine meets today.
//!
//! The cases live outside the repository, in `../shared/validation` (or `$VRAM_VALIDATION_DIR`);
//! when that folder is absent every test here says so and passes.

mod cases;

use std::sync::OnceLock;

use cases::{Group, Outcome, Report, Stats, TARGET_MEDIAN_PCT, TARGET_P90_PCT};

fn report() -> Option<&'static Report> {
    static REPORT: OnceLock<Option<Report>> = OnceLock::new();
    REPORT
        .get_or_init(|| {
            let dir = cases::validation_dir();
            if !dir.join("cases.jsonl").exists() {
                eprintln!(
                    "skipping: no validation set at {} (set VRAM_VALIDATION_DIR)",
                    dir.display()
                );
                return None;
            }
            Some(
                Report::load(&dir)
                    .unwrap_or_else(|e| panic!("the validation set does not load: {e}")),
            )
        })
        .as_ref()
}

fn stats(r: &Report, g: Option<Group>) -> Stats {
    r.stats(g)
        .unwrap_or_else(|| panic!("no counted cases for {g:?}"))
}

fn describe(r: &Report) -> String {
    let worst: Vec<String> = r
        .worst()
        .iter()
        .take(5)
        .map(|c| format!("{} {:+.1}%", c.id, c.error_pct()))
        .collect();
    format!("worst: {}", worst.join(", "))
}

#[test]
fn median_error_over_the_measured_cases_stays_within_10_percent() {
    let Some(r) = report() else { return };
    let s = stats(r, None);
    eprintln!(
        "overall: {} cases, median {:.1}%, p90 {:.1}%, worst {:.1}%",
        s.n, s.median, s.p90, s.max
    );
    assert!(
        s.median <= TARGET_MEDIAN_PCT,
        "median {:.1}% over {} cases; {}",
        s.median,
        s.n,
        describe(r)
    );
}

#[test]
fn inference_estimates_stay_within_10_percent_median_and_25_percent_p90() {
    let Some(r) = report() else { return };
    let s = stats(r, Some(Group::Inference));
    assert!(
        s.median <= TARGET_MEDIAN_PCT,
        "inference median {:.1}%",
        s.median
    );
    assert!(s.p90 <= TARGET_P90_PCT, "inference p90 {:.1}%", s.p90);
}

#[test]
fn full_fine_tune_lora_and_serving_medians_stay_within_10_percent() {
    let Some(r) = report() else { return };
    for g in [Group::Full, Group::Lora, Group::Serving] {
        let s = stats(r, Some(g));
        assert!(
            s.median <= TARGET_MEDIAN_PCT,
            "{} median {:.1}% over {} cases",
            g.label(),
            s.median,
            s.n
        );
    }
}

#[test]
fn the_90th_percentile_error_stays_within_25_percent_overall_and_for_inference_full_and_qlora() {
    let Some(r) = report() else { return };
    for g in [None, Some(Group::Full), Some(Group::Qlora)] {
        let s = stats(r, g);
        let name = g.map(|g| g.label()).unwrap_or("overall");
        assert!(
            s.p90 <= TARGET_P90_PCT,
            "{name} p90 {:.1}% over {} cases; {}",
            s.p90,
            s.n,
            describe(r)
        );
    }
}

/// Targets the engine does not meet yet: printed, not asserted, so the physics can be tuned from
/// the report (docs/accuracy.md lists the worst cases and why).
#[test]
fn targets_not_met_yet_are_reported() {
    let Some(r) = report() else { return };
    for g in Group::ALL.iter().map(|g| Some(*g)).chain([None]) {
        let s = stats(r, g);
        let name = g.map(|g| g.label()).unwrap_or("overall");
        if s.median > TARGET_MEDIAN_PCT || s.p90 > TARGET_P90_PCT {
            eprintln!("not met yet: {name}: median {:.1}% (target {TARGET_MEDIAN_PCT}%), p90 {:.1}% (target {TARGET_P90_PCT}%)", s.median, s.p90);
        }
    }
}

#[test]
fn every_case_is_compared_or_says_why_not() {
    let Some(r) = report() else { return };
    assert!(r.outcomes.len() >= 60, "{} cases", r.outcomes.len());
    for o in &r.outcomes {
        match o {
            Outcome::Compared(c) => {
                assert!(
                    c.mapped.measured > 0.0 && c.estimated.is_finite() && c.estimated > 0.0,
                    "{}: {} vs {}",
                    c.id,
                    c.estimated,
                    c.mapped.measured
                )
            }
            Outcome::NotExpressible { id, why, .. } | Outcome::Skipped { id, why, .. } => {
                assert!(!why.is_empty(), "{id} has no reason")
            }
        }
    }
    assert!(
        r.counted().count() >= 40,
        "only {} cases counted",
        r.counted().count()
    );
}

#[test]
fn mapped_shapes_reproduce_the_stated_parameter_counts() {
    let Some(r) = report() else { return };
    for c in r.compared() {
        let arch = c.mapped.scenario.model.architecture().unwrap();
        let ours = arch.params().total();
        let stated = c
            .mapped
            .stated_params
            .unwrap_or_else(|| panic!("{} states no parameter count", c.id));
        assert!(
            ours.abs_diff(stated) * 1000 <= stated,
            "{}: {ours} parameters vs {stated} stated",
            c.id
        );
        // extra_params only tops up what the shape cannot express (a pooler, token types)
        assert!(
            arch.extra_params * 100 <= ours,
            "{}: {} extra parameters",
            c.id,
            arch.extra_params
        );
    }
}

#[test]
fn lora_adapter_counts_match_the_sources_except_fused_qkv_adapters() {
    let Some(r) = report() else { return };
    let mut checked = 0;
    for c in r.counted().filter(|c| c.mapped.scenario.job.is_peft()) {
        if c.mapped.notes.iter().any(|n| n.starts_with("LoRA params")) {
            // Qwen (1) puts one adapter on the fused c_attn; the engine counts separate q, k, v adapters
            assert!(
                c.id.starts_with("QWEN-FT"),
                "{}: {:?}",
                c.id,
                c.mapped.notes
            );
        } else {
            checked += 1;
        }
    }
    assert!(
        checked >= 15,
        "only {checked} LoRA cases matched their stated adapter count"
    );
}
