//! The page's first load reads a `gg=` model summary by its text form alone
//! (`vram_engine::link::decode_gguf_unread`), leaving the GGUF reader and writer to the local job's module,
//! which reads the link again with `vram_engine::link::decode` and refuses what the form let pass.

use vram_engine::{
    link::Ignored, link::Notice, link::PageSettings, llamacpp::read_gguf, llamacpp::GgufSummary,
    scenario::GgufFile, Job, Scenario,
};

fn fixture_link() -> String {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gguf/llama-moe-q4_0.header.gguf"
    ))
    .unwrap();
    let summary = GgufSummary::of(&read_gguf(&bytes).unwrap()).unwrap();
    let s = Scenario {
        job: Job::Local,
        gguf: Some(Box::new(GgufFile {
            name: "moe.gguf".into(),
            summary,
            source: None,
        })),
        ..Scenario::default()
    };
    vram_engine::link::encode(&s, &PageSettings::default())
}

fn refused_summary(notices: &[Notice]) -> bool {
    notices.iter().any(|n| {
        matches!(
            n,
            Notice::Ignored {
                why: Ignored::NotAGgufSummary,
                ..
            }
        )
    })
}

#[test]
fn a_summary_whose_header_reads_opens_the_same_scenario_in_both_decoders() {
    let link = fixture_link();
    let full = vram_engine::link::decode(&link);
    let unread = vram_engine::link::decode_gguf_unread(&link);
    assert!(full.scenario.gguf.is_some());
    assert_eq!(full.scenario, unread.scenario);
    assert_eq!(full.notices, unread.notices);
}

#[test]
fn a_summary_of_the_right_form_whose_header_does_not_read_passes_only_the_page_check() {
    // a q4_0 row of 33 values is not a whole number of 32-value blocks
    let link = "?v=1&j=local&gg=llama~L1~x.weight,33,q4_0,";
    let full = vram_engine::link::decode(link);
    assert_eq!(full.scenario.gguf, None);
    assert!(refused_summary(&full.notices), "{:?}", full.notices);
    let unread = vram_engine::link::decode_gguf_unread(link);
    assert!(unread.scenario.gguf.is_some());
    assert!(!refused_summary(&unread.notices), "{:?}", unread.notices);
}

#[test]
fn a_text_that_is_no_summary_is_refused_by_both_decoders() {
    for open in [
        vram_engine::link::decode,
        vram_engine::link::decode_gguf_unread,
    ] {
        let d = open("?v=1&j=local&gg=not%20a%20summary");
        assert_eq!(d.scenario.gguf, None);
        assert!(refused_summary(&d.notices), "{:?}", d.notices);
    }
}
