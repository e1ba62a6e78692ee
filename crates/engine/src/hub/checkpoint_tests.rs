//! Checkpoints read from their safetensors headers: real configs, headers rebuilt from them
//! (see `fixtures/hub/README.md`), exact bytes per tensor against the safetensors spec, and the
//! budget that uses them.

use vram_test_support::checkpoints;

use std::path::PathBuf;

use crate::safetensors::{compare_with_config, size_weights};
use crate::*;
use crate::{hub::*, link::*, memory::*, model::*};
use checkpoints::{FIXTURES, GROUP, NF4_STATE_BYTES};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hub")
}

/// A fixture read back as the CLI reads it: each shard's header, the index, the config.
struct Read {
    arch: Architecture,
    files: FileWeights,
    index: SafetensorsIndex,
}

fn read(name: &str) -> Read {
    let (_, storage, n) = FIXTURES.iter().find(|f| f.0 == name).unwrap();
    let text = checkpoints::config_text(&dir(), name);
    let cfg: serde_json::Value = serde_json::from_str(&text).unwrap();
    let built = checkpoints::tensors(&cfg, *storage);
    let shards = checkpoints::shards(&built, *n);
    let index = read_index(&checkpoints::index_json(&shards)).unwrap();
    let headers: Vec<SafetensorsHeader> = shards
        .iter()
        .map(|(_, ts)| {
            read_safetensors(&checkpoints::header_bytes(ts, &[("format", "pt")])).unwrap()
        })
        .collect();
    let bits = cfg["quantization_config"]["bits"].as_u64().unwrap_or(4);
    let files = size_weights(headers.iter().flat_map(|h| h.tensors()), bits);
    Read {
        arch: parse_config(&text).unwrap(),
        files,
        index,
    }
}

fn linears(a: &Architecture) -> Vec<(u64, u64)> {
    // (rows, cols) of every quantized linear layer of the dense Llama fixtures
    let attn = a.heads * a.head_dim;
    let kv = a.kv_heads * a.head_dim;
    let one = [
        (attn, a.hidden),
        (kv, a.hidden),
        (kv, a.hidden),
        (a.hidden, attn),
        (a.intermediate, a.hidden),
        (a.intermediate, a.hidden),
        (a.hidden, a.intermediate),
    ];
    (0..a.layers).flat_map(|_| one).collect()
}

/// Bytes of everything that is not a quantized linear layer, 16-bit.
fn unquantized_bytes(a: &Architecture) -> u64 {
    let linear: u64 = linears(a).iter().map(|(r, c)| r * c).sum();
    (a.params().total() - linear) * 2
}

#[test]
fn llama_3_8b_headers_add_up_to_the_published_total_size() {
    let r = read("llama-3-8b");
    assert_eq!(r.files.total.bytes, 16_060_522_496);
    assert_eq!(r.files.total.tensors, 291);
    assert_eq!(r.index.total_size(), Some(16_060_522_496));
    assert_eq!(r.index.shards().len(), 4);
    assert_eq!(r.files.params, r.arch.params().total());
    assert_eq!(r.files.stored_format(), Some(WeightFormat::Bf16));
    assert_eq!(
        compare_with_config(&r.arch, &r.files, r.index.total_size()),
        vec![]
    );
}

#[test]
fn mixtral_8x7b_headers_add_up_to_the_published_total_size() {
    let r = read("mixtral-8x7b");
    assert_eq!(r.files.total.bytes, 93_405_585_408);
    assert_eq!(r.files.total.tensors, 995);
    assert_eq!(r.index.shards().len(), 19);
    assert_eq!(r.files.params, r.arch.params().total());
    assert_eq!(
        compare_with_config(&r.arch, &r.files, r.index.total_size()),
        vec![]
    );
}

#[test]
fn llama_2_7b_in_fp16_holds_the_parameters_transformers_counts() {
    let r = read("llama-2-7b");
    assert_eq!(r.files.params, 6_738_415_616);
    assert_eq!(r.files.total.bytes, 2 * 6_738_415_616);
    assert_eq!(
        r.files.by_dtype,
        vec![(
            SafeDtype::F16,
            Tally {
                tensors: 291,
                bytes: 2 * 6_738_415_616
            }
        )]
    );
}

