//! The browser tests, one module per subject, built as one test binary; run one at a time
//! (`cargo test -p e2e -- --test-threads=1`, with `VRAM_E2E_DIST` pointing at a built page). One
//! subject alone: `cargo test -p e2e --test e2e -- --test-threads=1 page::`.

mod hub;
mod local;
mod measured;
mod models;
mod page;
mod settings;
