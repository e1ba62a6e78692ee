//! "Your measurement": what a user saw when they ran the job, read from the text they paste.
//!
//! Seven sources, detected from the text or named by the caller: the project's measuring tool's
//! JSON, a number with a unit ("21.3 GiB allocated"), `torch.cuda.memory_stats()` and
//! `memory_summary()`, a vLLM start-up log, a llama.cpp load log and nvidia-smi. Each becomes the
//! same typed [`Measurement`]: figures at a [`Level`] (exact bytes, the unit as written, the device
//! where the source names one) and a few counts ([`Facts`]). No words: the page and the CLI say them.

mod compare;
pub mod link;
mod llama;
mod plain;
mod quantity;
mod smi;
mod tool;
mod torch;
mod vllm;

pub use compare::{Comparison, Estimated, Target};
pub use quantity::{Reading, SizeUnit};

use crate::json::JsonProblem;
use crate::named::named_enum;
use quantity::{NumberProblem, Quantity};

/// Pasted text longer than this is refused (a whole vLLM start-up log is 20–60 KiB).
pub const MAX_INPUT_BYTES: usize = 256 * 1024;
/// Pasted text with more lines than this is refused.
pub(crate) const MAX_LINES: usize = 32_768;
/// Lines longer than this are skipped unread (vLLM's config dump; never a memory figure).
pub const MAX_LINE_BYTES: usize = 16 * 1024;
/// A figure above 16 PiB is refused: no device holds it.
pub(crate) const MAX_BYTES: u64 = 16 << 50;
/// A count (blocks, tokens, parameters) above this is refused.
pub(crate) const MAX_COUNT: u64 = 1_000_000_000_000_000;
/// A measurement keeps at most this many figures (a 16-GPU llama.cpp log has 50).
pub(crate) const MAX_FIGURES: usize = 64;

named_enum! {
    /// Where a measurement comes from.
    pub enum SourceKind {
        MeasureTool => ("tool", "measuring tool"),
        Plain => ("plain", "number with unit"),
        TorchStats => ("stats", "torch.cuda.memory_stats()"),
        TorchSummary => ("summary", "torch.cuda.memory_summary()"),
        Vllm => ("vllm", "vLLM log"),
        LlamaCpp => ("llama", "llama.cpp log"),
        NvidiaSmi => ("smi", "nvidia-smi"),
    }
}

named_enum! {
    /// What a figure counts. New levels go at the end: links store the position.
    pub enum Level {
        /// A size with no word saying what it is ("18.5 GB").
        Unstated => ("unstated", "unstated"),
        /// PyTorch's peak of live tensor bytes (max_memory_allocated, allocated_bytes.all.peak).
        Allocated => ("allocated", "allocated"),
        /// PyTorch's peak of cached segments (max_memory_reserved): allocated + allocator slack.
        Reserved => ("reserved", "reserved"),
        /// PyTorch's peak of active blocks (allocated + blocks awaiting a stream).
        Active => ("active", "active"),
        /// Used on the device as nvidia-smi counts it: includes the CUDA context.
        DeviceUsed => ("used", "device used"),
        /// The device's capacity (nvidia-smi total, vLLM total_gpu_memory).
        DeviceTotal => ("total", "device total"),
        /// vLLM: total × gpu_memory_utilization, what the instance may use.
        VllmBudget => ("vllm_budget", "vLLM budget"),
        VllmWeights => ("vllm_weights", "vLLM weights"),
        VllmActivationPeak => ("vllm_activations", "vLLM activation peak"),
        /// vLLM 0.6.4–0.6.5: weights + activation peak of the profiling run.
        VllmTorchPeak => ("vllm_torch_peak", "vLLM torch peak"),
        VllmNonTorch => ("vllm_non_torch", "vLLM non-torch"),
        VllmKvCache => ("vllm_kv", "vLLM KV cache"),
        VllmCudaGraph => ("vllm_graphs", "vLLM CUDA graphs"),
        LlamaModel => ("llama_model", "llama.cpp model buffer"),
        LlamaKv => ("llama_kv", "llama.cpp KV buffer"),
        LlamaCompute => ("llama_compute", "llama.cpp compute buffer"),
        LlamaOutput => ("llama_output", "llama.cpp output buffer"),
        /// Metal's recommendedMaxWorkingSetSize: what macOS lets the GPU use.
        MetalWorkingSet => ("metal_working_set", "Metal working set"),
        /// The measuring tool's peak of live tensor bytes (allocator level).
        ToolPeak => ("tool_peak", "tool peak"),
        ToolParam => ("tool_param", "tool parameters"),
        ToolGrad => ("tool_grad", "tool gradients"),
        ToolOptimizer => ("tool_optimizer", "tool optimizer"),
        ToolOther => ("tool_other", "tool other"),
        ToolKvCache => ("tool_kv", "tool KV cache"),
    }
}

