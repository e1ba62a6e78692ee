//! Real excerpts from public logs, each beside the thread it was posted in.

use super::*;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// `x.yz` units of `unit` bytes, rounded half up, as the parser computes it.
fn hundredths(x: u64, unit: u64) -> u64 {
    ((u128::from(x) * u128::from(unit) + 50) / 100) as u64
}

#[track_caller]
fn read(kind: SourceKind, text: &str) -> Measurement {
    let m = parse(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(m.source(), kind, "{text}");
    assert_eq!(parse_as(kind, text), Ok(m.clone()));
    m
}

#[track_caller]
fn bytes(m: &Measurement, level: Level) -> u64 {
    m.figure(level)
        .unwrap_or_else(|| panic!("no {level:?} in {m:?}"))
        .bytes
}

// https://github.com/vllm-project/vllm/pull/12126 (vLLM 0.7, V0, H100 80 GB)
const VLLM_V0_07: &str = "\
INFO 01-16 09:40:00 worker.py:238] the current vLLM instance can use total_gpu_memory (79.22GiB) x gpu_memory_utilization (0.90) = 71.29GiB
INFO 01-16 09:40:00 worker.py:238] model weights take 19.86GiB; non_torch_memory takes 0.16GiB; PyTorch activation peak memory takes 36.63GiB; the rest of the memory reserved for KV Cache is 14.65GiB.
INFO 01-16 09:40:00 executor_base.py:95] # CUDA blocks: 6001, # CPU blocks: 1638
";

#[test]
fn a_vllm_07_profile_gives_every_component_and_the_block_counts() {
    let m = read(SourceKind::Vllm, VLLM_V0_07);
    assert_eq!(bytes(&m, Level::DeviceTotal), hundredths(7922, GIB));
    assert_eq!(bytes(&m, Level::VllmBudget), hundredths(7129, GIB));
    assert_eq!(bytes(&m, Level::VllmWeights), hundredths(1986, GIB));
    assert_eq!(bytes(&m, Level::VllmNonTorch), hundredths(16, GIB));
    assert_eq!(bytes(&m, Level::VllmActivationPeak), hundredths(3663, GIB));
    assert_eq!(bytes(&m, Level::VllmKvCache), hundredths(1465, GIB));
    assert_eq!(m.figures().len(), 6);
    let f = m.facts();
    assert_eq!((f.gpu_blocks, f.cpu_blocks), (Some(6001), Some(1638)));
    assert_eq!(f.gpu_util_hundredths, Some(90));
}

// https://github.com/vllm-project/vllm/issues/10517 (vLLM 0.6.4, V0, RTX 3090)
const VLLM_V0_064: &str = "\
Loading model weights took 14.9888 GB
Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90
GPU blocks: 1952, # CPU blocks: 2048
Maximum concurrency for 20000 tokens per request: 1.56x
";

#[test]
fn vllm_v0_prints_gb_for_gib_and_the_weights_are_read_as_gib() {
    let m = read(SourceKind::Vllm, VLLM_V0_064);
    let w = m.figure(Level::VllmWeights).unwrap();
    // Llama-3.1-8B: 8.03e9 bf16 parameters are 16.06e9 bytes = 14.96 GiB, so vLLM's "GB" is GiB
    assert_eq!((w.unit, w.reading), (SizeUnit::Gb, Reading::Binary));
    assert_eq!(w.bytes, 16_094_101_452);
    assert_eq!(bytes(&m, Level::VllmTorchPeak), hundredths(1706, GIB));
    assert_eq!(bytes(&m, Level::VllmKvCache), hundredths(381, GIB));
    assert_eq!(bytes(&m, Level::VllmNonTorch), hundredths(35, GIB));
    let f = m.facts();
    assert_eq!((f.gpu_blocks, f.cpu_blocks), (Some(1952), Some(2048)));
    assert_eq!(
        (f.concurrency_tokens, f.concurrency_hundredths),
        (Some(20_000), Some(156))
    );
}

