//! Hybrid models (Qwen3-Next, Nemotron-H, Granite 4.0-H, Jamba, LFM2): parameter counts from
//! their config.json (sources in tests/fixtures/hybrid/README.md), the recurrent state per
//! sequence, and how each runtime holds it.

use vram_engine::*;

#[track_caller]
fn config(name: &str) -> Architecture {
    let path = format!(
        "{}/tests/fixtures/hybrid/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    parse_config(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn qwen3_next_80b_a3b_has_79_674_391_296_parameters_in_36_delta_net_and_12_gated_attention_layers()
{
    let a = config("qwen3-next-80b-a3b");
    assert_eq!((a.recurrent_layers(), a.attention_layers()), (36, 12));
    // embeddings and head: 2 × 151,936 × 2,048 = 622,329,856
    // experts per layer: 512 × 3 × 2,048 × 512 + router 512 × 2,048 + shared 3 × 2,048 × 512
    //   + its gate 2,048 = 1,614,809,088; × 48 = 77,510,836,224
    // Gated DeltaNet (key 16 × 128 = 2,048, value 32 × 128 = 4,096): in_proj_qkvz 2,048 × 12,288
    //   + in_proj_ba 2,048 × 64 + out_proj 4,096 × 2,048 + conv 8,192 × 4 + dt_bias, A_log 64
    //   + norm 128 = 33,718,464; × 36 = 1,213,864,704
    // gated attention: q 2,048 × 8,192 + k, v 2,048 × 512 + o 4,096 × 2,048 + q, k norms 512
    //   = 27,263,488; × 12 = 327,161,856
    // norms: 48 × 2 × 2,048 + 2,048 = 198,656
    assert_eq!(a.params().total(), 79_674_391_296);
}

#[test]
fn nemotron_nano_9b_v2_reads_its_pattern_into_27_mamba_4_attention_and_25_mlp_layers() {
    let a = config("nemotron-nano-9b-v2");
    assert_eq!(
        (a.recurrent_layers(), a.attention_layers(), a.ffn_layers()),
        (27, 4, 25)
    );
    // Mamba-2 (128 heads × 80 = 10,240 inner, conv 10,240 + 2 × 8 × 128 = 12,288 channels):
    //   in_proj 4,480 × (10,240 + 12,288 + 128) + out_proj 10,240 × 4,480 + conv 12,288 × 5
    //   + 3 × 128 + norm 10,240 = 147,446,144; × 27 = 3,981,045,888
    // attention: 4,480 × 5,120 × 2 + 4,480 × 1,024 × 2 = 55,050,240; × 4 = 220,200,960
    // MLP (up, down): 2 × 4,480 × 15,680 = 140,492,800; × 25 = 3,512,320,000
    // embeddings and head 2 × 131,072 × 4,480 = 1,174,405,120; norms 56 × 4,480 + 4,480
    let total = 3_981_045_888 + 220_200_960 + 3_512_320_000 + 1_174_405_120 + 57 * 4_480;
    assert_eq!(a.params().total(), total);
    assert_eq!(total, 8_888_227_328);
}

#[test]
fn granite_4_0_h_tiny_has_6_939_037_248_parameters_and_a_shared_mlp_in_every_layer() {
    let a = config("granite-4.0-h-tiny");
    assert_eq!((a.recurrent_layers(), a.attention_layers()), (36, 4));
    // experts 64 × 3 × 1,536 × 512 + router 64 × 1,536 + shared 3 × 1,536 × 1,024
    //   = 155,811,840; × 40 = 6,232,473,600
    // Mamba-2 (48 heads × 64 = 3,072 = 2 × 1,536; conv 3,072 + 256 = 3,328 channels):
    //   1,536 × 6,448 + 3,072 × 1,536 + 3,328 × 5 + 144 + 3,072 = 14,642,576; × 36 = 527,132,736
    // attention 2 × 1,536² + 2 × 1,536 × 512 = 6,291,456; × 4 = 25,165,824
    // tied embeddings 100,352 × 1,536 = 154,140,672; norms 81 × 1,536 = 124,416
    assert_eq!(a.params().total(), 6_939_037_248);
    assert_eq!(a.active_params(), 1_465_470_528);
}

#[test]
fn jamba_mini_1_7_puts_attention_in_4_layers_and_experts_in_16() {
    let a = config("jamba-mini-1.7");
    assert_eq!(
        (a.recurrent_layers(), a.attention_layers(), a.moe_layers()),
        (28, 4, 16)
    );
    // Mamba (inner 8,192, dt rank 256, state 16): in_proj 4,096 × 16,384 + x_proj 8,192 × 288
    //   + dt_proj 256 × 8,192 + out_proj 8,192 × 4,096 = 105,119,744 linear; conv 8,192 × 5,
    //   dt bias 8,192, A_log 8,192 × 16, D 8,192, dt/B/C norms 288 = 188,704 small
    let mamba = 105_119_744 + 188_704;
    // experts 16 × 3 × 4,096 × 14,336 + router 16 × 4,096; dense MLP 3 × 4,096 × 14,336
    let moe = 16 * 176_160_768 + 65_536;
    let attention = 2 * 4_096 * 4_096 + 2 * 4_096 * 1_024;
    let embeddings = 2 * 65_536 * 4_096;
    let norms = 65 * 4_096;
    let total = 28 * mamba + 16 * moe + 16 * 176_160_768 + 4 * attention + embeddings + norms;
    assert_eq!(a.params().total(), total);
    assert_eq!(total, 51_570_323_328);
}

#[test]
fn lfm2_1_2b_adjusts_its_feed_forward_to_8192_and_has_1_170_340_608_parameters() {
    let a = config("lfm2-1.2b");
    // int(2 × 12,288 / 3) = 8,192, a multiple of 256 already
    assert_eq!(a.intermediate, 8_192);
    assert_eq!((a.recurrent_layers(), a.attention_layers()), (10, 6));
    // short convolution: in_proj 2,048 × 6,144 + out_proj 2,048² + conv 2,048 × 3 = 16,783,360
    // attention: 2 × 2,048² + 2 × 2,048 × 512 + q, k norms 128 = 10,485,888
    // MLP 3 × 2,048 × 8,192 = 50,331,648 in all 16 layers; tied embeddings 65,536 × 2,048
    let total = 10 * 16_783_360 + 6 * 10_485_888 + 16 * 50_331_648 + 134_217_728 + 33 * 2_048;
    assert_eq!(a.params().total(), total);
    assert_eq!(total, 1_170_340_608);
}

#[test]
fn every_hybrid_fixture_travels_through_the_link_form_unchanged() {
    for name in [
        "qwen3-next-80b-a3b",
        "nemotron-nano-9b-v2",
        "granite-4.0-h-tiny",
        "jamba-mini-1.7",
        "lfm2-1.2b",
    ] {
        let a = config(name);
        assert_eq!(decode_arch(&encode_arch(&a)).unwrap(), a, "{name}");
    }
}

#[test]
fn a_pattern_longer_than_the_layers_is_an_error_not_a_guess() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/hybrid/nemotron-nano-9b-v2.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("\"num_hidden_layers\": 56", "\"num_hidden_layers\": 52");
    assert!(matches!(
        parse_config(&text),
        Err(EngineError::OutOfRange { setting, .. }) if setting == "hybrid_override_pattern"
    ));
}
