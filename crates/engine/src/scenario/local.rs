//! A llama.cpp / Ollama run's choices: the machine, the split over GPUs, the GGUF file.

use crate::gguf::GgufSummary;
use crate::hub::HubSource;
use crate::named::named_enum;

named_enum! {
    /// Where a llama.cpp / Ollama run lives: GPUs beside CPU RAM, a Mac's unified memory, or
    /// the CPU alone.
    pub enum LocalMachine {
        Gpu => ("gpu", "GPU + CPU RAM"),
        Mac => ("mac", "Mac (unified memory)"),
        Uma => ("uma", "DGX Spark / Ryzen AI Max (unified memory)"),
        Cpu => ("cpu", "CPU only"),
    }
}

/// A GGUF file picked on the page (or read from a link): its name and its summary, and the Hub
/// repository it was read from (the link's `hf=` beside `gg=`), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufFile {
    pub name: String,
    pub summary: GgufSummary,
    pub source: Option<HubSource>,
}

named_enum! {
    /// llama.cpp's `--split-mode` over several GPUs (`llama_prepare_model_devices`): by layer, each
    /// GPU its share of the layers and their KV (the default); or `none`, every offloaded layer on
    /// the main GPU and the others unused. `row` is left out: its CUDA split buffer was removed
    /// (PR #24216, 2026), and `tensor` is experimental.
    pub enum SplitMode {
        Layer => ("layer", "by layer (default)"),
        Single => ("none", "one GPU (-sm none)"),
    }
}