named_enum! {
    /// The backend a device figure belongs to, as the source names it.
    pub enum DeviceApi {
        /// A GPU by index only (nvidia-smi, torch).
        Gpu => ("gpu", "GPU"),
        Cuda => ("cuda", "CUDA"),
        Rocm => ("rocm", "ROCm"),
        Metal => ("metal", "Metal"),
        Vulkan => ("vulkan", "Vulkan"),
        Sycl => ("sycl", "SYCL"),
        /// Pinned host memory (llama.cpp's CUDA_Host).
        CudaHost => ("cuda_host", "CUDA host"),
        Cpu => ("cpu", "CPU"),
        Other => ("other", "other"),
    }
}

/// A device a figure is on: "CUDA1", "CPU_Mapped", "MTL0_Mapped", nvidia-smi's GPU 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    pub api: DeviceApi,
    pub index: Option<u16>,
    /// The buffer maps the model file (llama.cpp's *_Mapped) instead of copying it.
    pub mapped: bool,
}

impl Device {
    pub fn new(api: DeviceApi, index: Option<u16>) -> Device {
        Device {
            api,
            index,
            mapped: false,
        }
    }

    /// Whether the memory is the host's, not the accelerator's.
    pub fn is_host(self) -> bool {
        matches!(self.api, DeviceApi::Cpu | DeviceApi::CudaHost)
    }
}

/// One measured size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figure {
    pub level: Level,
    /// Exact bytes, converted from the number and unit as written.
    pub bytes: u64,
    /// The unit as written.
    pub unit: SizeUnit,
    /// How the unit became bytes (GB as 10^9 or, where the source means it, 2^30).
    pub reading: Reading,
    pub device: Option<Device>,
}

/// Counts a source reports beside its sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// vLLM "# GPU blocks" (V0 and early V1) or "# CUDA blocks".
    pub gpu_blocks: Option<u64>,
    pub cpu_blocks: Option<u64>,
    /// vLLM V1 "GPU KV cache size: N tokens".
    pub kv_tokens: Option<u64>,
    /// vLLM "Maximum concurrency for N tokens per request: X.XXx": N ...
    pub concurrency_tokens: Option<u64>,
    /// ... and X in hundredths (997.08x is 99708).
    pub concurrency_hundredths: Option<u64>,
    /// vLLM gpu_memory_utilization in hundredths (0.90 is 90).
    pub gpu_util_hundredths: Option<u64>,
    /// The measuring tool's parameter counts.
    pub params: Option<u64>,
    pub trainable_params: Option<u64>,
}

impl Facts {
    pub fn is_empty(&self) -> bool {
        *self == Facts::default()
    }
}

/// What a user measured: figures from one source, in the order the source gave them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measurement {
    source: SourceKind,
    figures: Vec<Figure>,
    facts: Facts,
}

/// Why pasted text or a link gives no measurement. Message ids and numbers only: the shells speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureError {
    /// Nothing but whitespace.
    Empty,
    TooLarge {
        bytes: usize,
        limit: usize,
    },
    TooManyLines {
        lines: usize,
        limit: usize,
    },
    /// No known source format and no size with a unit.
    Unrecognized,
    /// The source was recognised but gave no figure.
    NoFigures {
        source: SourceKind,
    },
    /// A figure's number cannot be read (too many digits) on this 1-based line.
    BadNumber {
        line: usize,
    },
    /// A figure above `MAX_BYTES` or a count above `MAX_COUNT` on this line.
    OutOfRange {
        line: usize,
    },
    /// The measuring tool's JSON is malformed here, in this way.
    BadJson {
        line: usize,
        column: usize,
        why: JsonProblem,
    },
    /// A link's measurement part cannot be decoded.
    BadLink,
}

