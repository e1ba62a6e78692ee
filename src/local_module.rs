//! What the page asks of the local job's module (`crates/local-web`, loaded through
//! `crate::modules`): a picked file's GGUF header read, and the run's answer rendered.

use js_sys::Uint8Array;
use vram_engine::{llamacpp::GgufSummary, llamacpp::Projector};
use vram_messages::{GgufReply, LocalView};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use crate::modules::{call, Module, Refused};

/// The first slice of a picked file read; a header with a large vocabulary takes a few more.
const FIRST_SLICE: f64 = 1_048_576.0;

/// Why a picked file gave no model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PickProblem {
    /// The browser could not read the file.
    Unreadable,
    /// The module's reason (not a GGUF header it takes, a header too long), or that it did not load.
    Refused(Refused),
}

/// What a picked `.gguf` holds: a language model, or a multimodal projector.
pub enum Picked {
    Model(GgufSummary),
    Projector(Projector),
}

/// The summary of a picked file's header: growing slices of its start (`File.slice`) go to the
/// module until the header ends; the tensor data is never read.
pub async fn read_picked(file: &web_sys::File) -> Result<Picked, PickProblem> {
    let unread = || PickProblem::Refused(Refused::NotLoaded);
    match read_header(file).await? {
        GgufReply::Projector(text) => Projector::from_text(&text)
            .map(Picked::Projector)
            .ok_or_else(unread),
        GgufReply::Gguf(text) => GgufSummary::from_text(&text)
            .map(Picked::Model)
            .map_err(|_| unread()),
        _ => Err(unread()),
    }
}

/// Sends growing slices of `file`'s start to the module until it answers what the file is (or
/// refuses the file).
async fn read_header(file: &web_sys::File) -> Result<GgufReply, PickProblem> {
    let size = file.size();
    let mut want = FIRST_SLICE.min(size);
    loop {
        let blob = file
            .slice_with_f64_and_f64(0.0, want)
            .map_err(|_| PickProblem::Unreadable)?;
        let buffer = JsFuture::from(blob.array_buffer())
            .await
            .map_err(|_| PickProblem::Unreadable)?;
        let args = [Uint8Array::new(&buffer).into(), JsValue::from_f64(size)];
        let reply = call(Module::Local, "read_gguf_header", &args)
            .await
            .map_err(PickProblem::Refused)?;
        match reply {
            GgufReply::More(next) if next as f64 > want => want = next as f64,
            GgufReply::Error(said) => return Err(PickProblem::Refused(Refused::Said(said))),
            GgufReply::Gguf(_) | GgufReply::Projector(_) => return Ok(reply),
            _ => return Err(PickProblem::Refused(Refused::NotLoaded)),
        }
    }
}

/// The module's answer for the scenario in `query` (the page's link without its language).
pub async fn local_view(query: &str) -> Result<LocalView, Refused> {
    call(Module::Local, "local_view", &[JsValue::from_str(query)]).await
}
