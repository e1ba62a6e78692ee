//! The budget: every memory component of a scenario, per GPU, with the formula behind each number.
//!
//! Peak = what persists + the largest transient alive at the same moment. Training has two candidate
//! moments: the start of the backward pass (activations and the loss's logits are all alive) and the
//! optimizer step (gradients and the optimizer's temporaries are). Inference has the prefill and the
//! end of generation (the KV cache at full length).
//!
//! One file per family of components: `weights` (weights and LoRA adapters), `training`
//! (gradients, master weights, optimizer states), `activations` (activations and logits), `kv`
//! (KV cache and how a server fills a GPU). This file holds the types and the peak.

mod activations;
mod encdec;
mod kv;
mod load_cache;
mod parallel;
mod pipeline;
mod recurrent;
mod server;
mod sglang_fit;
mod training;
mod weights;

pub use activations::{prefill_activation_bytes, LayerActivations};
pub use kv::ServingFit;
pub use pipeline::PipelineStage;
pub(crate) use recurrent::RecurrentPages;
pub use sglang_fit::SglangSplit;
pub use weights::lora_params;

use crate::dtype::WeightFormat;
use crate::error::EngineError;
pub use crate::formula::{Arg, Clause, Formula, Msg};
use crate::model::{Architecture, ParamCounts};
use crate::named::named_enum;
use crate::scenario::{Job, Scenario, Zero};
pub use crate::server::{comm_mib, comm_parts_mib, decode_query_len};
pub use crate::sglang::{mem_fraction_permille, memory_tier_defaults};
use crate::units::{prod, scale, MIB};

named_enum! {
    /// One kind of memory. The order is the chart's stacking order and never changes.
    pub enum Component {
        Weights => ("weights", "Weights"),
        Adapter => ("adapter", "LoRA adapters"),
        Master => ("master", "Master weights"),
        Gradients => ("grads", "Gradients"),
        Optimizer => ("optimizer", "Optimizer states"),
        Activations => ("activations", "Activations"),
        Logits => ("logits", "Logits and loss"),
        KvCache => ("kv", "KV cache"),
        Context => ("context", "CUDA context & workspaces"),
        Reserve => ("reserve", "Allocator reserve"),
    }
}

named_enum! {
    /// When a line's memory is alive.
    pub enum Phase {
        Always => ("always", "always"),
        Compute => ("compute", "forward / backward (prefill)"),
        Step => ("step", "optimizer step (decode)"),
        Load => ("load", "loading the weights"),
        /// A training run's evaluation loop: a forward without autograd over the evaluation batch.
        Eval => ("eval", "evaluation"),
    }
}

named_enum! {
    /// Where a line's memory is allocated, which decides which measuring tool sees it.
    pub enum Pool {
        /// PyTorch's caching allocator: `max_memory_allocated` / `reserved` and the device see it.
        Allocator => ("allocator", "caching allocator"),
        /// CUDA unified memory (cudaMallocManaged) outside the allocator: only the device sees it,
        /// while it is resident; the driver pages it out to host memory under pressure.
        Unified => ("unified", "CUDA unified memory"),
    }
}

/// A phase in the words of a job, for the shells to name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Moment {
    Always,
    StartOfBackward,
    OptimizerStep,
    Prefill,
    EndOfGeneration,
    LoadingWeights,
    Evaluation,
}

impl Phase {
    /// When the phase happens, in the words of the job: training or inference.
    pub fn describe(self, job: Job) -> Moment {
        match (self, job.is_training()) {
            (Phase::Always, _) => Moment::Always,
            (Phase::Compute, true) => Moment::StartOfBackward,
            (Phase::Step, true) => Moment::OptimizerStep,
            (Phase::Compute, false) => Moment::Prefill,
            (Phase::Step, false) => Moment::EndOfGeneration,
            (Phase::Load, _) => Moment::LoadingWeights,
            (Phase::Eval, _) => Moment::Evaluation,
        }
    }

    /// The moments whose transients compete for the peak, in tie-break order.
    pub const TRANSIENT: [Phase; 4] = [Phase::Compute, Phase::Step, Phase::Load, Phase::Eval];
}

/// One line of the budget: a component's bytes per GPU, when they are alive, and the arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub component: Component,
    pub phase: Phase,
    pub(crate) pool: Pool,
    pub bytes: u64,
    /// The formula with this scenario's numbers substituted (empty when not asked for); the
    /// shells write it in words.
    pub formula: Formula,
}

