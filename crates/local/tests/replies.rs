//! The local job's module answers the page: a picked file's header read in growing slices, and
//! a local run's markup in both languages.

use vram_test_support::gguf_split;

use vram_engine::{link::PageSettings, llamacpp::read_gguf, llamacpp::GgufSummary, Job, Scenario};
use vram_local_run::{header_reply, local_reply, parts_reply, GgufReply, LocalView};

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
    assert_eq!(
        parts_reply(&first_only, &sizes),
        GgufReply::MorePart { part: 1, bytes: 24 }
    );
    // the second part cut inside its header: at least twice what it has
    let cut = [parts[0].as_slice(), &parts[1][..100]];
    assert!(
        matches!(parts_reply(&cut, &sizes), GgufReply::MorePart { part: 1, bytes } if bytes >= 200)
    );
    let both = [parts[0].as_slice(), parts[1].as_slice()];
    let GgufReply::Gguf(text) = parts_reply(&both, &sizes) else {
        panic!("both headers give a summary");
    };
    assert_eq!(GgufSummary::from_text(&text).unwrap(), whole);
}

#[test]
fn a_whole_header_gives_the_summary_a_link_carries() {
    let bytes = fixture();
    let GgufReply::Gguf(text) = header_reply(&bytes, bytes.len() as u64 + 1_000_000) else {
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
    let GgufReply::More(next) = header_reply(&bytes[..64], file_size) else {
        panic!("did not ask for more");
    };
    assert!(next > 64 && next <= file_size, "{next}");
}

#[test]
fn a_whole_file_that_ends_inside_its_header_is_refused_in_both_languages() {
    let bytes = fixture();
    let GgufReply::Error([en, zh]) = header_reply(&bytes[..64], 64) else {
        panic!("not refused");
    };
    assert!(en.contains("GGUF") && zh.contains("GGUF"), "{en} / {zh}");
    assert_ne!(en, zh);
}

#[test]
fn a_file_that_is_not_gguf_is_refused() {
    let reply = header_reply(b"this is not a model", 19);
    assert!(matches!(reply, GgufReply::Error(_)), "{reply:?}");
}

#[test]
fn a_local_run_answers_with_a_verdict_table_and_chart_in_english_and_chinese() {
    let LocalView([en, zh]) = local_reply(&local_query(""));
    let (results_en, chart_en, results_zh, chart_zh) = (en.results, en.chart, zh.results, zh.chart);
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
    let LocalView([en, zh]) = reply;
    assert!(en.results.contains("verdict error") && zh.results.contains("verdict error"));
    assert!(!en.results.contains("local-devices"));
    assert!(en.chart.is_empty());
}

#[test]
fn the_reply_reaches_the_page_as_bytes_it_decodes_to_the_same_answer() {
    let bytes = vram_local_run::read_gguf_header(b"this is not a model", 19.0);
    let Some(GgufReply::Error([en, zh])) = vram_messages::decode(&bytes) else {
        panic!("no refusal in {bytes:?}");
    };
    assert!(!en.is_empty() && en != zh);
    let bytes = vram_local_run::local_view(&local_query(""));
    assert_eq!(
        vram_messages::decode::<LocalView>(&bytes),
        Some(local_reply(&local_query("")))
    );
}
