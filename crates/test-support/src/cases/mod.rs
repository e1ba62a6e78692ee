//! The measured validation cases, mapped to engine scenarios and compared like with like.
//!
//! Used by the engine's `tests/engine/validation.rs` and `examples/validate.rs`. It reads
//! `cases.jsonl` (the sources, with their words) and `normalized.jsonl` (the same cases as plain
//! fields) from the repository's `validation/` folder (its README describes the format) or from
//! `$VRAM_VALIDATION_DIR`, builds one [`Scenario`] per case with
//! a custom [`Architecture`], and compares the figure that was measured with the engine's figure
//! of the same kind:
//!
//! - allocator peaks (`max_memory_allocated`, torchtune's active/peak) with the breakdown's `tensors`;
//! - `max_memory_reserved` with `tensors` plus the allocator reserve;
//! - nvidia-smi / pynvml / device-level figures with `total` (tensors + CUDA context + reserve);
//! - vLLM's logged KV cache (GiB or GPU blocks) with the engine's serving fit;
//! - a model-load peak with the weights (and adapters).
//!
//! The same settings hold for every case of a kind: scenario defaults for the CUDA context and
//! the allocator reserve unless the case states them. No per-case factor.

mod bands;
pub mod cpu;
pub mod gguf_shape;
mod gpu;
pub mod llamacpp;

pub use gpu::gpu;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use vram_engine::memory::lora_params;
use vram_engine::GIB;
use vram_engine::{
    fit::startup_concurrency, memory::ServingFit, model::Encoder, model::MlpKind, model::Moe,
    model::NormKind, scenario::Server,
};
use vram_engine::{fit::BandLevel, fit::FrameworkFamily};
use vram_engine::{
    memory::estimate_with, scenario::Attention, scenario::Checkpointing, scenario::DpFramework,
    scenario::Framework, scenario::LoraTargets, scenario::Loss, scenario::Offload,
    scenario::Optimizer, scenario::PipelineSchedule, scenario::VllmVersion, scenario::WeightsLoad,
    scenario::Zero, Architecture, Breakdown, Component, Gpu, Job, ModelChoice, Scenario, Setting,
    SettingValue, WeightFormat,
};

/// The on/off settings a case's notes list when they are on (master weights and dropout are set
/// for every case).
const FRAMEWORK_SWITCHES: [&str; 14] = [
    "mts", "dora", "obw", "ao", "qh", "a16", "ks", "kvh", "po", "gbv", "sqp", "fns", "ku", "c32",
];

/// The target the report is held to: median and 90th-percentile absolute error, in percent.
pub const TARGET_MEDIAN_PCT: f64 = 10.0;
pub const TARGET_P90_PCT: f64 = 25.0;

/// The environment variable that points the comparison at another folder of cases in the same
/// format.
pub const DIR_VAR: &str = "VRAM_VALIDATION_DIR";

/// Where the validation files are: `$VRAM_VALIDATION_DIR`, else the repository's `validation/`.
pub fn validation_dir() -> PathBuf {
    match std::env::var_os(DIR_VAR) {
        Some(d) => PathBuf::from(d),
        None => in_repo_validation_dir(),
    }
}

/// The validation set carried in the repository: `validation/` at its root.
pub fn in_repo_validation_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation")
}

/// The task groups the statistics are split by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    Inference,
    Serving,
    Full,
    Lora,
    Qlora,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Inference,
        Group::Serving,
        Group::Full,
        Group::Lora,
        Group::Qlora,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Group::Inference => "inference",
            Group::Serving => "serving",
            Group::Full => "full fine-tune",
            Group::Lora => "LoRA",
            Group::Qlora => "QLoRA",
        }
    }

    fn of(job: Job) -> Group {
        match job {
            Job::Inference | Job::Local => Group::Inference,
            Job::Serving => Group::Serving,
            Job::Full => Group::Full,
            Job::Lora => Group::Lora,
            Job::Qlora => Group::Qlora,
        }
    }
}

/// What was measured, and therefore which engine figure it is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Live tensor bytes (max_memory_allocated, torchtune active/peak): the breakdown's `tensors`.
    Tensors,
    /// max_memory_reserved: `tensors` plus the allocator reserve.
    Reserved,
    /// nvidia-smi / pynvml / device monitor: `total`.
    Device,
    /// The allocator peak right after loading the model: weights and adapters.
    Load,
    /// The device right after loading the model (nvidia-smi): weights, adapters and the CUDA context.
    LoadDevice,
    /// vLLM's logged KV-cache size in GiB: the serving fit's KV pool.
    VllmKvPool,
    /// vLLM's logged number of GPU blocks: the serving fit's blocks.
    VllmBlocks,
    /// SGLang's `max_total_num_tokens` ("KV Cache is allocated. #tokens"): the serving fit's tokens.
    SglangTokens,
}

impl Measure {
    pub fn label(self) -> &'static str {
        match self {
            Measure::Tensors => "allocated (tensors)",
            Measure::Reserved => "reserved (tensors + reserve)",
            Measure::Device => "device (total)",
            Measure::Load => "allocated after load (weights)",
            Measure::LoadDevice => "device after load (weights + context)",
            Measure::VllmKvPool => "vLLM KV cache (GiB)",
            Measure::VllmBlocks => "vLLM GPU blocks",
            Measure::SglangTokens => "SGLang KV tokens",
        }
    }

    /// The level of the error bands this measure's residuals go into.
    pub fn band_level(self) -> BandLevel {
        match self {
            Measure::Tensors => BandLevel::Allocated,
            Measure::Reserved => BandLevel::Reserved,
            Measure::Device => BandLevel::Device,
            Measure::Load | Measure::LoadDevice => BandLevel::Load,
            Measure::VllmKvPool | Measure::VllmBlocks | Measure::SglangTokens => BandLevel::KvPool,
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Measure::VllmBlocks => "blocks",
            Measure::SglangTokens => "tokens",
            _ => "GiB",
        }
    }
}

/// One case mapped to a scenario.
#[derive(Clone, Debug)]
pub struct Mapped {
    pub scenario: Scenario,
    pub arch: Architecture,
    pub group: Group,
    /// The family of the program the case ran with.
    pub family: FrameworkFamily,
    pub measure: Measure,
    /// The measured figure, in `measure.unit()`.
    pub measured: f64,
    /// The parameter count the source states.
    pub stated_params: Option<u64>,
    /// How the mapping read the case, where it had to choose.
    pub notes: Vec<String>,
}

/// One compared case: how it was mapped, and the engine's figure for it.
#[derive(Clone, Debug)]
pub struct Compared {
    pub id: String,
    pub task: String,
    pub completeness: String,
    pub mapped: Mapped,
    pub estimated: f64,
    /// The engine's components at its peak, in GiB (and the serving fit where it applies).
    pub components: String,
    pub breakdown: Breakdown,
}

impl Compared {
    /// Signed error of the estimate, in percent of the measurement.
    pub fn error_pct(&self) -> f64 {
        (self.estimated - self.mapped.measured) / self.mapped.measured * 100.0
    }

    /// measured ÷ estimated − 1, in tenths of a percent: where the run landed from the estimate.
    pub fn residual_permille(&self) -> i32 {
        ((self.mapped.measured / self.estimated - 1.0) * 1_000.0).round() as i32
    }

    /// Whether the case counts in the statistics (complete or mostly complete).
    pub fn counted(&self) -> bool {
        matches!(self.completeness.as_str(), "complete" | "mostly")
    }
}

/// What became of one case.
#[derive(Clone, Debug)]
pub enum Outcome {
    Compared(Box<Compared>),
    /// The run used something the engine cannot express; `reference` is the engine's figure for the
    /// same run without that feature, when the rest maps.
    NotExpressible {
        id: String,
        task: String,
        group: Option<Group>,
        why: String,
        reference: Option<Box<Compared>>,
    },
    /// The case cannot be compared at all (partial inputs, a figure that is not memory).
    Skipped {
        id: String,
        task: String,
        why: String,
    },
}

impl Outcome {
    pub fn id(&self) -> &str {
        match self {
            Outcome::Compared(c) => &c.id,
            Outcome::NotExpressible { id, .. } | Outcome::Skipped { id, .. } => id,
        }
    }
}

/// Median and 90th percentile of absolute errors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub n: usize,
    pub median: f64,
    pub p90: f64,
    pub max: f64,
}

/// The `q` quantile (0..=1) of sorted values, linearly interpolated between ranks (numpy's default).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

