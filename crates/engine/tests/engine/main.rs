//! The engine's integration tests, one module per subject, built as one test binary (one link
//! after a change to the engine). One subject alone: `cargo test -p vram-engine --test engine
//! frozen::` (a module's tests are named `MODULE::…`). `common` holds the strategies the property
//! tests and the fuzzer share; helpers shared with other crates' tests are in `vram-test-support`.

mod common;

mod expert_parallel;
mod extremes;
mod frozen;
mod fuzz;
mod hubgguf;
mod lglora;
mod llamacpp_draft;
mod llamacpp_logs;
mod llamacpp_offload;
mod llamacpp_speed_tables;
mod llamacpp_split_mode;
mod localsplit;
mod params_transformers;
mod pipeline;
mod projector;
mod properties;
mod registry;
mod regressions;
mod size;
mod validation;
