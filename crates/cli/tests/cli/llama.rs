//! `vram-budget --gguf` on the GGUF fixtures: the report, its JSON in bytes, refusals, the
//! registry's flags and the older spellings kept as aliases.

use std::process::{Command, Output};

use vram_engine::{scenario::LocalMachine, Job, Scenario, SETTINGS};

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

/// A successful run's standard output and error, the output holding every one of `parts`.
#[track_caller]
fn report(args: &[&str], parts: &[&str]) -> (String, String) {
    let out = run(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    for part in parts {
        assert!(stdout.contains(part), "no {part:?} in\n{stdout}");
    }
    (stdout, stderr)
}

#[test]
fn the_report_prints_each_device_the_verdict_the_answers_and_the_commands() {
    let f = fixture("llama-f16.header.gguf");
    let args = [
        "--gguf",
        &f,
        "--ngl",
        "3",
        "--ctx-size",
        "4096",
        "--cache-type-k",
        "q8_0",
    ];
    let (_, stderr) = report(
        &args,
        &[
            "CPU RAM",
            "GPU 0",
            "=> fits",
            "Largest -ngl that fits: 5",
            "-ngl 3 -c 4096 -fa on --cache-type-k q8_0",
            "OLLAMA_NUM_PARALLEL=1",
            "PARAMETER num_gpu 3",
            "no alternatives given",
            "tok/s",
        ],
    );
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn the_json_gives_bytes_per_device_that_add_up() {
    let f = fixture("gemma2-f16-swa.header.gguf");
    let (json, _) = report(&["--gguf", &f, "--ngl", "2", "--json"], &[]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
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
    let args = [
        "--gguf",
        &f,
        "--machine",
        "mac",
        "--mac",
        "M3-MAX",
        "--mac-memory",
        "64",
        "--n-cpu-moe",
        "2",
        "--lang",
        "zh",
    ];
    report(&args, &["48.00 GiB", "iogpu.wired_limit_mb", "放得下"]);
}

#[test]
fn llama_cpps_refusals_exit_2_with_one_line() {
    let f = fixture("llama-f16.header.gguf");
    for (args, phrase) in [
        (
            vec!["--cache-type-v", "q8_0", "--flash-attn", "0"],
            "needs flash attention",
        ),
        (vec!["--cache-type-k", "q3_k"], "not a known value"),
        (vec!["--tensor-split", "0,0"], "--tensor-split"),
        (vec!["--ctx-size", "99999999"], "from 0 to 16777216"),
        (vec!["--machine", "mac", "--mac", "M9-1"], "Mac chip"),
        (vec!["--mac", "M3-MAX"], "needs --machine mac"),
        (vec!["--batch", "4"], "does not apply to a llama.cpp run"),
        (
            vec!["--gpus", "2", "--tensor-split", "1,1,1"],
            "--tensor-split",
        ),
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
fn a_gguf_file_cut_inside_its_header_is_one_line_that_says_so() {
    // the fixture is a 14,592-byte header alone; its first 5,000 bytes stop inside it
    let whole = std::fs::read(fixture("llama-q4_k.header.gguf")).unwrap();
    let cut = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cut.header.gguf");
    std::fs::write(&cut, &whole[..5_000]).unwrap();
    let out = run(&["--gguf", cut.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("the file ends inside its GGUF header") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn the_local_job_plans_a_preset_in_a_gguf_quant_through_the_registry_flags() {
    let args = [
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
    ];
    report(
        &args,
        &[
            "Llama-3.1-8B-q4_k_m.gguf (llama, 32 layers)",
            "20/33",
            "llama-server -m Llama-3.1-8B-q4_k_m.gguf -ngl 20 -c 32768 -fa on --cache-type-k q8_0",
            "CPU RAM",
            "GPU 0",
            // f16: 13.98 GiB of weights on the GPU and about 2.9 GiB of cache pass a 16 GB card's 16,376 MiB
            "Best quantization that fits on the GPU: q8_0",
        ],
    );
}

#[test]
fn a_link_with_a_mac_is_judged_against_its_working_set() {
    let link = "?v=1&j=local&mch=mac&mac=M2&mgb=16&w=bf16";
    report(
        &["--link", link],
        &["M2 GPU working set: 10.67 GiB", "=> does not fit"],
    );
}

/// Whether a registry setting means something for a llama.cpp run on `machine`.
fn applies_to_local(setting: &vram_engine::Setting, machine: LocalMachine) -> bool {
    let s = Scenario {
        job: Job::Local,
        machine,
        ..Scenario::default()
    };
    (setting.applies)(&s)
}

#[test]
fn gguf_reads_every_llama_cpp_setting_of_the_registry_by_its_flag() {
    let f = fixture("llama-q4_k.header.gguf");
    let defaults = Scenario::default();
    let mut read = 0;
    for st in SETTINGS {
        let on_mac = applies_to_local(st, LocalMachine::Mac);
        let on_gpu = applies_to_local(st, LocalMachine::Gpu);
        // the job is --gguf's own: a llama.cpp run
        if !(on_mac || on_gpu) || st.key == "j" {
            continue;
        }
        let flag = format!("--{}", st.flag);
        let value = st.text(&defaults);
        let mut args = vec!["--gguf", f.as_str(), flag.as_str(), value.as_str()];
        if !on_gpu && st.key != "mch" {
            args.extend(["--machine", "mac"]);
        }
        let (_, stderr) = report(&args, &["llama-server -m"]);
        assert!(stderr.is_empty(), "{flag}: {stderr}");
        read += 1;
    }
    assert!(read >= 17, "{read} llama.cpp settings");
}

#[test]
fn the_older_spellings_give_the_same_report_with_one_deprecation_line_each() {
    let f = fixture("llama-q4_k.header.gguf");
    let registry = [
        "--gguf",
        &f,
        "--ctx-size",
        "8192",
        "--ngl",
        "3",
        "--parallel",
        "2",
        "--flash-attn",
        "0",
        "--mmap",
        "0",
        "--op-offload",
        "0",
        "--machine",
        "mac",
        "--mac",
        "M3-MAX",
        "--mac-memory",
        "64",
    ];
    let older = [
        "--gguf",
        &f,
        "--ctx",
        "8192",
        "-ngl",
        "3",
        "-np",
        "2",
        "-fa",
        "off",
        "--no-mmap",
        "--no-op-offload",
        "--mac",
        "M3-MAX-64",
    ];
    let (expected, quiet) = report(&registry, &["-c 8192"]);
    assert!(quiet.is_empty(), "{quiet}");
    let (same, notices) = report(&older, &[]);
    assert_eq!(same, expected);
    let lines: Vec<&str> = notices.lines().collect();
    assert_eq!(lines.len(), 7, "{notices}");
    for (line, now) in lines.iter().zip([
        "--ctx-size 8192",
        "--ngl 3",
        "--parallel 2",
        "--flash-attn 0",
        "--mmap 0",
        "--op-offload 0",
        "--machine mac --mac M3-MAX --mac-memory 64",
    ]) {
        assert!(line.contains("deprecated") && line.contains(now), "{line}");
    }
}

#[test]
fn without_op_offload_the_launch_line_says_so_and_the_gpu_reserves_less_at_ngl_0() {
    let f = fixture("llama-q4_k.header.gguf");
    let json = |offload: &str| {
        let args = [
            "--gguf",
            &f,
            "--ngl",
            "0",
            "--op-offload",
            offload,
            "--json",
        ];
        let (out, _) = report(&args, &[]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["devices"][1]["compute_bytes"].as_u64().unwrap()
    };
    assert!(json("0") < json("1"));
    report(
        &["--gguf", &f, "--ngl", "0", "--op-offload", "0"],
        &["--no-op-offload"],
    );
}

#[test]
fn llama_cpps_bare_swa_full_and_kv_unified_switch_the_caches() {
    let f = fixture("gemma2-f16-swa.header.gguf");
    let context = |extra: &[&str]| {
        let mut args = vec!["--gguf", f.as_str(), "--parallel", "2", "--json"];
        args.extend(extra);
        let (out, stderr) = report(&args, &[]);
        assert!(stderr.is_empty(), "{stderr}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["context"].clone()
    };
    let plain = context(&[]);
    let full = context(&["--swa-full"]);
    assert_eq!(full["swa_cells"], full["n_ctx_seq"]);
    assert!(plain["swa_cells"].as_u64() < full["swa_cells"].as_u64());
    let unified = context(&["--kv-unified", "--swa-full", "0"]);
    assert_eq!(
        (plain["streams"].as_u64(), unified["streams"].as_u64()),
        (Some(2), Some(1))
    );
    assert!(unified["swa_cells"].as_u64() < unified["n_ctx_seq"].as_u64());
}

#[test]
fn ollama_sets_its_defaults_for_the_model_and_the_machine() {
    let json = |args: &[&str]| -> serde_json::Value {
        let out = run(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // a preset on a 24 GB card: Ollama's middle tier, one request, its batch
    let preset = json(&[
        "--job",
        "local",
        "--model",
        "llama-3.1-8b",
        "--weights",
        "q4_k_m",
        "--gpu",
        "rtx4090",
        "--parallel",
        "4",
        "--ollama",
        "--json",
    ]);
    let context = &preset["context"];
    assert_eq!(context["n_ctx"], 32_768, "{preset}");
    assert_eq!(
        (context["n_batch"].clone(), context["n_ubatch"].clone()),
        (1_024.into(), 1_024.into())
    );
    assert_eq!(context["streams"], 1);
    // a file's header: capped at the context it was trained for
    let f = fixture("llama-q4_k.header.gguf");
    let file = json(&["--gguf", &f, "--gpu", "rtx4090", "--ollama", "--json"]);
    assert_eq!(file["context"]["n_ctx"], 4_096);
    // not a llama.cpp run: said in one line
    let out = run(&["--job", "lora", "--ollama"]);
    assert_eq!(out.status.code(), Some(2));
}
