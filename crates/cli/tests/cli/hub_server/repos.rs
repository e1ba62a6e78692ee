//! The stand-in Hub's repositories, from the engine's fixtures: real config.json files with
//! safetensors headers rebuilt from them (`crates/engine/tests/fixtures/hub/README.md`), and the
//! GGUF header fixtures (`crates/engine/tests/fixtures/gguf/`).

use std::collections::HashMap;
use std::path::PathBuf;

use vram_engine::{llamacpp::read_gguf, llamacpp::GgufSummary};

use super::checkpoints;
use super::gguf_split::{file_length, split_parts};
use super::{Behaviour, File, Repo};

/// The commit every listing answers with.
pub const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
/// The token the gated repository accepts.
pub const GATED_TOKEN: &str = "hf_test_token_with_access";

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures")
}

fn plain(bytes: Vec<u8>) -> File {
    File {
        claimed_len: bytes.len() as u64,
        bytes,
    }
}

/// A repository of a fixture: config.json, the shards' headers (claiming their full length),
/// and an index when there is more than one shard.
fn safetensors_repo(fixture: &str, behaviour: Behaviour) -> Repo {
    let (_, storage, n) = checkpoints::FIXTURES
        .iter()
        .find(|f| f.0 == fixture)
        .unwrap();
    let config = checkpoints::config_text(&fixtures().join("hub"), fixture);
    let cfg: serde_json::Value = serde_json::from_str(&config).unwrap();
    let tensors = checkpoints::tensors(&cfg, *storage);
    let shards = checkpoints::shards(&tensors, *n);
    let mut files = HashMap::new();
    files.insert("config.json".to_string(), plain(config.into_bytes()));
    files.insert("README.md".to_string(), plain(b"# model card".to_vec()));
    if shards.len() > 1 {
        files.insert(
            "model.safetensors.index.json".to_string(),
            plain(checkpoints::index_json(&shards).into_bytes()),
        );
    }
    for (name, ts) in &shards {
        let header = checkpoints::header_bytes(ts, &[("format", "pt")]);
        let data: u64 = ts.iter().map(|t| t.bytes()).sum();
        let name = if shards.len() == 1 {
            "model.safetensors".to_string()
        } else {
            name.clone()
        };
        files.insert(
            name,
            File {
                claimed_len: header.len() as u64 + data,
                bytes: header,
            },
        );
    }
    Repo { files, behaviour }
}

fn gguf_repo() -> Repo {
    let dir = fixtures().join("gguf");
    let mut files = HashMap::new();
    for (name, fixture) in [
        ("Llama-Q4_K_M.gguf", "llama-q4_k.header.gguf"),
        ("Llama-Q8_0.gguf", "llama-q8_0.header.gguf"),
        (
            "Llama-Q2_K-00001-of-00002.gguf",
            "llama-q4_0-tied.header.gguf",
        ),
        (
            "Llama-Q2_K-00002-of-00002.gguf",
            "llama-q4_0-tied.header.gguf",
        ),
    ] {
        files.insert(
            name.to_string(),
            plain(std::fs::read(dir.join(fixture)).unwrap()),
        );
    }
    files.insert("README.md".to_string(), plain(b"# GGUF".to_vec()));
    Repo {
        files,
        behaviour: Behaviour::Normal,
    }
}

/// The GGUF fixture the split repositories cut in three.
pub const SPLIT_FIXTURE: &str = "llama-q8_0.header.gguf";

/// [`SPLIT_FIXTURE`] as llama.cpp's `gguf-split` would cut it in three: each part's header.
pub fn split_gguf_parts() -> Vec<Vec<u8>> {
    let whole = std::fs::read(fixtures().join("gguf").join(SPLIT_FIXTURE)).unwrap();
    let summary = GgufSummary::of(&read_gguf(&whole).unwrap()).unwrap();
    split_parts(&summary, 3)
}

/// A repository with [`SPLIT_FIXTURE`] split in three (the server holds each part's header and
/// claims the whole part's length) beside a one-file quantization; `missing` parts (1-based)
/// are left out of it, as in an unfinished upload.
fn split_gguf_repo(missing: &[usize]) -> Repo {
    let mut files = HashMap::new();
    for (i, header) in split_gguf_parts().into_iter().enumerate() {
        if missing.contains(&(i + 1)) {
            continue;
        }
        let file = File {
            claimed_len: file_length(&header),
            bytes: header,
        };
        files.insert(format!("Llama-Q8_0-{:05}-of-00003.gguf", i + 1), file);
    }
    let single = std::fs::read(fixtures().join("gguf/llama-q4_k.header.gguf")).unwrap();
    files.insert("Llama-Q4_K_M.gguf".to_string(), plain(single));
    Repo {
        files,
        behaviour: Behaviour::Normal,
    }
}

/// A shard whose header says it is longer than the bytes the server has.
fn truncated_repo() -> Repo {
    let mut repo = safetensors_repo("llama-2-7b-awq", Behaviour::Normal);
    let file = repo.files.get_mut("model.safetensors").unwrap();
    file.bytes.truncate(file.bytes.len() / 2);
    file.claimed_len = file.bytes.len() as u64;
    repo
}

/// Every repository the tests use, by id.
pub fn fixture_repos() -> HashMap<String, Repo> {
    let mut repos = HashMap::new();
    let mut add = |id: &str, repo: Repo| {
        repos.insert(id.to_string(), repo);
    };
    add(
        "meta-llama/Meta-Llama-3-8B",
        safetensors_repo("llama-3-8b", Behaviour::Gated),
    );
    add(
        "meta-llama/Llama-2-7b-hf",
        safetensors_repo("llama-2-7b", Behaviour::Normal),
    );
    add(
        "mistralai/Mixtral-8x7B-v0.1",
        safetensors_repo("mixtral-8x7b", Behaviour::Normal),
    );
    add(
        "TheBloke/Llama-2-7B-GPTQ",
        safetensors_repo("llama-2-7b-gptq", Behaviour::Redirects),
    );
    add(
        "TheBloke/Llama-2-7B-AWQ",
        safetensors_repo("llama-2-7b-awq", Behaviour::Normal),
    );
    add(
        "neuralmagic/Meta-Llama-3-8B-Instruct-FP8",
        safetensors_repo("llama-3-8b-fp8", Behaviour::Normal),
    );
    add(
        "unsloth/llama-3-8b-bnb-4bit",
        safetensors_repo("llama-3-8b-bnb-4bit", Behaviour::Normal),
    );
    add("test/Llama-GGUF", gguf_repo());
    add("test/Split-GGUF", split_gguf_repo(&[]));
    add("test/Split-missing-GGUF", split_gguf_repo(&[2]));
    add("test/truncated", truncated_repo());
    add("test/slow", safetensors_repo("llama-2-7b", Behaviour::Slow));
    add(
        "test/busy",
        safetensors_repo("llama-2-7b", Behaviour::RateLimited),
    );
    repos
}
