//! The weight formats checked against their storage layouts, tensor by tensor, for real shapes:
//! the bytes each exporter writes for one matrix equal the format's bits per weight × its weights.
//!
//! Layouts, as the sources lay them out:
//! - bitsandbytes 4-bit: `quantize_4bit` in bitsandbytes/functional.py (bitsandbytes-foundation/
//!   bitsandbytes@01327aa0119fa503ea16322dd72f69f202e4502e): packed uint8 (two values a byte), one
//!   fp32 absmax per block of 64; FP4 and NF4 take the same path and differ only in the 16-entry
//!   `code`. With `compress_statistics` the absmax are quantized to 8 bits by `quantize_blockwise`
//!   in blocks of 256 (an fp32 absmax per block, a 256-entry fp32 code and an fp32 offset).
//! - GPTQ: `GPTQLinearMethod.create_weights` in vllm/model_executor/layers/quantization/gptq.py
//!   (vllm-project/vllm@02dd7b88eac910eebaf86868d40d4ea3375c96f5): qweight int32
//!   [in ÷ (32 ÷ bits), out], qzeros int32 [in ÷ group, out ÷ (32 ÷ bits)], scales fp16
//!   [in ÷ group, out], g_idx int32 [in]; 3-bit packs 32 values in three words.
//! - MXFP4 (gpt-oss): `Mxfp4MoEMethod.create_weights` in vllm/model_executor/layers/quantization/
//!   mxfp4.py (vllm-project/vllm@afdb4a4ff429377d0fcfac3752e814ffc36ea41d): w13/w2 uint8
//!   [experts, out, in ÷ 2] and one uint8 e8m0 scale per 32 inputs; the checkpoint names them
//!   `*_blocks` [experts, out, in ÷ 32, 16] and `*_scales` [experts, out, in ÷ 32].
//! - NVFP4: `ModelOptNvFp4LinearMethod.create_weights` in vllm/model_executor/layers/quantization/
//!   modelopt.py (vllm-project/vllm@c9a59901113ccfe729e9c2be54062abee99b37f7): weight uint8
//!   [out, in ÷ 2], weight_scale fp8 e4m3 [out, in ÷ 16], and fp32 `weight_scale_2` and
//!   `input_scale` per tensor.

use super::size_weights;
use super::sizing::tests::header;
use crate::{
    estimate, hub::parse_quantization, hub::QuantScheme, hub::Quantization, hub::TensorRole,
    model::PartFormats, model::WeightPart, Architecture, Component, Job, ModelChoice, Scenario,
    WeightFormat,
};

/// Llama-3-8B's q_proj: 4096 inputs, 4096 outputs.
const Q_IN: u64 = 4_096;
const Q_OUT: u64 = 4_096;
const Q_WEIGHTS: u64 = Q_IN * Q_OUT;

/// Bytes of a checkpoint laid out as (name, dtype, shape), and what the engine reads of it.
fn files(tensors: &[(&str, &str, &[u64])], packed_bits: u64) -> crate::hub::FileWeights {
    size_weights(header(tensors).iter(), packed_bits)
}

/// A bitsandbytes 4-bit q_proj as transformers saves it, `quant_type` "nf4" or "fp4".
fn bnb4_q_proj(quant_type: &str, nested: bool) -> Vec<(String, &'static str, Vec<u64>)> {
    let p = "model.layers.0.self_attn.q_proj.weight";
    let blocks = Q_WEIGHTS / 64;
    let mut t = vec![
        (p.to_string(), "U8", vec![Q_WEIGHTS / 2, 1]),
        (format!("{p}.quant_map"), "F32", vec![16]),
        (
            format!("{p}.quant_state.bitsandbytes__{quant_type}"),
            "U8",
            vec![115],
        ),
    ];
    if nested {
        t.push((format!("{p}.absmax"), "U8", vec![blocks]));
        t.push((format!("{p}.nested_absmax"), "F32", vec![blocks / 256]));
        t.push((format!("{p}.nested_quant_map"), "F32", vec![256]));
    } else {
        t.push((format!("{p}.absmax"), "F32", vec![blocks]));
    }
    t
}

