//! The model: a searchable preset, a bare parameter count, or a pasted / uploaded config.json.

use vram_engine::find_preset;
use vram_engine::parse_param_count;
use vram_engine::MAX_CONFIG_BYTES;
use vram_engine::{presets, Architecture, ModelChoice, PartFormats};
use vram_engine::{short_count, thousands};
use wasm_bindgen::JsCast;

use std::rc::Rc;

use super::hub::hub_picker;
use super::settings_list::buttons_field;
use crate::chart::escape as esc;
use crate::dom::{self, patched_after_paint, Piece};
use crate::i18n::{t, Lang};
use crate::reactive::*;
use crate::readers::{self, Refused};
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

pub fn model_picker() -> Piece {
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
    // the four sources as a row of buttons, markup patched in place (`settings_list`)
    let buttons = Memo::new(move |_| {
        let l = lang();
        let sources: Vec<(&'static str, String)> = SOURCES
            .iter()
            .map(|(k, key)| (*k, t(l, key).to_string()))
            .collect();
        buttons_field("model-source", &esc(t(l, "model")), &sources, source.get())
    });
    patched_after_paint("model-buttons", buttons);
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
    let clicked = move |ev: &web_sys::Event| {
        let key = crate::components::event_element(ev).and_then(|e| e.get_attribute("data-k"));
        if let Some(k) = SOURCES
            .iter()
            .map(|(k, _)| *k)
            .find(|k| key.as_deref() == Some(*k))
        {
            pick_source(k);
        }
    };
    dom::on("model-buttons", "click", clicked);
    // the source's own panel, set up while it is the chosen one (a Hub box opens the module)
    let chosen = |key: &'static str| Memo::new(move |_| source.get() == key);
    let panels: [Piece; 4] = [
        dom::while_shown(chosen("preset"), preset_picker),
        dom::while_shown(chosen("params"), params_picker),
        dom::while_shown(chosen("hub"), hub_picker),
        dom::while_shown(chosen("config"), config_picker),
    ];
    let summary = model_summary();
    Rc::new(move || {
        let panels: String = panels.iter().map(|p| p()).collect();
        format!(
            r#"<section class="panel" aria-labelledby="model-h"><h2 id="model-h">{}</h2><div class="settings" id="model-buttons"></div>{panels}{}</section>"#,
            esc(t(lang(), "model")),
            summary()
        )
    })
}

/// The presets whose id or name holds `filter` (lower case), in the presets' order.
fn matching(filter: &str) -> Vec<&'static vram_engine::Preset> {
    presets()
        .iter()
        .filter(|p| {
            filter.is_empty()
                || p.id.contains(filter)
                || p.name.to_ascii_lowercase().contains(filter)
        })
        .collect()
}

