//! A proptest-driven fuzzer for everything that reads untrusted text: share links
//! (`decode_link`, `decode_arch`), config.json (`parse_config`, `parse_json`) and
//! parameter counts (`parse_param_count`).
//!
//! Inputs: arbitrary strings and bytes, random JSON (huge numbers, deep nesting, unicode and
//! escapes, duplicated keys), config-shaped objects, mutated real configs from the presets,
//! mutated valid links and architecture strings. Every call must return (no panic) within
//! `MAX_CALL`, with bounded output: at most one notice per pair of a link plus a few, every
//! message one line of bounded length, and whatever is accepted must be usable (a decoded link
//! estimates; an accepted config validates, estimates and round-trips through a link).
//!
//! `FUZZ_CASES` sets the cases per target (default 2,000: about 6 s for the file in debug). A long
//! run, in release but with overflow checks so that arithmetic overflow panics as in debug:
//!
//! ```text
//! CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true CARGO_TARGET_DIR=target/fuzz FUZZ_CASES=200000 \
//!     cargo test -p vram-engine --release --test engine fuzz:: -- --nocapture
//! ```
//!
//! Each target prints its cases, calls into the engine, accepted inputs and time. A failure is
//! shrunk to a minimal input; keep it in `tests/engine/regressions.rs`.

use crate::common;

use std::cell::Cell;
use std::time::{Duration, Instant};

use common::*;
use proptest::prelude::*;
use proptest::sample::select;
use vram_engine::*;
use vram_engine::{hub::*, json::*, link::*, model::*};

/// The longest any single call may take (debug build, a busy CI machine).
const MAX_CALL: Duration = Duration::from_secs(2);
/// The longest message the engine may return for any input.
const MAX_MESSAGE: usize = 700;

thread_local! {
    /// Calls into the engine and inputs accepted, for this thread's target.
    static CALLS: Cell<u64> = const { Cell::new(0) };
    static ACCEPTED: Cell<u64> = const { Cell::new(0) };
}

fn accepted() {
    ACCEPTED.with(|a| a.set(a.get() + 1));
}

fn cases() -> u32 {
    common::fuzz_cases(2_000)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 4_096,
        ..ProptestConfig::default()
    }
}

/// Runs `f`, counting it and failing when it takes longer than `MAX_CALL`.
fn timed<R>(what: &str, input: &str, f: impl FnOnce() -> R) -> R {
    CALLS.with(|c| c.set(c.get() + 1));
    let t = Instant::now();
    let r = f();
    let took = t.elapsed();
    assert!(
        took < MAX_CALL,
        "{what} took {took:?} on {:?}",
        input.chars().take(200).collect::<String>()
    );
    r
}

fn one_bounded_line(what: &str, message: &str) {
    assert!(
        message.len() <= MAX_MESSAGE,
        "{what}: a {}-byte message: {:?}",
        message.len(),
        message.chars().take(200).collect::<String>()
    );
    assert!(
        !message.chars().any(char::is_control),
        "{what}: a control character in {message:?}"
    );
}

/// Everything a link may do: notices are bounded, and the scenario is valid, estimates, and
/// survives its own link unchanged.
fn check_decode(input: &str) {
    let d = timed("decode_link", input, || vram_engine::link::decode(input));
    if d.notices.is_empty() {
        accepted();
    }
    let pairs = input.split('&').count();
    assert!(
        d.notices.len() <= pairs + 5,
        "{} notices for {pairs} pairs: {:?}",
        d.notices.len(),
        d.notices
    );
    for n in &d.notices {
        one_bounded_line("a link notice", &format!("{n:?}"));
    }
    d.scenario
        .validate()
        .unwrap_or_else(|e| panic!("{input:?} decodes to an invalid scenario: {e}"));
    // a decoded scenario estimates, or is refused in words as beyond any hardware (> 1 EiB per GPU,
    // e.g. eager attention over millions of tokens): never any other error
    if let Err(e) = timed("estimate", input, || estimate(&d.scenario)) {
        assert_eq!(
            e,
            EngineError::BeyondHardware,
            "{input:?} decodes to a scenario without an estimate"
        );
    }
    let again = vram_engine::link::encode(&d.scenario, &d.page);
    let d2 = vram_engine::link::decode(&again);
    assert!(d2.notices.is_empty(), "{again}: {:?}", d2.notices);
    assert_eq!(d2.scenario, d.scenario, "{again}");
}