#[test]
fn every_header_reads_back_the_names_dtypes_shapes_and_spec_bytes_it_was_built_from() {
    for (name, storage, n) in FIXTURES {
        let cfg: serde_json::Value =
            serde_json::from_str(&checkpoints::config_text(&dir(), name)).unwrap();
        let built = checkpoints::tensors(&cfg, *storage);
        for (_, ts) in checkpoints::shards(&built, *n) {
            let h = read_safetensors(&checkpoints::header_bytes(&ts, &[])).unwrap();
            assert_eq!(h.tensors().len(), ts.len(), "{name}");
            for (got, want) in h.tensors().iter().zip(&ts) {
                assert_eq!(got.name(), want.name, "{name}");
                assert_eq!(got.dtype().key(), want.dtype, "{}", want.name);
                assert_eq!(got.shape(), want.shape.as_slice(), "{}", want.name);
                assert_eq!(got.bytes(), want.bytes(), "{}", want.name);
            }
        }
    }
}

#[test]
fn a_gptq_checkpoint_is_sized_from_its_qweight_qzeros_scales_and_g_idx() {
    let r = read("llama-2-7b-gptq");
    assert_eq!(r.files.scheme, QuantScheme::Gptq);
    assert_eq!(r.files.stored_format(), Some(WeightFormat::Gptq4));
    // per linear [rows, cols]: int4 weights, int32 zeros packed 8 a word per group of 128
    // inputs, fp16 scales per group, one int32 g_idx per input column
    let quantized: u64 = linears(&r.arch)
        .iter()
        .map(|(rows, cols)| {
            rows * cols / 2 + cols / GROUP * rows / 8 * 4 + cols / GROUP * rows * 2 + cols * 4
        })
        .sum();
    assert_eq!(
        r.files.weight_bytes(),
        quantized + unquantized_bytes(&r.arch)
    );
    assert_eq!(r.files.params, r.arch.params().total());
    assert_eq!(r.files.role(TensorRole::GroupIndex).tensors, 7 * 32);
    let nominal = WeightFormat::Gptq4
        .bits()
        .bytes(linears(&r.arch).iter().map(|(a, b)| a * b).sum());
    let differences = compare_with_config(&r.arch, &r.files, None);
    assert!(
        matches!(differences.as_slice(), [FileDifference::WeightBytes { format: WeightFormat::Gptq4, nominal: n, files }] if *files == r.files.weight_bytes() && *n == nominal + unquantized_bytes(&r.arch)),
        "{differences:?}"
    );
}

#[test]
fn an_awq_checkpoint_has_no_group_index_and_packs_along_the_outputs() {
    let r = read("llama-2-7b-awq");
    assert_eq!(r.files.scheme, QuantScheme::Awq);
    assert_eq!(r.files.stored_format(), Some(WeightFormat::Awq4));
    let quantized: u64 = linears(&r.arch)
        .iter()
        .map(|(rows, cols)| {
            cols * rows / 8 * 4 + cols / GROUP * rows / 8 * 4 + cols / GROUP * rows * 2
        })
        .sum();
    assert_eq!(
        r.files.weight_bytes(),
        quantized + unquantized_bytes(&r.arch)
    );
    assert_eq!(r.files.params, r.arch.params().total());
}

#[test]
fn an_fp8_checkpoint_counts_one_byte_a_weight_and_its_scalar_scales() {
    let r = read("llama-3-8b-fp8");
    assert_eq!(r.files.scheme, QuantScheme::Fp8);
    assert_eq!(r.files.stored_format(), Some(WeightFormat::Fp8));
    let matrices = linears(&r.arch);
    let quantized: u64 = matrices
        .iter()
        .map(|(rows, cols)| rows * cols + 2 * 4)
        .sum();
    assert_eq!(
        r.files.weight_bytes(),
        quantized + unquantized_bytes(&r.arch)
    );
    assert_eq!(
        r.files.role(TensorRole::Scale).tensors,
        2 * matrices.len() as u64
    );
    assert_eq!(r.files.params, r.arch.params().total());
}

