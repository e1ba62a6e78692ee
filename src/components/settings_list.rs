//! The settings' controls, as markup patched in place: every setting of a panel that applies to
//! the scenario, by its kind and look (a slider with a number box, a stepped slider with a
//! select, a select, a row of buttons, a checkbox, the LoRA targets). One string per panel, built
//! from the scenario by [`list_markup`] (pure, tested natively) and patched into the page
//! element by element (`chart::patch`), with one listener per event kind on the panel: the
//! page carries one element's code for all of them instead of a Leptos view per control.

use vram_engine::{Job, LoraTargets, Scenario, Setting, SettingKind, SettingValue};
use wasm_bindgen::JsCast;

use crate::chart::escape;
use crate::components::controls::{log_pos, log_value};
use crate::dom::{self, Piece};
use crate::i18n::{self, t, Lang};
use crate::reactive::*;
use crate::state::AppState;

/// How a setting is shown.
#[derive(Clone, Copy)]
pub enum Look {
    /// A select (choices), a slider with a box (numbers), a checkbox (switches).
    Plain,
    /// A stepped slider with a select beside it.
    Steps,
    /// A row of buttons.
    Buttons,
}

/// A number typed outside its setting's range: the setting's id and what to say under its box.
pub type Invalid = Option<(&'static str, String)>;

/// The tensor-parallel degrees a select can offer.
const TP_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", "64"];

/// The controls of `settings` that apply to `s`, as one escaped string.
pub fn list_markup(
    settings: &[(&'static str, Look)],
    s: &Scenario,
    lang: Lang,
    invalid: &Invalid,
) -> String {
    let mut out = String::new();
    for &(id, look) in settings {
        let Some(setting) = Setting::by_id(id) else {
            continue;
        };
        if (setting.applies)(s) {
            let error = invalid
                .as_ref()
                .filter(|(i, _)| *i == id)
                .map(|(_, e)| e.as_str());
            out.push_str(&control_markup(setting, look, s, lang, error));
        }
    }
    out
}

/// The label of a setting in `lang` (the sequence reads "prompt" for inference, "source" for an
/// encoder–decoder model).
fn label(setting: &Setting, s: &Scenario, lang: Lang) -> String {
    let text = match setting.id {
        "seq" if s.model.is_encoder_decoder() => t(lang, "source"),
        "seq" if s.job == Job::Inference => t(lang, "prompt"),
        id => vram_text::setting_label(lang, id),
    };
    escape(text)
}

/// The option a choice's control shows for `s`: its value, or for the weights the format a QLoRA
/// job will really use.
pub fn shown_choice(setting: &Setting, s: &Scenario) -> &'static str {
    match setting.key {
        "w" => s.effective_weights().key(),
        _ => match setting.get(s) {
            SettingValue::Choice(k) => k,
            _ => "",
        },
    }
}

fn control_markup(
    setting: &Setting,
    look: Look,
    s: &Scenario,
    lang: Lang,
    error: Option<&str>,
) -> String {
    let label = label(setting, s, lang);
    match setting.kind {
        SettingKind::Number { .. } if setting.key == "tp" => {
            let offered = s.tp_choices();
            let options: Vec<(&'static str, String)> = TP_KEYS
                .iter()
                .filter(|k| k.parse::<u64>().is_ok_and(|t| offered.contains(&t)))
                .map(|k| (*k, k.to_string()))
                .collect();
            let value = TP_KEYS
                .into_iter()
                .find(|k| k.parse::<u64>().ok() == Some(s.tp))
                .unwrap_or("1");
            select_field(setting.id, &label, &options, value)
        }
        SettingKind::Number {
            min,
            max,
            slider,
            log,
            ..
        } => {
            let SettingValue::Number(value) = setting.get(s) else {
                return String::new();
            };
            number_field(setting.id, &label, value, slider, (min, max), log, error)
        }
        SettingKind::Choice => {
            let options: Vec<(&'static str, String)> = setting
                .offered(s)
                .into_iter()
                .map(|k| (k, i18n::choice(lang, setting.key, k)))
                .collect();
            let value = shown_choice(setting, s);
            match look {
                Look::Buttons => buttons_field(setting.id, &label, &options, value),
                Look::Steps => steps_field(setting.id, &label, &options, value),
                Look::Plain => select_field(setting.id, &label, &options, value),
            }
        }
        SettingKind::Switch => {
            let on = setting.get(s) == SettingValue::On(true);
            let id = setting.id;
            format!(
                r#"<div class="field toggle" id="field-{id}"><input type="checkbox" id="{id}" data-s="{id}"{} /><label for="{id}">{label}</label></div>"#,
                checked(on)
            )
        }
        SettingKind::Targets => targets_field(&label, s),
        // the tensor split's box sits above the per-GPU table the local module renders
        SettingKind::Shares => String::new(),
    }
}

fn checked(on: bool) -> &'static str {
    if on {
        r#" checked="""#
    } else {
        ""
    }
}

/// A slider and a number box side by side: the slider `id` (log-scale positions 0..=1000 when
/// `log`), the box `{id}-num`, what was refused under it in `{id}-err`.
fn number_field(
    id: &str,
    label: &str,
    value: u64,
    (min, max): (u64, u64),
    (limit_min, limit_max): (u64, u64),
    log: bool,
    error: Option<&str>,
) -> String {
    let (smin, smax, pos) = if log {
        (0, 1000, log_pos(value, min, max))
    } else {
        (min, max, value.clamp(min, max))
    };
    format!(
        r#"<div class="field slider-field" id="field-{id}"><label for="{id}-num">{label}</label><div class="slider-row"><input type="range" id="{id}" data-s="{id}" aria-label="{label}" min="{smin}" max="{smax}" step="1" value="{pos}" /><input type="number" id="{id}-num" data-s="{id}" inputmode="numeric" min="{limit_min}" max="{limit_max}" value="{value}" aria-describedby="{id}-err" /></div><p class="input-error" id="{id}-err" role="status">{}</p></div>"#,
        escape(error.unwrap_or(""))
    )
}

/// The `<option>`s of a choice, `value` selected.
fn options_markup(options: &[(&'static str, String)], value: &str) -> String {
    options
        .iter()
        .map(|(k, l)| {
            let selected = if *k == value { r#" selected="""# } else { "" };
            format!(r#"<option value="{k}"{selected}>{}</option>"#, escape(l))
        })
        .collect()
}

fn select_field(id: &str, label: &str, options: &[(&'static str, String)], value: &str) -> String {
    format!(
        r#"<div class="field" id="field-{id}"><label for="{id}">{label}</label><select id="{id}" data-s="{id}" aria-label="{label}">{}</select></div>"#,
        options_markup(options, value)
    )
}

/// A stepped slider labelled with its current option, and a select `{id}-select` beside it.
fn steps_field(id: &str, label: &str, options: &[(&'static str, String)], value: &str) -> String {
    let index = options.iter().position(|(k, _)| *k == value).unwrap_or(0);
    let current = options
        .get(index)
        .map(|(_, l)| escape(l))
        .unwrap_or_default();
    format!(
        r#"<div class="field enum-field" id="field-{id}"><label for="{id}-select">{label}: <strong class="current" id="{id}-value">{current}</strong></label><div class="slider-row"><input type="range" id="{id}" data-s="{id}" min="0" max="{}" step="1" aria-label="{label}" aria-valuetext="{current}" value="{index}" /><select id="{id}-select" data-s="{id}" aria-label="{label}">{}</select></div></div>"#,
        options.len().saturating_sub(1),
        options_markup(options, value)
    )
}

/// A row of buttons `{id}-{key}`, the chosen one pressed.
pub(crate) fn buttons_field(
    id: &str,
    label: &str,
    options: &[(&'static str, String)],
    value: &str,
) -> String {
    let buttons: String = options
        .iter()
        .map(|(k, l)| {
            let (class, pressed) = if *k == value {
                (r#" class="pressed""#, "true")
            } else {
                ("", "false")
            };
            format!(
                r#"<button type="button" id="{id}-{k}" data-s="{id}" data-k="{k}"{class} aria-pressed="{pressed}">{}</button>"#,
                escape(l)
            )
        })
        .collect();
    format!(
        r#"<div class="field" id="field-{id}"><span class="field-label" id="{id}-label">{label}</span><div class="segmented" role="group" aria-labelledby="{id}-label" id="{id}">{buttons}</div></div>"#
    )
}

/// The LoRA target modules, a checkbox `target-{name}` each.
fn targets_field(label: &str, s: &Scenario) -> String {
    let chips: String = LoraTargets::NAMES
        .iter()
        .map(|name| {
            format!(
                r#"<label class="chip"><input type="checkbox" id="target-{name}" data-s="lora-targets" data-k="{name}"{} />{name}</label>"#,
                checked(s.lora_targets.contains(name))
            )
        })
        .collect();
    format!(
        r#"<fieldset class="field targets" id="lora-targets"><legend>{label}</legend>{chips}</fieldset>"#
    )
}

/// What an event on a panel asks of the scenario.
pub enum Asked {
    /// Set the setting to the value.
    Set(&'static Setting, SettingValue),
    /// A number outside its range was typed: say so under its box.
    Refuse(&'static str, String),
    /// Tick or untick one LoRA target.
    Target(&'static str, bool),
    Nothing,
}

/// The input that raised an event: its kind (`range`, `number`, `checkbox`, `select`, `button`),
/// the setting it belongs to, its `data-k`, its value and whether it is checked.
pub struct Input<'a> {
    pub kind: &'a str,
    pub setting: &'a str,
    pub key: &'a str,
    pub value: &'a str,
    pub checked: bool,
}

/// What an input's event asks for, given the scenario the panel shows.
pub fn asked(input: &Input, s: &Scenario, lang: Lang) -> Asked {
    if input.setting == "lora-targets" {
        return LoraTargets::NAMES
            .iter()
            .find(|n| **n == input.key)
            .map_or(Asked::Nothing, |n| Asked::Target(n, input.checked));
    }
    let Some(setting) = Setting::by_id(input.setting) else {
        return Asked::Nothing;
    };
    match (setting.kind, input.kind) {
        (SettingKind::Switch, "checkbox") => Asked::Set(setting, SettingValue::On(input.checked)),
        (SettingKind::Number { .. }, "select") => match input.value.parse::<u64>() {
            Ok(v) => Asked::Set(setting, SettingValue::Number(v)),
            Err(_) => Asked::Nothing,
        },
        (
            SettingKind::Number {
                slider, log, pow2, ..
            },
            "range",
        ) => match input.value.parse::<u64>() {
            Ok(p) if log => Asked::Set(
                setting,
                SettingValue::Number(log_value(p, slider.0, slider.1, pow2)),
            ),
            Ok(p) => Asked::Set(setting, SettingValue::Number(p)),
            Err(_) => Asked::Nothing,
        },
        (SettingKind::Number { min, max, .. }, "number") => {
            match input.value.trim().parse::<u64>() {
                Ok(v) if (min..=max).contains(&v) => Asked::Set(setting, SettingValue::Number(v)),
                _ => Asked::Refuse(setting.id, format!("{} {min}–{max}", t(lang, "allowed"))),
            }
        }
        (SettingKind::Choice, kind) => {
            let offered = setting.offered(s);
            let key = match kind {
                "button" => input.key,
                "select" => input.value,
                "range" => match input.value.parse::<usize>() {
                    Ok(i) => offered.get(i).copied().unwrap_or(""),
                    Err(_) => "",
                },
                _ => "",
            };
            offered
                .into_iter()
                .find(|k| *k == key)
                .map_or(Asked::Nothing, |k| {
                    Asked::Set(setting, SettingValue::Choice(k))
                })
        }
        _ => Asked::Nothing,
    }
}

/// Reads the event's input element and does what it asks.
fn on_event(st: AppState, invalid: RwSignal<Invalid>, ev: &web_sys::Event, kinds: &[&str]) {
    let Some(el) = crate::components::event_element(ev) else {
        return;
    };
    let kind = match el.tag_name().as_str() {
        "INPUT" => el.get_attribute("type").unwrap_or_default(),
        "SELECT" => "select".to_string(),
        "BUTTON" => "button".to_string(),
        _ => return,
    };
    if !kinds.contains(&kind.as_str()) {
        return;
    }
    let (Some(setting), key) = (el.get_attribute("data-s"), el.get_attribute("data-k")) else {
        return;
    };
    let (value, checked) = match el.dyn_ref::<web_sys::HtmlInputElement>() {
        Some(input) => (input.value(), input.checked()),
        None => (
            el.dyn_ref::<web_sys::HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or_default(),
            false,
        ),
    };
    let input = Input {
        kind: &kind,
        setting: &setting,
        key: key.as_deref().unwrap_or(""),
        value: &value,
        checked,
    };
    let lang = st.lang.get_untracked();
    match st.scenario.with_untracked(|s| asked(&input, s, lang)) {
        Asked::Set(setting, value) => {
            if invalid.with_untracked(|i| i.as_ref().is_some_and(|(id, _)| *id == setting.id)) {
                invalid.set(None);
            }
            st.edit(|s| setting.set(s, value));
        }
        Asked::Refuse(id, said) => invalid.set(Some((id, said))),
        Asked::Target(name, on) => {
            let next = st
                .scenario
                .with_untracked(|s| s.lora_targets.with(name, on));
            // the last target cannot be unticked (the engine would reset all seven)
            if next != LoraTargets::empty() {
                st.edit(|s| s.lora_targets = next);
            } else {
                el.unchecked_ref::<web_sys::HtmlInputElement>()
                    .set_checked(true);
            }
        }
        Asked::Nothing => {}
    }
}

/// The controls of `settings` in the host `id`, following the scenario and the language.
pub fn settings_list(id: &'static str, settings: &'static [(&'static str, Look)]) -> Piece {
    let st = expect_context::<AppState>();
    let invalid = RwSignal::new(None::<(&'static str, String)>);
    let markup = Memo::new(move |_| {
        let lang = st.lang.get();
        invalid.with(|bad| st.scenario.with(|s| list_markup(settings, s, lang, bad)))
    });
    dom::patched_after_paint(id, markup);
    dom::on(id, "input", move |ev| on_event(st, invalid, ev, &["range"]));
    dom::on(id, "change", move |ev| {
        on_event(st, invalid, ev, &["number", "select", "checkbox"])
    });
    dom::on(id, "click", move |ev| {
        on_event(st, invalid, ev, &["button"])
    });
    dom::fixed(format!(r#"<div class="settings" id="{id}"></div>"#))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{ADVANCED_PANEL, HARDWARE_PANEL, HEADER_PANEL, JOB_PANEL};
    use crate::chart::model::Model;
    use crate::chart::patch::patch_inner;
    use crate::chart::steps::{presses, Recorder, Write, BENCH_SLIDERS};
    use vram_engine::SETTINGS;

    const PANELS: [&[(&str, Look)]; 4] = [JOB_PANEL, HARDWARE_PANEL, ADVANCED_PANEL, HEADER_PANEL];

    fn page(s: &Scenario, lang: Lang) -> Vec<String> {
        PANELS
            .iter()
            .map(|p| list_markup(p, s, lang, &None))
            .collect()
    }

    fn input<'a>(kind: &'a str, setting: &'a str, key: &'a str, value: &'a str) -> Input<'a> {
        Input {
            kind,
            setting,
            key,
            value,
            checked: false,
        }
    }

    fn set_to(a: Asked) -> Option<(&'static str, SettingValue)> {
        match a {
            Asked::Set(setting, v) => Some((setting.id, v)),
            _ => None,
        }
    }

    #[test]
    fn each_job_shows_the_control_of_every_setting_that_applies_and_of_no_other() {
        for job in Job::ALL {
            let mut s = Scenario {
                job: *job,
                ..Scenario::default()
            };
            s.normalize();
            let markup = page(&s, Lang::En).concat();
            for setting in SETTINGS {
                if matches!(setting.kind, SettingKind::Shares) {
                    continue;
                }
                let id = match setting.kind {
                    SettingKind::Targets => "lora-targets".to_string(),
                    _ => format!("field-{}", setting.id),
                };
                assert_eq!(
                    markup.contains(&format!(r#"id="{id}""#)),
                    (setting.applies)(&s),
                    "{} on a {job:?} job",
                    setting.id
                );
            }
        }
    }

    #[test]
    fn the_benchmark_steps_patch_the_controls_in_place_to_exactly_the_new_markup() {
        let start = Scenario::default();
        let recorder = Recorder::new();
        for (id, big) in BENCH_SLIDERS {
            let mut shown = page(&start, Lang::En);
            for s in presses(&start, id, big, 25) {
                let next = page(&s, Lang::En);
                for (old, new) in shown.iter().zip(&next) {
                    let model = Model::host(old);
                    patch_inner(&model, old, new);
                    assert_eq!(model.printed(), Model::host(new).printed(), "{id}");
                    patch_inner(&recorder, old, new);
                }
                let whole: Vec<Write> = recorder
                    .take()
                    .into_iter()
                    .filter(|w| matches!(w, Write::Whole(..)))
                    .collect();
                assert!(whole.is_empty(), "a press on {id} wrote {whole:?}");
                shown = next;
            }
        }
    }

    #[test]
    fn a_slider_a_box_a_select_and_a_button_ask_for_what_their_control_shows() {
        let s = Scenario::default();
        let batch = Setting::by_id("batch").unwrap();
        let SettingKind::Number {
            slider,
            min,
            max,
            pow2,
            ..
        } = batch.kind
        else {
            panic!("batch is a number");
        };
        // a slider position reads back through the log scale the markup wrote it on
        let pos = log_pos(8, slider.0, slider.1).to_string();
        assert_eq!(
            set_to(asked(&input("range", "batch", "", &pos), &s, Lang::En)),
            Some((
                "batch",
                SettingValue::Number(log_value(pos.parse().unwrap(), slider.0, slider.1, pow2))
            ))
        );
        assert_eq!(
            set_to(asked(&input("number", "batch", "", " 12 "), &s, Lang::En)),
            Some(("batch", SettingValue::Number(12)))
        );
        match asked(
            &input("number", "batch", "", &(max + 1).to_string()),
            &s,
            Lang::Zh,
        ) {
            Asked::Refuse(id, said) => {
                assert_eq!(id, "batch");
                assert!(said.ends_with(&format!("{min}–{max}")), "{said}");
            }
            _ => panic!("a batch above its range is refused"),
        }
        let job = Setting::by_id("job").unwrap();
        let offered = job.offered(&s);
        assert_eq!(
            set_to(asked(&input("button", "job", offered[0], ""), &s, Lang::En)),
            Some(("job", SettingValue::Choice(offered[0])))
        );
        assert_eq!(
            set_to(asked(&input("select", "job", "", offered[1]), &s, Lang::En)),
            Some(("job", SettingValue::Choice(offered[1])))
        );
        assert_eq!(
            set_to(asked(&input("range", "job", "", "1"), &s, Lang::En)),
            Some(("job", SettingValue::Choice(offered[1])))
        );
        assert!(set_to(asked(
            &input("select", "job", "", "no-such-job"),
            &s,
            Lang::En
        ))
        .is_none());
        assert!(set_to(asked(
            &input("range", "no-such-setting", "", "1"),
            &s,
            Lang::En
        ))
        .is_none());
        let mut dropout = input("checkbox", "switch-ld", "", "on");
        dropout.checked = true;
        assert_eq!(
            set_to(asked(&dropout, &s, Lang::En)),
            Some(("switch-ld", SettingValue::On(true)))
        );
        assert!(matches!(
            asked(
                &Input {
                    checked: false,
                    ..input("checkbox", "lora-targets", "gate", "on")
                },
                &s,
                Lang::En
            ),
            Asked::Target("gate", false)
        ));
    }

    #[test]
    fn what_a_user_typed_or_chose_is_escaped_and_a_refusal_shows_under_its_box() {
        let s = Scenario::default();
        let bad = Some(("batch", "Allowed: <1>".to_string()));
        let markup = list_markup(JOB_PANEL, &s, Lang::En, &bad);
        assert!(
            markup.contains(r#"id="batch-err" role="status">Allowed: &lt;1&gt;</p>"#),
            "{markup}"
        );
        assert!(crate::chart::markup::reads_whole(&format!(
            "<x>{markup}</x>"
        )));
    }
}