/// An architecture the engine accepted is valid, estimates and round-trips through its link form.
fn check_accepted_arch(input: &str, a: &Architecture) {
    accepted();
    a.validate()
        .unwrap_or_else(|e| panic!("{input:?} gives an invalid architecture: {e}"));
    let text = encode_arch(a);
    assert_eq!(decode_arch(&text).as_ref(), Ok(a), "{text}");
    let s = Scenario {
        model: ModelChoice::Custom {
            name: "fuzz".into(),
            arch: Box::new(a.clone()),
            source: None,
        },
        ..Scenario::default()
    };
    for job in [Job::Lora, Job::Inference] {
        let s = Scenario { job, ..s.clone() };
        timed("estimate", input, || estimate(&s))
            .unwrap_or_else(|e| panic!("{input:?}: no estimate: {e}"));
    }
}

fn check_decode_arch(input: &str) {
    match timed("decode_arch", input, || decode_arch(input)) {
        Ok(a) => check_accepted_arch(input, &a),
        Err(e) => one_bounded_line("decode_arch", &e.to_string()),
    }
}

fn check_config(input: &str) {
    match timed("parse_config", input, || parse_config(input)) {
        Ok(a) => check_accepted_arch(input, &a),
        Err(e) => one_bounded_line("parse_config", &e.to_string()),
    }
}

fn check_json(input: &str) -> Result<vram_engine::json::Value, JsonError> {
    let read = timed("parse_json", input, || vram_engine::json::parse(input));
    match &read {
        Ok(_) => accepted(),
        Err(e) => one_bounded_line("parse_json", &format!("{e:?}")),
    }
    read
}

fn check_param_count(input: &str) {
    match timed("parse_param_count", input, || parse_param_count(input)) {
        Ok(n) => {
            accepted();
            assert!((1..=1_000_000_000_000_000).contains(&n), "{input:?}: {n}")
        }
        Err(e) => one_bounded_line("parse_param_count", &e.to_string()),
    }
}

/// All five readers on one input.
fn check_all(input: &str) {
    check_decode(input);
    check_decode_arch(input);
    check_config(input);
    let _ = check_json(input);
    check_param_count(input);
}

// ---- inputs -------------------------------------------------------------------------------------

/// Pieces that have broken, or could break, a reader.
const TOKENS: &[&str] = &[
    "%",
    "%F",
    "%FF",
    "%FF%FE",
    "%C3%28",
    "%0A",
    "%00",
    "%1B[31m",
    "%25",
    "%2B",
    "%+1",
    "&",
    "=",
    "==",
    "?",
    "#",
    "+",
    "_",
    ",",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999999999999",
    "300000000000000000000000000000000000000e-38",
    "340282366920938463463374607431768211455",
    "1e999",
    "1e-400",
    "-0",
    "-1",
    "0",
    "0e50",
    "1e2147483647",
    "1e-2147483648",
    "4096.0",
    "4.096e3",
    "0.5",
    "NaN",
    "inf",
    "\u{202e}",
    "\0",
    "\u{FFFD}",
    "\u{10FFFF}",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    "\\u",
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    ":",
    "null",
    "true",
    "false",
    "7B",
    "1.5b",
    "10T",
    "m=",
    "cfg=",
    "p=",
    "t=",
    "n=4096",
    "tp=64",
    "b=1e9",
    "V",
    "h",
    "L",
    "H",
    "E",
    "kvr",
    "sf",
    "npl",
    "pos",
    "x",
];

