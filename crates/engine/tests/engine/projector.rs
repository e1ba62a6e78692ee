//! A multimodal projector (`--mmproj`) beside a llama.cpp model: its header read into exact
//! weight bytes and the warmup it reserves for, placed on the first GPU whatever -ngl says (or
//! the host without offload), counted by the solver, carried by a link, and its compute-buffer
//! estimate set against the buffers llama.cpp printed (docs/multimodal.md).

use std::path::Path;

use vram_engine::{
    link::PageSettings, llamacpp::max_gpu_layers, llamacpp::plan_llama, llamacpp::read_gguf,
    llamacpp::Backend, llamacpp::GgufHeader, llamacpp::LlamaDevice, llamacpp::LlamaSettings,
    llamacpp::Machine, llamacpp::Projector, llamacpp::ProjectorError, llamacpp::ProjectorFile,
    llamacpp::DEFAULT_HOST_BANDWIDTH, Gpu, Job, Scenario, MIB,
};
use vram_test_support::projector::{draft, tensor_bytes, Tower, GEMMA3, QWEN25VL};

fn model() -> GgufHeader {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gguf/llama-q4_k.header.gguf");
    read_gguf(&std::fs::read(path).unwrap()).unwrap()
}

fn projector(tower: &Tower) -> Projector {
    Projector::of(&read_gguf(&draft(tower).bytes()).unwrap()).unwrap()
}

fn with(projector: Option<Projector>, ngl: u64, gpus: usize) -> LlamaSettings {
    LlamaSettings {
        gpu_layers: Some(ngl),
        context: Some(4096),
        tensor_split: vec![1.0; gpus],
        projector,
        ..LlamaSettings::default()
    }
}

#[test]
fn a_projector_header_gives_its_tensor_bytes_and_the_patches_of_its_warmup_image() {
    let gemma = projector(&GEMMA3);
    assert_eq!(gemma.weight_bytes, tensor_bytes(&GEMMA3));
    // clip.vision.image_size 896 over 14-pixel patches
    assert_eq!(gemma.patches, 64 * 64);
    assert_eq!(
        (gemma.heads, gemma.n_ff, gemma.window_mask),
        (16, 4304, false)
    );
    // the Qwen2-VL family warms up on 46 × 46 merged tokens, whatever its image_size
    let qwen = projector(&QWEN25VL);
    assert_eq!(qwen.patches, 92 * 92);
    assert!(qwen.window_mask);
}

#[test]
fn a_language_model_or_a_projector_without_its_vision_keys_is_refused() {
    assert_eq!(
        Projector::of(&model()),
        Err(ProjectorError::NotAVisionProjector)
    );
    let mut d = draft(&GEMMA3);
    d.metadata
        .retain(|(k, _)| k != "clip.vision.attention.head_count");
    assert_eq!(
        Projector::of(&read_gguf(&d.bytes()).unwrap()),
        Err(ProjectorError::Unreadable)
    );
}

#[test]
fn the_projector_joins_the_first_gpu_whatever_ngl_and_the_split_say() {
    let p = projector(&GEMMA3);
    for ngl in [0, 3, 999] {
        let plain = plan_llama(&model(), &with(None, ngl, 2), Backend::Cuda).unwrap();
        let plan = plan_llama(&model(), &with(Some(p), ngl, 2), Backend::Cuda).unwrap();
        let gpu0 = plan.device(LlamaDevice::Gpu(0)).unwrap();
        assert_eq!(gpu0.projector, p.weight_bytes, "-ngl {ngl}");
        assert_eq!(gpu0.projector_compute, p.compute_bytes(true));
        assert_eq!(
            gpu0.total(),
            plain.device(LlamaDevice::Gpu(0)).unwrap().total()
                + p.weight_bytes
                + p.compute_bytes(true)
        );
        for d in [LlamaDevice::Host, LlamaDevice::Gpu(1)] {
            assert_eq!(plan.device(d), plain.device(d), "-ngl {ngl}: {d:?}");
        }
    }
}

