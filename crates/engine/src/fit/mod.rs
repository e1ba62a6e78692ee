//! Does it fit? Verdicts for every GPU in the catalog, and a solver for the selected one.

mod command;
mod solve;

mod overview;

pub use command::{serve_command, startup_concurrency, ServeCommand};
pub use overview::{sweep, sweep_points, Advice, Overview};
pub use solve::{solve, Answer, Question, Reach};

pub use crate::band::{
    error_band, estimate_band, family_of, Band, BandGroup, BandLevel, FrameworkFamily,
    MIN_BAND_CASES,
};
use crate::dtype::WeightFormat;
use crate::error::EngineError;
use crate::gpus::Gpu;
use crate::memory::{estimate_with, Breakdown, Component};
use crate::model::Architecture;
use crate::named::named_enum;
use crate::scenario::{Checkpointing, Job, Loss, Offload, Optimizer, Scenario, Server, Zero};
use crate::units::{div_ceil, prod, scale, MIB};

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
            Remedy::KvFp8 if !train && s.kv_dtype.bits() > 8 => {
                t.kv_dtype = crate::dtype::KvDtype::Fp8
            }
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
    /// Whether the job runs: exactly when `headroom >= 0` and no `refusal` stops the server.
    pub fits: bool,
    /// budget - need per GPU (negative when it does not fit).
    pub headroom: i64,
    /// The fewest GPUs of this model that run the job (sharding or splitting as the job allows).
    pub gpus_needed: Option<u64>,
    /// Whether measured runs like this one ([`estimate_band`]) landed on both sides of the limit:
    /// the band of the need holds the budget (for a server, the band of its KV pool holds one
    /// request), so "fits" or "does not fit" could go either way.
    pub borderline: bool,
    /// Why the server would not start here, whatever the memory says.
    pub refusal: Option<StartRefusal>,
}

/// Why a server refuses to start on these GPUs, as its start-up checks read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartRefusal {
    /// vLLM V1 requires the free memory at start-up to cover gpu_memory_utilization × the total
    /// (`vllm/v1/worker/gpu_worker.py`: "Free memory on device … on startup is less than desired
    /// GPU memory utilization"): other processes hold more than the rest.
    FreeBelowRequested { free: u64, requested: u64 },
    /// vLLM shards the model evenly over its tensor-parallel ranks and does not support GPUs of
    /// different models in one group (vllm-project/vllm#13760; it warns "Detected different
    /// devices in the system"): the page does not plan one.
    MixedTensorParallel { gpu: Gpu, other: Gpu },
}

/// What a job may use of a GPU, and what it needs of it, per GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// The total the driver reports to a process, or for a server gpu_memory_utilization × it.
    pub budget: u64,
    /// The peak, or for a server the larger of its peak and what it takes to start: everything
    /// but the KV cache plus the KV blocks of one max_model_len request.
    pub needed: u64,
    /// For a server: the KV pool the budget leaves and what one request needs of it.
    pub kv: Option<KvRoom>,
    /// Why the server would not start, whatever the memory says.
    pub refusal: Option<StartRefusal>,
}

/// A server's KV cache on one GPU: it starts when the pool holds one max_model_len request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KvRoom {
    /// What the budget leaves for the KV cache once everything else is placed.
    pub(crate) pool: u64,
    /// The KV blocks of one max_model_len request.
    pub one_request: u64,
}

