//! The local job's module answers the page: a picked file's header read in growing slices, and
//! a local run's markup in both languages.

use vram_test_support::gguf_split;

use vram_engine::{link::PageSettings, llamacpp::read_gguf, llamacpp::GgufSummary, Job, Scenario};
use vram_local_run::{header_reply, local_reply, parts_reply, Reply};

fn fixture() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/fixtures/gguf/llama-moe-q4_0.header.gguf"
    ))
    .unwrap()
}

fn local_query(extra: &str) -> String {
    let s = Scenario {
        job: Job::Local,
        ..Scenario::default()
    };
    format!(
        "{}{extra}",
        vram_engine::link::encode(&s, &PageSettings::default())
    )
}

#[test]
fn a_split_models_parts_are_asked_for_in_turn_and_summed_into_one_summary() {
    let whole = GgufSummary::of(&read_gguf(&fixture()).unwrap()).unwrap();
    let parts = gguf_split::split_parts(&whole, 2);
    let sizes: Vec<u64> = parts.iter().map(|p| gguf_split::file_length(p)).collect();
    // nothing of the second part yet: its magic, version and counts first
    let first_only = [parts[0].as_slice(), &[]];
    assert_eq!(parts_reply(&first_only, &sizes), Reply::MorePart(1, 24));
    // the second part cut inside its header: at least twice what it has
    let cut = [parts[0].as_slice(), &parts[1][..100]];
    assert!(matches!(parts_reply(&cut, &sizes), Reply::MorePart(1, n) if n >= 200));
    let both = [parts[0].as_slice(), parts[1].as_slice()];
    let Reply::Gguf(text) = parts_reply(&both, &sizes) else {
        panic!("both headers give a summary");
    };
    assert_eq!(GgufSummary::from_text(&text).unwrap(), whole);
}

#[test]
fn a_whole_header_gives_the_summary_a_link_carries() {
    let bytes = fixture();
    let Reply::Gguf(text) = header_reply(&bytes, bytes.len() as u64 + 1_000_000) else {
        panic!("no summary");
    };
    let summary = GgufSummary::from_text(&text).unwrap();
    assert!(summary.header().is_ok());
    assert_eq!(summary.to_text(), text);
}

#[test]
fn a_slice_that_ends_inside_the_header_asks_for_more_of_the_file() {
    let bytes = fixture();
    let file_size = bytes.len() as u64 + 1_000_000;
    let Reply::More(next) = header_reply(&bytes[..64], file_size) else {
        panic!("did not ask for more");
    };
    assert!(next > 64 && next <= file_size, "{next}");
}

#[test]
fn a_whole_file_that_ends_inside_its_header_is_refused_in_both_languages() {
    let bytes = fixture();
    let Reply::Error([en, zh]) = header_reply(&bytes[..64], 64) else {
        panic!("not refused");
    };
    assert!(en.contains("GGUF") && zh.contains("GGUF"), "{en} / {zh}");
    assert_ne!(en, zh);
}

#[test]
fn a_file_that_is_not_gguf_is_refused() {
    let reply = header_reply(b"this is not a model", 19);
    assert!(matches!(reply, Reply::Error(_)), "{reply:?}");
}

#[test]
fn a_local_run_answers_with_a_verdict_table_and_chart_in_english_and_chinese() {
    let Reply::Local([(results_en, chart_en), (results_zh, chart_zh)]) =
        local_reply(&local_query(""))
    else {
        panic!("no answer");
    };
    for results in [&results_en, &results_zh] {
        assert!(results.contains(r#"id="verdict""#));
        assert!(results.contains(r#"id="local-devices""#));
        assert!(results.contains("llama-server -m model.gguf"));
    }
    assert!(results_zh.contains("CPU 内存"), "{results_zh}");
    assert!(chart_en.starts_with("<svg") && chart_zh.starts_with("<svg"));
    assert_ne!(chart_en, chart_zh);
}

#[test]
fn a_summary_whose_header_does_not_read_is_said_in_place_of_the_answer() {
    let reply = local_reply(&local_query("&gg=llama~L1~x.weight,33,q4_0,"));
    let Reply::Local([(en, chart_en), (zh, _)]) = reply else {
        panic!("no reply");
    };
    assert!(en.contains("verdict error") && zh.contains("verdict error"));
    assert!(!en.contains("local-devices"));
    assert!(chart_en.is_empty());
}

#[test]
fn the_reply_reaches_the_page_as_its_kind_then_its_texts() {
    assert_eq!(Reply::More(7).into_parts(), ["more", "7"]);
    assert_eq!(
        Reply::Error(["no".into(), "不".into()]).into_parts(),
        ["error", "no", "不"]
    );
    let parts = local_reply(&local_query("")).into_parts();
    assert_eq!(parts.len(), 5);
    assert_eq!(parts[0], "local");
}