#[test]
fn without_offload_or_without_a_gpu_the_projector_stays_in_host_memory() {
    let p = projector(&GEMMA3);
    let off = LlamaSettings {
        projector_offload: false,
        ..with(Some(p), 999, 1)
    };
    for (settings, backend) in [
        (off, Backend::Cuda),
        (with(Some(p), 999, 1), Backend::CpuOnly),
    ] {
        let plan = plan_llama(&model(), &settings, backend).unwrap();
        assert_eq!(plan.host().projector, p.weight_bytes, "{backend:?}");
        let gpus = plan.devices.iter().filter(|(d, _)| *d != LlamaDevice::Host);
        assert!(gpus.into_iter().all(|(_, b)| b.projector == 0));
    }
}

#[test]
fn flash_attention_takes_the_vision_scores_out_of_the_compute_buffer() {
    let p = projector(&GEMMA3);
    let (n, e) = (p.patches, p.embd);
    // without: the attention phase, scores beside six positions × width tensors, is the peak
    assert_eq!(p.compute_bytes(false), 4 * n * n * p.heads + 24 * n * e);
    // with: the feed-forward phase, its up projection beside three of them
    assert_eq!(p.compute_bytes(true), 4 * n * (p.n_ff + 3 * e));
    let qwen = projector(&QWEN25VL);
    // Qwen2.5-VL's f32 window mask over all patches stays with flash attention
    let (n, e) = (qwen.patches, qwen.embd);
    assert_eq!(
        qwen.compute_bytes(true),
        (24 * n * e).max(4 * n * (qwen.n_ff + 3 * e)) + 4 * n * n
    );
}

#[test]
fn the_solver_leaves_room_for_the_projector() {
    let machine = Machine::Gpus {
        gpu: Gpu::Rtx3090,
        last: Gpu::Rtx3090,
        count: 1,
        held: 0,
        ram: None,
        host_bandwidth: DEFAULT_HOST_BANDWIDTH,
    };
    // a projector that leaves room for half of the model on the card leaves fewer layers
    let all = plan_llama(&model(), &with(None, 999, 1), Backend::Cuda).unwrap();
    let limit = machine.fit(&all)[1].limit.unwrap();
    let base = projector(&GEMMA3);
    let big = Projector {
        weight_bytes: limit - all.gpu_total() / 2 - base.compute_bytes(true),
        ..base
    };
    let without = max_gpu_layers(&model(), &with(None, 999, 1), &machine).unwrap();
    let beside = max_gpu_layers(&model(), &with(Some(big), 999, 1), &machine).unwrap();
    assert!(beside < without, "{beside:?} against {without:?}");
}

#[test]
fn a_link_carries_the_projector_and_its_offload_and_a_broken_one_is_said() {
    let s = Scenario {
        job: Job::Local,
        mmproj: Some(Box::new(ProjectorFile {
            name: "mmproj-gemma-3-4b-f16.gguf".into(),
            projector: projector(&GEMMA3),
        })),
        mmproj_offload: false,
        ..Scenario::default()
    };
    let link = vram_engine::link::encode(&s, &PageSettings::default());
    assert!(link.contains("mpo=0"), "{link}");
    let back = vram_engine::link::decode(&link);
    assert!(back.notices.is_empty(), "{:?}", back.notices);
    assert_eq!(back.scenario, s);
    let broken = vram_engine::link::decode(&link.replace("mp=", "mp=x"));
    assert!(broken.scenario.mmproj.is_none());
    assert_eq!(broken.notices.len(), 1, "{:?}", broken.notices);
}

