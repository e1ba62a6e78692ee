//! The built page in headless Chromium, as a user would use it.

use e2e::{Page, AFTER_THE_PAINT};
use serde_json::json;

fn gib(text: &str) -> f64 {
    text.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not a size: {text:?}"))
}

/// Waits until the total differs from `before` and returns the new one.
#[track_caller]
fn total_changes_from(page: &Page, before: &str) -> String {
    let at = std::panic::Location::caller();
    page.wait_until(
        &format!("the total to change from {before} (line {})", at.line()),
        10,
        |s| s.text_of("#total") != before,
    );
    page.text_of("#total")
}

#[test]
fn the_default_page_opens_on_an_example_with_a_chart_a_segment_per_component_and_a_total() {
    let page = Page::open("/");
    let total = page.text_of("#total");
    assert!(gib(&total) > 5.0 && gib(&total) < 80.0, "{total}");
    assert!(page.text_of("#model-name").contains("Llama-3.1-8B"));
    // one bar per GPU count, one segment per non-zero component of the 1-GPU bar
    assert!(page.count("#chart svg") == 1);
    let segments = page.count("#chart polygon.seg[data-gpus='1']");
    let explained = page.count("#explanations details");
    assert!(segments >= 6, "{segments} segments");
    assert!(
        explained >= segments,
        "{explained} explanations for {segments} segments"
    );
    assert_eq!(page.count("#legend li"), 10);
    // the total is labelled on the bar and matches the headline (to one decimal)
    let label = page.text_of("#chart .bar-total.current");
    assert!(
        (label.parse::<f64>().unwrap() - gib(&total)).abs() < 0.051,
        "{label} vs {total}"
    );
    // segments add up to the total
    let sum: f64 = page
        .js(
            "return [...document.querySelectorAll('#chart polygon.seg[data-gpus=\"1\"] title')].map(t => parseFloat(t.textContent.split(': ')[1])).reduce((a, b) => a + b, 0)",
            vec![],
        )
        .as_f64()
        .unwrap();
    assert!(
        (sum - gib(&total)).abs() < 0.05,
        "segments {sum} vs total {total}"
    );
    assert_eq!(
        page.count("#fit-table tbody tr"),
        vram_engine::Gpu::ALL.len() as u64
    );
    assert!(page.text_of("#verdict").contains("RTX 4090"));
    // beside the verdict: where measured runs like this one landed
    let band = page.text_of("#error-band");
    assert!(band.contains('%') && band.contains("LoRA"), "{band}");
    // and, for training, the framework the answer assumes and the step its peak follows
    let basis = page.text_of("#training-basis");
    assert!(
        basis.contains("TRL") && basis.contains("longest step"),
        "{basis}"
    );
    page.assert_no_console_errors();
}

#[test]
fn dragging_the_batch_slider_changes_the_total_the_chart_and_the_url() {
    let page = Page::open("/");
    let before = page.text_of("#total");
    let svg_before = page.js("return document.querySelector('#chart').innerHTML", vec![]);
    page.set("#batch", "700", "input");
    let after = total_changes_from(&page, &before);
    assert!(gib(&after) > gib(&before), "{before} -> {after}");
    assert_ne!(
        page.js("return document.querySelector('#chart').innerHTML", vec![]),
        svg_before
    );
    assert_ne!(page.value_of("#batch-num"), "4");
    page.wait_until("the URL to carry the batch", 5, |s| s.url().contains("b="));
    page.assert_no_console_errors();
}

/// The step the tests below make: `#batch` moved to `arguments[0]`, one input event.
const MOVE_BATCH: &str = "const slider = document.querySelector('#batch');
slider.value = arguments[0];
slider.dispatchEvent(new Event('input', {bubbles: true}));";

/// Moves `#batch` to `to` and reads, in the same script once the work that follows a step's
/// paint has run (`e2e::AFTER_THE_PAINT`, the wait the page's reads use):
/// the total, whether the fit panel and the fit table's panel say `data-stale`, and the table's
/// first row.
fn step_and_look() -> String {
    format!(
        r#"
const done = arguments[arguments.length - 1];
{MOVE_BATCH}
{AFTER_THE_PAINT}(() => done([
  document.querySelector('#total').textContent,
  ['#fit', '#gpu-table'].map(id => document.querySelector(id).hasAttribute('data-stale')),
  document.querySelector('#fit-table tbody tr').textContent,
]));
"#
    )
}

/// Moves `#batch` to `to` and reads the total, the bars, the batch's number box and the growth
/// chart three times: before the step, in the step's own animation frame (before it is painted),
/// and once the work that follows the paint has run (`e2e::AFTER_THE_PAINT`).
fn step_and_frames() -> String {
    format!(
        r#"
const done = arguments[arguments.length - 1];
const q = (s) => document.querySelector(s);
const look = () => [q('#total').textContent, q('#chart').innerHTML, q('#batch-num').value, q('#seq-chart').innerHTML];
const before = look();
{MOVE_BATCH}
requestAnimationFrame(() => {{
  const inFrame = look();
  {AFTER_THE_PAINT}(() => done([before, inFrame, look()]));
}});
"#
    )
}