// https://github.com/vllm-project/vllm/pull/3120 (vLLM 0.3.3, the first weights line, opt-125m)
const VLLM_V0_033: &str = "\
>> INFO 02-29 19:21:45 model_runner.py:90] Loading model weights took 244.61 MB
INFO 02-29 19:21:45 llm_engine.py:338] # GPU blocks: 76240, # CPU blocks: 7281
";

#[test]
fn the_oldest_vllm_weights_line_and_block_counts_are_read() {
    let m = read(SourceKind::Vllm, VLLM_V0_033);
    assert_eq!(bytes(&m, Level::VllmWeights), hundredths(24461, MIB));
    assert_eq!(m.facts().gpu_blocks, Some(76_240));
}

// https://github.com/vllm-project/vllm/pull/10511 (a 0.6.5 development build, one value a line)
const VLLM_V0_065_DEV: &str = "\
INFO 12-13 19:54:18 worker.py:243] Memory profiling results:
INFO 12-13 19:54:18 worker.py:243] duration     0.75 seconds
INFO 12-13 19:54:18 worker.py:243] total_gpu_memory     79.22GiB
INFO 12-13 19:54:18 worker.py:243] gpu_memory_utilization       0.90
INFO 12-13 19:54:18 worker.py:243] the current vLLM instance can use    71.29GiB
INFO 12-13 19:54:18 worker.py:243] model weights take   14.96GiB
INFO 12-13 19:54:18 worker.py:243] non_torch_memory     1.79GiB
INFO 12-13 19:54:18 worker.py:243] PyTorch activation peak memory       1.26GiB
INFO 12-13 19:54:18 worker.py:243] available_kv_cache_memory    53.29GiB
";

#[test]
fn a_profile_printed_one_value_a_line_reads_like_the_one_line_form() {
    let m = read(SourceKind::Vllm, VLLM_V0_065_DEV);
    assert_eq!(bytes(&m, Level::VllmBudget), hundredths(7129, GIB));
    assert_eq!(bytes(&m, Level::VllmWeights), hundredths(1496, GIB));
    assert_eq!(bytes(&m, Level::VllmKvCache), hundredths(5329, GIB));
    assert_eq!(m.facts().gpu_util_hundredths, Some(90));
    assert!(m.figure(Level::Unstated).is_none());
}

