//! Everything that can be wrong with a scenario, a config.json or a link, as data: the kind and
//! its numbers. The page and the CLI put it into words (English or Chinese).

use crate::dtype::WeightFormat;
use crate::job::{Job, LoraTargets, UnknownLoraTarget};
use crate::json::JsonError;
use crate::weight_parts::WeightPart;

/// What went wrong, with what the user needs to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// A config.json larger than the engine reads.
    ConfigTooLarge { bytes: usize, limit: usize },
    /// The pasted text is not JSON.
    NotJson(JsonError),
    /// The JSON's top level is not an object.
    NotAnObject,
    /// A config.json lacks a field the engine needs.
    MissingField(String),
    /// A config.json field holds something that is not a whole number (`shown`: its first characters).
    NotAWholeNumber { field: String, shown: String },
    /// A config.json field that must not be 0 is 0.
    ZeroField(String),
    /// A value outside the range the engine accepts; `setting` is a config.json field name or a
    /// setting's link key.
    OutOfRange {
        setting: String,
        value: u64,
        min: u64,
        max: u64,
    },
    /// Attention heads that KV heads cannot share evenly.
    HeadsNotShared { heads: u64, kv_heads: u64 },
    /// More experts per token than experts.
    ExpertsPerToken { top_k: u64, experts: u64 },
    /// A sliding window of 0 tokens.
    ZeroWindow,
    /// A model over 20 trillion parameters.
    TooManyParameters,
    /// A link or flag names a preset that does not exist.
    UnknownPreset(String),
    /// A LoRA target module that does not exist.
    UnknownLoraTarget(String),
    /// Not a parameter count such as 7B or 1.5B (its first characters).
    NotAParamCount(String),
    /// A compact architecture (`cfg=` in links) that does not read back (`field`: the letter).
    BadArchField(String),
    /// The GPUs cannot be split into tensor-parallel groups of this size.
    TpDoesNotDivide { gpus: u64, tp: u64 },
    /// The GPUs cannot be split into pipeline stages of tensor-parallel groups.
    PpDoesNotDivide { gpus: u64, tp: u64, pp: u64 },
    /// The job cannot use weights in this format.
    FormatNotForJob { job: Job, format: WeightFormat },
    /// The job cannot keep this part of the model in a format of its own that is this one.
    PartFormatNotForJob {
        job: Job,
        part: WeightPart,
        format: WeightFormat,
    },
    /// The optimizer step in backward cannot accumulate gradients over several micro-batches.
    StepInBackwardAccumulates { steps: u64 },
    /// LoRA without a target module.
    NoLoraTargets,
    /// None of the LoRA targets exists in the model, so nothing would train.
    LoraTargetsAbsent(LoraTargets),
    /// The job needs more than 1 EiB per GPU.
    BeyondHardware,
}

impl std::fmt::Display for EngineError {
    /// The error's kind and numbers, for logs and tests; users see the shells' sentences.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for EngineError {}

impl From<UnknownLoraTarget> for EngineError {
    fn from(e: UnknownLoraTarget) -> EngineError {
        EngineError::UnknownLoraTarget(e.0)
    }
}
