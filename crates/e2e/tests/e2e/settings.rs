//! The settings registry, seen from the built page: every setting that applies to a job has its
//! control (found by the registry's id), none that does not, and a changed control lands in the
//! link under the registry's key. Errors and notices speak the page's language.

use e2e::Page;
use vram_engine::{Job, Scenario, SettingKind, SETTINGS};

/// The scenario a link of this job opens with.
fn opened(job: Job) -> Scenario {
    vram_engine::link::decode(&format!("v=1&j={}", job.key())).scenario
}

#[test]
fn every_setting_that_applies_to_a_job_has_its_control_and_no_other_setting_does() {
    let page = Page::open("/");
    for job in Job::ALL {
        page.click(&format!("#job-{}", job.key()));
        let s = opened(*job);
        page.wait_until(&format!("the {} controls", job.key()), 10, |p| {
            SETTINGS
                .iter()
                .all(|st| p.count(&format!("[id='{}']", st.id)) == u64::from((st.applies)(&s)))
        });
        for st in SETTINGS {
            let shown = page.count(&format!("[id='{}']", st.id));
            assert_eq!(
                shown,
                u64::from((st.applies)(&s)),
                "{} on the {} job",
                st.id,
                job.key()
            );
        }
    }
    page.assert_no_console_errors();
}

#[test]
fn a_switch_and_a_number_changed_on_the_page_land_in_the_link_under_their_registry_keys() {
    let page = Page::open("/?v=1&j=full");
    for st in SETTINGS {
        match st.kind {
            SettingKind::Switch if (st.applies)(&opened(Job::Full)) => {
                let before = page.url();
                page.click(&format!("#{}", st.id));
                page.wait_until(&format!("{} in the link", st.key), 5, |p| {
                    p.url() != before && p.url().contains(&format!("{}=", st.key))
                });
            }
            _ => {}
        }
    }
    page.set("#grad-accum-num", "8", "change");
    page.wait_until("ga=8 in the link", 5, |p| p.url().contains("ga=8"));
    let reopened = vram_engine::link::decode(&page.url());
    assert_eq!(reopened.scenario.grad_accum, 8);
    page.assert_no_console_errors();
}

#[test]
fn on_the_chinese_page_a_link_notice_and_an_error_are_in_chinese() {
    let page = Page::open("/?v=1&lang=zh&b=0&zzz=1&j=full&w=nf4");
    let notice = page.text_of("#link-notice");
    assert!(
        notice.contains("已忽略 b=")
            && notice.contains("已忽略未知设置")
            && notice.contains("恢复为默认值"),
        "{notice}"
    );
    assert!(!notice.contains("ignored"), "{notice}");
    page.click("#model-source-config");
    page.wait_for("#config-text", 5);
    page.set("#config-text", "[1,2]", "input");
    page.click("#config-apply");
    page.wait_until("the inline error", 5, |s| {
        !s.text_of("#config-error").is_empty()
    });
    let error = page.text_of("#config-error");
    assert!(error.contains("顶层不是 JSON 对象"), "{error}");
    // the same error follows the language toggle
    page.click("#lang-toggle");
    page.wait_until("the error in English", 5, |s| {
        s.text_of("#config-error")
            .contains("top level is not a JSON object")
    });
    page.assert_no_console_errors();
}

#[test]
fn an_encoder_decoder_model_shows_its_source_and_target_lengths_and_the_link_keeps_them() {
    let page = Page::open("/?v=1&m=flan-t5-xl&j=lora");
    page.wait_for("#target-len-num", 10);
    assert!(
        page.text_of("label[for='seq-num']")
            .contains("Source tokens"),
        "{}",
        page.text_of("label[for='seq-num']")
    );
    page.set("#target-len-num", "256", "change");
    page.wait_until("tl=256 in the link", 5, |p| p.url().contains("tl=256"));
    assert_eq!(
        vram_engine::link::decode(&page.url()).scenario.target_len,
        256
    );
    // a decoder-only model has one sequence length, no target length
    let page = Page::open("/?v=1&m=llama-3.1-8b&j=lora");
    page.wait_for("#seq-num", 10);
    assert_eq!(page.count("#target-len-num"), 0);
    page.assert_no_console_errors();
}

#[test]
fn a_slider_pressed_from_the_keyboard_keeps_its_element_and_focus_while_other_controls_come_and_go()
{
    let page = Page::open("/?v=1&j=full&n=1&z=3");
    // every control gets a mark the page's own code never sets: an element written anew loses it
    page.js(
        "document.querySelectorAll('.settings input, .settings select, .settings button').forEach((e) => { e.dataset.mark = '1'; });",
        vec![],
    );
    let before = page.count(".settings [data-mark]");
    assert_eq!(page.count("#shard-group"), 0, "one GPU has no shard group");
    // PageUp: a tenth of the slider, about a doubling of the count on its log scale
    for _ in 0..2 {
        page.press("#gpus", "\u{E00E}");
    }
    // more GPUs: the shard group's control came in below the slider
    page.wait_until("the shard group's control", 5, |p| {
        p.count("#shard-group") == 1
    });
    assert_eq!(
        page.js("return document.activeElement.id", vec![]),
        serde_json::json!("gpus")
    );
    for css in [
        "#gpus[data-mark]",
        "#gpus-num[data-mark]",
        "#batch[data-mark]",
        "#job-full[data-mark]",
        "#unit-gib[data-mark]",
    ] {
        assert!(page.exists(css), "{css} was written anew");
    }
    assert_eq!(
        page.count(".settings [data-mark]"),
        before,
        "controls were written anew"
    );
    // the box shows the value the slider set, and the link has it
    let gpus = page.value_of("#gpus-num");
    assert_ne!(gpus, "1");
    page.wait_until("the GPU count in the link", 5, |p| {
        p.url().contains(&format!("n={gpus}"))
    });
    page.assert_no_console_errors();
}
