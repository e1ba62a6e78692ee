//! vram-budget's engine: how much GPU memory an LLM job needs, component by component.
//!
//! Pure: plain data in, plain data out, no I/O, no words. The page compiles it to WebAssembly
//! and the CLI links it natively; both render its numbers, typed errors, notices and formula
//! clauses through `vram-text`.
//!
//! ```
//! use vram_engine::{decode_link, estimate, verdicts, Component, Gpu, GIB};
//!
//! // a share link (or the CLI's flags, or the page's controls) gives a scenario
//! let opened = decode_link("?v=1&m=llama-3.1-8b&j=lora&b=4&gpu=rtx4090");
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
//! Every setting is described once in [`SETTINGS`] (link key, CLI flag, page id, range or
//! choices, which jobs it applies to); rules between settings live in [`Job::allows`] and
//! [`Scenario::normalize`].

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

// The public API: everything the page, the CLI and the tests use, at one path each.
pub use band::{
    error_band, estimate_band, family_of, Band, BandGroup, BandLevel, FrameworkFamily, BAND_TABLE,
    MIN_BAND_CASES,
};
pub use config::{parse_config, parse_quantization, Quantization, MAX_CONFIG_BYTES};
pub use decimal::{decimal, signed_decimal};
pub use dtype::{Bits, KvDtype, WeightFormat};
pub use error::EngineError;
pub use fit::{
    fits, remedies, serve_command, solve, spread, startup_concurrency, verdicts, Answer, KvRoom,
    Need, Question, Reach, Remedy, ServeCommand, StartRefusal, Verdict,
};
pub use fit::{sweep, sweep_points, Advice, Overview};
pub use formula::{Arg, Clause, Formula, Msg};
pub use gguf::{
    is_expert, read_gguf, Detail as GgufDetail, DraftValue, GgmlType, GgufDraft, GgufError,
    GgufHeader, GgufLimit, GgufSummary, Hyperparameters, LayerCounts, LayerTensors, MetaArray,
    MetaValue, MetadataEntry, SummaryError, TensorGroup, TensorInfo, ValueType, PADDING_PER_TENSOR,
    STORED_ARRAY_MAX,
};
pub use gpus::{Gpu, Interconnect, CAPACITY_LINES_GIB};
pub use hub::{
    check_date, choose_gguf_entry, content_range_total, gguf_entries, iso_date,
    missing_split_parts, parse_model_id, quant_of, range_header, read_listing, redirect_target,
    status_failure, FetchFailure, GgufChoice, GgufEntry, HubEndpoint, HubError, HubRef, HubSource,
    RepoListing, WeightFiles, CONFIG_FILE, DEFAULT_ENDPOINT, INDEX_FILE, MAX_LISTING_BYTES,
    MAX_REDIRECTS,
};
pub use json::{
    parse as parse_json, whole as json_whole, JsonError, JsonProblem, Value as JsonValue,
    MAX_DEPTH as JSON_MAX_DEPTH,
};
pub use link::{
    decode as decode_link, decode_gguf_unread as decode_link_gguf_unread, decode_pairs,
    encode as encode_link, pairs as link_pairs, parse_param_count, Decoded, Ignored, Notice,
    PageSettings, GGUF_LINK_ROOM, LINK_ADDRESS_ROOM, MAX_LINK_CHARS,
};
pub use llamacpp::{
    best_quant, decode_bound, gpu_bandwidth, launch_commands, max_context, max_gpu_layers,
    parse_cache_type, parse_count, parse_on_off, plan_llama, plan_placed, synthesize_gguf,
    AttentionLayer, Backend, ComputeBuffer, ContextSizes, DeviceBuffers, DeviceFit, DeviceReads,
    KvCache, KvPart, LaunchCommands, LlamaDevice, LlamaDraft, LlamaError, LlamaFlag, LlamaPlan,
    LlamaSettings, LlamaShape, Mac, MacChip, Machine, MissingKey, Placement, Projector,
    ProjectorError, ProjectorFile, RecurrentState, SpeedBound, TensorShares, UmaBox, UmaKind,
    CACHE_TYPES, CELL_PAD, DEFAULT_HOST_BANDWIDTH, EVEN_SPLIT, MAC_CHIPS, MAX_CONTEXT, MAX_GPUS,
    MAX_LAYERS_FLAG, MAX_PARALLEL, OFFLOAD_MIN_BATCH, SPARK_OS_BYTES,
};
pub use local::{
    local_header, local_machine, local_settings, ollama_batch, ollama_context,
    with_ollama_defaults, LocalOverview,
};
pub use measured::link::LINK_MAX as MAX_MEASUREMENT_LINK;
pub use measured::{
    parse as parse_measurement, parse_as as parse_measurement_as, Comparison, Device, DeviceApi,
    Estimated, Facts, Figure, Level, MeasureError, Measurement, Reading, SizeUnit, SourceKind,
    Target, MAX_BYTES as MAX_MEASURED_BYTES, MAX_COUNT as MAX_MEASURED_COUNT,
    MAX_FIGURES as MAX_MEASURED_FIGURES, MAX_INPUT_BYTES as MAX_MEASUREMENT_BYTES,
    MAX_LINES as MAX_MEASUREMENT_LINES,
};
pub use memory::{
    estimate, estimate_stages, estimate_with, hybrid_block_size, kv_cache_bytes,
    layer_activation_bytes, lora_params, prefill_activation_bytes, Breakdown, Component,
    LayerActivations, Line, Moment, Phase, PipelineStage, Pool, RecurrentPages, ServingFit,
    SglangSplit, MAX_PER_GPU,
};
pub use model::presets::{all as presets, find as find_preset, Preset};
pub use model::{
    decode_arch, encode_arch, Architecture, Encoder, Mixer, Mla, MlpKind, Moe, NormKind,
    ParamCounts, Recurrent, StoredWeights,
};
pub use repair::Repair;
pub use safetensors::{
    compare_with_config, header_length, is_shard_name, quant_scheme, read_header_json, read_index,
    read_safetensors, size_weights, tensor_role, EntryField, FileDifference, FileWeights,
    IndexError, QuantScheme, SafeDtype, SafeTensor, SafetensorsError, SafetensorsHeader,
    SafetensorsIndex, SafetensorsLimit, Tally, TensorRole,
    LENGTH_PREFIX as SAFETENSORS_LENGTH_PREFIX, MAX_INDEX_BYTES,
};
pub use scenario::{
    step_tokens, Batching, CudaGraphs, Framework, LengthReason, Refusal, Server, Setting,
    SettingKind, SettingValue, SpecMethod, StepTokens, SETTINGS,
};
pub use scenario::{
    Attention, Checkpointing, DpFramework, GgufFile, Job, LocalMachine, LoraTargets, Loss,
    ModelChoice, Offload, Optimizer, PipelineSchedule, Scenario, SplitMode, UnknownLoraTarget,
    VllmVersion, WeightsLoad, Zero,
};
pub use server::{captured_graphs, comm_mib, comm_parts_mib, decode_query_len};
pub use sglang::{default_mem_fraction_permille, mem_fraction_permille, memory_tier_defaults};
pub use units::{short_count, thousands, Unit, GB, GIB, KIB, MIB};
pub use weight_parts::{PartFormats, WeightPart, PART_FOLLOWS};