/// How to change a string: (kind, where, what).
#[derive(Clone, Debug)]
enum Op {
    Insert(usize, String),
    Delete(usize, usize),
    Replace(usize, String),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn arb_op() -> impl Strategy<Value = Op> {
    let piece = prop_oneof![
        3 => select(TOKENS).prop_map(str::to_string),
        1 => any::<char>().prop_map(String::from),
        1 => "[a-z0-9_=&%.-]{1,8}",
    ];
    prop_oneof![
        4 => (any::<usize>(), piece.clone()).prop_map(|(i, s)| Op::Insert(i, s)),
        2 => (any::<usize>(), 1usize..16).prop_map(|(i, n)| Op::Delete(i, n)),
        3 => (any::<usize>(), piece).prop_map(|(i, s)| Op::Replace(i, s)),
        1 => (any::<usize>(), 1usize..64).prop_map(|(i, n)| Op::Duplicate(i, n)),
        1 => any::<usize>().prop_map(Op::Truncate),
    ]
}

fn mutate(text: &str, ops: &[Op]) -> String {
    let mut c: Vec<char> = text.chars().collect();
    for op in ops {
        let at = |i: usize, len: usize| i % (len + 1);
        match op {
            Op::Insert(i, s) => {
                let i = at(*i, c.len());
                c.splice(i..i, s.chars());
            }
            Op::Delete(i, n) => {
                let i = at(*i, c.len());
                let j = (i + n).min(c.len());
                c.drain(i..j);
            }
            Op::Replace(i, s) => {
                let i = at(*i, c.len());
                let j = (i + s.chars().count()).min(c.len());
                c.splice(i..j, s.chars());
            }
            Op::Duplicate(i, n) => {
                let i = at(*i, c.len());
                let j = (i + n).min(c.len());
                let part: Vec<char> = c[i..j].to_vec();
                c.splice(j..j, part);
            }
            Op::Truncate(i) => c.truncate(at(*i, c.len())),
        }
    }
    c.into_iter().collect()
}

/// JSON number texts: ordinary, huge, long, fractional, with exponents of any size.
fn arb_number() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0u64..100_000).prop_map(|n| n.to_string()),
        2 => any::<u64>().prop_map(|n| n.to_string()),
        2 => "-?(0|[1-9][0-9]{0,60})(\\.[0-9]{1,40})?([eE][-+]?[0-9]{1,12})?",
        1 => select(vec![
            "18446744073709551615", "18446744073709551616", "0e50", "1e19", "1e-400", "-0",
            "300000000000000000000000000000000000000e-38", "4096.0", "4.096e3", "0.0", "1E400",
            "340282366920938463463374607431768211456",
        ])
        .prop_map(str::to_string),
    ]
}

/// JSON string literals: any unicode (escaped by serde_json), and raw escapes incl. lone surrogates.
fn arb_json_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
        1 => "(\\\\u[0-9a-fA-F]{4}|\\\\[nrtbf/\\\\\"]|[a-z é漢😀]){0,12}".prop_map(|s| format!("\"{s}\"")),
        1 => select(vec![
            "\"\\ud800\"", "\"\\udc00\"", "\"\\ud83d\\ude00\"", "\"\\ud800\\u0041\"", "\"\\u0000\"",
            "\"sliding_attention\"", "\"full_attention\"", "\"gemma3\"", "\"llama\"",
        ])
        .prop_map(str::to_string),
    ]
}

/// Keys, drawn from a small set so that objects repeat them, many of them config fields.
fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(vec![
            "model_type", "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
            "num_attention_heads", "num_key_value_heads", "head_dim", "tie_word_embeddings",
            "max_position_embeddings", "sliding_window", "layer_types", "num_local_experts",
            "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
            "first_k_dense_replace", "mlp_only_layers", "kv_lora_rank", "q_lora_rank",
            "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "text_config", "vision_config",
            "image_size", "patch_size", "num_channels", "attention_dropout", "a", "",
        ])
        .prop_map(|k| serde_json::to_string(k).unwrap()),
        1 => arb_json_string(),
    ]
}

/// A JSON text: scalars, arrays and objects nested a few levels, keys repeated.
fn arb_json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        arb_number(),
        arb_json_string(),
    ];
    leaf.prop_recursive(6, 96, 10, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..10)
                .prop_map(|items| format!("[{}]", items.join(","))),
            (proptest::collection::vec((arb_key(), inner), 0..10), 0..5u8).prop_map(
                |(fields, repeats)| {
                    let fields: Vec<String> =
                        fields.iter().map(|(k, v)| format!("{k}:{v}")).collect();
                    // one object in five keeps its repeated keys, which the reader refuses
                    let fields = if repeats == 0 {
                        fields
                    } else {
                        first_of_each_key(fields)
                    };
                    format!("{{{}}}", fields.join(", "))
                }
            ),
        ]
    })
}