#[test]
fn a_step_shows_its_total_bars_number_box_and_growth_chart_in_its_own_frame() {
    let page = Page::open("/");
    let seen = page.js_async(&step_and_frames(), vec![json!("700")]);
    let (before, in_frame, after) = (&seen[0], &seen[1], &seen[2]);
    // Leptos updates what a step changes before the step's frame is painted
    for (i, what) in [
        "the total",
        "the bars",
        "the number box",
        "the growth chart",
    ]
    .iter()
    .enumerate()
    {
        assert_ne!(in_frame[i], before[i], "{what} in the step's frame: {seen}");
        assert_eq!(after[i], in_frame[i], "{what} after the frame");
    }
    assert_eq!(page.value_of("#batch-num"), after[2].as_str().unwrap());
    page.assert_no_console_errors();
}

#[test]
fn where_no_animation_frame_comes_the_views_after_the_paint_still_follow_a_step() {
    let page = Page::open("/");
    let before = page.value_of("#batch-num");
    // a tab in the background gets no animation frames: from here on, neither does this one
    page.js(
        &format!("window.requestAnimationFrame = () => 0; {MOVE_BATCH}"),
        vec![json!("700")],
    );
    let number_box = "return document.querySelector('#batch-num').value";
    page.wait_until("the number box to follow the step", 5, |s| {
        s.js(number_box, vec![]) != json!(before)
    });
}

#[test]
fn while_a_slider_moves_the_panels_below_the_charts_hold_and_say_so_then_follow_once_input_pauses()
{
    let page = Page::open("/");
    let (total, row) = (page.text_of("#total"), page.text_of("#fit-table tbody tr"));
    let seen = page.js_async(&step_and_look(), vec![json!("700")]);
    assert_ne!(
        seen[0].as_str(),
        Some(total.as_str()),
        "the total follows the step at once"
    );
    assert_eq!(seen[1], json!([true, true]), "held panels say so: {seen}");
    assert_eq!(seen[2].as_str(), Some(row.as_str()), "and hold: {seen}");
    // input pauses: they catch up (the reads wait for that)
    assert_ne!(page.text_of("#fit-table tbody tr"), row);
    assert!(!page.exists("#fit[data-stale], #gpu-table[data-stale]"));
    page.assert_no_console_errors();
}

/// The top of the bars' axis: its highest tick label, in the chart's unit.
const AXIS_TOP: &str = "return Math.max(...[...document.querySelectorAll('#chart svg > text[text-anchor=\"end\"]')].map(t => parseFloat(t.textContent)))";

/// Moves `#batch` to each of the values given, one input event each, and reads after each one's
/// effects have run, in the same script (well inside the page's pause): the axis top and the
/// total.
const STEPS_AND_AXIS: &str = r#"
const done = arguments[arguments.length - 1];
const slider = document.querySelector('#batch');
const top = () => Math.max(...[...document.querySelectorAll('#chart svg > text[text-anchor="end"]')].map(t => parseFloat(t.textContent)));
const seen = [];
const step = (values) => {
  if (!values.length) return done(seen);
  slider.value = values[0];
  slider.dispatchEvent(new Event('input', {bubbles: true}));
  setTimeout(() => { seen.push([top(), document.querySelector('#total').textContent]); step(values.slice(1)); }, 0);
};
step(arguments[0]);
"#;

#[test]
fn while_a_slider_moves_the_bars_axis_only_grows_and_once_input_pauses_it_fits_the_bars() {
    let page = Page::open("/");
    let at_rest = page.js(AXIS_TOP, vec![]).as_f64().unwrap();
    let (batch, total) = (page.value_of("#batch"), page.text_of("#total"));
    let seen = page.js_async(STEPS_AND_AXIS, vec![json!(["700", batch])]);
    let (grown, back) = (&seen[0], &seen[1]);
    // the bars outgrow the axis: it grows with them at once
    assert!(
        grown[0].as_f64().unwrap() > at_rest,
        "{seen} from {at_rest}"
    );
    // back where it began, still moving: the bars are as they were, the axis holds
    assert_eq!(back[1].as_str(), Some(total.as_str()), "{seen}");
    assert_eq!(back[0], grown[0], "{seen}");
    // input pauses: the axis fits the bars again
    page.wait_until("the axis to fit the bars again", 5, |s| {
        s.js(AXIS_TOP, vec![]).as_f64() == Some(at_rest)
    });
    page.assert_no_console_errors();
}

