//! A scenario: the model, the job, the numbers and the hardware. Everything the page and the CLI
//! set: each setting is declared once (`settings/list.rs`), its choices live by concern (training,
//! serving, a llama.cpp run, the model, the fine-tuning framework's defaults).

mod framework;
mod local;
mod model_choice;
mod serving;
mod settings;
mod training;

pub use crate::gpus::{Gpu, Interconnect, CAPACITY_LINES_GIB};
pub use crate::job::{Job, LoraTargets, UnknownLoraTarget};
pub use framework::{step_tokens, Batching, Framework, LengthReason, StepTokens};
pub use local::{GgufFile, LocalMachine, SplitMode};
pub use model_choice::ModelChoice;
pub use serving::{CudaGraphs, Server, SpecMethod, VllmVersion};
pub use settings::{
    Look, Panel, Place, Refusal, Scenario, Setting, SettingKind, SettingValue, SETTINGS,
};
pub use training::{
    Attention, Checkpointing, DpFramework, Loss, Offload, Optimizer, PipelineSchedule, WeightsLoad,
    Zero,
};

use crate::dtype::WeightFormat;
use crate::error::EngineError;
use crate::weight_parts::PartFormats;

impl Scenario {
    /// The job's defaults (its own weights, [`Scenario::for_job`]) with its framework's defaults
    /// for that job: what a link that names only the job and the framework opens with.
    pub fn defaults_of_framework(&self) -> Scenario {
        let mut d = Scenario::for_job(self.job);
        self.framework.apply(&mut d);
        d
    }

    /// Checks every setting against its range and the combinations that cannot work.
    pub fn validate(&self) -> Result<(), EngineError> {
        for st in SETTINGS {
            if let (Some((min, max)), SettingValue::Number(v)) = (st.range(), st.get(self)) {
                if !(min..=max).contains(&v) {
                    return Err(EngineError::OutOfRange {
                        setting: st.key.into(),
                        value: v,
                        min,
                        max,
                    });
                }
            }
        }
        if !self.gpus.is_multiple_of(self.tp) {
            return Err(EngineError::TpDoesNotDivide {
                gpus: self.gpus,
                tp: self.tp,
            });
        }
        let pp = self.pipeline_stages();
        if !self.gpus.is_multiple_of(self.tp * pp) {
            return Err(EngineError::PpDoesNotDivide {
                gpus: self.gpus,
                tp: self.tp,
                pp,
            });
        }
        if matches!(self.job, Job::Full | Job::Lora | Job::Local) && !self.job.allows(self.weights)
        {
            return Err(EngineError::FormatNotForJob {
                job: self.job,
                format: self.weights,
            });
        }
        if let Some((part, format)) = self
            .part_formats()
            .overridden()
            .find(|(_, f)| !self.job.allows_part(*f))
        {
            return Err(EngineError::PartFormatNotForJob {
                job: self.job,
                part,
                format,
            });
        }
        if self.job.is_training() && self.optimizer_in_backward && self.grad_accum > 1 {
            return Err(EngineError::StepInBackwardAccumulates {
                steps: self.grad_accum,
            });
        }
        if self.job.is_peft() && self.lora_targets == LoraTargets::empty() {
            return Err(EngineError::NoLoraTargets);
        }
        Ok(())
    }

    /// Tensor-parallel degrees the page offers: powers of two up to 64 that divide the GPUs of
    /// one pipeline stage.
    pub fn tp_choices(&self) -> Vec<u64> {
        let per_stage = self.gpus / self.pipeline_stages();
        (0..=6)
            .map(|i| 1u64 << i)
            .filter(|t| per_stage.is_multiple_of(*t))
            .collect()
    }

    /// The pipeline stages that apply (a llama.cpp run places its layers its own way).
    pub(crate) fn pipeline_stages(&self) -> u64 {
        if self.job == Job::Local {
            1
        } else {
            self.pp.max(1)
        }
    }

