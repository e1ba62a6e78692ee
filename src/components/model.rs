//! The model: a searchable preset, a bare parameter count, a model id read from the Hub, or a
//! pasted / uploaded config.json.

use leptos::prelude::*;

use vram_engine::hub::MAX_CONFIG_BYTES;
use vram_engine::link::parse_param_count;
use vram_engine::{model::PartFormats, Architecture, ModelChoice};
use vram_engine::{units::short_count, units::thousands};

use super::hub::HubPicker;
use super::paste_box::{FileProblem, PasteBox};
use super::settings::Buttons;
use super::ErrorAndStatus;
use crate::i18n::{t, Lang};
use crate::modules::{preload, Module, Refused};
use crate::readers;
use crate::state::AppState;

/// Why a pasted or uploaded config.json was not used.
#[derive(Clone, Debug)]
enum ConfigProblem {
    /// Larger than a config.json can be.
    TooBig,
    /// The browser could not read the file.
    Unreadable,
    /// What the on-demand readers module said (or that it could not be loaded).
    Refused(Refused),
}

impl ConfigProblem {
    fn text(&self, lang: Lang) -> String {
        match self {
            ConfigProblem::TooBig => t(lang, "config_too_big").to_string(),
            ConfigProblem::Unreadable => t(lang, "file_unreadable").to_string(),
            ConfigProblem::Refused(r) => r
                .sentence(lang)
                .unwrap_or(t(lang, "readers_failed"))
                .to_string(),
        }
    }
}

/// Where the model comes from: (key, text key) of each source button.
const SOURCES: [(&str, &str); 4] = [
    ("preset", "source_preset"),
    ("params", "source_params"),
    ("config", "source_config"),
    ("hub", "source_hub"),
];

/// The model panel: the source buttons, the chosen source's own panel, the model's summary.
#[component]
pub fn ModelPicker() -> impl IntoView {
    let st = expect_context::<AppState>();
    let lang = move || st.lang.get();
    let initial = st.scenario.with_untracked(|s| match s.model {
        ModelChoice::Preset(_) => "preset",
        ModelChoice::Params(_) => "params",
        ModelChoice::Custom {
            source: Some(_), ..
        } => "hub",
        ModelChoice::Custom { .. } => "config",
    });
    let source = RwSignal::new(initial);
    let options = Signal::derive(move || {
        let l = lang();
        SOURCES
            .iter()
            .map(|(k, key)| (*k, t(l, key).to_string()))
            .collect::<Vec<_>>()
    });
    let pick_source = move |k: &'static str| {
        source.set(k);
        if k == "params" {
            let n = st.computed.with_untracked(|c| {
                c.as_ref()
                    .map(|c| c.arch.params().total())
                    .unwrap_or(7_000_000_000)
            });
            st.edit(|s| s.model = ModelChoice::Params(n));
        } else if k == "preset"
            && !matches!(
                st.scenario.with_untracked(|s| s.model.clone()),
                ModelChoice::Preset(_)
            )
        {
            st.edit(|s| s.model = ModelChoice::Preset("llama-3.1-8b"));
        }
    };
    let clicked = move |ev: web_sys::MouseEvent| {
        let key = super::event_element(&ev).and_then(|e| e.get_attribute("data-k"));
        if let Some(k) = SOURCES
            .iter()
            .map(|(k, _)| *k)
            .find(|k| key.as_deref() == Some(*k))
        {
            pick_source(k);
        }
    };
    let label = Signal::derive(move || t(lang(), "model"));
    view! {
        <section class="panel" aria-labelledby="model-h">
            <h2 id="model-h">{move || t(lang(), "model")}</h2>
            <div class="settings" id="model-buttons" on:click=clicked>
                <Buttons id="model-source" label options value=source/>
            </div>
            <Show when=move || source.get() == "preset"><PresetPicker/></Show>
            <Show when=move || source.get() == "params"><ParamsPicker/></Show>
            <Show when=move || source.get() == "hub"><HubPicker/></Show>
            <Show when=move || source.get() == "config"><ConfigPicker/></Show>
            <ModelSummary/>
        </section>
    }
}

