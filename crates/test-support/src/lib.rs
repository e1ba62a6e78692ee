//! What the tests of several crates share, in one crate instead of files included by path:
//! checkpoints rebuilt from a config.json (`checkpoints`), a GGUF model split as `gguf-split`
//! writes one (`gguf_split`), multimodal projector headers (`projector`), what a stand-in Hub
//! answers (`hub_answers`), and the reader of the validation cases with the engine's figures for
//! them (`cases`, used by the engine's tests and `examples/validate.rs`).

pub mod cases;
pub mod checkpoints;
pub mod gguf_split;
pub mod hub_answers;
pub mod projector;