#[test]
fn a_prequantized_nf4_checkpoint_counts_packed_nibbles_absmax_and_state() {
    let r = read("llama-3-8b-bnb-4bit");
    assert_eq!(r.files.scheme, QuantScheme::Bnb4);
    assert_eq!(r.files.stored_format(), Some(WeightFormat::Nf4));
    let quantized: u64 = linears(&r.arch)
        .iter()
        .map(|(rows, cols)| rows * cols / 2 + rows * cols / 64 * 4 + 16 * 4 + NF4_STATE_BYTES)
        .sum();
    assert_eq!(
        r.files.weight_bytes(),
        quantized + unquantized_bytes(&r.arch)
    );
    assert_eq!(r.files.params, r.arch.params().total());
}

/// The architecture with the files' exact bytes, as the CLI builds it.
fn with_stored(r: &Read) -> Architecture {
    let mut a = r.arch.clone();
    a.stored = Some(StoredWeights {
        format: r.files.stored_format().unwrap(),
        bytes: r.files.weight_bytes(),
    });
    a
}

fn scenario(arch: Architecture, job: Job, weights: WeightFormat) -> Scenario {
    Scenario {
        model: ModelChoice::Custom {
            name: "fixture".into(),
            arch: Box::new(arch),
            source: None,
        },
        job,
        weights,
        ..Scenario::default()
    }
}

#[test]
fn a_budget_in_the_stored_format_uses_the_files_bytes_and_another_format_its_nominal_bits() {
    let r = read("llama-2-7b-gptq");
    let exact = scenario(with_stored(&r), Job::Inference, WeightFormat::Gptq4);
    let b = estimate(&exact).unwrap();
    assert_eq!(b.bytes(Component::Weights), r.files.weight_bytes());
    let nominal = scenario(r.arch.clone(), Job::Inference, WeightFormat::Gptq4);
    assert_ne!(
        estimate(&nominal).unwrap().bytes(Component::Weights),
        r.files.weight_bytes()
    );
    let other = scenario(with_stored(&r), Job::Inference, WeightFormat::Awq4);
    assert_eq!(
        estimate(&other).unwrap().bytes(Component::Weights),
        estimate(&scenario(
            r.arch.clone(),
            Job::Inference,
            WeightFormat::Awq4
        ))
        .unwrap()
        .bytes(Component::Weights)
    );
}

#[test]
fn tensor_parallel_ranks_split_the_files_bytes() {
    let r = read("llama-3-8b-fp8");
    let mut s = scenario(with_stored(&r), Job::Serving, WeightFormat::Fp8);
    s.gpus = 2;
    s.tp = 2;
    let b = estimate(&s).unwrap();
    assert_eq!(
        b.bytes(Component::Weights),
        r.files.weight_bytes().div_ceil(2)
    );
}

#[test]
fn a_prequantized_nf4_checkpoint_has_no_16_bit_moment_while_loading() {
    let r = read("llama-3-8b-bnb-4bit");
    let from_files = estimate_with(
        &scenario(with_stored(&r), Job::Qlora, WeightFormat::Nf4),
        &with_stored(&r),
        true,
    )
    .unwrap();
    assert!(from_files
        .lines
        .iter()
        .all(|l| l.phase != Phase::Load || l.component != Component::Weights));
    let quantized_on_load = estimate_with(
        &scenario(r.arch.clone(), Job::Qlora, WeightFormat::Nf4),
        &r.arch,
        true,
    )
    .unwrap();
    assert!(quantized_on_load
        .lines
        .iter()
        .any(|l| l.phase == Phase::Load && l.component == Component::Weights));
}

#[test]
fn a_hub_model_reopens_from_its_link_with_the_same_budget() {
    let r = read("mixtral-8x7b");
    let mut s = scenario(with_stored(&r), Job::Serving, WeightFormat::Bf16);
    s.gpus = 4;
    s.tp = 4;
    s.gpu = Gpu::H100;
    if let ModelChoice::Custom { source, .. } = &mut s.model {
        *source =
            Some(HubSource::from_link("mistralai/Mixtral-8x7B-v0.1@main", "2026-12-01").unwrap());
    }
    let link = crate::link::encode(&s, &PageSettings::default());
    let d = crate::link::decode(&link);
    assert_eq!(d.notices, vec![]);
    assert_eq!(d.scenario, s);
    assert_eq!(
        estimate(&d.scenario).unwrap().total,
        estimate(&s).unwrap().total
    );
}
