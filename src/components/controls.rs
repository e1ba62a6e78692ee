//! Generic inputs: a slider with a number box for any numeric setting, a stepped slider with a
//! select for any choice, a segmented control.

use leptos::prelude::*;

use crate::i18n::Lang;
use crate::state::AppState;

fn lang() -> Lang {
    expect_context::<AppState>().lang.get()
}

/// Slider position (0..=1000) for a value on a log scale from `min` to `max`.
pub(crate) fn log_pos(v: u64, min: u64, max: u64) -> u64 {
    let (v, min, max) = (
        v.clamp(min.max(1), max) as f64,
        min.max(1) as f64,
        max as f64,
    );
    ((v.ln() - min.ln()) / (max.ln() - min.ln()) * 1000.0).round() as u64
}

/// Value for a log-scale slider position, rounded to a power of two when `pow2`.
pub(crate) fn log_value(pos: u64, min: u64, max: u64, pow2: bool) -> u64 {
    let (min_f, max_f) = (min.max(1) as f64, max as f64);
    let v = (min_f.ln() + (max_f.ln() - min_f.ln()) * pos as f64 / 1000.0).exp();
    let v = if pow2 {
        2f64.powf(v.log2().round())
    } else {
        v.round()
    };
    (v as u64).clamp(min, max)
}

/// A setting with a slider and a number box side by side: drag or type.
#[component]
pub fn SliderNumber(
    /// Stable id: the slider gets `id`, the box `{id}-num`.
    id: &'static str,
    /// The label, in the page's language.
    #[prop(into)]
    label: Signal<String>,
    /// The current value.
    #[prop(into)]
    value: Signal<u64>,
    /// Called with a new, in-range value.
    on_change: Callback<u64>,
    /// Slider range (the box accepts `limit_min..=limit_max`).
    min: u64,
    max: u64,
    limit_min: u64,
    limit_max: u64,
    /// Log-scale slider; with `pow2` it steps through powers of two.
    #[prop(default = true)]
    log: bool,
    #[prop(default = false)] pow2: bool,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let pos = move || {
        if log {
            log_pos(value.get(), min, max)
        } else {
            value.get().clamp(min, max)
        }
    };
    let (smin, smax) = if log { (0, 1000) } else { (min, max) };
    let num_id = format!("{id}-num");
    let err_id = format!("{id}-err");
    view! {
        <div class="field slider-field">
            <label for=num_id.clone()>{label}</label>
            <div class="slider-row">
                <input type="range" id=id aria-label=label min=smin max=smax step="1"
                    prop:value=move || pos().to_string()
                    on:input=move |ev| {
                        if let Ok(p) = event_target_value(&ev).parse::<u64>() {
                            let v = if log { log_value(p, min, max, pow2) } else { p };
                            error.set(None);
                            on_change.run(v);
                        }
                    } />
                <input type="number" id=num_id inputmode="numeric" min=limit_min max=limit_max
                    prop:value=move || value.get().to_string()
                    aria-describedby=err_id.clone()
                    on:change=move |ev| {
                        let text = event_target_value(&ev);
                        match text.trim().parse::<u64>() {
                            Ok(v) if (limit_min..=limit_max).contains(&v) => { error.set(None); on_change.run(v); }
                            _ => error.set(Some(format!("{} {limit_min}–{limit_max}", match lang() { Lang::En => "Allowed:", Lang::Zh => "允许范围：" }))),
                        }
                    } />
            </div>
            <p class="input-error" id=err_id role="status">{move || error.get()}</p>
        </div>
    }
}

/// A discrete choice: a stepped slider labelled with its current value, and a select beside it.
#[component]
pub fn EnumSlider(
    id: &'static str,
    #[prop(into)] label: Signal<String>,
    /// (key, label) of every option, in slider order.
    #[prop(into)]
    options: Signal<Vec<(&'static str, String)>>,
    #[prop(into)] value: Signal<&'static str>,
    on_change: Callback<&'static str>,
) -> impl IntoView {
    let index =
        move || options.with(|o| o.iter().position(|(k, _)| *k == value.get()).unwrap_or(0));
    let current_label =
        move || options.with(|o| o.get(index()).map(|(_, l)| l.clone()).unwrap_or_default());
    let select_id = format!("{id}-select");
    view! {
        <div class="field enum-field">
            <label for=select_id.clone()>{label} ": " <strong class="current" id=format!("{id}-value")>{current_label}</strong></label>
            <div class="slider-row">
                <input type="range" id=id min="0" max=move || options.with(|o| o.len().saturating_sub(1)).to_string() step="1"
                    aria-label=label
                    aria-valuetext=current_label
                    prop:value=move || index().to_string()
                    on:input=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                            if let Some(k) = options.with(|o| o.get(i).map(|(k, _)| *k)) { on_change.run(k); }
                        }
                    } />
                <Select id=select_id label=label options=options value=value on_change=on_change />
            </div>
        </div>
    }
}

/// A plain select for any choice.
#[component]
pub fn Select(
    #[prop(into)] id: String,
    #[prop(into)] label: Signal<String>,
    #[prop(into)] options: Signal<Vec<(&'static str, String)>>,
    #[prop(into)] value: Signal<&'static str>,
    on_change: Callback<&'static str>,
) -> impl IntoView {
    view! {
        <select id=id aria-label=label
            on:change=move |ev| {
                let k = event_target_value(&ev);
                if let Some(key) = options.with(|o| o.iter().find(|(x, _)| *x == k).map(|(x, _)| *x)) { on_change.run(key); }
            }>
            {move || options.get().into_iter().map(|(k, l)| view! {
                <option value=k prop:selected=move || value.get() == k>{l}</option>
            }).collect_view()}
        </select>
    }
}

/// A labelled select field.
#[component]
pub fn SelectField(
    id: &'static str,
    #[prop(into)] label: Signal<String>,
    #[prop(into)] options: Signal<Vec<(&'static str, String)>>,
    #[prop(into)] value: Signal<&'static str>,
    on_change: Callback<&'static str>,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <Select id=id label=label options=options value=value on_change=on_change />
        </div>
    }
}

/// Buttons for a few choices, one pressed.
#[component]
pub fn Segmented(
    id: &'static str,
    #[prop(into)] label: Signal<String>,
    #[prop(into)] options: Signal<Vec<(&'static str, String)>>,
    #[prop(into)] value: Signal<&'static str>,
    on_change: Callback<&'static str>,
) -> impl IntoView {
    view! {
        <div class="field">
            <span class="field-label" id=format!("{id}-label")>{label}</span>
            <div class="segmented" role="group" aria-labelledby=format!("{id}-label") id=id>
                {move || options.get().into_iter().map(|(k, l)| view! {
                    <button type="button" id=format!("{id}-{k}") class:pressed=move || value.get() == k
                        aria-pressed=move || if value.get() == k { "true" } else { "false" }
                        on:click=move |_| on_change.run(k)>{l}</button>
                }).collect_view()}
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_slider_positions_round_trip_through_powers_of_two() {
        for v in [1u64, 2, 4, 64, 1024] {
            assert_eq!(log_value(log_pos(v, 1, 1024), 1, 1024, true), v);
        }
        assert_eq!(log_value(0, 128, 1_048_576, false), 128);
        assert_eq!(log_value(1000, 128, 1_048_576, false), 1_048_576);
    }
}
