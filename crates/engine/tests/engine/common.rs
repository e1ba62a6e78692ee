//! Strategies shared by the property tests and the fuzzer: valid scenarios, architectures and
//! config.json texts, within ranges that keep every estimate fast and every exact byte count far
//! below 2^64 (see `SATURATED`).

#![allow(dead_code)]

use proptest::prelude::*;
use proptest::sample::select;
use vram_engine::scenario::*;
use vram_engine::*;
use vram_engine::{model::Mla, model::MlpKind, model::Moe, model::NormKind, model::WeightPart};

/// Cases per fuzz target: `FUZZ_CASES` when set (long runs), else `default`.
pub fn fuzz_cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A byte count at or above this means a product saturated: the engine's `prod` clamps at
/// u64::MAX, and the KV cache divides a (possibly clamped) bit count by 8. No real estimate
/// comes near 2 EiB per GPU.
pub const SATURATED: u64 = u64::MAX / 8;

/// Whether text shows a non-finite number as Rust writes one: the word `inf` or `NaN`.
pub fn shows_non_finite(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|w| w == "inf" || w == "NaN")
}

pub fn preset_ids() -> Vec<&'static str> {
    vram_engine::model::presets::all()
        .iter()
        .map(|p| p.id)
        .collect()
}

/// Every quantized weight format (QLoRA's bases).
pub fn quantized() -> Vec<WeightFormat> {
    WeightFormat::ALL
        .iter()
        .copied()
        .filter(|f| f.is_quantized())
        .collect()
}

/// A set of LoRA targets from the low nine bits of `bits`.
pub fn targets_from_bits(bits: u16) -> LoraTargets {
    LoraTargets::NAMES
        .iter()
        .enumerate()
        .fold(LoraTargets::empty(), |t, (i, n)| {
            t.with(n, bits & (1 << i) != 0)
        })
}

/// A name of up to 80 arbitrary characters (what `ModelChoice::from_config` keeps).
pub fn arb_name() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>(), 0..=80).prop_map(String::from_iter)
}

/// Any architecture that passes `Architecture::validate`, dense or MoE, with or without MLA and
/// sliding windows; sizes up to a few hundred billion parameters.
pub fn arb_arch() -> impl Strategy<Value = Architecture> {
    let dims = (
        1u64..=300_000,   // vocab
        1u64..=16_384,    // hidden
        1u64..=65_536,    // intermediate
        1u64..=128,       // layers
        1u64..=16,        // kv heads
        1u64..=8,         // query heads per kv head
        1u64..=256,       // head_dim
        any::<bool>(),    // tied
        1u64..=(1 << 28), // max_context
    );
    let flags = (
        any::<bool>(),
        any::<bool>(),
        0u64..=8,
        any::<[bool; 7]>(),
        prop_oneof![Just(0u64), 1u64..=4_096, 1u64..=(1 << 20)],
        prop_oneof![Just(0u64), 1u64..=1_000_000_000],
    );
    let moe = proptest::option::of((
        2u64..=256,
        1u64..=8,
        1u64..=8_192,
        prop_oneof![Just(0u64), 1u64..=16_384],
        0u64..=130,
        any::<[bool; 3]>(),
    ));
    let mla = proptest::option::of((
        0u64..=2_048,
        1u64..=1_024,
        0u64..=128,
        0u64..=256,
        0u64..=256,
    ));
    let sliding = proptest::option::of((1u64..=1_000_000, 0u64..=128));
    (dims, flags, moe, mla, sliding)
        .prop_map(|(d, f, moe, mla, sliding)| {
            let (vocab, hidden, ffn, layers, kv, group, head_dim, tied, ctx) = d;
            let mut a = Architecture::llama(vocab, hidden, ffn, layers, kv * group, kv, tied);
            a.head_dim = head_dim;
            a.max_context = ctx;
            let (plain, layer_norm, npl, b, positions, extra) = f;
            a.mlp = if plain {
                MlpKind::Plain
            } else {
                MlpKind::Gated
            };
            a.norm = if layer_norm {
                NormKind::Layer
            } else {
                NormKind::Rms
            };
            a.norms_per_layer = npl;
            [
                a.qkv_bias,
                a.out_bias,
                a.mlp_bias,
                a.qk_norm,
                a.attn_sinks,
                a.head_bias,
                a.dropout,
            ] = b;
            a.positions = positions;
            a.extra_params = extra;
            a.moe = moe.map(|(experts, k, ef, sf, dl, [eb, rb, sg])| Moe {
                experts,
                top_k: 1 + (k - 1) % experts,
                expert_ffn: ef,
                shared_ffn: sf,
                dense_layers: dl,
                expert_bias: eb,
                router_bias: rb,
                shared_gate: sg,
            });
            a.mla = mla.map(|(q, kv, rope, nope, v)| Mla {
                q_lora_rank: q,
                kv_lora_rank: kv,
                rope_dim: rope,
                nope_dim: nope,
                v_head_dim: v,
            });
            if let Some((w, l)) = sliding {
                a.sliding_window = Some(w);
                a.sliding_layers = l.min(layers);
            }
            a
        })
        .prop_filter("a valid architecture", |a| a.validate().is_ok())
}

