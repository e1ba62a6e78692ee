//! The page: header, controls on one side, the answer on the other; the URL follows every change.

use leptos::prelude::*;
use vram_engine::scenario::RANGES;
use vram_engine::{
    Attention, Checkpointing, Gpu, Job, KvDtype, LoraTargets, Loss, Offload, Optimizer, Switch,
    Unit, WeightFormat, Zero,
};

use crate::components::controls::{EnumSlider, Segmented, SelectField, SliderNumber};
use crate::components::model::ModelPicker;
use crate::components::results::{Charts, Explanations, FitTable, VerdictLine};
use crate::i18n::{self, t, Lang};
use crate::state::AppState;

/// Shows the error banner after a panic (called from the panic hook, outside Leptos).
pub fn show_panic_banner() {
    let lang = if web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
        .contains("lang=zh")
    {
        Lang::Zh
    } else {
        Lang::En
    };
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("panic-banner"))
    {
        el.set_text_content(Some(t(lang, "panic")));
        let _ = el.remove_attribute("hidden");
    }
}

fn range(key: &str) -> (u64, u64) {
    RANGES
        .iter()
        .find(|r| r.1 == key)
        .map(|r| (r.2, r.3))
        .expect("a known range key")
}

#[component]
pub fn App() -> impl IntoView {
    let st = AppState::from_location();
    provide_context(st);

    // the URL follows the state without a history entry per slider tick; while a slider is being
    // dragged it is written once the input pauses (250 ms), not on every tick
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let q = st.query();
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let write = move || {
            let Some(w) = web_sys::window() else { return };
            let path = w.location().pathname().unwrap_or_default();
            if let Ok(h) = w.history() {
                let _ = h.replace_state_with_url(
                    &wasm_bindgen::JsValue::NULL,
                    "",
                    Some(&format!("{path}?{q}")),
                );
            }
        };
        pending
            .set_value(set_timeout_with_handle(write, std::time::Duration::from_millis(250)).ok());
    });
    // the document's language follows the toggle at once (screen readers, fonts)
    Effect::new(move |_| {
        let lang = st.lang.get();
        if let Some(html) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = html.set_attribute("lang", if lang == Lang::Zh { "zh-CN" } else { "en" });
        }
    });

    view! {
        <Header />
        <Notices />
        <main class="layout">
            <div class="controls">
                <ModelPicker />
                <JobControls />
                <HardwareControls />
                <Advanced />
            </div>
            <div class="results">
                <VerdictLine />
                <Charts />
                <FitTable />
                <Explanations />
            </div>
        </main>
        <footer class="footer">
            <p>{move || t(st.lang.get(), "tagline")} " · GiB = 2^30 B, GB = 10^9 B"</p>
        </footer>
    }
}

#[component]
fn Header() -> impl IntoView {
    let st = expect_context::<AppState>();
    let lang = move || st.lang.get();
    let copied = RwSignal::new(None::<&'static str>);
    let link = move || {
        let q = st.query();
        let base = web_sys::window().and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        });
        format!("{}?{q}", base.unwrap_or_default())
    };
    let copy = move |_| {
        let url = link();
        let Some(w) = web_sys::window() else { return };
        let promise = w.navigator().clipboard().write_text(&url);
        leptos::task::spawn_local(async move {
            let ok = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
            copied.set(Some(if ok { "copied" } else { "copy_failed" }));
        });
    };
    let units = Signal::derive(|| vec![("gib", "GiB".to_string()), ("gb", "GB".to_string())]);
    view! {
        <header class="header">
            <div>
                <h1>{move || t(lang(), "title")}</h1>
                <p class="tagline">{move || t(lang(), "tagline")}</p>
            </div>
            <div class="header-tools">
                <Segmented id="unit" label="units" options=units
                    value=Signal::derive(move || st.scenario.with(|s| s.unit.key()))
                    on_change=Callback::new(move |k: &'static str| if let Some(u) = Unit::from_key(k) { st.edit(|s| s.unit = u) }) />
                <button type="button" id="lang-toggle" lang=move || if lang() == Lang::En { "zh" } else { "en" }
                    on:click=move |_| st.lang.update(|l| *l = if *l == Lang::En { Lang::Zh } else { Lang::En })>{move || t(lang(), "language")}</button>
                <div class="share">
                    <input type="text" id="share-url" readonly aria-label="share link" prop:value=link />
                    <button type="button" id="copy-link" on:click=copy>{move || t(lang(), "copy_link")}</button>
                    <span id="copy-status" role="status">{move || copied.get().map(|k| t(lang(), k))}</span>
                </div>
            </div>
        </header>
    }
}