#[test]
fn every_kind_of_control_moves_the_budget() {
    let page = Page::open("/");
    // a number box
    let t0 = page.text_of("#total");
    page.set("#seq-num", "8192", "change");
    let t1 = total_changes_from(&page, &t0);
    assert!(gib(&t1) > gib(&t0));
    // a segmented control: full fine-tuning needs far more than LoRA
    page.click("#job-full");
    let t2 = total_changes_from(&page, &t1);
    assert!(gib(&t2) > gib(&t1) * 2.0, "{t1} -> {t2}");
    assert!(page.text_of("#explanations").contains("Optimizer"));
    // a checkbox: pure bf16 drops the fp32 master copy
    page.click("#switch-mw");
    let t2b = total_changes_from(&page, &t2);
    assert!(gib(&t2b) < gib(&t2), "{t2} -> {t2b}");
    // an engine switch: the optimizer step in backward never holds the whole gradient buffer
    page.click("#switch-obw");
    let t2c = total_changes_from(&page, &t2b);
    assert!(gib(&t2c) < gib(&t2b), "{t2b} -> {t2c}");
    page.wait_until("the switch in the URL", 5, |s| s.url().contains("obw=1"));
    page.click("#switch-obw");
    let t2d = total_changes_from(&page, &t2c);
    assert_eq!(t2d, t2b);
    // a stepped slider through the weight formats (full fine-tuning allows fp32 and bf16)
    page.set("#weights", "0", "input");
    let t3 = total_changes_from(&page, &t2b);
    assert!(gib(&t3) > gib(&t2b));
    assert!(page.text_of("#weights-value").contains("fp32"));
    // a select
    page.set("#optimizer", "sgd", "change");
    let t4 = total_changes_from(&page, &t3);
    assert!(gib(&t4) < gib(&t3));
    // a stepped ZeRO slider with more GPUs shards the states
    page.set("#gpus-num", "8", "change");
    page.set("#zero", "3", "input");
    let t5 = total_changes_from(&page, &t4);
    assert!(gib(&t5) < gib(&t4));
    assert!(page.text_of("#zero-value").contains("3"));
    // a LoRA target checkbox: no adapter on gate_proj, so no fp32 copy of its input is kept
    page.click("#job-lora");
    let t6 = total_changes_from(&page, &t5);
    page.click("#target-gate");
    let t7 = total_changes_from(&page, &t6);
    assert!(gib(&t7) < gib(&t6), "{t6} -> {t7}");
    page.wait_until("the targets in the URL", 5, |s| {
        s.url().contains("t=q,k,v,o,up,down")
    });
    // the GPU select changes the verdict line
    page.set("#gpu", "h200", "change");
    page.wait_until("the verdict to name the H200", 5, |s| {
        s.text_of("#fit-line").contains("H200")
    });
    // inference shows the KV cache; caching every attention head (GQA expanded) makes it 4x
    page.click("#job-infer");
    page.wait_for("#explain-kv", 5);
    let t8 = page.text_of("#total");
    page.click("#switch-kvh");
    let t9 = total_changes_from(&page, &t8);
    assert!(gib(&t9) > gib(&t8), "{t8} -> {t9}");
    assert!(page
        .text_of("#explanations")
        .contains("attention heads cached"));
    page.assert_no_console_errors();
}

/// The ids the page holds more than once (a panel named like a control would break `#id`
/// lookups, the patches' pairing and screen readers' labels).
const SHARED_IDS: &str = r#"
const seen = new Map();
for (const e of document.querySelectorAll('[id]')) seen.set(e.id, (seen.get(e.id) || 0) + 1);
return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
"#;

#[test]
fn no_two_elements_of_the_page_share_an_id_whatever_the_job() {
    for link in [
        "/",
        "/?v=1&j=serve",
        "/?v=1&j=full&n=8&z=3",
        "/?v=1&gc=none&ls=full&b=1",
    ] {
        let page = Page::open(link);
        // the panels below the fold are built by then (the reads wait for them)
        assert!(page.exists("#fit-table tbody tr"), "{link}");
        assert_eq!(page.js(SHARED_IDS, vec![]), json!([]), "{link}");
        page.assert_no_console_errors();
    }
}

#[test]
fn a_job_that_does_not_fit_lists_the_single_changes_that_make_it_fit() {
    // Llama 3.1 8B LoRA without checkpointing and with the full fp32 loss: about 39 GiB
    let page = Page::open("/?v=1&gc=none&ls=full&b=1");
    page.wait_for("#remedies", 10);
    assert!(page.count("#remedies li[data-remedy='gc']") == 1);
    let first = page.text_of("#remedies li");
    assert!(
        gib(first.rsplit('→').next().unwrap().trim()) < 24.0,
        "{first}"
    );
    // turning that change on makes it fit, and the list goes away
    page.set("#ckpt", "full", "change");
    page.wait_until("the list to go once it fits", 10, |s| {
        s.count("#remedies") == 0
    });
    assert_eq!(page.count("#no-remedy"), 0);
    page.assert_no_console_errors();
    // inference of a 70B model on one 4090: not even 4-bit weights are enough, and the page says so
    let big = Page::open("/?v=1&m=llama-3.1-70b&j=infer");
    big.wait_for("#no-remedy", 10);
    assert_eq!(big.count("#remedies"), 0);
    big.assert_no_console_errors();
}

