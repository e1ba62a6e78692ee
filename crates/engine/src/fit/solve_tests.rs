//! The solver's answers against the estimate, over scenarios drawn from the registry: each
//! answer fits, one step past it does not, and a limit reached is the setting's own.

use proptest::prelude::*;
use proptest::sample::select;

use super::{fits, solve, Question, Reach};
use crate::memory::estimate_with;
use crate::model::presets;
use crate::scenario::{Attention, ModelChoice, Scenario, Setting, SettingValue};

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// A preset or a bare parameter count, with every setting of the registry left as it is or
/// drawn (`crate::strategy`); eager attention's sequence held to 32,768 (its scores would pass
/// 2^64 bytes beyond), at most 64 micro-batches in a pipeline's step, and only scenarios the
/// engine estimates.
fn drawn_scenario() -> impl Strategy<Value = Scenario> {
    let ids: Vec<&'static str> = presets::all().iter().map(|p| p.id).collect();
    let model = prop_oneof![
        3 => select(ids).prop_map(ModelChoice::Preset),
        1 => (1_000_000u64..=1_000_000_000_000).prop_map(ModelChoice::Params),
    ];
    crate::strategy::scenario(model)
        .prop_map(|mut s| {
            if s.attention == Attention::Eager {
                s.seq = 1 + (s.seq - 1) % 32_768;
            }
            if s.pp > 1 {
                s.grad_accum = 1 + (s.grad_accum - 1) % 64;
            }
            s
        })
        .prop_filter("a scenario the engine estimates", |s| {
            crate::estimate(s).is_ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn every_answer_of_the_solver_fits_and_one_step_past_it_does_not(s in drawn_scenario()) {
        let arch = s.model.architecture().unwrap();
        let fits_on = |t: &Scenario| estimate_with(t, &arch, false).is_ok_and(|b| fits(t, &b, t.gpu));
        for a in solve(&s, &arch) {
            let setting = Setting::by_key(a.question.setting()).unwrap();
            let max = setting.range().map(|(_, max)| max);
            match a.reach {
                Reach::Set(v) => {
                    let t = a.apply(&s).unwrap();
                    prop_assert!(fits_on(&t), "{a:?} does not fit: {s:?}");
                    if let Some(past) = a.beyond(&s) {
                        prop_assert!(!fits_on(&past), "{a:?} but one step past fits: {s:?}");
                    }
                    let largest = !matches!(a.question, Question::FewestGpus
                        | Question::FewestGpusForRequests | Question::GradAccum | Question::Format);
                    if largest {
                        prop_assert!(a.beyond(&s).is_some(), "{a:?} at the limit is not said so");
                        prop_assert_ne!(Some(v), max.map(SettingValue::Number), "{:?}", a);
                    }
                }
                Reach::UpToLimit(n) => {
                    // a server's max_model_len stops at the model's own context
                    let limit = match a.question {
                        Question::MaxModelLen => max.map(|m| m.min(arch.max_context)),
                        _ => max,
                    };
                    prop_assert_eq!(Some(n), limit);
                    let mut t = s.clone();
                    for (key, v) in &a.with {
                        Setting::by_key(key).unwrap().set(&mut t, *v);
                    }
                    setting.set(&mut t, SettingValue::Number(n));
                    prop_assert!(fits_on(&t), "{a:?}: the limit does not fit: {s:?}");
                }
                Reach::Nothing => {}
            }
        }
    }
}
