//! The settings' controls, from the engine's registry: every setting of a panel that applies to
//! the scenario, by its kind and look, through a few generic components (a slider with a number
//! box, a stepped slider with a select, a select, a row of buttons, a checkbox, the LoRA targets).
//!
//! Each list keeps one memo on the scenario, [`Shown`] for each control it shows; each control
//! reads its own entry through a memo of its own, so a step that moves one setting re-renders
//! that control and no other. Controls keep their elements while the scenario changes. One
//! listener per event kind on the panel reads which setting an input belongs to (`data-s`) and
//! asks the engine to set it ([`asked`]).

use leptos::prelude::*;
use vram_engine::scenario::{Look, LoraTargets, Panel};
use vram_engine::{Job, Scenario, Setting, SettingKind, SettingValue, SETTINGS};
use wasm_bindgen::JsCast;

use crate::components::controls::{log_pos, log_value};
use crate::i18n::{self, t, Lang};
use crate::state::AppState;

/// A number typed outside its setting's range: the setting's id and what to say under its box.
pub type Invalid = Option<(&'static str, String)>;

/// A choice's options: each key with its label.
type Options = Vec<(&'static str, String)>;

/// The tensor-parallel degrees a select can offer.
const TP_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", "64"];

/// What one control shows for a scenario: its label, its value (a choice's key, and the
/// tensor-parallel degree as the key of its select) and the keys a choice offers.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub id: &'static str,
    pub label: &'static str,
    pub value: SettingValue,
    pub offered: Vec<&'static str>,
}

/// The settings the registry places on `panel`, in their order there (by rank).
pub fn panel_settings(panel: Panel) -> Vec<&'static Setting> {
    let mut ranked: Vec<&'static Setting> = Vec::new();
    for setting in SETTINGS.iter().filter(|st| st.place.panel == panel) {
        let at = ranked.partition_point(|st| st.place.rank < setting.place.rank);
        ranked.insert(at, setting);
    }
    ranked
}