pub fn stats<'a>(cases: impl Iterator<Item = &'a Compared>) -> Option<Stats> {
    let mut errs: Vec<f64> = cases.map(|c| c.error_pct().abs()).collect();
    if errs.is_empty() {
        return None;
    }
    errs.sort_by(|a, b| a.total_cmp(b));
    Some(Stats {
        n: errs.len(),
        median: quantile(&errs, 0.5),
        p90: quantile(&errs, 0.9),
        max: *errs.last().unwrap(),
    })
}

/// Every case, mapped and compared.
pub struct Report {
    pub outcomes: Vec<Outcome>,
}

impl Report {
    /// Reads both files from `dir` and evaluates every case.
    pub fn load(dir: &Path) -> Result<Report, String> {
        let cases = read_jsonl(&dir.join("cases.jsonl"))?;
        let normalized = read_jsonl(&dir.join("normalized.jsonl"))?;
        let by_id: HashMap<String, &Value> = normalized
            .iter()
            .map(|n| (str_of(n, "id").to_string(), n))
            .collect();
        let mut outcomes = Vec::with_capacity(cases.len());
        for c in &cases {
            let id = str_of(c, "id");
            let n = by_id
                .get(id)
                .ok_or_else(|| format!("{id} is in cases.jsonl but not in normalized.jsonl"))?;
            outcomes.push(evaluate(c, n));
        }
        outcomes.sort_by_key(order_key);
        Ok(Report { outcomes })
    }

    pub fn compared(&self) -> impl Iterator<Item = &Compared> {
        self.outcomes.iter().filter_map(|o| match o {
            Outcome::Compared(c) => Some(&**c),
            _ => None,
        })
    }

    /// The compared cases that count in the statistics.
    pub fn counted(&self) -> impl Iterator<Item = &Compared> {
        self.compared().filter(|c| c.counted())
    }

    pub fn stats(&self, group: Option<Group>) -> Option<Stats> {
        stats(
            self.counted()
                .filter(|c| group.is_none_or(|g| c.mapped.group == g)),
        )
    }

    /// The counted cases, worst absolute error first.
    pub fn worst(&self) -> Vec<&Compared> {
        let mut v: Vec<&Compared> = self.counted().collect();
        v.sort_by(|a, b| b.error_pct().abs().total_cmp(&a.error_pct().abs()));
        v
    }

