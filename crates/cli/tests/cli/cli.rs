//! The built `vram-budget` binary against bad input: every mistake exits with 2, one line on
//! stderr and nothing on stdout; a good run prints the table or JSON.

use std::path::PathBuf;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vram-budget"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A file in this test binary's scratch folder.
fn scratch(name: &str, contents: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// Exit code 2, exactly one line on stderr (naming `phrase`), nothing on stdout.
fn refused(args: &[&str], phrase: &str) {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    assert!(
        stderr.ends_with('\n') && stderr.matches('\n').count() == 1,
        "{args:?}: not one line: {stderr:?}"
    );
    assert!(
        stderr.starts_with("vram-budget: ") && stderr.contains(phrase),
        "{args:?}: {stderr:?} does not say {phrase:?}"
    );
}

#[test]
fn unknown_flags_and_missing_values_exit_2_with_one_line() {
    refused(&["--frobnicate"], "unknown option \"--frobnicate\"");
    refused(&["lora"], "unknown option \"lora\"");
    refused(&["--batch"], "--batch needs a value");
    refused(&["--link"], "--link needs a value");
    refused(&["--config"], "--config needs a value");
    refused(&["--json", "--gpu"], "--gpu needs a value");
    refused(&["--bat\nch", "4"], "unknown option \"--bat\\nch\"");
    refused(&["-b", "4"], "unknown option");
}

#[test]
fn bad_values_exit_2_with_one_line() {
    refused(
        &["--batch", "lots"],
        "--batch: Batch (per GPU) must be a whole number from 1 to 1048576",
    );
    refused(&["--batch", "0"], "--batch: ");
    refused(&["--batch", "1000000000"], "--batch: ");
    refused(&["--batch", "1e9"], "--batch: ");
    refused(&["--batch", "-1"], "--batch: ");
    refused(&["--seq", "10485761"], "--seq: Sequence length");
    refused(&["--gpus", "8192"], "--gpus: GPUs");
    refused(&["--rank", "65537"], "--rank: LoRA rank");
    refused(&["--gpu-util", "5"], "--gpu-util: gpu_memory_utilization");
    refused(&["--job", "pretrain"], "--job: not a known value for Job");
    refused(&["--weights", "int3"], "--weights: not a known value");
    refused(&["--model", "gpt-5"], "--model: unknown model \"gpt-5\"");
    refused(
        &["--targets", "q,zz"],
        "--targets: not a list of LoRA targets",
    );
    refused(&["--targets", ""], "at least one target");
    refused(&["--master-weights", "yes"], "should be 0 or 1");
    refused(
        &["--params", "lots"],
        "--params: the parameter count should look like 7B",
    );
    refused(
        &["--params", "11T"],
        "--params: not a parameter count between 1M and 10T",
    );
    refused(
        &["--params", "300000000000000000000000000000000000000e-38"],
        "--params: not a parameter count between 1M and 10T",
    );
    refused(
        &["--job", "full", "--weights", "nf4"],
        "full fine-tuning updates every weight",
    );
    refused(&["--gpus", "6", "--tp", "4"], "tensor-parallel");
    refused(&["--job", "\u{1b}[31mred"], "--job: not a known value");
}

#[test]
fn bad_links_exit_2_with_one_line() {
    refused(
        &["--link", "https://x.invalid/?v=1&b=abc"],
        "link: ignored b=\"abc\": Batch (per GPU)",
    );
    refused(&["--link", "?zzz=1"], "unknown setting \"zzz\"");
    refused(&["--link", "?v=7"], "version 1");
    refused(
        &["--link", "?m=llama-3.1-8b&cfg=V100_h64"],
        "ignored the custom architecture",
    );
    refused(
        &["--link", "?cfg=%0A%1B[31m5"],
        "ignored the custom architecture",
    );
    refused(
        &["--link", "?cfg=V100_h64_f64_L2_H4_kvr18446744073709551615"],
        "kv_lora_rank",
    );
    refused(
        &["--link", "?p=300000000000000000000000000000000000000e-38"],
        "between 1M and 10T",
    );
    refused(
        &["--link", "?j=full&w=nf4"],
        "full fine-tuning updates every weight",
    );
    let long = format!("?b={}", "9".repeat(5_000));
    refused(&["--link", &long], "longer than 4096 characters");
    // flags after a link with a fragment still count (they were dropped before)
    refused(
        &["--link", "https://x.invalid/?v=1#top", "--batch", "0"],
        "--batch: ",
    );
}

#[test]
fn a_missing_malformed_or_oversized_config_exits_2_with_one_line() {
    refused(
        &["--config", "/nonexistent/config.json"],
        "cannot read /nonexistent/config.json",
    );
    let dir = scratch("a-folder-marker", b"");
    let folder = dir.parent().unwrap().to_str().unwrap().to_string();
    refused(&["--config", &folder], "cannot read");
    let bad = scratch("malformed.json", b"{\"hidden_size\": 4096,");
    refused(&["--config", bad.to_str().unwrap()], "not valid JSON");
    let array = scratch("array.json", b"[1,2]");
    refused(
        &["--config", array.to_str().unwrap()],
        "top level is not a JSON object",
    );
    let missing = scratch(
        "missing.json",
        br#"{"num_hidden_layers":2,"num_attention_heads":2,"vocab_size":10}"#,
    );
    refused(&["--config", missing.to_str().unwrap()], "hidden_size");
    let binary = scratch("binary.json", &[0xff, 0xfe, 0x00, 0x7b]);
    refused(&["--config", binary.to_str().unwrap()], "cannot read");
    let huge_number = scratch(
        "huge-number.json",
        format!(
            r#"{{"hidden_size":{},"num_hidden_layers":2,"num_attention_heads":2,"vocab_size":10}}"#,
            "9".repeat(100_000)
        )
        .as_bytes(),
    );
    // 100,000 digits are past a float's range: not a JSON number serde_json reads
    refused(
        &["--config", huge_number.to_str().unwrap()],
        "a malformed number, or one too large",
    );
    let big = scratch(
        "big.json",
        format!("{{\"pad\":\"{}\"}}", "x".repeat(1 << 20)).as_bytes(),
    );
    refused(
        &["--config", big.to_str().unwrap()],
        "over 1024 KiB is refused",
    );
    let newline = scratch("new\nline.json", b"{");
    refused(&["--config", newline.to_str().unwrap()], "new\\nline.json");
}

#[test]
fn an_estimate_past_what_the_engine_counts_exits_2_with_one_line() {
    refused(
        &[
            "--params", "10T", "--job", "infer", "--batch", "1048576", "--seq", "10485760",
            "--gen", "10485760",
        ],
        "more than 1 EiB per GPU",
    );
}

#[test]
fn a_good_run_prints_the_table_and_nothing_on_stderr() {
    let out = run(&[
        "--model",
        "llama-3.1-8b",
        "--job",
        "qlora",
        "--gpu",
        "a100-80",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let table = String::from_utf8(out.stdout).unwrap();
    for phrase in [
        "Total per GPU",
        "A100 80GB",
        "Largest micro-batch per GPU",
        "Highest-precision weights the job can use    NF4 (bitsandbytes)",
        "link: ?v=1&m=llama-3.1-8b&j=qlora",
    ] {
        assert!(table.contains(phrase), "no {phrase:?} in\n{table}");
    }
    let non_finite = table
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == "inf" || w == "NaN");
    assert!(!non_finite, "{table}");
}

#[test]
fn a_server_prints_its_answers_and_the_commands_to_start_it() {
    let out = run(&[
        "--link",
        "?v=1&m=llama-3.1-70b&j=serve&gpu=h100&n=4&tp=4&c=64",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let table = String::from_utf8(out.stdout).unwrap();
    for phrase in [
        "Concurrent requests at max_model_len",
        "Fewest GPUs for the concurrent requests      4 (tp 4)",
        "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 8192",
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B --tp 4",
        "start-up maximum concurrency for 8,192 tokens per request",
    ] {
        assert!(table.contains(phrase), "no {phrase:?} in\n{table}");
    }
    assert!(
        !table.contains("1,048,576") && !table.contains("10,485,760"),
        "{table}"
    );
    // a row that does not fit shows a negative headroom, one that fits a positive one
    for row in table
        .lines()
        .filter(|l| l.contains(" yes ") || l.contains(" no "))
    {
        let cells: Vec<&str> = row.split_whitespace().collect();
        let at = cells
            .iter()
            .position(|c| *c == "yes" || *c == "no")
            .unwrap();
        let headroom: f64 = cells[at + 1].parse().unwrap();
        assert_eq!(cells[at] == "yes", headroom >= 0.0, "{row}");
    }
}

#[test]
fn a_training_run_prints_no_serving_command() {
    let out = run(&["--job", "lora"]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(!table.contains("vllm serve"), "{table}");
}

#[test]
fn json_output_parses_and_its_link_reproduces_the_run() {
    let out = run(&[
        "--link",
        "https://x.invalid/?v=1&j=full&b=2#section",
        "--gpus",
        "8",
        "--zero",
        "3",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["gpus"], 8);
    assert!(v["total_bytes"].as_u64().unwrap() >= v["tensors_bytes"].as_u64().unwrap());
    let link = v["link"].as_str().unwrap().to_string();
    assert!(
        link.contains("j=full")
            && link.contains("z=3")
            && link.contains("n=8")
            && link.contains("b=2"),
        "{link}"
    );
    let again = run(&["--link", &link, "--json"]);
    let w: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(v["total_bytes"], w["total_bytes"]);
}

#[test]
fn on_off_flags_reach_the_estimate_and_the_link() {
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "--model",
            "llama-3.2-3b",
            "--job",
            "full",
            "--master-weights",
            "0",
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let plain = json(&[]);
    let in_backward = json(&["--optimizer-in-backward", "1", "--offload-activations", "1"]);
    assert!(in_backward["total_bytes"].as_u64() < plain["total_bytes"].as_u64());
    // a job that does not fit a 4090 lists the single changes that make it fit
    let out = run(&[
        "--model",
        "llama-3.1-8b",
        "--job",
        "lora",
        "--batch",
        "1",
        "--seq",
        "2048",
        "--ckpt",
        "none",
        "--loss",
        "full",
        "--json",
    ]);
    let tight: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let changes: Vec<&str> = tight["remedies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["change"].as_str().unwrap())
        .collect();
    assert!(changes.contains(&"gc"), "{changes:?}");
    let link = in_backward["link"].as_str().unwrap();
    assert!(link.contains("obw=1") && link.contains("ao=1"), "{link}");
    refused(&["--optimizer-in-backward", "yes"], "should be 0 or 1");
}

#[test]
fn a_config_file_runs_as_a_custom_model() {
    let cfg = scratch(
        "tiny.json",
        br#"{"model_type":"llama","vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"tie_word_embeddings":false}"#,
    );
    let out = run(&[
        "--config",
        cfg.to_str().unwrap(),
        "--name",
        "llama-2-7b copy",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["params"], 6_738_415_616u64);
    assert_eq!(v["model"], "llama-2-7b copy");
}

#[test]
fn every_setting_of_the_registry_is_a_flag_whose_value_reaches_the_link() {
    use vram_engine::{Scenario, SettingKind, SETTINGS};
    let d = Scenario::default();
    for st in SETTINGS {
        let default = st.text(&d);
        let value = match st.kind {
            SettingKind::Number { min, max, .. } => {
                let n: u64 = default.parse().unwrap();
                if n < max { n + 1 } else { min }.to_string()
            }
            SettingKind::Choice => st
                .offered(&d)
                .into_iter()
                .find(|k| *k != default)
                .unwrap()
                .to_string(),
            SettingKind::Switch => if default == "1" { "0" } else { "1" }.to_string(),
            SettingKind::Targets => "q,v".to_string(),
            SettingKind::Shares => "3,1".to_string(),
        };
        let flag = format!("--{}", st.flag);
        let mut args = vec![flag.as_str(), value.as_str(), "--json"];
        // a tensor-parallel degree or pipeline needs GPUs to divide; a huge job needs a model that
        // fits the count
        if st.key == "tp" || st.key == "pp" {
            args.extend(["--gpus", "64"]);
        }
        let out = run(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let link = v["link"].as_str().unwrap();
        assert!(
            link.split('&')
                .any(|kv| kv == format!("{}={value}", st.key)),
            "{args:?}: {link}"
        );
        let help = String::from_utf8_lossy(&run(&["--help"]).stdout).into_owned();
        assert!(
            help.contains(&format!("--{} ", st.flag)),
            "--help lacks {flag}"
        );
    }
}

/// A file of real log lines under `tests/measured/`.
fn measured_file(name: &str) -> String {
    format!("{}/tests/measured/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A run that must succeed; its stdout.
#[track_caller]
fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_vllm_log_is_compared_figure_by_figure_after_the_table_and_travels_in_the_link() {
    let log = measured_file("vllm-0.6.4-rtx3090.log");
    let table = ok(&["--job", "serve", "--gpu", "rtx3090", "--measured", &log]);
    let section = table.split("Your measurement").nth(1).expect("a section");
    for phrase in [
        " (a vLLM start-up log), in GiB per GPU",
        "vLLM weights                        14.99      14.96       -0.03    -0.2 %",
        "    The memory the model's weights took when vLLM loaded them.",
        "vLLM KV cache",
        "device capacity                     23.58  (no estimate at this level)",
        "note: GB was read as GiB: this source divides by 1024",
        "differ by more than 10 %",
    ] {
        assert!(section.contains(phrase), "no {phrase:?} in\n{section}");
    }
    let link = table.lines().last().unwrap();
    assert!(
        link.starts_with("link: ?") && link.contains("&ms=1"),
        "{link}"
    );
    // the link alone brings the same comparison back
    let again = ok(&["--link", &link["link: ".len()..]]);
    assert_eq!(again, table);
}

#[test]
fn json_output_carries_every_measured_figure_in_bytes_and_each_comparison() {
    let log = measured_file("llama-cpp-2024-two-cuda.log");
    let out = ok(&["--job", "infer", "--measured", &log, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let m = &v["measured"];
    assert_eq!(m["source"], "llama");
    let figures = m["figures"].as_array().unwrap();
    // 13989.53 MiB on CUDA1, to the byte
    let cuda1_model = (1_398_953u64 * (1 << 20) + 50) / 100;
    assert!(
        figures.iter().any(|f| f["level"] == "llama_model"
            && f["bytes"] == cuda1_model
            && f["device"]["api"] == "cuda"
            && f["device"]["index"] == 1),
        "{figures:?}"
    );
    let kv = m["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["level"] == "llama_kv")
        .expect("the KV buffers compared");
    // both devices' KV buffers summed: 1536 + 3584 MiB
    assert_eq!(kv["measured_bytes"], 5120u64 << 20);
    let diff = kv["estimated_bytes"].as_i64().unwrap() - kv["measured_bytes"].as_i64().unwrap();
    assert_eq!(kv["difference_bytes"], diff);
    assert!(kv["difference_basis_points"].is_i64());
    assert!(v["link"].as_str().unwrap().contains("ms=1"));
    // without a measurement the key is there and empty
    let plain: serde_json::Value = serde_json::from_str(&ok(&["--json"])).unwrap();
    assert!(plain["measured"].is_null());
}

#[test]
fn a_measurement_reads_from_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let stats = std::fs::read(measured_file("memory-stats.txt")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vram-budget"))
        .args([
            "--job",
            "full",
            "--model",
            "llama-3.2-1b",
            "--measured",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&stats).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("PyTorch allocated (peak)            21.30"),
        "{table}"
    );
    assert!(table.contains("PyTorch reserved (peak)"), "{table}");
}

#[test]
fn a_missing_huge_or_unreadable_measurement_exits_2_with_one_line_naming_the_flag() {
    refused(&["--measured"], "--measured needs a value");
    refused(
        &["--measured", "/nonexistent/vllm.log"],
        "--measured: cannot read /nonexistent/vllm.log",
    );
    let garbage = scratch("garbage.log", b"hello <script>alert(1)</script>\n\x1b[31m");
    refused(&["--measured", garbage.to_str().unwrap()], "--measured: ");
    refused(
        &["--measured", garbage.to_str().unwrap()],
        "no memory figure found",
    );
    let huge = scratch("huge.log", &vec![b'7'; 300 * 1024]);
    refused(
        &["--measured", huge.to_str().unwrap()],
        "measurements over 256 KiB are refused",
    );
    let empty = scratch("empty.log", b"  \n");
    refused(
        &["--measured", empty.to_str().unwrap()],
        "nothing to compare",
    );
    refused(
        &["--link", "?ms=1z~zz~"],
        "the measurement in the link cannot be read",
    );
}

#[test]
fn a_config_with_a_quantization_config_sets_the_format_and_parts_unless_a_flag_chose_them() {
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/fixtures/quant/gpt-oss-20b.json"
    );
    let out = run(&["--config", config, "--job", "infer", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("w=mxfp4&we=bf16&wa=bf16&wh=bf16"),
        "{stdout}"
    );
    let chosen = run(&[
        "--config",
        config,
        "--job",
        "infer",
        "--weights",
        "bf16",
        "--weights-mlp",
        "mxfp4",
        "--weights-attention",
        "fp8",
        "--json",
    ]);
    let stdout = String::from_utf8_lossy(&chosen.stdout);
    assert!(
        stdout.contains("we=bf16&wa=fp8&wx=mxfp4&wh=bf16"),
        "{stdout}"
    );
    assert!(!stdout.contains("w=mxfp4"), "{stdout}");
}

#[test]
fn the_error_band_is_in_the_table_and_the_json_and_marks_borderline_verdicts() {
    let mut seen_borderline = false;
    for batch in 1..=16 {
        let link = format!("?v=1&m=llama-3.1-8b&j=qlora&b={batch}&gpu=t4");
        let out = run(&["--link", &link, "--json"]);
        assert_eq!(out.status.code(), Some(0));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let band = &v["error_band"];
        assert_eq!(band["group"]["job"], "qlora");
        if band["stated"] != true {
            assert!(band["text"].as_str().unwrap().starts_with("too few"));
            continue;
        }
        assert!(band["cases"].as_u64().unwrap() >= band["min_cases"].as_u64().unwrap());
        let (low, high) = (
            band["low_bytes"].as_u64().unwrap(),
            band["high_bytes"].as_u64().unwrap(),
        );
        assert!(low < high, "{band}");
        // a verdict is borderline exactly when the band of the total holds the GPU's budget
        for fit in v["fit"].as_array().unwrap() {
            let budget = fit["budget_bytes"].as_u64().unwrap();
            assert_eq!(
                fit["borderline"].as_bool().unwrap(),
                low <= budget && budget < high,
                "{link}: {fit}"
            );
            seen_borderline |= fit["borderline"] == true;
        }
        if v["fit"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["borderline"] == true)
        {
            let table = run(&["--link", &link]);
            let text = String::from_utf8_lossy(&table.stdout);
            assert!(text.contains("Error band"), "{text}");
            assert!(
                text.contains("measured runs like this landed within"),
                "{text}"
            );
            assert!(
                text.lines().any(|l| l.trim_end().ends_with("borderline")),
                "{text}"
            );
        }
    }
    assert!(
        seen_borderline,
        "no batch from 1 to 16 put a card inside the band"
    );
}

#[test]
fn a_servers_error_band_is_about_its_kv_pool() {
    let out = run(&[
        "--link",
        "?v=1&m=llama-3.1-8b&j=serve&gpu=a100-40",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let band = &v["error_band"];
    assert_eq!(band["of"], "kv_pool");
    assert_eq!(band["of_bytes"], v["serving"]["kv_pool_bytes"]);
    assert_eq!(band["group"]["level"], "kv");
    if band["stated"] == true {
        let pool = band["of_bytes"].as_u64().unwrap();
        let (low, high) = (
            band["low_bytes"].as_u64().unwrap(),
            band["high_bytes"].as_u64().unwrap(),
        );
        // lower_permille is the low end's offset from the pool, in tenths of a percent
        let lower = band["lower_permille"].as_i64().unwrap();
        assert_eq!(low as i128, pool as i128 * (1000 + lower as i128) / 1000);
        assert!(low < high);
    }
    let table = run(&["--link", "?v=1&m=llama-3.1-8b&j=serve&gpu=a100-40"]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("Error band (KV pool)"));
}

#[test]
fn a_training_run_says_which_framework_it_assumes_and_which_step_it_budgeted() {
    let out = run(&["--model", "llama-3.1-8b", "--job", "qlora"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("framework: TRL SFTTrainer"),
        "no framework line: {text}"
    );
    assert!(text.contains("longest step: 4 × 2,048 tokens, every row as long as the cap"));
    // Unsloth flattens a batch of 4 samples of 512 tokens into one row of 2,048
    let out = run(&[
        "--model",
        "llama-3.1-8b",
        "--job",
        "qlora",
        "--framework",
        "unsloth",
        "--sample-len",
        "512",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let training = &json["training"];
    assert_eq!(training["framework"], "unsloth");
    assert_eq!(training["longest_step"]["rows"], 1);
    assert_eq!(training["longest_step"]["tokens"], 2_048);
    assert!(json["link"].as_str().unwrap().contains("ft=unsloth&"));
}