/// The whole budget of one scenario, per GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Breakdown {
    pub lines: Vec<Line>,
    /// The moment of the peak.
    pub peak_phase: Phase,
    /// Live tensor bytes at the peak (what torch.cuda.max_memory_allocated reports).
    pub tensors: u64,
    /// Bytes in CUDA unified memory at the peak (paged optimizer states): not in `tensors` nor
    /// in the allocator's reserve; on the device while resident.
    pub(crate) paged: u64,
    /// Everything on the device at the peak: tensors + paged + context + reserve (what
    /// nvidia-smi shows).
    pub total: u64,
    /// The caching allocator's reserved level (`torch.cuda.max_memory_reserved`): it never
    /// shrinks without `empty_cache()`, so it follows the largest moment, load included: tensors
    /// at the peak + the reserve. Unified memory (paged states) and the context are outside it.
    pub reserved: u64,
    /// Host memory that offloading uses, per GPU.
    pub cpu: u64,
    pub params: ParamCounts,
    pub active_params: u64,
    pub trainable: u64,
    /// KV-cache bytes of one token (all layers, one rank; a server's proposer included).
    pub kv_bytes_per_token: u64,
    /// An encoder–decoder model's cross-attention cache of one sequence (its whole source, one
    /// rank); 0 for a decoder-only model.
    pub(crate) cross_kv_per_sequence: u64,
    /// What a server pages for a hybrid model (its attention tokens and recurrent states).
    pub(crate) recurrent: Option<RecurrentPages>,
    /// A server's CUDA graphs (part of the context lines).
    pub cuda_graphs: u64,
    /// A tensor-parallel server's NCCL and all-reduce buffers (part of the context lines).
    pub(crate) comm_buffers: u64,
    pub serving: Option<ServingFit>,
    /// The pipeline stage this budget is for: the busiest one when the layers are split.
    pub stage: PipelineStage,
}

impl Breakdown {
    /// Whether a line is alive at the peak.
    pub fn at_peak(&self, line: &Line) -> bool {
        line.phase == Phase::Always || line.phase == self.peak_phase
    }

    /// Bytes of a component at the peak.
    pub fn bytes(&self, component: Component) -> u64 {
        self.lines
            .iter()
            .filter(|l| l.component == component && self.at_peak(l))
            .map(|l| l.bytes)
            .sum()
    }

    /// The breakdown's totals as they would be on `gpu` instead of the scenario's GPU (its lines
    /// stay the scenario's): only a server's communication memory depends on the card (its
    /// interconnect), and it adds one for one to the total.
    pub fn on_gpu(&self, s: &Scenario, gpu: crate::gpus::Gpu) -> std::borrow::Cow<'_, Breakdown> {
        if s.job != Job::Serving {
            return std::borrow::Cow::Borrowed(self);
        }
        let comm = crate::server::comm_mib_on(s, gpu, s.tp) * MIB;
        if comm == self.comm_buffers {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut b = self.clone();
        b.total = b.total - self.comm_buffers + comm;
        b.comm_buffers = comm;
        std::borrow::Cow::Owned(b)
    }

    /// The CUDA graphs a server captures after sizing its KV pool, out of what
    /// `gpu_memory_utilization` leaves (all of them before vLLM V1 0.21, none after).
    pub fn graphs_after_sizing(&self, s: &Scenario) -> u64 {
        if s.vllm.budgets_graphs() {
            0
        } else {
            self.cuda_graphs
        }
    }

    /// Bytes of a component when it is largest, whether or not that is the peak.
    pub fn largest(&self, component: Component) -> u64 {
        Phase::TRANSIENT
            .iter()
            .map(|p| {
                self.lines
                    .iter()
                    .filter(|l| {
                        l.component == component && (l.phase == Phase::Always || l.phase == *p)
                    })
                    .map(|l| l.bytes)
                    .sum()
            })
            .max()
            .unwrap_or(0)
    }
}

/// Estimates the scenario, formulas included.
pub fn estimate(s: &Scenario) -> Result<Breakdown, EngineError> {
    let arch = s.model.architecture()?;
    estimate_with(s, &arch, true)
}

/// Estimates the scenario for a known architecture; `explain` false skips the formula text (for solvers).
pub fn estimate_with(
    s: &Scenario,
    arch: &Architecture,
    explain: bool,
) -> Result<Breakdown, EngineError> {
    s.validate()?;
    arch.validate()?;
    if s.job.is_peft() && lora_params(arch, s) == 0 {
        return Err(EngineError::LoraTargetsAbsent(s.lora_targets));
    }
    let s = &*longest_step_view(s, arch);
    let (view, source) = encdec::decoder_view(s, arch);
    let b = busiest_stage(&view, arch, explain, source);
    // past an exbibyte a GPU the arithmetic has left physics (and saturated); say so instead
    if b.total >= MAX_PER_GPU || b.cpu >= MAX_PER_GPU {
        return Err(EngineError::BeyondHardware);
    }
    Ok(b)
}

