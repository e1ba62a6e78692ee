//! The GGUF header reader on files the `gguf` Python package wrote (tests/fixtures/gguf, made by
//! tools/llamacpp/measure_llamacpp.py) and on hand-built and arbitrary bytes.

use std::path::PathBuf;

use super::{
    read_gguf, GgmlType, GgufError, GgufHeader, GgufLimit, LayerCounts, MetaValue, ValueType,
};
use proptest::prelude::*;

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gguf");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/gguf exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "gguf"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("a readable fixture"))
        })
        .collect();
    files.sort();
    assert!(files.len() >= 8, "the generated fixtures are missing");
    files
}

fn tiny() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gguf/tiny-llama-f16.gguf"
    );
    std::fs::read(path).expect("the tiny fixture")
}

#[track_caller]
fn parsed(bytes: &[u8]) -> GgufHeader {
    read_gguf(bytes).unwrap_or_else(|e| panic!("expected a header, got {e}"))
}

/// The type most of the repeating layers' bytes are stored in (the file's quantization).
fn main_layer_type(header: &GgufHeader) -> Option<GgmlType> {
    let mut by_type: Vec<(GgmlType, u64)> = Vec::new();
    for tensor in header.tensors().iter().filter(|t| t.layer().is_some()) {
        match by_type.iter_mut().find(|(ty, _)| *ty == tensor.ggml_type()) {
            Some((_, bytes)) => *bytes += tensor.bytes(),
            None => by_type.push((tensor.ggml_type(), tensor.bytes())),
        }
    }
    by_type
        .into_iter()
        .max_by_key(|&(_, bytes)| bytes)
        .map(|(ty, _)| ty)
}

#[test]
fn the_tiny_model_reads_as_the_script_wrote_it() {
    let header = parsed(&tiny());
    assert_eq!(header.version(), 3);
    assert_eq!(header.architecture(), Some("llama"));
    let hp = header.hyperparameters();
    assert_eq!(hp.block_count, Some(2));
    assert_eq!(hp.context_length, Some(4096));
    assert_eq!(hp.embedding_length, Some(64));
    assert_eq!(hp.feed_forward_length, Some(LayerCounts::Same(128)));
    assert_eq!(hp.head_count, Some(LayerCounts::Same(4)));
    assert_eq!(hp.head_count_kv, Some(LayerCounts::Same(2)));
    assert_eq!((hp.key_length, hp.value_length), (Some(16), Some(16)));
    assert_eq!(hp.vocab_size, Some(288));
    assert_eq!((hp.sliding_window, hp.expert_count), (None, None));
    // 2 × 9 layer tensors + token_embd + output_norm; the output is tied to token_embd
    assert_eq!(header.tensors().len(), 20);
    assert_eq!(header.output(), None);
    let embd = header.token_embedding().unwrap();
    assert_eq!(
        (embd.dims(), embd.ggml_type()),
        (&[64, 288][..], GgmlType::F16)
    );
    assert_eq!(embd.bytes(), 64 * 288 * 2);
    assert_eq!(header.output_norm().unwrap().ggml_type(), GgmlType::F32);
    let layers = header.layers();
    assert_eq!(layers.iter().map(|l| l.index).collect::<Vec<_>>(), [0, 1]);
    // norms 2 × 64 × 4, q and o 64 × 64 × 2, k and v 64 × 32 × 2, three FFN 64 × 128 × 2
    assert_eq!(layers[0].bytes(), 512 + 2 * 8192 + 2 * 4096 + 3 * 16384);
    assert_eq!(main_layer_type(&header), Some(GgmlType::F16));
}

#[test]
fn the_whole_tiny_file_is_its_header_then_each_tensor_padded_in_order() {
    let bytes = tiny();
    let header = parsed(&bytes);
    assert_eq!(
        header.data_offset() + header.data_bytes(),
        bytes.len() as u64
    );
    assert_eq!(header.data_offset() % header.alignment(), 0);
    assert!(header.header_bytes() <= header.data_offset());
}