    /// Data-parallel ranks: the GPUs ÷ tensor parallel ÷ pipeline stages.
    pub fn data_parallel(&self) -> u64 {
        (self.gpus / (self.tp.max(1) * self.pipeline_stages())).max(1)
    }

    /// The length the "memory as it grows" view sweeps: the average request for a server (it sizes
    /// its cache by requests), the sequence (or prompt) otherwise.
    pub fn swept_tokens(&self) -> u64 {
        match self.job {
            Job::Serving => self.avg_tokens,
            _ => self.seq,
        }
    }

    /// The same scenario with the swept length set to `tokens`.
    pub fn with_swept_tokens(&self, tokens: u64) -> Scenario {
        let mut s = self.clone();
        match self.job {
            Job::Serving => s.avg_tokens = tokens,
            _ => s.seq = tokens,
        }
        s
    }

    /// The parts stored in a format of their own, for the jobs that can mix formats (the others
    /// store every part alike and ignore them).
    pub fn part_formats(&self) -> PartFormats {
        let mixes = self.weight_parts.overridden().next().is_some()
            && !matches!(self.job, Job::Full | Job::Lora | Job::Local);
        if mixes {
            self.weight_parts
        } else {
            PartFormats::default()
        }
    }

    /// Takes the format and the parts' formats a checkpoint's config.json names, except those
    /// `chosen` already (by link key) and those the job cannot use.
    pub fn apply_quantization(
        &mut self,
        q: &crate::config::Quantization,
        chosen: impl Fn(&str) -> bool,
    ) {
        if !chosen("w") && self.job.allows(q.format) {
            self.weights = q.format;
        }
        for (part, format) in q.parts.overridden() {
            if !chosen(part.key()) && self.job.allows_part(format) {
                self.weight_parts.set(part, Some(format));
            }
        }
        if !chosen("k16") {
            self.kept_16bit = self.model.architecture().map_or(0, |a| {
                let matrices: Vec<_> = a
                    .attention_matrices()
                    .into_iter()
                    .chain(a.mlp_matrices(a.intermediate))
                    .collect();
                crate::config::LAYER_MODULES
                    .iter()
                    .zip(q.kept_in_layers)
                    .filter_map(|((name, _), layers)| {
                        let (_, i, o) = matrices.iter().rfind(|(n, _, _)| n == name)?;
                        Some(u64::from(layers) * i * o)
                    })
                    .sum()
            });
        }
    }

    /// The model of GPU `i` of `count`: the last one's when the box is mixed.
    pub fn gpu_at(&self, i: usize, count: usize) -> Gpu {
        match self.last_gpu {
            Some(last) if count > 1 && i + 1 == count => last,
            _ => self.gpu,
        }
    }

    /// The data-parallel attention ranks of an expert-parallel server (1 otherwise).
    pub fn attention_ranks(&self) -> u64 {
        if self.job == Job::Serving && self.expert_parallel {
            (self.gpus / (self.tp * self.pp).max(1)).max(1)
        } else {
            1
        }
    }

    /// Whether the GPUs the job runs on are of different models.
    pub fn mixed_gpus(&self) -> bool {
        self.gpus > 1 && self.last_gpu.is_some_and(|g| g != self.gpu)
    }

    /// The default scenario for `job`, with the weights that job starts with.
    pub fn for_job(job: Job) -> Scenario {
        Scenario {
            job,
            weights: job.default_weights(),
            ..Scenario::default()
        }
    }

    /// Moves to `job`; weights left at the old job's default take the new job's.
    pub(crate) fn switch_job(&mut self, job: Job) {
        if self.weights == self.job.default_weights() {
            self.weights = job.default_weights();
        }
        self.job = job;
    }

    /// The quantization QLoRA uses when the chosen weights are not quantized.
    pub fn effective_weights(&self) -> WeightFormat {
        if self.job == Job::Qlora && !self.weights.is_quantized() {
            WeightFormat::Nf4Dq
        } else {
            self.weights
        }
    }
}