#[test]
fn a_copied_link_reopens_exactly_the_same_budget() {
    let page = Page::open("/");
    page.click("#job-qlora");
    page.set("#lora-rank", "500", "input");
    page.set("#gpu", "l4", "change");
    page.set("#seq-num", "4096", "change");
    page.click("#unit-gb");
    page.wait_until("GB units", 5, |s| s.text_of("#total").ends_with("GB"));
    let link = page.share_link();
    let total = page.text_of("#total");
    let verdict = page.text_of("#fit-line");
    assert!(
        link.contains("j=qlora") && link.contains("gpu=l4") && link.contains("unit=gb"),
        "{link}"
    );
    assert!(
        !link.contains("b=4"),
        "defaults stay out of the link: {link}"
    );
    let query = &link[link.find("/?").expect("a query")..];
    let again = Page::open(query);
    assert_eq!(again.text_of("#total"), total);
    assert_eq!(again.text_of("#fit-line"), verdict);
    assert_eq!(
        again.value_of("#lora-rank-num"),
        page.value_of("#lora-rank-num")
    );
    assert_eq!(again.count("#link-notice"), 0);
    again.assert_no_console_errors();
}

#[test]
fn a_hostile_link_opens_with_defaults_a_notice_and_no_script_running() {
    let evil = "/?v=1&b=abc&zzz=%3Cscript%3Ewindow.pwned%3D1%3C%2Fscript%3E&gpu=%3Cimg%20src%3Dx%20onerror%3Dwindow.pwned%3D1%3E\
                &mn=%3Cimg%20src%3Dx%20onerror%3Dwindow.pwned%3D1%3E%3C%2Ftext%3E%3Cscript%3Ewindow.pwned%3D1%3C%2Fscript%3E\
                &cfg=V32000_h4096_f11008_L32_H32_kv32_hd128_tie0&s=99999999999999999999";
    let page = Page::open(evil);
    assert_eq!(page.count("#link-notice"), 1);
    let notice = page.text_of("#link-notice");
    assert!(notice.contains("zzz") && notice.contains("b="), "{notice}");
    // the custom model's hostile name is shown as text, not markup
    assert!(page.text_of("#model-name").contains("<img src=x onerror="));
    assert_eq!(page.count("img"), 0);
    assert_eq!(page.count("script:not([type=module])"), 0);
    assert_eq!(
        page.js("return window.pwned === undefined", vec![]),
        json!(true)
    );
    assert!(gib(&page.text_of("#total")) > 0.0);
    page.assert_no_console_errors();
}

#[test]
fn a_bad_config_json_shows_an_inline_error_and_keeps_the_previous_budget() {
    let page = Page::open("/");
    let before = page.text_of("#total");
    page.click("#model-source-config");
    page.wait_for("#config-text", 5);
    page.set(
        "#config-text",
        "{\"hidden_size\": 4096, \"num_hidden_layers\": ",
        "input",
    );
    page.click("#config-apply");
    page.wait_until("the inline error", 5, |s| {
        !s.text_of("#config-error").is_empty()
    });
    assert!(page.text_of("#config-error").contains("JSON"));
    assert_eq!(page.text_of("#total"), before);
    // a missing field is named
    page.set(
        "#config-text",
        r#"{"num_hidden_layers": 2, "num_attention_heads": 2, "vocab_size": 100}"#,
        "input",
    );
    page.click("#config-apply");
    page.wait_until("the missing field named", 5, |s| {
        s.text_of("#config-error").contains("hidden_size")
    });
    // a good one replaces the model, and its fields can be edited
    let cfg = r#"{"model_type":"qwen2","vocab_size":152064,"hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,"tie_word_embeddings":false}"#;
    page.set("#config-text", cfg, "input");
    page.click("#config-apply");
    page.wait_until("the new model", 5, |s| {
        s.text_of("#param-count") == "7,615,616,512"
    });
    assert_eq!(page.text_of("#config-error"), "");
    let t0 = page.text_of("#total");
    page.set("#arch-layers", "56", "change");
    let t1 = total_changes_from(&page, &t0);
    assert_eq!(page.value_of("#arch-layers"), "56");
    // heads that do not divide the hidden size are refused under the fields; the budget stays
    page.set("#arch-heads", "5", "change");
    page.wait_until("the refused heads", 5, |s| {
        !s.text_of("#arch-error").is_empty()
    });
    assert_eq!(page.text_of("#total"), t1);
    page.set("#arch-heads", "28", "change");
    page.wait_until("the refusal gone", 5, |s| {
        s.text_of("#arch-error").is_empty()
    });
    assert_eq!(page.value_of("#arch-layers"), "56");
    page.assert_no_console_errors();
}

