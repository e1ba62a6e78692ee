//! The engine against measured GPU memory: the same comparison as `examples/validate.rs`
//! (which writes docs/accuracy.md), held to the targets the engine meets today.
//!
//! The cases are carried in the repository, in `validation/` (its README describes the format and
//! the source of each case); `$VRAM_VALIDATION_DIR` points the same tests at another folder of cases
//! in the same format. A missing or unreadable set fails every test here, naming the folder: nothing
//! passes without data.

use vram_test_support::cases;

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;

use cases::{Group, Outcome, Report, Stats, DIR_VAR, TARGET_MEDIAN_PCT, TARGET_P90_PCT};

/// How many cases the repository's `validation/` holds: a removed or truncated file changes it.
const IN_REPO_CASES: usize = 115;

/// The bound every task's 90th percentile stays within today, the two that miss the 25 % target
/// included (serving 36.5 %, LoRA 33.0 %): a regression past it fails.
const TASK_P90_BOUND_PCT: f64 = 40.0;

fn report() -> &'static Report {
    static REPORT: OnceLock<Report> = OnceLock::new();
    REPORT.get_or_init(|| {
        let dir = cases::validation_dir();
        Report::load(&dir).unwrap_or_else(|e| panic!("{}", missing_set(&dir, &e)))
    })
}

fn missing_set(dir: &Path, error: &str) -> String {
    format!(
        "the validation set in {} does not load ({error}); it should be the repository's validation/ \
         folder, or the folder {DIR_VAR} names, holding cases.jsonl and normalized.jsonl",
        dir.display()
    )
}

fn read(dir: &Path, file: &str) -> Vec<Value> {
    cases::read_jsonl(&dir.join(file)).unwrap_or_else(|e| panic!("{}", missing_set(dir, &e)))
}

fn ids(lines: &[Value]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| l.get("id").and_then(Value::as_str).unwrap_or(""))
        .collect()
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
    let r = report();
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
    let s = stats(report(), Some(Group::Inference));
    assert!(
        s.median <= TARGET_MEDIAN_PCT,
        "inference median {:.1}%",
        s.median
    );
    assert!(s.p90 <= TARGET_P90_PCT, "inference p90 {:.1}%", s.p90);
}