    /// A plain-text table for the terminal.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<20} {:<15} {:<9} {:<30} {:>10} {:>10} {:>8}  components at the engine's peak (GiB)",
            "case", "task", "inputs", "measured as", "measured", "estimated", "error"
        );
        for c in self.compared() {
            let _ = writeln!(
                out,
                "{:<20} {:<15} {:<9} {:<30} {:>10} {:>10} {:>7.1}%  {}",
                c.id,
                c.mapped.group.label(),
                c.completeness,
                c.mapped.measure.label(),
                fmt_value(c.mapped.measured, c.mapped.measure),
                fmt_value(c.estimated, c.mapped.measure),
                c.error_pct(),
                c.components
            );
        }
        out.push('\n');
        out.push_str(&self.summary_text());
        out.push('\n');
        for o in &self.outcomes {
            match o {
                Outcome::NotExpressible {
                    id, why, reference, ..
                } => {
                    let r = reference
                        .as_ref()
                        .map(|r| {
                            format!(
                                " [without it: {} vs {} measured, {:+.1}%]",
                                fmt_value(r.estimated, r.mapped.measure),
                                fmt_value(r.mapped.measured, r.mapped.measure),
                                r.error_pct()
                            )
                        })
                        .unwrap_or_default();
                    let _ = writeln!(out, "not expressible  {id:<20} {why}{r}");
                }
                Outcome::Skipped { id, why, .. } => {
                    let _ = writeln!(out, "skipped          {id:<20} {why}");
                }
                Outcome::Compared(_) => {}
            }
        }
        out
    }

    fn summary_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<16} {:>3} {:>10} {:>10} {:>10}   (complete + mostly complete cases)",
            "task", "n", "median", "p90", "max"
        );
        for g in Group::ALL.iter().map(|g| Some(*g)).chain([None]) {
            let name = g.map(|g| g.label()).unwrap_or("overall");
            match self.stats(g) {
                Some(s) => {
                    let _ = writeln!(
                        out,
                        "{:<16} {:>3} {:>9.1}% {:>9.1}% {:>9.1}%",
                        name, s.n, s.median, s.p90, s.max
                    );
                }
                None => {
                    let _ = writeln!(out, "{name:<16}   0");
                }
            }
        }
        out
    }

    /// The accuracy report in Markdown. `extra` is appended (the CPU measurements).
    pub fn markdown(&self, command: &str, extra: &str) -> String {
        let mut out = String::new();
        out.push_str("# Accuracy against measured GPU memory\n\n");
        out.push_str("Generated by the validation program from the measured cases in the repository's `validation/` folder\n");
        out.push_str("(their format and where each came from: [validation/README.md](../validation/README.md)); do not edit\n");
        out.push_str("by hand. To reproduce, from the repository root:\n\n");
        let _ = writeln!(out, "```sh\nmake validate\n```\n");
        let _ = writeln!(
            out,
            "which runs `{command}`.\n\
             With `{DIR_VAR}` set to another folder of cases in the same format, the same command scores\n\
             that set instead.\n"
        );
        out.push_str("`cargo test -p vram-engine --test engine validation::` runs the same comparison and holds the engine to the\n");
        out.push_str("thresholds it meets today.\n\n");

        out.push_str("## Summary\n\n");
        let _ = writeln!(
            out,
            "Absolute error of the estimate against the measurement, over the cases whose inputs are complete or mostly\n\
             complete and that the engine can express. Target: median within {TARGET_MEDIAN_PCT:.0} %, 90th percentile within {TARGET_P90_PCT:.0} %.\n\
             Percentiles interpolate linearly between ranks.\n"
        );
        out.push_str(
            "| task | cases | median | 90th percentile | worst | median ≤ 10 % | p90 ≤ 25 % |\n",
        );
        out.push_str("|---|---:|---:|---:|---:|:-:|:-:|\n");
        for g in Group::ALL.iter().map(|g| Some(*g)).chain([None]) {
            let name = g.map(|g| g.label()).unwrap_or("**overall**");
            if let Some(s) = self.stats(g) {
                let _ = writeln!(
                    out,
                    "| {name} | {} | {:.1} % | {:.1} % | {:.1} % | {} | {} |",
                    s.n,
                    s.median,
                    s.p90,
                    s.max,
                    tick(s.median <= TARGET_MEDIAN_PCT),
                    tick(s.p90 <= TARGET_P90_PCT)
                );
            } else {
                let _ = writeln!(out, "| {name} | 0 | – | – | – | – | – |");
            }
        }
        let n_ne = self
            .outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::NotExpressible { .. }))
            .count();
        let n_sk = self
            .outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::Skipped { .. }))
            .count();
        let n_partial = self.compared().filter(|c| !c.counted()).count();
        let _ = writeln!(
            out,
            "\n{} cases in the set: {} compared ({} of them partial, shown but not counted), {} not expressible yet, {} skipped.\n",
            self.outcomes.len(),
            self.compared().count(),
            n_partial,
            n_ne,
            n_sk
        );

        out.push_str(&self.by_framework_markdown());
        out.push_str(&self.bands_markdown());
        out.push_str("## How each case is compared\n\n");
        out.push_str(
            "- **allocated (tensors)**: `torch.cuda.max_memory_allocated`, torchtune's active/peak, litgpt's \"Memory used\" \
             → the breakdown's live tensors at the peak (no CUDA context, no allocator cache, no paged optimizer states).\n\
             - **reserved**: `max_memory_reserved` (or PEFT's `memory_reserved()` after each step) → tensors × (1 + reserve %).\n\
             - **device (total)**: nvidia-smi, pynvml, a GPU monitor, and sources that do not name their tool (Qwen's \
             fine-tuning table) → tensors + paged optimizer states (CUDA unified memory, resident) + CUDA context + reserve.\n\
             - **vLLM**: the KV cache it reserved (GiB) or its `# GPU blocks` → the serving fit's KV pool: \
             `gpu_memory_utilization` × the total the CUDA driver reports (`cudaMemGetInfo`, below nvidia-smi's) \
             − weights − profile activations − sampler logits (`max_num_seqs` rows) − non-torch memory: the context \
             (V0; V1 measures from a snapshot taken after the context exists), NCCL buffers under tensor parallelism, \
             and from V1 0.21 the CUDA graphs (before, they are captured after the pool is sized). \
             Each served case's notes also give the maximum concurrency vLLM prints at start-up, computed as \
             vLLM computes it (KV tokens ÷ `max_model_len`), from the engine's pool and, where the log gives \
             blocks, from the logged blocks: the two differ by exactly the case's error.\n\
             - **SGLang**: the tokens its log prints (`max_total_num_tokens`, \"KV Cache is allocated. #tokens\") → \
             the serving fit's tokens: `mem_fraction_static` × what is free before the weights load (the driver's \
             total less the CUDA context and the communicators) − weights, over the KV bytes per token.\n\
             - **allocated after load**: the peak right after loading the model → weights + adapters; \
             **device after load** (nvidia-smi once the model is loaded) → weights + adapters + CUDA context.\n\n\
             Settings every case of a kind shares: CUDA context 1024 MiB and allocator reserve 5 % (scenario defaults) \
             unless the source states them (the BERT runs state 1343 MiB of context; a one-GPU vLLM log its \
             `non_torch` memory); vLLM cases use block size 16, \
             the vLLM engine (V0/V1), `max_num_seqs` and `max_num_batched_tokens` as the case states them, \
             else that engine's defaults (V0: 256 sequences, max(max_model_len, 2048) tokens, 2048 past 32k of context; \
             V1: 1024 sequences and 8192 tokens on GPUs of 70 GiB or more but the A100, 256 and 2048 below). \
             LoRA adapters are fp32 (`master_weights`) for PEFT (its default) and 16-bit for torchtune and litgpt \
             (bf16-true); torch AdamW on pure-bf16 weights keeps bf16 states. torchao NF4 (torchtune QLoRA) is read as \
             NF4 with double quantization (it quantizes the block scales to int8 the same way). \
             Framework behaviours are the engine's switches, set from what each case states, never from its id: \
             litgpt/Lightning quantize the output head with the layers (`qh`); bitsandbytes formats add the \
             moment the largest matrix is on the GPU in 16-bit while loading; a chunked loss under `compile: true` \
             keeps 16-bit logits (`ls=compiled`), without it fp32 log-probs (`ls=chunked`); `optimizer_in_bwd` → \
             `obw`; `activation_offload` → `ao`; `modules_to_save` on the embeddings and head → `mts`; `use_dora` → `dora`; a static \
             cache → `ks` sized by its stated max_seq_len, cached after GQA expansion → `kvh`; an FP8 checkpoint \
             with bf16 attention → `a16`; a bitsandbytes paged optimizer (PagedAdamW, `paged_adamw_*`) → `po`, whose \
             states of tensors of 100,000 elements or more sit in CUDA unified memory: only device-level figures count them. litgpt under FSDP accumulates with Lightning Fabric's `no_backward_sync`, which calls FSDP's `no_sync()` (litgpt 8641822 `finetune/lora.py`, Lightning 71aed75 `fabric/strategies/fsdp.py`) → `fns`: unsharded gradients until the step, for LoRA the whole flat gradient of each Block unit its adapters sit in (`use_orig_params=True`, Lightning's default); its FSDP weights load as meta-device init, then `load_raw` one unit at a time (sharded). \
             A composed layout is read from the degrees the case states (`tp`, `pp`: data parallel is what the GPUs leave), \
             its pipeline schedule (1F1B unless GPipe or interleaved 1F1B is named, the latter with the stated chunks per GPU, `vs`, else 2), sequence parallelism when the strategy says so (`sqp`), and \
             the micro-batches of a pipeline step as its accumulation; the estimate is the busiest stage, compared with \
             sources that report the largest GPU. Checkpointing follows the granularity stated: per layer, \
             torchtitan's operator-level selective (`gc=op`) or Megatron's selective attention (`gc=selective`). \
             An encoder–decoder case (T5, Whisper) gets both stacks and the cross-attention from its shape; its \
             stated source length is the sequence (`s`) and its target tokens the decoder's (`tl`); Whisper reads its \
             fixed 30-second window. \
             Units: GB = 10⁹ B, GiB = 2³⁰ B; figures summed over GPUs are divided by the GPU count. \
             A case is *not expressible* when the run used something that moves or removes a first-order component \
             the engine cannot switch off; second-order differences (torch.compile outside the loss, \
             fused-qkv LoRA) are compared and noted.\n\n",
        );

        out.push_str("## Case by case\n\n");
        out.push_str("Components at the engine's peak, in GiB: `weights`, `adapter`, `master`, `grads`, `optimizer`, `activations`, \
                      `logits`, `kv`, and `context` + `reserve` where the comparison includes them.\n\n");
        out.push_str("| case | task | inputs | measured as | measured | estimated | error | components at the peak | notes |\n");
        out.push_str("|---|---|---|---|---:|---:|---:|---|---|\n");
        for c in self.compared() {
            let _ = writeln!(
                out,
                "| {}{} | {} | {} | {} | {} | {} | {:+.1} % | {} | {} |",
                c.id,
                if c.counted() { "" } else { " ¹" },
                c.mapped.group.label(),
                c.completeness,
                c.mapped.measure.label(),
                fmt_value(c.mapped.measured, c.mapped.measure),
                fmt_value(c.estimated, c.mapped.measure),
                c.error_pct(),
                c.components,
                md_escape(&c.mapped.notes.join("; "))
            );
        }
        out.push_str("\n¹ partial inputs: shown, not counted in the statistics.\n\n");

        out.push_str("## Ten worst cases\n\n");
        out.push_str("| case | task | measured as | measured | estimated | error | estimated − measured | components at the peak |\n");
        out.push_str("|---|---|---|---:|---:|---:|---:|---|\n");
        for c in self.worst().into_iter().take(10) {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:+.1} % | {}{} {} | {} |",
                c.id,
                c.mapped.group.label(),
                c.mapped.measure.label(),
                fmt_value(c.mapped.measured, c.mapped.measure),
                fmt_value(c.estimated, c.mapped.measure),
                c.error_pct(),
                if c.estimated >= c.mapped.measured {
                    "+"
                } else {
                    "−"
                },
                fmt_value((c.estimated - c.mapped.measured).abs(), c.mapped.measure),
                c.mapped.measure.unit(),
                c.components
            );
        }
        out.push_str("\n## What the engine cannot express yet\n\n");
        out.push_str("| case | task | why | engine without it |\n|---|---|---|---|\n");
        for o in &self.outcomes {
            if let Outcome::NotExpressible {
                id,
                task,
                why,
                reference,
                ..
            } = o
            {
                let r = reference
                    .as_ref()
                    .map(|r| {
                        format!(
                            "{} vs {} measured ({:+.1} %)",
                            fmt_value(r.estimated, r.mapped.measure),
                            fmt_value(r.mapped.measured, r.mapped.measure),
                            r.error_pct()
                        )
                    })
                    .unwrap_or_else(|| "–".into());
                let _ = writeln!(
                    out,
                    "| {id} | {} | {} | {r} |",
                    md_escape(task),
                    md_escape(why)
                );
            }
        }
        out.push_str("\n## Skipped\n\n| case | task | why |\n|---|---|---|\n");
        for o in &self.outcomes {
            if let Outcome::Skipped { id, task, why } = o {
                let _ = writeln!(out, "| {id} | {} | {} |", md_escape(task), md_escape(why));
            }
        }
        if !extra.is_empty() {
            out.push('\n');
            out.push_str(extra);
        }
        out
    }
}

fn tick(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "**no**"
    }
}

