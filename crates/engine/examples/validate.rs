//! Compares the engine with every measured case of the validation set.
//!
//! ```sh
//! cargo run -p vram-engine --example validate              # a table on stdout
//! cargo run -p vram-engine --example validate -- --write docs/accuracy.md
//! cargo run -p vram-engine --example validate -- --write-bands crates/engine/src/band/table.txt
//! ```
//!
//! `--write-bands` writes the error bands the engine compiles in: per group of counted cases (job,
//! framework family, what was measured), the lowest and highest residual (see `vram_engine::fit::Band`).
//!
//! `make validate` runs the second line (it takes well under a second once built; the test build
//! has already compiled what it needs). The cases are read from the repository's `validation/`
//! folder, or from `$VRAM_VALIDATION_DIR` (another set in the same format, scored the same way).
//! The report also gets a section comparing the engine's llama.cpp plan with public CUDA and
//! Metal load logs (`validation/llamacpp.jsonl`).
//! With `--write`, the report also gets a section comparing the engine
//! with PyTorch runs on the CPU, component by component, from `docs/measure/` (override with
//! `--measure DIR`) when that folder holds results.

use std::path::PathBuf;
use std::process::ExitCode;

use vram_test_support::cases;
use vram_test_support::cases::cpu::{cpu_section, COMMAND};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut write: Option<PathBuf> = None;
    let mut write_bands: Option<PathBuf> = None;
    let mut measure_dir: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--write" => write = args.next().map(PathBuf::from),
            "--write-bands" => write_bands = args.next().map(PathBuf::from),
            "--measure" => measure_dir = args.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!(
                    "usage: validate [--write docs/accuracy.md] [--write-bands crates/engine/src/band/table.txt] [--measure docs/measure]"
                );
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other:?} (try --help)");
                return ExitCode::FAILURE;
            }
        }
    }
    let dir = cases::validation_dir();
    let report = match cases::Report::load(&dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "{e}\n(the cases are read from {}: the repository's validation/ folder, or the folder {} names, \
                 holding cases.jsonl and normalized.jsonl)",
                dir.display(),
                cases::DIR_VAR
            );
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = write_bands {
        if let Err(e) = std::fs::write(&path, report.band_table()) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
        if write.is_none() {
            return ExitCode::SUCCESS;
        }
    }
    let measure_dir = measure_dir.unwrap_or_else(cases::cpu::measure_dir);
    let cpu = match cpu_section(&measure_dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("CPU measurements in {}: {e}", measure_dir.display());
            return ExitCode::FAILURE;
        }
    };
    let llama = match cases::llamacpp::section(&dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("llama.cpp logs in {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    };
    let extra = format!("{llama}{cpu}");
    match write {
        Some(path) => {
            let md = report.markdown(COMMAND, &extra);
            if let Err(e) = std::fs::write(&path, md) {
                eprintln!("cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            print!("{}", report.text());
            println!("\nwrote {}", path.display());
        }
        None => {
            print!("{}", report.text());
            if !extra.is_empty() {
                println!("\n{extra}");
            }
        }
    }
    ExitCode::SUCCESS
}
