//! The on-demand readers module (`crates/readers`, built by Trunk beside the page): imported the
//! first time the page needs a reader, never at start. Its file name (content-hashed by
//! `scripts/post_build.py`) is in `<meta name="vram-readers">`; the CSP's `script-src 'self'`
//! allows it. The loader (`crate::page_js::load_module`) forgets a failed import, so the next call
//! tries again; it and `call_in` serve any on-demand module by its meta name (the local job's
//! module: `src/local_module.rs`).

use js_sys::{Array, Function, Promise, Reflect};
use vram_engine::{hub::Quantization, measured::Measurement, model::decode_arch, Architecture};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::i18n::Lang;
use crate::page_js::{export_of, load_module};

/// The readers module's meta name.
pub const READERS: &str = "vram-readers";

/// Why a reader gave nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The module's sentences, English then Chinese.
    Said([String; 2]),
    /// The module could not be loaded (offline, a stale deploy).
    NotLoaded,
}

impl Refused {
    /// The sentence in `lang`, or None when the page must say it (`NotLoaded`).
    pub fn sentence(&self, lang: Lang) -> Option<&str> {
        match self {
            Refused::Said([en, zh]) => Some(lang.pick(en, zh)),
            Refused::NotLoaded => None,
        }
    }
}

/// Starts loading the module (when the user reaches a panel that will need it).
pub fn preload() {
    let _ = load_module(READERS);
}

/// Pasted text read as a measurement by the module.
pub async fn read_measurement(text: &str) -> Result<Measurement, Refused> {
    let parts = call("read_measurement", &JsValue::from_str(text)).await?;
    match parts.as_slice() {
        [kind, full] if kind == "measurement" => {
            Measurement::from_full_link(full).map_err(|_| Refused::NotLoaded)
        }
        _ => Err(refusal(parts)),
    }
}

/// A pasted or uploaded config.json read by the module: its architecture, and the quantization
/// it names, if any.
pub async fn read_config(text: &str) -> Result<(Architecture, Option<Quantization>), Refused> {
    let parts = call("read_config", &JsValue::from_str(text)).await?;
    match parts.as_slice() {
        [kind, arch, quantization] if kind == "architecture" => {
            let arch = decode_arch(arch).map_err(|_| Refused::NotLoaded)?;
            Ok((arch, Quantization::from_text(quantization)))
        }
        _ => Err(refusal(parts)),
    }
}

/// Milliseconds one Hub request may take, its body included: a multi-megabyte GGUF header
/// range over a slow mirror fits well within it, and a Hub that does not answer is said plainly
/// rather than left pending. The browser tests shorten it (`data-timeout-ms` on `#hub-box`).
pub const HUB_TIMEOUT_MS: f64 = 30_000.0;

/// Opens the Hub id box in the module (`crates/readers/src/hub/panel.rs`): its messages go to
/// `sink`, and `gguf_reader` gives the module the llama.cpp module's header reader. The box's
/// events then go to the function returned (`hub_event(kind, target, value, parts, timeout)`).
pub async fn hub_open(
    sink: &Function,
    gguf_reader: &Function,
    lang: Lang,
    id: &str,
    endpoint: &str,
) -> Result<Function, Refused> {
    let args: Array = [
        sink.into(),
        gguf_reader.into(),
        JsValue::from_str(lang.key()),
        JsValue::from_str(id),
        JsValue::from_str(endpoint),
    ]
    .into_iter()
    .collect::<Array>();
    let events = export(READERS, "hub_event").await?;
    export(READERS, "hub_open")
        .await?
        .apply(&JsValue::NULL, &args)
        .map_err(|_| Refused::NotLoaded)?;
    Ok(events)
}

/// The llama.cpp module's reader of a GGUF header's bytes, for the Hub id box: a Promise of it,
/// made in JavaScript (`wasm_bindgen_futures::future_to_promise` linked std's I/O error texts
/// into the first load).
pub fn gguf_reader_promise() -> Promise {
    export_of(crate::local_module::LOCAL, "read_gguf_parts")
}

/// The module's sentence for a file of `bytes` bytes, too large to read.
pub async fn measurement_too_large(bytes: f64) -> Refused {
    match call("measurement_too_large", &JsValue::from_f64(bytes)).await {
        Ok(parts) => refusal(parts),
        Err(e) => e,
    }
}

/// A module's `["error", en, zh]` reply as a refusal; any other reply: the module is not usable.
pub fn refusal(parts: Vec<String>) -> Refused {
    match <[String; 3]>::try_from(parts) {
        Ok([kind, en, zh]) if kind == "error" => Refused::Said([en, zh]),
        _ => Refused::NotLoaded,
    }
}

/// Calls the readers module's export `name` with one argument; its reply as strings.
async fn call(name: &str, arg: &JsValue) -> Result<Vec<String>, Refused> {
    let reply = export(READERS, name)
        .await?
        .call1(&JsValue::NULL, arg)
        .map_err(|_| Refused::NotLoaded)?;
    strings(reply)
}

/// Calls the export `name` of the module named in `<meta name="{meta}">` with `args`.
pub async fn call_in(meta: &str, name: &str, args: &Array) -> Result<Vec<String>, Refused> {
    let reply = export(meta, name)
        .await?
        .apply(&JsValue::NULL, args)
        .map_err(|_| Refused::NotLoaded)?;
    strings(reply)
}

/// The export `name` of the module named in `<meta name="{meta}">`, the module loaded first.
pub async fn export(meta: &str, name: &str) -> Result<Function, Refused> {
    let module = JsFuture::from(load_module(meta))
        .await
        .map_err(|_| Refused::NotLoaded)?;
    Reflect::get(&module, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or(Refused::NotLoaded)
}

/// Calls an export already loaded with string arguments; its reply as strings (none when it
/// throws or answers something else).
pub fn call_now(f: &Function, args: &[&str]) -> Vec<String> {
    let args: Array = args.iter().map(|a| JsValue::from_str(a)).collect();
    f.apply(&JsValue::NULL, &args)
        .ok()
        .and_then(|reply| strings(reply).ok())
        .unwrap_or_default()
}

fn strings(reply: JsValue) -> Result<Vec<String>, Refused> {
    let reply: Array = reply.dyn_into().map_err(|_| Refused::NotLoaded)?;
    Ok(reply.iter().filter_map(|v| v.as_string()).collect())
}
