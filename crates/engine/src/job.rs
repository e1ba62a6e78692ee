//! What the GPU is asked to do, and the modules LoRA adapts: the choices the formats and the
//! errors already speak of, below the rest of a scenario.

use crate::dtype::WeightFormat;
use crate::named::named_enum;

named_enum! {
    /// What the GPU is asked to do.
    pub enum Job {
        Inference => ("infer", "Inference"),
        Serving => ("serve", "Serving (vLLM / SGLang)"),
        Full => ("full", "Full fine-tune"),
        Lora => ("lora", "LoRA"),
        Qlora => ("qlora", "QLoRA"),
        Local => ("local", "llama.cpp / Ollama"),
    }
}

impl Job {
    pub fn is_training(self) -> bool {
        matches!(self, Job::Full | Job::Lora | Job::Qlora)
    }

    pub fn is_peft(self) -> bool {
        matches!(self, Job::Lora | Job::Qlora)
    }

    /// The weights a job starts with: a llama.cpp run Q4_K_M, the build `ollama pull` fetches
    /// for a model's default tag (ollama.com/library: `llama3.1:8b` is `8b-instruct-q4_K_M`),
    /// every other job 16-bit weights.
    pub fn default_weights(self) -> WeightFormat {
        match self {
            Job::Local => WeightFormat::GgufQ4KM,
            _ => WeightFormat::Bf16,
        }
    }

    /// Whether the job can run on weights stored in `format`: full fine-tuning and LoRA update
    /// or sit on 16/32-bit weights, QLoRA trains adapters over a bitsandbytes 4-bit base, NF4 or
    /// FP4 (the quantized bases its backward runs through); inference and serving take any.
    pub fn allows(self, format: WeightFormat) -> bool {
        match self {
            Job::Full | Job::Lora => !format.is_quantized(),
            Job::Qlora => matches!(
                format,
                WeightFormat::Nf4 | WeightFormat::Nf4Dq | WeightFormat::Fp4 | WeightFormat::Fp4Dq
            ),
            Job::Inference | Job::Serving => true,
            // the formats llama.cpp's quantizer writes (bf16 / fp16 as an f16 file)
            Job::Local => matches!(
                format,
                WeightFormat::Fp32
                    | WeightFormat::Bf16
                    | WeightFormat::GgufQ8_0
                    | WeightFormat::GgufQ6K
                    | WeightFormat::GgufQ5KM
                    | WeightFormat::GgufQ4KM
                    | WeightFormat::GgufQ3KM
                    | WeightFormat::GgufQ2K
            ),
        }
    }

    /// Whether the job can keep one part of the model in `format` while the rest has another:
    /// inference and serving any format, QLoRA a frozen 16/32-bit part or a bitsandbytes 4-bit
    /// one; the other jobs store every part alike.
    pub fn allows_part(self, format: WeightFormat) -> bool {
        match self {
            Job::Inference | Job::Serving => true,
            Job::Qlora => !format.is_quantized() || self.allows(format),
            Job::Full | Job::Lora | Job::Local => false,
        }
    }
}

/// LoRA target modules as a small set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoraTargets(u16);

impl LoraTargets {
    /// Every module LoRA can target, with its key.
    pub const NAMES: [&'static str; 9] =
        ["q", "k", "v", "o", "gate", "up", "down", "embed", "head"];

    pub fn empty() -> LoraTargets {
        LoraTargets(0)
    }

    /// q, k, v, o, gate, up and down: the first seven of [`Self::NAMES`] (no `expect` on a parse,
    /// which linked the engine's error `Debug` into the page).
    pub fn all_linear() -> LoraTargets {
        LoraTargets(0b111_1111)
    }

    pub fn contains(self, name: &str) -> bool {
        Self::NAMES
            .iter()
            .position(|n| *n == name)
            .is_some_and(|i| self.0 & (1 << i) != 0)
    }

    pub fn with(self, name: &str, on: bool) -> LoraTargets {
        match Self::NAMES.iter().position(|n| *n == name) {
            Some(i) if on => LoraTargets(self.0 | (1 << i)),
            Some(i) => LoraTargets(self.0 & !(1 << i)),
            None => self,
        }
    }

    /// Reads "q,v" or "all".
    pub fn parse(text: &str) -> Result<LoraTargets, UnknownLoraTarget> {
        if text == "all" {
            return Ok(LoraTargets::all_linear());
        }
        let mut t = LoraTargets::empty();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if !Self::NAMES.contains(&part) {
                return Err(UnknownLoraTarget(part.chars().take(40).collect()));
            }
            t = t.with(part, true);
        }
        Ok(t)
    }

    pub fn names(self) -> Vec<&'static str> {
        Self::NAMES
            .iter()
            .copied()
            .filter(|n| self.contains(n))
            .collect()
    }

    pub fn key(self) -> String {
        self.names().join(",")
    }
}

/// A LoRA target module the engine does not know: its first 40 characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLoraTarget(pub String);
