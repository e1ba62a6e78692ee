//! The llama.cpp / Ollama job in headless Chromium: a picked GGUF header fills the model, -ngl
//! trades VRAM for RAM, a Mac is judged against its GPU working set, the flags line follows the
//! controls, and the share link restores all of it without the file. A vision projector picked
//! beside the model joins the first GPU; an uneven --tensor-split and the RAM's bandwidth are
//! typed on the page.

use vram_test_support::projector;

use e2e::{Page, Session};
use vram_engine::{llamacpp::DraftValue, llamacpp::GgmlType, llamacpp::GgufDraft};

/// A small llama-style GGUF header (no tensor data: the page reads the header only), written to
/// a temporary file whose path is returned.
fn fixture(name: &str) -> String {
    let (layers, embd, ff, vocab) = (12u64, 1024u64, 2816u64, 32000u64);
    let mut draft = GgufDraft::default();
    for (key, value) in [
        ("block_count", layers),
        ("context_length", 32768),
        ("embedding_length", embd),
        ("feed_forward_length", ff),
        ("attention.head_count", 16),
        ("attention.head_count_kv", 4),
    ] {
        draft
            .metadata
            .push((format!("llama.{key}"), DraftValue::U64(value)));
    }
    draft.metadata.insert(
        0,
        (
            "general.architecture".into(),
            DraftValue::Text("llama".into()),
        ),
    );
    draft
        .metadata
        .push(("llama.vocab_size".into(), DraftValue::U64(vocab)));
    let mut tensor = |name: String, dims: Vec<u64>, ty| draft.tensors.push((name, dims, ty));
    tensor("token_embd.weight".into(), vec![embd, vocab], GgmlType::Q4K);
    for il in 0..layers {
        let q = GgmlType::Q4K;
        tensor(
            format!("blk.{il}.attn_norm.weight"),
            vec![embd],
            GgmlType::F32,
        );
        tensor(format!("blk.{il}.attn_q.weight"), vec![embd, embd], q);
        tensor(format!("blk.{il}.attn_k.weight"), vec![embd, 256], q);
        tensor(
            format!("blk.{il}.attn_v.weight"),
            vec![embd, 256],
            GgmlType::Q6K,
        );
        tensor(format!("blk.{il}.attn_output.weight"), vec![embd, embd], q);
        tensor(
            format!("blk.{il}.ffn_norm.weight"),
            vec![embd],
            GgmlType::F32,
        );
        tensor(format!("blk.{il}.ffn_gate.weight"), vec![embd, ff], q);
        tensor(format!("blk.{il}.ffn_up.weight"), vec![embd, ff], q);
        tensor(
            format!("blk.{il}.ffn_down.weight"),
            vec![ff, embd],
            GgmlType::Q6K,
        );
    }
    tensor("output_norm.weight".into(), vec![embd], GgmlType::F32);
    tensor("output.weight".into(), vec![embd, vocab], GgmlType::Q6K);
    let dir = std::env::temp_dir().join(format!("vram-e2e-local-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, draft.bytes()).unwrap();
    path.to_string_lossy().into_owned()
}

/// Bytes in the device row `device` ("host", "gpu0").
fn bytes_on(page: &Session, device: &str) -> u64 {
    let css = format!("#local-devices tr[data-device='{device}'] td[data-bytes]");
    page.js(
        "const e = document.querySelector(arguments[0]); return e ? Number(e.dataset.bytes) : -1",
        vec![serde_json::json!(css)],
    )
    .as_u64()
    .unwrap_or_else(|| panic!("no {css}"))
}

/// Sets -ngl through its number box and waits for the flags line to say it.
fn set_ngl(page: &Page, ngl: u64) {
    page.set("#local-ngl-num", &ngl.to_string(), "change");
    let flag = format!("-ngl {ngl} ");
    page.wait_until(&flag, 10, |p| p.text_of("#local-server").contains(&flag));
}

#[test]
fn a_picked_gguf_header_fills_the_model_and_the_link_restores_it_without_the_file() {
    let page = Page::open("/?v=1&j=local&gpu=rtx4090");
    page.wait_for("#gguf-file", 10);
    page.type_into("#gguf-file", &fixture("tiny-q4_k_m.gguf"));
    page.wait_until("the picked file", 10, |p| {
        p.text_of("#gguf-name") == "tiny-q4_k_m.gguf"
    });
    page.wait_until("the file's plan", 10, |p| {
        p.text_of("#local-server")
            .contains("llama-server -m tiny-q4_k_m.gguf")
    });
    // 12 layers and the output: -ngl 999 offloads 13 of 13
    assert!(
        page.text_of("#verdict").contains("13/13"),
        "{}",
        page.text_of("#verdict")
    );
    assert!(page.exists("#gguf-clear:not([hidden])"));
    assert_eq!(page.text_of("#gguf-error"), "");
    set_ngl(&page, 5);
    page.set("#local-ctx-num", "8192", "change");
    page.wait_until("-c 8192", 10, |p| {
        p.text_of("#local-server").contains("-c 8192")
    });
    let shown = page.text_of("#local");
    let link = page.share_link();
    assert!(
        link.contains("gg=llama~") && link.contains("gn=tiny-q4_k_m.gguf"),
        "{link}"
    );
    let query = &link[link.find('?').unwrap()..];
    let reopened = Page::open(&format!("/{query}"));
    reopened.wait_for("#local-devices", 10);
    assert_eq!(reopened.text_of("#local"), shown);
    assert_eq!(reopened.text_of("#gguf-name"), "tiny-q4_k_m.gguf");
    // a picked file is the model: no preset format to recommend
    assert!(!reopened.exists("#local-best"));
    reopened.assert_no_console_errors();
}

#[test]
fn the_chinese_page_speaks_chinese_for_a_local_run() {
    let page = Page::open("/?v=1&j=local&lang=zh&w=q4_k_m");
    page.wait_for("#local-devices", 10);
    assert!(
        page.text_of("#verdict").contains("放得下"),
        "{}",
        page.text_of("#verdict")
    );
    assert!(page.text_of("#local-devices").contains("CPU 内存"));
    assert!(page.text_of("#gguf-h").contains("GGUF 文件"));
}

#[test]
fn a_file_that_is_not_gguf_is_refused_in_place_and_the_preset_stays() {
    let page = Page::open("/?v=1&j=local");
    page.wait_for("#gguf-file", 10);
    let path = std::env::temp_dir().join(format!("vram-e2e-not-gguf-{}.gguf", std::process::id()));
    std::fs::write(&path, b"this is not a model").unwrap();
    page.type_into("#gguf-file", &path.to_string_lossy());
    page.wait_until("the refusal", 10, |p| !p.text_of("#gguf-error").is_empty());
    assert!(
        page.text_of("#gguf-name").contains("Llama"),
        "{}",
        page.text_of("#gguf-name")
    );
    assert!(page.exists("#local-devices"));
}

#[test]
fn moving_ngl_moves_vram_and_ram_in_opposite_directions_and_the_flags_line_follows() {
    let page = Page::open("/?v=1&j=local&w=q4_k_m&gpu=rtx4090");
    page.wait_for("#local-devices", 10);
    set_ngl(&page, 4);
    let (gpu_few, host_few) = (bytes_on(&page, "gpu0"), bytes_on(&page, "host"));
    set_ngl(&page, 30);
    let (gpu_many, host_many) = (bytes_on(&page, "gpu0"), bytes_on(&page, "host"));
    assert!(gpu_many > gpu_few, "VRAM {gpu_few} → {gpu_many}");
    assert!(host_many < host_few, "RAM {host_few} → {host_many}");
    // the chart marks the chosen -ngl among the bounds for every -ngl
    assert!(page.exists("#local-speed svg"));
    // the preset's best GGUF format with every layer on a 24 GB card: f16
    assert!(
        page.text_of("#local-best").contains("bf16"),
        "{}",
        page.text_of("#local-best")
    );
    page.set("#local-ctk", "q8_0", "change");
    page.wait_until("the K cache flag", 10, |p| {
        p.text_of("#local-server").contains("--cache-type-k q8_0")
    });
    assert!(page
        .text_of("#local-ollama")
        .contains("OLLAMA_KV_CACHE_TYPE=f16"));
    page.click("#local-fa");
    page.wait_until("-fa off", 10, |p| {
        p.text_of("#local-server").contains("-fa off")
    });
    let link = page.share_link();
    for pair in ["ngl=30", "ctk=q8_0", "fa=0", "j=local"] {
        assert!(link.contains(pair), "no {pair} in {link}");
    }
    page.assert_no_console_errors();
}

#[test]
fn a_macs_verdict_is_against_its_gpu_working_set_which_the_wired_limit_raises() {
    // 16 GB M2: macOS lets the GPU wire 2/3 of it; Llama 3.1 8B in f16 needs about 15 GiB
    let page = Page::open("/?v=1&j=local&mch=mac&mac=M2&mgb=16&w=bf16");
    page.wait_for("#local-mac-note", 10);
    let limit = |p: &Session| {
        p.js(
            "return Number(document.querySelector(\"#local-devices tr[data-device='gpu0'] td[data-limit]\").dataset.limit)",
            vec![],
        )
        .as_u64()
        .unwrap()
    };
    // in whole 16 KiB Metal pages, as macOS reports it (10922.67 MiB)
    assert_eq!(
        limit(&page),
        (16 * (1u64 << 30) / 3 * 2).next_multiple_of(16 << 10)
    );
    assert!(
        page.text_of("#local-working-set").contains("10.67"),
        "{}",
        page.text_of("#local-working-set")
    );
    assert!(page.exists("#verdict.nofit"));
    assert!(
        page.text_of("#local-best").contains("Q8_0"),
        "{}",
        page.text_of("#local-best")
    );
    assert!(page
        .text_of("#local-mac-note")
        .contains("iogpu.wired_limit_mb="));
    page.set("#local-wired-num", "16000", "change");
    page.wait_until("the wired limit", 10, |p| limit(p) == 16_000 * (1 << 20));
    page.assert_no_console_errors();
}

/// How many of the local job's on-demand module's files (its JS glue and its wasm) the page fetched.
fn local_module_fetched(page: &Page) -> u64 {
    let script = "return performance.getEntriesByType('resource')\
        .filter(e => new URL(e.name).pathname.includes('/vram-local-')).length";
    page.js(script, vec![]).as_u64().expect("a count")
}

#[test]
fn the_local_module_is_fetched_only_when_a_local_run_is_shown_and_then_once() {
    let page = Page::open("/?v=1&j=serve&gpu=rtx3090");
    page.wait_for("#verdict", 10);
    assert_eq!(
        local_module_fetched(&page),
        0,
        "a first visit does not download the llama.cpp code"
    );
    let local = Page::open("/?v=1&j=local");
    local.wait_for("#local-devices", 10);
    assert_eq!(local_module_fetched(&local), 2, "the glue and its wasm");
    set_ngl(&local, 5);
    assert_eq!(
        local_module_fetched(&local),
        2,
        "a second answer reuses the module"
    );
    local.assert_no_console_errors();
}

/// Gemma 3's vision projector header in a temporary file; its path.
fn projector_fixture(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("vram-e2e-mmproj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, projector::draft(&projector::GEMMA3).bytes()).unwrap();
    path.to_string_lossy().into_owned()
}

/// A number the page writes on `css` in its `data-{attribute}`.
fn data_of(page: &Session, css: &str, attribute: &str) -> u64 {
    page.js(
        "const e = document.querySelector(arguments[0]); return e ? Number(e.dataset[arguments[1]]) : -1",
        vec![serde_json::json!(css), serde_json::json!(attribute)],
    )
    .as_u64()
    .unwrap_or_else(|| panic!("no {css} [data-{attribute}]"))
}

#[test]
fn a_picked_projector_joins_the_first_gpu_at_any_ngl_and_the_link_restores_it() {
    let page = Page::open("/?v=1&j=local&w=q4_k_m&gpu=rtx4090&ngl=0");
    page.wait_for("#local-devices", 10);
    assert!(page.text_of("#mmproj-name").ends_with(": none (text only)"));
    assert!(page.exists("#mmproj-clear[hidden]"));
    let (gpu_before, host_before) = (bytes_on(&page, "gpu0"), bytes_on(&page, "host"));
    // the model's picker takes the projector too: its header says what it is
    page.type_into("#gguf-file", &projector_fixture("mmproj-gemma3-f16.gguf"));
    page.wait_until("the projector's command", 10, |p| {
        p.text_of("#local-server")
            .contains("--mmproj mmproj-gemma3-f16.gguf")
    });
    assert!(page
        .text_of("#mmproj-name")
        .ends_with(": mmproj-gemma3-f16.gguf"));
    assert_eq!(page.text_of("#gguf-error"), "");
    // the model stays the preset
    assert!(page.text_of("#gguf-name").contains("Llama"));
    let on_gpu = data_of(
        &page,
        "tr[data-device='gpu0'] td[data-projector]",
        "projector",
    );
    let weights = projector::tensor_bytes(&projector::GEMMA3);
    assert!(
        on_gpu > weights,
        "weights and the vision graph's buffer: {on_gpu}"
    );
    // -ngl 0 keeps every layer on the host, and the projector still goes to the GPU
    assert_eq!(bytes_on(&page, "gpu0"), gpu_before + on_gpu);
    assert_eq!(bytes_on(&page, "host"), host_before);
    let link = page.share_link();
    assert!(
        link.contains("mpn=mmproj-gemma3-f16.gguf") && link.contains("&mp="),
        "{link}"
    );
    let shown = page.text_of("#local");
    let reopened = Page::open(&format!("/{}", &link[link.find('?').unwrap()..]));
    reopened.wait_for("#local-devices", 10);
    assert_eq!(reopened.text_of("#local"), shown);
    assert!(reopened
        .text_of("#mmproj-name")
        .ends_with(": mmproj-gemma3-f16.gguf"));
    // --no-mmproj-offload: the projector moves to RAM
    reopened.click("#local-mmproj-offload");
    reopened.wait_until("--no-mmproj-offload", 10, |p| {
        p.text_of("#local-server").contains("--no-mmproj-offload")
    });
    assert_eq!(bytes_on(&reopened, "gpu0"), gpu_before);
    assert_eq!(bytes_on(&reopened, "host"), host_before + on_gpu);
    reopened.click("#mmproj-clear");
    reopened.wait_until("the projector gone", 10, |p| {
        !p.text_of("#local-server").contains("--mmproj")
    });
    assert!(!reopened.exists("#local-mmproj-offload"));
    reopened.assert_no_console_errors();
}

#[test]
fn a_projector_without_a_vision_encoder_is_refused_in_place() {
    // an audio-only projector: clip, but no vision tower to plan
    let mut draft = projector::draft(&projector::GEMMA3);
    draft
        .metadata
        .retain(|(k, _)| k != "clip.has_vision_encoder");
    let path = std::env::temp_dir().join(format!("vram-e2e-audio-{}.gguf", std::process::id()));
    std::fs::write(&path, draft.bytes()).unwrap();
    let page = Page::open("/?v=1&j=local&w=q4_k_m");
    page.wait_for("#gguf-file", 10);
    page.type_into("#gguf-file", &path.to_string_lossy());
    page.wait_until("the refusal", 10, |p| !p.text_of("#gguf-error").is_empty());
    assert!(page
        .text_of("#gguf-error")
        .contains("not a vision projector"));
    assert!(page.text_of("#mmproj-name").ends_with(": none (text only)"));
    assert!(!page.share_link().contains("mp="));
}

#[test]
fn an_uneven_tensor_split_typed_on_the_page_gives_the_first_gpu_more_layers() {
    let page = Page::open("/?v=1&j=local&w=q4_k_m&gpu=rtx4090&n=2");
    page.wait_for("#local-tensor-split", 10);
    let model_on = |p: &Session, d: &str| {
        data_of(p, &format!("tr[data-device='{d}'] td[data-model]"), "model")
    };
    page.wait_for("#local-devices", 10);
    let even = (model_on(&page, "gpu0"), model_on(&page, "gpu1"));
    page.set("#local-tensor-split", "3,1", "change");
    page.wait_until("--tensor-split 3,1", 10, |p| {
        p.text_of("#local-server").contains("--tensor-split 3,1")
    });
    let (a, b) = (model_on(&page, "gpu0"), model_on(&page, "gpu1"));
    assert!(
        a > even.0 && b < even.1 && a > 2 * b,
        "{even:?} → ({a}, {b})"
    );
    assert!(page.share_link().contains("ts=3,1") || page.share_link().contains("ts=3%2C1"));
    // three shares for two GPUs: said beside the box, and the layers split evenly
    page.set("#local-tensor-split", "1,1,1", "change");
    page.wait_until("the count said", 10, |p| {
        !p.text_of("#local-tensor-split-err").is_empty()
    });
    page.wait_until("the even split", 10, |p| model_on(p, "gpu0") == even.0);
    page.set("#local-tensor-split", "one,two", "change");
    page.wait_until("the refusal", 10, |p| {
        p.text_of("#local-tensor-split-err")
            .contains("share per GPU")
    });
    page.assert_no_console_errors();
}

#[test]
fn the_ram_bandwidth_typed_on_the_page_scales_a_cpu_runs_decode_bound() {
    let page = Page::open("/?v=1&j=local&mch=cpu&w=q4_k_m");
    page.wait_for("#local-speed-bound", 10);
    let bound = |p: &Session| p.text_of("#local-speed-bound").parse::<f64>().unwrap();
    let at_default = bound(&page);
    page.set("#local-ram-bandwidth-num", "179", "change");
    page.wait_until("a faster bound", 10, |p| bound(p) > at_default * 1.5);
    let ratio = bound(&page) / at_default;
    // 179 GB/s against the default 89.6, to the bound's one printed decimal
    assert!((ratio - 179.0 / 89.6).abs() < 0.02, "{ratio}");
    assert!(page.share_link().contains("rbw=179"));
}

#[test]
fn ollamas_defaults_open_from_a_link_beside_the_commands() {
    let page = Page::open("/?v=1&j=local&w=q4_k_m&gpu=rtx4090&np=4&fa=0");
    page.wait_for("#local-ollama-defaults", 10);
    page.click("#local-ollama-defaults");
    // a 24 GB card: Ollama's 32,768-token context, one request, its batch, flash attention
    page.wait_until("Ollama's settings", 10, |p| {
        p.text_of("#local-server")
            .contains("-c 32768 -fa on -b 1024 -ub 1024")
    });
    assert!(page
        .text_of("#local-ollama-note")
        .contains("These are Ollama's defaults"));
    assert!(!page.exists("#local-ollama-defaults"));
    assert!(page
        .text_of("#local-ollama")
        .contains("OLLAMA_NUM_PARALLEL=1"));
    page.assert_no_console_errors();
}

#[test]
fn split_mode_none_moves_every_layer_to_the_first_gpu_and_says_sm_none() {
    let page = Page::open("/?v=1&j=local&w=q4_k_m&gpu=rtx3090&n=2");
    page.wait_for("#local-devices tr[data-device='gpu1']", 10);
    let both = bytes_on(&page, "gpu0") + bytes_on(&page, "gpu1");
    page.set("#local-split-mode", "none", "change");
    page.wait_until("-sm none", 10, |p| {
        p.text_of("#local-server").contains("-sm none")
    });
    assert!(!page.exists("#local-devices tr[data-device='gpu1']"));
    // one GPU holds what two held, less the compute buffer the second reserved
    assert!(bytes_on(&page, "gpu0") < both);
    assert!(page.share_link().contains("sm=none"));
    page.assert_no_console_errors();
}
