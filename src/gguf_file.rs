//! A picked `.gguf` file read in the browser: growing slices of its start (`File.slice`) until
//! the header ends; the tensor data is never read. The page's one call into the GGUF reader, so
//! the reader can move into a module loaded on demand.

use vram_engine::{read_gguf, GgufError, GgufSummary};
use wasm_bindgen_futures::JsFuture;

/// The first slice read; a header with a large vocabulary takes a few more.
const FIRST_SLICE: f64 = 1_048_576.0;
/// The longest header read (vocabularies and chat templates stay far below).
const MAX_HEADER: f64 = 268_435_456.0;

/// Why a picked file gave no model.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PickProblem {
    Unreadable,
    /// Not a GGUF header the reader takes (the reader's own error is not shown).
    NotGguf,
    TooLong,
    /// A header a link cannot carry (no architecture, a tensor name with a separator).
    NoSummary,
}

/// The summary of a picked file's header.
pub async fn read_gguf_summary(file: &web_sys::File) -> Result<GgufSummary, PickProblem> {
    let size = file.size();
    let mut want = FIRST_SLICE.min(size);
    loop {
        let blob = file
            .slice_with_f64_and_f64(0.0, want)
            .map_err(|_| PickProblem::Unreadable)?;
        let buffer = JsFuture::from(blob.array_buffer())
            .await
            .map_err(|_| PickProblem::Unreadable)?;
        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
        match read_gguf(&bytes) {
            Ok(header) => return GgufSummary::of(&header).map_err(|_| PickProblem::NoSummary),
            Err(GgufError::NeedMoreBytes { needed }) if needed as f64 > MAX_HEADER => {
                return Err(PickProblem::TooLong)
            }
            Err(GgufError::NeedMoreBytes { .. }) if want >= size => {
                return Err(PickProblem::NotGguf)
            }
            Err(GgufError::NeedMoreBytes { needed }) => {
                want = (needed as f64).max(2.0 * want).min(MAX_HEADER).min(size);
            }
            Err(_) => return Err(PickProblem::NotGguf),
        }
    }
}