#[test]
fn an_uploaded_config_json_names_the_model_fills_the_box_and_survives_a_language_switch() {
    let page = Page::open("/");
    let before = page.text_of("#total");
    page.click("#model-source-config");
    page.wait_for("#config-file", 5);
    let cfg = include_str!("../../../engine/tests/fixtures/quant/gpt-oss-20b.json");
    let path = std::env::temp_dir().join(format!("my-gpt-{}.json", std::process::id()));
    std::fs::write(&path, cfg).unwrap();
    page.type_into("#config-file", &path.to_string_lossy());
    let after = total_changes_from(&page, &before);
    assert_ne!(after, before);
    // the file's name names the model, and its text fills the box
    let name = format!("my-gpt-{}", std::process::id());
    assert_eq!(page.value_of("#config-name"), name);
    assert_eq!(page.value_of("#config-text"), cfg);
    assert!(page.text_of("#model-name").contains(&name));
    // the form is written again in Chinese with what it holds
    page.click("#lang-toggle");
    page.wait_until("the page in Chinese", 5, |s| s.url().contains("lang=zh"));
    assert_eq!(page.value_of("#config-name"), name);
    assert_eq!(page.value_of("#config-text"), cfg);
    let _ = std::fs::remove_file(&path);
    page.assert_no_console_errors();
}

#[test]
fn a_pasted_gpt_oss_config_sets_mxfp4_weights_with_attention_embeddings_and_head_in_bf16() {
    let page = Page::open("/?v=1&j=infer");
    let before = page.text_of("#total");
    page.click("#model-source-config");
    page.wait_for("#config-text", 5);
    let cfg = include_str!("../../../engine/tests/fixtures/quant/gpt-oss-20b.json");
    page.set("#config-text", cfg, "input");
    page.click("#config-apply");
    page.wait_until("the quantization in the link", 10, |s| {
        s.url().contains("w=mxfp4") && s.url().contains("wa=bf16")
    });
    assert_eq!(page.value_of("#weights-attention"), "bf16");
    assert_eq!(page.value_of("#weights-head"), "bf16");
    assert_eq!(page.value_of("#weights-mlp"), "auto");
    // the experts in MXFP4, the rest in bf16: about 12.8 GiB of weights
    let total = total_changes_from(&page, &before);
    assert!(gib(&total) > 12.8 && gib(&total) < 20.0, "{total}");
    page.assert_no_console_errors();
}

#[test]
fn the_language_toggle_switches_everything_to_chinese_and_the_link_keeps_it() {
    let page = Page::open("/?v=1&lang=en");
    assert!(page.text_of("#verdict").contains("Needs"));
    // an English visit never downloads the Chinese tables (crates/zh); the toggle does
    let zh_fetched =
        "return performance.getEntriesByType('resource').some((r) => r.name.includes('/vram-zh-'))";
    assert_eq!(page.js(zh_fetched, vec![]), json!(false));
    // the headings, a chart and a control are marked: a switch changes their words in place, it
    // does not build the page or a panel anew
    const KEPT: &str = "['#job-h', '#chart svg', '#batch', '#verdict']";
    page.js(
        &format!("{KEPT}.forEach((s) => {{ document.querySelector(s).dataset.kept = '1'; }})"),
        vec![],
    );
    page.click("#lang-toggle");
    page.wait_until("Chinese text", 5, |s| {
        s.text_of("#verdict").contains("需要")
    });
    let kept =
        format!("return {KEPT}.every((s) => document.querySelector(s).dataset.kept === '1')");
    assert_eq!(page.js(&kept, vec![]), json!(true));
    assert_eq!(page.text_of("#job-h"), "任务");
    assert_eq!(page.js(zh_fetched, vec![]), json!(true));
    assert!(page.text_of("#legend").contains("权重"));
    // the three tables that load on demand: the page's texts, the settings' labels, the formulas
    assert!(page
        .text_of("#explanations")
        .contains("每一项是怎么算出来的"));
    assert!(page.text_of(".controls").contains("序列长度"));
    // and the choices' names (crates/text/src/names.rs): the jobs, the checkpointing options
    assert!(page.text_of("#job").contains("全参数微调"));
    assert!(page.text_of("#ckpt").contains("每一层"));
    assert!(page
        .text_of("#explanations")
        .contains("CUDA 上下文、cuBLAS/NCCL 工作区"));
    assert_eq!(
        page.js("return document.documentElement.lang", vec![]),
        json!("zh-CN")
    );
    page.wait_until("lang in the URL", 5, |s| s.url().contains("lang=zh"));
    let again = Page::open(&format!("/?{}", page.url().split_once('?').unwrap().1));
    assert!(again.text_of("#verdict").contains("需要"));
    page.assert_no_console_errors();
}

