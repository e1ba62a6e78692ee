//! A model id typed on the page, read from a stand-in Hub served on the page's own origin under
//! `/hub` (`e2e::StandInHub`), which the page is pointed at through the endpoint field users have:
//! the model fills in, the chart shows the files' exact weights, a gated repository says so, and
//! the link reopens the same budget with no Hub behind it. A GGUF repository lists its files; the
//! one picked plans the llama.cpp job from its header, read in Range requests that stay inside
//! it. A Hub that does not answer in time, or not at all, is said so.

use vram_test_support::checkpoints;
use vram_test_support::gguf_split;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use e2e::{HubFile, Page, StandInHub, HUB_SHA};
use vram_engine::{
    llamacpp::read_gguf, llamacpp::GgufHeader, llamacpp::GgufSummary, local::LocalOverview,
    scenario::GgufFile, GIB,
};

const GPTQ: &str = "llama-2-7b-gptq";

/// The GPTQ checkpoint rebuilt from its real config.json (one shard: only its header is served,
/// claiming the whole file's length), the bytes the safetensors spec gives its tensors, and a
/// gated repository.
fn hub() -> (StandInHub, u64) {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/hub");
    let config = checkpoints::config_text(&fixtures, GPTQ);
    let cfg: serde_json::Value = serde_json::from_str(&config).unwrap();
    let tensors = checkpoints::tensors(&cfg, checkpoints::Storage::Gptq);
    let data: u64 = tensors.iter().map(|t| t.bytes()).sum();
    let header = checkpoints::header_bytes(&tensors, &[("format", "pt")]);
    let mut files = HashMap::new();
    files.insert(
        "config.json".to_string(),
        HubFile {
            claimed_len: config.len() as u64,
            bytes: config.clone().into_bytes(),
        },
    );
    files.insert(
        "model.safetensors".to_string(),
        HubFile {
            claimed_len: header.len() as u64 + data,
            bytes: header,
        },
    );
    let gated = HashMap::from([(
        "config.json".to_string(),
        HubFile {
            claimed_len: config.len() as u64,
            bytes: config.into_bytes(),
        },
    )]);
    let mut hub = StandInHub::default();
    hub.repos.insert(format!("org/{GPTQ}"), (files, false));
    hub.repos.insert("org/gated".into(), (gated, true));
    (hub, data)
}

/// Chooses the Hub source, points the endpoint at the stand-in and reads `id`.
fn read(page: &Page, id: &str) {
    page.click("#model-source-hub");
    page.wait_for("#hub-id", 10);
    let endpoint = page.server.url("/hub");
    page.set("#hub-endpoint", &endpoint, "change");
    page.set("#hub-id", id, "input");
    page.click("#hub-read");
}

/// The 1-GPU bar's weights segment, in GiB, from its title ("Weights: 3.89 GiB").
fn weights_gib(page: &Page) -> f64 {
    let title = page.text_of("#chart polygon.seg[data-component='weights'][data-gpus='1'] title");
    title
        .rsplit(": ")
        .next()
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no size in {title:?}"))
}

#[test]
fn a_typed_model_id_fills_the_model_with_its_exact_weights_and_the_link_reopens_it_offline() {
    let (hub, bytes) = hub();
    let page = Page::open_with_hub("/?v=1&j=infer", hub);
    read(&page, &format!("org/{GPTQ}"));
    page.wait_until("the model read from the stand-in Hub", 20, |s| {
        s.text_of("#model-name").contains(GPTQ)
    });
    let lines = page.text_of("#hub-lines");
    assert!(
        lines.contains("1 shard header(s)") && lines.contains("GPTQ"),
        "{lines}"
    );
    assert!(page.text_of("#hub-source").contains(HUB_SHA));
    // GPTQ's scales and zero points included: the files' bytes, not int4's nominal 4 bits
    let shown = weights_gib(&page);
    let exact = bytes as f64 / GIB as f64;
    assert!(
        (shown - exact).abs() < 0.006,
        "{shown} GiB shown, {exact} GiB in the files"
    );
    page.wait_until("the link to carry the Hub source", 5, |s| {
        s.url().contains("hf=org%2Fllama-2-7b-gptq%40") && s.url().contains("hfe=")
    });
    let total = page.text_of("#total");
    let endpoint = page.server.url("/hub");
    let url = page.url();
    let query = &url[url.find("/?").expect("a query")..];
    drop(page);
    // a server with no Hub behind it: the link alone carries the model
    let again = Page::open(query);
    again.wait_for("#chart polygon.seg[data-component='weights']", 10);
    assert_eq!(again.text_of("#total"), total);
    assert!(again.text_of("#model-name").contains(GPTQ));
    assert!((weights_gib(&again) - shown).abs() < 1e-9);
    // the endpoint came back from the link (hfe=) too
    assert_eq!(again.value_of("#hub-endpoint"), endpoint);
    again.assert_no_console_errors();
}

