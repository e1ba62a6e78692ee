//! How far measured runs like this one landed from the engine's estimate: an error band read from
//! the project's own validation residuals, compiled in.
//!
//! `table.txt` is written by `cargo run -p vram-engine --example validate -- --write-bands
//! crates/engine/src/band/table.txt` from the counted cases of `validation/` (a test in
//! `tests/engine/validation.rs` fails when it is stale). Each row is one group of cases (job, framework
//! family, what was measured) with the lowest and highest residual, measured ÷ estimated − 1, in
//! tenths of a percent. The band of an estimate is the row of the most similar group that holds at
//! least [`MIN_BAND_CASES`] cases; with fewer, the answer says so rather than invent a band.

use crate::named::named_enum;
use crate::scenario::Framework;
use crate::scenario::Server;
use crate::scenario::{Job, Scenario};

/// The compiled table: `job family level cases lower upper ids`, one group a line.
pub(crate) const BAND_TABLE: &str = include_str!("table.txt");

/// The fewest cases a band is stated from. Of `n` residuals drawn alike, the next one falls inside
/// their range with probability (n − 1) / (n + 1): two in three for 5 cases, the least we call a
/// band; 4 cases would give 3 in 5, 3 cases one in two.
pub const MIN_BAND_CASES: u32 = 5;

named_enum! {
    /// The family of programs a run was made with: frameworks that share their memory behaviour
    /// (the transformers Trainer and the tools built on it) count together.
    pub enum FrameworkFamily {
        /// transformers + PEFT: the Trainer, TRL, axolotl, LLaMA-Factory, accelerate and DeepSpeed
        /// launchers, transformers' generate.
        Transformers => ("hf", "transformers + PEFT (Trainer, TRL, axolotl, LLaMA-Factory)"),
        Unsloth => ("unsloth", "Unsloth"),
        Torchtune => ("torchtune", "torchtune"),
        Litgpt => ("litgpt", "LitGPT"),
        Torchtitan => ("torchtitan", "torchtitan"),
        Vllm => ("vllm", "vLLM"),
        Sglang => ("sglang", "SGLang"),
        LlamaCpp => ("llamacpp", "llama.cpp"),
        Other => ("other", "another program"),
    }
}

named_enum! {
    /// What a measured figure counts, and so which of the engine's figures it was compared with.
    pub enum BandLevel {
        /// torch's peak of live tensors (max_memory_allocated, torchtune's active peak).
        Allocated => ("allocated", "allocated tensors"),
        /// torch's peak of reserved segments (max_memory_reserved).
        Reserved => ("reserved", "reserved by the allocator"),
        /// The whole device (nvidia-smi, pynvml), or a figure whose tool is not named.
        Device => ("device", "device total"),
        /// Any of the three above: the peak of a job's memory, however it was read.
        Memory => ("memory", "peak memory, any tool"),
        /// The peak right after loading the model.
        Load => ("load", "after loading"),
        /// A server's KV cache (vLLM's GiB or blocks, SGLang's tokens).
        KvPool => ("kv", "KV cache pool"),
    }
}

impl BandLevel {
    /// Whether a figure of this level counts the whole peak of a job (not a load or a pool).
    pub fn is_peak(self) -> bool {
        matches!(
            self,
            BandLevel::Allocated | BandLevel::Reserved | BandLevel::Device
        )
    }
}

/// A group of validation cases: one job, one framework family (`None`: any), one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BandGroup {
    pub job: Job,
    pub family: Option<FrameworkFamily>,
    pub level: BandLevel,
}

/// The error band of an estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Band {
    /// The `cases` measured runs of `group` landed between `lower_permille` and `upper_permille`
    /// (tenths of a percent of the estimate; measured ÷ estimated − 1).
    Range {
        group: BandGroup,
        cases: u32,
        lower_permille: i32,
        upper_permille: i32,
    },
    /// Fewer than [`MIN_BAND_CASES`] similar cases: `cases` in `group`, the largest group tried.
    TooFew { group: BandGroup, cases: u32 },
}

impl Band {
    /// The group the band was read from (or, too few, the largest group tried).
    pub fn group(&self) -> BandGroup {
        match *self {
            Band::Range { group, .. } | Band::TooFew { group, .. } => group,
        }
    }

    /// How many measured cases stand behind it.
    pub fn cases(&self) -> u32 {
        match *self {
            Band::Range { cases, .. } | Band::TooFew { cases, .. } => cases,
        }
    }

    /// Where runs like this one would land for an estimate of `bytes`: `bytes × (1 + lower)` to
    /// `bytes × (1 + upper)`, or `None` without a band.
    pub fn bounds(&self, bytes: u64) -> Option<(u64, u64)> {
        match *self {
            Band::Range {
                lower_permille,
                upper_permille,
                ..
            } => Some((
                scale_permille(bytes, lower_permille),
                scale_permille(bytes, upper_permille),
            )),
            Band::TooFew { .. } => None,
        }
    }

