//! Extreme numbers: the largest model, context, cluster and rank the engine accepts are estimated
//! exactly; anything past them is refused with a notice or a typed error, never wrapped, clamped
//! silently or shown as inf/NaN.

use crate::common;

use common::{shows_non_finite, SATURATED};
use vram_engine::scenario::*;
use vram_engine::*;

const TEN_T: u64 = 10_000_000_000_000;

fn assert_countable(s: &Scenario) -> Breakdown {
    let b = estimate(s).unwrap_or_else(|e| panic!("{e}: {s:?}"));
    for l in &b.lines {
        assert!(
            l.bytes < SATURATED,
            "{:?} saturated ({}) for {s:?}",
            l.component,
            l.bytes
        );
        for unit in Unit::ALL {
            let shown = unit.format(l.bytes);
            assert!(!shows_non_finite(&shown), "{shown}");
        }
    }
    assert!(b.total < SATURATED && b.total >= b.tensors);
    b
}

/// The decoded link's scenario, asserting exactly the notices named (by a piece of each notice's
/// data: its kind, its key, its range).
fn decode_with(link: &str, expected: &[&str]) -> Scenario {
    let d = vram_engine::link::decode(link);
    assert_eq!(d.notices.len(), expected.len(), "{link}: {:?}", d.notices);
    for (n, word) in d.notices.iter().zip(expected) {
        let data = format!("{n:?}");
        assert!(data.contains(word), "{link}: {data} does not hold {word:?}");
    }
    assert!(d.scenario.validate().is_ok());
    d.scenario
}

#[test]
fn ten_trillion_parameters_is_the_largest_bare_count_and_one_more_is_a_typed_error() {
    let a = Architecture::from_param_count(TEN_T).unwrap();
    assert!(a.validate().is_ok());
    let n = a.params().total() as f64;
    assert!((n / TEN_T as f64 - 1.0).abs() < 0.05, "{n}");
    for bad in [TEN_T + 1, 20 * TEN_T, u64::MAX, 999_999, 0] {
        assert!(
            matches!(
                Architecture::from_param_count(bad),
                Err(EngineError::OutOfRange { .. })
            ),
            "{bad}"
        );
        assert!(ModelChoice::Params(bad).architecture().is_err());
    }
}

#[test]
fn p_10t_in_a_link_is_read_and_anything_larger_is_a_notice() {
    for ok in ["p=10T", "p=10t", "p=10000000000000", "p=1e13", "p=10.0T"] {
        let s = decode_with(ok, &[]);
        assert_eq!(s.model, ModelChoice::Params(TEN_T), "{ok}");
        assert_countable(&s);
    }
    for bad in [
        "p=10.1T",
        "p=11T",
        "p=1000T",
        "p=1e18",
        "p=1e19",
        "p=99999999999999999999999999999999999999999",
        "p=300000000000000000000000000000000000000e-38",
        "p=-7B",
        "p=0.5",
        "p=NaN",
        "p=inf",
    ] {
        let s = decode_with(bad, &["NotAParamCount"]);
        assert_eq!(s.model, Scenario::default().model, "{bad}");
    }
}

#[test]
fn a_ten_million_token_context_is_estimated_and_one_more_token_is_a_notice() {
    let s = decode_with(
        "s=10485760&g=10485760&ml=10485760&al=10485760&bt=10485760",
        &[],
    );
    for job in Job::ALL {
        let weights = if *job == Job::Qlora {
            WeightFormat::Nf4
        } else {
            WeightFormat::Bf16
        };
        for model in [
            ModelChoice::Preset("llama-3.1-8b"),
            ModelChoice::Preset("deepseek-v3"),
            ModelChoice::Params(TEN_T),
        ] {
            assert_countable(&Scenario {
                job: *job,
                weights,
                model,
                ..s.clone()
            });
        }
    }
    for key in ["s", "g", "ml", "al", "bt"] {
        let s = decode_with(&format!("{key}=10485761"), &["OutOfRange"]);
        assert_eq!(s, Scenario::default());
    }
}