#[test]
fn a_gated_repository_shows_its_message_and_keeps_the_budget() {
    let (hub, _) = hub();
    let page = Page::open_with_hub("/?v=1&j=infer", hub);
    let total = page.text_of("#total");
    read(&page, "org/gated");
    page.wait_until("the gated message", 20, |s| {
        s.text_of("#hub-error")
            .contains("gated or private (HTTP 401)")
    });
    assert!(page.text_of("#hub-error").contains("config.json"));
    assert_eq!(page.text_of("#total"), total);
    assert!(!page.exists("#hub-status"));
}

/// The fixture GGUF headers the stand-in serves (real headers from the engine's test data).
fn gguf_fixture(name: &str) -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/gguf");
    std::fs::read(dir.join(name)).unwrap()
}

const GGUF_REPO: &str = "org/m-GGUF";

/// A GGUF repository: Q4_K_M and Q8_0 in one file each, Q4_0 split in two parts, each file
/// claiming its whole length (header, then the tensor data it does not hold); and a slow one.
fn gguf_hub() -> StandInHub {
    let q4_0 =
        GgufSummary::of(&read_gguf(&gguf_fixture("llama-q4_0-tied.header.gguf")).unwrap()).unwrap();
    let [p1, p2]: [Vec<u8>; 2] = gguf_split::split_parts(&q4_0, 2).try_into().unwrap();
    let mut files = HashMap::new();
    for (name, bytes) in [
        ("m-Q4_K_M.gguf", gguf_fixture("llama-q4_k.header.gguf")),
        ("m-Q8_0.gguf", gguf_fixture("llama-q8_0.header.gguf")),
        ("m-Q4_0-00001-of-00002.gguf", p1),
        ("m-Q4_0-00002-of-00002.gguf", p2),
    ] {
        let claimed_len = gguf_split::file_length(&bytes);
        files.insert(name.to_string(), HubFile { bytes, claimed_len });
    }
    let mut hub = StandInHub::default();
    hub.repos.insert(GGUF_REPO.into(), (files, false));
    hub.repos.insert("org/slow".into(), (HashMap::new(), false));
    hub.slow.insert("org/slow".into(), Duration::from_secs(8));
    hub
}

/// The model bytes the local run's device rows hold in all.
fn model_bytes(page: &Page) -> u64 {
    let script = "return [...document.querySelectorAll('#local-devices td[data-model]')].reduce((a, e) => a + Number(e.dataset.model), 0)";
    page.js(script, vec![]).as_u64().expect("model bytes")
}

/// The model bytes llama.cpp's plan gives the fixture's own header with the page's settings:
/// its tensors' bytes, as each device's buffer holds them.
fn planned_model_bytes(url: &str, header: &GgufHeader) -> u64 {
    let mut s = vram_engine::link::decode(url).scenario;
    s.gguf = Some(Box::new(GgufFile {
        name: "fixture.gguf".into(),
        summary: GgufSummary::of(header).unwrap(),
        source: None,
    }));
    let plan = LocalOverview::compute(&s).expect("a plan").plan;
    let bytes: u64 = plan.devices.iter().map(|(_, b)| b.model).sum();
    assert!(bytes >= header.tensor_bytes(), "{bytes}");
    bytes
}