/// Fields a config.json may carry, with values a real one could hold.
pub fn config_edit() -> impl Strategy<Value = (&'static str, serde_json::Value)> {
    use serde_json::json;
    prop_oneof![
        (1u64..=300_000).prop_map(|v| ("vocab_size", json!(v))),
        (1u64..=16_384).prop_map(|v| ("hidden_size", json!(v))),
        (1u64..=65_536).prop_map(|v| ("intermediate_size", json!(v))),
        (1u64..=128).prop_map(|v| ("num_hidden_layers", json!(v))),
        (1u64..=128).prop_map(|v| ("num_attention_heads", json!(v))),
        (1u64..=16).prop_map(|v| ("num_key_value_heads", json!(v))),
        (1u64..=512).prop_map(|v| ("head_dim", json!(v))),
        (1u64..=(1 << 28)).prop_map(|v| ("max_position_embeddings", json!(v))),
        any::<bool>().prop_map(|v| ("tie_word_embeddings", json!(v))),
        any::<bool>().prop_map(|v| ("attention_bias", json!(v))),
        (1u64..=1_000_000).prop_map(|v| ("sliding_window", json!(v))),
        (2u64..=64).prop_map(|v| ("num_local_experts", json!(v))),
        (1u64..=8).prop_map(|v| ("num_experts_per_tok", json!(v))),
        (1u64..=8_192).prop_map(|v| ("moe_intermediate_size", json!(v))),
        (0u64..=4).prop_map(|v| ("first_k_dense_replace", json!(v))),
        (0.0f64..0.5).prop_map(|v| ("attention_dropout", json!(v))),
        select(vec![
            "llama",
            "mistral",
            "qwen2",
            "qwen3",
            "gemma2",
            "gemma3_text",
            "gpt2",
            "phi",
            "falcon",
            "mixtral",
            "deepseek_v3",
            "gpt_oss",
            "bert",
        ])
        .prop_map(|v| ("model_type", json!(v))),
    ]
}

/// A preset's config.json with a few fields changed: real shapes, slightly off the catalog.
pub fn arb_config_text() -> impl Strategy<Value = String> {
    (
        select(vram_engine::model::presets::all().to_vec()),
        proptest::collection::vec(config_edit(), 0..4),
    )
        .prop_map(|(p, edits)| {
            let mut v: serde_json::Value = serde_json::from_str(p.config()).expect("preset JSON");
            let obj = v.as_object_mut().expect("an object");
            for (k, val) in edits {
                obj.insert(k.to_string(), val);
            }
            v.to_string()
        })
}

