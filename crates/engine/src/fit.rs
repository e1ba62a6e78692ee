//! Does it fit? Verdicts for every GPU in the catalog, and a solver for the selected one.

use crate::dtype::WeightFormat;
use crate::error::EngineError;
use crate::gpus::Gpu;
use crate::memory::{estimate_with, Breakdown, ServingFit};
use crate::model::Architecture;
use crate::scenario::{Job, Scenario, Zero};

/// The verdict for one GPU model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub gpu: Gpu,
    pub capacity: u64,
    pub fits: bool,
    /// capacity - needed per GPU (negative when it does not fit).
    pub headroom: i64,
    /// The fewest GPUs of this model that run the job (sharding or splitting as the job allows).
    pub gpus_needed: Option<u64>,
}

/// Whether a breakdown fits a GPU: everything on the device within its capacity and, for a
/// server, within gpu_memory_utilization with room for one max-length request.
pub fn fits(s: &Scenario, b: &Breakdown, gpu: Gpu) -> bool {
    match s.job {
        Job::Serving => {
            let f = ServingFit::on(b, s, gpu);
            b.total <= f.budget && f.max_len_fits
        }
        _ => b.total <= gpu.bytes(),
    }
}

const GPU_COUNTS: [u64; 13] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// How the job is spread over `n` GPUs when asking how many it needs: inference and serving
/// split the model with tensor parallelism (up to 64 ranks); training shards with ZeRO-3 when no
/// stage was chosen.
pub fn spread(s: &Scenario, n: u64) -> Option<Scenario> {
    let mut t = s.clone();
    t.gpus = n;
    if s.job.is_training() {
        t.tp = s.tp.min(n);
        if !n.is_multiple_of(t.tp) {
            return None;
        }
        if s.zero == Zero::Z0 && n > 1 {
            t.zero = Zero::Z3;
        }
    } else {
        if n > 64 {
            return None;
        }
        t.tp = n;
    }
    Some(t)
}

/// Verdicts for every GPU in the catalog.
pub fn verdicts(s: &Scenario, arch: &Architecture) -> Result<Vec<Verdict>, EngineError> {
    let b = estimate_with(s, arch, false)?;
    let mut per_count: Vec<(u64, Breakdown, Scenario)> = Vec::new();
    for n in GPU_COUNTS {
        if let Some(t) = spread(s, n) {
            if let Ok(bn) = estimate_with(&t, arch, false) {
                per_count.push((n, bn, t));
            }
        }
    }
    Ok(Gpu::ALL
        .iter()
        .map(|&gpu| {
            let mut here = s.clone();
            here.gpu = gpu;
            let capacity = gpu.bytes();
            let fits_now = fits(&here, &b, gpu);
            let gpus_needed = per_count.iter().find(|(_, bn, t)| {
                let mut t = t.clone();
                t.gpu = gpu;
                fits(&t, bn, gpu)
            });
            Verdict {
                gpu,
                capacity,
                fits: fits_now,
                headroom: (i128::from(capacity) - i128::from(b.total))
                    .clamp(i128::from(i64::MIN), i128::from(i64::MAX))
                    as i64,
                gpus_needed: gpus_needed.map(|(n, _, _)| *n),
            }
        })
        .collect())
}

/// The solver's answers for the selected GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// Largest batch (micro-batch, or concurrent sequences) that fits.
    pub max_batch: Option<u64>,
    /// Longest sequence (training) or prompt (inference) that fits.
    pub max_seq: Option<u64>,
    /// Most concurrent requests (serving: what the KV pool holds; inference: sequences).
    pub max_concurrency: Option<u64>,
    /// The format with the most bits per weight that still fits.
    pub best_format: Option<WeightFormat>,
}

/// Largest `x` in `lo..=hi` for which `ok(x)` holds, assuming `ok` is monotone (true then false).
fn largest(lo: u64, hi: u64, ok: impl Fn(u64) -> bool) -> Option<u64> {
    if !ok(lo) {
        return None;
    }
    let (mut good, mut bad) = (lo, hi.saturating_add(1));
    if ok(hi) {
        return Some(hi);
    }
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

/// Solves for the selected GPU: max batch, max sequence, max concurrency, best weight format.
pub fn solve(s: &Scenario, arch: &Architecture) -> Solved {
    let gpu = s.gpu;
    let fits_with = |t: &Scenario| {
        estimate_with(t, arch, false)
            .map(|b| fits(t, &b, gpu))
            .unwrap_or(false)
    };
    let max_batch = largest(1, 1 << 20, |x| {
        let mut t = s.clone();
        t.batch = x;
        fits_with(&t)
    });
    let max_seq = largest(1, 10_485_760, |x| {
        let mut t = s.clone();
        t.seq = x;
        fits_with(&t)
    });
    let max_concurrency = match s.job {
        Job::Serving => estimate_with(s, arch, false)
            .ok()
            .and_then(|b| b.serving)
            .map(|f| f.max_concurrency)
            .filter(|_| fits_with(s)),
        Job::Inference => max_batch,
        _ => None,
    };
    let best_format = WeightFormat::ALL.iter().copied().find(|&f| {
        let mut t = s.clone();
        t.weights = f;
        match s.job {
            Job::Full => !f.is_quantized() && fits_with(&t),
            Job::Lora => !f.is_quantized() && fits_with(&t),
            Job::Qlora => f.is_quantized() && fits_with(&t),
            _ => fits_with(&t),
        }
    });
    Solved {
        max_batch,
        max_seq,
        max_concurrency,
        best_format,
    }
}
