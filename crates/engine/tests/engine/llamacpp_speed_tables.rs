//! The decode-speed bound against llama.cpp's published benchmark tables (docs/local-speed.md).
//!
//! The bound divides the bytes a generated token reads (every weight but the token embedding's,
//! plus the KV cache) by the bandwidth of the memory they live in, so no measurement can beat it.
//! Every row below is a published `llama-bench` tg128 figure for Llama 2 7B (the `llama-2-7b`
//! preset); tg128 starts from an empty cache and ends at 128 cells, so it is compared with the
//! empty-context bound.
//!
//! F16 and Q8_0 are the preset quantized by the engine (`--weights bf16` writes an f16 file);
//! Q4_0 is not a format the page offers, so its header is built here from the Q8_0 one with the
//! types `llama-quantize` gives a Q4_0 file: every quantized tensor Q4_0, the output Q6_K
//! (`llama_tensor_get_type` in src/llama-quant.cpp), norms f32.

use vram_engine::{
    llamacpp::decode_bound, llamacpp::plan_llama, llamacpp::read_gguf, llamacpp::GgmlType,
    llamacpp::GgufHeader, llamacpp::GgufSummary, local::local_header, local::local_machine,
    local::local_settings, local::LocalOverview, scenario::LocalMachine, Gpu, Job, ModelChoice,
    Scenario, WeightFormat, GIB,
};

/// One Apple Silicon row of ggml-org/llama.cpp discussion #4167, "Performance of llama.cpp on
/// Apple Silicon M-series" (https://github.com/ggml-org/llama.cpp/discussions/4167, opened by
/// ggerganov 2023-11-22): `llama-bench -p 512 -n 128 -ngl 99` on LLaMA 7B v2, tg128 in t/s. The
/// summary table's reference build is 8e672ef (2023-11-21); the M3 Ultra and M4 rows, chips
/// released later, were added to the same table from later builds.
struct AppleRow {
    /// The chip as the thread names it, with its GPU cores.
    chip: &'static str,
    /// The engine's Mac: a `MAC_CHIPS` key and a memory option that has that GPU.
    mac: &'static str,
    memory_gb: u64,
    /// The bandwidth the thread lists, GB/s (the engine keeps its own, Apple's).
    listed_gbps: u64,
    f16: Option<f64>,
    q8_0: Option<f64>,
    q4_0: f64,
}

const APPLE: [AppleRow; 12] = [
    // the M1 (8 GB or 16 GB) cannot hold the 12.55 GiB F16 file: the thread has no F16 figure
    apple("M1 8-core GPU", "M1", 16, 68, None, Some(7.91), 14.15),
    apple(
        "M1 Pro 16-core GPU",
        "M1-PRO",
        32,
        200,
        Some(12.75),
        Some(22.34),
        36.41,
    ),
    apple(
        "M1 Max 32-core GPU",
        "M1-MAX",
        64,
        400,
        Some(23.03),
        Some(40.20),
        61.19,
    ),
    apple(
        "M1 Ultra 64-core GPU",
        "M1-ULTRA",
        128,
        800,
        Some(37.01),
        Some(59.87),
        83.73,
    ),
    apple(
        "M2 10-core GPU",
        "M2",
        24,
        100,
        Some(6.72),
        Some(12.21),
        21.91,
    ),
    apple(
        "M2 Ultra 76-core GPU",
        "M2-ULTRA",
        192,
        800,
        Some(41.02),
        Some(66.64),
        94.27,
    ),
    apple(
        "M3 Pro 18-core GPU",
        "M3-PRO",
        36,
        150,
        Some(9.89),
        Some(17.53),
        30.74,
    ),
    // the 40-core M3 Max comes with 48 GB or more (400 GB/s); the 30-core one with 36 or 96
    apple(
        "M3 Max 40-core GPU",
        "M3-MAX",
        48,
        400,
        Some(25.09),
        Some(42.75),
        66.31,
    ),
    // Apple: "over 800 GB/s" (the engine: 819)
    apple(
        "M3 Ultra 80-core GPU",
        "M3-ULTRA",
        512,
        800,
        Some(39.78),
        Some(63.93),
        92.14,
    ),
    apple(
        "M4 10-core GPU",
        "M4",
        32,
        120,
        Some(7.43),
        Some(13.54),
        24.11,
    ),
    apple(
        "M4 Pro 20-core GPU",
        "M4-PRO",
        48,
        273,
        Some(17.18),
        Some(30.69),
        50.74,
    ),
    // the 40-core M4 Max (546 GB/s) is the 16-core-CPU chip: 48 GB or more
    apple(
        "M4 Max 40-core GPU",
        "M4-MAX",
        64,
        546,
        Some(31.64),
        Some(54.05),
        83.06,
    ),
];

