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
mod gguf;
pub mod gpus;
pub mod json;
pub mod link;
pub mod measured;
pub mod memory;
pub mod model;
pub mod overview;
pub mod presets;
pub mod scenario;
pub mod settings;
pub mod units;

pub use config::{parse_config, MAX_CONFIG_BYTES};
pub use dtype::{KvDtype, WeightFormat};
pub use error::EngineError;
pub use fit::{remedies, solve, verdicts, Remedy, Solved, Verdict};
pub use formula::{Arg, Clause, Formula, Msg};
pub use gguf::{
    read_gguf, GgmlType, GgufError, GgufHeader, GgufLimit, Hyperparameters, LayerCounts,
    LayerTensors, MetaArray, MetaValue, MetadataEntry, TensorInfo, ValueType, STORED_ARRAY_MAX,
};
pub use gpus::Gpu;
pub use json::{JsonError, JsonProblem};
pub use link::{decode as decode_link, encode as encode_link, Decoded, PageSettings};
pub use link::{
    decode_arch, decode_pairs, encode_arch, pairs as link_pairs, parse_param_count, MAX_LINK_CHARS,
};
pub use link::{Ignored, Notice};
pub use measured::{
    parse as parse_measurement, parse_as as parse_measurement_as, Device, DeviceApi, Facts,
    Reading, SizeUnit, Target, MAX_INPUT_BYTES as MAX_MEASUREMENT_BYTES,
};
pub use measured::{Comparison, Figure, Level, MeasureError, Measurement, SourceKind};
pub use memory::{estimate, estimate_with, Breakdown, Component, Line, Moment, Phase};
pub use model::Architecture;
pub use overview::Overview;
pub use presets::{all as presets, find as find_preset, Preset};
pub use scenario::{
    Attention, Checkpointing, Job, LoraTargets, Loss, ModelChoice, Offload, Optimizer, Scenario,
    Switch, Zero,
};
pub use settings::{Refusal, Setting, SettingKind, SettingValue, SETTINGS};
pub use units::Unit;