/// The budget of the busiest pipeline stage (the whole model when it is not split): the per-GPU
/// figure is the GPU that holds the most, not the total ÷ the GPUs. The model's parameter
/// counts stay the whole model's.
fn busiest_stage(s: &Scenario, arch: &Architecture, explain: bool, source: u64) -> Breakdown {
    let whole = PipelineStage::whole(arch);
    if s.pipeline_stages() == 1 {
        return Budget::new(s, arch, whole, explain, source).run();
    }
    let trainable = Budget::new(s, arch, whole, false, source).trainable;
    let stages: Vec<Breakdown> = PipelineStage::candidates(s, arch)
        .into_iter()
        .map(|stage| stage_budget(s, arch, stage, explain, source))
        .collect();
    // a pipelined server runs with the blocks of its tightest stage: vLLM sizes every worker's
    // cache to the fewest blocks any worker can hold (V0 `_initialize_kv_caches`: `min` over
    // `determine_num_available_blocks`; V1 `get_kv_cache_configs` unifies them to the minimum)
    let fewest_blocks = stages
        .iter()
        .filter_map(|b| b.serving)
        .min_by_key(|f| f.blocks);
    let mut busiest = stages
        .into_iter()
        .reduce(|a, b| if b.total > a.total { b } else { a })
        .expect("a pipeline has at least one stage");
    if fewest_blocks.is_some() {
        busiest.serving = fewest_blocks;
    }
    busiest.params = arch.params();
    busiest.active_params = arch.active_params();
    busiest.trainable = trainable;
    busiest
}

/// The budget of one pipeline stage, as a model of its own.
fn stage_budget(
    s: &Scenario,
    arch: &Architecture,
    stage: PipelineStage,
    explain: bool,
    source: u64,
) -> Breakdown {
    let stage_arch = stage.architecture(arch);
    Budget::new(s, &stage_arch, stage, explain, source).run()
}

/// The budget of every pipeline stage, first to last (one when the model is not split), each
/// with the stage's own parameter counts.
pub fn estimate_stages(s: &Scenario, arch: &Architecture) -> Result<Vec<Breakdown>, EngineError> {
    estimate_with(s, arch, false)?;
    let s = &*longest_step_view(s, arch);
    let (view, source) = encdec::decoder_view(s, arch);
    let s = view.as_ref();
    if s.pipeline_stages() == 1 {
        return Ok(vec![Budget::new(
            s,
            arch,
            PipelineStage::whole(arch),
            false,
            source,
        )
        .run()]);
    }
    Ok(PipelineStage::all(s, arch)
        .into_iter()
        .map(|stage| stage_budget(s, arch, stage, false, source))
        .collect())
}

/// A decoder-only training job at the longest step its data can produce
/// ([`crate::step_tokens`]): its rows as long as the samples when they are shorter than the cap
/// and the batching does not fill rows to the cap.
fn longest_step_view<'a>(s: &'a Scenario, arch: &Architecture) -> std::borrow::Cow<'a, Scenario> {
    if !s.job.is_training() || arch.encoder.is_some() {
        return std::borrow::Cow::Borrowed(s);
    }
    let len = crate::scenario::step_tokens(s).budget_len();
    if len == s.seq {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut view = s.clone();
    view.seq = len.max(1);
    std::borrow::Cow::Owned(view)
}

/// The largest budget per GPU the engine reports (1 EiB); anything larger is an error.
pub const MAX_PER_GPU: u64 = 1 << 60;

/// LoRA parameters on a stage: adapters on the embeddings or the head only where they are.
fn pipeline_lora_params(arch: &Architecture, s: &Scenario, stage: PipelineStage) -> u64 {
    let all = lora_params(arch, s);
    let r = s.lora_rank;
    let mut absent = 0;
    if !stage.embeddings && s.lora_targets.contains("embed") {
        absent += r * (arch.vocab + arch.hidden);
    }
    if !stage.head && s.lora_targets.contains("head") {
        absent += r * (arch.hidden + arch.vocab);
    }
    all - absent
}

