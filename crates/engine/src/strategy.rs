//! Scenarios drawn from the registry, setting by setting (the `proptest` feature): each setting
//! is left as it is or drawn within what its page control spans, so a setting added to the
//! registry is drawn by every property test with no edit to them.

use proptest::prelude::*;
use proptest::sample::select;

use crate::llamacpp::TensorShares;
use crate::scenario::{
    LoraTargets, ModelChoice, Scenario, Setting, SettingKind, SettingValue, SETTINGS,
};

/// A whole number within the slider's span: log-uniform on a log slider (powers of two on a
/// power-of-two slider, any number between them otherwise, and the span's ends), uniform on a
/// linear one.
fn number(lo: u64, hi: u64, log: bool, pow2: bool) -> BoxedStrategy<u64> {
    if !log || hi <= 1 {
        return (lo..=hi).boxed();
    }
    let top = 63 - hi.leading_zeros();
    let powers = (0..=top).prop_map(move |e| (1u64 << e).clamp(lo, hi));
    if pow2 {
        return powers.boxed();
    }
    let between = (0..=top, any::<u64>()).prop_map(move |(e, r)| {
        let base = 1u64 << e;
        (base + r % base).clamp(lo, hi)
    });
    prop_oneof![Just(lo), Just(hi), powers, between].boxed()
}

/// LoRA targets from nine bits, one per module (none among them).
fn targets() -> BoxedStrategy<LoraTargets> {
    (0u16..512)
        .prop_map(|bits| {
            LoraTargets::NAMES
                .iter()
                .enumerate()
                .fold(LoraTargets::empty(), |t, (i, n)| {
                    t.with(n, bits & (1 << i) != 0)
                })
        })
        .boxed()
}

/// A value `st` accepts, as the page's control would set it.
pub fn value(st: &'static Setting) -> BoxedStrategy<SettingValue> {
    match st.kind {
        SettingKind::Number {
            slider: (lo, hi),
            log,
            pow2,
            ..
        } => number(lo, hi, log, pow2)
            .prop_map(SettingValue::Number)
            .boxed(),
        SettingKind::Choice => select(st.keys()).prop_map(SettingValue::Choice).boxed(),
        SettingKind::Switch => any::<bool>().prop_map(SettingValue::On).boxed(),
        SettingKind::Targets => targets().prop_map(SettingValue::Targets).boxed(),
        SettingKind::Shares => select(vec!["even", "1,1", "3,1", "1,2,1", "5,3,1,1"])
            .prop_map(|t| SettingValue::Shares(TensorShares::parse(t).unwrap_or_default()))
            .boxed(),
    }
}

/// For each setting of the registry, in its order: left as it is (`None`, half the time) or a
/// value drawn by [`value`].
pub fn drawn() -> impl Strategy<Value = Vec<Option<SettingValue>>> {
    SETTINGS
        .iter()
        .map(|st| proptest::option::of(value(st)))
        .collect::<Vec<_>>()
}

/// A scenario over a drawn model: the settings [`drawn`] applied in the registry's order (the job
/// first, then the framework, whose defaults the later settings may change), then normalized, so
/// every conflict between them is repaired or named ([`Scenario::normalize`]).
pub fn scenario(model: impl Strategy<Value = ModelChoice>) -> impl Strategy<Value = Scenario> {
    (model, drawn()).prop_map(|(model, values)| {
        let mut s = Scenario {
            model,
            ..Scenario::default()
        };
        for (st, v) in SETTINGS.iter().zip(values) {
            if let Some(v) = v {
                st.set(&mut s, v);
            }
        }
        s.normalize();
        s
    })
}
