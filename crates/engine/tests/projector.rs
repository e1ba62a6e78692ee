//! A multimodal projector (`--mmproj`) beside a llama.cpp model: its header read into exact
//! weight bytes and the warmup it reserves for, placed on the first GPU whatever -ngl says (or
//! the host without offload), counted by the solver, carried by a link, and its compute-buffer
//! estimate set against the buffers llama.cpp printed (docs/multimodal.md).

#[path = "common/projector.rs"]
mod projector_files;

use std::path::Path;

use projector_files::{draft, tensor_bytes, Tower, GEMMA3, QWEN25VL};
use vram_engine::{
    decode_link, encode_link, max_gpu_layers, plan_llama, read_gguf, Backend, GgufHeader, Gpu, Job,
    LlamaDevice, LlamaSettings, Machine, PageSettings, Projector, ProjectorError, ProjectorFile,
    Scenario, DEFAULT_HOST_BANDWIDTH, MIB,
};

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
    let scores = 4 * p.patches * p.patches * p.heads;
    assert_eq!(p.compute_bytes(false) - p.compute_bytes(true), scores);
    let qwen = projector(&QWEN25VL);
    // Qwen2.5-VL's f32 window mask over all patches stays with flash attention
    assert_eq!(
        qwen.compute_bytes(true),
        4 * qwen.patches * qwen.patches + 8 * qwen.patches * qwen.n_ff
    );
}

#[test]
fn the_solver_leaves_room_for_the_projector() {
    let machine = Machine::Gpus {
        gpu: Gpu::Rtx3090,
        count: 1,
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
    let link = encode_link(&s, &PageSettings::default());
    assert!(link.contains("mpo=0"), "{link}");
    let back = decode_link(&link);
    assert!(back.notices.is_empty(), "{:?}", back.notices);
    assert_eq!(back.scenario, s);
    let broken = decode_link(&link.replace("mp=", "mp=x"));
    assert!(broken.scenario.mmproj.is_none());
    assert_eq!(broken.notices.len(), 1, "{:?}", broken.notices);
}

/// Buffers llama.cpp printed for a projector's warmup, with the tower's shape as its log or its
/// model card gives it: (what, patches, heads, n_ff, window mask, flash attention, MiB printed).
const PRINTED: [(&str, u64, u64, u64, bool, bool, f64); 8] = [
    // ggml-org/llama.cpp PR #16837 ("clip : use FA"), Gemma 3 12B on Metal, before and after
    ("gemma3, PR #16837", 4096, 16, 4304, false, false, 1132.00),
    ("gemma3, PR #16837", 4096, 16, 4304, false, true, 121.25),
    // gpustack/gguf-parser-go#44: llama.cpp's printed buffers at -fa off / on (MI300X)
    (
        "qwen2.5-vl, gguf-parser #44",
        8464,
        16,
        3420,
        true,
        false,
        4872.0,
    ),
    (
        "qwen2.5-vl, gguf-parser #44",
        8464,
        16,
        3420,
        true,
        true,
        705.0,
    ),
    (
        "qwen2-vl, gguf-parser #44",
        8464,
        16,
        5120,
        false,
        false,
        4598.0,
    ),
    (
        "qwen2-vl, gguf-parser #44",
        8464,
        16,
        5120,
        false,
        true,
        267.0,
    ),
    (
        "qwen3-vl, gguf-parser #44",
        8464,
        16,
        4304,
        false,
        false,
        4728.0,
    ),
    (
        "qwen3-vl, gguf-parser #44",
        8464,
        16,
        4304,
        false,
        true,
        323.0,
    ),
];

#[test]
fn the_compute_estimate_lands_near_the_buffers_llama_cpp_printed() {
    for (what, patches, heads, n_ff, window_mask, fa, printed) in PRINTED {
        let p = Projector {
            weight_bytes: 0,
            patches,
            heads,
            n_ff,
            window_mask,
        };
        let mib = p.compute_bytes(fa) as f64 / MIB as f64;
        let error = (mib - printed) / printed;
        // the attention scores dominate without flash attention; with it, what is left is the
        // activations the graph allocator keeps alive, which the estimate reads less exactly
        let bound = if fa { 0.30 } else { 0.05 };
        assert!(
            error.abs() <= bound,
            "{what}, fa {fa}: {mib:.1} MiB against {printed} ({:+.1} %)",
            error * 100.0
        );
    }
}
