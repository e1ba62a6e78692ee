//! The fine-tuning framework (`ft`), the longest step the data can produce (`sl`, `pad`), and the
//! QLoRA paths that move memory by gigabytes (`ku`, `c32`): each test checks the arithmetic
//! against a figure computed by hand. Llama-3.1-8B: hidden 4,096, vocab 128,256, 32 layers, an
//! untied head; embeddings and head 525,336,576 parameters each, norms 266,240, its largest
//! linear matrix (gate, up, down) 14,336 × 4,096 = 58,720,256.

use crate::{
    estimate, link::PageSettings, scenario::step_tokens, scenario::Batching, scenario::Framework,
    scenario::LengthReason, scenario::Loss, Breakdown, Component, Gpu, Job, ModelChoice, Phase,
    Scenario,
};

fn llama_8b(job: Job) -> Scenario {
    Scenario {
        model: ModelChoice::Preset("llama-3.1-8b"),
        job,
        ..Scenario::default()
    }
}

fn with_framework(mut s: Scenario, f: Framework) -> Scenario {
    f.apply(&mut s);
    s
}

fn lines(b: &Breakdown, c: Component, p: Phase) -> u64 {
    b.lines
        .iter()
        .filter(|l| l.component == c && l.phase == p)
        .map(|l| l.bytes)
        .sum()
}

#[test]
fn the_default_framework_is_trl_and_the_opening_example_fits_a_4090_with_it() {
    let s = Scenario::default();
    assert_eq!(s.framework, Framework::Trl);
    // what TRL's SFTTrainer does for LoRA: checkpointing, its chunked loss, fp32 adapters
    assert_eq!(s, with_framework(Scenario::default(), Framework::Trl));
    let b = estimate(&s).unwrap();
    assert!(
        b.total < Gpu::Rtx4090.visible_bytes(),
        "{} of {}",
        b.total,
        Gpu::Rtx4090.visible_bytes()
    );
}

#[test]
fn transformers_computes_the_full_logits_upcast_to_fp32_as_the_issue_measured() {
    let s = Scenario {
        batch: 1,
        seq: 2_048,
        ..with_framework(llama_8b(Job::Qlora), Framework::Transformers)
    };
    assert_eq!(s.loss, Loss::Full);
    let b = estimate(&s).unwrap();
    // 2,048 tokens × 128,256 vocab × 12 B = 3,152,019,456 B = 2.94 GiB
    assert_eq!(lines(&b, Component::Logits, Phase::Compute), 3_152_019_456);
}

#[test]
fn a_link_applies_the_framework_first_so_its_own_values_override_whatever_their_order() {
    for link in ["j=qlora&ls=full&ft=unsloth", "j=qlora&ft=unsloth&ls=full"] {
        let d = crate::link::decode(link);
        assert!(d.notices.is_empty(), "{:?}", d.notices);
        let s = d.scenario;
        assert_eq!(s.framework, Framework::Unsloth);
        assert_eq!(s.loss, Loss::Full, "{link}");
        // Unsloth's other defaults stand
        assert!(s.offload_activations);
        assert_eq!(s.batching, Batching::PaddingFree);
    }
}

#[test]
fn a_framework_and_a_changed_default_round_trip_through_a_link() {
    let mut s = with_framework(llama_8b(Job::Qlora), Framework::Unsloth);
    s.offload_activations = false;
    let link = crate::link::encode(&s, &PageSettings::default());
    assert!(
        link.contains("ft=unsloth") && link.contains("ao=0"),
        "{link}"
    );
    // Unsloth's loss is its default: the link does not repeat it
    assert!(!link.contains("ls="), "{link}");
    assert_eq!(crate::link::decode(&link).scenario, s);
}

#[test]
fn a_qlora_link_without_a_framework_gets_trls_bf16_adapters() {
    let s = crate::link::decode("j=qlora").scenario;
    assert_eq!(s.framework, Framework::Trl);
    assert!(!s.master_weights);
    assert!(crate::link::decode("j=lora").scenario.master_weights);
}

#[test]
fn padding_free_short_samples_budget_the_samples_not_the_cap() {
    let short = Scenario {
        batch: 4,
        seq: 2_048,
        sample_len: 512,
        batching: Batching::PaddingFree,
        ..llama_8b(Job::Qlora)
    };
    let step = step_tokens(&short);
    // 4 samples × 512 tokens flattened into one row of 2,048
    assert_eq!((step.rows, step.row_len, step.tokens()), (1, 2_048, 2_048));
    assert_eq!(step.reason, LengthReason::Flattened);
    let at_512 = Scenario {
        seq: 512,
        ..llama_8b(Job::Qlora)
    };
    let (a, b) = (estimate(&short).unwrap(), estimate(&at_512).unwrap());
    assert_eq!(a.total, b.total);
    assert!(a.total < estimate(&llama_8b(Job::Qlora)).unwrap().total);
}

#[test]
fn rows_padded_to_the_cap_or_packed_hold_the_cap_whatever_the_samples() {
    for batching in [Batching::MaxLength, Batching::Packing] {
        let s = Scenario {
            sample_len: 300,
            batching,
            ..llama_8b(Job::Lora)
        };
        let step = step_tokens(&s);
        assert_eq!((step.rows, step.row_len), (4, 2_048), "{batching:?}");
        assert_eq!(
            estimate(&s).unwrap().total,
            estimate(&llama_8b(Job::Lora)).unwrap().total
        );
    }
}