#[test]
fn picking_q4_k_m_from_a_gguf_repository_plans_its_header_read_in_ranges_that_stop_inside_it() {
    let hub = gguf_hub();
    let seen = hub.seen.clone();
    let page = Page::open_with_hub("/?v=1&j=infer", hub);
    read(&page, GGUF_REPO);
    page.wait_for("#hub-ggufs button.hub-gguf", 20);
    // the split file's two parts are one entry
    assert_eq!(page.count("#hub-ggufs button.hub-gguf"), 3);
    assert!(page
        .text_of("#hub-ggufs")
        .contains("m-Q4_0-00001-of-00002.gguf ×2"));
    assert!(page.text_of("#hub-lines").contains("3 GGUF model file(s)"));
    seen.lock().unwrap().clear();
    page.click("#hub-ggufs button[data-quant='Q4_K_M']");
    page.wait_until("the llama.cpp job with the picked file", 20, |s| {
        s.exists("#gguf-name") && s.text_of("#gguf-name") == "m-Q4_K_M.gguf"
    });
    page.wait_for("#local-devices td[data-model]", 10);
    let header = read_gguf(&gguf_fixture("llama-q4_k.header.gguf")).unwrap();
    let planned = planned_model_bytes(&page.url(), &header);
    assert_eq!(model_bytes(&page), planned);
    let lines = page.text_of("#hub-lines");
    assert!(
        lines.contains("m-Q4_K_M.gguf") && lines.contains("bytes fetched"),
        "{lines}"
    );
    // only the header was asked for: 24 bytes first, then ranges that follow on from each other
    let ranges: Vec<(u64, u64)> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(path, range)| {
            assert!(path.ends_with("/m-Q4_K_M.gguf"), "{path}");
            let (a, b) = range
                .as_deref()
                .unwrap()
                .trim_start_matches("bytes=")
                .split_once('-')
                .unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect();
    assert_eq!(ranges[0], (0, 23));
    for pair in ranges.windows(2) {
        assert_eq!(pair[1].0, pair[0].1 + 1, "{ranges:?}");
    }
    assert!(
        ranges.iter().all(|r| r.0 < header.header_bytes()),
        "a range starts past the header: {ranges:?}"
    );
    // prefixes that double: the last ends before twice the header, far from the tensor data's end
    let asked = ranges.last().unwrap().1 + 1;
    assert!(asked < 2 * header.header_bytes(), "{asked} bytes asked");
    page.wait_until("the link to carry the file and its repository", 5, |s| {
        s.url().contains("gn=m-Q4_K_M.gguf")
            && s.url().contains(&format!("hf=org%2Fm-GGUF%40{HUB_SHA}"))
    });
    let url = page.url();
    let opened = vram_engine::link::decode(&url).scenario;
    let summary = GgufSummary::of(&header).unwrap();
    assert_eq!(opened.gguf.as_ref().map(|f| &f.summary), Some(&summary));
    let shown = page.text_of("#local");
    let query = url[url.find("/?").expect("a query")..].to_string();
    drop(page);
    // the stand-in is gone: the link alone carries the file's plan
    let again = Page::open(&query);
    again.wait_for("#local-devices td[data-model]", 10);
    assert_eq!(again.text_of("#gguf-name"), "m-Q4_K_M.gguf");
    assert_eq!(again.text_of("#local"), shown);
    assert_eq!(model_bytes(&again), planned);
    again.assert_no_console_errors();
}

#[test]
fn a_hub_that_does_not_answer_in_time_says_so_while_the_page_keeps_moving() {
    let page = Page::open_with_hub("/?v=1&j=infer", gguf_hub());
    page.click("#model-source-hub");
    page.wait_for("#hub-box", 10);
    // the page's 30 s, shortened for the test the way the page reads it
    page.js(
        "document.getElementById('hub-box').dataset.timeoutMs = '2000'",
        vec![],
    );
    read(&page, "org/slow");
    page.wait_for("#hub-status", 5);
    let total = page.text_of("#total");
    page.set("#seq-num", "16384", "change");
    page.wait_until("the total to follow the slider during the read", 5, |s| {
        s.text_of("#total") != total
    });
    assert!(page.exists("#hub-status"), "the read is still pending");
    page.wait_until("the timeout message", 10, |s| {
        s.text_of("#hub-error")
            .contains("did not answer within 2 s")
    });
    page.click("#lang-toggle");
    page.wait_until("the message in Chinese", 5, |s| {
        s.text_of("#hub-error").contains("2 秒内没有响应")
    });
}

#[test]
fn a_stopped_hub_is_said_to_be_unreachable() {
    let page = Page::open_with_hub("/?v=1&j=infer", gguf_hub());
    read(&page, GGUF_REPO);
    page.wait_for("#hub-ggufs button.hub-gguf", 20);
    // the readers module is loaded; then nothing answers on the port any more
    page.server.stop();
    page.click("#hub-read");
    page.wait_until("the offline message", 15, |s| {
        s.text_of("#hub-error").contains("cannot reach 127.0.0.1")
    });
    assert!(page.text_of("#hub-error").contains("offline?"));
}
