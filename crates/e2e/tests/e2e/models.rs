//! The models and boxes of issue 44 on the built page: a hybrid model served by vLLM (its
//! recurrent state beside the attention layers' KV, and the concurrency vLLM's hybrid cache
//! manager gives), a draft model in the llama.cpp job, and a mixed pair of GPUs, each checked
//! against the engine's own figures for the same link.

use e2e::Page;
use vram_engine::link::{self, PageSettings};
use vram_engine::llamacpp::LlamaDevice;
use vram_engine::local::LocalOverview;
use vram_engine::{estimate, Gpu, Job, ModelChoice, Scenario, WeightFormat};

/// The scenario a link opens with; the link must open without notices.
fn scenario(link: &str) -> Scenario {
    let d = link::decode(link);
    assert!(d.notices.is_empty(), "{link}: {:?}", d.notices);
    d.scenario
}

/// Thousands with commas, as the page and the formulas write counts.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in the llama.cpp job's row for `device` ("host", "gpu0", …), and its limit.
fn device_row(page: &Page, device: &str) -> (u64, u64) {
    let read = |attr: &str| {
        let css = format!("#local-devices tr[data-device='{device}'] td[data-{attr}]");
        page.js(
            "const e = document.querySelector(arguments[0]); return e ? Number(e.dataset[arguments[1]]) : -1",
            vec![serde_json::json!(css), serde_json::json!(attr)],
        )
        .as_u64()
        .unwrap_or_else(|| panic!("no {css}"))
    };
    (read("bytes"), read("limit"))
}

/// The llama.cpp job's overview the engine computes for a link.
fn local(link: &str) -> LocalOverview {
    LocalOverview::compute(&scenario(link)).unwrap()
}

#[test]
fn a_served_hybrid_model_shows_its_recurrent_state_and_the_concurrency_vllm_s_hybrid_manager_gives()
{
    let link = "?v=1&m=qwen3-next-80b-a3b&j=serve&gpu=h200&n=2&tp=2&ml=262144";
    let b = estimate(&scenario(link)).unwrap();
    let fit = b.serving.unwrap();
    let page = Page::open(&format!("/{link}"));
    page.wait_for("#serving-concurrency", 10);
    // the verdict's serving line: vLLM's blocks and the requests at max_model_len at once
    assert_eq!(
        page.text_of("#serving-concurrency"),
        fit.max_concurrency.to_string()
    );
    let line = page.text_of("#serving-line");
    assert!(line.contains(&thousands(fit.blocks)), "{line}");
    // the KV cache's lines: the 36 Gated DeltaNet layers keep a state per request in a
    // 544-token page (544 × 1,024 B = 557,056 B, the state's 548,864 B padded), beside the 12
    // attention layers' K and V
    page.wait_for("#explain-kv", 10);
    let kv = page.js(
        "return document.querySelector('#explain-kv').textContent",
        vec![],
    );
    let kv = kv.as_str().unwrap();
    let state = format!("36 recurrent layers × {} B", thousands(544 * 1_024));
    assert!(
        kv.contains("recurrent state") && kv.contains(&state),
        "{kv}"
    );
    assert!(kv.contains("548,864"), "{kv}");
    page.assert_no_console_errors();
}

#[test]
fn a_hybrid_model_s_state_grows_with_the_requests_on_the_page_not_with_their_length() {
    let at = |seqs: u64, len: u64| format!("?v=1&m=lfm2-1.2b&j=infer&b={seqs}&s={len}&gpu=rtx4090");
    let page = Page::open(&format!("/{}", at(4, 1_000)));
    page.wait_for("#explain-kv", 10);
    let text = |p: &Page| {
        p.js(
            "return document.querySelector('#explain-kv').textContent",
            vec![],
        )
        .as_str()
        .unwrap()
        .to_string()
    };
    // LFM2's 10 short convolutions keep their last 2 inputs of 2,048 channels, 16-bit: 8,192 B a
    // layer and sequence, whatever the length
    let kv = text(&page);
    assert!(
        kv.contains("4 sequences × 10 recurrent layers × 8,192 B"),
        "{kv}"
    );
    let total = |link: &str| estimate(&scenario(link)).unwrap().total;
    assert_eq!(page.text_of("#total"), {
        let s = scenario(&at(4, 1_000));
        s.unit.format(total(&at(4, 1_000)))
    });
    let longer = Page::open(&format!("/{}", at(4, 8_000)));
    longer.wait_for("#explain-kv", 10);
    assert!(text(&longer).contains("4 sequences × 10 recurrent layers × 8,192 B"));
    let more = Page::open(&format!("/{}", at(16, 1_000)));
    more.wait_for("#explain-kv", 10);
    assert!(text(&more).contains("16 sequences × 10 recurrent layers × 8,192 B"));
    more.assert_no_console_errors();
}

