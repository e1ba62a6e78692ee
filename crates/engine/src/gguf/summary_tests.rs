//! The model summary a share link carries for a GGUF file: it reads back as written, and the
//! header rebuilt from it plans llama.cpp's buffers exactly as the file's own header does.

use std::path::PathBuf;

use crate::{
    llamacpp::decode_bound, llamacpp::plan_llama, llamacpp::read_gguf, llamacpp::Backend,
    llamacpp::GgmlType, llamacpp::GgufHeader, llamacpp::GgufSummary, llamacpp::LlamaSettings,
    llamacpp::SummaryError,
};
use proptest::prelude::*;

fn fixtures() -> Vec<(String, GgufHeader)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gguf");
    let mut headers: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/gguf exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "gguf"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).expect("a readable fixture");
            (name, read_gguf(&bytes).expect("a fixture reads"))
        })
        .collect();
    headers.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(headers.len() >= 8, "the generated fixtures are missing");
    headers
}

fn settings(ngl: u64, cpu_moe: u64) -> LlamaSettings {
    LlamaSettings {
        gpu_layers: Some(ngl),
        context: Some(8192),
        cpu_moe_layers: cpu_moe,
        tensor_split: vec![1.0, 1.0],
        ..LlamaSettings::default()
    }
}

/// The file's `{arch}.block_count`, as llama.cpp reads it.
fn block_count(header: &GgufHeader) -> u64 {
    let key = format!("{}.block_count", header.architecture().unwrap());
    header.get(&key).and_then(|v| v.as_u64()).unwrap()
}

#[test]
fn every_fixture_summary_reads_back_from_its_text_as_written() {
    for (name, header) in fixtures() {
        let summary = GgufSummary::of(&header).unwrap();
        let text = summary.to_text();
        assert_eq!(GgufSummary::from_text(&text), Ok(summary), "{name}: {text}");
    }
}

#[test]
fn the_rebuilt_header_plans_every_buffer_exactly_as_the_file_does() {
    for (name, header) in fixtures() {
        let rebuilt = GgufSummary::of(&header).unwrap().header().unwrap();
        assert_eq!(rebuilt.tensor_bytes(), header.tensor_bytes(), "{name}");
        let n_layer = block_count(&header);
        for backend in [Backend::Cuda, Backend::Metal, Backend::CpuOnly] {
            for ngl in [0, 1, n_layer / 2, n_layer + 1] {
                let s = settings(ngl, 1);
                let file = plan_llama(&header, &s, backend).unwrap();
                let link = plan_llama(&rebuilt, &s, backend).unwrap();
                assert_eq!(link, file, "{name} {backend:?} -ngl {ngl}");
                let speed = |h: &GgufHeader| decode_bound(h, &file, 1, |_| 100_000_000_000);
                assert_eq!(speed(&rebuilt), speed(&header), "{name}");
            }
        }
    }
}

#[test]
fn a_tensor_repeated_over_layers_is_written_once_with_its_layer_range() {
    let (_, header) = fixtures()
        .into_iter()
        .find(|(n, _)| n.starts_with("llama-q8_0"))
        .unwrap();
    let summary = GgufSummary::of(&header).unwrap();
    let q = summary
        .groups
        .iter()
        .find(|g| g.name == "attn_q.weight")
        .unwrap();
    let n_layer = block_count(&header) as u32;
    assert_eq!(q.layers, vec![(0, n_layer - 1)]);
    assert_eq!(q.ggml_type, GgmlType::Q8_0);
    assert!(summary.to_text().len() < 1_500, "{}", summary.to_text());
}

#[test]
fn per_layer_counts_travel_as_runs() {
    let text =
        "llama~L4.E64.H4.K2x1_2x4.V32~token_embd.weight,64x32,f16,~attn_k.weight,64x16,f16,0-3";
    let summary = GgufSummary::from_text(text).unwrap();
    assert_eq!(summary.fields[3], ('K', vec![1, 1, 4, 4]));
    assert_eq!(summary.to_text(), text);
    let header = summary.header().unwrap();
    assert_eq!(header.tensors().len(), 5);
    assert_eq!(GgufSummary::of(&header), Ok(summary));
}

#[test]
fn texts_the_page_never_writes_are_refused() {
    for bad in [
        "",
        "ll ama~L1",
        "llama~Q7",
        "llama~L1~x,1,q9_9,",
        "llama~L1~x,1x1x1x1x1,f16,",
        "llama~L1~x,1,f16,3-1",
        "llama~L1~x,1,f16,0-70000",
        "llama~L1~x,1,f16,,extra",
        "llama~K0x4",
    ] {
        assert_eq!(
            GgufSummary::from_text(bad),
            Err(SummaryError::Unreadable),
            "{bad}"
        );
    }
}

#[test]
fn a_summary_whose_tensor_is_not_whole_blocks_is_refused_when_rebuilt() {
    let summary = GgufSummary::from_text("llama~L1~x.weight,33,q4_0,").unwrap();
    assert!(matches!(summary.header(), Err(SummaryError::Header(_))));
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "[a-zA-Z0-9_.,~x-]{0,200}") {
        if let Ok(s) = GgufSummary::from_text(&text) {
            let _ = s.header();
            prop_assert_eq!(GgufSummary::from_text(&s.to_text()), Ok(s));
        }
    }
}