/// The budget while it is being built: the scenario, what follows from it, and the lines so far.
/// Each component family adds its lines in its own file (`impl Budget` there).
struct Budget<'a> {
    scenario: &'a Scenario,
    arch: &'a Architecture,
    /// Whether to write the formulas (the solvers skip them).
    explain: bool,
    lines: Vec<Line>,
    /// Host memory that offloading uses so far.
    cpu: u64,
    /// The weights' format as the job stores them.
    format: WeightFormat,
    /// Bytes of one activation element.
    act_bytes: u64,
    tp: u64,
    /// Data-parallel ranks: GPUs ÷ tensor parallel.
    dp: u64,
    /// Ranks a shard spans: the data-parallel ranks, or the shard group (HYBRID_SHARD) when smaller.
    shards: u64,
    params: ParamCounts,
    /// Everything that trains: the whole model, or the adapters plus `saved_copies`.
    trainable: u64,
    /// Parameters of the full embedding and head copies PEFT trains (modules_to_save).
    saved_copies: u64,
    /// A server's CUDA graphs, once counted.
    graph_bytes: u64,
    /// The pipeline stage budgeted (the whole model when it is not split).
    stage: PipelineStage,
    /// Source tokens an encoder–decoder model's encoder reads per sequence (0: decoder-only).
    source: u64,
    /// What the caching allocator keeps reserved once a quantizing load is done (0: no such load).
    load_reserved: u64,
}