impl MeasureError {
    /// A stable message id for the shells' sentence tables.
    pub fn key(self) -> &'static str {
        match self {
            MeasureError::Empty => "measure.empty",
            MeasureError::TooLarge { .. } => "measure.too_large",
            MeasureError::TooManyLines { .. } => "measure.too_many_lines",
            MeasureError::Unrecognized => "measure.unrecognized",
            MeasureError::NoFigures { .. } => "measure.no_figures",
            MeasureError::BadNumber { .. } => "measure.bad_number",
            MeasureError::OutOfRange { .. } => "measure.out_of_range",
            MeasureError::BadJson { .. } => "measure.bad_json",
            MeasureError::BadLink => "measure.bad_link",
        }
    }

    fn number(line: usize, p: NumberProblem) -> MeasureError {
        match p {
            NumberProblem::Unreadable => MeasureError::BadNumber { line },
            NumberProblem::TooLarge => MeasureError::OutOfRange { line },
        }
    }
}

impl std::fmt::Display for MeasureError {
    /// The message id and its numbers, e.g. `measure.too_large bytes=300000 limit=262144`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())?;
        match *self {
            MeasureError::TooLarge { bytes, limit } => write!(f, " bytes={bytes} limit={limit}"),
            MeasureError::TooManyLines { lines, limit } => {
                write!(f, " lines={lines} limit={limit}")
            }
            MeasureError::NoFigures { source } => write!(f, " source={}", source.key()),
            MeasureError::BadNumber { line } | MeasureError::OutOfRange { line } => {
                write!(f, " line={line}")
            }
            MeasureError::BadJson { line, column, why } => {
                write!(f, " line={line} column={column} why={why:?}")
            }
            _ => Ok(()),
        }
    }
}

impl std::error::Error for MeasureError {}

impl Measurement {
    pub fn source(&self) -> SourceKind {
        self.source
    }

    pub fn figures(&self) -> &[Figure] {
        &self.figures
    }

    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// The first figure at `level`, on whatever device.
    pub fn figure(&self, level: Level) -> Option<&Figure> {
        self.figures.iter().find(|f| f.level == level)
    }

    /// Bytes at `level` summed over the accelerators (host buffers left out), None when absent.
    pub fn on_devices(&self, level: Level) -> Option<u64> {
        self.sum(level, false)
    }

    /// Bytes at `level` in host buffers (llama.cpp's CPU, CPU_Mapped, CUDA_Host), None when absent.
    pub fn on_host(&self, level: Level) -> Option<u64> {
        self.sum(level, true)
    }

    fn sum(&self, level: Level, host: bool) -> Option<u64> {
        let mut it = self
            .figures
            .iter()
            .filter(|f| f.level == level && f.device.is_some_and(Device::is_host) == host)
            .peekable();
        it.peek()?;
        Some(it.fold(0u64, |acc, f| acc.saturating_add(f.bytes)))
    }

    /// The devices the figures name, in order of first appearance.
    pub fn devices(&self) -> Vec<Device> {
        let mut out: Vec<Device> = Vec::new();
        for d in self.figures.iter().filter_map(|f| f.device) {
            if !out.contains(&d) {
                out.push(d);
            }
        }
        out
    }

    /// A measurement from parts: duplicates dropped (tensor-parallel workers print the same line),
    /// figures above `MAX_BYTES` and counts above `MAX_COUNT` left out, at most `MAX_FIGURES`
    /// kept. None when there is neither a figure nor a fact.
    pub fn new(source: SourceKind, figures: Vec<Figure>, mut facts: Facts) -> Option<Measurement> {
        for slot in link::fact_slots(&mut facts) {
            *slot = slot.filter(|&v| v <= MAX_COUNT);
        }
        let mut m = Measurement {
            source,
            figures: Vec::new(),
            facts,
        };
        for f in figures {
            m.push(f);
        }
        (!m.figures.is_empty() || !m.facts.is_empty()).then_some(m)
    }

    fn push(&mut self, f: Figure) {
        if self.figures.len() < MAX_FIGURES && f.bytes <= MAX_BYTES && !self.figures.contains(&f) {
            self.figures.push(f);
        }
    }
}