/// Object fields (`"key":value`) less those whose key an earlier one has.
fn first_of_each_key(fields: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    fields
        .into_iter()
        .filter(|f| seen.insert(f.split("\":").next().unwrap_or("").to_string()))
        .collect()
}

/// `text` inside `depth` arrays or objects.
fn nest(text: &str, depth: usize, objects: bool) -> String {
    if objects {
        format!("{}{text}{}", "{\"a\":".repeat(depth), "}".repeat(depth))
    } else {
        format!("{}{text}{}", "[".repeat(depth), "]".repeat(depth))
    }
}

/// Whole numbers at the edges: of u64, of u32, and of the engine's ranges.
const BOUNDARIES: &[&str] = &[
    "18446744073709551615",
    "18446744073709551614",
    "18446744073709551616",
    "9223372036854775808",
    "4294967296",
    "4294967295",
    "268435456",
    "268435457",
    "1048576",
    "1048577",
    "131072",
    "131073",
    "65536",
    "65537",
    "16777216",
    "16777217",
    "4096",
    "4097",
    "1024",
    "1025",
    "0",
    "1",
];

/// A value for a config field: usually a plausible size, sometimes an edge, sometimes anything.
fn arb_field_value() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (1u64..=8_192).prop_map(|n| n.to_string()),
        2 => select(BOUNDARIES).prop_map(str::to_string),
        1 => (0u64..=4).prop_map(|n| n.to_string()),
        2 => arb_number(),
        1 => select(vec![
            "null", "true", "false", "[]", "{}", "\"4096\"", "[1,2,3]",
            "[\"sliding_attention\",\"full_attention\"]", "{\"hidden_size\":64}",
        ])
        .prop_map(str::to_string),
        1 => arb_json(),
    ]
}

/// A field of a config.json with a value it could hold, from every family's code path.
fn arb_plausible_field() -> impl Strategy<Value = String> {
    let edit = config_edit().prop_map(|(k, v)| format!("\"{k}\":{v}"));
    let extra = prop_oneof![
        (1u64..=1_024).prop_map(|v| format!("\"kv_lora_rank\":{v}")),
        (0u64..=2_048).prop_map(|v| format!("\"q_lora_rank\":{v}")),
        (0u64..=128).prop_map(|v| format!("\"qk_rope_head_dim\":{v}")),
        (0u64..=256).prop_map(|v| format!("\"qk_nope_head_dim\":{v}")),
        (0u64..=256).prop_map(|v| format!("\"v_head_dim\":{v}")),
        (0u64..=4).prop_map(|v| format!("\"n_shared_experts\":{v}")),
        (0u64..=8_192).prop_map(|v| format!("\"shared_expert_intermediate_size\":{v}")),
        (0usize..=6).prop_map(|n| format!("\"mlp_only_layers\":[{}]", vec!["0"; n].join(","))),
        proptest::collection::vec(any::<bool>(), 0..12).prop_map(|t| {
            let t: Vec<&str> = t.iter().map(|s| if *s { "\"sliding_attention\"" } else { "\"full_attention\"" }).collect();
            format!("\"layer_types\":[{}]", t.join(","))
        }),
        (0u64..=8).prop_map(|v| format!("\"sliding_window_pattern\":{v}")),
        any::<bool>().prop_map(|v| format!("\"use_sliding_window\":{v}")),
        (0u64..=64).prop_map(|v| format!("\"max_window_layers\":{v}")),
        any::<bool>().prop_map(|v| format!("\"multi_query\":{v}")),
        any::<bool>().prop_map(|v| format!("\"new_decoder_architecture\":{v}")),
        any::<bool>().prop_map(|v| format!("\"parallel_attn\":{v}")),
        any::<bool>().prop_map(|v| format!("\"mlp_bias\":{v}")),
        (1u64..=64, 1u64..=4, 1u64..=4).prop_map(|(h, p, l)| format!(
            "\"vision_config\":{{\"hidden_size\":{},\"intermediate_size\":{},\"num_hidden_layers\":{l},\"image_size\":{},\"patch_size\":{p}}}",
            h * 8, h * 16, p * 8
        )),
        // Qwen2-VL / 2.5-VL towers: any field at its edge, the rest from the class defaults
        (
            select(vec!["depth", "hidden_size", "embed_dim", "intermediate_size", "mlp_ratio", "in_chans", "patch_size", "spatial_merge_size", "temporal_patch_size", "out_hidden_size"]),
            prop_oneof![Just(0u64), Just(1u64), Just(u64::MAX), 0u64..=1_000_000_000],
        )
            .prop_map(|(k, v)| format!("\"vision_config\":{{\"{k}\":{v}}}")),
    ];
    // any integer field of any family at an edge
    let edge = (
        select(vec![
            "hidden_size",
            "intermediate_size",
            "num_hidden_layers",
            "num_attention_heads",
            "num_key_value_heads",
            "head_dim",
            "vocab_size",
            "max_position_embeddings",
            "sliding_window",
            "sliding_window_pattern",
            "max_window_layers",
            "num_local_experts",
            "num_experts_per_tok",
            "moe_intermediate_size",
            "n_shared_experts",
            "shared_expert_intermediate_size",
            "first_k_dense_replace",
            "kv_lora_rank",
            "q_lora_rank",
            "qk_rope_head_dim",
            "qk_nope_head_dim",
            "v_head_dim",
        ]),
        select(BOUNDARIES),
    )
        .prop_map(|(k, v)| format!("\"{k}\":{v}"));
    prop_oneof![3 => edit, 3 => extra, 1 => edge]
}