impl Need {
    /// What the job of `s` (its breakdown `b`) may use of `gpu` and needs of it.
    pub fn on(s: &Scenario, b: &Breakdown, gpu: Gpu) -> Need {
        // the last GPU's model counts where the setting does: a tensor-parallel server
        let other = s
            .last_gpu
            .filter(|g| *g != gpu && s.job == Job::Serving && s.tp > 1);
        // a mixed box runs at its smaller card, as a tensor-parallel group of equal shards must
        let gpu = match other {
            Some(o) if s.job == Job::Serving && o.visible_bytes() < gpu.visible_bytes() => o,
            _ => gpu,
        };
        // what a process can allocate is what cudaMemGetInfo reports, not nvidia-smi's total,
        // less what other processes already hold
        let b = &*b.on_gpu(s, gpu);
        let held = s.held_mib * MIB;
        let visible = gpu.visible_bytes();
        if s.job != Job::Serving {
            return Need {
                budget: visible.saturating_sub(held),
                needed: b.total,
                kv: None,
                refusal: None,
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
            let overflow = split.dynamic.saturating_sub(room);
            return Need {
                budget: split.static_budget,
                needed: split.loaded + kv + overflow,
                kv: Some(KvRoom {
                    pool: split.static_budget.saturating_sub(split.loaded + overflow),
                    one_request,
                }),
                refusal: None,
            };
        }
        // the serving fit's arithmetic: the KV pool is the budget less everything else; graphs
        // captured after the pool is sized live in what the budget leaves of the visible total,
        // and only what overflows that counts against the budget
        let budget = scale(visible, s.gpu_util_pct, 100);
        let graphs = b.graphs_after_sizing(s);
        let fixed = b.total - b.bytes(Component::KvCache) - b.bytes(Component::Reserve) - graphs;
        let overflow = graphs.saturating_sub((visible - budget).saturating_sub(held));
        let free = visible.saturating_sub(held);
        let refusal = match other {
            Some(other) => Some(StartRefusal::MixedTensorParallel { gpu, other }),
            None if s.vllm.is_v1() && free < budget => Some(StartRefusal::FreeBelowRequested {
                free,
                requested: budget,
            }),
            None => None,
        };
        Need {
            budget,
            needed: (b.total - graphs)
                .max(fixed.saturating_add(one_request))
                .saturating_add(overflow),
            kv: Some(KvRoom {
                pool: budget.saturating_sub(fixed.saturating_add(overflow)),
                one_request,
            }),
            refusal,
        }
    }

    pub fn fits(self) -> bool {
        self.needed <= self.budget && self.refusal.is_none()
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
    let band = estimate_band(s);
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
                // a refused start is no memory verdict, so it is never borderline
                borderline: need.refusal.is_none()
                    && match need.kv {
                        // a server's band is its KV pool's: borderline when it holds one request
                        // and only when that request decides the verdict
                        Some(kv) => {
                            band.straddles(kv.pool, kv.one_request)
                                && need.fits() == (kv.one_request <= kv.pool)
                        }
                        None => band.crosses(need.needed, need.budget),
                    },
                refusal: need.refusal,
            }
        })
        .collect())
}

#[cfg(test)]
mod solve_tests;
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
    fn a_server_is_borderline_when_its_kv_pools_band_holds_one_request() {
        use crate::band::{estimate_band, Band};
        let mut s = Scenario {
            job: Job::Serving,
            gpu: Gpu::A100_40,
            ..Scenario::default()
        };
        let arch = s.model.architecture().unwrap();
        let band = estimate_band(&s);
        let Band::Range { lower_permille, .. } = band else {
            panic!("the in-repo set has vLLM pools: {band:?}")
        };
        assert!(lower_permille < 0);
        // lengthen the request until one takes more than the pool's low end but no more than
        // the pool: a verdict that fits, yet measured pools like it were smaller
        let mut seen = false;
        for len in (1..=64).map(|k| k * 2_048) {
            s.max_model_len = len;
            let Ok(b) = estimate_with(&s, &arch, false) else {
                continue;
            };
            let kv = Need::on(&s, &b, s.gpu).kv.unwrap();
            let v = verdicts(&s, &arch).unwrap();
            let here = v.iter().find(|v| v.gpu == s.gpu).unwrap();
            eprintln!(
                "{len} {kv:?} fits {} borderline {}",
                here.fits, here.borderline
            );
            let decided_by_request = here.fits == (kv.one_request <= kv.pool);
            assert_eq!(
                here.borderline,
                decided_by_request && band.straddles(kv.pool, kv.one_request)
            );
            if here.borderline && here.fits {
                seen = true;
                break;
            }
        }
        assert!(
            seen,
            "no max_model_len put one request inside the pool's band"
        );
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