pub fn fmt_value(v: f64, m: Measure) -> String {
    match m {
        Measure::VllmBlocks | Measure::SglangTokens => format!("{v:.0}"),
        _ => format!("{v:.2}"),
    }
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

fn order_key(o: &Outcome) -> (u8, Group, String) {
    match o {
        Outcome::Compared(c) => (0, c.mapped.group, c.id.clone()),
        Outcome::NotExpressible { id, group, .. } => (1, group.unwrap_or(Group::Full), id.clone()),
        Outcome::Skipped { id, .. } => (2, Group::Full, id.clone()),
    }
}

pub fn read_jsonl(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

// ---- reading fields ------------------------------------------------------------------------------

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn lower(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.to_ascii_lowercase(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string().to_ascii_lowercase(),
    }
}

fn uint(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(|x| {
        x.as_u64()
            .or_else(|| x.as_f64().filter(|f| *f >= 0.0).map(|f| f.round() as u64))
    })
}

fn float(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn flag(v: &Value, key: &str) -> bool {
    match v.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => matches!(s.to_ascii_lowercase().as_str(), "true" | "yes" | "1"),
        _ => false,
    }
}

/// The first whole number right after `after` in `text` (e.g. "gradient_accumulation 2").
fn number_after(text: &str, after: &str) -> Option<u64> {
    let i = text.find(after)? + after.len();
    let digits: String = text[i..]
        .trim_start_matches([' ', '~', '=', ':'])
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The whole number right before `before` in `text` (e.g. "~1343 MiB CUDA context").
fn number_before(text: &str, before: &str) -> Option<u64> {
    let i = text.find(before)?;
    let head = text[..i].trim_end();
    let digits: String = head
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

// ---- the mapping ---------------------------------------------------------------------------------

/// Model families whose shape differs from Llama's in ways the parameter count and memory see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Llama,
    /// Qwen (1): fused c_attn with a bias, c_proj for both attention output and MLP down, w1/w2 up.
    Qwen1,
    /// Qwen2/2.5: q, k, v with biases.
    Qwen2,
    Bert,
    GptBigCode,
    Phi,
    Falcon,
    GptNeox,
    Bloom,
    T5,
    Whisper,
}

fn family(c: &Value, n: &Value) -> Family {
    let model = lower(c, "model");
    let note = c.get("arch").map(|a| lower(a, "note")).unwrap_or_default();
    if flag(n, "enc_dec") && model.contains("whisper") {
        Family::Whisper
    } else if flag(n, "enc_dec") || note.contains("encoder-decoder") {
        Family::T5
    } else if flag(n, "encoder_only") || model.contains("bert") {
        Family::Bert
    } else if flag(n, "qwen1") {
        Family::Qwen1
    } else if model.contains("qwen2") {
        Family::Qwen2
    } else if model.contains("bigcode")
        || model.contains("starcoder")
        || note.contains("gptbigcode")
    {
        Family::GptBigCode
    } else if model.contains("phi-1") || model.contains("phi-2") {
        Family::Phi
    } else if model.contains("falcon") {
        Family::Falcon
    } else if note.contains("gpt-neox")
        || model.contains("pythia")
        || model.contains("stablelm-base-alpha")
    {
        Family::GptNeox
    } else if model.contains("bloom") {
        Family::Bloom
    } else {
        Family::Llama
    }
}

/// The architecture from the case's shape fields, with the family's MLP, norms, biases and
/// positions; `extra_params` takes what the shape cannot express so the total is the stated count.
fn architecture(n: &Value, fam: Family, notes: &mut Vec<String>) -> Result<Architecture, String> {
    let need = |k: &str| {
        uint(n, k)
            .filter(|v| *v > 0)
            .ok_or_else(|| format!("normalized field {k} is missing"))
    };
    let (layers, hidden, heads, kv, hd, ffn, vocab) = (
        need("L")?,
        need("h")?,
        need("H")?,
        need("KV")?,
        need("hd")?,
        need("f")?,
        need("V")?,
    );
    let tied = flag(n, "tied");
    let mut a = Architecture::llama(vocab, hidden, ffn, layers, heads, kv, tied);
    a.head_dim = hd;
    // routed experts, where the case states them (`f` is then one expert's intermediate size)
    if let (Some(experts), Some(top_k)) = (uint(n, "experts"), uint(n, "top_k")) {
        a.moe = Some(Moe {
            experts,
            top_k,
            expert_ffn: ffn,
            shared_ffn: 0,
            dense_layers: 0,
            expert_bias: false,
            router_bias: false,
            shared_gate: false,
        });
    }
    let gpt_style = |a: &mut Architecture, bias: bool| {
        a.mlp = MlpKind::Plain;
        a.norm = NormKind::Layer;
        a.qkv_bias = bias;
        a.out_bias = bias;
        a.mlp_bias = bias;
    };
    match fam {
        Family::Llama => {}
        Family::T5 => t5_stacks(&mut a, n),
        Family::Whisper => {
            gpt_style(&mut a, true);
            whisper_stacks(&mut a, n)?;
        }
        Family::Qwen1 | Family::Qwen2 => a.qkv_bias = true,
        Family::Bert => {
            gpt_style(&mut a, true);
            a.positions = 512;
            a.dropout = true;
            a.max_context = 512;
        }
        Family::GptBigCode => {
            gpt_style(&mut a, true);
            a.positions = 8_192;
            a.max_context = 8_192;
        }
        Family::Phi => {
            gpt_style(&mut a, true);
            a.norms_per_layer = 1;
            a.head_bias = true;
        }
        Family::Falcon => {
            gpt_style(&mut a, false);
            a.norms_per_layer = 1;
        }
        Family::GptNeox | Family::Bloom => gpt_style(&mut a, true),
    }
    if let Some(stated) = uint(n, "P") {
        let shape = a.params().total();
        if shape > stated && !a.tied && shape - stated >= vocab * hidden / 2 {
            // the stated count only adds up with the head tied to the embeddings (transformers counts a
            // shared tensor once): GPTBigCode ties by default
            a.tied = true;
            notes.push("arch says untied, but the stated parameter count only adds up with a tied head: tied".into());
        }
        let shape = a.params().total();
        if stated >= shape {
            a.extra_params = stated - shape;
            if a.extra_params > stated / 1000 {
                notes.push(format!(
                    "{} parameters outside the shape (extra)",
                    vram_engine::units::short_count(a.extra_params)
                ));
            }
        } else if shape - stated > stated / 1000 {
            notes.push(format!(
                "the shape has {} more parameters than stated",
                vram_engine::units::short_count(shape - stated)
            ));
        }
    }
    a.validate().map_err(|e| e.to_string())?;
    Ok(a)
}

/// T5 (and mT5, T0): `L` counts both stacks, `L_cfg` each; relative attention with 32 buckets
/// (every T5 config's `relative_attention_num_buckets`); v1.0's ReLU FFN (wi, wo) or v1.1's
/// gated GELU (wi_0, wi_1, wo), whichever gives the stated parameter count.
fn t5_stacks(a: &mut Architecture, n: &Value) {
    let per_stack = uint(n, "L_cfg").unwrap_or(a.layers / 2).max(1);
    a.layers = per_stack;
    a.norms_per_layer = 3;
    a.max_context = 512;
    a.encoder = Some(Encoder {
        layers: per_stack,
        heads: a.heads,
        head_dim: a.head_dim,
        ffn: a.intermediate,
        positions: 0,
        max_source: None,
        fixed_source: false,
        buckets: 32,
        mel_bins: 0,
        stack_norms: 1,
        k_bias: true,
    });
    let plain = Architecture {
        mlp: MlpKind::Plain,
        ..a.clone()
    };
    if uint(n, "P") == Some(plain.params().total()) {
        *a = plain;
    }
}

/// Whisper: `L` decoder layers, `L_enc` encoder layers, `mel` input channels of the conv front
/// end; 1,500 encoder positions (30 s of audio) and 448 decoder positions in every size; `k`
/// without a bias.
fn whisper_stacks(a: &mut Architecture, n: &Value) -> Result<(), String> {
    a.norms_per_layer = 3;
    a.positions = 448;
    a.max_context = 448;
    a.tied = true;
    a.encoder = Some(Encoder {
        layers: uint(n, "L_enc").ok_or("normalized field L_enc is missing")?,
        heads: a.heads,
        head_dim: a.head_dim,
        ffn: a.intermediate,
        positions: 1_500,
        max_source: Some(1_500),
        fixed_source: true,
        buckets: 0,
        mel_bins: uint(n, "mel").ok_or("normalized field mel is missing")?,
        stack_norms: 1,
        k_bias: false,
    });
    Ok(())
}

/// LoRA target names of the sources, mapped to the engine's modules.
fn lora_targets(c: &Value, fam: Family, notes: &mut Vec<String>) -> LoraTargets {
    let lora = match c.get("lora") {
        Some(l) if l.is_object() => l,
        _ => return LoraTargets::parse("q,v").expect("static names"),
    };
    let names: Vec<String> = match lora.get("targets") {
        Some(Value::String(s)) => vec![s.to_ascii_lowercase()],
        Some(Value::Array(xs)) => xs
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_ascii_lowercase)
            .collect(),
        _ => vec![],
    };
    let mut t = LoraTargets::empty();
    let add = |t: &mut LoraTargets, ms: &str| {
        for m in ms.split(',') {
            *t = t.with(m, true);
        }
    };
    for name in &names {
        let name = name.as_str();
        match name {
            "all-linear" | "all" => add(&mut t, "q,k,v,o,gate,up,down"),
            "q_proj" | "query" | "q" => add(&mut t, "q"),
            "k_proj" | "key" | "k" => add(&mut t, "k"),
            "v_proj" | "value" | "v" => add(&mut t, "v"),
            "o_proj" | "output_proj" | "out_proj" | "o" | "dense" => add(&mut t, "o"),
            "c_attn" | "query_key_value" | "qkv_proj" | "wqkv" => add(&mut t, "q,k,v"),
            // GPT-2 and Qwen (1) name both the attention output and the MLP down projection c_proj
            "c_proj" => add(&mut t, "o,down"),
            "w1" if fam == Family::Qwen1 => add(&mut t, "gate"),
            "w2" if fam == Family::Qwen1 => add(&mut t, "up"),
            "w1" => add(&mut t, "gate"),
            "w2" => add(&mut t, "down"),
            "w3" => add(&mut t, "up"),
            "gate_proj" => add(&mut t, "gate"),
            "up_proj" | "fc1" | "dense_h_to_4h" | "c_fc" => add(&mut t, "up"),
            "down_proj" | "fc2" | "dense_4h_to_h" => add(&mut t, "down"),
            "wte" | "embed_tokens" => add(&mut t, "embed"),
            "lm_head" => add(&mut t, "head"),
            _ if name.starts_with("mlp") => add(&mut t, "gate,up,down"),
            _ if name.starts_with("output (lm head)") || name == "output" => add(&mut t, "head"),
            _ => notes.push(format!("LoRA target {name:?} not mapped")),
        }
    }
    if t == LoraTargets::empty() {
        t = LoraTargets::parse("q,v").expect("static names");
    }
    t
}

fn weight_format(c: &Value, n: &Value, notes: &mut Vec<String>) -> Result<WeightFormat, String> {
    let quant = lower(c, "quantization");
    let wf = lower(n, "wfmt");
    let dq = flag(n, "dq");
    Ok(match wf.as_str() {
        "bf16" | "fp16" => WeightFormat::Bf16,
        "fp32" => WeightFormat::Fp32,
        "nf4" if dq => WeightFormat::Nf4Dq,
        "nf4" if quant.contains("torchao") => {
            notes.push("torchao NF4 read as NF4 + double quant (int8 block scales)".into());
            WeightFormat::Nf4Dq
        }
        "nf4" => WeightFormat::Nf4,
        "fp4" if dq => WeightFormat::Fp4Dq,
        "fp4" => WeightFormat::Fp4,
        "gptq8" => WeightFormat::Gptq8,
        "gptq4" => WeightFormat::Gptq4,
        "gptq3" => WeightFormat::Gptq3,
        "mxfp4" => WeightFormat::Mxfp4,
        "nvfp4" => WeightFormat::Nvfp4,
        "awq4" => WeightFormat::Awq4,
        "fp8" => WeightFormat::Fp8,
        "int8" => WeightFormat::Int8,
        other => return Err(format!("weight format {other:?} has no engine equivalent")),
    })
}

fn optimizer(n: &Value) -> Optimizer {
    let opt = lower(n, "opt");
    if opt.contains("8bit") || opt.contains("8-bit") {
        Optimizer::AdamW8bit
    } else if opt.contains("adafactor") {
        Optimizer::Adafactor
    } else if opt.contains("lion") {
        Optimizer::Lion
    } else if opt.contains("sgd") && opt.contains("momentum") {
        Optimizer::SgdMomentum
    } else if opt.contains("sgd") {
        Optimizer::Sgd
    } else {
        Optimizer::AdamW
    }
}

/// The family of the program a case ran with, from its `framework` (and, for a server, its
/// `task`): the tools built on the transformers Trainer count as one family.
pub fn framework_family(c: &Value) -> FrameworkFamily {
    let text = format!("{} {}", lower(c, "framework"), lower(c, "task"));
    let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
    if has(&["unsloth"]) {
        FrameworkFamily::Unsloth
    } else if has(&["torchtune"]) {
        FrameworkFamily::Torchtune
    } else if has(&["lit-gpt", "litgpt"]) {
        FrameworkFamily::Litgpt
    } else if has(&["torchtitan"]) {
        FrameworkFamily::Torchtitan
    } else if has(&["sglang"]) {
        FrameworkFamily::Sglang
    } else if has(&["vllm"]) {
        FrameworkFamily::Vllm
    } else if has(&["llama.cpp", "ollama"]) {
        FrameworkFamily::LlamaCpp
    } else if has(&[
        "transformers",
        "peft",
        "trl",
        "axolotl",
        "llama-factory",
        "llamafactory",
        "hf trainer",
        "accelerate",
        "deepspeed",
        "fms-hf-tuning",
    ]) {
        FrameworkFamily::Transformers
    } else {
        FrameworkFamily::Other
    }
}

/// Why a case cannot be expressed by the engine's settings, if it cannot.
fn inexpressible(c: &Value, n: &Value) -> Option<String> {
    if flag(n, "modules_to_save") && !saves_embeddings_and_head(c) {
        return Some("modules_to_save on modules other than the embeddings and the head: the engine trains full copies of those two only".into());
    }
    let strategy = format!(
        "{} {}",
        lower(n, "strategy"),
        c.get("parallelism")
            .map(|p| lower(p, "strategy"))
            .unwrap_or_default()
    );
    let context = ["context parallel", "ring attention", "ulysses"]
        .iter()
        .any(|w| strategy.contains(w))
        || layout_degree(&strategy, &["cp", "context_parallel_size"]).is_some_and(|d| d > 1);
    if context {
        return Some("context parallelism (the sequence split over GPUs): the engine keeps every token of a sequence on one GPU".into());
    }
    let experts = strategy.contains("expert parallel")
        || layout_degree(&strategy, &["ep", "expert_parallel_size"]).is_some_and(|d| d > 1);
    if experts {
        return Some("expert parallelism (the experts split over GPUs): the engine shards experts only with the other layouts".into());
    }
    None
}

/// Whether a case's modules_to_save are the embeddings and the output head (what the engine's
/// `train_embed_head` switch trains in full).
fn saves_embeddings_and_head(c: &Value) -> bool {
    let names: Vec<String> = c
        .get("lora")
        .and_then(|l| l.get("modules_to_save"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_lowercase)
                .collect()
        })
        .unwrap_or_default();
    !names.is_empty()
        && names.iter().all(|n| {
            matches!(
                n.as_str(),
                "wte" | "embed_tokens" | "lm_head" | "output" | "word_embeddings"
            )
        })
}

/// A mixed checkpoint whose MLP is quantized while attention stays 16-bit ("FP8 ... for MLP
/// linears; attention projections ... in bf16").
fn mlp_only_quantized(c: &Value) -> bool {
    let wd = lower(c, "weights_dtype");
    wd.contains("mlp") && wd.contains("attention") && wd.contains("bf16")
}

/// What a vLLM case's start-up profile ran with.
struct VllmProfile {
    version: VllmVersion,
    max_num_seqs: u64,
    batched_tokens: u64,
}

/// The vLLM engine and profile batch a case states; where it does not, vLLM's defaults for that
/// engine: V0 (`vllm/config.py` SchedulerConfig) 256 sequences and max(max_model_len, 2048)
/// tokens with chunked prefill off, which it turns on past 32k tokens of context (2048 tokens);
/// V1 (`vllm/engine/arg_utils.py`, `_set_default_args_v1`, API server) chunked prefill with 8192
/// tokens and 1024 sequences on GPUs of 70 GiB or more but the A100, 2048 and 256 below.
fn vllm_profile(c: &Value, ctx: u64) -> VllmProfile {
    let framework = lower(c, "framework");
    let release = number_after(&framework, "vllm ~0.")
        .or_else(|| number_after(&framework, "vllm 0."))
        .unwrap_or(0);
    // from v0.21.0 V1 deducts its CUDA graphs' estimate from the KV budget by default
    let version = if release >= 21 {
        VllmVersion::V1Graphs
    } else if framework.contains("v1") || (!framework.contains("v0") && release >= 8) {
        VllmVersion::V1
    } else {
        VllmVersion::V0
    };
    let stated = format!("{} {}", lower(c, "batch_size"), lower(c, "notes"));
    let (g, _) = gpu(c);
    let big = g.bytes() >= 70 * GIB && !matches!(g, Gpu::A100_80);
    let (seqs, tokens) = match version {
        VllmVersion::V0 if ctx > 32_768 => (256, 2_048),
        VllmVersion::V0 => (256, ctx.max(2_048)),
        VllmVersion::V1 | VllmVersion::V1Graphs if big => (1_024, 8_192),
        VllmVersion::V1 | VllmVersion::V1Graphs => (256, 2_048),
    };
    VllmProfile {
        version,
        max_num_seqs: number_after(&stated, "max_num_seqs").unwrap_or(seqs),
        batched_tokens: number_after(&stated, "max_num_batched_tokens").unwrap_or(tokens),
    }
}

/// The checkpointing a case states: per layer (`gc`), operator-level selective (torchtitan's
/// `selective_ac_option = 'op'`), or Megatron's selective attention recompute.
fn checkpointing(c: &Value, n: &Value) -> Checkpointing {
    let text = lower(c, "grad_ckpt");
    if text.contains("selective op") || text.contains("op-level") {
        Checkpointing::Op
    } else if text.contains("selective") && text.contains("attention") {
        Checkpointing::Selective
    } else if flag(n, "gc") {
        Checkpointing::Full
    } else {
        Checkpointing::None
    }
}

/// The degree a layout word states as the sources write it ("TP=8", "tp 4", "x TP 8",
/// "tensor_parallel_size=2"): the number right after the first of `words` that stands as a word.
fn layout_degree(text: &str, words: &[&str]) -> Option<u64> {
    words.iter().find_map(|w| {
        text.match_indices(w).find_map(|(i, _)| {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|ch| ch.is_ascii_alphanumeric()) {
                return None;
            }
            let digits: String = text[i + w.len()..]
                .trim_start_matches([' ', '=', ':', '-'])
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok().filter(|d| *d > 0)
        })
    })
}