#[test]
fn each_tensor_starts_where_the_one_before_ends_rounded_up_to_the_alignment() {
    for (name, bytes) in fixtures() {
        let header = parsed(&bytes);
        let tensors = header.tensors();
        assert_eq!(tensors[0].offset(), 0, "{name}");
        for pair in tensors.windows(2) {
            let size = pair[0].bytes().next_multiple_of(header.alignment());
            assert_eq!(
                pair[1].offset() - pair[0].offset(),
                size,
                "{name}: {}",
                pair[1].name()
            );
        }
        let last = tensors.last().unwrap();
        let end = (last.offset() + last.bytes()).next_multiple_of(header.alignment());
        assert_eq!(header.data_bytes(), end, "{name}");
    }
}

#[test]
fn every_fixture_names_its_architecture_layers_and_edge_tensors() {
    for (name, bytes) in fixtures() {
        let header = parsed(&bytes);
        let hp = header.hyperparameters();
        let layers = header.layers();
        assert_eq!(Some(layers.len() as u64), hp.block_count, "{name}");
        assert!(header.token_embedding().is_some(), "{name}");
        assert!(header.output_norm().is_some(), "{name}");
        let in_layers: u64 = layers.iter().map(|l| l.bytes()).sum();
        let outside: u64 = header.non_layer_tensors().iter().map(|t| t.bytes()).sum();
        assert_eq!(in_layers + outside, header.tensor_bytes(), "{name}");
        assert!(hp.vocab_size.unwrap() >= 259, "{name}");
    }
}

#[test]
fn the_gemma2_fixture_has_a_sliding_window_and_the_moe_fixture_its_experts() {
    let files = fixtures();
    let find = |prefix: &str| parsed(&files.iter().find(|(n, _)| n.starts_with(prefix)).unwrap().1);
    let gemma = find("gemma2").hyperparameters();
    assert_eq!(gemma.sliding_window, Some(128));
    let moe = find("llama-moe").hyperparameters();
    assert_eq!(
        (moe.expert_count, moe.expert_used_count),
        (Some(4), Some(2))
    );
    let moe = find("llama-moe");
    let gate = moe.tensor("blk.0.ffn_gate_exps.weight").unwrap();
    assert_eq!(gate.dims(), [256, 256, 4]);
    assert_eq!(gate.bytes(), 256 / 32 * 18 * 256 * 4);
}

#[test]
fn every_prefix_of_a_header_either_parses_or_asks_for_bytes_it_really_needs() {
    for (name, bytes) in fixtures() {
        let full = parsed(&bytes);
        let header_bytes = full.header_bytes() as usize;
        // every length for the tiny model, every 13th for the others (time)
        let step = if name.starts_with("tiny") { 1 } else { 13 };
        for len in (0..header_bytes).step_by(step) {
            match read_gguf(&bytes[..len]) {
                Err(GgufError::NeedMoreBytes { needed }) => assert!(
                    needed > len as u64 && needed <= header_bytes as u64,
                    "{name}: at {len} asked for {needed} of {header_bytes}"
                ),
                other => panic!("{name}: a {len}-byte prefix gave {other:?}"),
            }
        }
        for len in [header_bytes, full.data_offset() as usize] {
            assert_eq!(read_gguf(&bytes[..len]).as_ref(), Ok(&full), "{name}");
        }
    }
}

#[test]
fn reading_as_many_bytes_as_asked_reaches_the_header_in_a_few_steps() {
    let bytes = tiny();
    let mut len = 0;
    let mut steps = 0;
    let header = loop {
        steps += 1;
        match read_gguf(&bytes[..len]) {
            Ok(header) => break header,
            Err(GgufError::NeedMoreBytes { needed }) => len = needed as usize,
            Err(other) => panic!("{other}"),
        }
    };
    assert_eq!(header, parsed(&bytes));
    assert!(steps < 2000, "{steps} steps");
}

#[test]
fn version_2_reads_like_version_3_and_others_are_refused() {
    let mut bytes = tiny();
    bytes[4] = 2;
    assert_eq!(parsed(&bytes).version(), 2);
    assert_eq!(parsed(&bytes).tensors(), parsed(&tiny()).tensors());
    bytes[4] = 1;
    assert_eq!(
        read_gguf(&bytes),
        Err(GgufError::UnsupportedVersion { version: 1 })
    );
    bytes[..8].copy_from_slice(&[b'G', b'G', b'U', b'F', 0, 0, 0, 3]);
    assert!(matches!(
        read_gguf(&bytes),
        Err(GgufError::UnsupportedVersion { .. })
    ));
    assert_eq!(
        read_gguf(b"GGML\x03\0\0\0"),
        Err(GgufError::NotGguf { magic: *b"GGML" })
    );
}

