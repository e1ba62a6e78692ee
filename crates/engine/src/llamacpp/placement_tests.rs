//! Where llama.cpp puts layers and buffers as -ngl, --tensor-split and --n-cpu-moe change:
//! properties of the plan on the GGUF fixtures.

use std::path::Path;

use crate::gguf::is_expert;
use crate::{
    llamacpp::plan_llama, llamacpp::read_gguf, llamacpp::Backend, llamacpp::GgufHeader,
    llamacpp::LlamaDevice, llamacpp::LlamaPlan, llamacpp::LlamaSettings,
};

fn header(name: &str) -> GgufHeader {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gguf");
    let file = if name == "tiny-llama-f16" {
        format!("{name}.gguf")
    } else {
        format!("{name}.header.gguf")
    };
    read_gguf(&std::fs::read(dir.join(file)).unwrap()).unwrap()
}

fn plan(name: &str, settings: LlamaSettings, backend: Backend) -> LlamaPlan {
    plan_llama(&header(name), &settings, backend).unwrap()
}

fn with_ngl(ngl: u64) -> LlamaSettings {
    LlamaSettings {
        gpu_layers: Some(ngl),
        context: Some(4096),
        ..LlamaSettings::default()
    }
}

#[test]
fn raising_ngl_moves_memory_from_the_host_to_the_gpu() {
    for name in [
        "llama-f16",
        "llama-q4_0-tied",
        "gemma2-f16-swa",
        "llama-moe-q4_0",
    ] {
        let plans: Vec<LlamaPlan> = (0..=6)
            .map(|n| plan(name, with_ngl(n), Backend::Cuda))
            .collect();
        for pair in plans.windows(2) {
            let gpu = |p: &LlamaPlan| p.device(LlamaDevice::Gpu(0)).unwrap().total();
            let host_model = |p: &LlamaPlan| p.host().model;
            assert!(gpu(&pair[1]) >= gpu(&pair[0]), "{name}");
            assert!(host_model(&pair[1]) <= host_model(&pair[0]), "{name}");
            assert!(pair[1].host().kv <= pair[0].host().kv, "{name}");
        }
    }
}

#[test]
fn weights_and_kv_are_conserved_whatever_ngl_is() {
    // Metal pads like the host (32 B) and the model has its own output: nothing is duplicated
    for name in ["llama-f16", "llama-q8_0", "llama-moe-q4_0"] {
        let all_host = plan(name, with_ngl(0), Backend::Metal);
        for ngl in 1..=6 {
            let p = plan(name, with_ngl(ngl), Backend::Metal);
            let model: u64 = p.devices.iter().map(|(_, b)| b.model).sum();
            let kv: u64 = p.devices.iter().map(|(_, b)| b.kv).sum();
            assert_eq!(model, all_host.host().model, "{name} -ngl {ngl}");
            assert_eq!(kv, all_host.host().kv, "{name} -ngl {ngl}");
        }
    }
}

#[test]
fn the_output_layer_is_offloaded_first_and_token_embd_never() {
    let p = plan("llama-f16", with_ngl(1), Backend::Cuda);
    assert_eq!(p.placement.output, LlamaDevice::Gpu(0));
    assert!(p.placement.layers.iter().all(|d| *d == LlamaDevice::Host));
    assert_eq!(p.placement.offloaded, 1);
    let all = plan("llama-f16", LlamaSettings::default(), Backend::Cuda);
    assert_eq!(all.placement.offloaded, 5);
    let embd = header("llama-f16")
        .tensor("token_embd.weight")
        .unwrap()
        .bytes();
    assert_eq!(all.host().model, embd.next_multiple_of(32));
}

#[test]
fn a_tied_output_on_the_gpu_is_a_copy_of_token_embd() {
    let p = plan("llama-q4_0-tied", LlamaSettings::default(), Backend::Metal);
    let embd = header("llama-q4_0-tied")
        .tensor("token_embd.weight")
        .unwrap()
        .bytes();
    let all: u64 = p.devices.iter().map(|(_, b)| b.model).sum();
    let host_only = plan("llama-q4_0-tied", with_ngl(0), Backend::Metal);
    assert_eq!(all, host_only.host().model + embd.next_multiple_of(32));
}

#[test]
fn an_even_tensor_split_cuts_the_layers_where_llama_cpp_does() {
    let settings = LlamaSettings {
        tensor_split: vec![1.0, 1.0],
        ..LlamaSettings::default()
    };
    let p = plan("llama-f16", settings, Backend::Cuda);
    use LlamaDevice::Gpu;
    assert_eq!(p.placement.layers, [Gpu(0), Gpu(0), Gpu(0), Gpu(1)]);
    assert_eq!(p.placement.output, Gpu(1));
    assert_eq!(p.device(Gpu(0)).unwrap().layers, 3);
    assert!(p.device(Gpu(1)).unwrap().kv > 0);
}

#[test]
fn n_cpu_moe_keeps_the_first_layers_experts_in_host_memory() {
    let h = header("llama-moe-q4_0");
    let experts_of = |layers: u32| -> u64 {
        h.tensors()
            .iter()
            .filter(|t| t.layer().is_some_and(|l| l < layers) && is_expert(t.name()))
            .map(|t| t.bytes().next_multiple_of(32))
            .sum()
    };
    let base = plan("llama-moe-q4_0", LlamaSettings::default(), Backend::Metal);
    let moe = LlamaSettings {
        cpu_moe_layers: 2,
        ..LlamaSettings::default()
    };
    let p = plan("llama-moe-q4_0", moe, Backend::Metal);
    assert!(experts_of(2) > 0);
    assert_eq!(p.host().model, base.host().model + experts_of(2));
    let gpu = |p: &LlamaPlan| p.device(LlamaDevice::Gpu(0)).unwrap().model;
    assert_eq!(gpu(&p), gpu(&base) - experts_of(2));
}

#[test]
fn sliding_window_layers_hold_only_the_window_plus_a_ubatch() {
    let p = plan("gemma2-f16-swa", with_ngl(0), Backend::CpuOnly);
    // window 128 + n_ubatch 512, padded to 256 cells
    assert_eq!(p.sizes.swa_cells, Some(768));
    assert_eq!(p.kv_caches[1].layers, [0, 2]);
    assert_eq!(p.kv_caches[0].cells_per_stream, 4096);
}
