//! Hybrid models (Qwen3-Next, Nemotron-H, Granite 4.0-H, Jamba, LFM2): parameter counts from
//! their config.json (sources in tests/fixtures/hybrid/README.md), the recurrent state per
//! sequence, and how each runtime holds it.

use super::activations::layer_activation_bytes;
use crate::*;
use crate::{hub::*, llamacpp::*, memory::*, model::*};

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

fn scenario(link: &str) -> Scenario {
    let d = crate::link::decode(link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    d.scenario
}

fn line_bytes(b: &Breakdown, msg: Msg) -> u64 {
    b.lines
        .iter()
        .filter(|l| l.formula.clauses.first().map(|c| c.msg) == Some(msg))
        .map(|l| l.bytes)
        .sum()
}

#[test]
fn only_the_attention_layers_keep_k_and_v_per_token() {
    let b = estimate(&scenario(
        "?v=1&m=qwen3-next-80b-a3b&j=infer&b=1&s=1000&g=24",
    ))
    .unwrap();
    // 12 attention layers × 2 (K, V) × 2 KV heads × 256 × 2 B, not 48 layers' worth
    assert_eq!(b.kv_bytes_per_token, 12 * 2 * 2 * 256 * 2);
    let lfm = estimate(&scenario("?v=1&m=lfm2-1.2b&j=infer&b=1&s=1000&g=24")).unwrap();
    // 6 attention layers × 2 × 8 KV heads × 64 × 2 B
    assert_eq!(lfm.kv_bytes_per_token, 6 * 2 * 8 * 64 * 2);
}

#[test]
fn the_delta_net_keeps_one_state_per_sequence_however_long() {
    let short = estimate(&scenario(
        "?v=1&m=qwen3-next-80b-a3b&j=infer&b=2&s=1000&g=24",
    ))
    .unwrap();
    let long = estimate(&scenario(
        "?v=1&m=qwen3-next-80b-a3b&j=infer&b=2&s=30000&g=24",
    ))
    .unwrap();
    // per layer: the convolution's last 3 inputs of 2 × 2,048 + 4,096 channels and the delta
    // rule's 32 heads × 128 × 128, both 16-bit as transformers' cache keeps them:
    // (3 × 8,192 + 524,288) × 2 B = 1,097,728 B; × 36 layers × 2 sequences
    let state = 2 * 36 * 1_097_728;
    assert_eq!(line_bytes(&short, Msg::RecurrentState), state);
    assert_eq!(line_bytes(&long, Msg::RecurrentState), state);
}

#[test]
fn an_lfm2_short_convolution_keeps_two_inputs_and_no_ssm_state() {
    let b = estimate(&scenario("?v=1&m=lfm2-1.2b&j=infer&b=4&s=1000&g=24")).unwrap();
    // L_cache 3: 2 inputs × 2,048 channels × 2 B, in 10 layers, for 4 sequences
    assert_eq!(line_bytes(&b, Msg::RecurrentState), 4 * 10 * 2 * 2_048 * 2);
}

#[test]
fn vllm_sizes_a_qwen3_next_block_to_hold_one_delta_net_state_at_tp_2() {
    let b = estimate(&scenario(
        "?v=1&m=qwen3-next-80b-a3b&j=serve&gpu=h200&n=2&tp=2&ml=262144",
    ))
    .unwrap();
    let pages = b.recurrent.unwrap();
    // per rank: K and V of 1 KV head × 256 × 2 B = 1,024 B a token and layer; the state
    // (3 × 4,096 + 262,144) × 2 B = 548,864 B, so 16 × ⌈548,864 / 16,384⌉ = 544 tokens a block
    // (vLLM 0.10.2 logs "Setting attention block size to 544 tokens" and "Padding mamba page
    // size by 1.49%": 544 × 1,024 / 548,864 = 1.0149)
    assert_eq!((pages.token_bytes, pages.state_bytes), (1_024, 548_864));
    let fit = b.serving.unwrap();
    assert_eq!(fit.block_size, 544);
    // 12 attention and 36 recurrent layers: groups of 12, one for attention and three for the
    // states; a block is a 557,056 B page in each of a group's 12 layers
    assert_eq!(fit.blocks, fit.kv_pool / (557_056 * 12));
    assert_eq!(fit.tokens, fit.blocks / 4 * 544);
    // a 262,144-token request: ⌈262,144 / 544⌉ = 482 attention blocks + 3 state blocks
    assert_eq!(fit.state_slots, fit.blocks / 485);
}

#[test]
fn the_vllm_page_arithmetic_gives_the_tokens_and_concurrency_vllm_printed() {
    // vLLM 0.10.2, Qwen3-Next-80B-A3B-Instruct on two H200s, TP 2: "Available KV cache memory:
    // 44.59 GiB", "GPU KV cache size: 973,760 tokens", "Maximum concurrency for 262,144 tokens
    // per request: 14.77x" (validation/hybrid.jsonl)
    let pages = RecurrentPages {
        attention_layers: 12,
        recurrent_layers: 36,
        token_bytes: 1_024,
        state_bytes: 548_864,
    };
    let s = scenario("?v=1&m=qwen3-next-80b-a3b&j=serve&gpu=h200&n=2&tp=2&ml=262144");
    let pool = 44.59 * (1u64 << 30) as f64;
    let fit = ServingFit::vllm_hybrid(&s, &pages, 24_576, 0, pool as u64);
    assert_eq!(fit.tokens, 973_760);
    // 7,162 blocks / 485 per request = 14.77
    assert_eq!((fit.blocks, fit.state_slots), (7_162, 14));
}

#[test]
fn sglang_gives_the_states_nine_nineteenths_of_the_cache_memory_in_whole_requests() {
    let b = estimate(&scenario(
        "?v=1&m=granite-4.0-h-tiny&j=serve&srv=sglang&gpu=h100",
    ))
    .unwrap();
    let fit = b.serving.unwrap();
    let pages = b.recurrent.unwrap();
    // Mamba-2 per layer: 3 × (3,072 + 2 × 128) conv inputs × 2 B + 48 heads × 64 × 128 fp32
    assert_eq!(pages.state_bytes, 3 * 3_328 * 2 + 48 * 64 * 128 * 4);
    let per_request = 36 * pages.state_bytes;
    let rest = fit.kv_pool + fit.state_slots * per_request;
    assert_eq!(fit.state_slots, rest * 9 / 19 / per_request);
    assert!(fit.max_concurrency <= fit.state_slots);
    // the attention KV takes the rest: 4 layers × 2 × 4 KV heads × 128 × 2 B a token
    assert_eq!(fit.kv_bytes_per_token, 4 * 2 * 4 * 128 * 2);
}

/// A small LFM2-shaped GGUF header: 4 layers of width 256, attention (2 KV heads of 64) only in
/// layer 2, short convolutions of `l_cache` 3 in the others.
fn lfm2_gguf(shortconv: bool) -> GgufHeader {
    let mut d = GgufDraft::default();
    let mut meta = vec![
        ("general.architecture", DraftValue::Text("lfm2".into())),
        ("lfm2.block_count", DraftValue::U64(4)),
        ("lfm2.context_length", DraftValue::U64(4_096)),
        ("lfm2.embedding_length", DraftValue::U64(256)),
        ("lfm2.feed_forward_length", DraftValue::U64(512)),
        ("lfm2.attention.head_count", DraftValue::U64(4)),
        (
            "lfm2.attention.head_count_kv",
            DraftValue::U32s(vec![0, 0, 2, 0]),
        ),
        ("lfm2.vocab_size", DraftValue::U64(1_000)),
    ];
    if shortconv {
        meta.push(("lfm2.shortconv.l_cache", DraftValue::U64(3)));
    }
    d.metadata = meta.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    d.tensors
        .push(("token_embd.weight".into(), vec![256, 1_000], GgmlType::F16));
    for il in 0..4 {
        for t in ["ffn_up", "ffn_down", "ffn_gate"] {
            d.tensors.push((
                format!("blk.{il}.{t}.weight"),
                vec![256, 512],
                GgmlType::F16,
            ));
        }
    }
    read_gguf(&d.bytes()).unwrap()
}

#[test]
fn llama_cpp_keeps_one_f32_state_per_slot_in_each_short_convolution_layer() {
    let settings = LlamaSettings {
        context: Some(4_096),
        parallel: 4,
        ..LlamaSettings::default()
    };
    let plan = plan_llama(&lfm2_gguf(true), &settings, Backend::Cuda).unwrap();
    let state = plan.shape.recurrent.as_ref().unwrap();
    assert_eq!(state.layers, vec![true, true, false, true]);
    // n_embd_r = 256 × (3 − 1) = 512, n_embd_s = 0: 512 × 4 B × 4 slots in each of 3 layers
    assert_eq!(state.layer_bytes(4), 512 * 4 * 4);
    // layer 2's K and V: 4,096 cells × 2 × 128 × 2 B (f16), padded to 32 B already
    let kv = 4_096 * 2 * 128 * 2;
    let gpu = plan.device(LlamaDevice::Gpu(0)).unwrap();
    assert_eq!(gpu.kv, kv + 3 * 512 * 4 * 4);
    // without the short-convolution key the layers without KV heads keep nothing
    let plain = plan_llama(&lfm2_gguf(false), &settings, Backend::Cuda).unwrap();
    assert_eq!(plain.device(LlamaDevice::Gpu(0)).unwrap().kv, kv);
}

#[test]
fn training_keeps_the_scan_s_tensors_in_the_recurrent_layers_instead_of_attention_s() {
    let s = scenario("?v=1&m=lfm2-1.2b&j=full&b=1&s=1024");
    let a = s.model.architecture().unwrap();
    let layer = layer_activation_bytes(&a, &s, 2, 1);
    // attention layers: q, k, v, output (2,048 + 2 × 512 + 2,048) × 2 B + 32 heads × 4 B of
    // log-sum-exp = 10,368; a short convolution: in_proj output, gated input and conv output,
    // 5 × 2,048 × 2 B = 20,480; averaged over 6 and 10 of the 16 layers
    assert_eq!(layer.attention, (6 * 10_368 + 10 * 20_480) / 16);
}

#[test]
fn a_hybrid_preset_has_no_synthesized_gguf_and_asks_for_its_file() {
    let a = crate::model::presets::find("granite-4.0-h-tiny")
        .unwrap()
        .architecture();
    assert_eq!(
        synthesize_gguf(&a, WeightFormat::GgufQ4KM).unwrap_err(),
        LlamaError::NoGgufForm
    );
}

#[test]
fn falcon_h1_runs_attention_and_mamba_2_side_by_side_in_every_layer() {
    // the Falcon-H1 1.5B shape as public tests quote its config.json's fields (no published
    // total is matched here: the count is the modeling file's arithmetic)
    let a = parse_config(
        r#"{"model_type":"falcon_h1","num_hidden_layers":24,"hidden_size":2048,"intermediate_size":4608,
        "num_attention_heads":8,"num_key_value_heads":2,"head_dim":128,"vocab_size":65537,
        "mamba_d_state":256,"mamba_d_conv":4,"mamba_n_groups":1,"mamba_n_heads":48,"mamba_d_head":64,
        "mamba_d_ssm":3072,"mamba_rms_norm":false,"tie_word_embeddings":false}"#,
    )
    .unwrap();
    assert_eq!((a.attention_layers(), a.recurrent_layers()), (24, 24));
    // attention 2,048 × 1,024 × 2 + 2,048 × 256 × 2 = 5,242,880; Mamba-2 (conv 3,072 + 512
    // channels): 2,048 × (3,072 + 3,584 + 48) + 3,072 × 2,048 + 3,584 × 5 + 3 × 48 = 20,039,312
    // (no gated norm); MLP 3 × 2,048 × 4,608 = 28,311,552; two norms of 2,048
    let layer = 5_242_880 + 20_039_312 + 28_311_552 + 2 * 2_048;
    let total = 24 * layer + 2_048 + 2 * 65_537 * 2_048;
    assert_eq!(a.params().total(), total);
    assert_eq!(total, 1_554_789_760);
    assert_eq!(decode_arch(&encode_arch(&a)).unwrap(), a);
    // vLLM pages both kinds in every layer: groups of 24, one for attention, one for the states
    let pages = RecurrentPages {
        attention_layers: 24,
        recurrent_layers: 24,
        token_bytes: 1,
        state_bytes: 1,
    };
    assert_eq!(pages.vllm_groups(), (24, 1, 1));
}

#[test]
fn a_link_whose_hybrid_has_no_attention_layer_is_refused_with_the_field() {
    let arch = crate::model::presets::find("lfm2-1.2b").unwrap().arch;
    let err = decode_arch(&format!("{arch}_aL0")).unwrap_err();
    assert!(
        matches!(&err, EngineError::OutOfRange { setting, .. } if setting == "attention_layers"),
        "{err:?}"
    );
}