#[test]
fn four_thousand_and_ninety_six_gpus_are_estimated_and_more_are_a_notice() {
    let s = decode_with("j=full&n=4096&z=3&tp=64&p=10T", &[]);
    let b = assert_countable(&s);
    assert!(b.bytes(Component::Weights) > 0);
    assert_eq!(
        decode_with(
            "n=8192",
            &["key: \"n\", value: \"8192\", why: Refused(OutOfRange { min: 1, max: 4096 })"]
        )
        .gpus,
        1
    );
    assert_eq!(decode_with("n=0", &["key: \"n\""]).gpus, 1);
    // a count the tensor-parallel degree does not divide is repaired, with a notice
    let s = decode_with("n=3000&tp=64", &["TpDoesNotDivide"]);
    assert_eq!((s.gpus, s.tp), (3000, 1));
}

#[test]
fn lora_rank_65536_is_estimated_and_more_is_a_notice() {
    for job in ["lora", "qlora"] {
        for model in ["m=llama-3.1-405b", "m=deepseek-v3", "p=10T", "m=gpt-2"] {
            let s = decode_with(
                &format!("j={job}&r=65536&t=q,k,v,o,gate,up,down,embed,head&{model}"),
                &[],
            );
            assert_eq!(s.lora_rank, 65_536);
            let b = assert_countable(&s);
            assert!(b.trainable > 0);
        }
    }
    assert_eq!(decode_with("r=65537", &["key: \"r\""]).lora_rank, 16);
    assert_eq!(decode_with("r=0", &["key: \"r\""]).lora_rank, 16);
}

#[test]
fn a_batch_of_a_billion_in_a_link_is_a_notice_and_the_largest_batch_is_estimated() {
    for bad in [
        "b=1e9",
        "b=1000000000",
        "b=18446744073709551616",
        "b=-1",
        "b=4.0",
        "b=+4",
        "b= 4",
    ] {
        let s = decode_with(bad, &["key: \"b\""]);
        assert_eq!(s.batch, Scenario::default().batch, "{bad}");
    }
    let s = decode_with("b=1048576", &[]);
    assert_eq!(s.batch, 1 << 20);
    assert_countable(&s);
    assert_countable(&Scenario {
        job: Job::Inference,
        ..s
    });
}

#[test]
fn every_setting_at_its_limit_alone_gives_an_estimate_without_saturation() {
    // each range's minimum and maximum on top of each job's defaults, with the largest models
    for st in SETTINGS {
        let Some((min, max)) = st.range() else {
            continue;
        };
        let key = &st.key;
        for v in [min, max] {
            for job in Job::ALL {
                for model in [
                    ModelChoice::Preset("llama-3.1-405b"),
                    ModelChoice::Params(TEN_T),
                ] {
                    let mut s = Scenario {
                        job: *job,
                        model,
                        weights: if *job == Job::Qlora {
                            WeightFormat::Nf4
                        } else {
                            WeightFormat::Bf16
                        },
                        ..Scenario::default()
                    };
                    st.set(&mut s, SettingValue::Number(v));
                    if key == &"n" {
                        s.tp = 1;
                    }
                    if key == &"tp" || key == &"pp" {
                        s.gpus = v;
                    }
                    assert_countable(&s);
                }
            }
        }
    }
}

#[test]
fn the_largest_byte_counts_display_as_numbers_never_inf_or_nan() {
    for bytes in [0, 1, u64::MAX / 8, u64::MAX - 1, u64::MAX] {
        for unit in Unit::ALL {
            let shown = unit.format(bytes);
            assert!(!shows_non_finite(&shown), "{shown}");
            assert!(unit.value(bytes).is_finite());
        }
    }
}

/// The settings' maxima together: batch 1M x 10M tokens on a 10T model. Either the estimate is an
/// exact count, or the engine refuses it in words (past 1 EiB per GPU): never a saturated number.
#[test]
fn the_settings_combined_maxima_are_refused_in_words_never_shown_saturated() {
    for job in Job::ALL {
        let s = Scenario {
            model: ModelChoice::Params(TEN_T),
            job: *job,
            weights: WeightFormat::Bf16,
            batch: 1 << 20,
            seq: 10_485_760,
            gen: 10_485_760,
            checkpointing: Checkpointing::None,
            ..Scenario::default()
        };
        match estimate(&s) {
            Ok(_) => {
                assert_countable(&s);
            }
            Err(e) => assert_eq!(e, EngineError::BeyondHardware),
        }
    }
}
