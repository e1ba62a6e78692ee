//! The GGUF reader against llama.cpp's own figures for the same files (tools/llamacpp/results.json,
//! written by tools/llamacpp/measure_llamacpp.py; no network or Python needed here).
//!
//! What llama.cpp puts where (src/llama-model.cpp, src/llama-model-loader.cpp at the commit in
//! results.json): `llama_model_size` is ggml_nbytes summed over every tensor in the file. With
//! n_gpu_layers = 0, no mmap and no extra (repacking) buffer types, every tensor — token_embd,
//! which llama.cpp always keeps in host memory, included — lands in one "CPU" buffer, each padded
//! to the CPU buffer's 32-byte alignment (ggml-alloc.c). A tied output (no output.weight) is the
//! token_embd tensor itself when both sit in the same buffer type, so it is not counted twice;
//! offloading the output to a GPU would copy it (TENSOR_DUPLICATED).

use std::path::{Path, PathBuf};

use super::{read_gguf, GgmlType, GgufHeader, LayerCounts};
use serde_json::Value;

const CPU_TENSOR_ALIGNMENT: u64 = 32;
const MIB: f64 = 1024.0 * 1024.0;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn results() -> Value {
    let text = std::fs::read_to_string(root().join("tools/llamacpp/results.json"))
        .expect("tools/llamacpp/results.json (make llamacpp writes it)");
    serde_json::from_str(&text).expect("results.json is JSON")
}

fn header_of(model: &Value) -> GgufHeader {
    let path = root().join(model["fixture"].as_str().unwrap());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_gguf(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"))
}

/// MiB the way llama.cpp prints them ("%.2f").
fn mib(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / MIB)
}

#[test]
fn the_reader_sums_tensor_bytes_to_exactly_llama_cpps_model_size() {
    let results = results();
    for model in results["models"].as_array().unwrap() {
        let header = header_of(model);
        let name = model["name"].as_str().unwrap();
        assert_eq!(
            header.tensor_bytes(),
            u64_of(&model["llama_model_size"]),
            "{name}"
        );
        let elements: u64 = header.tensors().iter().map(|t| t.elements()).sum();
        assert_eq!(elements, u64_of(&model["llama_model_n_params"]), "{name}");
        assert_eq!(
            header.data_offset(),
            u64_of(&model["data_offset"]),
            "{name}"
        );
        let file_size = header.data_offset() + header.data_bytes();
        assert_eq!(file_size, u64_of(&model["file_size"]), "{name}");
    }
}

#[test]
fn the_cpu_model_buffer_is_every_tensor_padded_to_32_bytes() {
    let results = results();
    for model in results["models"].as_array().unwrap() {
        let header = header_of(model);
        let name = model["name"].as_str().unwrap();
        let buffers = model["load"]["model_buffers_mib"].as_object().unwrap();
        assert_eq!(buffers.keys().collect::<Vec<_>>(), ["CPU"], "{name}");
        let padded: u64 = header
            .tensors()
            .iter()
            .map(|t| t.bytes().next_multiple_of(CPU_TENSOR_ALIGNMENT))
            .sum();
        assert_eq!(mib(padded), buffers["CPU"].as_str().unwrap(), "{name}");
    }
}

#[test]
fn the_reader_finds_the_shape_the_script_wrote() {
    let results = results();
    for model in results["models"].as_array().unwrap() {
        let hp = header_of(model).hyperparameters();
        let name = model["name"].as_str().unwrap();
        let spec = |key: &str| u64_of(&model[key]);
        let optional = |key: &str| Some(spec(key)).filter(|&v| v > 0);
        assert_eq!(hp.embedding_length, Some(spec("n_embd")), "{name}");
        assert_eq!(hp.block_count, Some(spec("n_layer")), "{name}");
        assert_eq!(
            hp.head_count,
            Some(LayerCounts::Same(spec("n_head"))),
            "{name}"
        );
        assert_eq!(
            hp.head_count_kv,
            Some(LayerCounts::Same(spec("n_head_kv"))),
            "{name}"
        );
        assert_eq!(
            hp.feed_forward_length,
            Some(LayerCounts::Same(spec("n_ff"))),
            "{name}"
        );
        assert_eq!(hp.vocab_size, Some(spec("n_vocab")), "{name}");
        assert_eq!(hp.sliding_window, optional("sliding_window"), "{name}");
        assert_eq!(hp.expert_count, optional("n_expert"), "{name}");
        assert_eq!(hp.expert_used_count, optional("n_expert_used"), "{name}");
    }
}

fn cache_type(name: &str) -> GgmlType {
    GgmlType::ALL
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("cache type {name}"))
}

/// Each KV cache llama.cpp prints holds, per layer and stream, cells × (KV heads × head size)
/// values of its type, for K and for V; the reader's type table gives the same MiB in every run.
#[test]
fn every_kv_cache_llama_cpp_printed_is_cells_times_layers_times_kv_width() {
    let results = results();
    let models = results["models"].as_array().unwrap();
    let mut checked = 0;
    for run in results["runs"].as_array().unwrap() {
        let Some(caches) = run["kv_caches"].as_array() else {
            continue; // llama.cpp refused these settings
        };
        let model = models.iter().find(|m| m["name"] == run["model"]);
        let header = header_of(model.unwrap());
        let hp = header.hyperparameters();
        let width = hp.head_count_kv.unwrap().max() * hp.key_length.unwrap();
        for cache in caches {
            // without a unified cache each sequence has a stream of its own
            let streams = u64_of(&cache["streams"]);
            let rows = u64_of(&cache["cells_per_stream"]) * u64_of(&cache["layers"]) * streams;
            let k = cache_type(cache["type_k"].as_str().unwrap())
                .bytes_for(width)
                .unwrap()
                * rows;
            let v = cache_type(cache["type_v"].as_str().unwrap())
                .bytes_for(width)
                .unwrap()
                * rows;
            assert_eq!(mib(k), cache["k_mib"].as_str().unwrap(), "{run}");
            assert_eq!(mib(v), cache["v_mib"].as_str().unwrap(), "{run}");
            assert_eq!(mib(k + v), cache["mib"].as_str().unwrap(), "{run}");
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} KV caches in results.json");
}
