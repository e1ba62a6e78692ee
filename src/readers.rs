//! What the page asks of the readers module (`crates/readers`, loaded through
//! `crate::modules`): pasted text read as a measurement or a config.json, and the Hub id box.

use js_sys::{Function, Promise};
use vram_engine::{hub::Quantization, measured::Measurement, model::decode_arch, Architecture};
use vram_messages::{HubOpen, ReaderReply};
use wasm_bindgen::prelude::*;

use crate::i18n::Lang;
use crate::modules::{bytes, call, export, export_promise, Module, Refused};

/// Pasted text read as a measurement by the module.
pub async fn read_measurement(text: &str) -> Result<Measurement, Refused> {
    match read("read_measurement", JsValue::from_str(text)).await? {
        ReaderReply::Measurement(full) => {
            Measurement::from_full_link(&full).map_err(|_| Refused::NotLoaded)
        }
        _ => Err(Refused::NotLoaded),
    }
}

/// A pasted or uploaded config.json read by the module: its architecture, and the quantization
/// it names, if any.
pub async fn read_config(text: &str) -> Result<(Architecture, Option<Quantization>), Refused> {
    match read("read_config", JsValue::from_str(text)).await? {
        ReaderReply::Architecture { arch, quantization } => {
            let arch = decode_arch(&arch).map_err(|_| Refused::NotLoaded)?;
            Ok((arch, Quantization::from_text(&quantization)))
        }
        _ => Err(Refused::NotLoaded),
    }
}

/// The module's sentence for a file of `bytes` bytes, too large to read.
pub async fn measurement_too_large(bytes: f64) -> Refused {
    match read("measurement_too_large", JsValue::from_f64(bytes)).await {
        Ok(_) => Refused::NotLoaded,
        Err(e) => e,
    }
}

/// Calls the reader `name` with `arg`: its reply, or its refusal as an error.
async fn read(name: &str, arg: JsValue) -> Result<ReaderReply, Refused> {
    match call(Module::Readers, name, &[arg]).await? {
        ReaderReply::Error(said) => Err(Refused::Said(said)),
        reply => Ok(reply),
    }
}

/// Milliseconds one Hub request may take, its body included: a multi-megabyte GGUF header
/// range over a slow mirror fits well within it, and a Hub that does not answer is said plainly
/// rather than left pending. The browser tests shorten it (`data-timeout-ms` on `#hub-box`).
pub const HUB_TIMEOUT_MS: f64 = 30_000.0;

/// Opens the Hub id box in the module (`crates/readers/src/hub/panel.rs`): its messages
/// (`HubMessage`s' bytes) go to `sink`, and `gguf_reader` gives the module the llama.cpp
/// module's header reader. The box's events then go to the function returned
/// (`hub_event(event, timeout_ms)`, a `HubEvent`'s bytes).
pub async fn hub_open(
    sink: &Function,
    gguf_reader: &Function,
    lang: Lang,
    id: &str,
    endpoint: &str,
) -> Result<Function, Refused> {
    let open = HubOpen {
        lang: lang.key().to_string(),
        id: id.to_string(),
        endpoint: endpoint.to_string(),
    };
    let events = export(Module::Readers, "hub_event").await?;
    export(Module::Readers, "hub_open")
        .await?
        .call3(&JsValue::NULL, sink, gguf_reader, &bytes(&open))
        .map_err(|_| Refused::NotLoaded)?;
    Ok(events)
}

/// The llama.cpp module's reader of a GGUF header's bytes, for the Hub id box: a Promise of it.
pub fn gguf_reader_promise() -> Promise {
    export_promise(Module::Local, "read_gguf_parts")
}