#[component]
fn Notices() -> impl IntoView {
    let st = expect_context::<AppState>();
    move || {
        let notices = st.notices.get();
        (!notices.is_empty()).then(|| {
            view! {
                <div class="notice" id="link-notice" role="status">
                    <strong>{t(st.lang.get(), "notice")}</strong>
                    <ul>{notices.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                    <button type="button" id="notice-close" aria-label="close" on:click=move |_| st.notices.set(Vec::new())>"×"</button>
                </div>
            }
        })
    }
}

/// Options of a choice enum, labelled in the page's language.
/// A checkbox for one of the engine's on/off settings, labelled in the page's language.
#[component]
fn SwitchField(switch: Switch) -> impl IntoView {
    let st = expect_context::<AppState>();
    let id = format!("switch-{}", switch.key());
    view! {
        <div class="field toggle">
            <input type="checkbox" id=id.clone() prop:checked=move || st.scenario.with(|s| s.switch(switch))
                on:change=move |ev| { let on = event_target_checked(&ev); st.edit(|s| s.set_switch(switch, on)) } />
            <label for=id>{move || i18n::switch(st.lang.get(), switch)}</label>
        </div>
    }
}

fn options<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    key: fn(T) -> &'static str,
    label: fn(Lang, T) -> String,
) -> Signal<Vec<(&'static str, String)>> {
    let st = expect_context::<AppState>();
    Signal::derive(move || {
        all.iter()
            .map(|v| (key(*v), label(st.lang.get(), *v)))
            .collect()
    })
}

/// A numeric setting's slider + box, bound to the scenario by its link key.
fn number(
    id: &'static str,
    label: &'static str,
    key: &'static str,
    get: fn(&vram_engine::Scenario) -> u64,
    min: u64,
    max: u64,
    pow2: bool,
) -> impl IntoView {
    let st = expect_context::<AppState>();
    let (lo, hi) = range(key);
    view! {
        <SliderNumber id=id label=label value=Signal::derive(move || st.scenario.with(get))
            on_change=Callback::new(move |v| st.edit(|s| { s.set_number(key, v); }))
            min=min max=max limit_min=lo limit_max=hi pow2=pow2 />
    }
}