/// Whether a strategy names sequence parallelism: "sequence parallel(ism)", "sequence-parallel",
/// `sequence_parallel`, or Megatron's "SP" as a word of its own.
fn names_sequence_parallelism(text: &str) -> bool {
    [
        "sequence parallel",
        "sequence-parallel",
        "sequence_parallel",
    ]
    .iter()
    .any(|w| text.contains(w))
        || text
            .split(|ch: char| !ch.is_ascii_alphanumeric())
            .any(|w| w == "sp")
}

/// Which unmodelled features of a run the engine has a setting for.
const MODELLED: &[&str] = &[
    "chunked CE",
    "optimizer-in-backward",
    "activation offload",
    "paged optimizer",
];

/// The fine-tuning framework a case's `framework` names, if one of the engine's.
fn stated_framework(text: &str) -> Option<Framework> {
    [
        ("unsloth", Framework::Unsloth),
        ("torchtune", Framework::Torchtune),
        ("axolotl", Framework::Axolotl),
        ("llama-factory", Framework::LlamaFactory),
        ("llamafactory", Framework::LlamaFactory),
        ("trl", Framework::Trl),
        ("sfttrainer", Framework::Trl),
        ("hf trainer", Framework::Transformers),
        ("transformers trainer", Framework::Transformers),
    ]
    .into_iter()
    .find(|(name, _)| text.contains(name))
    .map(|(_, f)| f)
}

