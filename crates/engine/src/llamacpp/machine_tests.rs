//! Macs' working set, the llama.cpp solver, the launch commands and the decode-speed bound.

use std::path::Path;

use crate::llamacpp::*;
use crate::*;

fn header(name: &str) -> GgufHeader {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gguf");
    read_gguf(&std::fs::read(dir.join(format!("{name}.header.gguf"))).unwrap()).unwrap()
}

fn tiny_mac(limit_mib: u64) -> Machine {
    Machine::Mac(Mac::find("M1-16").unwrap().with_wired_limit(limit_mib))
}

fn ctx(c: u64) -> LlamaSettings {
    LlamaSettings {
        context: Some(c),
        ..LlamaSettings::default()
    }
}

#[test]
fn a_16_gb_mac_lets_the_gpu_wire_two_thirds_and_a_64_gb_one_three_quarters() {
    let m1 = Mac::find("m1-16").unwrap();
    // ggml-metal printed recommendedMaxWorkingSetSize = 10922.67 MB (MiB) on a 16 GB M1
    assert_eq!(
        format!("{:.2}", m1.working_set() as f64 / MIB as f64),
        "10922.67"
    );
    let m3 = Mac::find("M3-MAX-64").unwrap();
    assert_eq!(m3.working_set(), 48 * GIB);
    assert_eq!(m3.with_wired_limit(57_344).working_set(), 56 * GIB);
    assert_eq!(Mac::find("M3-MAX-65"), None);
    assert!(Mac::keys().contains(&"M2-ULTRA-192".to_string()));
}

#[test]
fn a_96_gb_mac_wires_three_quarters_and_a_128_gb_one_on_macos_26_84_percent() {
    // ggml-metal printed 73728.00 MB (MiB) on a 96 GB M2 Max (ggml-org/llama.cpp#3213)
    assert_eq!(Mac::find("M2-MAX-96").unwrap().working_set(), 73_728 * MIB);
    // and recommendedMaxWorkingSetSize = 115448.73 MB (10^6 B) on a 128 GB M4 Max, macOS 26
    let m4 = Mac::find("M4-MAX-128").unwrap();
    assert_eq!(format!("{:.2}", m4.working_set() as f64 / 1e6), "115448.73");
    // a wired limit still replaces the default: 112.00 GiB for iogpu.wired_limit_mb=114688
    assert_eq!(m4.with_wired_limit(114_688).working_set(), 112 * GIB);
}

#[test]
fn the_largest_ngl_fits_and_one_more_does_not() {
    let h = header("llama-f16");
    let machine = tiny_mac(12);
    let ngl = max_gpu_layers(&h, &ctx(4096), &machine).unwrap().unwrap();
    assert!(ngl > 0 && ngl < 5, "{ngl}");
    let with = |n| LlamaSettings {
        gpu_layers: Some(n),
        ..ctx(4096)
    };
    assert!(machine.fits(&plan_llama(&h, &with(ngl), Backend::Metal).unwrap()));
    assert!(!machine.fits(&plan_llama(&h, &with(ngl + 1), Backend::Metal).unwrap()));
}

#[test]
fn the_longest_context_fits_and_the_next_step_does_not() {
    let h = header("llama-f16");
    let machine = tiny_mac(40);
    let c = max_context(&h, &ctx(4096), &machine).unwrap().unwrap();
    assert_eq!(c % 256, 0);
    let fits = |c| machine.fits(&plan_llama(&h, &ctx(c), Backend::Metal).unwrap());
    assert!(fits(c));
    assert!(c == 4096 || !fits(c + 256), "{c}");
    assert_eq!(max_context(&h, &ctx(4096), &tiny_mac(1)).unwrap(), None);
}

#[test]
fn the_best_quant_is_the_largest_file_that_fits_whole() {
    let files = [
        header("llama-q4_k"),
        header("llama-f16"),
        header("llama-q8_0"),
    ];
    let refs: Vec<&GgufHeader> = files.iter().collect();
    let settings = ctx(1024);
    assert_eq!(
        best_quant(&refs, &settings, &tiny_mac(1024)).unwrap(),
        Some(1)
    );
    assert_eq!(
        best_quant(&refs, &settings, &tiny_mac(11)).unwrap(),
        Some(2)
    );
    assert_eq!(best_quant(&refs, &settings, &tiny_mac(1)).unwrap(), None);
}

#[test]
fn the_commands_name_the_layers_context_and_cache_types() {
    let s = LlamaSettings {
        gpu_layers: Some(3),
        context: Some(16_384),
        parallel: 2,
        cache_k: GgmlType::Q8_0,
        cache_v: GgmlType::Q8_0,
        ..LlamaSettings::default()
    };
    let c = launch_commands(&s, 32);
    let flags: Vec<&str> = c.llama_server.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        flags,
        [
            "-ngl",
            "-c",
            "-fa",
            "-np",
            "--cache-type-k",
            "--cache-type-v"
        ]
    );
    assert!(c
        .ollama_env
        .contains(&("OLLAMA_KV_CACHE_TYPE", "q8_0".into())));
    assert!(c.ollama_options.contains(&("num_ctx", "8192".into())));
    assert!(c.ollama_options.contains(&("num_gpu", "3".into())));
    assert!(!c.ollama_mixed_cache);
}

#[test]
fn decode_speed_is_bounded_by_bandwidth_over_bytes_read() {
    let h = header("llama-f16");
    let machine = Machine::Gpus {
        gpu: Gpu::Rtx4090,
        last: Gpu::Rtx4090,
        count: 1,
        held: 0,
        ram: None,
        host_bandwidth: DEFAULT_HOST_BANDWIDTH,
    };
    let plan = plan_llama(&h, &ctx(4096), machine.backend()).unwrap();
    let bound = decode_bound(&h, &plan, 0, |d| machine.bandwidth(d));
    let embd = h.tensor("token_embd.weight").unwrap().bytes();
    let weights = h.tensor_bytes() - embd;
    let expected = 1_008e9 / weights as f64;
    assert!((bound.empty_context - expected).abs() / expected < 1e-9);
    assert!(bound.full_context < bound.empty_context);
    // the same model on the CPU alone is slower by the bandwidth ratio
    let cpu = Machine::Cpu {
        ram: None,
        bandwidth: DEFAULT_HOST_BANDWIDTH,
    };
    let on_cpu = plan_llama(&h, &ctx(4096), cpu.backend()).unwrap();
    let slow = decode_bound(&h, &on_cpu, 0, |d| cpu.bandwidth(d));
    assert!(slow.empty_context < bound.empty_context / 10.0);
}

#[test]
fn a_mac_verdict_is_against_the_working_set_not_the_whole_memory() {
    let h = header("llama-f16");
    let plan = plan_llama(&h, &ctx(4096), Backend::Metal).unwrap();
    let gpu = plan.device(LlamaDevice::Gpu(0)).unwrap().total();
    let mac = Mac::find("M1-8").unwrap();
    // a working set just under the need, on a Mac whose memory holds it easily
    let limit_mib = gpu / MIB;
    let fit = Machine::Mac(mac.with_wired_limit(limit_mib)).fit(&plan);
    assert!(!fit[1].fits() && fit[1].need > fit[1].limit.unwrap());
    assert!(mac.memory_bytes() > gpu);
}