/// The preset list as markup: one group per family, `current` selected.
fn preset_options(filter: &str, current: &str) -> String {
    let found = matching(filter);
    let mut families: Vec<&'static str> = found.iter().map(|p| p.family).collect();
    families.dedup();
    families
        .into_iter()
        .map(|family| {
            let options: String = found
                .iter()
                .filter(|p| p.family == family)
                .map(|p| {
                    let selected = if p.id == current {
                        r#" selected="""#
                    } else {
                        ""
                    };
                    format!(
                        r#"<option value="{}"{selected}>{}</option>"#,
                        esc(p.id),
                        esc(p.name)
                    )
                })
                .collect();
            format!(r#"<optgroup label="{}">{options}</optgroup>"#, esc(family))
        })
        .collect()
}

/// A search box and the presets it matches, as markup patched in place: the box holds what the
/// user types (no value in the markup), the list follows the search and the model.
fn preset_picker() -> Piece {
    let st = expect_context::<AppState>();
    let filter = RwSignal::new(String::new());
    let markup = Memo::new(move |_| {
        let l = st.lang.get();
        let current = st.scenario.with(|s| match s.model {
            ModelChoice::Preset(id) => id,
            _ => "",
        });
        let options = filter.with(|f| preset_options(f, current));
        format!(
            r#"<div class="field"><label for="preset-search">{}</label><input type="search" id="preset-search" placeholder="llama, qwen, 70b…" autocomplete="off" /></div><div class="field"><label for="preset">{}</label><select id="preset" size="6">{options}</select></div>"#,
            esc(t(l, "search")),
            esc(t(l, "preset"))
        )
    });
    patched_after_paint("preset-box", markup);
    let target = super::event_target_id;
    let pick = move |id: &str| {
        if let Some(p) = find_preset(id) {
            st.edit(|s| s.model = ModelChoice::Preset(p.id));
        }
    };
    dom::on("preset-box", "input", move |ev| {
        if target(ev) == "preset-search" {
            let f = event_target_value(ev).to_ascii_lowercase();
            // a search that narrows to one model picks it
            if let [only] = matching(&f).as_slice() {
                pick(only.id);
            }
            filter.set(f);
        }
    });
    dom::on("preset-box", "change", move |ev| {
        if target(ev) == "preset" {
            pick(&event_target_value(ev))
        }
    });
    dom::fixed(r#"<div class="settings" id="preset-box"></div>"#.into())
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

/// A bare parameter count: a slider and a box, as markup patched in place.
fn params_picker() -> Piece {
    let st = expect_context::<AppState>();
    let error = RwSignal::new(None::<String>);
    let markup = Memo::new(move |_| {
        let l = st.lang.get();
        let n = st.scenario.with(|s| match s.model {
            ModelChoice::Params(n) => n,
            _ => 7_000_000_000,
        });
        let label = esc(t(l, "params_slider"));
        let count = short_count(n);
        format!(
            r#"<div class="field slider-field"><label for="params-text">{label}: <strong id="params-value">{count}</strong></label><div class="slider-row"><input type="range" id="params" min="0" max="1000" step="1" aria-label="{label}" value="{}" /><input type="text" id="params-text" inputmode="decimal" value="{count}" /></div><p class="input-error" id="params-err" role="status">{}</p><p class="note" id="approx-note">{}</p></div>"#,
            params_pos(n),
            error.with(|e| esc(e.as_deref().unwrap_or(""))),
            esc(t(l, "approx_note"))
        )
    });
    patched_after_paint("params-box", markup);
    let target = super::event_target_id;
    let typed = move |text: String| match parse_param_count(&text) {
        Ok(n) if Architecture::from_param_count(n).is_ok() => {
            error.set(None);
            st.edit(|s| s.model = ModelChoice::Params(n));
        }
        Ok(_) => error.set(Some(t(st.lang.get_untracked(), "params_range").to_string())),
        Err(e) => error.set(Some(vram_text::error(st.lang.get_untracked(), &e))),
    };
    dom::on("params-box", "input", move |ev| {
        if target(ev) == "params" {
            if let Ok(p) = event_target_value(ev).parse::<u64>() {
                st.edit(|s| s.model = ModelChoice::Params(params_at(p)));
            }
        }
    });
    dom::on("params-box", "change", move |ev| {
        if target(ev) == "params-text" {
            typed(event_target_value(ev))
        }
    });
    dom::fixed(r#"<div class="settings" id="params-box"></div>"#.into())
}

fn config_picker() -> Piece {
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
        crate::reactive::spawn_local(async move {
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
    let on_file = move |ev: &web_sys::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        if file.size() > MAX_CONFIG_BYTES as f64 {
            error.set(Some(ConfigProblem::TooBig));
            return;
        }
        name.set(file.name().trim_end_matches(".json").to_string());
        super::show_value("config-name", &name.get_untracked());
        let promise = file.text();
        crate::reactive::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(v) => {
                    let body = v.as_string().unwrap_or_default();
                    text.set(body.clone());
                    super::show_value("config-text", &body);
                    apply(body);
                }
                Err(_) => error.set(Some(ConfigProblem::Unreadable)),
            }
        });
    };
    // the name, the box and the buttons as one escaped string with one handler per event kind on
    // their container (a tree of Leptos elements here cost the first load several KB); written
    // again only when the language changes, with what the user typed
    let form =
        Memo::new(move |_| config_form(lang(), &name.get_untracked(), &text.get_untracked()));
    let said = Memo::new(move |_| {
        let l = lang();
        let error = error.with(|e| e.as_ref().map(|e| e.text(l)));
        super::error_and_status("config", l, error.as_deref(), reading.get())
    });
    patched_after_paint("config-form", form);
    patched_after_paint("config-said", said);
    let target = super::event_target_id;
    dom::on("config-box", "focusin", |_| readers::preload());
    dom::on("config-box", "input", move |ev| match target(ev).as_str() {
        "config-name" => name.set(event_target_value(ev)),
        "config-text" => text.set(event_target_value(ev)),
        _ => {}
    });
    dom::on("config-box", "click", move |ev| {
        if target(ev) == "config-apply" {
            apply(text.get_untracked())
        }
    });
    dom::on("config-box", "change", move |ev| {
        if target(ev) == "config-file" {
            on_file(ev)
        }
    });
    let editor = arch_editor();
    Rc::new(move || {
        format!(
            r#"<div id="config-box"><div id="config-form"></div><div id="config-said"></div></div>{}"#,
            editor()
        )
    })
}

/// The model's name, the config.json box, its button and the file input, as escaped markup.
fn config_form(l: Lang, name: &str, text: &str) -> String {
    format!(
        r#"<div class="field"><label for="config-name">{}</label><input type="text" id="config-name" maxlength="80" value="{}"></div><div class="field"><label for="config-text">{}</label><textarea id="config-text" rows="6" spellcheck="false" placeholder="{{&quot;hidden_size&quot;: 4096, …}}">{}</textarea><div class="row"><button type="button" id="config-apply">{}</button><label class="file">{}<input type="file" id="config-file" accept=".json,application/json"></label></div></div>"#,
        esc(t(l, "config_name")),
        esc(name),
        esc(t(l, "paste_config")),
        esc(text),
        esc(t(l, "use_config")),
        esc(t(l, "upload_config")),
    )
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

/// The editor's markup for a custom model's `arch` (nothing for a preset or a bare count), with
/// the reason the last edit was refused.
fn arch_markup(arch: Option<&Architecture>, refused: &str) -> String {
    let Some(arch) = arch else {
        return String::new();
    };
    let fields: String = ARCH_FIELDS
        .iter()
        .map(|(id, name, get, _)| {
            format!(
                r#"<label class="arch-field">{name}<input type="number" id="arch-{id}" min="1" value="{}" /></label>"#,
                get(arch)
            )
        })
        .collect();
    format!(
        r#"<div class="arch-grid" id="arch-editor">{fields}<p class="input-error" id="arch-error" role="alert">{}</p></div>"#,
        esc(refused)
    )
}

/// The fields of a custom architecture, editable: markup patched in place, one listener.
fn arch_editor() -> Piece {
    let st = expect_context::<AppState>();
    let error = RwSignal::new(None::<vram_engine::EngineError>);
    let markup = Memo::new(move |_| {
        let refused = error.with(|e| {
            e.as_ref()
                .map(|e| vram_text::error(st.lang.get(), e))
                .unwrap_or_default()
        });
        st.scenario.with(|s| match &s.model {
            ModelChoice::Custom { arch, .. } => arch_markup(Some(arch), &refused),
            _ => arch_markup(None, ""),
        })
    });
    patched_after_paint("arch-box", markup);
    let changed = move |ev: &web_sys::Event| {
        let id = super::event_target_id(ev);
        let Some((_, _, _, set)) = ARCH_FIELDS
            .iter()
            .find(|(f, ..)| id.strip_prefix("arch-") == Some(*f))
        else {
            return;
        };
        let Ok(v) = event_target_value(ev).parse::<u64>() else {
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
    dom::on("arch-box", "change", changed);
    dom::fixed(r#"<div class="settings" id="arch-box"></div>"#.into())
}

/// The model's parameter count and shape, as markup (the name may be the user's: escaped).
fn model_summary() -> Piece {
    let st = expect_context::<AppState>();
    patched_after_paint("model-summary-box", Memo::new(move |_| summary_markup(&st)));
    dom::fixed(r#"<div id="model-summary-box"></div>"#.into())
}

fn summary_markup(st: &AppState) -> String {
    let l = st.lang.get();
    let name = st.scenario.with(|s| s.model.name());
    st.computed.with(|c| {
        let Ok(c) = c else { return String::new() };
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
            shape.push_str(&format!(" · {} {} (top-{})", m.experts, t(l, "experts"), m.top_k));
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
        let mut counts = format!(r#"<span id="param-count">{}</span> {}"#, thousands(p), t(l, "params"));
        let active = c.breakdown.active_params;
        if active != p {
            counts.push_str(&format!(" · {} {}", short_count(active), t(l, "active")));
        }
        if c.breakdown.trainable > 0 {
            counts.push_str(&format!(" · {} {}", thousands(c.breakdown.trainable), t(l, "trainable")));
        }
        format!(
            r#"<div class="model-summary" id="model-summary"><p class="model-name" id="model-name">{}</p><p>{}</p><p class="shape">{}: {}</p></div>"#,
            esc(&name),
            counts,
            esc(t(l, "architecture")),
            esc(&shape)
        )
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
    fn the_preset_list_groups_by_family_selects_the_current_model_and_follows_the_search() {
        let all = preset_options("", "qwen2.5-7b");
        assert_eq!(all.matches("<option").count(), presets().len());
        assert_eq!(all.matches(r#" selected="""#).count(), 1);
        assert!(all.contains(r#"<option value="qwen2.5-7b" selected="">"#));
        let qwen = preset_options("qwen2.5", "");
        assert!(qwen.starts_with("<optgroup") && !qwen.contains("selected"));
        assert!(qwen.matches("<option").count() >= 2 && !qwen.contains("llama"));
        assert_eq!(preset_options("no-such-model", ""), "");
    }
}
