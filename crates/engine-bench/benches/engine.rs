//! Engine benchmarks (criterion): one estimate with and without the formula text, the verdicts for
//! the GPU catalog, the solver, the 27-point sweep of sequence lengths, and the page's whole memo
//! (`Overview::compute`, then `Advice::compute` and `verdicts`: estimate + bars, then solver +
//! remedies + verdicts), for representative scenarios.
//!
//! Run: cargo bench -p vram-engine-bench --bench engine   (about two minutes; budgets in BENCHMARKS.md)

use std::hint::black_box;
use std::time::Duration;
use vram_engine::{fit::solve, fit::sweep_points, memory::estimate_with, verdicts};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use vram_engine::{
    fit::Advice, scenario::Zero, Architecture, Gpu, Job, ModelChoice, Overview, Scenario,
    WeightFormat,
};

/// The scenarios: (name, scenario). Each one is validated before it is timed.
fn scenarios() -> Vec<(&'static str, Scenario)> {
    let base = Scenario::default;
    vec![
        // the page's default: LoRA on Llama 3.1 8B, one RTX 4090
        ("lora-8b", base()),
        // full fine-tune of Llama 3.1 70B, ZeRO-3 over 64 H100s
        (
            "full-70b-z3-64",
            Scenario {
                model: ModelChoice::Preset("llama-3.1-70b"),
                job: Job::Full,
                gpus: 64,
                zero: Zero::Z3,
                gpu: Gpu::H100,
                ..base()
            },
        ),
        // vLLM serving of Llama 3.1 70B, tensor parallel 4 on H100s
        (
            "serve-70b-tp4",
            Scenario {
                model: ModelChoice::Preset("llama-3.1-70b"),
                job: Job::Serving,
                gpus: 4,
                tp: 4,
                gpu: Gpu::H100,
                ..base()
            },
        ),
        // DeepSeek-V3 inference in fp8 over 8 H200s (tensor parallel 8)
        (
            "deepseek-v3-infer",
            Scenario {
                model: ModelChoice::Preset("deepseek-v3"),
                job: Job::Inference,
                weights: WeightFormat::Fp8,
                batch: 1,
                seq: 4_096,
                gpus: 8,
                tp: 8,
                gpu: Gpu::H200,
                ..base()
            },
        ),
        // QLoRA on the Qwen3 30B-A3B mixture of experts, one RTX 4090
        (
            "qlora-qwen3-30b-a3b",
            Scenario {
                model: ModelChoice::Preset("qwen3-30b-a3b"),
                job: Job::Qlora,
                weights: WeightFormat::Nf4Dq,
                batch: 1,
                ..base()
            },
        ),
    ]
}

fn prepared() -> Vec<(&'static str, Scenario, Architecture)> {
    scenarios()
        .into_iter()
        .map(|(name, s)| {
            let arch = s.model.architecture().expect("preset architecture");
            estimate_with(&s, &arch, true)
                .unwrap_or_else(|e| panic!("scenario {name} does not estimate: {e}"));
            (name, s, arch)
        })
        .collect()
}

fn bench_estimate(c: &mut Criterion) {
    let mut g = c.benchmark_group("estimate");
    for (name, s, arch) in prepared() {
        g.bench_with_input(BenchmarkId::new("explain", name), &s, |b, s| {
            b.iter(|| estimate_with(black_box(s), black_box(&arch), true))
        });
        g.bench_with_input(BenchmarkId::new("numbers", name), &s, |b, s| {
            b.iter(|| estimate_with(black_box(s), black_box(&arch), false))
        });
    }
    g.finish();
}

fn bench_fit(c: &mut Criterion) {
    let mut g = c.benchmark_group("fit");
    for (name, s, arch) in prepared() {
        g.bench_with_input(BenchmarkId::new("verdicts", name), &s, |b, s| {
            b.iter(|| verdicts(black_box(s), black_box(&arch)))
        });
        g.bench_with_input(BenchmarkId::new("solve", name), &s, |b, s| {
            b.iter(|| solve(black_box(s), black_box(&arch)))
        });
    }
    g.finish();
}

fn bench_page(c: &mut Criterion) {
    let points = sweep_points();
    assert_eq!(points.len(), 27);
    let mut g = c.benchmark_group("page");
    for (name, s, arch) in prepared() {
        g.bench_with_input(BenchmarkId::new("memo", name), &s, |b, s| {
            // the top of the page's memo and the fit panels', as a step with them in sight
            b.iter(|| {
                Overview::compute(black_box(s))
                    .map(|o| (Advice::compute(s, &o), verdicts(s, &o.arch)))
            })
        });
        g.bench_with_input(BenchmarkId::new("sweep27", name), &s, |b, s| {
            b.iter(|| {
                points
                    .iter()
                    .filter_map(|&len| {
                        let mut t = s.clone();
                        t.seq = len;
                        estimate_with(&t, black_box(&arch), false).ok()
                    })
                    .map(|b| b.total)
                    .sum::<u64>()
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    // short runs: 60 benchmarks in about two minutes on a small machine
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30)
        .configure_from_args()
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_estimate, bench_fit, bench_page
}
criterion_main!(benches);