fn read(tensors: &[(String, &'static str, Vec<u64>)]) -> crate::hub::FileWeights {
    let refs: Vec<(&str, &str, &[u64])> = tensors
        .iter()
        .map(|(n, d, s)| (n.as_str(), *d, s.as_slice()))
        .collect();
    files(&refs, 4)
}

/// Bytes of the packed weights and their per-block scales (what grows with the matrix).
fn per_weight_bytes(w: &crate::hub::FileWeights) -> u64 {
    w.role(TensorRole::Packed).bytes + w.role(TensorRole::Scale).bytes
}

#[test]
fn fp4_and_nf4_store_identical_bytes_for_a_llama_3_8b_q_proj_and_differ_only_in_name() {
    for nested in [false, true] {
        let nf4 = read(&bnb4_q_proj("nf4", nested));
        let fp4 = read(&bnb4_q_proj("fp4", nested));
        assert_eq!(nf4.total, fp4.total);
        assert_eq!(nf4.params, Q_WEIGHTS);
        assert_eq!(fp4.params, Q_WEIGHTS);
        let (nf4_format, fp4_format) = if nested {
            (WeightFormat::Nf4Dq, WeightFormat::Fp4Dq)
        } else {
            (WeightFormat::Nf4, WeightFormat::Fp4)
        };
        assert_eq!(nf4.stored_format(), Some(nf4_format));
        assert_eq!(fp4.stored_format(), Some(fp4_format));
        assert_eq!(nf4_format.bits(), fp4_format.bits());
    }
    assert_eq!(
        read(&bnb4_q_proj("fp4", false)).scheme,
        QuantScheme::Bnb4Fp4
    );
}

#[test]
fn bitsandbytes_4_bit_packs_and_absmax_are_exactly_4_5_bits_a_weight() {
    let w = read(&bnb4_q_proj("fp4", false));
    // 8,388,608 packed bytes + 262,144 fp32 absmax (1,048,576 B) = 4.5 bits × 16,777,216 weights
    assert_eq!(per_weight_bytes(&w), 9_437_184);
    assert_eq!(WeightFormat::Fp4.bits().bytes(Q_WEIGHTS), 9_437_184);
}

#[test]
fn double_quant_keeps_one_byte_an_absmax_and_one_fp32_per_256_of_them() {
    let w = read(&bnb4_q_proj("fp4", true));
    // packed + uint8 absmax + fp32 nested absmax; the 256-entry nested code is per tensor
    let growing = per_weight_bytes(&w);
    assert_eq!(growing, 8_388_608 + 262_144 + 4_096);
    assert_eq!(WeightFormat::Fp4Dq.bits().bytes(Q_WEIGHTS), growing);
}

/// A GPTQ q_proj of `bits` bits in groups of 128, as AutoGPTQ / GPTQModel save it.
fn gptq_q_proj(bits: u64) -> crate::hub::FileWeights {
    // 32 ÷ bits input rows a word (3 bits: 32 rows in three words)
    let qweight_rows = Q_IN * bits / 32;
    let groups = Q_IN / 128;
    files(
        &[
            ("q.qweight", "I32", &[qweight_rows, Q_OUT]),
            ("q.qzeros", "I32", &[groups, Q_OUT * bits / 32]),
            ("q.scales", "F16", &[groups, Q_OUT]),
            ("q.g_idx", "I32", &[Q_IN]),
        ],
        bits,
    )
}

#[test]
fn gptq_8_bit_g128_files_hold_exactly_its_bits_for_a_llama_3_8b_q_proj() {
    let w = gptq_q_proj(8);
    assert_eq!(w.params, Q_WEIGHTS);
    assert_eq!(w.stored_format(), Some(WeightFormat::Gptq8));
    // 16,777,216 qweight + 131,072 qzeros + 262,144 scales + 16,384 g_idx
    assert_eq!(w.weight_bytes(), 17_186_816);
    assert_eq!(
        WeightFormat::Gptq8.bits().bytes(Q_WEIGHTS),
        w.weight_bytes()
    );
}

#[test]
fn gptq_3_and_4_bit_g128_files_hold_exactly_their_bits_too() {
    for (bits, format) in [(4, WeightFormat::Gptq4), (3, WeightFormat::Gptq3)] {
        let w = gptq_q_proj(bits);
        assert_eq!(w.params, Q_WEIGHTS, "{bits}");
        assert_eq!(w.stored_format(), Some(format));
        assert_eq!(format.bits().bytes(Q_WEIGHTS), w.weight_bytes(), "{bits}");
    }
}

#[test]
fn per_channel_gptq_8_bit_is_smaller_than_g128_by_its_group_scales() {
    // group_size -1: one scale and zero point per output column
    let w = files(
        &[
            ("q.qweight", "I32", &[Q_IN / 4, Q_OUT]),
            ("q.qzeros", "I32", &[1, Q_OUT / 4]),
            ("q.scales", "F16", &[1, Q_OUT]),
            ("q.g_idx", "I32", &[Q_IN]),
        ],
        8,
    );
    assert_eq!(w.weight_bytes(), 16_777_216 + 4_096 + 8_192 + 16_384);
    assert!(w.weight_bytes() < WeightFormat::Gptq8.bits().bytes(Q_WEIGHTS));
}

/// gpt-oss-20b: 24 layers of 32 experts, hidden 2880, expert width 2880.
const OSS_HIDDEN: u64 = 2_880;
const OSS_EXPERTS: u64 = 32;

#[test]
fn gpt_oss_mxfp4_experts_hold_4_25_bits_a_weight_in_blocks_and_scales() {
    let (h, e) = (OSS_HIDDEN, OSS_EXPERTS);
    let w = files(
        &[
            (
                "l.mlp.experts.gate_up_proj_blocks",
                "U8",
                &[e, 2 * h, h / 32, 16],
            ),
            (
                "l.mlp.experts.gate_up_proj_scales",
                "U8",
                &[e, 2 * h, h / 32],
            ),
            ("l.mlp.experts.down_proj_blocks", "U8", &[e, h, h / 32, 16]),
            ("l.mlp.experts.down_proj_scales", "U8", &[e, h, h / 32]),
            ("l.mlp.experts.down_proj_bias", "BF16", &[e, h]),
        ],
        4,
    );
    let weights = e * 3 * h * h;
    assert_eq!(w.scheme, QuantScheme::Mxfp4);
    assert_eq!(w.stored_format(), Some(WeightFormat::Mxfp4));
    assert_eq!(w.params, weights + e * h);
    assert_eq!(per_weight_bytes(&w), 423_014_400);
    assert_eq!(WeightFormat::Mxfp4.bits().bytes(weights), 423_014_400);
}

#[test]
fn nvfp4_holds_4_5_bits_a_weight_plus_two_fp32_scalars_a_matrix() {
    let w = files(
        &[
            ("q.weight", "U8", &[Q_OUT, Q_IN / 2]),
            ("q.weight_scale", "F8_E4M3", &[Q_OUT, Q_IN / 16]),
            ("q.weight_scale_2", "F32", &[]),
            ("q.input_scale", "F32", &[]),
        ],
        4,
    );
    assert_eq!(w.scheme, QuantScheme::Nvfp4);
    assert_eq!(w.stored_format(), Some(WeightFormat::Nvfp4));
    assert_eq!(w.params, Q_WEIGHTS);
    // the per-tensor global scales are the 8 bytes the format's bits leave out
    assert_eq!(
        w.weight_bytes(),
        WeightFormat::Nvfp4.bits().bytes(Q_WEIGHTS) + 8
    );
}

#[test]
fn compressed_tensors_nvfp4_is_recognised_by_its_global_scale_and_packed_weights() {
    // llm-compressor's nvfp4-pack-quantized names: weight_packed, weight_scale, weight_global_scale
    let w = files(
        &[
            ("q.weight_packed", "U8", &[Q_OUT, Q_IN / 2]),
            ("q.weight_scale", "F8_E4M3", &[Q_OUT, Q_IN / 16]),
            ("q.weight_global_scale", "F32", &[1]),
            ("q.input_global_scale", "F32", &[1]),
        ],
        4,
    );
    assert_eq!(w.stored_format(), Some(WeightFormat::Nvfp4));
    assert_eq!(w.params, Q_WEIGHTS);
    assert_eq!(
        w.weight_bytes(),
        WeightFormat::Nvfp4.bits().bytes(Q_WEIGHTS) + 8
    );
}

/// gpt-oss-20b's shape (openai/gpt-oss-20b config.json).
fn gpt_oss_20b() -> Architecture {
    crate::hub::parse_config(include_str!("../../tests/fixtures/quant/gpt-oss-20b.json")).unwrap()
}

fn inference(arch: Architecture, weights: WeightFormat, parts: PartFormats) -> Scenario {
    Scenario {
        model: ModelChoice::custom("m", arch),
        job: Job::Inference,
        weights,
        weight_parts: parts,
        batch: 1,
        seq: 128,
        gen: 0,
        ..Scenario::default()
    }
}

#[test]
fn gpt_oss_20b_with_mxfp4_experts_and_the_rest_bf16_weighs_each_part_in_its_format() {
    let a = gpt_oss_20b();
    let p = a.params();
    let attention = a.layers * a.attention_params();
    let parts = PartFormats::default().with(WeightPart::Mlp, WeightFormat::Mxfp4);
    let b = estimate(&inference(a.clone(), WeightFormat::Bf16, parts)).unwrap();
    let expected = 2 * (p.embedding + p.head + attention + p.small)
        + WeightFormat::Mxfp4.bits().bytes(p.linear - attention);
    assert_eq!(b.bytes(Component::Weights), expected);
    // about 12.8 GiB, where all-bf16 would be about 39 GiB
    let all_bf16 = estimate(&inference(a, WeightFormat::Bf16, PartFormats::default())).unwrap();
    assert!(b.bytes(Component::Weights) * 3 < all_bf16.bytes(Component::Weights));
}

#[test]
fn a_part_given_the_weights_own_format_changes_nothing_but_another_format_does() {
    let a = crate::model::presets::find("llama-3.1-8b")
        .unwrap()
        .architecture();
    let plain = estimate(&inference(
        a.clone(),
        WeightFormat::Gptq4,
        PartFormats::default(),
    ))
    .unwrap()
    .bytes(Component::Weights);
    let same = PartFormats::default().with(WeightPart::Mlp, WeightFormat::Gptq4);
    let same = estimate(&inference(a.clone(), WeightFormat::Gptq4, same))
        .unwrap()
        .bytes(Component::Weights);
    // the same bits, rounded per part instead of once: within a few bytes
    assert!(plain.abs_diff(same) <= 4, "{plain} {same}");
    let attention16 = PartFormats::default().with(WeightPart::Attention, WeightFormat::Bf16);
    let attention16 = estimate(&inference(a.clone(), WeightFormat::Gptq4, attention16))
        .unwrap()
        .bytes(Component::Weights);
    let attention = a.layers * a.attention_params();
    let grown = 2 * attention - WeightFormat::Gptq4.bits().bytes(attention);
    assert!(attention16.abs_diff(plain + grown) <= 4);
}

#[test]
fn a_tied_head_stored_apart_from_its_embeddings_becomes_its_own_copy() {
    let a = crate::model::presets::find("llama-3.2-1b")
        .unwrap()
        .architecture();
    assert!(a.tied);
    let plain = estimate(&inference(
        a.clone(),
        WeightFormat::Bf16,
        PartFormats::default(),
    ))
    .unwrap()
    .bytes(Component::Weights);
    let head8 = PartFormats::default().with(WeightPart::Head, WeightFormat::Fp8);
    let head8 = estimate(&inference(a.clone(), WeightFormat::Bf16, head8))
        .unwrap()
        .bytes(Component::Weights);
    assert_eq!(head8, plain + a.vocab * a.hidden);
}

#[test]
fn a_full_fine_tune_ignores_part_formats_a_link_carries() {
    let a = crate::model::presets::find("llama-3.1-8b")
        .unwrap()
        .architecture();
    let mut s = inference(a, WeightFormat::Bf16, PartFormats::default());
    s.job = Job::Full;
    let plain = estimate(&s).unwrap().bytes(Component::Weights);
    s.weight_parts = PartFormats::default().with(WeightPart::Mlp, WeightFormat::Nf4);
    assert_eq!(s.validate(), Ok(()));
    assert_eq!(estimate(&s).unwrap().bytes(Component::Weights), plain);
}

#[test]
fn qlora_refuses_a_gptq_part_and_normalizing_clears_the_parts() {
    let a = crate::model::presets::find("llama-3.1-8b")
        .unwrap()
        .architecture();
    let mut s = inference(a, WeightFormat::Nf4, PartFormats::default());
    s.job = Job::Qlora;
    s.weight_parts = PartFormats::default().with(WeightPart::Attention, WeightFormat::Bf16);
    assert_eq!(s.validate(), Ok(()));
    s.weight_parts = PartFormats::default().with(WeightPart::Attention, WeightFormat::Gptq4);
    assert!(s.validate().is_err());
    let changed = s.normalize();
    assert_eq!(changed.len(), 1);
    assert_eq!(s.weight_parts, PartFormats::default());
    assert_eq!(s.weights, WeightFormat::Nf4);
}

/// The quantization a fixture's config.json names.
fn quantization(fixture: &str) -> Quantization {
    let path = format!(
        "{}/tests/fixtures/quant/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    parse_quantization(&text).unwrap().expect(fixture)
}

#[test]
fn gpt_oss_20b_config_reads_as_mxfp4_with_attention_embeddings_and_head_in_bf16() {
    let q = quantization("gpt-oss-20b.json");
    assert_eq!(q.format, WeightFormat::Mxfp4);
    let bf16 = Some(WeightFormat::Bf16);
    assert_eq!(q.parts.get(WeightPart::Attention), bf16);
    assert_eq!(q.parts.get(WeightPart::Embeddings), bf16);
    assert_eq!(q.parts.get(WeightPart::Head), bf16);
    // the router is in modules_to_not_convert, but it is no part: the experts stay MXFP4
    assert_eq!(q.parts.get(WeightPart::Mlp), None);
}

#[test]
fn gpt_oss_20b_read_from_its_config_weighs_the_same_as_bf16_with_mxfp4_experts() {
    let q = quantization("gpt-oss-20b.json");
    let from_config = estimate(&inference(gpt_oss_20b(), q.format, q.parts)).unwrap();
    let by_hand = PartFormats::default().with(WeightPart::Mlp, WeightFormat::Mxfp4);
    let by_hand = estimate(&inference(gpt_oss_20b(), WeightFormat::Bf16, by_hand)).unwrap();
    assert_eq!(
        from_config.bytes(Component::Weights),
        by_hand.bytes(Component::Weights)
    );
}

#[test]
fn qwen2_5_gptq_int8_config_reads_as_gptq8_with_every_part_following() {
    let q = quantization("qwen2.5-7b-instruct-gptq-int8.json");
    assert_eq!(q.format, WeightFormat::Gptq8);
    assert!(q.parts.is_empty());
}

#[test]
fn an_unsloth_bnb_4bit_config_reads_as_nf4_with_double_quant() {
    let q = quantization("llama-3-8b-bnb-4bit.json");
    assert_eq!(q.format, WeightFormat::Nf4Dq);
    assert!(q.parts.is_empty());
}

#[test]
fn a_bitsandbytes_fp4_config_keeps_its_skipped_modules_16_bit() {
    let q = quantization("llama-3-8b-bnb-fp4-skip-attention.json");
    assert_eq!(q.format, WeightFormat::Fp4);
    assert_eq!(q.parts.get(WeightPart::Attention), Some(WeightFormat::Bf16));
    assert_eq!(q.parts.get(WeightPart::Head), Some(WeightFormat::Bf16));
    assert_eq!(q.parts.get(WeightPart::Mlp), None);
}

#[test]
fn a_compressed_tensors_nvfp4_config_reads_as_nvfp4_with_the_head_ignored() {
    let q = quantization("llama-3.1-8b-instruct-nvfp4.json");
    assert_eq!(q.format, WeightFormat::Nvfp4);
    assert_eq!(q.parts.get(WeightPart::Head), Some(WeightFormat::Bf16));
    assert_eq!(q.parts.get(WeightPart::Attention), None);
}

/// A `quantization_config` alone, inside an otherwise empty config.json.
fn fragment(q: &str) -> Quantization {
    parse_quantization(&format!(r#"{{"quantization_config":{q}}}"#))
        .unwrap()
        .expect(q)
}

#[test]
fn gptqmodel_dynamic_overrides_give_parts_their_own_bits_or_leave_them_16_bit() {
    // GPTQModel's `dynamic`: "-:" skips matching modules, "+:" overrides their quantization
    let q = fragment(
        r#"{"quant_method":"gptq","bits":4,"group_size":128,"desc_act":true,"lm_head":true,
        "dynamic":{"-:.*self_attn.*":{},"+:.*mlp.down_proj.*":{"bits":8},"-:model.layers.0.*":{}}}"#,
    );
    assert_eq!(q.format, WeightFormat::Gptq4);
    assert_eq!(q.parts.get(WeightPart::Attention), Some(WeightFormat::Bf16));
    assert_eq!(q.parts.get(WeightPart::Mlp), Some(WeightFormat::Gptq8));
    assert_eq!(q.parts.get(WeightPart::Head), Some(WeightFormat::Gptq4));
}

#[test]
fn fp8_ignored_layers_and_modelopt_exclusions_stay_16_bit() {
    let fp8 = fragment(
        r#"{"quant_method":"fp8","activation_scheme":"dynamic","ignored_layers":["lm_head","model.layers.*.mlp.gate"]}"#,
    );
    assert_eq!(fp8.format, WeightFormat::Fp8);
    assert_eq!(fp8.parts.get(WeightPart::Head), Some(WeightFormat::Bf16));
    assert_eq!(fp8.parts.get(WeightPart::Mlp), None);
    let modelopt = fragment(
        r#"{"quant_method":"modelopt","quant_algo":"NVFP4","exclude_modules":["lm_head"]}"#,
    );
    assert_eq!(modelopt.format, WeightFormat::Nvfp4);
    assert_eq!(
        modelopt.parts.get(WeightPart::Head),
        Some(WeightFormat::Bf16)
    );
    let head_too =
        fragment(r#"{"quant_method":"modelopt","quant_algo":"FP8","exclude_modules":[]}"#);
    assert_eq!(
        head_too.parts.get(WeightPart::Head),
        Some(WeightFormat::Fp8)
    );
}

#[test]
fn gpt_oss_weighed_by_part_matches_the_checkpoint_sizes_openai_publishes() {
    // OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card" (August 2025), Table 1: checkpoint size
    // 12.8 GiB (20b) and 60.8 GiB (120b), MXFP4 experts with the rest in bf16
    let parts = PartFormats::default()
        .with(WeightPart::Embeddings, WeightFormat::Bf16)
        .with(WeightPart::Attention, WeightFormat::Bf16)
        .with(WeightPart::Head, WeightFormat::Bf16);
    for (preset, published) in [("gpt-oss-20b", 12.8), ("gpt-oss-120b", 60.8)] {
        let a = crate::model::presets::find(preset).unwrap().architecture();
        // the routers, which the checkpoint keeps in bf16, are weighed with the experts
        let moe = a.moe.clone().unwrap();
        let routers = a.moe_layers() * moe.experts * a.hidden;
        let routers_bf16 = 2 * routers - WeightFormat::Mxfp4.bits().bytes(routers);
        let b = estimate(&inference(a, WeightFormat::Mxfp4, parts)).unwrap();
        let gib = (b.bytes(Component::Weights) + routers_bf16) as f64 / crate::GIB as f64;
        // the published figure is rounded to 0.1 GiB
        assert!((gib - published).abs() <= 0.05, "{preset}: {gib:.3} GiB");
    }
}

#[test]
fn a_qlora_run_on_fp4_weights_needs_exactly_what_the_same_run_on_nf4_needs() {
    // bitsandbytes dequantizes FP4 and NF4 matrices alike, and MatMul4Bit saves its input for
    // both, so only the 16-entry code differs: the budget must too (it once skipped FP4's
    // dequantized matrix and saved inputs, and the solver then preferred FP4 to NF4)
    for (nf4, fp4) in [
        (WeightFormat::Nf4, WeightFormat::Fp4),
        (WeightFormat::Nf4Dq, WeightFormat::Fp4Dq),
    ] {
        let run = |weights| Scenario {
            job: Job::Qlora,
            weights,
            ..Scenario::default()
        };
        let (a, b) = (estimate(&run(nf4)).unwrap(), estimate(&run(fp4)).unwrap());
        assert_eq!(a.total, b.total, "{nf4:?} against {fp4:?}");
        assert_eq!(a.tensors, b.tensors);
    }
}