/// The families of `found`, in order, each once.
fn families(found: &[&'static vram_engine::model::Preset]) -> Vec<&'static str> {
    let mut families: Vec<&'static str> = found.iter().map(|p| p.family).collect();
    families.dedup();
    families
}

/// A search box and the presets it matches, grouped by family, the current one selected.
#[component]
fn PresetPicker() -> impl IntoView {
    let st = expect_context::<AppState>();
    let filter = RwSignal::new(String::new());
    let lang = move || st.lang.get();
    let current = Memo::new(move |_| {
        st.scenario.with(|s| match s.model {
            ModelChoice::Preset(id) => id,
            _ => "",
        })
    });
    let pick = move |id: &str| {
        if let Some(p) = vram_engine::model::presets::find(id) {
            st.edit(|s| s.model = ModelChoice::Preset(p.id));
        }
    };
    let searched = move |ev: web_sys::Event| {
        let f = event_target_value(&ev).to_ascii_lowercase();
        // a search that narrows to one model picks it
        if let [only] = matching(&f).as_slice() {
            pick(only.id);
        }
        filter.set(f);
    };
    let groups = move || {
        let found = filter.with(|f| matching(f));
        families(&found)
            .into_iter()
            .map(|family| {
                let options = found
                    .iter()
                    .filter(|p| p.family == family)
                    .map(|p| {
                        let id = p.id;
                        view! {
                            <option value=id prop:selected=move || current.get() == id>{p.name}</option>
                        }
                    })
                    .collect_view();
                view! { <optgroup label=family>{options}</optgroup> }
            })
            .collect_view()
    };
    view! {
        <div class="settings" id="preset-box">
            <div class="field">
                <label for="preset-search">{move || t(lang(), "search")}</label>
                <input
                    type="search"
                    id="preset-search"
                    placeholder="llama, qwen, 70b…"
                    autocomplete="off"
                    on:input=searched
                />
            </div>
            <div class="field">
                <label for="preset">{move || t(lang(), "preset")}</label>
                <select id="preset" size="6" on:change=move |ev| pick(&event_target_value(&ev))>
                    {groups}
                </select>
            </div>
        </div>
    }
}

/// The presets whose id or name holds `filter` (lower case), in the presets' order.
fn matching(filter: &str) -> Vec<&'static vram_engine::model::Preset> {
    vram_engine::model::presets::all()
        .iter()
        .filter(|p| {
            filter.is_empty()
                || p.id.contains(filter)
                || p.name.to_ascii_lowercase().contains(filter)
        })
        .collect()
}

/// The parameter-count slider's range.
const PARAMS_RANGE: (f64, f64) = (100_000_000.0, 2_000_000_000_000.0);

/// A log-scale slider position (0..=1000) for `n` parameters.
fn params_pos(n: u64) -> u64 {
    let (lo, hi) = PARAMS_RANGE;
    (((n as f64).clamp(lo, hi).ln() - lo.ln()) / (hi.ln() - lo.ln()) * 1000.0).round() as u64
}

/// The parameter count at slider position `p`, kept to two significant digits so it reads like
/// a model size.
fn params_at(p: u64) -> u64 {
    let (lo, hi) = PARAMS_RANGE;
    let n = (lo.ln() + (hi.ln() - lo.ln()) * p as f64 / 1000.0).exp();
    let mag = 10f64.powf(n.log10().floor() - 1.0);
    ((n / mag).round() * mag) as u64
}

/// A bare parameter count: a slider and a box.
#[component]
fn ParamsPicker() -> impl IntoView {
    let st = expect_context::<AppState>();
    let error = RwSignal::new(None::<String>);
    let lang = move || st.lang.get();
    let n = Memo::new(move |_| {
        st.scenario.with(|s| match s.model {
            ModelChoice::Params(n) => n,
            _ => 7_000_000_000,
        })
    });
    let typed = move |text: String| match parse_param_count(&text) {
        Ok(n) if Architecture::from_param_count(n).is_ok() => {
            error.set(None);
            st.edit(|s| s.model = ModelChoice::Params(n));
        }
        Ok(_) => error.set(Some(t(st.lang.get_untracked(), "params_range").to_string())),
        Err(e) => error.set(Some(vram_text::error(st.lang.get_untracked(), &e))),
    };
    let slid = move |ev: web_sys::Event| {
        if let Ok(p) = event_target_value(&ev).parse::<u64>() {
            st.edit(|s| s.model = ModelChoice::Params(params_at(p)));
        }
    };
    let label = move || t(lang(), "params_slider");
    view! {
        <div class="settings" id="params-box">
            <div class="field slider-field">
                <label for="params-text">
                    {label} ": " <strong id="params-value">{move || short_count(n.get())}</strong>
                </label>
                <div class="slider-row">
                    <input
                        type="range"
                        id="params"
                        min="0"
                        max="1000"
                        step="1"
                        aria-label=label
                        prop:value=move || params_pos(n.get()).to_string()
                        on:input=slid
                    />
                    <input
                        type="text"
                        id="params-text"
                        inputmode="decimal"
                        prop:value=move || short_count(n.get())
                        on:change=move |ev| typed(event_target_value(&ev))
                    />
                </div>
                <p class="input-error" id="params-err" role="status">
                    {move || error.get().unwrap_or_default()}
                </p>
                <p class="note" id="approx-note">{move || t(lang(), "approx_note")}</p>
            </div>
        </div>
    }
}

/// A config.json pasted or uploaded, read by the on-demand readers module, and the fields of
/// the custom architecture it gave.
#[component]
fn ConfigPicker() -> impl IntoView {
    let st = expect_context::<AppState>();
    let lang = move || st.lang.get();
    let text = RwSignal::new(String::new());
    let name = RwSignal::new(st.scenario.with_untracked(|s| match &s.model {
        ModelChoice::Custom { name, .. } => name.clone(),
        _ => "my-model".to_string(),
    }));
    let error = RwSignal::new(None::<ConfigProblem>);
    // the config reader loads on demand: "Reading …" until the module answers
    let reading = RwSignal::new(false);
    let apply = move |body: String| {
        if body.len() > MAX_CONFIG_BYTES {
            error.set(Some(ConfigProblem::TooBig));
            return;
        }
        reading.set(true);
        leptos::task::spawn_local(async move {
            let read = readers::read_config(&body).await;
            reading.set(false);
            match read {
                Ok((arch, quantization)) => {
                    error.set(None);
                    let m = ModelChoice::custom(&name.get_untracked(), arch);
                    st.edit(|s| {
                        s.model = m;
                        // a quantized checkpoint's format, for the jobs that can use it; the
                        // previous model's parts do not carry over
                        s.weight_parts = PartFormats::default();
                        if let Some(q) = &quantization {
                            s.apply_quantization(q, |_| false);
                        }
                    });
                }
                // the previous budget stays; the error sits next to the input
                Err(r) => error.set(Some(ConfigProblem::Refused(r))),
            }
        });
    };
    let on_pick = move |file: web_sys::File| {
        name.set(file.name().trim_end_matches(".json").to_string());
    };
    let on_refused = move |problem| {
        error.set(Some(match problem {
            FileProblem::TooLarge(_) => ConfigProblem::TooBig,
            FileProblem::Unreadable => ConfigProblem::Unreadable,
        }))
    };
    let said = Signal::derive(move || {
        let l = lang();
        error.with(|e| e.as_ref().map(|e| e.text(l)))
    });
    view! {
        <div id="config-box" on:focusin=|_| preload(Module::Readers)>
            <div id="config-form">
                <div class="field">
                    <label for="config-name">{move || t(lang(), "config_name")}</label>
                    <input
                        type="text"
                        id="config-name"
                        maxlength="80"
                        prop:value=move || name.get()
                        on:input=move |ev| name.set(event_target_value(&ev))
                    />
                </div>
                <div class="field">
                    <label for="config-text">{move || t(lang(), "paste_config")}</label>
                    <PasteBox
                        id="config"
                        rows=6
                        placeholder="{\"hidden_size\": 4096, …}"
                        accept=".json,application/json"
                        apply_label="use_config"
                        max_bytes=MAX_CONFIG_BYTES
                        text=text
                        on_apply=Callback::new(apply)
                        on_pick=Callback::new(on_pick)
                        on_refused=Callback::new(on_refused)
                    />
                </div>
            </div>
            <div id="config-said">
                <ErrorAndStatus id="config" error=said reading/>
            </div>
        </div>
        <ArchEditor/>
    }
}

/// A field of a custom architecture: its id (`arch-{id}`), its config.json name, and how to read
/// and write it.
type ArchField = (
    &'static str,
    &'static str,
    fn(&Architecture) -> u64,
    fn(&mut Architecture, u64),
);

const ARCH_FIELDS: [ArchField; 7] = [
    ("vocab", "vocab_size", |a| a.vocab, |a, v| a.vocab = v),
    ("hidden", "hidden_size", |a| a.hidden, |a, v| a.hidden = v),
    (
        "intermediate",
        "intermediate_size",
        |a| a.intermediate,
        |a, v| a.intermediate = v,
    ),
    (
        "layers",
        "num_hidden_layers",
        |a| a.layers,
        |a, v| a.layers = v,
    ),
    (
        "heads",
        "num_attention_heads",
        |a| a.heads,
        |a, v| a.heads = v,
    ),
    (
        "kv-heads",
        "num_key_value_heads",
        |a| a.kv_heads,
        |a, v| a.kv_heads = v,
    ),
    (
        "head-dim",
        "head_dim",
        |a| a.head_dim,
        |a, v| a.head_dim = v,
    ),
];

/// The fields of a custom architecture, editable (nothing for a preset or a bare count).
#[component]
fn ArchEditor() -> impl IntoView {
    let st = expect_context::<AppState>();
    let error = RwSignal::new(None::<vram_engine::EngineError>);
    let custom = Memo::new(move |_| {
        st.scenario
            .with(|s| matches!(s.model, ModelChoice::Custom { .. }))
    });
    let changed = move |set: fn(&mut Architecture, u64), ev: web_sys::Event| {
        let Ok(v) = event_target_value(&ev).parse::<u64>() else {
            return;
        };
        let mut next = st.scenario.get_untracked();
        if let ModelChoice::Custom { arch, .. } = &mut next.model {
            set(arch, v);
            match arch.validate() {
                Ok(()) => {
                    error.set(None);
                    st.scenario.set(next);
                }
                Err(e) => error.set(Some(e)),
            }
        }
    };
    let field = move |(id, name, get, set): ArchField| {
        let value = move || {
            st.scenario.with(|s| match &s.model {
                ModelChoice::Custom { arch, .. } => get(arch).to_string(),
                _ => String::new(),
            })
        };
        view! {
            <label class="arch-field">
                {name}
                <input
                    type="number"
                    id=format!("arch-{id}")
                    min="1"
                    prop:value=value
                    on:change=move |ev| changed(set, ev)
                />
            </label>
        }
    };
    let refused = move || {
        error.with(|e| {
            e.as_ref()
                .map(|e| vram_text::error(st.lang.get(), e))
                .unwrap_or_default()
        })
    };
    view! {
        <div class="settings" id="arch-box">
            <Show when=move || custom.get()>
                <div class="arch-grid" id="arch-editor">
                    {ARCH_FIELDS.into_iter().map(field).collect_view()}
                    <p class="input-error" id="arch-error" role="alert">{refused}</p>
                </div>
            </Show>
        </div>
    }
}

/// The model's name, parameter count and shape.
#[component]
fn ModelSummary() -> impl IntoView {
    let st = expect_context::<AppState>();
    let summary = Memo::new(move |_| summary_of(&st, st.lang.get()));
    view! {
        <div id="model-summary-box">
            {move || {
                summary
                    .get()
                    .map(|(name, count, rest, shape)| {
                        let l = st.lang.get();
                        view! {
                            <div class="model-summary" id="model-summary">
                                <p class="model-name" id="model-name">{name}</p>
                                <p><span id="param-count">{count}</span> " " {t(l, "params")} {rest}</p>
                                <p class="shape">{t(l, "architecture")} ": " {shape}</p>
                            </div>
                        }
                    })
            }}
        </div>
    }
}

/// The model's name, its parameter count, what follows the count (active and trainable
/// parameters) and its shape, in `l`; none while the scenario has no answer.
fn summary_of(st: &AppState, l: Lang) -> Option<(String, String, String, String)> {
    let name = st.scenario.with(|s| s.model.name());
    st.computed.with(|c| {
        let c = c.as_ref().ok()?;
        let a = &c.arch;
        let p = a.params().total();
        let mut shape = format!(
            "{} {} · {} {} · {} {} / {} {} · {} {}",
            a.layers,
            t(l, "layers"),
            a.hidden,
            t(l, "hidden"),
            a.heads,
            t(l, "heads"),
            a.kv_heads,
            t(l, "kv_heads"),
            thousands(a.vocab),
            t(l, "vocab")
        );
        if let Some(m) = &a.moe {
            shape.push_str(&format!(
                " · {} {} (top-{})",
                m.experts,
                t(l, "experts"),
                m.top_k
            ));
        }
        if a.mla.is_some() {
            shape.push_str(" · MLA");
        }
        if let Some(w) = a.sliding_window {
            shape.push_str(&format!(
                " · {} {} ({}/{})",
                t(l, "window"),
                thousands(w),
                a.sliding_layers,
                a.layers
            ));
        }
        let mut rest = String::new();
        let active = c.breakdown.active_params;
        if active != p {
            rest.push_str(&format!(" · {} {}", short_count(active), t(l, "active")));
        }
        if c.breakdown.trainable > 0 {
            rest.push_str(&format!(
                " · {} {}",
                thousands(c.breakdown.trainable),
                t(l, "trainable")
            ));
        }
        Some((name, thousands(p), rest, shape))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameter_slider_reads_back_a_count_of_two_significant_digits_near_where_it_was() {
        for n in [
            125_000_000u64,
            7_000_000_000,
            13_000_000_000,
            70_000_000_000,
            405_000_000_000,
        ] {
            let back = params_at(params_pos(n));
            let off = back.abs_diff(n) as f64 / n as f64;
            assert!(off <= 0.05, "{n} -> {back}");
        }
        assert_eq!(params_pos(1), 0);
        assert_eq!(params_pos(u64::MAX), 1000);
    }

    #[test]
    fn the_preset_search_groups_by_family_in_order_and_narrows_to_what_it_names() {
        let all = matching("");
        assert_eq!(all.len(), vram_engine::model::presets::all().len());
        let groups = families(&all);
        let mut unique = groups.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(groups.len(), unique.len(), "a family is split: {groups:?}");
        let qwen = matching("qwen2.5");
        assert!(
            qwen.len() >= 2
                && qwen
                    .iter()
                    .all(|p| p.id.contains("qwen2.5")
                        || p.name.to_ascii_lowercase().contains("qwen2.5"))
        );
        assert!(matching("no-such-model").is_empty());
    }
}
