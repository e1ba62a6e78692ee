//! vram-budget's engine: how much GPU memory an LLM job needs, component by component.
//!
//! Pure: plain data in, plain data out, no I/O, no words. The page compiles it to WebAssembly
//! and the CLI links it natively; both render its numbers, typed errors, notices and formula
//! clauses through `vram-text`.
//!
//! ```
//! use vram_engine::{estimate, link, verdicts, Component, Gpu, GIB};
//!
//! // a share link (or the CLI's flags, or the page's controls) gives a scenario
//! let opened = link::decode("?v=1&m=llama-3.1-8b&j=lora&b=4&gpu=rtx4090");
//! assert!(opened.notices.is_empty());
//! let s = opened.scenario;
//!
//! // the budget per GPU, component by component, exact to the byte
//! let b = estimate(&s).unwrap();
//! assert!(b.bytes(Component::Weights) > 14 * GIB);
//! assert!(b.total >= b.tensors);
//!
//! // and whether it fits each GPU of the catalog
//! let arch = s.model.architecture().unwrap();
//! let on_a_4090 = verdicts(&s, &arch).unwrap().into_iter().find(|v| v.gpu == Gpu::Rtx4090);
//! assert!(on_a_4090.is_some());
//! ```
//!
//! Every setting is declared once (the [`Scenario`] field, its default and its entry in
//! [`SETTINGS`]: link key, CLI flag, page id, range or choices, which jobs it applies to); rules
//! between settings live in [`Job::allows`] and [`Scenario::normalize`].
//!
//! The API is a few namespaces ([`model`], [`scenario`], [`memory`], [`fit`], [`llamacpp`],
//! [`local`], [`measured`], [`hub`], [`link`], [`json`], [`units`]) and, at the root, the items
//! most used beside them. The modules form layers, each importing only from those below it
//! (numbers and formats, models, the scenario, memory, fit and solver, codecs).

mod named;

mod band;
mod config;
mod decimal;
mod dtype;
mod error;
mod exact;
/// Verdicts per GPU, the solver, remedies, serve commands and the error band.
pub mod fit;
mod formula;
mod gguf;
mod gpus;
/// Outside data without I/O: the Hub's URLs, listings and read order, config.json and
/// safetensors headers.
pub mod hub;
mod hybrid;
mod job;
/// JSON that crosses a boundary, bounded and checked.
pub mod json;
/// Share links: a scenario as a short, versioned query string.
pub mod link;
/// llama.cpp over its own settings, and the GGUF files it reads.
pub mod llamacpp;
/// A scenario's llama.cpp / Ollama run: its settings, machine and plan.
pub mod local;
/// "Your measurement": logs and memory reports read and compared with the estimate.
pub mod measured;
/// The budget: bytes per component per GPU, each with its formula.
pub mod memory;
/// Models: architectures and their exact parameter counts, the presets, weight formats.
pub mod model;
mod repair;
mod safetensors;
/// A scenario and its settings: the registry, the jobs and their choices.
pub mod scenario;
mod server;
mod sglang;
/// Scenarios drawn from the registry, for property tests.
#[cfg(feature = "proptest")]
pub mod strategy;
/// Bytes, their units, and numbers written for people.
pub mod units;
mod weight_parts;

#[cfg(test)]
mod layers;

// The items most used beside the namespaces.
pub use error::EngineError;
pub use fit::{fits, verdicts, Overview, Verdict};
pub use memory::{estimate, Breakdown, Component, Phase};
pub use model::{Architecture, WeightFormat};
pub use repair::Repair;
pub use scenario::{Gpu, Job, ModelChoice, Scenario, Setting, SettingKind, SettingValue, SETTINGS};
pub use units::{Unit, GIB, MIB};
