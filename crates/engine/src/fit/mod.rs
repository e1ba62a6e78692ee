//! Does it fit? Verdicts for every GPU in the catalog, and a solver for the selected one.

mod command;
mod solve;

pub use command::{serve_command, startup_concurrency, ServeCommand, Server};
pub use solve::{solve, Answer, Question, Reach};

use crate::dtype::WeightFormat;
use crate::error::EngineError;
use crate::gpus::Gpu;
use crate::memory::{estimate_with, Breakdown, Component};
use crate::model::Architecture;
use crate::named::named_enum;
use crate::scenario::{Checkpointing, Job, Loss, Offload, Optimizer, Scenario, Zero};
use crate::units::{div_ceil, prod, scale};

named_enum! {
    /// One change that lowers what a job needs, tried when it does not fit the selected GPU.
    pub enum Remedy {
        Checkpointing => ("gc", "gradient checkpointing on every layer"),
        FusedLoss => ("fused", "a fused linear + cross-entropy loss (no full logits)"),
        Adam8bit => ("adam8", "8-bit AdamW"),
        PureBf16 => ("bf16", "pure bf16: no fp32 master weights or adapters"),
        StepInBackward => ("obw", "the optimizer step in backward"),
        OffloadActivations => ("ao", "activations offloaded to CPU memory"),
        Zero3 => ("z3", "ZeRO-3 over the GPUs you have"),
        OffloadOptimizer => ("offload", "optimizer states offloaded to CPU memory"),
        Qlora => ("qlora", "QLoRA: the base in NF4"),
        KvFp8 => ("kv8", "an fp8 KV cache"),
        Int4 => ("int4", "4-bit weights (AWQ)"),
    }
}

impl Remedy {
    /// The scenario with this one change, or `None` when it does not apply to the job or is
    /// already made.
    pub fn apply(self, s: &Scenario) -> Option<Scenario> {
        let mut t = s.clone();
        let train = s.job.is_training();
        match self {
            Remedy::Checkpointing if train && s.checkpointing != Checkpointing::Full => {
                t.checkpointing = Checkpointing::Full
            }
            Remedy::FusedLoss
                if train && !matches!(s.loss, Loss::Fused | Loss::Unsloth | Loss::NoLmHead) =>
            {
                t.loss = Loss::Fused
            }
            Remedy::Adam8bit
                if train && matches!(s.optimizer, Optimizer::AdamW | Optimizer::AdamWBf16) =>
            {
                t.optimizer = Optimizer::AdamW8bit
            }
            Remedy::PureBf16 if train && s.master_weights => t.master_weights = false,
            Remedy::StepInBackward if train && !s.optimizer_in_backward && s.grad_accum == 1 => {
                t.optimizer_in_backward = true
            }
            Remedy::OffloadActivations if train && !s.offload_activations => {
                t.offload_activations = true
            }
            Remedy::Zero3 if train && s.gpus > 1 && s.zero != Zero::Z3 => t.zero = Zero::Z3,
            Remedy::OffloadOptimizer if train && s.offload == Offload::None => {
                t.offload = Offload::Optimizer
            }
            Remedy::Qlora if s.job == Job::Lora => {
                t.job = Job::Qlora;
                t.weights = WeightFormat::Nf4Dq;
            }
            Remedy::KvFp8 if !train && s.kv_dtype.bits() > 8 => t.kv_dtype = crate::KvDtype::Fp8,
            Remedy::Int4 if !train && !s.weights.is_quantized() => t.weights = WeightFormat::Awq4,
            _ => return None,
        }
        Some(t)
    }
}

/// When the job (`b`, its breakdown) does not fit the selected GPU: each single change that makes
/// it fit, with the total per GPU it then needs. Empty when it fits already.
pub fn remedies(s: &Scenario, arch: &Architecture, b: &Breakdown) -> Vec<(Remedy, u64)> {
    if fits(s, b, s.gpu) {
        return Vec::new();
    }
    Remedy::ALL
        .iter()
        .filter_map(|&r| {
            let t = r.apply(s)?;
            let b = estimate_with(&t, arch, false).ok()?;
            fits(&t, &b, s.gpu).then_some((r, b.total))
        })
        .collect()
}

