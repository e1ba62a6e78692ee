//! The CLI's integration tests, one module per subject, built as one test binary: the built
//! `vram-budget` binary against bad input (`cli`), `--hf` against a stand-in Hub (`hub`,
//! `hub_server`), llama.cpp runs (`llama`) and projectors (`mmproj`). One subject alone:
//! `cargo test -p vram-budget-cli --test cli hub::`.

mod hub_server;

mod cli;
mod hub;
mod llama;
mod mmproj;