/// Reads pasted text, detecting its source.
pub fn parse(text: &str) -> Result<Measurement, MeasureError> {
    check(text)?;
    let mut first_error = None;
    for kind in detect(text) {
        match parse_checked(kind, text) {
            Ok(m) => return Ok(m),
            Err(MeasureError::NoFigures { .. }) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or(MeasureError::Unrecognized))
}

/// Reads pasted text as one named source.
pub fn parse_as(kind: SourceKind, text: &str) -> Result<Measurement, MeasureError> {
    check(text)?;
    parse_checked(kind, text)
}

fn parse_checked(kind: SourceKind, text: &str) -> Result<Measurement, MeasureError> {
    let mut c = Collect::new();
    match kind {
        SourceKind::MeasureTool => tool::read(text, &mut c)?,
        SourceKind::Plain => plain::read(text, &mut c)?,
        SourceKind::TorchStats => torch::read_stats(text, &mut c)?,
        SourceKind::TorchSummary => torch::read_summary(text, &mut c)?,
        SourceKind::Vllm => vllm::read(text, &mut c)?,
        SourceKind::LlamaCpp => llama::read(text, &mut c)?,
        SourceKind::NvidiaSmi => smi::read(text, &mut c)?,
    }
    Measurement::new(kind, c.figures, c.facts).ok_or(MeasureError::NoFigures { source: kind })
}

fn check(text: &str) -> Result<(), MeasureError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(MeasureError::TooLarge {
            bytes: text.len(),
            limit: MAX_INPUT_BYTES,
        });
    }
    if text.trim().is_empty() {
        return Err(MeasureError::Empty);
    }
    let lines = text.lines().count();
    if lines > MAX_LINES {
        return Err(MeasureError::TooManyLines {
            lines,
            limit: MAX_LINES,
        });
    }
    Ok(())
}

/// The sources the text may be, most specific first; plain numbers always last.
fn detect(text: &str) -> Vec<SourceKind> {
    let has = |needles: &[&str]| needles.iter().any(|n| text.contains(n));
    let mut kinds = Vec::new();
    if text.trim_start().starts_with('{') && has(tool::MARKERS) {
        kinds.push(SourceKind::MeasureTool);
    }
    if has(torch::STATS_MARKERS) {
        kinds.push(SourceKind::TorchStats);
    }
    if has(torch::SUMMARY_MARKERS) {
        kinds.push(SourceKind::TorchSummary);
    }
    if has(llama::MARKERS) {
        kinds.push(SourceKind::LlamaCpp);
    }
    if has(vllm::MARKERS) {
        kinds.push(SourceKind::Vllm);
    }
    if has(smi::MARKERS) {
        kinds.push(SourceKind::NvidiaSmi);
    }
    kinds.push(SourceKind::Plain);
    kinds
}

/// Lines with their 1-based numbers, overlong ones skipped.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.len() <= MAX_LINE_BYTES)
        .map(|(i, l)| (i + 1, l))
}

/// What a reader has found so far.
pub(crate) struct Collect {
    figures: Vec<Figure>,
    facts: Facts,
}

impl Collect {
    fn new() -> Collect {
        Collect {
            figures: Vec::new(),
            facts: Facts::default(),
        }
    }

    pub(crate) fn figure(&mut self, level: Level, q: Quantity, device: Option<Device>) {
        self.figures.push(Figure {
            level,
            bytes: q.bytes,
            unit: q.unit,
            reading: q.reading,
            device,
        });
    }

    pub(crate) fn facts(&mut self) -> &mut Facts {
        &mut self.facts
    }
}

/// A count within `MAX_COUNT`, or the line's error.
pub(crate) fn count(line: usize, value: Option<u64>) -> Result<Option<u64>, MeasureError> {
    match value {
        Some(v) if v > MAX_COUNT => Err(MeasureError::OutOfRange { line }),
        v => Ok(v),
    }
}

/// `r` with a number problem turned into the line's error.
pub(crate) fn at_line<T>(line: usize, r: Result<T, NumberProblem>) -> Result<T, MeasureError> {
    r.map_err(|p| MeasureError::number(line, p))
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod tests;