    /// Whether the band of a need of `needed` bytes holds the `budget`: runs like this one landed
    /// on both sides of the card's limit, so the verdict is borderline.
    pub fn crosses(&self, needed: u64, budget: u64) -> bool {
        self.bounds(needed)
            .is_some_and(|(low, high)| low <= budget && budget < high)
    }

    /// Whether the band of a room of `room` bytes holds a `floor` it must reach: some runs like
    /// this one would leave enough and some would not (a server's KV pool and one request).
    pub fn straddles(&self, room: u64, floor: u64) -> bool {
        self.bounds(room)
            .is_some_and(|(low, high)| low < floor && floor <= high)
    }
}

/// `bytes × (1000 + permille) / 1000`, exact in integers, never below zero.
fn scale_permille(bytes: u64, permille: i32) -> u64 {
    let factor = (1_000 + i128::from(permille)).max(0);
    (i128::from(bytes) * factor / 1_000).clamp(0, i128::from(u64::MAX)) as u64
}

/// One row of the compiled table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    group: BandGroup,
    cases: u32,
    lower_permille: i32,
    upper_permille: i32,
}

/// The row of `table` for `group`, if the validation set has a case of it.
fn row(table: &str, group: BandGroup) -> Option<Row> {
    table.lines().find_map(|line| {
        let r = parse_row(line)?;
        (r.group == group).then_some(r)
    })
}

/// `job family level cases lower upper ids`; `*` as the family: any.
fn parse_row(line: &str) -> Option<Row> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let mut f = line.split_whitespace();
    let job = Job::from_key(f.next()?)?;
    let family = match f.next()? {
        "*" => None,
        key => Some(FrameworkFamily::from_key(key)?),
    };
    let level = BandLevel::from_key(f.next()?)?;
    Some(Row {
        group: BandGroup { job, family, level },
        cases: f.next()?.parse().ok()?,
        lower_permille: f.next()?.parse().ok()?,
        upper_permille: f.next()?.parse().ok()?,
    })
}

/// The band of a `level` figure of a `job` run with `family` (`None`: not known): the first group
/// with at least [`MIN_BAND_CASES`] cases of, in order, the same job, family and level; any family
/// at that level; and, for a peak, the same family at any peak level, then any family at any.
pub fn error_band(job: Job, family: Option<FrameworkFamily>, level: BandLevel) -> Band {
    band_in(BAND_TABLE, job, family, level)
}

/// [`error_band`] read from `table`.
fn band_in(table: &str, job: Job, family: Option<FrameworkFamily>, level: BandLevel) -> Band {
    let mut tried: Vec<BandGroup> = Vec::new();
    let mut push = |family: Option<FrameworkFamily>, level: BandLevel| {
        let g = BandGroup { job, family, level };
        if !tried.contains(&g) {
            tried.push(g);
        }
    };
    if family.is_some() {
        push(family, level);
    }
    push(None, level);
    if level.is_peak() {
        if family.is_some() {
            push(family, BandLevel::Memory);
        }
        push(None, BandLevel::Memory);
    }
    let mut largest = (tried[0], 0);
    for g in tried {
        let Some(r) = row(table, g) else { continue };
        if r.cases >= MIN_BAND_CASES {
            return Band::Range {
                group: g,
                cases: r.cases,
                lower_permille: r.lower_permille,
                upper_permille: r.upper_permille,
            };
        }
        if r.cases > largest.1 {
            largest = (g, r.cases);
        }
    }
    Band::TooFew {
        group: largest.0,
        cases: largest.1,
    }
}

/// The framework family the engine's answer for `s` models: the server for a served job, llama.cpp
/// for a local one, transformers for inference, and for training the family of its fine-tuning
/// framework (`ft`: TRL, axolotl and LLaMA-Factory run transformers' Trainer).
pub fn family_of(s: &Scenario) -> Option<FrameworkFamily> {
    match s.job {
        Job::Serving if s.server == Server::Sglang => Some(FrameworkFamily::Sglang),
        Job::Serving => Some(FrameworkFamily::Vllm),
        Job::Local => Some(FrameworkFamily::LlamaCpp),
        Job::Inference => Some(FrameworkFamily::Transformers),
        Job::Full | Job::Lora | Job::Qlora => Some(match s.framework {
            Framework::Trl
            | Framework::Transformers
            | Framework::Axolotl
            | Framework::LlamaFactory => FrameworkFamily::Transformers,
            Framework::Unsloth => FrameworkFamily::Unsloth,
            Framework::Torchtune => FrameworkFamily::Torchtune,
        }),
    }
}

/// The band of the answer the page and the CLI show for `s`: its total per GPU, the figure a
/// device-level measurement (nvidia-smi) reads; for a server, its KV pool, the figure its logs
/// print.
pub fn estimate_band(s: &Scenario) -> Band {
    let level = match s.job {
        Job::Serving => BandLevel::KvPool,
        _ => BandLevel::Device,
    };
    error_band(s.job, family_of(s), level)
}

#[cfg(test)]
mod tests;