#[test]
fn when_the_chinese_table_cannot_load_the_page_stays_english_and_a_later_click_tries_again() {
    let page = Page::open("/?v=1&lang=en");
    page.cdp("Network.enable", json!({}));
    page.cdp("Network.setBlockedURLs", json!({"urls": ["*vram-zh-*"]}));
    page.click("#lang-toggle");
    page.wait_until("the toggle saying the table did not load", 5, |s| {
        s.js(
            "return document.querySelector('#lang-toggle[data-failed]') !== null",
            vec![],
        ) == json!(true)
    });
    assert!(page.text_of("#verdict").contains("Needs"));
    assert_eq!(
        page.js("return document.documentElement.lang", vec![]),
        json!("en")
    );
    // what the console said is the blocked module only
    for e in page.console_errors() {
        assert!(e.contains("vram-zh-"), "{e}");
    }
    page.cdp("Network.setBlockedURLs", json!({"urls": []}));
    page.click("#lang-toggle");
    page.wait_until("Chinese text", 5, |s| {
        s.text_of("#verdict").contains("需要")
    });
    assert!(!page.exists("#lang-toggle[data-failed]"));
}

#[test]
fn on_a_phone_sized_screen_nothing_overflows_sideways() {
    let page = Page::open_sized("/", 390, 844);
    let overflow = page
        .js(
            "return document.documentElement.scrollWidth - window.innerWidth",
            vec![],
        )
        .as_i64()
        .unwrap();
    assert!(overflow <= 0, "{overflow} px wider than the screen");
    // the chart scales to the screen
    let w = page
        .js(
            "return document.querySelector('#chart svg').getBoundingClientRect().width",
            vec![],
        )
        .as_f64()
        .unwrap();
    assert!(w <= 390.0, "{w}");
    page.assert_no_console_errors();
}

#[test]
fn the_keyboard_reaches_every_control_and_chart_segments_explain_themselves_on_focus() {
    let page = Page::open("/");
    // every input has a label or an aria-label
    let unlabelled = page.js(
        "return [...document.querySelectorAll('input, select, textarea')].filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map(e => e.id)",
        vec![],
    );
    assert_eq!(unlabelled, json!([]));
    let focusable = page.count("#chart polygon.seg[tabindex='0']");
    assert!(focusable >= 6);
    // the chart's one label is hidden until a segment has the focus
    let label = "const l = document.getElementById('seg-hover'); return [getComputedStyle(l).display, l.textContent]";
    assert_eq!(page.js(label, vec![])[0], json!("none"));
    // the third segment of the first bar: one that starts above the chart's bottom
    let focused = page.js(
        "const g = document.querySelectorAll('#chart polygon.seg')[2]; g.focus(); return [document.activeElement === g, g.querySelector('title').textContent, g.getBoundingClientRect().top]",
        vec![],
    );
    assert_eq!(focused[0], json!(true));
    let title = focused[1].as_str().unwrap();
    assert!(title.contains("GiB"), "{focused}");
    let shown = page.js(label, vec![]);
    assert_ne!(shown[0], json!("none"), "{shown}");
    assert_eq!(
        shown[1],
        json!(title),
        "the label reads the focused segment's title"
    );
    // it sits above the segment it names
    let above = page.js(
        "const l = document.getElementById('seg-hover').getBoundingClientRect(); return l.bottom",
        vec![],
    );
    assert!(
        above.as_f64().unwrap() <= focused[2].as_f64().unwrap() + 1.0,
        "label bottom {above}, segment top {}",
        focused[2]
    );
    // a second segment moves it, and leaving the chart hides it
    let next = page.js(
        "const g = document.querySelectorAll('#chart polygon.seg')[0]; g.focus(); return g.querySelector('title').textContent",
        vec![],
    );
    assert_eq!(page.js(label, vec![])[1], next);
    // a change that redraws the chart under the focus writes the new value into the label
    page.js("document.getElementById('unit-gb').click()", vec![]);
    page.wait_until("the label in GB", 5, |p| {
        let shown = p.js(label, vec![]);
        let text = shown[1].as_str().unwrap_or_default().to_string();
        text.ends_with(" GB") && text == p.text_of("#chart polygon.seg:focus title")
    });
    page.js("document.getElementById('gpu').focus()", vec![]);
    assert_eq!(page.js(label, vec![])[0], json!("none"));
    // the pointer, moved by the browser's own input: over a segment the label names it, off
    // the chart it hides
    let centre = page.js(
        "const g = document.querySelectorAll('#chart polygon.seg')[1]; g.scrollIntoView({block: 'center'}); const r = g.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2, g.querySelector('title').textContent]",
        vec![],
    );
    let pointer = |x: &serde_json::Value, y: &serde_json::Value| {
        page.cdp(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        );
    };
    pointer(&centre[0], &centre[1]);
    page.wait_until("the label of the pointed segment", 5, |p| {
        p.js(label, vec![])[1] == centre[2]
    });
    pointer(&json!(1), &json!(1));
    page.wait_until("the label hidden", 5, |p| {
        p.js(label, vec![])[0] == json!("none")
    });
}