impl<'a> Budget<'a> {
    fn new(
        scenario: &'a Scenario,
        arch: &'a Architecture,
        stage: PipelineStage,
        explain: bool,
        source: u64,
    ) -> Budget<'a> {
        let format = scenario.effective_weights();
        let act_bytes = if format == WeightFormat::Fp32 && !scenario.master_weights {
            4
        } else {
            2
        };
        let params = stage.params(arch);
        let ends = u64::from(stage.embeddings) + u64::from(stage.head);
        let saved_copies = if scenario.job.is_peft() && scenario.train_embed_head {
            prod(&[ends, arch.vocab, arch.hidden])
        } else {
            0
        };
        let trainable = match scenario.job {
            Job::Full => params.total() - params.extra,
            Job::Lora | Job::Qlora => pipeline_lora_params(arch, scenario, stage) + saved_copies,
            Job::Inference | Job::Serving | Job::Local => 0,
        };
        Budget {
            scenario,
            arch,
            explain,
            lines: Vec::with_capacity(16),
            cpu: 0,
            format,
            act_bytes,
            tp: scenario.tp,
            dp: scenario.data_parallel(),
            shards: parallel::shard_ranks(scenario),
            params,
            trainable,
            saved_copies,
            graph_bytes: 0,
            stage,
            source,
            load_reserved: 0,
        }
    }

    /// Adds a line of the caching allocator; `formula` runs only when the budget explains itself.
    fn push(
        &mut self,
        component: Component,
        phase: Phase,
        bytes: u64,
        formula: impl FnOnce(&Self) -> Formula,
    ) {
        self.push_at(Pool::Allocator, component, phase, bytes, formula);
    }

    /// Adds a line in a given pool.
    fn push_at(
        &mut self,
        pool: Pool,
        component: Component,
        phase: Phase,
        bytes: u64,
        formula: impl FnOnce(&Self) -> Formula,
    ) {
        let formula = if self.explain {
            formula(self)
        } else {
            Formula::new()
        };
        self.lines.push(Line {
            component,
            phase,
            pool,
            bytes,
            formula,
        });
    }

    /// Host memory for something offloaded.
    fn offload(&mut self, bytes: u64) {
        self.cpu = self.cpu.saturating_add(bytes);
    }

    /// The ZeRO stage that applies: inference shards nothing.
    fn zero(&self) -> Zero {
        if self.scenario.job.is_training() {
            self.scenario.zero
        } else {
            Zero::Z0
        }
    }

    /// Divisor of model states under ZeRO for a given stage threshold.
    fn shard(&self, from_stage: u8) -> u64 {
        if self.zero().stage() >= from_stage {
            self.shards
        } else {
            1
        }
    }

    /// The formula's divisions for model states that ZeRO shards from `stage` on, and for tensor
    /// parallelism.
    fn shard_clauses(&self, formula: &mut Formula, stage: u8) {
        if self.zero().stage() >= stage && self.shards > 1 {
            self.sharding_clause(formula);
        }
        self.tensor_parallel_clause(formula);
    }

    /// The formula's division by the tensor-parallel ranks, when there are several.
    fn tensor_parallel_clause(&self, formula: &mut Formula) {
        if self.tp > 1 {
            formula.push(Msg::TensorParallel, &[Arg::Int(self.tp)]);
        }
    }

    fn run(mut self) -> Breakdown {
        self.weights();
        if self.scenario.job.is_training() {
            self.adapters();
            self.training_states();
            self.training_activations();
            self.evaluation();
            self.encoder_training();
            self.data_parallel_buffers();
        } else {
            self.inference();
            self.encoder_inference();
            self.recurrent_state();
        }
        self.loading_sharded();
        let context = self.scenario.context_mib * MIB;
        self.push(Component::Context, Phase::Always, context, |b| {
            let mut f = Formula::of(Msg::Context, &[Arg::Int(b.scenario.context_mib)]);
            if b.scenario.job == Job::Serving && b.scenario.vllm.is_v1() {
                f.push(Msg::ContextBeforeSnapshot, &[]);
            }
            f.equals(context)
        });
        // the context lines: the CUDA context and, for a server, its graphs and NCCL buffers
        let context = self
            .lines
            .iter()
            .filter(|l| l.component == Component::Context && l.phase == Phase::Always)
            .map(|l| l.bytes)
            .fold(0u64, u64::saturating_add);
        let (peak_phase, tensors) = self.peak(context);
        let reserve = scale(tensors, self.scenario.reserve_pct, 100);
        self.push(Component::Reserve, Phase::Always, reserve, |b| {
            let pct = Arg::Int(b.scenario.reserve_pct);
            Formula::of(Msg::Reserve, &[pct, Arg::Bytes(tensors)]).equals(reserve)
        });
        let paged = self.paged_at(peak_phase);
        let total = tensors
            .saturating_add(paged)
            .saturating_add(context)
            .saturating_add(reserve);
        let serving = self.scenario.job == Job::Serving;
        let kv_bytes_per_token = self.kv_bytes(1, 1)
            + if serving {
                self.proposer_kv_per_token()
            } else {
                0
            };
        let comm_buffers = if serving {
            crate::server::comm_mib(self.scenario, self.tp) * MIB
        } else {
            0
        };
        let cross_kv_per_sequence = self.cross_kv_bytes(1);
        let recurrent = self.recurrent_pages();
        let mut b = Breakdown {
            lines: self.lines,
            peak_phase,
            tensors,
            paged,
            total,
            // the blocks a quantizing load left reserved, when training needs less
            reserved: tensors.saturating_add(reserve).max(self.load_reserved),
            cpu: self.cpu,
            params: self.params,
            active_params: self.arch.active_params(),
            trainable: self.trainable,
            kv_bytes_per_token,
            cross_kv_per_sequence,
            recurrent,
            cuda_graphs: self.graph_bytes,
            comm_buffers,
            serving: None,
            stage: self.stage,
        };
        if self.scenario.job == Job::Serving {
            b.serving = Some(ServingFit::on(&b, self.scenario, self.scenario.gpu));
        }
        b
    }

    /// Bytes in unified memory alive at `peak_phase`.
    fn paged_at(&self, peak_phase: Phase) -> u64 {
        self.lines
            .iter()
            .filter(|l| l.pool == Pool::Unified)
            .filter(|l| l.phase == Phase::Always || l.phase == peak_phase)
            .map(|l| l.bytes)
            .fold(0u64, u64::saturating_add)
    }

    /// The moment of the peak and the live tensor bytes then: what is always alive in the
    /// allocator (but the `context`) plus the largest transient moment; on a tie the earlier one
    /// in TRANSIENT.
    fn peak(&self, context: u64) -> (Phase, u64) {
        let sum = |p: Phase| -> u64 {
            self.lines
                .iter()
                .filter(|l| l.phase == p && l.pool == Pool::Allocator)
                .map(|l| l.bytes)
                .fold(0u64, u64::saturating_add)
        };
        let always_tensors = sum(Phase::Always) - context;
        let (peak_phase, transient) = Phase::TRANSIENT.iter().map(|&p| (p, sum(p))).fold(
            (Phase::Compute, 0),
            |best, (p, v)| {
                if v > best.1 {
                    (p, v)
                } else {
                    best
                }
            },
        );
        (peak_phase, always_tensors.saturating_add(transient))
    }
}

#[cfg(test)]
mod checkpointing_tests;
#[cfg(test)]
mod encdec_tests;
#[cfg(test)]
mod finetune_tests;
#[cfg(test)]
mod frameworks_tests;
#[cfg(test)]
mod hybrid_tests;
#[cfg(test)]
mod hybrid_validation_tests;
#[cfg(test)]
mod lglora_tests;
#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
mod seeds_tests;
#[cfg(test)]
mod serving_tests;
#[cfg(test)]
mod vllm_graphs_tests;
#[cfg(test)]
mod zamba2_tests;
