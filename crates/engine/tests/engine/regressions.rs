//! Every input that once broke a reader, with what it must give now. Found by reading the code, by
//! the property tests (`tests/engine/properties.rs`) and by the fuzzer (`tests/engine/fuzz.rs`); see
//! docs/robustness.md. Add a line for each new finding.

use vram_engine::*;
use vram_engine::{hub::*, json::*, link::*, model::*, scenario::*};

#[derive(Clone, Copy, Debug)]
enum Reader {
    /// `decode_link`
    Decode,
    /// `decode_arch`
    DecodeArch,
    /// `parse_config`
    Config,
    /// `parse_json`, then `json_whole` of the value
    JsonU64,
    /// `parse_param_count`
    ParamCount,
}

#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Decoding gives exactly these notices (each named by a piece of its data).
    Notices(&'static [&'static str]),
    /// Accepted.
    Accepted,
    /// Refused, with an error whose data holds this piece.
    Refused(&'static str),
    /// A number.
    Number(Option<u64>),
}

use Expect::*;
use Reader::*;

/// (reader, input, expected, what it did before the fix)
#[rustfmt::skip]
const CASES: &[(Reader, &str, Expect, &str)] = &[
    // json::scaled rounded with `mantissa + d / 2`, which overflows for 39-digit mantissas
    (JsonU64, "300000000000000000000000000000000000000e-38", Number(Some(3)), "panicked: attempt to add with overflow"),
    (JsonU64, "340282366920938463463374607431768211455e-39", Number(Some(0)), "panicked: attempt to add with overflow"),
    (JsonU64, "170141183460469231731687303715884105728e-40", Number(Some(0)), "panicked: attempt to add with overflow"),
    (JsonU64, "15e-1", Number(Some(2)), "(half up, unchanged)"),
    (JsonU64, "14e-1", Number(Some(1)), "(unchanged)"),
    (JsonU64, "0e50", Number(Some(0)), "None: 0 x 10^50 was not a whole number"),
    (JsonU64, "0.000e400", Number(Some(0)), "None"),
    (ParamCount, "300000000000000000000000000000000000000e-38", Number(Some(3)), "panicked: attempt to add with overflow"),
    (ParamCount, " 300000000000000000000000000000000000000e-38 ", Number(Some(3)), "panicked (fuzzer's minimal input)"),
    (ParamCount, "300000000000000000000000000000000000000e-38B", Number(Some(3_000_000_000)), "(unchanged: the suffix keeps the divisor small)"),
    (Decode, "p=300000000000000000000000000000000000000e-38", Notices(&["NotAParamCount"]), "panicked (fuzzer's minimal input)"),
    (Config, r#"{"model_type":"llama","hidden_size":300000000000000000000000000000000000000e-38,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":1}"#, Accepted, "panicked (fuzzer's minimal input)"),
    // config.rs added mlp_only_layers to first_k_dense_replace without a check
    (Config, r#"{"model_type":"llama","hidden_size":1,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":1,"num_local_experts":2,"mlp_only_layers":[0],"first_k_dense_replace":18446744073709551615}"#, Accepted, "panicked: attempt to add with overflow (fuzzer's minimal input)"),
    // Architecture::validate did not bound the MLA ranks, the shared expert, norms, positions or
    // extra parameters, so the parameter count overflowed on a link's architecture
    (DecodeArch, "V100_h64_f64_L2_H4_qr11072475434399352_kvr55", Refused("setting: \"q_lora_rank\", value: 11072475434399352, min: 0, max: 65536"), "panicked: attempt to add with overflow (fuzzer's minimal input)"),
    (DecodeArch, "V100_h64_f64_L2_H4_kvr18446744073709551615", Refused("setting: \"kv_lora_rank\", value: 18446744073709551615, min: 1, max: 65536"), "panicked: attempt to add with overflow"),
    (DecodeArch, "V100_h64_f64_L2_H4_kvr8_rd18446744073709551615", Refused("qk_rope_head_dim"), "panicked: attempt to add with overflow"),
    (DecodeArch, "V100_h64_f64_L2_H4_kvr8_nd18446744073709551615", Refused("qk_nope_head_dim"), "panicked: attempt to add with overflow"),
    (DecodeArch, "V100_h64_f64_L2_H4_kvr8_vd18446744073709551615", Refused("v_head_dim"), "panicked: attempt to multiply with overflow"),
    (DecodeArch, "V100_h64_f64_L2_H4_E4_k2_ef64_sf18446744073709551615", Refused("shared_expert_intermediate_size"), "panicked: attempt to multiply with overflow"),
    (Decode, "cfg=V100_h64_f64_L2_H4_kvr18446744073709551615", Notices(&["BadArchitecture(OutOfRange { setting: \"kv_lora_rank\""]), "panicked"),
    (DecodeArch, "V100_h64_f64_L2_H4_npl99", Refused("setting: \"norms_per_layer\", value: 99, min: 0, max: 8"), "silently clamped to 8"),
    (DecodeArch, "V100_h64_f64_L2_H4_pos18446744073709551615", Refused("setting: \"position_embeddings\""), "silently clamped to 10,485,760"),
    (DecodeArch, "V100_h64_f64_L2_H4_x18446744073709551615", Refused("setting: \"extra_params\""), "silently clamped to 10T"),
    // a config.json may hold 2^28 positions (GPT-2 style), which the link clamped to 10,485,760
    (DecodeArch, "V100_h64_f64_L2_H4_pos268435456", Accepted, "accepted as 10,485,760 positions: see the GPT-2 test below"),
    // an unknown architecture field was shown raw: a newline or a terminal escape in a notice
    (DecodeArch, "\0", Refused("BadArchField(\"\\0\")"), "a NUL in the message (fuzzer)"),
    (Decode, "cfg=%7F", Notices(&["BadArchField(\"\\u{7f}\")"]), "a DEL in the notice (fuzzer's minimal input)"),
    (Decode, "cfg=p%0Bs", Notices(&["BadArchField(\"p\\u{b}s\")"]), "a vertical tab in the notice (fuzzer)"),
    (Decode, "cfg=%0A%1B[31m5", Notices(&["BadArchField(\"\\n\\u{1b}[\")"]), "a newline and an escape sequence in the notice"),
    // encode writes t= for a job without adapters; decode refused it (property test)
    (Decode, "v=1&m=llama-3.1-8b&j=infer&t=", Notices(&[]), "ignored t=\"\": not a list of LoRA targets"),
    (Decode, "t=", Notices(&["Reset { cause: NoLoraTargets, setting: \"t\" }"]), "(a notice, now from the repair)"),
    (Decode, "j=qlora&t=", Notices(&["Reset { cause: NoLoraTargets, setting: \"t\" }"]), "(a notice, now from the repair)"),
    // normalizing stopped after four repairs and reset the weights for a part's format
    (Decode, "v=1&j=qlora&w=int8&wa=int8&n=6&tp=4&pp=4&obw=1&ga=2", Notices(&["TpDoesNotDivide", "PpDoesNotDivide", "PartFormatNotForJob", "StepInBackwardAccumulates"]), "four notices, the weights reset, then no estimate: see the test below"),
    // a config error echoed the whole value: a megabyte number made a megabyte message (a
    // number past u64 is shown as the float serde_json reads)
    (Config, r#"{"hidden_size":1234567890123456789012345678901234567890123456789012345678901234567890e-3,"num_hidden_layers":2,"num_attention_heads":2,"vocab_size":10}"#, Refused("shown: \"1.2345678901234567e+66\""), "the whole number in the message"),
    // links and configs that must keep working
    (Decode, "#v=1&b=2", Notices(&[]), "(fragment links)"),
    (Decode, "?", Notices(&[]), "(empty query)"),
    (Decode, "v=2&zzz=1&b=0&%=%&&&==", Notices(&["OtherVersion", "UnknownKey(\"zzz\")", "key: \"b\"", "UnknownKey(\"%\")", "UnknownKey(\"\")"]), "(bad values, one notice each)"),
    (Config, "[]", Refused("NotAnObject"), "(unchanged)"),
    (Config, "{\"a\":\"\\ud800\"}", Refused("BadEscape"), "read as U+FFFD (serde_json refuses a lone surrogate)"),
    // the LLaVA projector doubled a text width that had not been checked yet
    (Config, "{\"model_type\":\"llava\",\"text_config\":{\"hidden_size\":18446744073709551615},\"vision_config\":{}}", Refused("hidden_size"), "panic: attempt to multiply with overflow"),
];

fn single_line(what: &str, message: &str) {
    assert!(
        !message.chars().any(char::is_control) && message.len() <= 700,
        "{what}: {message:?}"
    );
}

#[test]
fn every_input_that_once_broke_a_reader_gives_what_it_should() {
    for (i, (reader, input, expect, before)) in CASES.iter().enumerate() {
        let what = format!("case {i} {reader:?} {input:?} (before: {before})");
        let outcome = std::panic::catch_unwind(|| match (reader, expect) {
            (Decode, Notices(phrases)) => {
                let d = vram_engine::link::decode(input);
                assert_eq!(d.notices.len(), phrases.len(), "{:?}", d.notices);
                for (n, p) in d.notices.iter().zip(phrases.iter()) {
                    let n = format!("{n:?}");
                    single_line("notice", &n);
                    assert!(n.contains(p), "{n:?} does not hold {p:?}");
                }
                assert!(estimate(&d.scenario).is_ok());
            }
            (DecodeArch, Accepted) => {
                let a = decode_arch(input).unwrap();
                assert_eq!(decode_arch(&encode_arch(&a)), Ok(a));
            }
            (Config, Accepted) => {
                let a = parse_config(input).unwrap();
                assert_eq!(decode_arch(&encode_arch(&a)), Ok(a));
            }
            (DecodeArch | Config, Refused(phrase)) => {
                let e = match reader {
                    DecodeArch => decode_arch(input).unwrap_err(),
                    _ => parse_config(input).unwrap_err(),
                };
                let e = format!("{e:?}");
                single_line("error", &e);
                assert!(e.contains(phrase), "{e:?} does not hold {phrase:?}");
            }
            (JsonU64, Number(n)) => {
                assert_eq!(
                    vram_engine::json::whole(&vram_engine::json::parse(input).unwrap()),
                    *n
                );
            }
            (ParamCount, Number(n)) => {
                assert_eq!(parse_param_count(input).ok(), *n);
            }
            _ => panic!("no such check"),
        });
        if let Err(e) = outcome {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{what}: {why}");
        }
    }
}

/// The link of issue 42: four conflicts, each repaired by the one setting that causes it. Before,
/// normalizing stopped after four repairs (the optimizer step in backward with accumulation was
/// left, and the page showed "Cannot estimate"), and the attention's int8 under QLoRA reset the
/// weights, with a notice telling the QLoRA user to choose the QLoRA job.
#[test]
fn a_link_with_four_conflicts_is_repaired_whole_and_each_notice_names_its_cause() {
    use vram_text::Lang;
    let d = vram_engine::link::decode("?v=1&j=qlora&w=int8&wa=int8&n=6&tp=4&pp=4&obw=1&ga=2");
    let reset = |cause, setting| Notice::Normalized(Repair::Reset { cause, setting });
    assert_eq!(
        d.notices,
        [
            reset(EngineError::TpDoesNotDivide { gpus: 6, tp: 4 }, "tp"),
            // tp is 1 by then: 6 GPUs are still not 4 stages
            reset(
                EngineError::PpDoesNotDivide {
                    gpus: 6,
                    tp: 1,
                    pp: 4
                },
                "pp"
            ),
            reset(
                EngineError::PartFormatNotForJob {
                    job: Job::Qlora,
                    part: WeightPart::Attention,
                    format: WeightFormat::Int8,
                },
                "wa",
            ),
            reset(EngineError::StepInBackwardAccumulates { steps: 2 }, "obw"),
        ]
    );
    let english: Vec<String> = d
        .notices
        .iter()
        .map(|n| vram_text::notice(Lang::En, n))
        .collect();
    assert_eq!(
        english,
        [
            "6 GPUs cannot be split into tensor-parallel groups of 4; \"Tensor parallel\" was reset to its default (1)",
            "6 GPUs cannot be split into 4 pipeline stages of 1 tensor-parallel GPUs each; \"Pipeline stages\" was reset to its default (1)",
            "QLoRA keeps a part of the model in a format of its own only unquantized or in bitsandbytes 4-bit (NF4, FP4), so \"Attention stored as\" cannot be int8 (LLM.int8); \"Attention stored as\" was reset to its default (auto)",
            "with the optimizer step in backward each gradient is applied and freed as it is produced, so it cannot accumulate over 2 micro-batches; \"optimizer step fused into backward\" was reset to its default (off)",
        ]
    );
    // QLoRA over LLM.int8 weights stays: only the attention's own format went
    let s = &d.scenario;
    assert_eq!((s.job, s.weights), (Job::Qlora, WeightFormat::Int8));
    assert_eq!((s.gpus, s.tp, s.pp, s.grad_accum), (6, 1, 1, 2));
    assert_eq!(s.weight_parts, PartFormats::default());
    assert!(!s.optimizer_in_backward);
    assert!(estimate(s).is_ok());
}

#[test]
fn a_gpt_2_style_config_with_268_million_positions_survives_its_link() {
    let cfg = r#"{"model_type":"gpt2","vocab_size":100,"n_embd":64,"n_layer":2,"n_head":4,"n_positions":268435456}"#;
    let model = ModelChoice::from_config("long", cfg).unwrap();
    let s = Scenario {
        model,
        ..Scenario::default()
    };
    let d = vram_engine::link::decode(&vram_engine::link::encode(&s, &PageSettings::default()));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario, s);
}

#[test]
fn an_inference_scenario_without_lora_targets_survives_its_link() {
    let s = Scenario {
        job: Job::Inference,
        lora_targets: LoraTargets::empty(),
        ..Scenario::default()
    };
    let d = vram_engine::link::decode(&vram_engine::link::encode(&s, &PageSettings::default()));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario, s);
}

#[test]
fn a_megabyte_value_in_a_config_gives_a_short_error() {
    // a megabyte of digits is past a float's range: a JSON error with its place
    let digits = "9".repeat(900_000);
    let cfg = format!(r#"{{"hidden_size":{digits},"num_hidden_layers":2}}"#);
    let e = parse_config(&cfg).unwrap_err();
    assert!(
        matches!(
            e,
            EngineError::NotJson(JsonError {
                why: JsonProblem::BadNumber,
                line: 1,
                ..
            })
        ),
        "{e:?}"
    );
    // a megabyte string is shown by its first characters
    let value = format!("\"{}\"", "x".repeat(900_000));
    let cfg = format!(
        r#"{{"hidden_size":{value},"num_hidden_layers":2,"num_attention_heads":2,"vocab_size":10}}"#
    );
    match parse_config(&cfg).unwrap_err() {
        EngineError::NotAWholeNumber { field, shown } => {
            assert_eq!(field, "hidden_size");
            assert!(shown.len() < 200, "{} bytes", shown.len());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn large_inputs_are_refused_or_read_quickly() {
    let t = std::time::Instant::now();
    // deep nesting, a link of nothing but separators, a config at the size limit
    assert!(vram_engine::json::parse(&"[".repeat(1_000_000)).is_err());
    assert!(vram_engine::json::parse(&"{\"a\":".repeat(100_000)).is_err());
    let d = vram_engine::link::decode(&"&".repeat(MAX_LINK_CHARS));
    assert!(d.notices.is_empty());
    let d = vram_engine::link::decode(&"a=1&".repeat(MAX_LINK_CHARS / 4));
    assert_eq!(d.notices.len(), MAX_LINK_CHARS / 4);
    let d = vram_engine::link::decode(&"%".repeat(MAX_LINK_CHARS + 1));
    assert_eq!(d.notices.len(), 1);
    let wide = format!(
        "{{{}\"hidden_size\":64}}",
        "\"k\":[1,2,3],".repeat(MAX_CONFIG_BYTES / 14)
    );
    assert!(wide.len() <= MAX_CONFIG_BYTES);
    assert!(parse_config(&wide).is_err());
    assert!(
        t.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        t.elapsed()
    );
}