#[test]
fn full_fine_tune_lora_and_serving_medians_stay_within_10_percent() {
    let r = report();
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
    let r = report();
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

/// Serving and LoRA miss the 25 % p90 target today (docs/accuracy.md lists the worst cases and
/// why); every task still reports its figures and none may drift past the bound it holds today.
#[test]
fn every_task_reports_its_median_and_p90_and_no_task_p90_exceeds_40_percent() {
    let r = report();
    for g in Group::ALL.iter().map(|g| Some(*g)).chain([None]) {
        let s = stats(r, g);
        let name = g.map(|g| g.label()).unwrap_or("overall");
        eprintln!(
            "{name}: {} cases, median {:.1}% (target {TARGET_MEDIAN_PCT}%), p90 {:.1}% (target {TARGET_P90_PCT}%)",
            s.n, s.median, s.p90
        );
        assert!(
            s.median.is_finite() && s.p90.is_finite() && s.median <= s.p90,
            "{name}: median {} and p90 {}",
            s.median,
            s.p90
        );
        assert!(
            s.p90 <= TASK_P90_BOUND_PCT,
            "{name} p90 {:.1}% over {} cases is past {TASK_P90_BOUND_PCT}%; {}",
            s.p90,
            s.n,
            describe(r)
        );
    }
}

#[test]
fn the_in_repo_set_holds_all_115_cases_once_in_both_files() {
    let dir = cases::in_repo_validation_dir();
    let sources = read(&dir, "cases.jsonl");
    let normalized = read(&dir, "normalized.jsonl");
    for (file, lines) in [("cases.jsonl", &sources), ("normalized.jsonl", &normalized)] {
        assert_eq!(
            lines.len(),
            IN_REPO_CASES,
            "validation/{file} holds {} cases, not {IN_REPO_CASES}: a case was removed or the file cut short \
             (adding one? update IN_REPO_CASES and the table in validation/README.md)",
            lines.len()
        );
        let unique: HashSet<&str> = ids(lines).into_iter().collect();
        assert_eq!(unique.len(), lines.len(), "validation/{file} repeats an id");
        assert!(
            !unique.contains(""),
            "validation/{file} has a case without an id"
        );
    }
    let (mut a, mut b) = (ids(&sources), ids(&normalized));
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(
        a, b,
        "cases.jsonl and normalized.jsonl hold different cases"
    );
}

#[test]
fn every_case_names_its_source_what_was_measured_and_the_unit() {
    let dir = cases::validation_dir();
    for case in read(&dir, "cases.jsonl") {
        let id = case.get("id").and_then(Value::as_str).unwrap_or("?");
        for key in ["source", "measurement", "unit", "task", "completeness"] {
            let text = case.get(key).and_then(Value::as_str).unwrap_or("");
            assert!(!text.trim().is_empty(), "{id} has no {key}");
        }
        assert!(
            case.get("value").is_some_and(|v| !v.is_null()),
            "{id} has no value"
        );
    }
}

#[test]
fn the_validation_readme_lists_every_in_repo_case() {
    let dir = cases::in_repo_validation_dir();
    let readme = std::fs::read_to_string(dir.join("README.md"))
        .unwrap_or_else(|e| panic!("{}", missing_set(&dir, &e.to_string())));
    for case in read(&dir, "cases.jsonl") {
        let id = case.get("id").and_then(Value::as_str).unwrap_or("?");
        assert!(
            readme.contains(&format!("| {id} |")),
            "validation/README.md does not list {id} in its table of cases"
        );
    }
}

#[test]
fn every_case_is_compared_or_says_why_not() {
    let r = report();
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
    for c in report().compared() {
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
    let mut checked = 0;
    for c in report()
        .counted()
        .filter(|c| c.mapped.scenario.job.is_peft())
    {
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

#[test]
fn docs_accuracy_md_is_exactly_what_make_validate_writes() {
    let dir = cases::in_repo_validation_dir();
    let report = Report::load(&dir).expect("the in-repo validation set loads");
    let cpu = cases::cpu::cpu_section(&cases::cpu::measure_dir()).expect("docs/measure reads");
    let llama = cases::llamacpp::section(&dir).expect("validation/llamacpp.jsonl reads");
    let written = report.markdown(cases::cpu::COMMAND, &format!("{llama}{cpu}"));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/accuracy.md");
    let on_disk = std::fs::read_to_string(&path).expect("docs/accuracy.md");
    assert!(
        written == on_disk,
        "docs/accuracy.md is not what `make validate` writes from validation/ and docs/measure/: run make validate"
    );
}

#[test]
fn the_compiled_error_bands_are_what_the_validation_set_gives() {
    let dir = cases::in_repo_validation_dir();
    let report = Report::load(&dir).expect("the in-repo validation set loads");
    assert!(
        report.band_table() == compiled_bands(),
        "crates/engine/src/band/table.txt is stale: run `cargo run -p vram-engine --example validate -- \
         --write-bands crates/engine/src/band/table.txt`"
    );
}

/// The error bands the engine compiles in (`include_str!` of this file).
fn compiled_bands() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/band/table.txt");
    std::fs::read_to_string(path).expect("crates/engine/src/band/table.txt")
}

/// A Llama-2-7B shape in `normalized.jsonl`'s fields, for mapping tests.
fn llama2_7b(extra: Value) -> Value {
    let mut n = serde_json::json!({
        "id": "T", "P": 6_738_415_616u64, "L": 32, "h": 4096, "H": 32, "KV": 32, "hd": 128,
        "f": 11008, "V": 32000, "tied": false, "wfmt": "bf16", "kind": "train", "mode": "lora",
        "gpus": 1, "par": "single", "batch": 1, "seq": 512, "level": "allocator", "measured": 10.0
    });
    for (k, v) in extra.as_object().unwrap() {
        n[k] = v.clone();
    }
    n
}

fn case(extra: Value) -> Value {
    let mut c = serde_json::json!({"id": "T", "task": "LoRA", "model": "Llama-2-7b",
        "completeness": "complete", "framework": "transformers Trainer"});
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

#[test]
fn a_case_is_run_on_the_catalog_gpu_it_names() {
    use vram_engine::Gpu;
    for (named, gpu) in [
        ("Tesla T4", Gpu::T4),
        ("NVIDIA L4 (24 GB)", Gpu::L4),
        ("A10G", Gpu::A10),
        ("A100-SXM4-40GB", Gpu::A100_40),
        ("A100 80GB PCIe", Gpu::A100_80),
        ("8x A100", Gpu::A100_80),
        ("RTX 4090 D", Gpu::Rtx4090D),
        ("GeForce RTX 4090", Gpu::Rtx4090),
        ("H100 NVL", Gpu::H100Nvl),
        ("H100 SXM 96GB HBM2e", Gpu::H100),
        ("L40S 48GB", Gpu::L40S),
    ] {
        let c = case(serde_json::json!({ "gpu": named }));
        let (m, _) = cases::map_case(&c, &llama2_7b(serde_json::json!({}))).unwrap();
        assert_eq!(m.scenario.gpu, gpu, "{named}");
    }
    // a card the catalog does not hold is read as an H100, and the case says so
    let c = case(serde_json::json!({ "gpu": "2 GPUs" }));
    let (m, _) = cases::map_case(&c, &llama2_7b(serde_json::json!({}))).unwrap();
    assert_eq!(m.scenario.gpu, Gpu::H100);
    assert!(m.notes.iter().any(|n| n.contains("no catalog GPU")));
}

#[test]
fn ddp_layout_words_and_a_device_level_load_are_read_as_the_sources_write_them() {
    use vram_engine::scenario::DpFramework;
    let ddp = case(serde_json::json!({ "framework": "torchrun, DistributedDataParallel" }));
    let (m, _) = cases::map_case(
        &ddp,
        &llama2_7b(serde_json::json!({"gpus": 4, "par": "ddp"})),
    )
    .unwrap();
    assert_eq!(m.scenario.dp_framework, DpFramework::Ddp);
    assert_eq!(m.scenario.gpus, 4);

    // "FSDP 2 x TP=4 with sequence parallelism": 8 GPUs, tensor parallel 4, SP on
    let layout = llama2_7b(serde_json::json!({
        "mode": "full", "gpus": 8, "par": "fsdp",
        "strategy": "FSDP 2 x TP=4 with sequence parallelism"
    }));
    let (m, _) = cases::map_case(&case(serde_json::json!({})), &layout).unwrap();
    assert_eq!((m.scenario.tp, m.scenario.pp), (4, 1));
    assert!(m.scenario.sequence_parallel);

    // context and expert parallelism, as the sources write them, are not expressible
    for strategy in ["FSDP 8 x CP=2", "ring attention over 4 GPUs", "TP 2, EP 4"] {
        let n = llama2_7b(
            serde_json::json!({"mode": "full", "gpus": 8, "par": "fsdp", "strategy": strategy}),
        );
        let (_, why) = cases::map_case(&case(serde_json::json!({})), &n).unwrap();
        assert!(why.is_some(), "{strategy}");
    }

    // nvidia-smi right after loading: weights and the CUDA context (1024 MiB by default)
    let load =
        llama2_7b(serde_json::json!({"kind": "weights_only", "mode": "full", "level": "device"}));
    let c = case(serde_json::json!({"task": "model load only"}));
    let (m, _) = cases::map_case(&c, &load).unwrap();
    assert_eq!(m.measure, cases::Measure::LoadDevice);
    let (est, _, b) = cases::engine_figure(&m).unwrap();
    let weights =
        b.bytes(vram_engine::Component::Weights) + b.bytes(vram_engine::Component::Adapter);
    let expected = (weights + (1024 << 20)) as f64 / vram_engine::GIB as f64;
    assert!((est - expected).abs() < 1e-9, "{est} vs {expected}");
}

#[test]
fn a_case_marked_not_expressible_or_skipped_is_not_counted() {
    let r = report();
    for o in &r.outcomes {
        if let Outcome::Compared(c) = o {
            let n = cases::read_jsonl(&cases::validation_dir().join("normalized.jsonl"))
                .unwrap()
                .into_iter()
                .find(|n| n["id"] == c.id.as_str())
                .unwrap();
            let skip = n["skip"].as_str().unwrap_or("");
            assert!(
                skip.is_empty() || skip == "completeness partial",
                "{} is marked skip {skip:?} but was compared",
                c.id
            );
        }
    }
}

#[test]
fn a_case_counts_in_the_framework_family_its_program_belongs_to() {
    use vram_engine::fit::FrameworkFamily as F;
    for (framework, family) in [
        (
            "fms-hf-tuning 2.5.0 sft_trainer (HF Trainer + TRL 0.13.0 SFTTrainer)",
            F::Transformers,
        ),
        ("axolotl 0.6, DeepSpeed ZeRO-2", F::Transformers),
        (
            "LLaMA-Factory 0.9.1 (llamafactory-cli train)",
            F::Transformers,
        ),
        (
            "Unsloth notebook (Unsloth 2024.8): FastLanguageModel + TRL SFTTrainer",
            F::Unsloth,
        ),
        (
            "torchtune, recipe lora_finetune_single_device",
            F::Torchtune,
        ),
        ("lit-gpt finetune/lora.py (Fabric)", F::Litgpt),
        ("vLLM ~0.6.5 (V0 engine)", F::Vllm),
        ("openai-whisper", F::Other),
    ] {
        let c = serde_json::json!({ "framework": framework, "task": "LoRA" });
        assert_eq!(cases::framework_family(&c), family, "{framework}");
    }
}