#[test]
fn a_draft_model_in_the_llama_cpp_job_is_in_the_command_and_on_the_gpu_once_per_slot() {
    let plain = "?v=1&m=llama-3.1-8b&j=local&w=q4_k_m&gpu=rtx4090";
    let drafted = format!("{plain}&md=llama-3.2-1b&cd=1024&ngld=8");
    let engine = local(&drafted);
    let page = Page::open(&format!("/{drafted}"));
    page.wait_for("#local-devices", 10);
    page.wait_until("the draft's flags", 10, |p| {
        p.text_of("#local-server").contains("-md ")
    });
    let command = page.text_of("#local-server");
    for (flag, value) in &engine.commands.llama_server {
        let said = format!("{flag} {value}");
        assert!(command.contains(said.trim()), "{said} not in {command}");
    }
    for said in ["-md Llama-3.2-1B", "-cd 1024", "-ngld 8"] {
        assert!(command.contains(said), "{said} not in {command}");
    }
    // the GPU row holds the draft: its weights once and its context for each slot, as the
    // engine plans them
    let gpu = engine.plan.device(LlamaDevice::Gpu(0)).unwrap();
    assert!(gpu.draft > 0);
    assert_eq!(device_row(&page, "gpu0").0, gpu.total());
    let alone = local(plain)
        .plan
        .device(LlamaDevice::Gpu(0))
        .unwrap()
        .total();
    assert_eq!(gpu.total(), alone + gpu.draft);
    // the draft's controls are on the page with the link's values, and the link keeps them
    assert_eq!(page.value_of("#local-draft"), "llama-3.2-1b");
    assert_eq!(page.value_of("#local-draft-ctx-num"), "1024");
    assert_eq!(page.value_of("#local-draft-ngl-num"), "8");
    let link = page.share_link();
    for pair in ["md=llama-3.2-1b", "cd=1024", "ngld=8"] {
        assert!(link.contains(pair), "no {pair} in {link}");
    }
    page.assert_no_console_errors();
}

#[test]
fn a_3090_beside_a_3060_splits_the_layers_by_free_memory_and_checks_each_card_against_its_own() {
    let s = Scenario {
        job: Job::Local,
        model: ModelChoice::Preset("llama-3.1-8b"),
        weights: WeightFormat::GgufQ4KM,
        gpu: Gpu::Rtx3090,
        gpus: 2,
        last_gpu: Some(Gpu::Rtx3060),
        ..Scenario::default()
    };
    let link = link::encode(&s, &PageSettings::default());
    let engine = LocalOverview::compute(&s).unwrap();
    let page = Page::open(&format!("/?{}", link.trim_start_matches('?')));
    page.wait_for("#local-devices", 10);
    assert_eq!(page.value_of("#last-gpu"), "rtx3060");
    for (i, key) in ["gpu0", "gpu1"].iter().enumerate() {
        let device = LlamaDevice::Gpu(i);
        let planned = engine.plan.device(device).unwrap().total();
        let limit = engine
            .fit
            .iter()
            .find(|f| f.device == device)
            .and_then(|f| f.limit)
            .unwrap();
        assert_eq!(device_row(&page, key), (planned, limit), "{key}");
    }
    // llama.cpp's default split follows free memory: the 3090 (24,146 MiB free) takes 23 of the
    // 32 layers, the 3060 (11,889 MiB) the other 9 and the output, so the 3090 holds more
    let (on_3090, limit_3090) = device_row(&page, "gpu0");
    let (on_3060, limit_3060) = device_row(&page, "gpu1");
    assert_eq!(
        (limit_3090, limit_3060),
        (24_146 << 20, 11_889 << 20),
        "each card's own free memory"
    );
    assert!(on_3090 > on_3060, "{on_3090} vs {on_3060}");
    // two 3090s split evenly instead
    let alike = Scenario {
        last_gpu: None,
        ..s.clone()
    };
    let even = LocalOverview::compute(&alike).unwrap();
    assert_ne!(
        even.plan.device(LlamaDevice::Gpu(1)).unwrap().total(),
        on_3060
    );
    page.assert_no_console_errors();
}

/// The page marks the group as not fitting and says why: vLLM refuses a tensor-parallel group of
/// different GPUs (`StartRefusal::MixedTensorParallel`, worded by `vram_text::start_refusal`),
/// while the memory leaves room to spare.
#[test]
fn vllm_with_a_tensor_parallel_group_of_a_4090_and_a_3090_does_not_fit_where_two_4090s_do() {
    let same = "?v=1&m=llama-3.1-8b&j=serve&gpu=rtx4090&n=2&tp=2";
    let mixed = format!("{same}&g2=rtx3090");
    assert!(scenario(&mixed).last_gpu == Some(Gpu::Rtx3090));
    let page = Page::open(&format!("/{same}"));
    page.wait_for("#verdict", 10);
    page.wait_until("the verdict", 10, |p| {
        p.exists("#verdict.fits") || p.exists("#verdict.nofit")
    });
    assert!(page.exists("#verdict.fits"), "{}", page.text_of("#verdict"));
    assert_eq!(page.text_of("#start-refusal"), "");
    let page = Page::open(&format!("/{mixed}"));
    page.wait_until("the verdict", 10, |p| {
        p.exists("#verdict.fits") || p.exists("#verdict.nofit")
    });
    assert!(
        page.exists("#verdict.nofit"),
        "{}",
        page.text_of("#verdict")
    );
    assert_eq!(page.value_of("#last-gpu"), "rtx3090");
    let why = page.text_of("#start-refusal");
    assert!(
        why.contains("does not run a tensor-parallel group of different GPUs"),
        "{why}"
    );
    let fit = page.text_of("#fit-line");
    assert!(
        fit.contains("Headroom") && !fit.contains("short by"),
        "{fit}"
    );
    page.assert_no_console_errors();
}
