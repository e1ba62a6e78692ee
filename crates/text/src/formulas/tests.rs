use super::*;
use vram_engine::memory::Msg;
use vram_engine::{
    estimate, scenario::Attention, scenario::Checkpointing, scenario::Loss, scenario::Offload,
    scenario::Optimizer, scenario::Zero, Job, ModelChoice, Phase, Scenario, SettingKind,
    SettingValue, WeightFormat, SETTINGS,
};

/// The placeholders a sentence uses, sorted.
fn placeholders(sentence: &str) -> Vec<String> {
    let mut found: Vec<String> = sentence
        .split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(i, _)| i.to_string()))
        .collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn every_message_has_exactly_one_pair_of_sentences() {
    for msg in Msg::ALL {
        let n = sentences::SENTENCES
            .iter()
            .filter(|(m, _, _)| m == msg)
            .count();
        assert_eq!(n, 1, "{msg:?} has {n} entries");
    }
    assert_eq!(sentences::SENTENCES.len(), Msg::ALL.len());
}

#[test]
fn every_message_has_an_english_and_a_chinese_sentence_with_the_same_placeholders() {
    for msg in Msg::ALL {
        let (en, zh) = (sentence(Lang::En, *msg), sentence(Lang::Zh, *msg));
        assert!(!en.trim().is_empty() && !zh.trim().is_empty(), "{msg:?}");
        if en.chars().any(|c| c.is_ascii_alphabetic()) {
            assert_ne!(en, zh, "{msg:?} is not translated");
        }
        assert_eq!(placeholders(en), placeholders(zh), "{msg:?}");
        for p in placeholders(en) {
            assert!(p.parse::<usize>().is_ok(), "{msg:?}: {{{p}}}");
        }
    }
}

#[test]
fn every_moment_the_engine_describes_has_a_chinese_name() {
    for job in Job::ALL {
        for p in Phase::ALL {
            let m = p.describe(*job);
            assert_ne!(moment(Lang::Zh, m), moment(Lang::En, m), "{m:?}");
        }
    }
}

#[test]
fn a_formula_reads_as_the_english_it_always_did_with_sizes_in_the_scenarios_unit() {
    let s = Scenario {
        job: Job::Inference,
        ..Scenario::default()
    };
    let b = estimate(&s).unwrap();
    assert_eq!(
        formula(Lang::En, &b.lines[0].formula, Unit::Gib),
        "8,030,261,248 params × 2 B (bf16) = 14.96 GiB"
    );
    assert_eq!(
        formula(Lang::En, &b.lines[0].formula, Unit::Gb),
        "8,030,261,248 params × 2 B (bf16) = 16.06 GB"
    );
    assert_eq!(
        formula(Lang::Zh, &b.lines[0].formula, Unit::Gib),
        "8,030,261,248 参数 × 2 B（bf16） = 14.96 GiB"
    );
}

/// Names that stay as they are in Chinese text.
const KEPT: &[&str] = &[
    "Unsloth",
    "bnb_4bit_compute_dtype",
    "float32",
    "prepare_model_for_kbit_training",
    "llm_int8_skip_modules",
    "GiB",
    "GB",
    "MiB",
    "KiB",
    "bf16",
    "fp16",
    "fp32",
    "fp8",
    "int8",
    "int4",
    "LoRA",
    "ZeRO",
    "NF4",
    "GPTQ",
    "AWQ",
    "GGUF",
    "CUDA",
    "cuBLAS",
    "NCCL",
    "SDPA",
    "eager",
    "autocast",
    "zero_grad",
    "set_to_none",
    "gpu_memory_utilization",
    "V1",
    "multi",
    "tensor",
    "vLLM",
    "max_num_batched_tokens",
    "seq",
    "bits",
    "B",
    "r",
    "d_in",
    "d_out",
    "DoRA",
    "W",
    "BA",
    "softmax",
    "modules_to_save",
    "bitsandbytes",
    "token",
    "logits",
    "moments",
    "AdamW",
    "SGD",
    "Adafactor",
    "Lion",
    "q",
    "k",
    "v",
    "o",
    "gate",
    "up",
    "down",
    "embed",
    "head",
    "LLM",
    "g128",
    "Q8_0",
    "Q6_K",
    "Q5_K_M",
    "Q4_K_M",
    "Q3_K_M",
    "Q2_K",
    "e4m3",
    "DQ",
    "x",
    "A",
    "CPU",
    "GPU",
    "KV",
    "bnb",
    "micro",
    "batch",
];