/// Maps one case to a scenario and says what to compare.
pub fn map_case(c: &Value, n: &Value) -> Result<(Mapped, Option<String>), String> {
    let fam = family(c, n);
    let mut notes = Vec::new();
    let (gpu, gpu_named) = gpu(c);
    if !gpu_named {
        notes.push("no catalog GPU named: read as an H100".into());
    }
    let why_not = inexpressible(c, n);
    let arch = architecture(n, fam, &mut notes)?;
    let kind = lower(n, "kind");
    let mode = lower(n, "mode");
    let job = match (kind.as_str(), mode.as_str()) {
        ("inference", _) => Job::Inference,
        ("serving", _) => Job::Serving,
        ("weights_only", _) if lower(n, "peft") == "lora" => Job::Lora,
        ("weights_only", _) => Job::Serving,
        ("train", "full") => Job::Full,
        ("train", "lora") => Job::Lora,
        ("train", "qlora") => Job::Qlora,
        other => return Err(format!("unknown kind/mode {other:?}")),
    };
    let mut weights = weight_format(c, n, &mut notes)?;
    if job == Job::Lora && weights.is_quantized() {
        weights = WeightFormat::Bf16;
    }
    let framework = lower(c, "framework");
    // the fine-tuning framework the case names: its defaults stand where the case is silent
    let stated = stated_framework(&framework);
    let base = stated.map_or_else(Scenario::default, |f| {
        let mut d = Scenario {
            job,
            weights,
            ..Scenario::default()
        };
        f.apply(&mut d);
        d
    });
    let litgpt = framework.contains("lit-gpt") || framework.contains("litgpt");
    let bf16_true =
        framework.contains("torchtune") || litgpt || base.framework == Framework::Unsloth;
    let master_weights = match job {
        Job::Full => flag(n, "amp"),
        Job::Lora | Job::Qlora => !bf16_true,
        _ => false,
    };
    let gpus = uint(n, "gpus").unwrap_or(1).max(1);
    let par = lower(n, "par");
    let strategy = format!(
        "{} {}",
        lower(n, "strategy"),
        c.get("parallelism")
            .map(|p| lower(p, "strategy"))
            .unwrap_or_default()
    );
    // a composed layout states its degrees; a plain tensor-parallel or layer-split run uses
    // every GPU for that one
    let tp = uint(n, "tp")
        .or_else(|| {
            layout_degree(
                &strategy,
                &["tp", "tensor parallel", "tensor_parallel_size"],
            )
        })
        .unwrap_or(if par == "tp" { gpus } else { 1 });
    let pp = uint(n, "pp")
        .or_else(|| {
            layout_degree(
                &strategy,
                &["pp", "pipeline parallel", "pipeline_parallel_size"],
            )
        })
        .unwrap_or(if par == "pp" { gpus } else { 1 });
    let pipeline_schedule = if strategy.contains("gpipe") {
        PipelineSchedule::GPipe
    } else if strategy.contains("interleaved") {
        PipelineSchedule::Interleaved
    } else {
        PipelineSchedule::OneFOneB
    };
    let zero = if par == "fsdp"
        || strategy.contains("zero-3")
        || strategy.contains("full shard")
        || strategy.contains("full_shard")
    {
        Zero::Z3
    } else if strategy.contains("zero-2") {
        Zero::Z2
    } else {
        Zero::Z0
    };
    // the framework as the case names it, and how its weights were loaded, as its config says
    let framework_text = format!("{strategy} {framework}");
    let ddp = par == "ddp"
        || framework_text.contains("ddp")
        || framework_text.contains("distributeddataparallel");
    let dp_framework = if gpus >= 2 && zero == Zero::Z0 && ddp {
        DpFramework::Ddp
    } else if gpus < 2 || par != "fsdp" && !framework_text.contains("deepspeed") {
        DpFramework::None
    } else if framework_text.contains("fsdp2") {
        DpFramework::Fsdp2
    } else if framework_text.contains("fsdp") {
        DpFramework::Fsdp1
    } else if framework_text.contains("deepspeed") || strategy.contains("zero-") {
        DpFramework::DeepSpeed
    } else {
        DpFramework::None
    };
    let load_text = c
        .get("parallelism")
        .map(|p| lower(p, "load"))
        .unwrap_or_default();
    let weights_load = if load_text.contains("sync_module_states: true") {
        WeightsLoad::Rank0
    } else if load_text.contains("full state dict") {
        WeightsLoad::Full
    } else {
        WeightsLoad::Sharded
    };
    let offload = if flag(n, "offload") && job.is_training() {
        let text = c
            .get("parallelism")
            .map(|p| lower(p, "offload"))
            .unwrap_or_default();
        if text.contains("param") {
            Offload::All
        } else {
            Offload::Optimizer
        }
    } else {
        Offload::None
    };
    // lit-gpt's finetune scripts accumulate under Lightning Fabric's `no_backward_sync`, which
    // calls FSDP's `no_sync()` (lit-gpt 8641822 finetune/lora.py `train`; Lightning 71aed75,
    // the commit that lit-gpt pins, fabric/strategies/fsdp.py `_FSDPBackwardSyncControl`)
    let fsdp_no_sync = dp_framework.is_fsdp()
        && (framework_text.contains("lit-gpt") || framework_text.contains("litgpt"));
    let mut grad_accum = uint(n, "ga")
        .unwrap_or(1)
        .max(uint(c, "grad_accum").unwrap_or(1))
        .max(1);
    if let Some(ga) = number_after(&lower(c, "notes"), "gradient_accumulation") {
        grad_accum = grad_accum.max(ga);
    }
    let (seq, gen) = match job {
        Job::Inference => match (uint(n, "prompt"), uint(n, "gen")) {
            (None, None) => {
                return Err("the prompt and generated token counts are not stated".into())
            }
            (p, g) => (p.unwrap_or(1).max(1), g.unwrap_or(0)),
        },
        _ if job.is_training() && kind == "train" => (
            uint(n, "seq").ok_or("the training sequence length is unknown")?,
            0,
        ),
        _ => (1, 0),
    };
    let attention = if lower(c, "attention").contains("eager") {
        Attention::Eager
    } else {
        Attention::Flash
    };
    let loss_text = lower(c, "loss");
    let loss = if fam == Family::Bert {
        Loss::NoLmHead
    } else if ["fused", "liger", "cut cross", "cce"]
        .iter()
        .any(|k| loss_text.contains(k))
    {
        Loss::Fused
    } else if lower(c, "loss").contains("chunk") && flag(c, "compile") {
        Loss::ChunkedCompiled
    } else if lower(c, "loss").contains("chunk") {
        Loss::Chunked
    } else if fam == Family::Qwen1 {
        // Qwen-1's modeling_qwen.py takes the cross-entropy of the bf16 logits, with no upcast
        Loss::Full16
    } else if c.get("loss").is_none() && stated.is_some() {
        base.loss
    } else {
        Loss::Full
    };
    let lora_dropout = c
        .get("lora")
        .and_then(|l| l.get("dropout"))
        .and_then(Value::as_f64)
        .is_some_and(|d| d > 0.0);
    let measurement = lower(c, "measurement");
    let context_mib = number_before(
        c.get("measurement").and_then(Value::as_str).unwrap_or(""),
        "MiB CUDA context",
    )
    .unwrap_or(Scenario::default().context_mib);
    let value = c.get("value");
    // a vLLM log that prints its non-torch memory states the context (at one GPU; under tensor
    // parallelism the NCCL buffers are their own setting)
    let context_mib = match value.and_then(|v| float(v, "non_torch")) {
        Some(gib) if tp == 1 => (gib * 1024.0).round() as u64,
        _ => context_mib,
    };
    let util = value
        .and_then(|v| float(v, "gpu_memory_utilization"))
        .unwrap_or(0.9);
    let kv_text = lower(c, "kv_cache");
    let static_kv = job == Job::Inference && kv_text.contains("static");
    let ctx = uint(n, "ctx")
        .or_else(|| number_after(&kv_text, "max_seq_len="))
        .unwrap_or(4_096);
    let profile = vllm_profile(c, ctx);
    let server = if lower(c, "task").contains("sglang") {
        Server::Sglang
    } else {
        Server::Vllm
    };
    // SGLang's page size defaults to 1; its fraction is the one the case states (0: its default)
    let (block_size, mem_fraction_permille) = match server {
        Server::Sglang => (
            value.and_then(|v| uint(v, "page_size")).unwrap_or(1),
            value
                .and_then(|v| float(v, "mem_fraction_static"))
                .map_or(0, |f| (f * 1_000.0).round() as u64),
        ),
        Server::Vllm => (16, 0),
    };
    let mut s = Scenario {
        model: ModelChoice::Custom {
            name: str_of(c, "model").to_string(),
            arch: Box::new(arch.clone()),
            source: None,
        },
        job,
        weights,
        batch: uint(n, "batch").unwrap_or(1).max(1),
        seq,
        gen,
        grad_accum,
        lora_rank: uint(n, "lora_rank").unwrap_or(8).max(1),
        lora_targets: lora_targets(c, fam, &mut notes),
        lora_dropout,
        train_embed_head: flag(n, "modules_to_save") && saves_embeddings_and_head(c),
        dora: c
            .get("lora")
            .and_then(|l| l.get("use_dora"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
        optimizer: optimizer(n),
        // bitsandbytes PagedAdamW / HF Trainer paged_adamw_*: the case names the optimizer
        paged_optimizer: lower(c, "optimizer").contains("paged")
            || lower(n, "opt").contains("paged"),
        optimizer_in_backward: unmodelled_has(n, "optimizer-in-backward")
            || flag(c, "optimizer_in_bwd"),
        offload_activations: unmodelled_has(n, "activation offload")
            || flag(c, "activation_offload")
            || (c.get("activation_offload").is_none() && base.offload_activations),
        // a 4-bit base's compute dtype as the quantization states it, else the framework's
        compute_fp32: base.compute_fp32 && !lower(c, "quantization").contains("compute"),
        // Lightning's bitsandbytes plugin replaces every nn.Linear, the output head included
        quantize_head: litgpt && (job == Job::Qlora || weights.is_quantized()),
        attention_16bit: mlp_only_quantized(c),
        static_kv,
        kv_all_heads: kv_text.contains("gqa expansion")
            || kv_text.contains("num_heads, not num_kv_heads"),
        master_weights,
        checkpointing: checkpointing(c, n),
        attention,
        loss,
        gpus,
        zero,
        offload,
        dp_framework,
        fsdp_no_sync,
        weights_load,
        tp,
        pp,
        pipeline_schedule,
        // torchtitan's multi-stage schedules default to two stages per rank
        virtual_stages: uint(n, "vs").unwrap_or(2),
        sequence_parallel: tp > 1 && names_sequence_parallelism(&strategy),
        gpu_util_pct: (util * 100.0).round() as u64,
        server,
        mem_fraction_permille,
        block_size,
        max_model_len: ctx,
        avg_tokens: ctx,
        concurrency: 256,
        batched_tokens: profile.batched_tokens,
        max_num_seqs: profile.max_num_seqs,
        vllm: profile.version,
        context_mib,
        gpu,
        // an encoder–decoder's target tokens, as stated (`seq` is then its source)
        target_len: uint(n, "tgt").unwrap_or(Scenario::default().target_len),
        ..base
    };
    if !job.is_peft() {
        s.lora_targets = LoraTargets::all_linear();
    }
    // the framework switches this case turned on (master weights and dropout are set for every case)
    let on: Vec<&str> = FRAMEWORK_SWITCHES
        .into_iter()
        .filter(|k| Setting::by_key(k).is_some_and(|st| st.get(&s) == SettingValue::On(true)))
        .chain((s.loss == Loss::ChunkedCompiled).then_some("ls=compiled"))
        .collect();
    if !on.is_empty() {
        notes.push(format!("switches: {}", on.join(", ")));
    }
    if s.pp > 1 || (s.tp > 1 && s.data_parallel() > 1) {
        notes.push(format!(
            "layout: {} data × {} tensor × {} pipeline ({})",
            s.data_parallel(),
            s.tp,
            s.pp,
            s.pipeline_schedule.key(),
        ));
    }
    if s.checkpointing == Checkpointing::Op {
        notes.push("checkpointing: op-level selective".into());
    }
    if s.dp_framework != DpFramework::None {
        notes.push(format!(
            "framework: {}, weights loaded: {}{}",
            s.dp_framework.key(),
            s.weights_load.key(),
            if s.fsdp_no_sync { ", no_sync" } else { "" }
        ));
    }

    // what was measured
    let device_level = matches!(lower(n, "level").as_str(), "device" | "unknown");
    let measure = if kind == "weights_only" && device_level {
        Measure::LoadDevice
    } else if kind == "weights_only" {
        Measure::Load
    } else if job == Job::Serving {
        if server == Server::Sglang {
            Measure::SglangTokens
        } else if value.and_then(|v| v.get("gpu_blocks")).is_some() {
            Measure::VllmBlocks
        } else {
            Measure::VllmKvPool
        }
    } else if measurement.contains("max_memory_reserved")
        || measurement.contains("memory_reserved()")
        || lower(n, "level") == "reserved"
    {
        Measure::Reserved
    } else if device_level {
        Measure::Device
    } else {
        Measure::Tensors
    };
    let measured = match measure {
        Measure::VllmBlocks => value
            .and_then(|v| float(v, "gpu_blocks"))
            .ok_or("no gpu_blocks")?,
        Measure::VllmKvPool => value
            .and_then(|v| float(v, "kv_cache"))
            .ok_or("no kv_cache")?,
        Measure::SglangTokens => value
            .and_then(|v| float(v, "max_total_num_tokens"))
            .ok_or("no max_total_num_tokens")?,
        _ => float(n, "measured").ok_or_else(|| {
            let note = str_of(n, "measure_note");
            if note.is_empty() {
                "no measured memory figure".to_string()
            } else {
                note.to_string()
            }
        })?,
    };
    if lower(n, "level") == "unknown" {
        notes.push("tool not stated: compared with the device total".into());
    }
    if job.is_peft() {
        if let Some(stated) = uint(n, "trainable") {
            let ours = lora_params(&arch, &s);
            if ours.abs_diff(stated) * 100 > stated {
                let why = if fam == Family::Qwen1 {
                    " (Qwen puts one adapter on the fused c_attn; the engine counts separate q, k, v adapters)"
                } else {
                    ""
                };
                notes.push(format!(
                    "LoRA params {} vs {} stated{why}",
                    vram_engine::units::short_count(ours),
                    vram_engine::units::short_count(stated)
                ));
            }
        }
    }
    let unmodelled: Vec<&str> = n
        .get("unmodelled")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .filter(|u| !MODELLED.iter().any(|m| u.contains(m)))
                .collect()
        })
        .unwrap_or_default();
    if why_not.is_none() && !unmodelled.is_empty() {
        notes.push(format!("unmodelled: {}", unmodelled.join(", ")));
    }
    if lower(c, "completeness") == "partial" {
        let note = str_of(c, "notes");
        if !note.is_empty() {
            notes.push(format!("partial: {note}"));
        }
    }
    let group = Group::of(job);
    Ok((
        Mapped {
            scenario: s,
            arch,
            group,
            family: framework_family(c),
            measure,
            measured,
            stated_params: uint(n, "P"),
            notes,
        },
        why_not,
    ))
}