#[allow(clippy::too_many_arguments)]
const fn apple(
    chip: &'static str,
    mac: &'static str,
    memory_gb: u64,
    listed_gbps: u64,
    f16: Option<f64>,
    q8_0: Option<f64>,
    q4_0: f64,
) -> AppleRow {
    AppleRow {
        chip,
        mac,
        memory_gb,
        listed_gbps,
        f16,
        q8_0,
        q4_0,
    }
}

/// One NVIDIA row of ggml-org/llama.cpp discussion #15013, "Performance of llama.cpp with CUDA"
/// (https://github.com/ggml-org/llama.cpp/discussions/15013, opened 2025-08-01): `llama-bench`
/// on Llama 2 7B Q4_0 (3.56 GiB), one GPU, all layers offloaded, flash attention off, tg128 in
/// t/s, each row with the llama.cpp build it was measured on.
struct CudaRow {
    gpu: Gpu,
    build: &'static str,
    q4_0: f64,
}

const CUDA: [CudaRow; 5] = [
    cuda(Gpu::Rtx5090, "8cf6b42", 290.02),
    cuda(Gpu::Rtx4090, "2241453", 186.21),
    cuda(Gpu::Rtx3090, "c76b420", 158.16),
    // "H100 80GB" and "A100 80GB": the thread does not say SXM or PCIe; the catalog's entries are
    // the SXM boards (3,350 and 2,039 GB/s), above the PCIe ones (2,000 and 1,935), so the bound
    // compared here is the higher one and the ratio the lower
    cuda(Gpu::H100, "5143fa8", 267.81),
    cuda(Gpu::A100_80, "5143fa8", 190.88),
];

