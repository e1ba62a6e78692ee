//! "Your measurement" in headless Chromium: pasted logs are compared with the estimate, marked on
//! the chart, carried in the link, and bad pastes are refused in place.

use e2e::Page;
use serde_json::json;

// https://github.com/vllm-project/vllm/issues/10517 (vLLM 0.6.4, V0, RTX 3090, Llama-3.1-8B)
const VLLM_LOG: &str = "\
INFO 11-21 03:02:11 model_runner.py:1077] Loading model weights took 14.9888 GB
INFO 11-21 03:02:12 worker.py:232] Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90
INFO 11-21 03:02:12 gpu_executor.py:113] # GPU blocks: 1952, # CPU blocks: 2048
";

// the keys of torch.cuda.memory_stats() (pytorch/pytorch#27361), as Python prints the dict
const MEMORY_STATS: &str = "{'active.all.allocated': 1530, 'active_bytes.all.peak': 22871605760, \
'allocated_bytes.all.current': 16106127360, 'allocated_bytes.all.peak': 22871605248, \
'reserved_bytes.all.peak': 24159191040, 'num_ooms': 0}";

/// Pastes `text`, presses Compare and waits for the comparison table to show `level`.
#[track_caller]
fn compare(page: &Page, text: &str, level: &str) {
    page.wait_for("#measured-text", 10);
    page.set("#measured-text", text, "input");
    page.click("#measured-apply");
    let row = format!("#measured-table tr[data-level='{level}']");
    page.wait_until(&format!("a {level} row"), 10, |s| s.exists(&row));
}

/// The comparison table's text, the marker's label and the report's presence.
fn shown(page: &Page) -> (String, String, bool) {
    (
        page.text_of("#measured-table"),
        page.text_of("#measured-marker"),
        page.exists("#mismatch-report"),
    )
}

#[test]
fn a_pasted_vllm_log_shows_the_marker_the_difference_and_survives_the_link() {
    let page = Page::open("/?v=1&j=serve&gpu=rtx3090");
    compare(&page, VLLM_LOG, "vllm_weights");
    let weights = page.text_of("#measured-table tr[data-level='vllm_weights']");
    assert!(
        weights.contains("14.99 GiB") && weights.contains("14.96 GiB"),
        "{weights}"
    );
    assert!(weights.contains("(-0.2 %)"), "{weights}");
    assert!(page.text_of("#measured-table").contains("vLLM KV cache"));
    assert!(page.count("#chart svg #measured-marker line") == 1);
    assert!(page
        .text_of("#measured-marker")
        .contains("vLLM weights: 14.99 GiB"));
    // non-torch memory is 0.35 GiB against 1 GiB estimated: far more than 10 % off
    let report = page.value_of("#mismatch-report");
    for phrase in [
        "| vLLM KV cache (`vllm_kv`) |",
        "ms=1",
        "- torch: ",
        "- GPU: ",
    ] {
        assert!(report.contains(phrase), "no {phrase:?} in\n{report}");
    }
    let labelled = page.js(
        "return document.querySelector('#mismatch-report').labels.length",
        vec![],
    );
    assert_eq!(labelled, serde_json::json!(1));
    page.wait_until("the URL to carry the measurement", 5, |s| {
        s.url().contains("ms=1")
    });
    let url = page.url();
    let again = Page::open(&url[url.find("/?").expect("a query")..]);
    again.wait_for("#measured-table", 10);
    again.wait_for("#measured-marker", 10);
    assert_eq!(shown(&again), shown(&page));
    page.assert_no_console_errors();
    again.assert_no_console_errors();
}

#[test]
fn a_pasted_memory_stats_dump_is_compared_at_allocated_and_reserved() {
    let page = Page::open("/?v=1&m=llama-3.2-1b&j=full");
    compare(&page, MEMORY_STATS, "reserved");
    let allocated = page.text_of("#measured-table tr[data-level='allocated']");
    assert!(
        allocated.contains("21.30 GiB") && allocated.contains("%"),
        "{allocated}"
    );
    assert!(
        allocated.contains("max_memory_allocated"),
        "the level is explained: {allocated}"
    );
    // the marker sits at the first whole-device figure: allocated
    assert!(page
        .text_of("#measured-marker")
        .contains("PyTorch allocated (peak): 21.30 GiB"));
    page.wait_until("the URL to carry the measurement", 5, |s| {
        s.url().contains("ms=1")
    });
    let url = page.url();
    let again = Page::open(&url[url.find("/?").expect("a query")..]);
    again.wait_for("#measured-marker", 10);
    assert_eq!(shown(&again), shown(&page));
    page.assert_no_console_errors();
}

