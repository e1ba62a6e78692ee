//! English and Chinese text. Every string the page shows goes through `t`.

use vram_engine::{
    decimal, Attention, Checkpointing, Formula, Gpu, Job, KvDtype, LocalMachine, Loss, Moment,
    Offload, Optimizer, SplitMode, Unit, WeightFormat, Zero, PART_FOLLOWS,
};

pub use vram_text::{
    attention, ckpt, component, component_doc, job, loss, machine, offload, optimizer, remedy,
    zero, Lang,
};

/// The browser's language: Chinese for any zh-*, English otherwise.
pub fn browser_lang() -> Lang {
    let nav = web_sys::window()
        .map(|w| w.navigator().language().unwrap_or_default())
        .unwrap_or_default();
    if nav.to_ascii_lowercase().starts_with("zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// The text for `key` in `lang` ("?" when it is missing: caught by a test in `vram_text`).
pub fn t(lang: Lang, key: &str) -> &'static str {
    vram_text::page_text(lang, key)
}

/// A moment of the peak as the engine describes it (`Phase::describe`), in `lang`.
pub fn phase(lang: Lang, moment: Moment) -> &'static str {
    vram_text::moment(lang, moment)
}

/// The label of choice `key` of the setting with link key `setting`, in `lang`.
pub fn choice(lang: Lang, setting: &str, key: &str) -> String {
    fn label<T: Copy>(from: Option<T>, f: impl Fn(T) -> String) -> Option<String> {
        from.map(f)
    }
    let text = match setting {
        "j" => label(Job::from_key(key), |j| job(lang, j).to_string()),
        "w" => label(WeightFormat::from_key(key), |f| {
            format!("{} · {} bit", f.label(), decimal(f.bits().as_f64(), 2))
        }),
        "we" | "wa" | "wx" | "wh" if key == PART_FOLLOWS => Some(
            match lang {
                Lang::En => "auto (the weights' format)",
                Lang::Zh => "auto（与权重格式相同）",
            }
            .to_string(),
        ),
        "we" | "wa" | "wx" | "wh" => label(WeightFormat::from_key(key), |f| {
            format!("{} · {} bit", f.label(), decimal(f.bits().as_f64(), 2))
        }),
        "kv" => label(KvDtype::from_key(key), |k| k.label().to_string()),
        "o" => label(Optimizer::from_key(key), |o| optimizer(lang, o).to_string()),
        "gc" => label(Checkpointing::from_key(key), |c| ckpt(lang, c).to_string()),
        "at" => label(Attention::from_key(key), |a| attention(lang, a).to_string()),
        "ls" => label(Loss::from_key(key), |l| loss(lang, l).to_string()),
        "z" => label(Zero::from_key(key), |z| zero(lang, z).to_string()),
        "off" => label(Offload::from_key(key), |o| offload(lang, o).to_string()),
        "gpu" => label(Gpu::from_key(key), |g| {
            format!("{} · {} MiB", g.label(), g.mib())
        }),
        "unit" => label(Unit::from_key(key), |u| u.label().to_string()),
        "mch" => label(LocalMachine::from_key(key), |m| {
            machine(lang, m).to_string()
        }),
        "sm" => label(SplitMode::from_key(key), |m| match (lang, m) {
            (Lang::En, m) => m.label().to_string(),
            (Lang::Zh, SplitMode::Layer) => "按层（默认）".into(),
            (Lang::Zh, SplitMode::Single) => "只用一块 GPU (-sm none)".into(),
        }),
        _ => None,
    };
    text.unwrap_or_else(|| key.to_string())
}

/// The engine's formula in `lang`, sizes in `unit`: sentences from `vram_text`, the numbers
/// this scenario's.
pub fn formula(lang: Lang, formula: &Formula, unit: Unit) -> String {
    vram_text::formula(lang, formula, unit)
}
