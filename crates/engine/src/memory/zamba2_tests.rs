//! Zamba2: Mamba-2 in every layer, and a shared attention-and-MLP block run before the mixer in
//! a few of them (fixture: tests/fixtures/hybrid/zamba2-1.2b.json, source in its README).

use crate::{hub::*, link, memory::*, model::*};

fn zamba2_1_2b() -> Architecture {
    let path = format!(
        "{}/tests/fixtures/hybrid/zamba2-1.2b.json",
        env!("CARGO_MANIFEST_DIR")
    );
    parse_config(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn zamba2_1_2b_has_1_215_064_704_parameters_with_one_shared_block_for_its_6_attention_layers() {
    let a = zamba2_1_2b();
    assert_eq!((a.recurrent_layers(), a.attention_layers()), (38, 6));
    // Mamba-2 in each of 38 layers (inner 2 × 2,048 = 4,096 in 64 heads of 64; conv 4,096 +
    // 2 × 128 = 4,352 channels): in_proj 2,048 × (4,096 + 4,352 + 64) + out_proj 4,096 × 2,048
    //   + conv 4,352 × 4 + its bias 4,352 + dt_bias, A_log, D 3 × 64 + gated norm 4,096
    //   + the layer's norm 2,048 = 25,849,280; × 38 = 982,272,640
    let mamba = 38 * 25_849_280;
    // the one shared block: q, k, v 4,096 × 4,096 (the hidden state beside the embeddings,
    //   32 heads of 128), o 4,096 × 2,048; gated MLP 2,048 × 16,384 + 8,192 × 2,048; norms
    //   4,096 + 2,048 = 109,058,048
    let block = 3 * 16_777_216 + 8_388_608 + 33_554_432 + 16_777_216 + 6_144;
    // in each of the 6 attention layers: the 2,048 × 2,048 map after the block, the MLP adapter
    //   2,048 × 128 + 128 × 16,384 and the q, k, v adapters 3 × (4,096 × 128 + 128 × 4,096)
    let per_layer = 4_194_304 + 2_359_296 + 3_145_728;
    // tied embeddings 32,000 × 2,048 and the final norm
    let total = mamba + block + 6 * per_layer + 65_536_000 + 2_048;
    assert_eq!(a.params().total(), total);
    assert_eq!(total, 1_215_064_704);
}

#[test]
fn zamba2_keeps_k_and_v_only_in_its_6_attention_layers_and_a_mamba_2_state_in_all_38() {
    let a = zamba2_1_2b();
    let link = format!("?v=1&mn=zamba2&cfg={}&j=infer&b=3&s=2000", encode_arch(&a));
    let d = link::decode(&link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let b = estimate(&d.scenario).unwrap();
    // 6 layers × K and V × 32 heads × 128 × 2 B = 98,304 B (96 KiB) a token
    assert_eq!(b.kv_bytes_per_token, 6 * 2 * 32 * 128 * 2);
    // per layer and sequence: the convolution's last 3 inputs of 4,352 channels and 64 heads ×
    // 64 × 128 of SSM state, 16-bit: (13,056 + 524,288) × 2 B = 1,074,688 B; × 38 layers
    let per_sequence = 38 * 1_074_688;
    assert_eq!(per_sequence, 40_838_144);
    let state: u64 = b
        .lines
        .iter()
        .filter(|l| l.formula.clauses.first().map(|c| c.msg) == Some(Msg::RecurrentState))
        .map(|l| l.bytes)
        .sum();
    assert_eq!(state, 3 * per_sequence);
}

#[test]
fn zamba2_travels_through_the_link_form_with_its_shared_blocks_and_adapters() {
    let a = zamba2_1_2b();
    let r = a.recurrent.as_ref().unwrap();
    assert_eq!(
        (r.shared_blocks, r.adapter_rank, r.attention_adapters),
        (1, 128, true)
    );
    assert_eq!(decode_arch(&encode_arch(&a)).unwrap(), a);
}

#[test]
fn a_zamba2_config_without_its_layer_types_is_an_error_not_a_guess() {
    let text = r#"{"model_type":"zamba2","hidden_size":2048,"num_hidden_layers":38,
        "num_attention_heads":32,"vocab_size":32000}"#;
    assert!(matches!(
        parse_config(text),
        Err(EngineError::MissingField(f)) if f == "layers_block_type"
    ));
}
