//! The engine's llama.cpp plan against public CUDA and Metal load logs
//! (`validation/llamacpp.jsonl`; docs/accuracy.md tables them): the KV buffers and, where the file
//! type fixes every tensor's type, the model buffers to the printed 0.01 MiB; the compute buffers
//! within 10 % on the GPU and 1 % on the host.

use vram_test_support::cases;

use cases::llamacpp::{load, LlamaCase, LlamaRow, FILE};
use vram_engine::{llamacpp::LlamaDevice, llamacpp::Mac, llamacpp::Machine, measured::Level, GIB};

/// How many logs the repository's set holds: a removed or truncated file changes it.
const IN_REPO_LOGS: usize = 11;

fn in_repo() -> Vec<LlamaCase> {
    let dir = cases::in_repo_validation_dir();
    let cases = load(&dir).unwrap_or_else(|e| panic!("validation/{FILE}: {e}"));
    assert!(!cases.is_empty(), "validation/{FILE} holds no case");
    cases
}

fn all_rows() -> Vec<LlamaRow> {
    in_repo()
        .iter()
        .flat_map(|c| c.rows().unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// The rows of one buffer whose case states no known cause for a difference.
fn rows(level: Level) -> Vec<LlamaRow> {
    all_rows()
        .into_iter()
        .filter(|r| r.level == level && r.known.is_none())
        .collect()
}

#[test]
fn the_in_repo_set_holds_every_public_log_once_with_its_source() {
    let cases = in_repo();
    assert_eq!(
        cases.len(),
        IN_REPO_LOGS,
        "validation/{FILE} holds {} logs (adding one? update IN_REPO_LOGS and validation/README.md)",
        cases.len()
    );
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), cases.len(), "an id repeats");
    for c in &cases {
        assert!(
            c.url.starts_with("https://github.com/"),
            "{}: {}",
            c.id,
            c.url
        );
    }
}

#[test]
fn every_log_gives_a_kv_buffer_on_a_gpu_and_most_a_compute_buffer() {
    let cases = in_repo();
    let mut with_compute = 0;
    for c in &cases {
        let rows = c.rows().unwrap_or_else(|e| panic!("{e}"));
        let on_gpu = |level| {
            rows.iter()
                .any(|r| r.level == level && r.device != LlamaDevice::Host)
        };
        assert!(on_gpu(Level::LlamaKv), "{}: no KV buffer on a GPU", c.id);
        with_compute += usize::from(on_gpu(Level::LlamaCompute));
    }
    assert!(
        with_compute + 1 >= cases.len(),
        "{with_compute} with a compute buffer"
    );
}

#[test]
fn the_rebuilt_tensor_types_are_the_ones_the_log_counts() {
    let mut checked = 0;
    for c in in_repo().into_iter().filter(|c| c.types.is_some()) {
        let printed = c
            .type_counts
            .clone()
            .unwrap_or_else(|| panic!("{} names types but not the log's counts", c.id));
        assert_eq!(c.rebuilt_type_counts().unwrap(), printed, "{}", c.id);
        checked += 1;
    }
    assert!(checked >= 2, "{checked} cases with known types");
}

#[test]
fn kv_buffers_equal_the_printed_sizes() {
    let rows = rows(Level::LlamaKv);
    // every log but the two whose KV rows differ by an older rule (-c 128 padding, -ngl 10)
    assert!(rows.len() + 2 >= IN_REPO_LOGS, "{} KV rows", rows.len());
    for r in rows {
        assert!(r.exact(), "{r:?}");
    }
}

#[test]
fn model_buffers_of_known_types_equal_the_printed_sizes_on_the_gpu_and_the_host() {
    let rows = rows(Level::LlamaModel);
    assert!(rows.iter().any(|r| r.device == LlamaDevice::Host));
    assert!(rows.iter().any(|r| r.device != LlamaDevice::Host));
    for r in rows {
        assert!(r.exact(), "{r:?}");
    }
}

#[test]
fn gpu_compute_buffers_stay_within_10_percent_and_host_ones_within_1_percent() {
    for r in rows(Level::LlamaCompute) {
        let bound = if r.device == LlamaDevice::Host {
            1.0
        } else {
            10.0
        };
        assert!(
            r.error_pct().abs() <= bound,
            "{} {:?}: engine {} vs printed {} ({:+.1} %)",
            r.id,
            r.device,
            r.engine,
            r.printed,
            r.error_pct()
        );
    }
}