#[test]
fn dark_mode_follows_the_system_setting_and_the_chart_text_follows_the_theme() {
    let page = Page::open("/");
    let light = page.js(
        "return getComputedStyle(document.body).backgroundColor",
        vec![],
    );
    page.cdp(
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
    );
    page.wait_until("the dark theme", 5, |s| {
        s.js(
            "return getComputedStyle(document.body).backgroundColor",
            vec![],
        ) != light
    });
    // body background is dark, and the chart's axis text (currentColor) is light on it
    let rgb = |v: serde_json::Value| -> Vec<u32> {
        v.as_str()
            .unwrap()
            .trim_start_matches("rgb(")
            .trim_end_matches(')')
            .split(',')
            .map(|x| x.trim().parse().unwrap())
            .collect()
    };
    let bg = rgb(page.js(
        "return getComputedStyle(document.body).backgroundColor",
        vec![],
    ));
    let ink = rgb(page.js(
        "return getComputedStyle(document.querySelector('#chart')).color",
        vec![],
    ));
    assert!(bg.iter().sum::<u32>() < 150, "{bg:?}");
    assert!(ink.iter().sum::<u32>() > 450, "{ink:?}");
    page.assert_no_console_errors();
}

#[test]
fn searching_the_presets_narrows_the_list_a_single_match_picks_itself_and_the_list_picks_a_model() {
    let page = Page::open("/?v=1&lang=en");
    let all = page.count("#preset option");
    assert!(all > 40, "{all} presets");
    assert_eq!(page.value_of("#preset"), "llama-3.1-8b");
    page.type_into("#preset-search", "qwen2.5");
    page.wait_until("the list narrowed to Qwen2.5", 5, |s| {
        s.count("#preset option") == 7
    });
    let names = page.text_of("#preset");
    assert!(
        names.contains("Qwen2.5-72B") && !names.contains("Llama"),
        "{names}"
    );
    // what was typed stays in the box while the list follows it
    assert_eq!(page.value_of("#preset-search"), "qwen2.5");
    page.type_into("#preset-search", "-72b");
    page.wait_until("the one match picked", 5, |s| {
        s.text_of("#model-name").contains("72B")
    });
    assert_eq!(page.value_of("#preset"), "qwen2.5-72b");
    // a language switch keeps the search and the list
    page.click("#lang-toggle");
    page.wait_until("the page in Chinese", 5, |s| s.url().contains("lang=zh"));
    assert_eq!(page.value_of("#preset-search"), "qwen2.5-72b");
    assert_eq!(page.count("#preset option"), 1);
    // choosing from the list: clear the search, pick another model
    page.set("#preset-search", "", "input");
    page.wait_until("the whole list back", 5, |s| {
        s.count("#preset option") == all
    });
    page.set("#preset", "qwen2.5-7b", "change");
    page.wait_until("Qwen2.5-7B picked", 5, |s| s.url().contains("qwen2.5-7b"));
    assert!(page.text_of("#model-name").contains("7B"));
    page.assert_no_console_errors();
}

#[test]
fn the_parameter_slider_moves_the_count_and_a_count_out_of_range_is_refused_in_place() {
    let page = Page::open("/?v=1&lang=en");
    page.click("#model-source-params");
    page.wait_for("#params", 5);
    let before = page.text_of("#params-value");
    page.press("#params", "\u{E00E}");
    page.wait_until("a larger count", 5, |s| {
        s.text_of("#params-value") != before
    });
    assert_eq!(page.value_of("#params-text"), page.text_of("#params-value"));
    let total = page.text_of("#total");
    page.set("#params-text", "50T", "change");
    page.wait_until("the refusal", 5, |s| {
        s.text_of("#params-err").contains("Between 1M and 10T")
    });
    assert_eq!(page.text_of("#total"), total);
    page.set("#params-text", "70B", "change");
    page.wait_until("70B", 5, |s| s.text_of("#params-value").starts_with("70"));
    assert_eq!(page.text_of("#params-err"), "");
    page.assert_no_console_errors();
}

#[test]
fn a_bare_parameter_count_and_a_serving_job_answer_how_many_requests_fit() {
    let page = Page::open("/?v=1&gpu=a100-80");
    page.click("#model-source-params");
    page.wait_for("#params-text", 5);
    page.set("#params-text", "13B", "change");
    page.wait_until("a 13B dense model", 5, |s| {
        s.text_of("#params-value").starts_with("13")
    });
    assert!(page.text_of("#approx-note").contains("Approximate"));
    page.click("#job-serve");
    page.wait_for("#serving-concurrency", 5);
    let fits: u64 = page.text_of("#serving-concurrency").parse().unwrap();
    assert!(fits > 10, "{fits} requests");
    // the verdict's budget is gpu_memory_utilization x what the driver reports, and says so
    let line = page.text_of("#fit-line");
    let (_, budget) = line.split_once("budget ").expect("a budget in the verdict");
    let (budget, product) = budget.split_once(" = ").unwrap();
    let (util, total) = product.split_once("% × ").unwrap();
    let (total, _) = total.split_once(" (").unwrap();
    let (util, budget, total) = (util.parse::<f64>().unwrap(), gib(budget), gib(total));
    assert!((util / 100.0 * total - budget).abs() <= 0.01, "{line}");
    // a longer average request leaves room for fewer of them
    page.set("#avg-tokens-num", "8192", "change");
    page.wait_until("fewer requests", 5, |s| {
        s.text_of("#serving-concurrency")
            .parse::<u64>()
            .map(|n| n < fits)
            .unwrap_or(false)
    });
    // the growth view follows the request length, not the sequence setting servers do not use
    page.wait_until("the request-length view", 5, |s| {
        s.text_of("#seq-chart").contains("average request length")
    });
    // a bad value in a number box is refused with a message, and the budget stays
    let total = page.text_of("#total");
    page.set("#avg-tokens-num", "999999999999", "change");
    page.wait_until("the range message", 5, |s| {
        s.text_of("#avg-tokens-err").contains("1")
    });
    assert_eq!(page.text_of("#total"), total);
    page.assert_no_console_errors();
}