/// An object shaped like a config.json: the required fields, mostly plausible, and a random
/// choice of the others, sometimes inside a text_config.
fn arb_config_shaped() -> impl Strategy<Value = String> {
    let model_type = select(vec![
        "llama",
        "mistral",
        "qwen2",
        "qwen2_moe",
        "qwen3",
        "qwen3_moe",
        "gemma2",
        "gemma3",
        "gemma3_text",
        "gpt2",
        "bert",
        "phi",
        "falcon",
        "mixtral",
        "deepseek_v3",
        "gpt_oss",
        "opt",
        "qwen2_vl",
        "qwen2_5_vl",
        "llava",
        "",
        "LLAMA",
    ]);
    let required = prop_oneof![
        8 => (1u64..=64, 1u64..=128, 1u64..=48, 1u64..=200_000).prop_map(|(heads, hd, layers, vocab)| {
            vec![(heads * hd).to_string(), layers.to_string(), heads.to_string(), vocab.to_string()]
        }),
        1 => proptest::collection::vec(arb_field_value(), 4),
    ];
    let field = prop_oneof![
        4 => arb_plausible_field(),
        1 => (arb_key(), arb_field_value()).prop_map(|(k, v)| format!("{k}:{v}")),
    ];
    (
        model_type,
        required,
        proptest::collection::vec(field, 0..12),
        any::<bool>(),
    )
        .prop_map(|(mt, req, optional, nested)| {
            let mut fields = Vec::new();
            for (k, v) in [
                "hidden_size",
                "num_hidden_layers",
                "num_attention_heads",
                "vocab_size",
            ]
            .iter()
            .zip(&req)
            {
                fields.push(format!("\"{k}\":{v}"));
            }
            fields.extend(optional);
            let fields = first_of_each_key(fields);
            let mt = format!("\"model_type\":\"{mt}\"");
            if nested {
                format!("{{{mt},\"text_config\":{{{}}}}}", fields.join(","))
            } else {
                format!("{{{mt},{}}}", fields.join(","))
            }
        })
}