/// The verdict for one GPU model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub gpu: Gpu,
    pub capacity: u64,
    /// What the job may use of the capacity: the total the CUDA driver reports to a process
    /// (below nvidia-smi's figure, [`Gpu::visible_bytes`]), or for a server what
    /// gpu_memory_utilization lets it take of that.
    pub budget: u64,
    /// Whether the need fits the budget: exactly when `headroom >= 0`.
    pub fits: bool,
    /// budget - need per GPU (negative when it does not fit).
    pub headroom: i64,
    /// The fewest GPUs of this model that run the job (sharding or splitting as the job allows).
    pub gpus_needed: Option<u64>,
}

/// What a job may use of a GPU, and what it needs of it, per GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// The total the driver reports to a process, or for a server gpu_memory_utilization × it.
    pub budget: u64,
    /// The peak, or for a server the larger of its peak and what it takes to start: everything
    /// but the KV cache plus the KV blocks of one max_model_len request.
    pub needed: u64,
}

impl Need {
    /// What the job of `s` (its breakdown `b`) may use of `gpu` and needs of it.
    pub fn on(s: &Scenario, b: &Breakdown, gpu: Gpu) -> Need {
        // what a process can allocate is what cudaMemGetInfo reports, not nvidia-smi's total
        let b = &*b.on_gpu(s, gpu);
        if s.job != Job::Serving {
            return Need {
                budget: gpu.visible_bytes(),
                needed: b.total,
            };
        }
        let blocks = div_ceil(s.max_model_len, s.block_size);
        let one_request = prod(&[blocks, s.block_size, b.kv_bytes_per_token.max(1)]);
        if s.server == Server::Sglang {
            // the static share holds the weights and the KV; what runs outside it must fit in
            // the rest of what was free before loading, else it overflows into the budget
            let split = b.sglang_split(s, gpu);
            let room = split.free_before - split.static_budget;
            let kv = b.bytes(Component::KvCache).max(one_request);
            return Need {
                budget: split.static_budget,
                needed: split.loaded + kv + split.dynamic.saturating_sub(room),
            };
        }
        // the serving fit's arithmetic: the KV pool is the budget less everything else; graphs
        // captured after the pool is sized live in what the budget leaves of the visible total,
        // and only what overflows that counts against the budget
        let visible = gpu.visible_bytes();
        let budget = scale(visible, s.gpu_util_pct, 100);
        let graphs = b.graphs_after_sizing(s);
        let fixed = b.total - b.bytes(Component::KvCache) - b.bytes(Component::Reserve) - graphs;
        let overflow = graphs.saturating_sub(visible - budget);
        Need {
            budget,
            needed: (b.total - graphs)
                .max(fixed.saturating_add(one_request))
                .saturating_add(overflow),
        }
    }

    pub fn fits(self) -> bool {
        self.needed <= self.budget
    }

    /// budget - needed, saturated to `i64`.
    pub fn headroom(self) -> i64 {
        (i128::from(self.budget) - i128::from(self.needed))
            .clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }
}

/// Whether a breakdown fits a GPU: everything on the device within the total the driver reports
/// and, for a server, within gpu_memory_utilization of it with room for one max-length request.
pub fn fits(s: &Scenario, b: &Breakdown, gpu: Gpu) -> bool {
    Need::on(s, b, gpu).fits()
}

