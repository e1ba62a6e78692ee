//! Op offload at partial offload: a CUDA GPU runs a micro-batch's ops on host weights, one weight
//! copy at a time; properties of the plan on the GGUF fixtures (llama.cpp's CI log of Pythia 2.8B
//! at -ngl 10 is checked in the engine's tests/engine/llamacpp_offload.rs).

use std::path::Path;

use super::offload::OFFLOAD_MIN_BATCH;
use crate::gguf::is_expert;
use crate::{
    llamacpp::plan_llama, llamacpp::read_gguf, llamacpp::Backend, llamacpp::GgufHeader,
    llamacpp::LlamaDevice, llamacpp::LlamaPlan, llamacpp::LlamaSettings, local::local_header, Job,
    ModelChoice, Scenario, WeightFormat,
};

fn header(name: &str) -> GgufHeader {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gguf");
    read_gguf(&std::fs::read(dir.join(format!("{name}.header.gguf"))).unwrap()).unwrap()
}

fn settings(ngl: u64) -> LlamaSettings {
    LlamaSettings {
        gpu_layers: Some(ngl),
        context: Some(4096),
        flash_attn: false,
        ..LlamaSettings::default()
    }
}

fn plan(s: &LlamaSettings, backend: Backend) -> LlamaPlan {
    plan_llama(&header("llama-q4_k"), s, backend).unwrap()
}

fn gpu_compute(p: &LlamaPlan) -> u64 {
    p.device(LlamaDevice::Gpu(0)).unwrap().compute
}

#[test]
fn with_the_output_on_the_host_the_gpu_reserves_its_weights_copy_beside_the_logits() {
    let h = header("llama-q4_k");
    let p = plan(&settings(0), Backend::Cuda);
    let output = h.output().expect("the fixture has an output tensor");
    let logits = p.sizes.n_ubatch * p.shape.n_vocab * 4;
    assert!(gpu_compute(&p) >= Backend::Cuda.tensor_bytes(output) + logits);
}

#[test]
fn without_op_offload_a_gpu_that_holds_no_layer_reserves_nothing() {
    let off = LlamaSettings {
        op_offload: false,
        ..settings(0)
    };
    assert_eq!(gpu_compute(&plan(&off, Backend::Cuda)), 0);
    assert!(gpu_compute(&plan(&settings(0), Backend::Cuda)) > 0);
}

#[test]
fn a_micro_batch_under_32_tokens_is_not_offloaded() {
    let small = LlamaSettings {
        ubatch: OFFLOAD_MIN_BATCH - 1,
        ..settings(0)
    };
    let at_min = LlamaSettings {
        ubatch: OFFLOAD_MIN_BATCH,
        ..settings(0)
    };
    assert_eq!(gpu_compute(&plan(&small, Backend::Cuda)), 0);
    assert!(gpu_compute(&plan(&at_min, Backend::Cuda)) > 0);
}

#[test]
fn the_gpu_compute_buffer_does_not_grow_with_the_number_of_host_layers() {
    // the copies are alive one op at a time: one host layer costs the GPU what many do
    let n_layer = plan(&settings(0), Backend::Cuda).shape.n_layer;
    let one_host_layer = gpu_compute(&plan(&settings(n_layer), Backend::Cuda));
    let all_but_one = gpu_compute(&plan(&settings(2), Backend::Cuda));
    assert_eq!(one_host_layer, all_but_one);
    let full = gpu_compute(&plan(&settings(n_layer + 1), Backend::Cuda));
    assert!(one_host_layer > full, "{one_host_layer} vs {full}");
}

#[test]
fn op_offload_takes_the_micro_batch_off_the_host_at_partial_offload() {
    let on = plan(&settings(4), Backend::Cuda);
    let off = plan(
        &LlamaSettings {
            op_offload: false,
            ..settings(4)
        },
        Backend::Cuda,
    );
    assert!(on.host().compute < off.host().compute);
    assert_eq!(off.host().compute, off.compute.total());
}

#[test]
fn metal_does_not_copy_host_weights() {
    let on = plan(&settings(4), Backend::Metal);
    let off = plan(
        &LlamaSettings {
            op_offload: false,
            ..settings(4)
        },
        Backend::Metal,
    );
    assert_eq!(on.devices, off.devices);
}

#[test]
fn the_launch_line_says_no_op_offload_when_it_is_off() {
    let off = LlamaSettings {
        op_offload: false,
        ..settings(4)
    };
    let has = |s: &LlamaSettings| {
        crate::llamacpp::launch_commands(s, 32)
            .llama_server
            .iter()
            .any(|(flag, _)| *flag == "--no-op-offload")
    };
    assert!(has(&off));
    assert!(!has(&settings(4)));
}

#[test]
fn with_every_layer_on_the_gpu_and_experts_in_ram_the_gpu_copies_an_expert_tensor_and_the_host_keeps_the_inputs(
) {
    // Mixtral 8x7B in Q4_K_M: each layer's experts are 8 × 4096 × 14336 weights per matrix
    let s = Scenario {
        job: Job::Local,
        model: ModelChoice::Preset("mixtral-8x7b"),
        weights: WeightFormat::GgufQ4KM,
        ..Scenario::default()
    };
    let h = local_header(&s).unwrap();
    let at = |cpu_moe_layers: u64, op_offload: bool| {
        let s = LlamaSettings {
            cpu_moe_layers,
            op_offload,
            ..settings(999)
        };
        plan_llama(&h, &s, Backend::Cuda).unwrap()
    };
    let (on, off, all_on_gpu) = (at(4, true), at(4, false), at(0, true));
    assert_eq!(on.host().compute, all_on_gpu.host().compute);
    let largest_expert = h
        .tensors()
        .iter()
        .filter(|t| is_expert(t.name()))
        .map(|t| Backend::Cuda.tensor_bytes(t))
        .max()
        .unwrap();
    assert!(gpu_compute(&off) < largest_expert);
    assert!(gpu_compute(&on) > largest_expert);
}