/// A link of known keys with values that are nearly right.
fn arb_near_valid_link() -> impl Strategy<Value = String> {
    let keys = select(vec![
        "v", "m", "p", "mn", "cfg", "j", "w", "kv", "o", "gc", "at", "ls", "z", "off", "gpu",
        "unit", "mw", "ld", "mts", "dora", "obw", "ao", "qh", "a16", "ks", "kvh", "t", "lang", "b",
        "s", "g", "ga", "r", "n", "tp", "u", "bs", "ml", "al", "c", "bt", "ctx", "rsv", "zzz", "",
    ]);
    let value = prop_oneof![
        3 => (0u64..=70_000).prop_map(|n| n.to_string()),
        2 => select(TOKENS).prop_map(str::to_string),
        2 => select(vec![
            "infer", "serve", "full", "lora", "qlora", "nf4", "bf16", "FP32", "h100", "gib", "en",
            "compiled", "chunked",
            "zh", "all", "q,v", "q,,v", "embed,head", "llama-3.1-8b", "DEEPSEEK-V3", "0", "1",
            "7B", "10T", "V100_h64_f64_L2_H4", "V32000_h4096_f11008_L32_H32_kv32_hd128_tie0_ctx4096",
        ])
        .prop_map(str::to_string),
        1 => "[^&#]{0,12}",
    ];
    (
        proptest::option::of(select(vec![
            "https://x.invalid/?",
            "?",
            "#",
            "/path?q#",
            "?#",
        ])),
        proptest::collection::vec((keys, value), 0..24),
    )
        .prop_map(|(prefix, pairs)| {
            let q: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{}{}", prefix.unwrap_or(""), q.join("&"))
        })
}

const ARCH_KEYS: &[&str] = &[
    "V", "h", "f", "L", "H", "kv", "hd", "tie", "plain", "ln", "npl", "qb", "ob", "mb", "qkn",
    "sink", "hb", "pos", "ctx", "drop", "x", "E", "k", "ef", "sf", "dl", "eb", "rb", "sg", "qr",
    "kvr", "rd", "nd", "vd", "sw", "swl",
];

/// Architecture strings of known fields with values from tiny to u64::MAX.
fn arb_arch_string() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        3 => (0u64..=64).prop_map(|n| n.to_string()),
        3 => (0u64..=300_000).prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => select(vec!["18446744073709551615", "18446744073709551616", "", "-1", "1e3", "+5"])
            .prop_map(str::to_string),
    ];
    proptest::collection::vec((select(ARCH_KEYS), value), 0..40).prop_map(|parts| {
        let mut base = vec![
            "V100".to_string(),
            "h64".into(),
            "f64".into(),
            "L2".into(),
            "H4".into(),
        ];
        base.extend(parts.iter().map(|(k, v)| format!("{k}{v}")));
        base.join("_")
    })
}

/// Parameter-count texts: numbers with and without suffixes, nearly numbers, and anything.
fn arb_count_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (arb_number(), select(vec!["", "k", "K", "m", "M", "b", "B", "t", "T", "x", "é", " B", "BB"]))
            .prop_map(|(n, s)| format!("{n}{s}")),
        1 => (select(vec![" ", "", "+", "-", "\t"]), arb_number(), select(vec![" ", "", "\n"]))
            .prop_map(|(a, n, b)| format!("{a}{n}{b}")),
        1 => any::<String>(),
    ]
}

// ---- the targets ----------------------------------------------------------------------------------

/// Runs `check` on `cases()` inputs from `strategy`, shrinking any failure to a minimal input,
/// and reports the executions (every call into the engine), acceptances and time.
fn fuzz<S: Strategy>(target: &str, strategy: S, check: impl Fn(S::Value))
where
    S::Value: std::fmt::Debug,
{
    CALLS.with(|c| c.set(0));
    ACCEPTED.with(|a| a.set(0));
    let t = Instant::now();
    let mut runner = proptest::test_runner::TestRunner::new(config());
    let result = runner.run(&strategy, |v| {
        check(v);
        Ok(())
    });
    eprintln!(
        "fuzz {target}: {} cases, {} calls, {} accepted, {:.1?}",
        cases(),
        CALLS.with(Cell::get),
        ACCEPTED.with(Cell::get),
        t.elapsed()
    );
    if let Err(e) = result {
        panic!("{target}: {e}");
    }
}

#[test]
fn arbitrary_text_never_panics_or_hangs_any_reader() {
    fuzz("arbitrary text", any::<String>(), |s| check_all(&s));
}

#[test]
fn arbitrary_bytes_never_panic_or_hang_any_reader() {
    fuzz(
        "arbitrary bytes",
        proptest::collection::vec(any::<u8>(), 0..512),
        |b| check_all(&String::from_utf8_lossy(&b)),
    );
}

