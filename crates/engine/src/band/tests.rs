use super::*;
use crate::GIB;

/// A table written by hand: QLoRA has 6 transformers cases at device level and 7 at any level
/// over every family; LoRA has 2 torchtune cases and 4 at any level.
const TABLE: &str = "\
# job family level cases lower upper ids
qlora hf device 6 -62 91 A,B,C,D,E,F
qlora * device 6 -62 91 A,B,C,D,E,F
qlora hf memory 6 -62 91 A,B,C,D,E,F
qlora * memory 7 -80 91 A,B,C,D,E,F,G
lora torchtune allocated 2 -30 10 H,I
lora * allocated 4 -30 40 H,I,J,K
lora * memory 4 -30 40 H,I,J,K
";

#[test]
fn a_group_with_enough_cases_gives_its_range_and_names_itself() {
    let b = band_in(
        TABLE,
        Job::Qlora,
        Some(FrameworkFamily::Transformers),
        BandLevel::Device,
    );
    assert_eq!(
        b,
        Band::Range {
            group: BandGroup {
                job: Job::Qlora,
                family: Some(FrameworkFamily::Transformers),
                level: BandLevel::Device
            },
            cases: 6,
            lower_permille: -62,
            upper_permille: 91,
        }
    );
}

#[test]
fn an_unnamed_framework_reads_the_band_over_every_family() {
    // no family: (qlora, *, device) holds 6 cases
    let b = band_in(TABLE, Job::Qlora, None, BandLevel::Device);
    assert_eq!(b.group().family, None);
    assert_eq!(b.cases(), 6);
    // a family without a row falls back to every family at the same level
    let b = band_in(
        TABLE,
        Job::Qlora,
        Some(FrameworkFamily::Unsloth),
        BandLevel::Device,
    );
    assert_eq!(b.group().family, None);
    assert_eq!(b.group().level, BandLevel::Device);
}

#[test]
fn too_few_similar_cases_give_no_band_and_say_how_many_there_were() {
    // torchtune LoRA: 2 cases at allocated, 4 over every family: both below 5
    let b = band_in(
        TABLE,
        Job::Lora,
        Some(FrameworkFamily::Torchtune),
        BandLevel::Allocated,
    );
    assert_eq!(
        b,
        Band::TooFew {
            group: BandGroup {
                job: Job::Lora,
                family: None,
                level: BandLevel::Allocated
            },
            cases: 4
        }
    );
    assert_eq!(b.bounds(10 * GIB), None);
    assert!(!b.crosses(10 * GIB, 10 * GIB));
    // a job with no case at all
    let none = band_in(
        TABLE,
        Job::Local,
        Some(FrameworkFamily::LlamaCpp),
        BandLevel::Device,
    );
    assert_eq!(none.cases(), 0);
    assert!(matches!(none, Band::TooFew { .. }));
}

#[test]
fn a_kv_pool_band_never_borrows_peak_cases() {
    // serving has no row in the table: the pool level does not fall back to `memory`
    let b = band_in(TABLE, Job::Qlora, None, BandLevel::KvPool);
    assert_eq!(b.cases(), 0);
}

#[test]
fn bounds_scale_the_estimate_by_the_lowest_and_highest_residual() {
    let b = band_in(TABLE, Job::Qlora, None, BandLevel::Device);
    // 20 GiB × 0.938 = 18.76 GiB = 20,143,396,618.24 B (floored); 20 GiB × 1.091 = 21.82 GiB
    let (low, high) = b.bounds(20 * GIB).unwrap();
    assert_eq!(low, 20 * GIB * 938 / 1000);
    assert_eq!(high, 20 * GIB * 1091 / 1000);
    assert_eq!(low, 20_143_396_618);
}

#[test]
fn a_verdict_is_borderline_only_when_its_band_holds_the_budget() {
    let b = band_in(TABLE, Job::Qlora, None, BandLevel::Device);
    let budget = 23 * GIB;
    // needs 22 GiB: runs like it landed at 20.64 … 24.00 GiB, across 23 GiB
    assert!(b.crosses(22 * GIB, budget));
    // needs 24 GiB (does not fit): the low end, 22.51 GiB, is under 23 GiB: borderline too
    assert!(b.crosses(24 * GIB, budget));
    // needs 20 GiB: at most 21.82 GiB, clear of 23 GiB
    assert!(!b.crosses(20 * GIB, budget));
    // needs 25 GiB: at least 23.45 GiB, clearly over
    assert!(!b.crosses(25 * GIB, budget));
}

#[test]
fn the_compiled_table_reads_every_line_it_holds() {
    for line in BAND_TABLE.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let r = parse_row(t).unwrap_or_else(|| panic!("unreadable band row {t:?}"));
        assert!(r.lower_permille <= r.upper_permille, "{t}");
        assert!(r.cases >= 1, "{t}");
    }
}

#[test]
fn the_default_lora_job_gets_a_band_from_the_compiled_validation_residuals() {
    // the page's opening job (Llama-3.1-8B LoRA) runs on TRL, transformers' family: its three
    // device-level LoRA cases are too few, so its LoRA cases at any peak level count (twelve)
    let s = Scenario::default();
    let b = estimate_band(&s);
    let Band::Range {
        group,
        cases,
        lower_permille,
        upper_permille,
    } = b
    else {
        panic!("{b:?}")
    };
    assert_eq!(group.job, Job::Lora);
    assert_eq!(group.family, Some(FrameworkFamily::Transformers));
    assert_eq!(group.level, BandLevel::Memory);
    assert!(cases >= MIN_BAND_CASES);
    assert!(lower_permille < 0 && upper_permille > 0, "{b:?}");
    // on Unsloth, whose LoRA runs the set does not hold, the band is every family's
    let mut unsloth = Scenario::default();
    Framework::Unsloth.apply(&mut unsloth);
    assert_eq!(family_of(&unsloth), Some(FrameworkFamily::Unsloth));
    assert_eq!(estimate_band(&unsloth).group().family, None);
    // a local llama.cpp job has no measured peak of its kind in the set
    let local = Scenario {
        job: Job::Local,
        ..Scenario::default()
    };
    assert!(matches!(estimate_band(&local), Band::TooFew { .. }));
}

#[test]
fn a_pool_is_borderline_when_its_band_holds_the_floor_it_must_reach() {
    // serving: a KV pool of 10 GiB whose measured runs landed at −29.8 % … +8.4 %
    let table = "serve vllm kv 5 -298 84 A,B,C,D,E\n";
    let b = band_in(
        table,
        Job::Serving,
        Some(FrameworkFamily::Vllm),
        BandLevel::KvPool,
    );
    assert_eq!(b.cases(), 5);
    // 10 GiB × 0.702 = 7.02 GiB … 10 GiB × 1.084 = 10.84 GiB
    assert!(
        b.straddles(10 * GIB, 8 * GIB),
        "one request of 8 GiB: may not fit"
    );
    assert!(
        b.straddles(10 * GIB, 10 * GIB + GIB / 2),
        "10.5 GiB: may fit"
    );
    assert!(
        !b.straddles(10 * GIB, 7 * GIB),
        "7 GiB is under the low end: fits"
    );
    assert!(
        !b.straddles(10 * GIB, 11 * GIB),
        "11 GiB is over the high end: does not fit"
    );
}
