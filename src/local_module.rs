//! The local job's on-demand module (`crates/local-web`, built by Trunk beside the page): the GGUF
//! reader, the run's plan and its rendering. Imported the first time a local run is shown (or a
//! file picked), never at start; its content-hashed name is in `<meta name="vram-local">`.

use js_sys::{Array, Uint8Array};
use vram_engine::{llamacpp::GgufSummary, llamacpp::Projector};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use crate::page_js::load_module;
use crate::readers::{call_in, refusal, Refused};

/// The module's meta name.
pub const LOCAL: &str = "vram-local";

/// The first slice of a picked file read; a header with a large vocabulary takes a few more.
const FIRST_SLICE: f64 = 1_048_576.0;

/// A local run's (results, chart) markup, English then Chinese.
pub type LocalMarkup = [(String, String); 2];

/// Why a picked file gave no model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PickProblem {
    /// The browser could not read the file.
    Unreadable,
    /// The module's reason (not a GGUF header it takes, a header too long), or that it did not load.
    Refused(Refused),
}

/// Starts loading the module (the job became local).
pub fn preload() {
    let _ = load_module(LOCAL);
}

/// What a picked `.gguf` holds: a language model, or a multimodal projector.
pub enum Picked {
    Model(GgufSummary),
    Projector(Projector),
}

/// The summary of a picked file's header: growing slices of its start (`File.slice`) go to the
/// module until the header ends; the tensor data is never read.
pub async fn read_picked(file: &web_sys::File) -> Result<Picked, PickProblem> {
    let (kind, text) = read_header(file).await?;
    let unread = || PickProblem::Refused(Refused::NotLoaded);
    match kind.as_str() {
        "projector" => Projector::from_text(&text)
            .map(Picked::Projector)
            .ok_or_else(unread),
        _ => GgufSummary::from_text(&text)
            .map(Picked::Model)
            .map_err(|_| unread()),
    }
}

/// Sends growing slices of `file`'s start to the module until it answers what the file is and
/// its text (or refuses the file).
async fn read_header(file: &web_sys::File) -> Result<(String, String), PickProblem> {
    let size = file.size();
    let mut want = FIRST_SLICE.min(size);
    loop {
        let blob = file
            .slice_with_f64_and_f64(0.0, want)
            .map_err(|_| PickProblem::Unreadable)?;
        let buffer = JsFuture::from(blob.array_buffer())
            .await
            .map_err(|_| PickProblem::Unreadable)?;
        let args = Array::of2(&Uint8Array::new(&buffer), &JsValue::from_f64(size));
        let parts = call_in(LOCAL, "read_gguf_header", &args)
            .await
            .map_err(PickProblem::Refused)?;
        match parts.as_slice() {
            [answered, text] if answered == "gguf" || answered == "projector" => {
                return Ok((answered.clone(), text.clone()))
            }
            // the module writes a whole number of bytes: read as an integer, so the first load
            // carries no float parser (core's dec2flt)
            [answered, bytes] if answered == "more" => match bytes.parse::<u64>().map(|b| b as f64)
            {
                Ok(next) if next > want => want = next,
                _ => return Err(PickProblem::Refused(Refused::NotLoaded)),
            },
            _ => return Err(PickProblem::Refused(refusal(parts))),
        }
    }
}

/// The module's answer for the scenario in `query` (the page's link without its language).
pub async fn local_view(query: &str) -> Result<LocalMarkup, Refused> {
    let parts = call_in(LOCAL, "local_view", &Array::of1(&JsValue::from_str(query))).await?;
    match <[String; 5]>::try_from(parts) {
        Ok([kind, r_en, c_en, r_zh, c_zh]) if kind == "local" => Ok([(r_en, c_en), (r_zh, c_zh)]),
        _ => Err(Refused::NotLoaded),
    }
}