#[test]
fn random_json_parses_like_serde_json_and_never_breaks_the_config_reader() {
    let depth = prop_oneof![Just(0usize), 0usize..80, 60usize..300];
    fuzz(
        "random JSON",
        (arb_json(), depth, any::<bool>()),
        |(text, depth, objects)| {
            let text = nest(&text, depth, objects);
            match (
                check_json(&text),
                serde_json::from_str::<serde_json::Value>(&text),
            ) {
                // valid JSON within the depth limit reads as serde_json reads it
                (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{text}"),
                // unless a key repeats (serde_json keeps the last) or it nests too deep
                (Err(e), Ok(_)) => match e.why {
                    JsonProblem::DuplicateKey => {}
                    JsonProblem::TooDeep => {
                        assert!(depth + 6 >= vram_engine::json::MAX_DEPTH, "{text}")
                    }
                    _ => panic!("valid JSON refused ({e:?}): {text}"),
                },
                (Ok(_), Err(e)) => panic!("accepted what serde_json refuses ({e}): {text}"),
                (Err(_), Err(_)) => {}
            }
            check_config(&text);
        },
    );
}

#[test]
fn config_shaped_objects_are_read_or_refused_with_a_reason() {
    fuzz("config-shaped objects", arb_config_shaped(), |text| {
        check_config(&text)
    });
}

#[test]
fn mutated_preset_configs_are_read_or_refused_with_a_reason() {
    let strategy = (
        select(vram_engine::model::presets::all().to_vec()),
        proptest::collection::vec(arb_op(), 0..6),
        proptest::collection::vec((arb_key(), arb_field_value()), 0..4),
    );
    fuzz(
        "mutated preset configs",
        strategy,
        |(preset, ops, edits)| {
            // the edit replaces the preset's value (a repeated key would be refused)
            let mut preset: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(preset.config()).expect("preset JSON");
            let mut edited = Vec::new();
            for (k, v) in edits.into_iter().rev() {
                // a key that is no JSON string (a lone surrogate) is added as it is
                let key: String = serde_json::from_str(&k).unwrap_or_else(|_| k.clone());
                if !edited.iter().any(|(e, _)| *e == key) {
                    preset.shift_remove(&key);
                    edited.push((key, format!("{k}:{v}")));
                }
            }
            let fields = (preset.iter())
                .map(|(k, v)| format!("{}:{v}", serde_json::Value::from(k.as_str())))
                .chain(edited.into_iter().rev().map(|(_, field)| field));
            let text = format!("{{{}}}", fields.collect::<Vec<_>>().join(","));
            check_config(&mutate(&text, &ops));
        },
    );
}

#[test]
fn mutated_valid_links_decode_to_a_usable_scenario() {
    let strategy = (
        arb_scenario(),
        arb_page(),
        proptest::collection::vec(arb_op(), 0..8),
    );
    fuzz("mutated valid links", strategy, |(s, page, ops)| {
        check_decode(&mutate(&vram_engine::link::encode(&s, &page), &ops))
    });
}

#[test]
fn near_valid_links_decode_to_a_usable_scenario() {
    fuzz("near-valid links", arb_near_valid_link(), |q| {
        check_decode(&q)
    });
}

#[test]
fn architecture_strings_are_read_or_refused_with_a_reason() {
    let strategy = (
        arb_arch_string(),
        arb_arch(),
        proptest::collection::vec(arb_op(), 0..6),
    );
    fuzz("architecture strings", strategy, |(text, a, ops)| {
        check_decode_arch(&text);
        check_decode(&format!("cfg={text}"));
        check_decode_arch(&mutate(&encode_arch(&a), &ops));
    });
}

#[test]
fn parameter_counts_are_read_or_refused_with_a_reason() {
    fuzz("parameter counts", arb_count_text(), |text| {
        check_param_count(&text);
        check_decode(&format!("p={text}"));
        // a plain whole number reads as itself
        if let (true, Ok(n)) = (
            text.bytes().all(|b| b.is_ascii_digit()),
            text.parse::<u64>(),
        ) {
            if (1..=1_000_000_000_000_000).contains(&n) {
                assert_eq!(parse_param_count(&text), Ok(n));
            }
        }
    });
}