const fn cuda(gpu: Gpu, build: &'static str, q4_0: f64) -> CudaRow {
    CudaRow { gpu, build, q4_0 }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quant {
    F16,
    Q8_0,
    Q4_0,
}

/// A published figure, the engine's bound for it, and where it came from.
#[derive(Debug)]
struct Point {
    device: String,
    quant: Quant,
    measured: f64,
    bound: f64,
}

impl Point {
    fn ratio(&self) -> f64 {
        self.measured / self.bound
    }
}

fn local_run(machine: LocalMachine, weights: WeightFormat) -> Scenario {
    Scenario {
        job: Job::Local,
        model: ModelChoice::Preset("llama-2-7b"),
        weights,
        machine,
        gpus: 1,
        ..Scenario::default()
    }
}

fn on_mac(row: &AppleRow, weights: WeightFormat) -> Scenario {
    Scenario {
        mac_chip: row.mac,
        mac_memory_gb: row.memory_gb,
        ..local_run(LocalMachine::Mac, weights)
    }
}

fn on_gpu(gpu: Gpu) -> Scenario {
    Scenario {
        gpu,
        ..local_run(LocalMachine::Gpu, WeightFormat::GgufQ8_0)
    }
}

/// Llama 2 7B as `llama-quantize … Q4_0` writes it: the Q8_0 file's tensors, each quantized one
/// Q4_0 but the output, which goes to Q6_K.
fn q4_0_header() -> GgufHeader {
    let q8_0 = local_header(&local_run(LocalMachine::Gpu, WeightFormat::GgufQ8_0)).unwrap();
    let mut draft = GgufSummary::of(&q8_0).unwrap().draft();
    for (name, _, ty) in &mut draft.tensors {
        if *ty == GgmlType::Q8_0 {
            *ty = if name == "output.weight" {
                GgmlType::Q6K
            } else {
                GgmlType::Q4_0
            };
        }
    }
    read_gguf(&draft.bytes()).unwrap()
}

/// The empty-context bound of `header` planned for the scenario's flags and machine, as
/// `LocalOverview::compute` plans the scenario's own header.
fn bound_of(s: &Scenario, header: &GgufHeader) -> f64 {
    let settings = local_settings(s);
    let machine = local_machine(s);
    let plan = plan_llama(header, &settings, machine.backend()).unwrap();
    decode_bound(header, &plan, settings.cpu_moe_layers, |d| {
        machine.bandwidth(d)
    })
    .empty_context
}

fn preset_bound(s: &Scenario) -> f64 {
    LocalOverview::compute(s).unwrap().speed.empty_context
}

fn apple_points() -> Vec<Point> {
    let q4_0 = q4_0_header();
    let mut points = Vec::new();
    for row in &APPLE {
        let mut push = |quant, measured, bound| {
            points.push(Point {
                device: row.chip.to_string(),
                quant,
                measured,
                bound,
            })
        };
        if let Some(tg) = row.f16 {
            push(
                Quant::F16,
                tg,
                preset_bound(&on_mac(row, WeightFormat::Bf16)),
            );
        }
        if let Some(tg) = row.q8_0 {
            push(
                Quant::Q8_0,
                tg,
                preset_bound(&on_mac(row, WeightFormat::GgufQ8_0)),
            );
        }
        let s = on_mac(row, WeightFormat::GgufQ8_0);
        push(Quant::Q4_0, row.q4_0, bound_of(&s, &q4_0));
    }
    points
}

fn cuda_points() -> Vec<Point> {
    let q4_0 = q4_0_header();
    CUDA.iter()
        .map(|row| Point {
            device: format!("{} (build {})", row.gpu.label(), row.build),
            quant: Quant::Q4_0,
            measured: row.q4_0,
            bound: bound_of(&on_gpu(row.gpu), &q4_0),
        })
        .collect()
}

fn assert_never_beaten(points: &[Point]) {
    let beaten: Vec<&Point> = points.iter().filter(|p| p.measured > p.bound).collect();
    assert!(beaten.is_empty(), "measured above the bound: {beaten:?}");
}

#[test]
fn no_published_apple_silicon_decode_rate_is_above_the_engine_bound() {
    let points = apple_points();
    assert_eq!(points.len(), 35);
    assert_never_beaten(&points);
}

#[test]
fn no_published_cuda_decode_rate_is_above_the_engine_bound() {
    let points = cuda_points();
    assert_eq!(points.len(), CUDA.len());
    assert_never_beaten(&points);
}

#[test]
fn every_published_rate_reaches_at_least_a_fifth_of_the_bound() {
    // an upper bound far above every measurement would pass the test above and say nothing: a
    // bandwidth ten times too high, or a file counted at a tenth of its bytes, fails here
    let points: Vec<Point> = apple_points().into_iter().chain(cuda_points()).collect();
    let loose: Vec<&Point> = points.iter().filter(|p| p.ratio() < 0.2).collect();
    assert!(
        loose.is_empty(),
        "bound far above the measurement: {loose:?}"
    );
}

#[test]
fn apple_silicon_gets_closer_to_the_bound_the_more_bytes_a_token_reads() {
    // decode on the M-series is bandwidth-limited at F16 and less so at Q4_0, where dequantizing
    // and the per-token fixed costs weigh more: on every chip the F16 share of the bound is the
    // highest, Q4_0's the lowest
    let points = apple_points();
    for row in &APPLE {
        let share = |q| {
            points
                .iter()
                .find(|p| p.device == row.chip && p.quant == q)
                .map(Point::ratio)
        };
        let (q8_0, q4_0) = (share(Quant::Q8_0).unwrap(), share(Quant::Q4_0).unwrap());
        assert!(q8_0 > q4_0, "{}: Q8_0 {q8_0:.2}, Q4_0 {q4_0:.2}", row.chip);
        if let Some(f16) = share(Quant::F16) {
            assert!(f16 > q8_0, "{}: F16 {f16:.2}, Q8_0 {q8_0:.2}", row.chip);
        }
    }
}

#[test]
fn the_llama_2_7b_files_weigh_what_llama_bench_printed_for_them() {
    // llama-bench's size column in both threads: F16 12.55 GiB, Q8_0 6.67 GiB, Q4_0 3.56 GiB
    let gib = |h: &GgufHeader| h.tensor_bytes() as f64 / GIB as f64;
    let preset = |w| local_header(&local_run(LocalMachine::Gpu, w)).unwrap();
    for (got, printed) in [
        (gib(&preset(WeightFormat::Bf16)), 12.55),
        (gib(&preset(WeightFormat::GgufQ8_0)), 6.67),
        (gib(&q4_0_header()), 3.56),
    ] {
        assert!(
            (got - printed).abs() < 0.005,
            "{got:.3} GiB against {printed}"
        );
    }
}

#[test]
fn the_q4_0_rows_are_bounded_the_way_the_page_bounds_a_preset() {
    // bound_of plans a header exactly as LocalOverview::compute plans the scenario's own
    for s in [
        on_gpu(Gpu::Rtx4090),
        on_mac(&APPLE[5], WeightFormat::GgufQ8_0),
    ] {
        let header = local_header(&s).unwrap();
        assert_eq!(bound_of(&s, &header), preset_bound(&s));
    }
}

#[test]
fn the_engine_bandwidths_are_the_ones_the_apple_thread_lists() {
    // the thread's figure and the catalog's agree within 3 % (M1: 68 against 68.25; M3 Ultra:
    // 800 against Apple's 819), so a ratio in the doc reads against the same memory either way
    for row in &APPLE {
        let mac = local_machine(&on_mac(row, WeightFormat::GgufQ8_0));
        let engine = mac.bandwidth(vram_engine::llamacpp::LlamaDevice::Gpu(0)) as f64 / 1e9;
        let listed = row.listed_gbps as f64;
        assert!(
            (engine / listed - 1.0).abs() < 0.03,
            "{}: engine {engine} GB/s, thread {listed}",
            row.chip
        );
    }
}