#[test]
fn rows_padded_to_the_longest_follow_the_samples_below_the_cap() {
    let s = Scenario {
        sample_len: 1_000,
        ..llama_8b(Job::Lora)
    };
    let step = step_tokens(&s);
    assert_eq!((step.rows, step.row_len), (4, 1_000));
    assert_eq!(step.reason, LengthReason::Samples);
    // a sample length past the cap is cut to the cap
    let long = Scenario {
        sample_len: 9_000,
        ..llama_8b(Job::Lora)
    };
    assert_eq!(step_tokens(&long).reason, LengthReason::Cap);
}

#[test]
fn prepare_model_for_kbit_training_upcasts_embeddings_head_and_norms_to_fp32() {
    let plain = llama_8b(Job::Qlora);
    let upcast = Scenario {
        kbit_upcast: true,
        ..plain.clone()
    };
    let (a, b) = (estimate(&plain).unwrap(), estimate(&upcast).unwrap());
    // (525,336,576 × 2 + 266,240) params × 2 B more = 2,101,878,784 B = 1.96 GiB
    assert_eq!(
        b.bytes(Component::Weights) - a.bytes(Component::Weights),
        2_101_878_784
    );
}

#[test]
fn an_fp32_compute_dtype_dequantizes_the_largest_4bit_matrix_to_fp32() {
    let plain = Scenario {
        batch: 1,
        ..llama_8b(Job::Qlora)
    };
    let fp32 = Scenario {
        compute_fp32: true,
        ..plain.clone()
    };
    let (a, b) = (estimate(&plain).unwrap(), estimate(&fp32).unwrap());
    let activations = |b: &Breakdown| lines(b, Component::Activations, Phase::Compute);
    // 58,720,256 params × 4 B = 234,881,024 B, plus the 4-bit matmuls' inputs kept in fp32
    // instead of 16-bit within the layer recomputed in backward
    assert!(activations(&b) - activations(&a) > 234_881_024);
    let dequantized = b
        .lines
        .iter()
        .filter(|l| l.component == Component::Activations && l.bytes == 234_881_024)
        .count();
    assert_eq!(dequantized, 1);
}

#[test]
fn unsloths_loss_keeps_fp32_logits_a_chunk_of_at_most_4_gib_at_a_time() {
    let s = Scenario {
        batch: 8,
        seq: 8_192,
        gpu: Gpu::H100,
        ..with_framework(llama_8b(Job::Qlora), Framework::Unsloth)
    };
    let b = estimate(&s).unwrap();
    // 65,536 tokens × 128,256 × 4 B = 33.6 GB of fp32 logits, past 4 GiB: 4 × ⌈33.6 GB / 16 GiB⌉
    // = 8 chunks of 8,192 tokens; 65,536 × 4,096 × 4 B (hidden and its gradient) = 1,073,741,824
    // + 8,192 × 128,256 × 8 B = 8,405,385,216
    assert_eq!(
        lines(&b, Component::Logits, Phase::Compute),
        1_073_741_824 + 8_405_385_216
    );
    // one short row fits its target whole (2,048 × 128,256 × 4 B = 1.0 GB, under 4 GiB and half
    // of what the H100 has free): one chunk, 2,048 × 128,256 × 8 B + 2,048 × 4,096 × 4 B
    let one = Scenario {
        batch: 1,
        seq: 2_048,
        ..s
    };
    let b = estimate(&one).unwrap();
    assert_eq!(
        lines(&b, Component::Logits, Phase::Compute),
        2_101_346_304 + 33_554_432
    );
}

#[test]
fn an_evaluation_batch_whose_full_logits_outgrow_training_sets_the_peak() {
    let s = Scenario {
        batch: 1,
        seq: 2_048,
        eval_batch: 8,
        ..with_framework(llama_8b(Job::Qlora), Framework::Transformers)
    };
    let b = estimate(&s).unwrap();
    assert_eq!(b.peak_phase, Phase::Eval);
    // 8 × 2,048 tokens × 128,256 vocab × (2 + 4 + 4) B = 21,013,463,040 B, against training's
    // 2,048 × 128,256 × 12 B = 3,152,019,456 B
    assert_eq!(lines(&b, Component::Logits, Phase::Eval), 21_013_463_040);
    assert_eq!(lines(&b, Component::Logits, Phase::Compute), 3_152_019_456);
    // no evaluation loop: training's start of backward is the peak
    let none = Scenario { eval_batch: 0, ..s };
    assert_eq!(estimate(&none).unwrap().peak_phase, Phase::Compute);
}

#[test]
fn an_unsloth_dynamic_checkpoint_keeps_the_single_layers_matrices_it_skips_16_bit() {
    let config = r#"{"quantization_config":{"quant_method":"bitsandbytes","load_in_4bit":true,
        "bnb_4bit_quant_type":"nf4","bnb_4bit_use_double_quant":true,
        "llm_int8_skip_modules":["lm_head","model.layers.0.mlp.down_proj",
        "model.layers.1.mlp.down_proj","model.layers.2.self_attn"]}}"#;
    let q = crate::hub::parse_quantization(config).unwrap().unwrap();
    let plain = llama_8b(Job::Qlora);
    let mut dynamic = plain.clone();
    dynamic.apply_quantization(&q, |_| false);
    // two down_proj (14,336 × 4,096 = 58,720,256 each) and layer 2's q, k, v, o
    // (2 × 4,096 × 4,096 + 2 × 4,096 × 1,024 = 41,943,040): 159,383,552 parameters
    assert_eq!(dynamic.kept_16bit, 159_383_552);
    let n = 159_383_552;
    let more = 2 * n - crate::WeightFormat::Nf4Dq.bits().bytes(n);
    // the head also stays 16-bit, as it already was: only the kept matrices move
    let (a, b) = (estimate(&plain).unwrap(), estimate(&dynamic).unwrap());
    assert_eq!(
        lines(&b, Component::Weights, Phase::Always) - lines(&a, Component::Weights, Phase::Always),
        more
    );
}
