//! A model id typed on the page, read from a stand-in Hub served on the page's own origin under
//! `/hub` (`e2e::StandInHub`), which the page is pointed at through the endpoint field users have:
//! the model fills in, the chart shows the files' exact weights, a gated repository says so, and
//! the link reopens the same budget with no Hub behind it.

#[path = "../../engine/tests/common/checkpoints.rs"]
mod checkpoints;

use std::collections::HashMap;
use std::path::PathBuf;

use e2e::{HubFile, Page, StandInHub, HUB_SHA};
use vram_engine::GIB;

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
    let title = page.text_of("#chart g.seg[data-component='weights'][data-gpus='1'] title");
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
    again.wait_for("#chart g.seg[data-component='weights']", 10);
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
