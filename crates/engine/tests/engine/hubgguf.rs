//! A GGUF file picked from a Hub repository: a split file's parts joined into one model, and the
//! link carrying the file's repository and commit (`hf=`) beside its summary (`gg=`, `gn=`).

use vram_test_support::gguf_split;

use vram_engine::{
    hub::HubSource, link::PageSettings, llamacpp::read_gguf, llamacpp::GgufHeader,
    llamacpp::GgufSummary, scenario::GgufFile, Job, ModelChoice, Scenario,
};

fn fixture(name: &str) -> GgufHeader {
    let path = format!("{}/tests/fixtures/gguf/{name}", env!("CARGO_MANIFEST_DIR"));
    read_gguf(&std::fs::read(path).unwrap()).unwrap()
}

fn source() -> HubSource {
    HubSource {
        repo: "org/m-GGUF".into(),
        revision: "0123456789abcdef0123456789abcdef01234567".into(),
        read_on: "2026-12-01".into(),
    }
}

fn split_headers(whole: &GgufHeader, parts: usize) -> Vec<GgufHeader> {
    let summary = GgufSummary::of(whole).unwrap();
    gguf_split::split_parts(&summary, parts)
        .iter()
        .map(|bytes| read_gguf(bytes).unwrap())
        .collect()
}

#[test]
fn a_split_models_parts_joined_hold_every_tensor_and_byte_of_the_whole_file() {
    let whole = fixture("llama-q8_0.header.gguf");
    let mut parts = split_headers(&whole, 3).into_iter();
    let first = parts.next().unwrap();
    assert!(first.tensors().len() < whole.tensors().len());
    let joined = first.with_split_parts(&parts.collect::<Vec<_>>()).unwrap();
    assert_eq!(joined.tensor_bytes(), whole.tensor_bytes());
    assert_eq!(
        GgufSummary::of(&joined).unwrap(),
        GgufSummary::of(&whole).unwrap()
    );
}

#[test]
fn a_part_given_twice_is_refused_rather_than_counted_twice() {
    let whole = fixture("llama-q4_k.header.gguf");
    let parts = split_headers(&whole, 2);
    let twice = [parts[1].clone(), parts[1].clone()];
    assert_eq!(parts[0].clone().with_split_parts(&twice), None);
}

#[test]
fn a_gguf_from_the_hub_travels_in_the_link_with_its_repository_and_reopens_the_same() {
    let summary = GgufSummary::of(&fixture("llama-q4_k.header.gguf")).unwrap();
    let s = Scenario {
        job: Job::Local,
        gguf: Some(Box::new(GgufFile {
            name: "m-Q4_K_M.gguf".into(),
            summary,
            source: Some(source()),
        })),
        ..Scenario::default()
    };
    let link = vram_engine::link::encode(&s, &PageSettings::default());
    assert!(
        link.contains("gn=m-Q4_K_M.gguf") && link.contains("hf=org%2Fm-GGUF%400123"),
        "{link}"
    );
    let opened = vram_engine::link::decode(&link);
    assert!(opened.notices.is_empty(), "{:?}", opened.notices);
    assert_eq!(opened.scenario, s);
}

#[test]
fn beside_a_gguf_file_the_link_keeps_one_hub_source_and_gives_it_to_the_file() {
    let custom = Scenario {
        model: ModelChoice::Custom {
            name: "org/other".into(),
            arch: Box::new(
                vram_engine::model::presets::find("llama-3.1-8b")
                    .unwrap()
                    .architecture(),
            ),
            source: Some(HubSource {
                repo: "org/other".into(),
                ..source()
            }),
        },
        ..Scenario::default()
    };
    let with_file = Scenario {
        job: Job::Local,
        gguf: Some(Box::new(GgufFile {
            name: "m.gguf".into(),
            summary: GgufSummary::of(&fixture("llama-q4_k.header.gguf")).unwrap(),
            source: Some(source()),
        })),
        ..custom.clone()
    };
    let link = vram_engine::link::encode(&with_file, &PageSettings::default());
    assert_eq!(link.matches("hf=").count(), 1, "{link}");
    let opened = vram_engine::link::decode(&link).scenario;
    assert_eq!(opened.gguf.unwrap().source, Some(source()));
    // without a file, the custom model keeps its own source
    let alone = vram_engine::link::decode(&vram_engine::link::encode(
        &custom,
        &PageSettings::default(),
    ))
    .scenario;
    assert_eq!(alone.model, custom.model);
}