#[test]
fn a_garbage_paste_shows_the_message_and_keeps_the_previous_comparison() {
    let page = Page::open("/?v=1&m=llama-3.2-1b&j=full");
    compare(&page, MEMORY_STATS, "allocated");
    let before = shown(&page);
    let total = page.text_of("#total");
    page.set(
        "#measured-text",
        "<img src=x onerror=alert(1)> hello world",
        "input",
    );
    page.click("#measured-apply");
    page.wait_until("the inline error", 5, |s| {
        !s.text_of("#measured-error").is_empty()
    });
    assert!(page
        .text_of("#measured-error")
        .contains("no memory figure found"));
    assert_eq!(page.count("#measured img"), 0);
    assert_eq!(shown(&page), before);
    assert_eq!(page.text_of("#total"), total);
    // a huge paste is refused with its size, in the page's language
    page.click("#lang-toggle");
    page.set("#measured-text", &"9".repeat(300 * 1024), "input");
    page.click("#measured-apply");
    page.wait_until("the size refusal in Chinese", 5, |s| {
        s.text_of("#measured-error")
            .contains("KiB 的测量结果不予读取")
    });
    assert_eq!(page.count("#measured-table tr[data-level='allocated']"), 1);
    page.assert_no_console_errors();
}

#[test]
fn a_bad_measurement_in_the_link_is_a_notice_and_the_page_opens() {
    let page = Page::open("/?v=1&ms=1z~zz~");
    page.wait_for("#link-notice", 10);
    assert!(page
        .text_of("#link-notice")
        .contains("measurement in the link cannot be read"));
    assert!(!page.exists("#measured-table"));
    assert!(!page.exists("#measured-marker"));
    page.assert_no_console_errors();
}

/// How many of the on-demand readers module's files (its JS glue and its wasm) the page fetched.
fn readers_fetched(page: &Page) -> u64 {
    let script = "return performance.getEntriesByType('resource')\
        .filter(e => new URL(e.name).pathname.includes('/vram-readers-')).length";
    page.js(script, vec![]).as_u64().expect("a count")
}

#[test]
fn the_readers_module_is_fetched_only_when_a_measurement_is_read_and_then_once() {
    let page = Page::open("/?v=1&j=serve&gpu=rtx3090");
    assert_eq!(
        readers_fetched(&page),
        0,
        "a first visit does not download the readers"
    );
    compare(&page, VLLM_LOG, "vllm_weights");
    assert_eq!(readers_fetched(&page), 2, "the glue and its wasm");
    compare(&page, MEMORY_STATS, "allocated");
    assert_eq!(
        readers_fetched(&page),
        2,
        "a second paste reuses the module"
    );
    assert_eq!(
        page.text_of("#measured-status"),
        "",
        "no loading state is left behind"
    );
    page.assert_no_console_errors();
}

#[test]
fn a_readers_module_that_cannot_be_fetched_is_said_and_the_next_try_fetches_it() {
    let page = Page::open("/?v=1&j=serve&gpu=rtx3090");
    let meta = r#"document.querySelector('meta[name="vram-readers"]')"#;
    let name = page.js(&format!("return {meta}.content"), vec![]);
    assert!(
        name.as_str()
            .is_some_and(|n| n.starts_with("vram-readers-")),
        "{name}"
    );
    // as after a deploy that removed the file this page names
    page.js(&format!("{meta}.content = 'vram-readers-gone.js'"), vec![]);
    page.wait_for("#measured-text", 10);
    page.set("#measured-text", VLLM_LOG, "input");
    page.click("#measured-apply");
    page.wait_until("the loading failure", 10, |s| {
        s.text_of("#measured-error").contains("could not be loaded")
    });
    assert!(!page.exists("#measured-table"));
    assert_eq!(page.text_of("#measured-status"), "");
    page.js(&format!("{meta}.content = arguments[0]"), vec![name]);
    compare(&page, VLLM_LOG, "vllm_weights");
    assert_eq!(page.text_of("#measured-error"), "");
}

#[test]
fn a_measurement_in_the_link_says_so_when_the_readers_module_cannot_be_fetched() {
    let page = Page::open("/?v=1");
    page.cdp("Network.enable", json!({}));
    page.cdp("Network.setCacheDisabled", json!({"cacheDisabled": true}));
    page.cdp(
        "Network.setBlockedURLs",
        json!({"urls": ["*vram-readers-*"]}),
    );
    let ms = vram_engine::measured::parse("21.3 GiB allocated, 22.5 GiB reserved")
        .unwrap()
        .to_link();
    page.goto(&page.server.url(&format!("/?v=1&ms={ms}")));
    page.wait_for("#measured-unavailable", 10);
    assert!(page
        .text_of("#measured-unavailable")
        .contains("could not be loaded"));
    assert!(!page.exists("#measured-table"));
    assert!(!page.exists("#measured-marker"));
    // the estimate itself does not wait for the module
    assert!(page.text_of("#verdict").contains("Needs"));
    page.cdp("Network.setBlockedURLs", json!({"urls": []}));
}

#[test]
fn an_uploaded_log_fills_the_box_and_is_compared_like_a_pasted_one() {
    let page = Page::open("/?v=1&j=serve&gpu=rtx3090");
    page.wait_for("#measured-file", 10);
    let path = std::env::temp_dir().join(format!("vram-e2e-vllm-{}.log", std::process::id()));
    std::fs::write(&path, VLLM_LOG).unwrap();
    page.type_into("#measured-file", &path.to_string_lossy());
    page.wait_until("the vLLM weights row", 10, |s| {
        s.exists("#measured-table tr[data-level='vllm_weights']")
    });
    assert_eq!(page.value_of("#measured-text"), VLLM_LOG);
    let _ = std::fs::remove_file(&path);
    page.assert_no_console_errors();
}
