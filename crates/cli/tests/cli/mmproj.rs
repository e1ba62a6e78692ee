//! `vram-budget --gguf … --mmproj FILE`: a vision projector's weights and compute buffer join
//! the first GPU (or the host with `--no-mmproj-offload`), the command names the file, and a
//! file that is not a projector is one line; `--tensor-split` shares the layers unevenly.

use vram_test_support::projector;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

const MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../engine/tests/fixtures/gguf/llama-q4_k.header.gguf"
);

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vram-budget"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Gemma 3's projector header written to a file of its own (one per call: tests run at once);
/// its path.
fn projector_file() -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("vram-mmproj-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mmproj-gemma3-f16.gguf");
    std::fs::write(&path, projector::draft(&projector::GEMMA3).bytes()).unwrap();
    path
}

#[track_caller]
fn json(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn device<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["device"] == name)
        .unwrap_or_else(|| panic!("no {name} in {v}"))
}

#[test]
fn a_projector_joins_the_first_gpu_even_at_ngl_0_and_the_command_names_it() {
    let p = projector_file();
    let p = p.to_str().unwrap();
    let weights = projector::tensor_bytes(&projector::GEMMA3);
    for ngl in ["0", "999"] {
        let plain = json(&["--gguf", MODEL, "--ngl", ngl, "--json"]);
        let v = json(&["--gguf", MODEL, "--mmproj", p, "--ngl", ngl, "--json"]);
        let gpu = device(&v, "GPU 0");
        assert_eq!(gpu["projector_bytes"], weights, "-ngl {ngl}");
        let compute = gpu["projector_compute_bytes"].as_u64().unwrap();
        assert!(compute > 0);
        assert_eq!(
            gpu["total_bytes"].as_u64().unwrap(),
            device(&plain, "GPU 0")["total_bytes"].as_u64().unwrap() + weights + compute
        );
        assert_eq!(device(&v, "CPU RAM"), device(&plain, "CPU RAM"));
        let line = v["llama_server"].as_str().unwrap();
        assert!(line.contains(&format!("--mmproj {p}")), "{line}");
    }
}

#[test]
fn no_mmproj_offload_keeps_the_projector_in_ram_and_says_so_in_the_command() {
    let p = projector_file();
    let p = p.to_str().unwrap();
    let v = json(&[
        "--gguf",
        MODEL,
        "--mmproj",
        p,
        "--mmproj-offload",
        "0",
        "--json",
    ]);
    assert_eq!(device(&v, "GPU 0")["projector_bytes"], 0);
    assert!(device(&v, "CPU RAM")["projector_bytes"].as_u64().unwrap() > 0);
    assert!(v["llama_server"]
        .as_str()
        .unwrap()
        .ends_with("--no-mmproj-offload"));
    // llama.cpp's own spelling reads the same, with a notice naming the registry's
    let out = run(&[
        "--gguf",
        MODEL,
        "--mmproj",
        p,
        "--no-mmproj-offload",
        "--json",
    ]);
    assert!(out.status.success());
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["devices"], v["devices"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--mmproj-offload 0"));
}

#[test]
fn a_language_model_given_as_the_projector_is_one_line_with_exit_2() {
    let out = run(&["--gguf", MODEL, "--mmproj", MODEL]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("not a vision projector"), "{stderr}");
    assert_eq!(stderr.matches('\n').count(), 1, "{stderr}");
}

#[test]
fn an_uneven_tensor_split_sets_the_gpu_count_and_gives_the_first_gpu_more_layers() {
    let v = json(&["--gguf", MODEL, "--tensor-split", "3,1", "--json"]);
    let (a, b) = (device(&v, "GPU 0"), device(&v, "GPU 1"));
    assert!(
        a["layers"].as_u64().unwrap() > b["layers"].as_u64().unwrap(),
        "{v}"
    );
    assert!(v["llama_server"]
        .as_str()
        .unwrap()
        .contains("--tensor-split 3,1"));
    // llama.cpp's decimal shares are the same split
    let decimal = json(&["--gguf", MODEL, "-ts", "0.75,0.25", "--json"]);
    assert_eq!(decimal["devices"], v["devices"]);
}

#[test]
fn the_ram_bandwidth_moves_the_speed_bound_of_a_cpu_run() {
    let speed = |gbps: &str| {
        let v = json(&[
            "--gguf",
            MODEL,
            "--machine",
            "cpu",
            "--ram-bandwidth",
            gbps,
            "--json",
        ]);
        v["decode_tokens_per_s_max"]["empty_context"]
            .as_f64()
            .unwrap()
    };
    let (slow, fast) = (speed("50"), speed("100"));
    assert!((fast / slow - 2.0).abs() < 1e-9, "{slow} → {fast}");
}
