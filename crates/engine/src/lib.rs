//! vram-budget's engine: how much GPU memory an LLM job needs, component by component.
//!
//! Pure: plain data in, plain data out, no I/O. The page compiles it to WebAssembly and the CLI
//! links it natively.

pub mod named;

pub mod config;
pub mod dtype;
pub mod error;
pub mod fit;
pub mod formula;
pub mod gpus;
pub mod json;
pub mod link;
pub mod memory;
pub mod model;
pub mod overview;
pub mod presets;
pub mod scenario;
pub mod units;

pub use dtype::{KvDtype, WeightFormat};
pub use error::EngineError;
pub use fit::{remedies, solve, verdicts, Remedy, Solved, Verdict};
pub use formula::{Arg, Clause, Formula, Msg};
pub use gpus::Gpu;
pub use link::{decode as decode_link, encode as encode_link, Decoded, PageSettings};
pub use memory::{estimate, estimate_with, Breakdown, Component, Line, Moment, Phase};
pub use model::Architecture;
pub use overview::Overview;
pub use scenario::{
    Attention, Checkpointing, Job, LoraTargets, Loss, ModelChoice, Offload, Optimizer, Scenario,
    Switch, Zero,
};
pub use units::Unit;