/// Latin words left in a Chinese formula, beyond names that stay as they are.
fn untranslated(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.chars().any(|c| c.is_ascii_alphabetic()))
        .filter(|w| !KEPT.contains(w))
        .map(str::to_string)
        .collect()
}

#[test]
fn chinese_formulas_leave_no_english_words_for_any_job_or_switch() {
    // every job with each switch flipped, and with each other setting moved off its default
    type Vary = Box<dyn Fn(&mut Scenario)>;
    let variations: Vec<Vary> = vec![
        Box::new(|_| {}),
        Box::new(|s| s.attention = Attention::Eager),
        Box::new(|s| {
            s.gpus = 8;
            s.zero = Zero::Z3;
            s.offload = Offload::All;
        }),
        Box::new(|s| {
            s.gpus = 8;
            s.zero = Zero::Z2;
            s.offload = Offload::Optimizer;
            s.grad_accum = 4;
        }),
        Box::new(|s| {
            s.gpus = 2;
            s.tp = 2;
        }),
        Box::new(|s| {
            s.weights = WeightFormat::Fp32;
            s.master_weights = true;
        }),
        Box::new(|s| s.weights = WeightFormat::GgufQ4KM),
        Box::new(|s| s.model = ModelChoice::Preset("deepseek-v3")),
        Box::new(|s| s.model = ModelChoice::Preset("gemma-3-12b")),
        Box::new(|s| {
            s.spec = vram_engine::scenario::SpecMethod::Draft;
            s.vllm = vram_engine::scenario::VllmVersion::V1Graphs;
        }),
        Box::new(|s| s.spec = vram_engine::scenario::SpecMethod::Mtp),
    ];
    let mut scenarios = Vec::new();
    for job in Job::ALL {
        for vary in &variations {
            let mut base = Scenario {
                job: *job,
                ..Scenario::default()
            };
            if *job == Job::Qlora || *job == Job::Inference {
                base.weights = WeightFormat::Nf4;
            }
            vary(&mut base);
            for st in SETTINGS.iter().filter(|st| st.kind == SettingKind::Switch) {
                let mut s = base.clone();
                let on = st.get(&s) == SettingValue::On(true);
                st.set(&mut s, SettingValue::On(!on));
                scenarios.push(s);
            }
            for o in Optimizer::ALL {
                scenarios.push(Scenario {
                    optimizer: *o,
                    ..base.clone()
                });
            }
            for c in Checkpointing::ALL {
                scenarios.push(Scenario {
                    checkpointing: *c,
                    ..base.clone()
                });
            }
            for l in Loss::ALL {
                scenarios.push(Scenario {
                    loss: *l,
                    ..base.clone()
                });
            }
            scenarios.push(base);
        }
    }
    let mut left = std::collections::BTreeSet::new();
    for s in &scenarios {
        let Ok(b) = estimate(s) else {
            continue;
        };
        for l in &b.lines {
            let zh = formula(Lang::Zh, &l.formula, s.unit);
            let words = untranslated(&zh);
            if !words.is_empty() {
                eprintln!("{words:?} in {zh}");
            }
            for word in words {
                left.insert(word);
            }
        }
    }
    assert!(left.is_empty(), "untranslated: {left:?}");
}

#[test]
fn every_clause_the_engine_writes_fills_its_sentence_exactly_for_every_frozen_link() {
    let links = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/frozen/links.txt"
    );
    let links = std::fs::read_to_string(links).expect("the engine's frozen links");
    let mut clauses = 0;
    for link in links
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("# "))
    {
        let Ok(b) = estimate(&vram_engine::link::decode(link).scenario) else {
            continue;
        };
        for clause in b.lines.iter().flat_map(|l| &l.formula.clauses) {
            let wanted = placeholders(sentence(Lang::En, clause.msg)).len();
            assert_eq!(clause.args.len(), wanted, "{clause:?} in {link}");
            clauses += 1;
        }
    }
    assert!(clauses > 10_000, "only {clauses} clauses");
}