/// Buffers llama.cpp printed for a projector's warmup, with the tower's shape as its log, its
/// header or its config.json gives it: (what, patches, heads, n_ff, width, window mask, flash
/// attention, MiB printed).
type Printed = (&'static str, u64, u64, u64, u64, bool, bool, f64);

/// ggml-org/llama.cpp PR #16837 ("clip : use FA"), Gemma 3 12B's SigLIP tower on Metal, before
/// and after the PR.
const GEMMA3_PR_16837: [Printed; 2] = [
    (
        "gemma3, PR #16837",
        4096,
        16,
        4304,
        1152,
        false,
        false,
        1132.00,
    ),
    (
        "gemma3, PR #16837",
        4096,
        16,
        4304,
        1152,
        false,
        true,
        121.25,
    ),
];

/// gpustack/gguf-parser-go#44: a third party's table of llama.cpp's printed buffers at -fa off /
/// on (MI300X), Qwen's towers warmed up on 92 × 92 patches.
const GGUF_PARSER_44: [Printed; 6] = [
    ("qwen2.5-vl", 8464, 16, 3420, 1280, true, false, 4872.0),
    ("qwen2.5-vl", 8464, 16, 3420, 1280, true, true, 705.0),
    ("qwen2-vl", 8464, 16, 5120, 1280, false, false, 4598.0),
    ("qwen2-vl", 8464, 16, 5120, 1280, false, true, 267.0),
    ("qwen3-vl", 8464, 16, 4304, 1152, false, false, 4728.0),
    ("qwen3-vl", 8464, 16, 4304, 1152, false, true, 323.0),
];

fn estimate_mib(row: &Printed) -> f64 {
    let &(_, patches, heads, n_ff, embd, window_mask, fa, _) = row;
    let p = Projector {
        weight_bytes: 0,
        patches,
        heads,
        n_ff,
        embd,
        window_mask,
    };
    p.compute_bytes(fa) as f64 / MIB as f64
}

#[test]
fn gemma_3s_published_buffers_are_matched_to_the_printed_hundredth() {
    for row in GEMMA3_PR_16837 {
        assert_eq!(
            format!("{:.2}", estimate_mib(&row)),
            format!("{:.2}", row.7),
            "{row:?}"
        );
    }
}

#[test]
fn qwens_buffers_are_within_5_percent_without_flash_attention_and_30_with_it() {
    for row in GGUF_PARSER_44 {
        let error = (estimate_mib(&row) - row.7) / row.7;
        // with flash attention what the allocator keeps beside the feed-forward activations
        // differs between towers (Qwen3-VL's deepstack, Qwen2.5-VL's windows)
        let bound = if row.6 { 0.30 } else { 0.05 };
        assert!(error.abs() <= bound, "{row:?}: {:+.1} %", error * 100.0);
    }
}

/// `tools/llamacpp/mmproj_results.json`: llama.cpp's own figures for the generated projectors.
fn measured() -> serde_json::Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/llamacpp/mmproj_results.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn measured_projector(name: &str) -> Projector {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/fixtures/mmproj/mmproj-{name}.header.gguf"));
    Projector::of(&read_gguf(&std::fs::read(path).unwrap()).unwrap()).unwrap()
}

#[test]
fn a_projectors_weights_are_the_bytes_llama_cpp_counts_in_its_model_size() {
    let results = measured();
    let projectors = results["projectors"].as_array().unwrap();
    assert!(projectors.len() >= 4);
    for p in projectors {
        let name = p["name"].as_str().unwrap();
        let ours = measured_projector(name);
        // clip.cpp printed every tensor's ggml_nbytes; their sum is the file's tensor bytes
        assert_eq!(
            Some(ours.weight_bytes),
            p["printed_tensor_bytes"].as_u64(),
            "{name}"
        );
        let mib = format!("{:.2}", ours.weight_bytes as f64 / MIB as f64);
        assert_eq!(mib, p["model_size_mib_printed"].as_str().unwrap(), "{name}");
    }
}

#[test]
fn the_compute_buffer_llama_cpp_reserved_at_warmup_is_matched_on_the_cpu() {
    let results = measured();
    let runs = results["runs"].as_array().unwrap();
    assert!(runs.len() >= 8);
    for run in runs {
        let name = run["projector"].as_str().unwrap();
        let fa = run["flash_attention"] == "enabled";
        let printed: f64 = run["compute_buffers_mib"][0]["mib"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let ours = measured_projector(name).compute_bytes(fa) as f64 / MIB as f64;
        if name.starts_with("gemma3") {
            // SigLIP's graph: both phases exact to the printed hundredth
            assert_eq!(
                format!("{ours:.2}"),
                format!("{printed:.2}"),
                "{name} fa {fa}"
            );
        } else {
            // LLaVA's CLIP tower (class token, pre-norm): within 10 %
            let error = (ours - printed) / printed;
            assert!(
                error.abs() <= 0.10,
                "{name} fa {fa}: {ours:.2} against {printed}"
            );
        }
    }
}