// https://github.com/vllm-project/vllm/pull/14447 (vLLM 0.8, four tensor-parallel workers)
const VLLM_TP_WORKERS: &str = "\
(VllmWorkerProcess pid=521) INFO 04-12 08:21:19 [worker.py:267] model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.
(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] Memory profiling takes 17.59 seconds
(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] the current vLLM instance can use total_gpu_memory (23.58GiB) x gpu_memory_utilization (0.99) = 23.35GiB
(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.
";

#[test]
fn identical_lines_of_tensor_parallel_workers_count_once() {
    let m = read(SourceKind::Vllm, VLLM_TP_WORKERS);
    assert_eq!(m.figures().len(), 6);
    assert_eq!(m.facts().gpu_util_hundredths, Some(99));
    assert!(
        m.figure(Level::Unstated).is_none(),
        "17.59 seconds is no size"
    );
}

// https://github.com/vllm-project/vllm/pull/17122 (vLLM 0.8.5, V1, L40S)
const VLLM_V1_085: &str = "\
INFO 04-24 16:32:59 [loader.py:458] Loading weights took 2.95 seconds
INFO 04-24 16:33:00 [gpu_model_runner.py:1316] Model loading took 14.9889 GiB and 3.652170 seconds
INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 158,656 tokens
INFO 04-24 16:33:13 [kv_cache_utils.py:637] Maximum concurrency for 32,768 tokens per request: 4.84x
";

// https://github.com/gpustack/runner/pull/251 (vLLM 0.27, V1, CUDA graph memory profiled)
const VLLM_V1_027: &str = "\
(Worker_TP1 pid=448) INFO 08-14 14:07:22 [gpu_model_runner.py:6806] Estimated CUDA graph memory: 0.36 GiB total
(Worker_TP0 pid=447) INFO 08-14 14:07:22 [gpu_worker.py:563] Available KV cache memory: 6.87 GiB
(Worker_TP0 pid=447) INFO 08-14 14:07:22 [gpu_worker.py:578] CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.8200 is equivalent to --gpu-memory-utilization=0.8048 without CUDA graph memory profiling.
";

#[test]
fn vllm_v1_gives_weights_kv_tokens_concurrency_and_graph_memory() {
    let m = read(SourceKind::Vllm, VLLM_V1_085);
    let w = m.figure(Level::VllmWeights).unwrap();
    assert_eq!((w.unit, w.reading), (SizeUnit::Gib, Reading::Exact));
    assert_eq!(w.bytes, 16_094_208_826); // 14.9889 × 2^30 = 16094208825.6
    assert_eq!(m.facts().kv_tokens, Some(158_656));
    assert_eq!(m.facts().concurrency_tokens, Some(32_768));
    assert_eq!(m.facts().concurrency_hundredths, Some(484));
    assert_eq!(m.figures().len(), 1, "2.95 seconds is no size");

    let m = read(SourceKind::Vllm, VLLM_V1_027);
    assert_eq!(bytes(&m, Level::VllmCudaGraph), hundredths(36, GIB));
    assert_eq!(bytes(&m, Level::VllmKvCache), hundredths(687, GIB));
    assert_eq!(
        m.facts().gpu_util_hundredths,
        None,
        "a flag is not the profile's figure"
    );
}

#[test]
fn the_graph_capture_line_gives_its_memory() {
    // the form vLLM 0.6–0.10 print after capturing (constructed, same words as model_runner.py)
    let m = read(
        SourceKind::Vllm,
        "INFO [gpu_model_runner.py] Graph capturing finished in 5 secs, took 0.54 GiB",
    );
    assert_eq!(bytes(&m, Level::VllmCudaGraph), hundredths(54, GIB));
}

// https://github.com/ggml-org/llama.cpp/pull/6122 (llama.cpp 2024, CUDA, two GPUs)
const LLAMA_CUDA_2024: &str = "\
llm_load_tensors: ggml ctx size =    0.37 MiB
llm_load_tensors: offloaded 41/41 layers to GPU
llm_load_tensors:        CPU buffer size =  1640.62 MiB
llm_load_tensors:      CUDA0 buffer size =  5434.38 MiB
llm_load_tensors:      CUDA1 buffer size = 13989.53 MiB
llama_kv_cache_init:      CUDA0 KV buffer size =  1536.00 MiB
llama_kv_cache_init:      CUDA1 KV buffer size =  3584.00 MiB
llama_new_context_with_model: KV self size  = 5120.00 MiB, K (f16): 2560.00 MiB, V (f16): 2560.00 MiB
llama_new_context_with_model:  CUDA_Host  output buffer size =     1.95 MiB
llama_new_context_with_model: pipeline parallelism enabled (n_copies=4)
llama_new_context_with_model:      CUDA0 compute buffer size =   672.01 MiB
";

#[test]
fn a_two_gpu_llama_cpp_log_keeps_model_kv_and_compute_per_device() {
    let m = read(SourceKind::LlamaCpp, LLAMA_CUDA_2024);
    let cuda = |i| Some(Device::new(DeviceApi::Cuda, Some(i)));
    let on = |level, device| {
        m.figures()
            .iter()
            .find(|f| f.level == level && f.device == device)
            .map(|f| f.bytes)
    };
    assert_eq!(
        on(Level::LlamaModel, cuda(0)),
        Some(hundredths(543_438, MIB))
    );
    assert_eq!(
        on(Level::LlamaModel, cuda(1)),
        Some(hundredths(1_398_953, MIB))
    );
    assert_eq!(on(Level::LlamaKv, cuda(1)), Some(3584 * MIB));
    assert_eq!(
        on(Level::LlamaCompute, cuda(0)),
        Some(hundredths(67_201, MIB))
    );
    let host = Some(Device::new(DeviceApi::Cpu, None));
    assert_eq!(on(Level::LlamaModel, host), Some(hundredths(164_062, MIB)));
    assert_eq!(
        m.on_devices(Level::LlamaModel),
        Some(hundredths(543_438, MIB) + hundredths(1_398_953, MIB))
    );
    assert_eq!(m.on_host(Level::LlamaModel), Some(hundredths(164_062, MIB)));
    assert_eq!(m.on_devices(Level::LlamaKv), Some(5120 * MIB));
    assert_eq!(m.figures().len(), 7);
}

// https://github.com/ggml-org/llama.cpp/pull/12449 (llama.cpp March 2025, CUDA, the `init:` form)
const LLAMA_CUDA_2025: &str = "\
llama_context:  CUDA_Host  output buffer size =     0.98 MiB
init: kv_size = 512, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 48, can_shift = 1
init:      CUDA0 KV buffer size =   192.00 MiB
llama_context: KV self size  =  192.00 MiB, K (f16):   96.00 MiB, V (f16):   96.00 MiB
llama_context:      CUDA0 compute buffer size =   508.03 MiB
llama_context:  CUDA_Host compute buffer size =    23.00 MiB
";

// https://github.com/ggml-org/llama.cpp/issues/27680 (llama.cpp 2026, timestamps and colours)
const LLAMA_CUDA_2026: &str = "\
[34m1.14.610.021[0m [32mI [0mllama_kv_cache:      CUDA0 KV buffer size =   182.75 MiB
";

#[test]
fn newer_llama_cpp_logs_read_the_same_with_host_buffers_apart() {
    let m = read(SourceKind::LlamaCpp, LLAMA_CUDA_2025);
    assert_eq!(m.on_devices(Level::LlamaKv), Some(192 * MIB));
    assert_eq!(
        m.on_devices(Level::LlamaCompute),
        Some(hundredths(50_803, MIB))
    );
    assert_eq!(m.on_host(Level::LlamaCompute), Some(23 * MIB));
    assert_eq!(m.on_host(Level::LlamaOutput), Some(hundredths(98, MIB)));
    let m = read(SourceKind::LlamaCpp, LLAMA_CUDA_2026);
    assert_eq!(m.on_devices(Level::LlamaKv), Some(hundredths(18_275, MIB)));
}

// https://github.com/argilla-io/distilabel/issues/593 (llama.cpp 2024, Metal, Apple M1 Pro 16 GB)
const LLAMA_METAL_2024: &str = "\
ggml_backend_metal_buffer_from_ptr: allocated buffer, size =  1114.92 MiB, ( 1114.98 / 10922.67)
llm_load_tensors: offloaded 23/23 layers to GPU
llm_load_tensors:        CPU buffer size =    66.41 MiB
llm_load_tensors:      Metal buffer size =  1114.92 MiB
";

// https://github.com/ggml-org/llama.cpp/pull/22673 (llama.cpp 2026, Metal, Apple M2 Pro)
const LLAMA_METAL_2026: &str = "\
load_tensors: offloaded 66/66 layers to GPU
load_tensors:   CPU_Mapped model buffer size =   644.14 MiB
load_tensors:  MTL0_Mapped model buffer size = 14803.73 MiB
";

// https://github.com/ggml-org/llama.cpp/issues/3606 (llama.cpp 2023, Metal, MB meaning MiB)
const LLAMA_METAL_2023: &str = "\
ggml_metal_init: recommendedMaxWorkingSetSize  = 21845.34 MB
llama_new_context_with_model: compute buffer total size = 81.13 MB
ggml_metal_add_buffer: allocated 'data            ' buffer, size =  8967.25 MB, (30939.41 / 21845.34), warning: current allocated size is greater than the recommended max working set size
ggml_metal_add_buffer: allocated 'kv              ' buffer, size =   402.00 MB, (31341.41 / 21845.34), warning: current allocated size is greater than the recommended max working set size
ggml_metal_add_buffer: allocated 'alloc           ' buffer, size =    75.02 MB, (31416.42 / 21845.34), warning: current allocated size is greater than the recommended max working set size
";

#[test]
fn metal_logs_of_three_years_give_the_model_on_the_gpu() {
    let m = read(SourceKind::LlamaCpp, LLAMA_METAL_2024);
    assert_eq!(
        m.on_devices(Level::LlamaModel),
        Some(hundredths(111_492, MIB))
    );
    assert_eq!(m.on_host(Level::LlamaModel), Some(hundredths(6641, MIB)));

    let m = read(SourceKind::LlamaCpp, LLAMA_METAL_2026);
    let mtl = m.figures()[1].device.unwrap();
    assert_eq!(
        (mtl.api, mtl.index, mtl.mapped),
        (DeviceApi::Metal, Some(0), true)
    );
    assert_eq!(
        m.on_devices(Level::LlamaModel),
        Some(hundredths(1_480_373, MIB))
    );
    assert_eq!(m.on_host(Level::LlamaModel), Some(hundredths(64_414, MIB)));

    let m = read(SourceKind::LlamaCpp, LLAMA_METAL_2023);
    // 21845.34 MiB is two thirds of 32 GiB: llama.cpp's "MB" is MiB
    let ws = m.figure(Level::MetalWorkingSet).unwrap();
    assert_eq!((ws.unit, ws.reading), (SizeUnit::Mb, Reading::Binary));
    assert_eq!(ws.bytes, hundredths(2_184_534, MIB));
    assert_eq!(bytes(&m, Level::LlamaModel), hundredths(896_725, MIB));
    assert_eq!(bytes(&m, Level::LlamaKv), 402 * MIB);
    assert_eq!(bytes(&m, Level::LlamaCompute), hundredths(7502, MIB));
}

// https://github.com/pytorch/pytorch/pull/38884 (torch.cuda.memory_summary(), PyTorch 1.6)
const TORCH_SUMMARY: &str = "\
|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 0                 |
|---------------------------------------------------------------------------|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |    1024 B  |  133632 B  |  273920 B  |  272896 B  |
|       from large pool |       0 B  |       0 B  |       0 B  |       0 B  |
|       from small pool |    1024 B  |  133632 B  |  273920 B  |  272896 B  |
|---------------------------------------------------------------------------|
| Active memory         |    1024 B  |  133632 B  |  273920 B  |  272896 B  |
|---------------------------------------------------------------------------|
| GPU reserved memory   |    2048 KB |    2048 KB |    2048 KB |       0 B  |
";

#[test]
fn a_memory_summary_gives_the_peak_column_with_kb_meaning_kib() {
    let m = read(SourceKind::TorchSummary, TORCH_SUMMARY);
    assert_eq!(bytes(&m, Level::Allocated), 133_632);
    assert_eq!(bytes(&m, Level::Active), 133_632);
    assert_eq!(bytes(&m, Level::Reserved), 2048 * 1024);
    assert_eq!(
        m.figures()[0].device,
        Some(Device::new(DeviceApi::Gpu, Some(0)))
    );
}

#[test]
fn a_memory_stats_dict_gives_the_three_peaks() {
    // constructed: the keys of torch.cuda.memory_stats() (pytorch/pytorch#27361), as Python prints
    // a dict and as older versions printed an OrderedDict
    let dict = "{'active.all.allocated': 1530, 'active_bytes.all.peak': 22871605760, \
                'allocated_bytes.all.current': 16106127360, 'allocated_bytes.all.peak': 22871605248, \
                'reserved_bytes.all.peak': 24159191040, 'num_ooms': 0}";
    let m = read(SourceKind::TorchStats, dict);
    assert_eq!(bytes(&m, Level::Allocated), 22_871_605_248);
    assert_eq!(bytes(&m, Level::Active), 22_871_605_760);
    assert_eq!(bytes(&m, Level::Reserved), 24_159_191_040);
    let ordered =
        "OrderedDict([('allocated_bytes.all.peak', 512), ('reserved_bytes.all.peak', 2097152)])";
    let m = read(SourceKind::TorchStats, ordered);
    assert_eq!(
        (bytes(&m, Level::Allocated), bytes(&m, Level::Reserved)),
        (512, 2 * MIB)
    );
}

// https://github.com/wookayin/gpustat/issues/130 (nvidia-smi 515 and gpustat, Tesla P100)
const SMI_TABLE: &str = "\
|   0  Tesla P100-PCIE...  Off  | 00000000:04:00.0 Off |                    0 |
| N/A   27C    P0    32W / 250W |      0MiB / 16384MiB |      0%      Default |
|                               |                      |                  N/A |
";
const GPUSTAT: &str = "\
[0] Tesla P100-PCIE-16GB | 27'C,   0 % |   103 / 16384 MB |
[1] Tesla P100-PCIE-16GB | 27'C,   0 % |   103 / 16384 MB |
";

// https://github.com/XuehaiPan/nvitop/pull/8 (nvidia-smi, MIG devices with BAR1 rows)
const SMI_MIG: &str = "\
|  1    3   0   0  |  14366MiB / 19968MiB | 28      0 |  2   0    1    0    0 |
|                  |      4MiB / 32767MiB |           |                       |
|  1    5   0   1  |   9826MiB / 19968MiB | 28      0 |  2   0    1    0    0 |
|                  |      2MiB / 32767MiB |           |                       |
";

#[test]
fn nvidia_smi_tables_and_gpustat_give_used_and_total_per_gpu() {
    let m = read(SourceKind::NvidiaSmi, SMI_TABLE);
    assert_eq!(bytes(&m, Level::DeviceUsed), 0);
    assert_eq!(bytes(&m, Level::DeviceTotal), 16_384 * MIB);

    let m = read(SourceKind::NvidiaSmi, GPUSTAT);
    let used: Vec<_> = m
        .figures()
        .iter()
        .filter(|f| f.level == Level::DeviceUsed)
        .collect();
    assert_eq!(used.len(), 2);
    assert_eq!(
        (used[1].bytes, used[1].reading),
        (103 * MIB, Reading::Binary)
    );
    assert_eq!(used[1].device, Some(Device::new(DeviceApi::Gpu, Some(1))));

    let m = read(SourceKind::NvidiaSmi, SMI_MIG);
    assert_eq!(
        m.on_devices(Level::DeviceUsed),
        Some((14_366 + 9_826) * MIB)
    );
}

#[test]
fn nvidia_smi_csv_reads_with_and_without_units() {
    // the output format of `nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv`
    let csv = "index, memory.used [MiB], memory.total [MiB]\n0, 71234 MiB, 81559 MiB\n1, 512 MiB, 81559 MiB\n";
    let m = read(SourceKind::NvidiaSmi, csv);
    assert_eq!(m.on_devices(Level::DeviceUsed), Some((71_234 + 512) * MIB));
    let nounits = "memory.used [MiB], memory.total [MiB]\n71234, 81559\n";
    let m = read(SourceKind::NvidiaSmi, nounits);
    assert_eq!(bytes(&m, Level::DeviceUsed), 71_234 * MIB);
    assert_eq!(bytes(&m, Level::DeviceTotal), 81_559 * MIB);
}

#[test]
fn the_measuring_tools_json_gives_its_breakdown_and_counts() {
    let text = include_str!("../../../../docs/measure/results/full-adamw.json");
    let m = read(SourceKind::MeasureTool, text);
    assert_eq!(bytes(&m, Level::ToolPeak), 510_707_108);
    assert_eq!(bytes(&m, Level::ToolParam), 88_745_216);
    assert_eq!(bytes(&m, Level::ToolOptimizer), 177_490_076);
    assert_eq!(bytes(&m, Level::ToolOther), 244_471_816);
    assert_eq!(m.facts().params, Some(44_372_480));
    let cuda = r#"{"params": 7, "peak_bytes_total": 100, "breakdown_near_peak": {"param": 60},
        "cuda": {"max_memory_allocated": 120, "max_memory_reserved": 2097152,
                 "device_used_now": 500000000, "device_total": 85520809984, "name": "H100"}}"#;
    let m = read(SourceKind::MeasureTool, cuda);
    assert_eq!(bytes(&m, Level::Reserved), 2 * MIB);
    assert_eq!(bytes(&m, Level::DeviceTotal), 85_520_809_984);
    assert_eq!(
        parse(r#"{"peak_bytes_total": 99999999999999999999}"#),
        Err(MeasureError::OutOfRange { line: 1 })
    );
    assert_eq!(
        parse("{\"peak_bytes_total\": 1,\n\"x\": }"),
        Err(MeasureError::BadJson {
            line: 2,
            column: 6,
            why: JsonProblem::ExpectedValue
        })
    );
}

#[test]
fn a_number_with_a_unit_takes_its_level_from_the_nearest_word() {
    let one = |text| {
        let m = read(SourceKind::Plain, text);
        assert_eq!(m.figures().len(), 1, "{text}");
        m.figures()[0]
    };
    let f = one("21.3 GiB allocated");
    assert_eq!((f.level, f.bytes), (Level::Allocated, 22_870_700_851));
    assert_eq!(
        one("max_memory_allocated = 21.3 GiB").level,
        Level::Allocated
    );
    let f = one("torch.cuda.max_memory_reserved: 23000 MiB");
    assert_eq!((f.level, f.bytes), (Level::Reserved, 23_000 * MIB));
    let f = one("18.5 GB");
    assert_eq!((f.level, f.bytes), (Level::Unstated, 18_500_000_000));
    assert_eq!((f.unit, f.reading), (SizeUnit::Gb, Reading::Decimal));
    let f = one("max_memory_allocated: 22871605248");
    assert_eq!(
        (f.level, f.bytes, f.unit),
        (Level::Allocated, 22_871_605_248, SizeUnit::B)
    );
    let m = read(SourceKind::Plain, "allocated 20.1 GiB, reserved 22 GiB");
    assert_eq!(bytes(&m, Level::Reserved), 22 * GIB);
    assert_eq!(bytes(&m, Level::Allocated), hundredths(2010, GIB));
}

#[test]
fn text_that_is_no_measurement_is_refused_with_a_typed_error() {
    assert_eq!(parse("  \n "), Err(MeasureError::Empty));
    assert_eq!(
        parse("llama-7B on an H100"),
        Err(MeasureError::Unrecognized)
    );
    assert_eq!(
        parse("20000 TiB allocated"),
        Err(MeasureError::OutOfRange { line: 1 })
    );
    let big = "x".repeat(MAX_INPUT_BYTES + 1);
    assert_eq!(
        parse(&big),
        Err(MeasureError::TooLarge {
            bytes: MAX_INPUT_BYTES + 1,
            limit: MAX_INPUT_BYTES
        })
    );
    assert_eq!(
        parse_as(SourceKind::Vllm, "18.5 GB"),
        Err(MeasureError::NoFigures {
            source: SourceKind::Vllm
        })
    );
    assert_eq!(
        MeasureError::TooLarge { bytes: 3, limit: 2 }.to_string(),
        "measure.too_large bytes=3 limit=2"
    );
}

#[test]
fn every_fixture_survives_its_link() {
    for text in [
        VLLM_V0_07,
        VLLM_V0_064,
        VLLM_V0_033,
        VLLM_V0_065_DEV,
        VLLM_TP_WORKERS,
        VLLM_V1_085,
        VLLM_V1_027,
        LLAMA_CUDA_2024,
        LLAMA_CUDA_2025,
        LLAMA_CUDA_2026,
        LLAMA_METAL_2024,
        LLAMA_METAL_2026,
        LLAMA_METAL_2023,
        TORCH_SUMMARY,
        SMI_TABLE,
        GPUSTAT,
        SMI_MIG,
    ] {
        let m = parse(text).unwrap();
        let link = m.to_link();
        assert!(link.len() <= link::LINK_MAX, "{link}");
        assert_eq!(Measurement::from_link(&link), Ok(m), "{link}");
    }
}

#[test]
fn a_vllm_log_compares_with_an_inference_estimate_level_by_level() {
    let s = crate::Scenario {
        job: crate::Job::Serving,
        ..crate::Scenario::default()
    };
    let b = crate::estimate(&s).unwrap();
    let m = parse(VLLM_V0_07).unwrap();
    let cs = m.compare(&b);
    let weights = cs.iter().find(|c| c.level == Level::VllmWeights).unwrap();
    assert_eq!(weights.measured, hundredths(1986, GIB));
    assert_eq!(
        weights.estimated,
        b.bytes(crate::memory::Component::Weights) + b.bytes(crate::memory::Component::Adapter)
    );
    assert!(
        cs.iter().all(|c| c.level != Level::DeviceTotal),
        "a capacity is not compared"
    );
    let c = Comparison::new(Level::Allocated, 200, 250);
    assert_eq!((c.difference(), c.basis_points()), (50, Some(2500)));
    let c = Comparison::new(Level::Allocated, 3, 2);
    assert_eq!((c.difference(), c.basis_points()), (-1, Some(-3333)));
    assert_eq!(Comparison::new(Level::Allocated, 0, 5).basis_points(), None);
}

#[test]
fn a_measurement_built_by_hand_keeps_only_what_a_link_can_carry() {
    let fig = |bytes| Figure {
        level: Level::Allocated,
        bytes,
        unit: SizeUnit::B,
        reading: Reading::Exact,
        device: None,
    };
    let facts = Facts {
        params: Some(MAX_COUNT + 1),
        kv_tokens: Some(5),
        ..Facts::default()
    };
    let m = Measurement::new(
        SourceKind::Plain,
        vec![fig(MAX_BYTES + 1), fig(7), fig(7)],
        facts,
    )
    .unwrap();
    assert_eq!(m.figures(), &[fig(7)]);
    assert_eq!((m.facts().params, m.facts().kv_tokens), (None, Some(5)));
    assert_eq!(Measurement::from_link(&m.to_link()), Ok(m));
    assert_eq!(
        Measurement::new(SourceKind::Plain, vec![fig(u64::MAX)], Facts::default()),
        None
    );
}

#[test]
fn the_full_link_form_carries_every_figure_that_the_share_link_leaves_out() {
    let figures: Vec<Figure> = (0..MAX_FIGURES as u16)
        .map(|i| Figure {
            level: Level::LlamaModel,
            bytes: 5 * GIB + u64::from(i),
            unit: SizeUnit::Mib,
            reading: Reading::Binary,
            device: Some(Device::new(DeviceApi::Cuda, Some(i))),
        })
        .collect();
    let m = Measurement::new(SourceKind::LlamaCpp, figures, Facts::default()).unwrap();
    let short = Measurement::from_link(&m.to_link()).unwrap();
    assert!(
        short.figures().len() < MAX_FIGURES,
        "the share link is cut at LINK_MAX"
    );
    assert_eq!(Measurement::from_full_link(&m.to_full_link()), Ok(m));
    assert_eq!(
        Measurement::from_full_link("1z~~"),
        Err(MeasureError::BadLink)
    );
}

#[test]
fn the_estimate_handed_to_the_readers_module_reads_back_and_compares_as_the_breakdown_does() {
    for job in [crate::Job::Serving, crate::Job::Lora, crate::Job::Full] {
        let s = crate::Scenario {
            job,
            ..crate::Scenario::default()
        };
        let b = crate::estimate(&s).unwrap();
        let e = super::Estimated::of(&b);
        let back = super::Estimated::from_link(&e.to_link()).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.serving.is_some(), job == crate::Job::Serving);
        for text in [
            VLLM_V0_07,
            "21.3 GiB allocated, 22.5 GiB reserved, 23.9 GiB used",
        ] {
            let m = parse(text).unwrap();
            assert_eq!(m.compare_with(&back), m.compare(&b), "{job:?}");
        }
    }
    for bad in [
        "",
        "1.2.3",
        "1.2.3.-.-",
        "1.2.3.4.-.0.0.0.0.0.0.0.0.0.0",
        "x.2.3.-.-.0.0.0.0.0.0.0.0.0.0",
    ] {
        assert_eq!(super::Estimated::from_link(bad), None, "{bad}");
    }
}
