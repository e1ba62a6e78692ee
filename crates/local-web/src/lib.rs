//! The llama.cpp / Ollama job's on-demand module: `crates/local`'s exports (its
//! `#[wasm_bindgen]` functions), built alone as a cdylib. The interface is documented there.

pub use vram_local_run::*;