/// Any model choice: a preset, a bare parameter count (1M to 10T), a config.json or a generated shape.
pub fn arb_model() -> impl Strategy<Value = ModelChoice> {
    prop_oneof![
        6 => select(preset_ids()).prop_map(ModelChoice::Preset),
        2 => prop_oneof![
            1_000_000u64..=1_000_000_000,
            1_000_000_000u64..=100_000_000_000,
            100_000_000_000u64..=10_000_000_000_000,
        ]
        .prop_map(ModelChoice::Params),
        1 => (arb_name(), arb_config_text())
            .prop_filter_map("a config that parses", |(name, text)| {
                ModelChoice::from_config(&name, &text).ok()
            }),
        1 => (arb_name(), arb_arch()).prop_map(|(name, arch)| ModelChoice::Custom {
            name,
            arch: Box::new(arch),
            source: None,
        }),
    ]
}

/// A power of two up to 4096 GPUs, and a tensor-parallel degree (power of two, at most 64) dividing it.
pub fn arb_gpus_tp() -> impl Strategy<Value = (u64, u64)> {
    (0u32..=12).prop_flat_map(|g| (Just(1u64 << g), (0u32..=g.min(6)).prop_map(|t| 1u64 << t)))
}

/// A valid scenario: a drawn model with every setting of the registry left as it is or drawn
/// within its control's span (`vram_engine::strategy`), repaired where settings conflict; then
/// sequences up to 32,768 with eager attention (whose seq x seq scores would otherwise pass 2^64
/// bytes) and at most 64 micro-batches in a pipeline's step, and within the engine's bounds.
pub fn arb_scenario() -> impl Strategy<Value = Scenario> {
    vram_engine::strategy::scenario(arb_model()).prop_map(|mut s| {
        if s.attention == Attention::Eager {
            s.seq = 1 + (s.seq - 1) % 32_768;
        }
        // a pipeline keeps up to every micro-batch of a step in flight: at most 64
        if s.pp > 1 {
            s.grad_accum = 1 + (s.grad_accum - 1) % 64;
        }
        // the properties move a scenario between jobs and GPU counts, so what one job refuses is
        // held for all: a part keeps a format of its own only when it is QLoRA's 4-bit base (no
        // part wider than LoRA's), pipeline stages divide the GPUs, and the layout's tensor and
        // pipeline ranks (at most 512) leave room to double it within the properties' 4,096 GPUs
        for &part in WeightPart::ALL {
            if s.weight_parts
                .get(part)
                .is_some_and(|f| !Job::Qlora.allows(f))
            {
                s.weight_parts.set(part, None);
            }
        }
        if !s.gpus.is_multiple_of(s.tp * s.pp) || s.tp * s.pp > 512 {
            s.pp = 1;
        }
        s.optimizer_in_backward &= s.grad_accum == 1;
        within_bounds(s)
    })
}

/// A drawn scenario made one the engine estimates, and that still estimates with twice the
/// sequence or one more sequence in the batch: targets that adapt nothing (a gate on a plain MLP)
/// become the defaults, and a job past 1 EiB per GPU (which the engine refuses in words) is
/// halved in batch and sequence until it is well inside.
pub fn within_bounds(mut s: Scenario) -> Scenario {
    let trains_nothing = s
        .model
        .architecture()
        .is_ok_and(|a| vram_engine::memory::lora_params(&a, &s) == 0);
    if s.job.is_peft() && trains_nothing {
        s.lora_targets = vram_engine::scenario::LoraTargets::all_linear();
    }
    let beyond = |t: &Scenario| {
        let bigger = [
            Scenario {
                seq: t.seq * 2,
                ..t.clone()
            },
            Scenario {
                batch: t.batch + 1,
                ..t.clone()
            },
        ];
        std::iter::once(t).chain(bigger.iter()).any(|x| {
            vram_engine::estimate(x).is_err_and(|e| e == vram_engine::EngineError::BeyondHardware)
        })
    };
    for _ in 0..64 {
        if !beyond(&s) {
            break;
        }
        s.batch = (s.batch / 2).max(1);
        s.seq = (s.seq / 2).max(1);
        s.gen /= 2;
    }
    s
}

/// Page settings a link can carry.
pub fn arb_page() -> impl Strategy<Value = vram_engine::link::PageSettings> {
    select(vec![None, Some("en"), Some("zh")]).prop_map(|lang| vram_engine::link::PageSettings {
        lang,
        measured: None,
        hub_endpoint: None,
    })
}
