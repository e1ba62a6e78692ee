//! Op offload at partial offload, checked against llama.cpp's CI log of Pythia 2.8B at -ngl 10
//! (validation/llamacpp.jsonl); the plan's properties are the llamacpp module's unit tests.

use vram_test_support::cases;

use cases::llamacpp::load;
use vram_engine::llamacpp::{LlamaDevice, Placement};

const MIB: u64 = 1 << 20;

/// Equal at the 0.01 MiB llama.cpp prints.
#[track_caller]
fn assert_printed(bytes: u64, printed_mib: f64, what: &str) {
    let shown = format!("{:.2}", bytes as f64 / MIB as f64);
    assert_eq!(shown, format!("{printed_mib:.2}"), "{what}: {bytes} B");
}

#[test]
fn the_ci_log_at_ngl_10_is_reproduced_exactly_with_its_builds_placement() {
    let cases = load(&cases::in_repo_validation_dir()).unwrap();
    let case = cases
        .iter()
        .find(|c| c.id == "LC-CUDA-PYTHIA-Q4_0-NGL10")
        .expect("the -ngl 10 case is in validation/llamacpp.jsonl");
    // build 4418: the last 10 repeating layers on the GPU, the output on the host
    let layers = (0..32)
        .map(|il| {
            if il >= 22 {
                LlamaDevice::Gpu(0)
            } else {
                LlamaDevice::Host
            }
        })
        .collect();
    let old_rule = Placement {
        layers,
        output: LlamaDevice::Host,
        offloaded: 10,
    };
    let p = case.plan_placed(old_rule).unwrap();
    let gpu = p.device(LlamaDevice::Gpu(0)).unwrap();
    assert_printed(gpu.model, 423.14, "CUDA0 model");
    assert_printed(gpu.kv, 200.00, "CUDA0 KV");
    assert_printed(p.host().kv, 440.00, "CPU KV");
    assert_printed(gpu.compute, 203.99, "CUDA0 compute");
    assert_printed(p.host().compute, 14.01, "CUDA_Host compute");
    assert_printed(p.host().output, 0.19, "CPU output");
}
