// A GGUF repository on the stand-in Hub of `tests.rs`: its files listed by quantization with a
// split file's parts together, a file's header read with Range requests and handed to the
// llama.cpp module's own GGUF reader (`vram_local_run::parts_reply`), never its tensor data.

use vram_test_support::gguf_split;

use std::path::PathBuf;

use super::tests::{answer, now, File, StandIn, ENDPOINT, SHA};
use super::HubReply;
use super::{gguf_reply, read_gguf_file, GgufRead, HubAnswer, HubProblem, PartsReader};
use vram_engine::{hub::HubEndpoint, hub::HubSource, llamacpp::read_gguf, llamacpp::GgufSummary};
use vram_messages::GgufReply;

const REPO: &str = "org/m-GGUF";

fn fixture(name: &str) -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/gguf");
    std::fs::read(dir.join(name)).unwrap()
}

/// The llama.cpp module's reader, as the page hands it the bytes.
struct LocalModule;

impl PartsReader for LocalModule {
    fn read(&self, parts: &[Vec<u8>], sizes: &[u64]) -> Option<GgufReply> {
        let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        Some(vram_local_run::parts_reply(&parts, sizes))
    }
}

/// Q4_K_M in one file (a real header fixture), Q8_0 split in two parts, a README, and the
/// listing with every file's size.
fn gguf_hub() -> StandIn {
    let mut hub = StandIn::default();
    let q8 = GgufSummary::of(&read_gguf(&fixture("llama-q8_0.header.gguf")).unwrap()).unwrap();
    let [q8_1, q8_2]: [Vec<u8>; 2] = gguf_split::split_parts(&q8, 2).try_into().unwrap();
    let files = [
        ("m-Q4_K_M.gguf", fixture("llama-q4_k.header.gguf")),
        ("m-Q8_0-00001-of-00002.gguf", q8_1),
        ("m-Q8_0-00002-of-00002.gguf", q8_2),
        ("README.md", b"# m".to_vec()),
    ];
    let mut siblings = Vec::new();
    for (name, bytes) in files {
        let claimed = match name.ends_with(".gguf") {
            true => gguf_split::file_length(&bytes),
            false => bytes.len() as u64,
        };
        siblings.push(format!("{{\"rfilename\":{name:?},\"size\":{claimed}}}"));
        let url = format!("{ENDPOINT}/{REPO}/resolve/{SHA}/{name}");
        hub.files.insert(url, File { bytes, claimed });
    }
    let listing = format!(
        "{{\"id\":\"{REPO}\",\"sha\":\"{SHA}\",\"siblings\":[{}]}}",
        siblings.join(",")
    );
    hub.files.insert(
        format!("{ENDPOINT}/api/models/{REPO}?blobs=true"),
        File {
            bytes: listing.into_bytes(),
            claimed: 0,
        },
    );
    hub
}

fn source() -> HubSource {
    HubSource {
        repo: REPO.into(),
        revision: SHA.into(),
        read_on: "2026-12-01".into(),
    }
}

fn read_file(hub: &StandIn, parts: &[&str]) -> Result<GgufRead, HubProblem> {
    let endpoint = HubEndpoint::parse(ENDPOINT).unwrap();
    let parts: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    now(read_gguf_file(
        hub,
        &endpoint,
        &source(),
        &parts,
        &LocalModule,
    ))
}

#[test]
fn a_gguf_repository_lists_its_files_by_quantization_with_a_split_files_parts_as_one() {
    let hub = gguf_hub();
    let Ok(HubAnswer::Gguf(repo)) = answer(&hub, REPO) else {
        panic!("a GGUF repository lists its files");
    };
    assert_eq!(repo.source.id(), format!("{REPO}@{SHA}"));
    let listed: Vec<(&str, usize)> = repo
        .entries
        .iter()
        .map(|e| (e.quant.as_str(), e.parts.len()))
        .collect();
    assert_eq!(listed, [("Q4_K_M", 1), ("Q8_0", 2)]);
    let q4 = gguf_split::file_length(&fixture("llama-q4_k.header.gguf"));
    assert_eq!(repo.entries[0].bytes, Some(q4));
    // nothing but the listing is read before a file is picked
    assert_eq!(hub.seen.borrow().len(), 1);
}

#[test]
fn picking_a_file_reads_its_header_in_growing_ranges_that_stop_inside_it() {
    let hub = gguf_hub();
    let bytes = fixture("llama-q4_k.header.gguf");
    let header = read_gguf(&bytes).unwrap();
    let r = read_file(&hub, &["m-Q4_K_M.gguf"]).unwrap();
    // the same summary a picked local file gives
    let local = GgufSummary::of(&header).unwrap();
    assert_eq!(GgufSummary::from_text(&r.summary).unwrap(), local);
    let seen = hub.seen.borrow();
    let ranges: Vec<(u64, u64)> = seen.iter().map(|(_, r)| r.unwrap()).collect();
    assert_eq!(ranges[0], (0, 24), "magic, version and counts first");
    let mut end = 0;
    for &(start, len) in &ranges {
        assert_eq!(
            start, end,
            "each range starts where the last ended: {ranges:?}"
        );
        assert!(
            start < header.header_bytes(),
            "a range past the header: {ranges:?}"
        );
        end = start + len;
    }
    assert_eq!(r.requests, ranges.len());
    // the stand-in holds the header (padded to the data's alignment), not the tensor data
    assert_eq!(r.fetched, end.min(bytes.len() as u64));
    assert!(end < 2 * header.header_bytes(), "{end} bytes asked");
}

#[test]
fn a_split_file_reads_every_parts_header_and_plans_all_their_tensors() {
    let hub = gguf_hub();
    let r = read_file(
        &hub,
        &["m-Q8_0-00001-of-00002.gguf", "m-Q8_0-00002-of-00002.gguf"],
    )
    .unwrap();
    let whole = read_gguf(&fixture("llama-q8_0.header.gguf")).unwrap();
    let read = GgufSummary::from_text(&r.summary)
        .unwrap()
        .header()
        .unwrap();
    assert_eq!(read.tensor_bytes(), whole.tensor_bytes());
    assert_eq!(read.tensors().len(), whole.tensors().len());
    let parts: Vec<bool> = ["00001", "00002"]
        .iter()
        .map(|p| hub.seen.borrow().iter().any(|(url, _)| url.contains(p)))
        .collect();
    assert_eq!(parts, [true, true]);
    let HubReply::Gguf { lines, name, .. } = gguf_reply(Ok(r)) else {
        panic!("a read file replies with its summary");
    };
    assert_eq!(name, "m-Q8_0-00001-of-00002.gguf");
    assert!(lines[0].contains("(2 part(s))"), "{}", lines[0]);
    assert!(lines[1].contains("2 个部分"), "{}", lines[1]);
}

#[test]
fn a_file_that_is_not_gguf_is_refused_in_both_languages_after_its_first_24_bytes() {
    let hub = gguf_hub();
    let HubReply::Error([en, zh]) = gguf_reply(read_file(&hub, &["README.md"])) else {
        panic!("a README is not a GGUF file");
    };
    assert!(!en.is_empty() && en != zh, "{en} / {zh}");
    let seen = hub.seen.borrow();
    assert_eq!(
        seen.iter().map(|(_, r)| *r).collect::<Vec<_>>(),
        [Some((0, 24))]
    );
}
