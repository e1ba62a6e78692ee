//! `--hf ID` against a stand-in Hub started by the tests (`hub_server/`), reached through the
//! same endpoint setting users have (`HF_ENDPOINT`, `--hf-endpoint`): no network.

use crate::hub_server;

use std::process::{Command, Output};
use std::sync::OnceLock;

use hub_server::{fixture_repos, HubServer, GATED_TOKEN, SHA};
use serde_json::Value;

fn server() -> &'static HubServer {
    static SERVER: OnceLock<HubServer> = OnceLock::new();
    SERVER.get_or_init(|| HubServer::start(fixture_repos()))
}

/// The CLI with `HF_ENDPOINT` on the stand-in Hub, `HF_TOKEN` when given.
fn run(args: &[&str], token: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vram-budget"));
    c.args(args)
        .env("HF_ENDPOINT", &server().endpoint)
        .env_remove("HF_TOKEN");
    if let Some(t) = token {
        c.env("HF_TOKEN", t);
    }
    c.output().unwrap()
}

fn ok_json(args: &[&str], token: Option<&str>) -> Value {
    let out = run(args, token);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn error(args: &[&str]) -> String {
    let out = run(args, None);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn requests_for(repo: &str) -> Vec<hub_server::Logged> {
    server()
        .requests()
        .into_iter()
        .filter(|r| r.path.contains(repo))
        .collect()
}

#[test]
fn a_model_id_gives_the_gptq_weights_from_its_files_through_the_cdn_redirect() {
    let v = ok_json(
        &[
            "--hf",
            "TheBloke/Llama-2-7B-GPTQ",
            "--job",
            "infer",
            "--json",
        ],
        None,
    );
    let hub = &v["hub"];
    assert_eq!(hub["stored_format"], "gptq4");
    assert_eq!(hub["scheme"], "gptq");
    assert_eq!(hub["revision"], SHA);
    assert_eq!(hub["params"], 6_738_415_616u64);
    assert_eq!(v["components_bytes"]["weights"], hub["weight_bytes"]);
    assert!(
        v["lines"][0]["formula"]
            .as_str()
            .unwrap()
            .contains("checkpoint's files"),
        "{}",
        v["lines"][0]
    );
    assert!(hub["differences"][0]
        .as_str()
        .unwrap()
        .contains("budgets use the files"));
    let cdn: Vec<_> = server()
        .requests()
        .into_iter()
        .filter(|r| r.server == "cdn")
        .collect();
    assert!(cdn
        .iter()
        .any(|r| r.path.ends_with("Llama-2-7B-GPTQ/model.safetensors")));
}

#[test]
fn the_printed_link_reopens_the_same_budget_without_the_hub() {
    let v = ok_json(
        &[
            "--hf",
            "TheBloke/Llama-2-7B-AWQ",
            "--job",
            "serve",
            "--gpu",
            "l4",
            "--json",
        ],
        None,
    );
    let link = v["link"].as_str().unwrap();
    assert!(
        link.contains(&format!("hf=TheBloke%2FLlama-2-7B-AWQ%40{SHA}")),
        "{link}"
    );
    assert!(link.contains("&hfd=20"), "{link}");
    let offline = Command::new(env!("CARGO_BIN_EXE_vram-budget"))
        .args(["--link", link, "--json"])
        .env("HF_ENDPOINT", "http://127.0.0.1:1")
        .output()
        .unwrap();
    assert!(
        offline.status.success(),
        "{}",
        String::from_utf8_lossy(&offline.stderr)
    );
    let again: Value = serde_json::from_slice(&offline.stdout).unwrap();
    assert_eq!(again["total_bytes"], v["total_bytes"]);
    assert_eq!(again["components_bytes"], v["components_bytes"]);
}

#[test]
fn a_gated_repository_says_how_to_get_access_and_opens_with_a_token() {
    let e = error(&["--hf", "meta-llama/Meta-Llama-3-8B"]);
    assert!(
        e.contains("gated or private (HTTP 401)") && e.contains("HF_TOKEN"),
        "{e}"
    );
    let v = ok_json(
        &["--hf", "meta-llama/Meta-Llama-3-8B", "--json"],
        Some(GATED_TOKEN),
    );
    assert_eq!(v["hub"]["tensor_bytes"], 16_060_522_496u64);
    assert_eq!(v["hub"]["shards"].as_array().unwrap().len(), 4);
    assert_eq!(v["hub"]["differences"], serde_json::json!([]));
}

#[test]
fn the_token_goes_to_the_endpoint_host_and_never_to_the_cdn() {
    ok_json(
        &["--hf", "TheBloke/Llama-2-7B-GPTQ@main", "--json"],
        Some(GATED_TOKEN),
    );
    let bearer = format!("Bearer {GATED_TOKEN}");
    let all = requests_for("Llama-2-7B-GPTQ");
    assert!(all
        .iter()
        .any(|r| r.server == "hub" && r.authorization.as_deref() == Some(bearer.as_str())));
    let cdn: Vec<_> = all.iter().filter(|r| r.server == "cdn").collect();
    assert!(!cdn.is_empty());
    assert!(cdn.iter().all(|r| r.authorization.is_none()), "{cdn:?}");
}

#[test]
fn only_headers_are_read_each_with_a_range_request() {
    let v = ok_json(
        &[
            "--hf",
            "mistralai/Mixtral-8x7B-v0.1",
            "--job",
            "serve",
            "--gpu",
            "h100",
            "--gpus",
            "4",
            "--tp",
            "4",
            "--json",
        ],
        None,
    );
    assert_eq!(v["hub"]["tensor_bytes"], 93_405_585_408u64);
    assert!(v["hub"]["fetched_bytes"].as_u64().unwrap() < 1 << 20);
    let shards: Vec<_> = requests_for("Mixtral-8x7B-v0.1")
        .into_iter()
        .filter(|r| r.path.ends_with(".safetensors"))
        .collect();
    assert_eq!(shards.len(), 2 * 19);
    assert!(shards.iter().all(|r| r.range.is_some()), "{shards:?}");
    assert!(shards
        .iter()
        .any(|r| r.range.as_deref() == Some("bytes=0-7")));
}

#[test]
fn fp8_and_prequantized_nf4_checkpoints_take_their_stored_formats() {
    let fp8 = ok_json(
        &[
            "--hf",
            "neuralmagic/Meta-Llama-3-8B-Instruct-FP8",
            "--job",
            "infer",
            "--json",
        ],
        None,
    );
    assert_eq!(fp8["hub"]["stored_format"], "fp8");
    assert_eq!(
        fp8["components_bytes"]["weights"],
        fp8["hub"]["weight_bytes"]
    );
    let nf4 = ok_json(
        &[
            "--hf",
            "https://huggingface.co/unsloth/llama-3-8b-bnb-4bit",
            "--job",
            "qlora",
            "--json",
        ],
        None,
    );
    assert_eq!(nf4["hub"]["stored_format"], "nf4");
    assert!(nf4["hub"]["role_bytes"]["state"].as_u64().unwrap() > 0);
    // a format chosen on the command line wins over the files' own
    let bf16 = ok_json(
        &[
            "--hf",
            "neuralmagic/Meta-Llama-3-8B-Instruct-FP8",
            "--job",
            "infer",
            "--weights",
            "bf16",
            "--json",
        ],
        None,
    );
    assert_ne!(
        bf16["components_bytes"]["weights"],
        bf16["hub"]["weight_bytes"]
    );
}

#[test]
fn a_gguf_repository_plans_llama_cpp_from_the_chosen_file_as_a_local_file_would() {
    let mut from_hub = ok_json(
        &[
            "--hf",
            "test/Llama-GGUF",
            "--hf-file",
            "Q8_0",
            "--ctx",
            "4096",
            "--json",
        ],
        None,
    );
    let local = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../engine/tests/fixtures/gguf/llama-q8_0.header.gguf");
    let out = Command::new(env!("CARGO_BIN_EXE_vram-budget"))
        .args([
            "--gguf",
            local.to_str().unwrap(),
            "--ctx-size",
            "4096",
            "--json",
        ])
        .output()
        .unwrap();
    let mut local: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hub = from_hub.as_object_mut().unwrap().remove("hub").unwrap();
    assert_eq!(hub["parts"], serde_json::json!(["Llama-Q8_0.gguf"]));
    // the same plan; only the file's name differs (and the command that names it)
    for key in ["file", "llama_server"] {
        local[key] = from_hub[key].clone();
    }
    assert_eq!(from_hub["file"], "Llama-Q8_0.gguf");
    assert_eq!(from_hub, local);
    let default = ok_json(&["--hf", "test/Llama-GGUF", "--json"], None);
    assert_eq!(default["file"], "Llama-Q4_K_M.gguf");
}

#[test]
fn each_failure_is_one_plain_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["--hf", "nobody/nothing"], "not found"),
        (&["--hf", "test/truncated"], "a cut header"),
        (
            &["--hf", "test/slow", "--hf-timeout", "1"],
            "did not answer within 1 s",
        ),
        (&["--hf", "test/busy"], "try again in 7 s"),
        (
            &["--hf", "a/b", "--hf-endpoint", "http://127.0.0.1:1"],
            "cannot reach 127.0.0.1:1",
        ),
        (&["--hf", "a/../b"], "is not a model id"),
        (
            &["--hf", "a/b", "--hf-endpoint", "ftp://x"],
            "is not an endpoint",
        ),
        (
            &["--hf", "test/Llama-GGUF", "--hf-file", "IQ1_S"],
            "no GGUF file matching",
        ),
    ];
    for (args, expected) in cases {
        let e = error(args);
        assert!(e.contains(expected), "{args:?}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    }
}

#[test]
fn the_table_says_what_was_read_and_where_the_files_differ_from_the_config() {
    let out = run(
        &[
            "--hf",
            "TheBloke/Llama-2-7B-GPTQ",
            "--job",
            "infer",
            "--explain",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let head = format!(
        "Read from {}: TheBloke/Llama-2-7B-GPTQ@{SHA} on 20",
        server().endpoint
    );
    assert!(text.starts_with(&head), "{text}");
    assert!(
        text.contains("1 shard header(s)") && text.contains("stored as GPTQ"),
        "{text}"
    );
    assert!(
        text.contains("nominal bits give") && text.contains("budgets use the files"),
        "{text}"
    );
    assert!(
        text.contains("as the checkpoint's files hold them (gptq4"),
        "{text}"
    );
    assert!(
        text.contains("link: ?v=1&mn=TheBloke%2FLlama-2-7B-GPTQ&cfg="),
        "{text}"
    );
}

/// The llama.cpp report of a local GGUF header file.
fn local_report(path: &std::path::Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_vram-budget"))
        .arg("--gguf")
        .arg(path)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_split_gguf_in_three_parts_plans_as_its_joined_header_read_locally() {
    let mut from_hub = ok_json(
        &[
            "--hf",
            "test/Split-GGUF",
            "--hf-file",
            "Q8_0",
            "--ctx-size",
            "4096",
            "--json",
        ],
        None,
    );
    let hub = from_hub.as_object_mut().unwrap().remove("hub").unwrap();
    let first = "Llama-Q8_0-00001-of-00003.gguf";
    assert_eq!(from_hub["file"], first);
    assert_eq!(hub["parts"].as_array().unwrap().len(), 3);
    // every byte fetched is a byte of some part's header, each asked for once
    let held: u64 = hub_server::split_gguf_parts()
        .iter()
        .map(|p| p.len() as u64)
        .sum();
    assert_eq!(hub["fetched_bytes"], held);
    assert!(hub["requests"].as_u64() >= Some(3), "{hub}");
    let local = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../engine/tests/fixtures/gguf")
        .join(hub_server::SPLIT_FIXTURE);
    let mut local = local_report(&local, &["--ctx-size", "4096", "--json"]);
    for key in ["file", "llama_server"] {
        local[key] = from_hub[key].clone();
    }
    assert_eq!(from_hub, local);
}

#[test]
fn the_split_parts_are_read_from_their_headers_only() {
    let text = run(
        &[
            "--hf",
            "test/Split-GGUF",
            "--hf-file",
            "Llama-Q8_0-00002-of-00003.gguf",
        ],
        None,
    );
    assert!(
        text.status.success(),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.starts_with("read test/Split-GGUF@") && text.contains("(3 part(s))"),
        "{text}"
    );
    let parts = hub_server::split_gguf_parts();
    for (i, header) in parts.iter().enumerate() {
        let name = format!("Llama-Q8_0-{:05}-of-00003.gguf", i + 1);
        let starts: Vec<u64> = requests_for("test/Split-GGUF")
            .iter()
            .filter(|r| r.path.ends_with(&name))
            .map(|r| {
                let range = r.range.as_deref().expect("a Range request");
                let from = range
                    .trim_start_matches("bytes=")
                    .split('-')
                    .next()
                    .unwrap();
                from.parse().unwrap()
            })
            .collect();
        assert!(starts.contains(&0), "{name}: {starts:?}");
        assert!(
            starts.iter().all(|s| *s < header.len() as u64),
            "{name}: a range starts past its {}-byte header: {starts:?}",
            header.len()
        );
    }
}

#[test]
fn the_listing_asks_for_sizes_and_a_split_entry_is_chosen_by_quantization() {
    ok_json(
        &["--hf", "test/Split-GGUF", "--hf-file", "q8_0", "--json"],
        None,
    );
    let listings: Vec<_> = requests_for("test/Split-GGUF")
        .into_iter()
        .filter(|r| r.path.starts_with("/api/models/"))
        .collect();
    assert!(!listings.is_empty());
    assert!(
        listings.iter().all(|r| r.path.ends_with("?blobs=true")),
        "{listings:?}"
    );
}

#[test]
fn a_split_gguf_with_a_missing_part_or_an_ambiguous_name_is_one_line_that_lists_the_files() {
    let missing = error(&["--hf", "test/Split-missing-GGUF", "--hf-file", "Q8_0"]);
    assert!(
        missing.contains("Llama-Q8_0-00002-of-00003.gguf missing"),
        "{missing}"
    );
    assert_eq!(missing.trim_end().lines().count(), 1, "{missing}");
    let ambiguous = error(&["--hf", "test/Llama-GGUF", "--hf-file", "Llama"]);
    assert!(
        ambiguous.contains("fits 3 GGUF files")
            && ambiguous.contains("Llama-Q2_K-00001-of-00002.gguf (2 parts)")
            && ambiguous.contains("Llama-Q8_0.gguf"),
        "{ambiguous}"
    );
    assert_eq!(ambiguous.trim_end().lines().count(), 1, "{ambiguous}");
}
