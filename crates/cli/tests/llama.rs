//! `vram-budget --gguf` on the GGUF fixtures: the report, its JSON in bytes, and refusals.

use std::process::{Command, Output};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../engine/tests/fixtures/gguf/"
);

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vram-budget"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn fixture(name: &str) -> String {
    format!("{FIXTURES}{name}")
}

#[test]
fn the_report_prints_each_device_the_verdict_the_answers_and_the_commands() {
    let f = fixture("llama-f16.header.gguf");
    let out = run(&[
        "--gguf",
        &f,
        "--ngl",
        "3",
        "--ctx",
        "4096",
        "--cache-type-k",
        "q8_0",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for part in [
        "CPU RAM",
        "GPU 0",
        "=> fits",
        "Largest -ngl that fits: 5",
        "-ngl 3 -c 4096 -fa on --cache-type-k q8_0",
        "OLLAMA_NUM_PARALLEL=1",
        "PARAMETER num_gpu 3",
        "no alternatives given",
        "tok/s",
    ] {
        assert!(text.contains(part), "{part} not in:\n{text}");
    }
}

#[test]
fn the_json_gives_bytes_per_device_that_add_up() {
    let f = fixture("gemma2-f16-swa.header.gguf");
    let out = run(&["--gguf", &f, "--ngl", "2", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let devices = v["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 2);
    for d in devices {
        let part = |k: &str| d[k].as_u64().unwrap();
        let sum =
            part("model_bytes") + part("kv_bytes") + part("compute_bytes") + part("output_bytes");
        assert_eq!(sum, part("total_bytes"));
    }
    assert_eq!(v["context"]["swa_cells"], 768);
    assert_eq!(v["offloaded_layers"], 2);
}

#[test]
fn a_mac_is_judged_against_its_working_set_and_chinese_works() {
    let f = fixture("llama-moe-q4_0.header.gguf");
    let out = run(&[
        "--gguf",
        &f,
        "--mac",
        "M3-MAX-64",
        "--n-cpu-moe",
        "2",
        "--lang",
        "zh",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("48.00 GiB") && text.contains("iogpu.wired_limit_mb"),
        "{text}"
    );
    assert!(text.contains("放得下"), "{text}");
}

#[test]
fn llama_cpps_refusals_exit_2_with_one_line() {
    let f = fixture("llama-f16.header.gguf");
    for (args, phrase) in [
        (
            vec!["--cache-type-v", "q8_0", "--flash-attn", "off"],
            "needs flash attention",
        ),
        (vec!["--cache-type-k", "q3_k"], "cannot read"),
        (vec!["--tensor-split", "0,0"], "--tensor-split"),
        (vec!["--ctx", "0"], "out of range"),
        (vec!["--mac", "M9-1"], "no Mac"),
    ] {
        let mut all = vec!["--gguf", f.as_str()];
        all.extend(args);
        let out = run(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert!(out.stdout.is_empty());
        assert!(
            stderr.contains(phrase) && stderr.matches('\n').count() == 1,
            "{stderr}"
        );
    }
    let tiny = fixture("tiny-llama-f16.gguf");
    let out = run(&["--gguf", &tiny, "--cache-type-k", "q8_0"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("do not divide a head of 16"));
}

#[test]
fn a_file_that_is_not_gguf_is_refused() {
    let out = run(&["--gguf", file!()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_local_job_plans_a_preset_in_a_gguf_quant_through_the_registry_flags() {
    let out = run(&[
        "--job",
        "local",
        "--weights",
        "q4_k_m",
        "--ngl",
        "20",
        "--ctx-size",
        "32768",
        "--cache-type-k",
        "q8_0",
        "--gpu",
        "rtx4080",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for part in [
        "Llama-3.1-8B-q4_k_m.gguf (llama, 32 layers)",
        "20/33",
        "llama-server -m Llama-3.1-8B-q4_k_m.gguf -ngl 20 -c 32768 -fa on --cache-type-k q8_0",
        "CPU RAM",
        "GPU 0",
        // f16: 13.98 GiB of weights on the GPU and about 2.9 GiB of cache pass a 16 GB card's 16,376 MiB
        "Best quantization that fits on the GPU: q8_0",
    ] {
        assert!(text.contains(part), "no {part:?} in\n{text}");
    }
}

#[test]
fn a_link_with_a_mac_is_judged_against_its_working_set() {
    let out = run(&["--link", "?v=1&j=local&mch=mac&mac=M2&mgb=16&w=bf16"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("M2 GPU working set: 10.67 GiB"), "{text}");
    assert!(text.contains("=> does not fit"), "{text}");
}