/// The engine's figure for what was measured, with the components behind it.
pub fn engine_figure(m: &Mapped) -> Result<(f64, String, Breakdown), String> {
    let b = estimate_with(&m.scenario, &m.arch, false).map_err(|e| e.to_string())?;
    let gib = |bytes: u64| bytes as f64 / GIB as f64;
    let tensor_parts = |b: &Breakdown| -> String {
        Component::ALL
            .iter()
            .filter(|c| !matches!(c, Component::Context | Component::Reserve))
            .filter_map(|&c| {
                let v = b.bytes(c);
                (v > 0).then(|| format!("{} {:.2}", c.key(), gib(v)))
            })
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let reserve = b.bytes(Component::Reserve);
    let context = b.bytes(Component::Context);
    let (est, parts) = match m.measure {
        Measure::Tensors => (gib(b.tensors), tensor_parts(&b)),
        Measure::Reserved => (
            gib(b.reserved),
            format!("{} · reserve {:.2}", tensor_parts(&b), gib(reserve)),
        ),
        Measure::Device => (
            gib(b.total),
            format!(
                "{} · context {:.2} · reserve {:.2}",
                tensor_parts(&b),
                gib(context),
                gib(reserve)
            ),
        ),
        Measure::LoadDevice => {
            // the CUDA context alone: nothing of a job's workspaces exists yet
            let context = m.scenario.context_mib << 20;
            let w = b.bytes(Component::Weights) + b.bytes(Component::Adapter);
            (
                gib(w + context),
                format!(
                    "weights {:.2} · adapter {:.2} · context {:.2}",
                    gib(b.bytes(Component::Weights)),
                    gib(b.bytes(Component::Adapter)),
                    gib(context)
                ),
            )
        }
        Measure::Load => {
            let w = b.bytes(Component::Weights) + b.bytes(Component::Adapter);
            (
                gib(w),
                format!(
                    "weights {:.2} · adapter {:.2}",
                    gib(b.bytes(Component::Weights)),
                    gib(b.bytes(Component::Adapter))
                ),
            )
        }
        Measure::SglangTokens => {
            let fit = b.serving.ok_or("no serving fit")?;
            let split = b.sglang_split(&m.scenario, m.scenario.gpu);
            let parts = format!(
                "mem_fraction_static {}.{:03} × free before loading {:.2} = {:.2} − weights {:.2} = KV {:.2} ({} tokens)",
                split.permille / 1_000,
                split.permille % 1_000,
                gib(split.free_before),
                gib(split.static_budget),
                gib(split.loaded),
                gib(fit.kv_pool),
                fit.tokens
            );
            (fit.tokens as f64, parts)
        }
        Measure::VllmKvPool | Measure::VllmBlocks => {
            let fit = b.serving.ok_or("no serving fit")?;
            // what the budget deducts of the context lines: not the graphs captured after
            // sizing, not (V1) the CUDA context that existed before the snapshot
            let s = &m.scenario;
            let before_snapshot = if s.vllm.is_v1() {
                s.context_mib << 20
            } else {
                0
            };
            let deducted = context - b.graphs_after_sizing(s) - before_snapshot;
            let parts = format!(
                "budget {:.2} − weights {:.2} − activations {:.2} − logits {:.2} − non-torch {:.2} = KV {:.2} ({} blocks; {})",
                gib(fit.budget),
                gib(b.bytes(Component::Weights)),
                gib(b.bytes(Component::Activations)),
                gib(b.bytes(Component::Logits)),
                gib(deducted),
                gib(fit.kv_pool),
                fit.blocks,
                startup_lines(m, &fit)
            );
            let est = if m.measure == Measure::VllmBlocks {
                fit.blocks as f64
            } else {
                gib(fit.kv_pool)
            };
            (est, parts)
        }
    };
    Ok((est, parts, b))
}

/// vLLM's start-up arithmetic for a served case: the maximum concurrency it prints ("Maximum
/// concurrency for N tokens per request: X x", the KV tokens over `max_model_len`) from the engine's
/// pool, beside the same arithmetic on the blocks the case's log reports, when it reports blocks.
fn startup_lines(m: &Mapped, fit: &ServingFit) -> String {
    let s = &m.scenario;
    let hundredths = startup_concurrency(fit, s);
    let engine = format!(
        "max concurrency at max_model_len {}: {}.{:02}x",
        s.max_model_len,
        hundredths / 100,
        hundredths % 100
    );
    if m.measure != Measure::VllmBlocks {
        return engine;
    }
    let logged = m.measured * s.block_size as f64 / s.max_model_len.max(1) as f64;
    format!("{engine}, from the logged blocks {logged:.2}x")
}

/// The `skip` a case states, unless it only repeats that its inputs are partial (such a case is
/// still compared and shown, not counted).
fn stated_skip(n: &Value) -> Option<&str> {
    let skip = n.get("skip").and_then(Value::as_str)?.trim();
    (!skip.is_empty() && skip != "completeness partial").then_some(skip)
}

fn evaluate(c: &Value, n: &Value) -> Outcome {
    let id = str_of(c, "id").to_string();
    let task = str_of(c, "task").to_string();
    let completeness = str_of(c, "completeness").to_string();
    if let Some(skip) = stated_skip(n) {
        if !skip.starts_with("not expressible") {
            return Outcome::Skipped {
                id,
                task,
                why: skip.to_string(),
            };
        }
    }
    let mapped = match map_case(c, n) {
        Ok(m) => m,
        Err(why) => {
            return match inexpressible(c, n).or_else(|| stated_skip(n).map(str::to_string)) {
                Some(w) => Outcome::NotExpressible {
                    id,
                    task,
                    group: None,
                    why: w,
                    reference: None,
                },
                None => Outcome::Skipped {
                    id,
                    task,
                    why: skip_reason(n, &why),
                },
            };
        }
    };
    let (m, why_not) = mapped;
    let group = m.group;
    let compared = match engine_figure(&m) {
        Ok((estimated, components, breakdown)) => Compared {
            id: id.clone(),
            task: task.clone(),
            completeness: completeness.clone(),
            mapped: m,
            estimated,
            components,
            breakdown,
        },
        Err(e) => {
            return Outcome::Skipped {
                id,
                task,
                why: format!("the engine refuses the scenario: {e}"),
            }
        }
    };
    let marked = stated_skip(n).map(str::to_string);
    if let Some(why) = why_not.or(marked) {
        return Outcome::NotExpressible {
            id,
            task,
            group: Some(group),
            why,
            reference: Some(Box::new(compared)),
        };
    }
    Outcome::Compared(Box::new(compared))
}

fn unmodelled_has(n: &Value, what: &str) -> bool {
    n.get("unmodelled")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().filter_map(Value::as_str).any(|u| u.contains(what)))
}

fn skip_reason(n: &Value, why: &str) -> String {
    match n.get("skip").and_then(Value::as_str) {
        Some(skip) => format!("{skip}: {why}"),
        None => why.to_string(),
    }
}