/// A difference a case explains (an older llama.cpp's padding) must still show, so the
/// explanation cannot outlive it.
#[test]
fn every_stated_difference_is_a_real_one() {
    let known: Vec<LlamaRow> = all_rows()
        .into_iter()
        .filter(|r| r.known.is_some())
        .collect();
    assert!(!known.is_empty());
    for r in known {
        assert!(
            r.error_pct().abs() > 1.0,
            "{r:?} matches: drop its `differs`"
        );
    }
}

/// On a Mac with mmap the Metal buffer wraps the file span of its tensors: in a file
/// llama-quantize wrote, token_embd lies inside it, so Metal_Mapped counts the host's 55.27 MiB
/// too, while the f16 file that starts with token_embd keeps it out.
#[test]
fn a_metal_buffer_over_the_mapped_file_spans_the_hosts_token_embeddings_in_a_quantized_file() {
    let model = rows(Level::LlamaModel);
    let metal = |id: &str| {
        model
            .iter()
            .find(|r| r.id == id && r.device == LlamaDevice::Gpu(0))
            .unwrap_or_else(|| panic!("{id}"))
            .clone()
    };
    let q4 = metal("LC-METAL-PYTHIA14-Q4_0");
    let f16 = metal("LC-METAL-PYTHIA14-F16");
    assert!(q4.exact() && f16.exact(), "{q4:?} {f16:?}");
    let token_embd_q4_0 = 2048 * 50_304 / 32 * 18;
    let plan = in_repo()
        .into_iter()
        .find(|c| c.id == "LC-METAL-PYTHIA14-Q4_0")
        .unwrap()
        .plan()
        .unwrap();
    assert_eq!(
        plan.device(LlamaDevice::Gpu(0)).unwrap().shared,
        token_embd_q4_0
    );
    assert_eq!(plan.host().model, token_embd_q4_0);
}

/// With layers left on the host the span would also cover them; no public log shows how Metal then
/// counts them, so the plan keeps each buffer the sum of its own tensors.
#[test]
fn a_metal_plan_with_host_layers_keeps_each_buffer_its_own_tensors() {
    let mut case = in_repo()
        .into_iter()
        .find(|c| c.id == "LC-METAL-PYTHIA14-Q4_0")
        .unwrap();
    let full = case.plan().unwrap();
    case.settings.gpu_layers = Some(10);
    let partial = case.plan().unwrap();
    let metal =
        |p: &vram_engine::llamacpp::LlamaPlan| p.device(LlamaDevice::Gpu(0)).unwrap().clone();
    assert!(metal(&full).shared > 0);
    assert_eq!(metal(&partial).shared, 0);
    assert!(metal(&partial).model < metal(&full).model - metal(&full).shared);
}

/// The token embeddings the Metal span covers are the host's pages: a Mac's host side is not
/// charged for them twice.
#[test]
fn a_macs_memory_counts_the_pages_a_metal_span_shares_with_the_host_once() {
    let plan = in_repo()
        .into_iter()
        .find(|c| c.id == "LC-METAL-PYTHIA14-Q4_0")
        .unwrap()
        .plan()
        .unwrap();
    let mac = Mac::find("M4-16").expect("the 16 GB M4 of the log");
    let fit = Machine::Mac(mac).fit(&plan);
    let gpu = plan.device(LlamaDevice::Gpu(0)).unwrap();
    let host_limit = fit
        .iter()
        .find(|f| f.device == LlamaDevice::Host)
        .and_then(|f| f.limit)
        .unwrap();
    assert!(gpu.shared > 0);
    assert_eq!(
        host_limit,
        mac.memory_gib * GIB - (gpu.total() - gpu.shared)
    );
    assert_eq!(plan.total(), plan.host().total() + gpu.total() - gpu.shared);
}

/// With a 152k vocabulary and 512 cells the output layer's logits, not attention, fill the GPU's
/// compute buffer: 512 × (152,064 + 3,584) × 4 B = 304.00 MiB, as printed.
#[test]
fn a_large_vocabulary_makes_the_logits_the_gpu_compute_peak() {
    let row = rows(Level::LlamaCompute)
        .into_iter()
        .find(|r| r.id == "LC-CUDA-QWEN25C-7B" && r.device == LlamaDevice::Gpu(0))
        .expect("the Qwen2.5-Coder-7B case");
    assert_eq!(row.engine, 512 * (152_064 + 3_584) * 4);
    assert!(row.exact(), "{row:?}");
}

#[test]
fn the_validation_readme_lists_every_llama_cpp_log() {
    let dir = cases::in_repo_validation_dir();
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("validation/README.md");
    for c in in_repo() {
        assert!(
            readme.contains(&format!("| {} |", c.id)),
            "validation/README.md does not list {}",
            c.id
        );
    }
}