#[test]
fn a_servers_answers_and_its_copyable_command_follow_the_sliders() {
    let page = Page::open("/?v=1&m=llama-3.1-70b&j=serve&gpu=h100&n=4&tp=4&c=64");
    page.wait_for("#serve-command", 10);
    let command = page.value_of("#serve-command");
    assert!(
        command.starts_with("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4"),
        "{command}"
    );
    assert!(command.contains("--max-num-seqs 64") && command.contains("sglang.launch_server"));
    assert!(page.text_of("#startup-concurrency").contains("8,192"));
    // the upper limits of settings are never shown as answers
    let solver = page.text_of("#solver");
    assert!(
        !solver.contains("1,048,576") && !solver.contains("10,485,760"),
        "{solver}"
    );
    assert_eq!(page.text_of("#answer-gpus-for-requests"), "4 (tp 4)");
    let at_max = page.text_of("#answer-requests-max");
    page.set("#concurrency-num", "128", "change");
    page.wait_until("the command follows", 5, |s| {
        s.value_of("#serve-command").contains("--max-num-seqs 128")
    });
    page.set("#max-model-len-num", "32768", "change");
    page.wait_until("the answers follow", 5, |s| {
        s.value_of("#serve-command")
            .contains("--max-model-len 32768")
            && s.text_of("#answer-requests-max") != at_max
    });
    // every row's headroom has the sign of its verdict
    let disagree = page.read_settled(
        "return [...document.querySelectorAll('#fit-table tbody tr')].filter(r => (r.children[2].textContent === 'yes') !== (parseFloat(r.children[3].textContent) >= 0)).map(r => r.id)",
        "",
    );
    assert_eq!(disagree, json!([]));
    page.assert_no_console_errors();
}

#[test]
fn a_draft_model_and_eager_mode_reach_the_command_and_leave_with_it() {
    let page =
        Page::open("/?v=1&m=llama-3.1-8b&j=serve&gpu=h100&sd=draft&sk=4&dm=llama-3.2-1b&cg=eager");
    page.wait_for("#serve-command", 10);
    let command = page.value_of("#serve-command");
    assert!(command.contains("--enforce-eager"), "{command}");
    assert!(
        command.contains(r#""model":"meta-llama/Llama-3.2-1B","num_speculative_tokens":4"#),
        "{command}"
    );
    assert!(page.exists("#draft-model") && page.exists("#spec-tokens-num"));
    let with_draft = page.text_of("#total");
    page.set("#speculative", "off", "change");
    page.wait_until(
        "the draft leaves the command, its controls and the total",
        5,
        |s| {
            !s.value_of("#serve-command")
                .contains("--speculative-config")
                && !s.exists("#draft-model")
                && s.text_of("#total") != with_draft
        },
    );
    // the link keeps eager mode and drops the draft
    page.wait_until("the link follows", 5, |s| {
        let url = s.url();
        url.contains("cg=eager") && !url.contains("sd=") && !url.contains("dm=")
    });
    page.assert_no_console_errors();
}

#[test]
fn a_training_job_shows_training_answers_and_no_serving_ones() {
    let page = Page::open("/?v=1&j=lora");
    page.wait_for("#answer-micro-batch", 10);
    for id in [
        "#serve-command",
        "#answer-requests-avg",
        "#answer-max-model-len",
    ] {
        assert!(!page.exists(id), "{id} on a training page");
    }
    page.assert_no_console_errors();
}

#[test]
fn on_a_phone_sized_screen_the_verdict_is_in_sight_before_the_controls() {
    let page = Page::open_sized("/", 390, 844);
    page.wait_for("#verdict", 10);
    let placed = page.js(
        "const v = document.querySelector('#verdict').getBoundingClientRect(); const c = document.querySelector('.controls').getBoundingClientRect(); const chart = document.querySelector('#chart').getBoundingClientRect(); return [v.top >= 0 && v.bottom <= window.innerHeight, v.top < c.top, chart.top < c.top]",
        vec![],
    );
    assert_eq!(placed, json!([true, true, true]));
    page.assert_no_console_errors();
}