#[test]
fn ggml_type_sizes_match_the_gguf_python_packages_table() {
    // GGML_QUANT_SIZES of gguf-py at the same llama.cpp commit: (id, block, bytes)
    let table: [(u32, u64, u64); 35] = [
        (0, 1, 4),
        (1, 1, 2),
        (2, 32, 18),
        (3, 32, 20),
        (6, 32, 22),
        (7, 32, 24),
        (8, 32, 34),
        (9, 32, 36),
        (10, 256, 84),
        (11, 256, 110),
        (12, 256, 144),
        (13, 256, 176),
        (14, 256, 210),
        (15, 256, 292),
        (16, 256, 66),
        (17, 256, 74),
        (18, 256, 98),
        (19, 256, 50),
        (20, 32, 18),
        (21, 256, 110),
        (22, 256, 82),
        (23, 256, 136),
        (24, 1, 1),
        (25, 1, 2),
        (26, 1, 4),
        (27, 1, 8),
        (28, 1, 8),
        (29, 256, 56),
        (30, 1, 2),
        (34, 256, 54),
        (35, 256, 66),
        (39, 32, 17),
        (40, 64, 36),
        (41, 128, 18),
        (42, 64, 18),
    ];
    for (id, block, bytes) in table {
        let ty = GgmlType::from_id(id).unwrap();
        assert_eq!(
            (ty.id(), ty.block_size(), ty.type_size()),
            (id, block, bytes),
            "{id}"
        );
    }
    assert_eq!(GgmlType::ALL.len(), table.len());
    for removed in [4, 5, 31, 32, 33, 36, 37, 38, 43] {
        assert_eq!(GgmlType::from_id(removed), None);
    }
}

// ---- hand-built headers ---------------------------------------------------------------------

/// A GGUF writer for tests: metadata entries and tensor infos as raw little-endian bytes.
#[derive(Default)]
struct Gguf {
    kv: Vec<Vec<u8>>,
    tensors: Vec<Vec<u8>>,
}

