//! Encoder–decoder models (T5 / Flan-T5, BART, Whisper): parameter counts from config.json,
//! the cross-attention cache, the source length, and the link form.

use vram_engine::*;

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
fn an_encoder_decoder_architecture_survives_its_link_form() {
    for name in ["flan-t5-xl", "t5-base", "bart-large", "whisper-large-v3"] {
        let a = config(name);
        let text = encode_arch(&a);
        assert_eq!(decode_arch(&text).as_ref(), Ok(&a), "{name}: {text}");
    }
}