/// The settings of `panel` that apply to `s`, in the panel's order.
#[cfg(test)]
pub fn shown_settings(panel: &[&'static Setting], s: &Scenario) -> Vec<&'static str> {
    panel
        .iter()
        .filter(|st| (st.applies)(s))
        .map(|st| st.id)
        .collect()
}

/// What each control of `panel` that applies to `s` shows in `lang`, in the panel's order.
pub fn shown_controls(panel: &[&'static Setting], s: &Scenario, lang: Lang) -> Vec<Shown> {
    panel
        .iter()
        .filter(|setting| (setting.applies)(s))
        .map(|setting| shown(setting, s, lang))
        .collect()
}

/// What the control of `setting` shows for `s` in `lang`.
fn shown(setting: &'static Setting, s: &Scenario, lang: Lang) -> Shown {
    let (value, offered) = match setting.kind {
        SettingKind::Number { .. } if setting.key == "tp" => {
            let offered = s.tp_choices();
            let keys = TP_KEYS
                .into_iter()
                .filter(|k| k.parse::<u64>().is_ok_and(|t| offered.contains(&t)))
                .collect();
            let key = TP_KEYS
                .into_iter()
                .find(|k| k.parse::<u64>().ok() == Some(s.tp))
                .unwrap_or("1");
            (SettingValue::Choice(key), keys)
        }
        SettingKind::Choice => (
            SettingValue::Choice(shown_choice(setting, s)),
            setting.offered(s),
        ),
        _ => (setting.get(s), Vec::new()),
    };
    Shown {
        id: setting.id,
        label: label(setting, s, lang),
        value,
        offered,
    }
}

/// The label of a setting in `lang` (the sequence reads "prompt" for inference, "source" for an
/// encoder–decoder model).
fn label(setting: &Setting, s: &Scenario, lang: Lang) -> &'static str {
    match setting.id {
        "seq" if s.model.is_encoder_decoder() => t(lang, "source"),
        "seq" if s.job == Job::Inference => t(lang, "prompt"),
        id => vram_text::setting_label(lang, id),
    }
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

/// The controls of `panel`'s settings that apply to the scenario, in the element `host`.
#[component]
pub fn SettingsList(host: &'static str, panel: Panel) -> impl IntoView {
    settings_list(host, panel)
}

/// [`SettingsList`]'s view, built by one copy of its code for the page's four lists.
#[inline(never)]
fn settings_list(host: &'static str, panel: Panel) -> AnyView {
    let st = expect_context::<AppState>();
    let invalid = RwSignal::new(None::<(&'static str, String)>);
    let settings = panel_settings(panel);
    let list = Memo::new(move |_| {
        let l = st.lang.get();
        st.scenario.with(|s| shown_controls(&settings, s, l))
    });
    let control = move |id: &'static str| {
        // this control's entry; while the list drops it, the last one it had
        let shown = Memo::new(move |was: Option<&Shown>| {
            list.with(|l| l.iter().find(|c| c.id == id).cloned())
                .or_else(|| was.cloned())
                .unwrap_or(Shown {
                    id,
                    label: "",
                    value: SettingValue::On(false),
                    offered: Vec::new(),
                })
        });
        Setting::by_id(id).map(|setting| view! { <Control setting shown invalid/> })
    };
    view! {
        <div
            class="settings"
            id=host
            on:input=move |ev| on_event(st, invalid, &ev, &["range"])
            on:change=move |ev| on_event(st, invalid, &ev, &["number", "select", "checkbox"])
            on:click=move |ev| on_event(st, invalid, &ev, &["button"])
        >
            <For
                each=move || list.with(|l| l.iter().map(|c| c.id).collect::<Vec<_>>())
                key=|id| *id
                children=control
            />
        </div>
    }
    .into_any()
}

/// One setting's control, by its kind and look.
#[component]
fn Control(
    setting: &'static Setting,
    shown: Memo<Shown>,
    invalid: RwSignal<Invalid>,
) -> impl IntoView {
    let label = Memo::new(move |_| shown.with(|c| c.label));
    match setting.kind {
        SettingKind::Number { .. } if setting.key == "tp" => {
            view! { <SelectField setting label shown/> }.into_any()
        }
        SettingKind::Number { .. } => {
            view! { <NumberField setting label shown invalid/> }.into_any()
        }
        SettingKind::Choice => match setting.place.look {
            Look::Buttons => view! { <ButtonsField setting label shown/> }.into_any(),
            Look::Steps => view! { <StepsField setting label shown/> }.into_any(),
            Look::Plain => view! { <SelectField setting label shown/> }.into_any(),
        },
        SettingKind::Switch => view! { <SwitchField setting label shown/> }.into_any(),
        SettingKind::Targets => view! { <TargetsField label shown/> }.into_any(),
        // the tensor split's box sits above the per-GPU table the local module renders
        SettingKind::Shares => ().into_any(),
    }
}

/// A slider and a number box side by side: the slider `id` (log-scale positions 0..=1000 when
/// the setting says `log`), the box `{id}-num`, what was refused under it in `{id}-err`.
#[component]
fn NumberField(
    setting: &'static Setting,
    label: Memo<&'static str>,
    shown: Memo<Shown>,
    invalid: RwSignal<Invalid>,
) -> impl IntoView {
    let SettingKind::Number {
        min,
        max,
        slider,
        log,
        ..
    } = setting.kind
    else {
        return ().into_any();
    };
    let id = setting.id;
    let value = Memo::new(move |_| {
        shown.with(|c| match c.value {
            SettingValue::Number(v) => v,
            _ => 0,
        })
    });
    let (smin, smax) = if log { (0, 1000) } else { slider };
    let position = move || {
        let v = value.get();
        if log {
            log_pos(v, slider.0, slider.1)
        } else {
            v.clamp(slider.0, slider.1)
        }
    };
    let error = move || {
        invalid.with(|i| match i {
            Some((bad, said)) if *bad == id => said.clone(),
            _ => String::new(),
        })
    };
    view! {
        <div class="field slider-field" id=format!("field-{id}")>
            <label for=format!("{id}-num")>{label}</label>
            <div class="slider-row">
                <input
                    type="range"
                    id=id
                    data-s=id
                    aria-label=label
                    min=smin
                    max=smax
                    step="1"
                    prop:value=move || position().to_string()
                />
                <input
                    type="number"
                    id=format!("{id}-num")
                    data-s=id
                    inputmode="numeric"
                    min=min
                    max=max
                    prop:value=move || value.get().to_string()
                    aria-describedby=format!("{id}-err")
                />
            </div>
            <p class="input-error" id=format!("{id}-err") role="status">{error}</p>
        </div>
    }
    .into_any()
}

/// The options a choice control offers, labelled in the page's language, and the key it shows.
/// The labels are written again only when the offered keys or the language change.
fn options_and_value(
    st: AppState,
    setting: &'static Setting,
    shown: Memo<Shown>,
) -> (Memo<Options>, Memo<&'static str>) {
    let offered = Memo::new(move |_| shown.with(|c| c.offered.clone()));
    let options = Memo::new(move |_| {
        let l = st.lang.get();
        offered.with(|keys| {
            keys.iter()
                .map(|&k| match setting.kind {
                    SettingKind::Choice => (k, i18n::choice(l, setting.key, k)),
                    _ => (k, k.to_string()),
                })
                .collect()
        })
    });
    let value = Memo::new(move |_| {
        shown.with(|c| match c.value {
            SettingValue::Choice(k) => k,
            _ => "",
        })
    });
    (options, value)
}

/// The `<option>`s of a choice, the shown one selected.
fn option_list(options: Memo<Options>, value: Memo<&'static str>) -> impl IntoView {
    move || {
        options
            .get()
            .into_iter()
            .map(|(k, l)| {
                view! { <option value=k prop:selected=move || value.get() == k>{l}</option> }
            })
            .collect_view()
    }
}

#[component]
fn SelectField(
    setting: &'static Setting,
    label: Memo<&'static str>,
    shown: Memo<Shown>,
) -> impl IntoView {
    let st = expect_context::<AppState>();
    let id = setting.id;
    let (options, value) = options_and_value(st, setting, shown);
    view! {
        <div class="field" id=format!("field-{id}")>
            <label for=id>{label}</label>
            <select id=id data-s=id aria-label=label prop:value=move || value.get()>
                {option_list(options, value)}
            </select>
        </div>
    }
}

/// A stepped slider labelled with its current option, and a select `{id}-select` beside it.
#[component]
fn StepsField(
    setting: &'static Setting,
    label: Memo<&'static str>,
    shown: Memo<Shown>,
) -> impl IntoView {
    let st = expect_context::<AppState>();
    let id = setting.id;
    let (options, value) = options_and_value(st, setting, shown);
    let index = move || {
        let v = value.get();
        options.with(|o| o.iter().position(|(k, _)| *k == v).unwrap_or(0))
    };
    let current = move || {
        let i = index();
        options.with(|o| o.get(i).map(|(_, l)| l.clone()).unwrap_or_default())
    };
    view! {
        <div class="field enum-field" id=format!("field-{id}")>
            <label for=format!("{id}-select")>
                {label} ": " <strong class="current" id=format!("{id}-value")>{current}</strong>
            </label>
            <div class="slider-row">
                <input
                    type="range"
                    id=id
                    data-s=id
                    min="0"
                    max=move || options.with(|o| o.len().saturating_sub(1))
                    step="1"
                    aria-label=label
                    aria-valuetext=current
                    prop:value=move || index().to_string()
                />
                <select
                    id=format!("{id}-select")
                    data-s=id
                    aria-label=label
                    prop:value=move || value.get()
                >
                    {option_list(options, value)}
                </select>
            </div>
        </div>
    }
}

/// A row of buttons `{id}-{key}`, the chosen one pressed.
#[component]
fn ButtonsField(
    setting: &'static Setting,
    label: Memo<&'static str>,
    shown: Memo<Shown>,
) -> impl IntoView {
    let st = expect_context::<AppState>();
    let (options, value) = options_and_value(st, setting, shown);
    let options = Signal::derive(move || options.get());
    view! { <Buttons id=setting.id label options value/> }
}

/// A row of buttons `{id}-{key}` under a label, the one `value` names pressed; a click's
/// `data-k` says which.
#[component]
pub fn Buttons(
    id: &'static str,
    #[prop(into)] label: Signal<&'static str>,
    #[prop(into)] options: Signal<Vec<(&'static str, String)>>,
    #[prop(into)] value: Signal<&'static str>,
) -> impl IntoView {
    let button = move |(k, l): (&'static str, String)| {
        let pressed = move || value.get() == k;
        view! {
            <button
                type="button"
                id=format!("{id}-{k}")
                data-s=id
                data-k=k
                class:pressed=pressed
                aria-pressed=move || if pressed() { "true" } else { "false" }
            >
                {l}
            </button>
        }
    };
    view! {
        <div class="field" id=format!("field-{id}")>
            <span class="field-label" id=format!("{id}-label")>{label}</span>
            <div class="segmented" role="group" aria-labelledby=format!("{id}-label") id=id>
                <For each=move || options.get() key=|o| o.clone() children=button/>
            </div>
        </div>
    }
}

#[component]
fn SwitchField(
    setting: &'static Setting,
    label: Memo<&'static str>,
    shown: Memo<Shown>,
) -> impl IntoView {
    let id = setting.id;
    let on = move || shown.with(|c| c.value == SettingValue::On(true));
    view! {
        <div class="field toggle" id=format!("field-{id}")>
            <input type="checkbox" id=id data-s=id prop:checked=on/>
            <label for=id>{label}</label>
        </div>
    }
}

/// The LoRA target modules, a checkbox `target-{name}` each.
#[component]
fn TargetsField(label: Memo<&'static str>, shown: Memo<Shown>) -> impl IntoView {
    let chip = move |name: &'static str| {
        let on =
            move || shown.with(|c| matches!(c.value, SettingValue::Targets(t) if t.contains(name)));
        view! {
            <label class="chip">
                <input
                    type="checkbox"
                    id=format!("target-{name}")
                    data-s="lora-targets"
                    data-k=name
                    prop:checked=on
                />
                {name}
            </label>
        }
    };
    view! {
        <fieldset class="field targets" id="lora-targets">
            <legend>{label}</legend>
            {LoraTargets::NAMES.iter().map(|n| chip(n)).collect_view()}
        </fieldset>
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    const PANELS: [Panel; 4] = [Panel::Job, Panel::Hardware, Panel::Advanced, Panel::Header];

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
            let shown: Vec<&str> = PANELS
                .iter()
                .flat_map(|p| shown_settings(&panel_settings(*p), &s))
                .collect();
            for setting in SETTINGS {
                if matches!(setting.kind, SettingKind::Shares) {
                    continue;
                }
                assert_eq!(
                    shown.contains(&setting.id),
                    (setting.applies)(&s),
                    "{} on a {job:?} job",
                    setting.id
                );
            }
        }
    }

    #[test]
    fn a_batch_step_changes_the_entries_of_the_batch_and_of_what_follows_it_and_of_no_other() {
        let s = Scenario::default();
        let doubled = Scenario {
            batch: s.batch * 2,
            ..s.clone()
        };
        for panel in PANELS.map(panel_settings) {
            let (before, after) = (
                shown_controls(&panel, &s, Lang::En),
                shown_controls(&panel, &doubled, Lang::En),
            );
            assert_eq!(
                before.iter().map(|c| c.id).collect::<Vec<_>>(),
                shown_settings(&panel, &s)
            );
            let moved: Vec<&str> = before
                .iter()
                .zip(&after)
                .filter(|(a, b)| a != b)
                .map(|(a, _)| a.id)
                .collect();
            for id in &moved {
                assert!(["batch", "global-batch"].contains(id), "{id} moved");
            }
            if panel.iter().any(|st| st.id == "batch") {
                assert!(moved.contains(&"batch"));
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
}