fn string(s: &str) -> Vec<u8> {
    let mut out = (s.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(s.as_bytes());
    out
}

impl Gguf {
    fn kv(mut self, key: &str, type_id: u32, value: &[u8]) -> Self {
        let mut entry = string(key);
        entry.extend_from_slice(&type_id.to_le_bytes());
        entry.extend_from_slice(value);
        self.kv.push(entry);
        self
    }

    fn u32(self, key: &str, value: u32) -> Self {
        self.kv(key, 4, &value.to_le_bytes())
    }

    fn tensor(mut self, name: &str, dims: &[u64], type_id: u32, offset: u64) -> Self {
        let mut info = string(name);
        info.extend_from_slice(&(dims.len() as u32).to_le_bytes());
        dims.iter()
            .for_each(|d| info.extend_from_slice(&d.to_le_bytes()));
        info.extend_from_slice(&type_id.to_le_bytes());
        info.extend_from_slice(&offset.to_le_bytes());
        self.tensors.push(info);
        self
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(&(self.tensors.len() as u64).to_le_bytes());
        out.extend_from_slice(&(self.kv.len() as u64).to_le_bytes());
        self.kv
            .iter()
            .chain(&self.tensors)
            .for_each(|p| out.extend_from_slice(p));
        out
    }
}

fn array_header(element_type: u32, len: u64) -> Vec<u8> {
    let mut out = element_type.to_le_bytes().to_vec();
    out.extend_from_slice(&len.to_le_bytes());
    out
}

#[test]
fn a_long_token_list_is_counted_without_being_stored() {
    let mut tokens = array_header(8, 5000);
    (0..5000).for_each(|i| tokens.extend(string(&format!("t{i}"))));
    let header = parsed(
        &Gguf::default()
            .kv("general.architecture", 8, &string("qwen2"))
            .kv("tokenizer.ggml.tokens", 9, &tokens)
            .bytes(),
    );
    let array = header
        .get("tokenizer.ggml.tokens")
        .unwrap()
        .as_array()
        .unwrap();
    assert_eq!(
        (array.element_type, array.len, array.values.is_none()),
        (ValueType::String, 5000, true)
    );
    assert_eq!(header.hyperparameters().vocab_size, Some(5000));
}

#[test]
fn per_layer_head_counts_and_every_value_type_are_read() {
    let mut heads = array_header(5, 3);
    [8i32, 8, 4]
        .iter()
        .for_each(|h| heads.extend(h.to_le_bytes()));
    let header = parsed(
        &Gguf::default()
            .kv("general.architecture", 8, &string("openelm"))
            .kv("openelm.attention.head_count", 9, &heads)
            .kv("a.u8", 0, &[7])
            .kv("a.i8", 1, &[0xff])
            .kv("a.u16", 2, &[1, 1])
            .kv("a.i16", 3, &[0xfe, 0xff])
            .kv("a.i32", 5, &(-3i32).to_le_bytes())
            .kv("a.f32", 6, &1.5f32.to_le_bytes())
            .kv("a.bool", 7, &[1])
            .kv("a.u64", 10, &u64::MAX.to_le_bytes())
            .kv("a.i64", 11, &(-1i64).to_le_bytes())
            .kv("a.f64", 12, &0.25f64.to_le_bytes())
            .bytes(),
    );
    let hp = header.hyperparameters();
    assert_eq!(hp.head_count, Some(LayerCounts::PerLayer(vec![8, 8, 4])));
    assert_eq!(hp.head_count.unwrap().max(), 8);
    let values: Vec<_> = header.metadata()[2..]
        .iter()
        .map(|m| m.value().clone())
        .collect();
    assert_eq!(
        values,
        [
            MetaValue::U8(7),
            MetaValue::I8(-1),
            MetaValue::U16(257),
            MetaValue::I16(-2),
            MetaValue::I32(-3),
            MetaValue::F32(1.5),
            MetaValue::Bool(true),
            MetaValue::U64(u64::MAX),
            MetaValue::I64(-1),
            MetaValue::F64(0.25),
        ]
    );
}

#[test]
fn tensor_bytes_follow_the_block_size_of_each_quantization() {
    // q4_K: 3 blocks of 144 bytes a row; iq4_xs: 16 × 136; tq2_0: 66 per 256; f32: 4 each
    let expected = [3 * 144 * 10, 16 * 136 * 4096, 66 * 3, 4 * 32];
    let header = parsed(
        &Gguf::default()
            .tensor("blk.0.ffn_down.weight", &[768, 10], 12, 0)
            .tensor("blk.0.attn_q.weight", &[4096, 4096], 23, 4320)
            .tensor("blk.1.attn_v.weight", &[256, 3], 35, 4320 + 8912896)
            .tensor("rope_freqs.weight", &[32], 0, 4320 + 8912896 + 224)
            .bytes(),
    );
    let bytes: Vec<u64> = header.tensors().iter().map(|t| t.bytes()).collect();
    assert_eq!(bytes, expected);
    assert_eq!(header.data_bytes(), 4320 + 8912896 + 224 + 128);
    let layers = header.layers();
    assert_eq!(
        layers
            .iter()
            .map(|l| (l.index, l.bytes()))
            .collect::<Vec<_>>(),
        [(0, expected[0] + expected[1]), (1, 198)]
    );
    assert_eq!(header.non_layer_tensors().len(), 1);
    assert_eq!(main_layer_type(&header), Some(GgmlType::Iq4Xs));
}

#[test]
fn malformed_headers_get_typed_errors() {
    let too_many = |field: usize, value: u64| {
        let mut b = Gguf::default().bytes();
        b[8 + 8 * field..16 + 8 * field].copy_from_slice(&value.to_le_bytes());
        read_gguf(&b)
    };
    assert_eq!(
        too_many(0, GgufLimit::Tensors.max() + 1),
        Err(GgufError::OverLimit {
            limit: GgufLimit::Tensors,
            value: GgufLimit::Tensors.max() + 1
        })
    );
    assert!(matches!(
        too_many(1, u64::MAX),
        Err(GgufError::OverLimit { .. })
    ));
    let one = |g: Gguf| read_gguf(&g.bytes());
    let key = || "k".to_string();
    assert_eq!(
        one(Gguf::default().kv("k", 13, &[])),
        Err(GgufError::UnknownValueType {
            key: key(),
            type_id: 13
        })
    );
    assert_eq!(
        one(Gguf::default().kv("k", 9, &array_header(9, 1))),
        Err(GgufError::NestedArray { key: key() })
    );
    assert_eq!(
        one(Gguf::default().u32("k", 1).u32("k", 2)),
        Err(GgufError::DuplicateKey { key: key() })
    );
    assert!(matches!(
        one(Gguf::default().kv("k", 9, &array_header(0, GgufLimit::ArrayLength.max() + 1))),
        Err(GgufError::OverLimit {
            limit: GgufLimit::ArrayLength,
            ..
        })
    ));
    assert_eq!(
        one(Gguf::default().u32("general.alignment", 48)),
        Err(GgufError::BadAlignment)
    );
    let tensor =
        |dims: &[u64], ty: u32, offset: u64| one(Gguf::default().tensor("t", dims, ty, offset));
    let t = || "t".to_string();
    assert_eq!(tensor(&[32], 3, 0).map(|h| h.tensor_bytes()), Ok(20));
    assert_eq!(
        tensor(&[32], 4, 0),
        Err(GgufError::UnknownTensorType {
            tensor: t(),
            type_id: 4
        })
    );
    assert_eq!(
        tensor(&[48], 2, 0),
        Err(GgufError::PartialBlock {
            tensor: t(),
            row: 48,
            block: 32
        })
    );
    assert_eq!(
        tensor(&[1 << 62, 4], 0, 0),
        Err(GgufError::TensorTooLarge { tensor: t() })
    );
    assert_eq!(
        tensor(&[u64::MAX, 0], 0, 0),
        Err(GgufError::TensorTooLarge { tensor: t() })
    );
    assert_eq!(
        tensor(&[1; 5], 0, 0),
        Err(GgufError::OverLimit {
            limit: GgufLimit::Dimensions,
            value: 5
        })
    );
    assert_eq!(
        tensor(&[8], 0, 32),
        Err(GgufError::UnexpectedOffset {
            tensor: t(),
            offset: 32,
            expected: 0
        })
    );
    let twice = Gguf::default()
        .tensor("t", &[8], 0, 0)
        .tensor("t", &[8], 0, 32);
    assert_eq!(one(twice), Err(GgufError::DuplicateTensor { name: t() }));
    let long = "x".repeat(64);
    assert!(matches!(
        one(Gguf::default().tensor(&long, &[8], 0, 0)),
        Err(GgufError::OverLimit {
            limit: GgufLimit::TensorNameLength,
            value: 64
        })
    ));
    let mut bad_utf8 = Gguf::default().tensor("t", &[8], 0, 0).bytes();
    bad_utf8[32] = 0xff;
    assert_eq!(read_gguf(&bad_utf8), Err(GgufError::NotUtf8 { offset: 24 }));
}

#[test]
fn every_error_reads_as_a_sentence() {
    let errors = [
        GgufError::NeedMoreBytes { needed: 10 },
        GgufError::NotGguf { magic: *b"GGML" },
        GgufError::OverLimit {
            limit: GgufLimit::StringLength,
            value: 1 << 30,
        },
        GgufError::UnexpectedOffset {
            tensor: "t".into(),
            offset: 1,
            expected: 0,
        },
    ];
    for e in errors {
        let text = e.to_string();
        assert!(text.len() > 20 && !text.ends_with('.'), "{text}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = read_gguf(&bytes);
    }

    #[test]
    fn arbitrary_bytes_after_a_valid_start_never_panic(
        counts in (0u64..4, 0u64..4),
        rest in proptest::collection::vec(any::<u8>(), 0..512),
    ) {
        let mut bytes = b"GGUF\x03\0\0\0".to_vec();
        bytes.extend_from_slice(&counts.0.to_le_bytes());
        bytes.extend_from_slice(&counts.1.to_le_bytes());
        bytes.extend_from_slice(&rest);
        let _ = read_gguf(&bytes);
    }

    #[test]
    fn a_fixture_with_corrupted_bytes_never_panics(
        edits in proptest::collection::vec((0usize..8416, any::<u8>()), 1..8),
    ) {
        let mut bytes = tiny();
        bytes.truncate(8416);
        for (at, byte) in edits {
            bytes[at] = byte;
        }
        if let Ok(header) = read_gguf(&bytes) {
            let _ = (header.hyperparameters(), header.layers(), header.tensor_bytes());
        }
    }
}