#[component]
fn JobControls() -> impl IntoView {
    let st = expect_context::<AppState>();
    let lang = move || st.lang.get();
    let job = move || st.scenario.with(|s| s.job);
    let jobs = options(Job::ALL, Job::key, |l, j| i18n::job(l, j).to_string());
    let formats = Signal::derive(move || {
        let j = job();
        WeightFormat::ALL
            .iter()
            .filter(|f| match j {
                Job::Full | Job::Lora => !f.is_quantized(),
                Job::Qlora => f.is_quantized(),
                _ => true,
            })
            .map(|f| {
                (
                    f.key(),
                    format!("{} · {:.2} bit", f.label(), f.bits().as_f64()),
                )
            })
            .collect::<Vec<_>>()
    });
    let set_job = Callback::new(move |k: &'static str| {
        if let Some(j) = Job::from_key(k) {
            st.edit(|s| {
                s.job = j;
                // keep the weight format one the job can use
                if matches!(j, Job::Full | Job::Lora) && s.weights.is_quantized() {
                    s.weights = WeightFormat::Bf16;
                } else if j == Job::Qlora && !s.weights.is_quantized() {
                    s.weights = WeightFormat::Nf4Dq;
                }
            })
        }
    });
    let training = move || job().is_training();
    let peft = move || job().is_peft();
    let inference = move || job() == Job::Inference;
    let serving = move || job() == Job::Serving;
    // a quantized base that is not being fully trained: which parts stay 16-bit
    let quantized = move || {
        st.scenario
            .with(|s| s.effective_weights().is_quantized() && s.job != Job::Full)
    };
    view! {
        <section class="panel" aria-labelledby="job-h">
            <h2 id="job-h">{move || t(lang(), "job")}</h2>
            <Segmented id="job" label="job" options=jobs value=Signal::derive(move || job().key()) on_change=set_job />
            <EnumSlider id="weights" label="weights" options=formats
                value=Signal::derive(move || st.scenario.with(|s| s.effective_weights().key()))
                on_change=Callback::new(move |k: &'static str| if let Some(f) = WeightFormat::from_key(k) { st.edit(|s| s.weights = f) }) />
            <Show when=quantized>
                <SwitchField switch=Switch::QuantizeHead />
                <SwitchField switch=Switch::Attention16 />
            </Show>
            <Show when=move || !serving()>
                {number("batch", "batch", "b", |s| s.batch, 1, 1024, true)}
            </Show>
            <Show when=move || !serving()>
                <SliderNumber id="seq" label=if inference() { "prompt" } else { "seq" } value=Signal::derive(move || st.scenario.with(|s| s.seq))
                    on_change=Callback::new(move |v| st.edit(|s| s.seq = v)) min=128 max=1_048_576 limit_min=1 limit_max=range("s").1 />
            </Show>
            <Show when=inference>
                {number("gen", "gen", "g", |s| s.gen, 1, 131_072, false)}
                <SwitchField switch=Switch::StaticKv />
                <SwitchField switch=Switch::KvAllHeads />
            </Show>
            <Show when=serving>
                {number("concurrency", "concurrency", "c", |s| s.concurrency, 1, 4096, false)}
                {number("avg-tokens", "avg_tokens", "al", |s| s.avg_tokens, 64, 131_072, false)}
            </Show>
            <Show when=move || !training()>
                <SelectField id="kv-dtype" label="kv_dtype" options=options(KvDtype::ALL, KvDtype::key, |_, k| k.label().to_string())
                    value=Signal::derive(move || st.scenario.with(|s| s.kv_dtype.key()))
                    on_change=Callback::new(move |k: &'static str| if let Some(v) = KvDtype::from_key(k) { st.edit(|s| s.kv_dtype = v) }) />
            </Show>
            <Show when=peft>
                {number("lora-rank", "lora_rank", "r", |s| s.lora_rank, 1, 1024, true)}
                <LoraTargetsField />
                <SwitchField switch=Switch::LoraDropout />
                <SwitchField switch=Switch::TrainEmbedHead />
                <SwitchField switch=Switch::Dora />
            </Show>
            <Show when=training>
                {number("grad-accum", "grad_accum", "ga", |s| s.grad_accum, 1, 128, true)}
                <SelectField id="optimizer" label="optimizer" options=options(Optimizer::ALL, Optimizer::key, |l, o| i18n::optimizer(l, o).to_string())
                    value=Signal::derive(move || st.scenario.with(|s| s.optimizer.key()))
                    on_change=Callback::new(move |k: &'static str| if let Some(v) = Optimizer::from_key(k) { st.edit(|s| s.optimizer = v) }) />
                <SwitchField switch=Switch::MasterWeights />
                <SelectField id="ckpt" label="ckpt" options=options(Checkpointing::ALL, Checkpointing::key, |l, c| i18n::ckpt(l, c).to_string())
                    value=Signal::derive(move || st.scenario.with(|s| s.checkpointing.key()))
                    on_change=Callback::new(move |k: &'static str| if let Some(v) = Checkpointing::from_key(k) { st.edit(|s| s.checkpointing = v) }) />
                <SwitchField switch=Switch::OffloadActivations />
                <SwitchField switch=Switch::OptimizerInBackward />
                <SelectField id="loss" label="loss" options=options(Loss::ALL, Loss::key, |l, x| i18n::loss(l, x).to_string())
                    value=Signal::derive(move || st.scenario.with(|s| s.loss.key()))
                    on_change=Callback::new(move |k: &'static str| if let Some(v) = Loss::from_key(k) { st.edit(|s| s.loss = v) }) />
            </Show>
            <SelectField id="attention" label="attention" options=options(Attention::ALL, Attention::key, |l, a| i18n::attention(l, a).to_string())
                value=Signal::derive(move || st.scenario.with(|s| s.attention.key()))
                on_change=Callback::new(move |k: &'static str| if let Some(v) = Attention::from_key(k) { st.edit(|s| s.attention = v) }) />
        </section>
    }
}

#[component]
fn LoraTargetsField() -> impl IntoView {
    let st = expect_context::<AppState>();
    view! {
        <fieldset class="field targets" id="lora-targets">
            <legend>{move || t(st.lang.get(), "lora_targets")}</legend>
            {LoraTargets::NAMES.iter().map(|name| {
                let name: &'static str = name;
                let id = format!("target-{name}");
                view! {
                    <label class="chip"><input type="checkbox" id=id
                        prop:checked=move || st.scenario.with(|s| s.lora_targets.contains(name))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            let next = st.scenario.with_untracked(|s| s.lora_targets.with(name, on));
                            // at least one target stays
                            if next != LoraTargets::empty() { st.edit(|s| s.lora_targets = next); }
                        } />{name}</label>
                }
            }).collect_view()}
        </fieldset>
    }
}

#[component]
fn HardwareControls() -> impl IntoView {
    let st = expect_context::<AppState>();
    let lang = move || st.lang.get();
    let training = move || st.scenario.with(|s| s.job.is_training());
    let gpus = options(Gpu::ALL, Gpu::key, |_, g| {
        format!("{} · {} MiB", g.label(), g.mib())
    });
    let zeros = options(Zero::ALL, Zero::key, |l, z| i18n::zero(l, z).to_string());
    let tps = Signal::derive(move || {
        let n = st.scenario.with(|s| s.gpus);
        [
            ("1", 1u64),
            ("2", 2),
            ("4", 4),
            ("8", 8),
            ("16", 16),
            ("32", 32),
            ("64", 64),
        ]
        .iter()
        .filter(|(_, t)| n % t == 0)
        .map(|(k, _)| (*k, k.to_string()))
        .collect::<Vec<_>>()
    });
    view! {
        <section class="panel" aria-labelledby="hw-h">
            <h2 id="hw-h">{move || t(lang(), "gpu")}</h2>
            <SelectField id="gpu" label="gpu" options=gpus value=Signal::derive(move || st.scenario.with(|s| s.gpu.key()))
                on_change=Callback::new(move |k: &'static str| if let Some(g) = Gpu::from_key(k) { st.edit(|s| s.gpu = g) }) />
            <SliderNumber id="gpus" label="gpus" value=Signal::derive(move || st.scenario.with(|s| s.gpus))
                on_change=Callback::new(move |v| st.edit(|s| { s.gpus = v; if v % s.tp != 0 { s.tp = 1; } }))
                min=1 max=4096 limit_min=1 limit_max=range("n").1 pow2=true />
            <SelectField id="tp" label="tp" options=tps value=Signal::derive(move || {
                    let t = st.scenario.with(|s| s.tp);
                    ["1", "2", "4", "8", "16", "32", "64"].into_iter().find(|k| k.parse::<u64>().ok() == Some(t)).unwrap_or("1")
                })
                on_change=Callback::new(move |k: &'static str| if let Ok(v) = k.parse::<u64>() { st.edit(|s| s.tp = v) }) />
            <Show when=training>
                <EnumSlider id="zero" label="zero" options=zeros value=Signal::derive(move || st.scenario.with(|s| s.zero.key()))
                    on_change=Callback::new(move |k: &'static str| if let Some(z) = Zero::from_key(k) { st.edit(|s| s.zero = z) }) />
                <SelectField id="offload" label="offload" options=options(Offload::ALL, Offload::key, |l, o| i18n::offload(l, o).to_string())
                    value=Signal::derive(move || st.scenario.with(|s| s.offload.key()))
                    on_change=Callback::new(move |k: &'static str| if let Some(o) = Offload::from_key(k) { st.edit(|s| s.offload = o) }) />
            </Show>
        </section>
    }
}

#[component]
fn Advanced() -> impl IntoView {
    let st = expect_context::<AppState>();
    view! {
        <details class="panel advanced" id="advanced">
            <summary>{move || t(st.lang.get(), "advanced")}</summary>
            {number("context-mib", "context_mib", "ctx", |s| s.context_mib, 0, 8192, false)}
            {number("reserve-pct", "reserve_pct", "rsv", |s| s.reserve_pct, 0, 100, false)}
            {number("gpu-util", "gpu_util", "u", |s| s.gpu_util_pct, 10, 100, false)}
            {number("block-size", "block_size", "bs", |s| s.block_size, 1, 256, true)}
            {number("max-model-len", "max_model_len", "ml", |s| s.max_model_len, 128, 1_048_576, true)}
            {number("batched-tokens", "batched_tokens", "bt", |s| s.batched_tokens, 128, 131_072, true)}
        </details>
    }
}
