//! Encoder–decoder models (T5 / Flan-T5, BART, Whisper): parameter counts from config.json,
//! the cross-attention cache, the source length, and the link form.

use crate::*;
use crate::{hub::*, link::*, memory::*, model::*};

#[track_caller]
fn config(name: &str) -> Architecture {
    let path = format!(
        "{}/tests/fixtures/encdec/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    parse_config(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

// Totals of `model.num_parameters()` for the *ForConditionalGeneration classes, as the model
// cards and the checkpoints' safetensors indexes give them (sources in docs/encdec.md).

#[test]
fn flan_t5_base_has_247_577_856_parameters() {
    assert_eq!(config("flan-t5-base").params().total(), 247_577_856);
}

#[test]
fn flan_t5_large_has_783_150_080_parameters() {
    assert_eq!(config("flan-t5-large").params().total(), 783_150_080);
}

#[test]
fn flan_t5_xl_has_2_849_757_184_parameters_with_an_untied_head() {
    let a = config("flan-t5-xl");
    assert_eq!(a.params().total(), 2_849_757_184);
    assert_eq!(a.params().head, 32_128 * 2_048);
    assert_eq!(a.mlp, MlpKind::Gated, "gated-gelu: wi_0, wi_1, wo");
}

#[test]
fn t5_base_v1_0_ties_its_head_and_has_222_903_552_parameters() {
    let a = config("t5-base");
    assert_eq!(a.params().head, 0);
    assert_eq!(a.mlp, MlpKind::Plain, "ReLU: wi, wo");
    assert_eq!(a.params().total(), 222_903_552);
}

#[test]
fn bart_large_has_406_291_456_parameters_with_learned_positions_offset_by_two() {
    let a = config("bart-large");
    assert_eq!(a.params().total(), 406_291_456);
    // 1,026 position rows in each stack
    assert_eq!(a.params().embedding, (50_265 + 2 * 1_026) * 1_024);
    assert_eq!(a.max_context, 1_024);
}

#[test]
fn whisper_large_v3_has_1_543_490_560_parameters_with_its_conv_front_end() {
    let a = config("whisper-large-v3");
    assert_eq!(a.params().total(), 1_543_490_560);
    let e = a.encoder.as_ref().unwrap();
    assert_eq!(
        (e.mel_bins, e.max_source, a.max_context),
        (128, Some(1_500), 448)
    );
}

#[test]
fn whisper_large_v2_differs_from_v3_by_its_mel_bins_and_one_token() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/encdec/whisper-large-v3.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("\"num_mel_bins\":128", "\"num_mel_bins\":80")
    .replace("\"vocab_size\":51866", "\"vocab_size\":51865");
    assert_eq!(parse_config(&text).unwrap().params().total(), 1_543_304_960);
}

#[test]
fn an_mt5_config_that_names_nothing_gets_mt5_smalls_gated_untied_300_176_768_parameters() {
    let a = parse_config(r#"{"model_type":"mt5"}"#).unwrap();
    assert_eq!((a.mlp, a.tied), (MlpKind::Gated, false));
    assert_eq!(a.params().total(), 300_176_768);
}

#[test]
fn a_serving_whisper_keeps_each_requests_1500_position_cross_attention_cache() {
    let b = estimate(&scenario(
        "?v=1&m=whisper-large-v3&j=serve&c=8&al=2000&ml=4096",
    ))
    .unwrap();
    assert_eq!(
        line_bytes(&b, Msg::CrossKv),
        8 * 1_500 * 32 * 2 * 20 * 64 * 2
    );
    // the decoder's own cache stops at its 448 positions
    assert_eq!(
        line_bytes(&b, Msg::ServingKv),
        8 * 448 * 32 * 2 * 20 * 64 * 2
    );
}

#[test]
fn an_encoder_decoder_architecture_survives_its_link_form() {
    for name in ["flan-t5-xl", "t5-base", "bart-large", "whisper-large-v3"] {
        let a = config(name);
        let text = encode_arch(&a);
        assert_eq!(decode_arch(&text).as_ref(), Ok(&a), "{name}: {text}");
    }
}

fn scenario(link: &str) -> Scenario {
    let opened = crate::link::decode(link);
    assert!(opened.notices.is_empty(), "{link}: {:?}", opened.notices);
    opened.scenario
}

#[track_caller]
fn line_bytes(b: &Breakdown, msg: Msg) -> u64 {
    b.lines
        .iter()
        .filter(|l| l.formula.clauses.first().map(|c| c.msg) == Some(msg))
        .map(|l| l.bytes)
        .sum()
}

#[test]
fn the_cross_attention_cache_is_source_tokens_times_decoder_layers_times_k_and_v() {
    let b = estimate(&scenario("?v=1&m=flan-t5-xl&j=infer&b=4&s=512&g=64")).unwrap();
    // 4 sequences × 512 source tokens × 24 decoder layers × 2 (K, V) × 32 heads × 64 × 2 B
    assert_eq!(line_bytes(&b, Msg::CrossKv), 4 * 512 * 24 * 2 * 32 * 64 * 2);
    let line = b
        .lines
        .iter()
        .find(|l| l.formula.clauses[0].msg == Msg::CrossKv);
    assert_eq!(
        line.unwrap().phase,
        Phase::Always,
        "kept for the whole generation"
    );
}

#[test]
fn the_decoders_own_cache_grows_with_generated_tokens_not_with_the_source() {
    let short = estimate(&scenario("?v=1&m=flan-t5-xl&j=infer&b=1&s=512&g=64")).unwrap();
    let long = estimate(&scenario("?v=1&m=flan-t5-xl&j=infer&b=1&s=512&g=128")).unwrap();
    let per_token = 24 * 2 * 32 * 64 * 2;
    assert_eq!(
        line_bytes(&long, Msg::GeneratedKv) - line_bytes(&short, Msg::GeneratedKv),
        64 * per_token
    );
    assert_eq!(
        line_bytes(&long, Msg::CrossKv),
        line_bytes(&short, Msg::CrossKv)
    );
}

#[test]
fn a_whisper_decoders_cache_stops_at_its_448_positions() {
    let b = estimate(&scenario("?v=1&m=whisper-large-v3&j=infer&b=2&g=5000")).unwrap();
    // 32 layers × 2 × 20 heads × 64 × 2 B per token
    assert_eq!(
        line_bytes(&b, Msg::GeneratedKv),
        2 * 448 * 32 * 2 * 20 * 64 * 2
    );
}

#[test]
fn whisper_reads_its_1500_position_window_whatever_the_source_length() {
    let short = estimate(&scenario("?v=1&m=whisper-large-v3&j=infer&b=1&s=10")).unwrap();
    let long = estimate(&scenario("?v=1&m=whisper-large-v3&j=infer&b=1&s=30000")).unwrap();
    assert_eq!(short.total, long.total);
    assert_eq!(
        line_bytes(&short, Msg::CrossKv),
        1_500 * 32 * 2 * 20 * 64 * 2
    );
}

#[test]
fn a_bart_source_is_held_to_its_1024_learned_positions() {
    let at = estimate(&scenario("?v=1&m=bart-large&j=infer&b=1&s=1024")).unwrap();
    let past = estimate(&scenario("?v=1&m=bart-large&j=infer&b=1&s=4096")).unwrap();
    assert_eq!(at.total, past.total);
}

#[test]
fn training_keeps_the_encoders_activations_over_the_source_and_the_logits_over_the_target() {
    let s = scenario("?v=1&m=flan-t5-large&j=full&b=8&s=512&tl=128&gc=none&ls=full");
    let b = estimate(&s).unwrap();
    // the loss's logits: 8 × 128 target tokens × 32,128 vocabulary × 12 B (fp32 upcast)
    assert_eq!(b.bytes(Component::Logits), 8 * 128 * 32_128 * 12);
    let encoder = line_bytes(&b, Msg::EncoderActivations);
    let longer = estimate(&scenario(
        "?v=1&m=flan-t5-large&j=full&b=8&s=1024&tl=128&gc=none&ls=full",
    ))
    .unwrap();
    assert_eq!(line_bytes(&longer, Msg::EncoderActivations), 2 * encoder);
    // the cross-attention keeps K and V of the source in each of the 24 decoder layers
    assert_eq!(
        line_bytes(&b, Msg::CrossSource),
        8 * 512 * 24 * 2 * 16 * 64 * 2
    );
}

#[test]
fn lora_on_an_encoder_decoder_adapts_both_stacks_and_the_cross_attention() {
    let s = scenario("?v=1&m=flan-t5-base&j=lora&r=8&t=q,v");
    let arch = s.model.architecture().unwrap();
    // q and v (768 → 768) in 12 encoder self-attentions, 12 decoder self- and 12 cross-attentions
    assert_eq!(lora_params(&arch, &s), 36 * 2 * 8 * (768 + 768));
}

#[test]
fn the_target_length_is_a_setting_of_encoder_decoder_training_only() {
    let tl = Setting::by_key("tl").unwrap();
    assert!((tl.applies)(&scenario("?v=1&m=flan-t5-xl&j=lora")));
    assert!(!(tl.applies)(&scenario("?v=1&m=flan-t5-xl&j=infer")));
    assert!(!(tl.applies)(&scenario("?v=1&m=llama-3.1-8b&j=lora")));
}

#[test]
fn a_link_keeps_the_target_length_and_a_custom_encoder_decoder() {
    let mut s = scenario("?v=1&m=flan-t5-xl&j=qlora&w=nf4&tl=256&s=1024");
    assert_eq!((s.target_len, s.seq), (256, 1_024));
    s.model = ModelChoice::custom("my-bart", config("bart-large"));
    let link = crate::link::encode(&s, &PageSettings::default());
    let back = scenario(&link);
    assert_eq!(back.model.architecture(), s.model.architecture());
    assert_eq!(back.target_len, 256);
    assert_eq!(estimate(&back).unwrap().total, estimate(&s).unwrap().total);
}

mod properties {
    use crate::scenario::*;
    use crate::*;
    use proptest::prelude::*;
    use proptest::sample::select;

    const MODELS: &[&str] = &[
        "flan-t5-base",
        "flan-t5-xl",
        "bart-large",
        "whisper-large-v3",
    ];
    const JOBS: &[Job] = &[
        Job::Inference,
        Job::Serving,
        Job::Full,
        Job::Lora,
        Job::Qlora,
    ];
    const CKPT: &[Checkpointing] = &[
        Checkpointing::None,
        Checkpointing::Selective,
        Checkpointing::Op,
        Checkpointing::Full,
    ];

    fn scenario(
        model: &'static str,
        job: Job,
        batch: u64,
        seq: u64,
        ckpt: Checkpointing,
    ) -> Scenario {
        let mut s = Scenario {
            model: ModelChoice::Preset(model),
            job,
            batch,
            seq,
            target_len: 64,
            checkpointing: ckpt,
            ..Scenario::default()
        };
        s.normalize();
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn an_encoder_decoder_budget_is_never_below_its_weights(
            model in select(MODELS), job in select(JOBS), batch in 1u64..16,
            seq in 1u64..8_192, ckpt in select(CKPT),
        ) {
            let b = estimate(&scenario(model, job, batch, seq, ckpt)).unwrap();
            prop_assert!(b.tensors >= b.bytes(Component::Weights));
            prop_assert!(b.total >= b.tensors);
        }

        #[test]
        fn more_source_tokens_never_lower_the_peak(
            model in select(MODELS), job in select(JOBS), batch in 1u64..16,
            seq in 1u64..8_192, more in 1u64..4_096, ckpt in select(CKPT),
        ) {
            let fewer = estimate(&scenario(model, job, batch, seq, ckpt)).unwrap();
            let longer = estimate(&scenario(model, job, batch, seq + more, ckpt)).unwrap();
            prop_assert!(longer.total >= fewer.total, "{} < {}", longer.total, fewer.total);
        }
    }
}

#[test]
fn a_servers_concurrency_counts_each_requests_cross_attention_cache() {
    let b = estimate(&scenario(
        "?v=1&m=whisper-large-v3&j=serve&c=8&al=448&ml=448",
    ))
    .unwrap();
    let fit = b.serving.unwrap();
    // 448 decoder tokens and 1,500 source positions of cache per request, same bytes per token
    assert_eq!(b.cross_kv_per_sequence, 1_500 * b.kv_bytes_per_token);
    assert_eq!(fit.max_concurrency, fit.tokens / (448 + 1_500));
}

#[test]
fn a_pipeline_puts_the_encoder_on_its_first_stage() {
    let s = scenario("?v=1&m=flan-t5-xl&j=full&b=4&s=512&tl=128&n=2&pp=2");
    let arch = s.model.architecture().unwrap();
    let stages = estimate_stages(&s, &arch).unwrap();
    let (first, last) = (&stages[0], &stages[1]);
    // 12 decoder layers each (with their cross-attention); the 24 encoder layers on the first:
    // 24 × (4 × 2048 × 2048 + 3 × 2048 × 5120)
    assert_eq!(first.params.linear - last.params.linear, 1_157_627_904);
    // the stages' parameters add up to the whole model's
    let sum: u64 = stages.iter().map(|b| b.params.total()).sum();
    assert_eq!(sum, arch.params().total());
}