pub(crate) const GPU_COUNTS: [u64; 13] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// How the job is spread over `n` GPUs when asking how many it needs: inference and serving
/// split the model with tensor parallelism (up to 64 ranks, no pipeline); training keeps its
/// pipeline stages and shards with ZeRO-3 when no stage was chosen.
pub fn spread(s: &Scenario, n: u64) -> Option<Scenario> {
    let mut t = s.clone();
    t.gpus = n;
    if s.job.is_training() {
        t.tp = s.tp.min(n);
        if !n.is_multiple_of(t.tp * s.pipeline_stages()) {
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
        t.pp = 1;
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
            let need = Need::on(&here, &b, gpu);
            let fewest = per_count.iter().find(|(_, bn, t)| {
                let mut t = t.clone();
                t.gpu = gpu;
                fits(&t, bn, gpu)
            });
            let mut gpus_needed = fewest.map(|(n, _, _)| *n);
            // what runs now runs on the GPUs it has, whether or not they are on the ladder
            if need.fits() {
                gpus_needed = Some(gpus_needed.map_or(s.gpus, |n| n.min(s.gpus)));
            }
            Verdict {
                gpu,
                capacity: gpu.bytes(),
                budget: need.budget,
                fits: need.fits(),
                headroom: need.headroom(),
                gpus_needed,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ModelChoice;

    #[test]
    fn a_lora_run_that_does_not_fit_a_4090_is_told_which_single_changes_make_it_fit() {
        let s = Scenario {
            model: ModelChoice::Preset("llama-3.1-8b"),
            job: Job::Lora,
            batch: 1,
            seq: 2_048,
            checkpointing: Checkpointing::None,
            loss: Loss::Full,
            gpu: Gpu::Rtx4090,
            ..Scenario::default()
        };
        let arch = s.model.architecture().unwrap();
        let b = estimate_with(&s, &arch, false).unwrap();
        assert!(!fits(&s, &b, s.gpu));
        let r = remedies(&s, &arch, &b);
        assert!(r.iter().any(|(x, _)| *x == Remedy::Checkpointing), "{r:?}");
        for (x, total) in &r {
            assert!(*total <= s.gpu.visible_bytes() && *total < b.total, "{x:?}");
        }
        // a job that fits needs no remedy
        let small = Scenario {
            batch: 1,
            seq: 512,
            ..s
        };
        let fitting = estimate_with(&small, &arch, false).unwrap();
        assert!(remedies(&small, &arch, &fitting).is_empty());
    }

    #[test]
    fn a_training_job_is_judged_against_what_the_driver_reports_not_nvidia_smi() {
        let s = Scenario {
            job: Job::Lora,
            gpu: Gpu::Rtx4090,
            ..Scenario::default()
        };
        let arch = s.model.architecture().unwrap();
        let b = estimate_with(&s, &arch, false).unwrap();
        let need = Need::on(&s, &b, s.gpu);
        assert_eq!(need.budget, s.gpu.visible_bytes());
        assert!(need.budget < s.gpu.bytes());
        // a job between the two totals fits nvidia-smi's figure but not what a process can allocate
        let mut between = b.clone();
        between.total = s.gpu.visible_bytes() + 1;
        assert!(between.total < s.gpu.bytes());
        assert!(!fits(&s, &between, s.gpu));
        let v = verdicts(&s, &arch).unwrap();
        let here = v.iter().find(|v| v.gpu == s.gpu).unwrap();
        assert_eq!(here.headroom, s.gpu.visible_bytes() as i64 - b.total as i64);
    }

    #[test]
    fn remedies_only_apply_to_the_jobs_they_change() {
        let infer = Scenario {
            job: Job::Inference,
            ..Scenario::default()
        };
        assert!(Remedy::Checkpointing.apply(&infer).is_none());
        assert!(Remedy::KvFp8.apply(&infer).is_some());
        let full = Scenario {
            job: Job::Full,
            ..Scenario::default()
        };
        assert!(Remedy::Int4.apply(&full).is_none());
        assert!(Remedy::Qlora.apply(&full).is_none());
        assert!(
            Remedy::Zero3.apply(&full).is_none(),
            "one GPU: nothing to shard over"
        );
    }
}
