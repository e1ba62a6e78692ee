//! A measured figure beside the estimate at the same level.

use super::{Figure, Level, Measurement};
use crate::memory::{Breakdown, Component};

/// What in a [`Breakdown`] a level is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Live tensor bytes at the peak (`Breakdown::tensors`).
    Tensors,
    /// The allocator's reserved level (`Breakdown::reserved`): tensors at the largest moment,
    /// load included, + the reserve; what PyTorch's reserved figure counts.
    TensorsAndReserve,
    /// Everything on the device at the peak (`Breakdown::total`).
    Total,
    /// These components at the peak, summed.
    Components(&'static [Component]),
    /// vLLM: gpu_memory_utilization × capacity (needs the serving fit).
    ServingBudget,
    /// vLLM: what is left for KV blocks (needs the serving fit).
    ServingKvPool,
}

const WEIGHTS: &[Component] = &[Component::Weights, Component::Adapter];
const TRANSIENT: &[Component] = &[Component::Activations, Component::Logits];

impl Level {
    /// The estimate this level is compared with; None for capacities and host buffers.
    /// A stated level is never guessed: `Unstated` is compared with the device total, the figure
    /// most people read (nvidia-smi, a task manager), and the page says so.
    pub fn target(self) -> Option<Target> {
        use Level::*;
        Some(match self {
            Allocated | Active | ToolPeak => Target::Tensors,
            Reserved => Target::TensorsAndReserve,
            DeviceUsed | Unstated => Target::Total,
            VllmBudget => Target::ServingBudget,
            VllmKvCache => Target::ServingKvPool,
            VllmWeights | LlamaModel | ToolParam => Target::Components(WEIGHTS),
            VllmActivationPeak | LlamaCompute => Target::Components(TRANSIENT),
            VllmTorchPeak => Target::Components(&[
                Component::Weights,
                Component::Adapter,
                Component::Activations,
                Component::Logits,
            ]),
            VllmNonTorch => Target::Components(&[Component::Context]),
            LlamaKv | ToolKvCache => Target::Components(&[Component::KvCache]),
            ToolGrad => Target::Components(&[Component::Gradients]),
            ToolOptimizer => Target::Components(&[Component::Optimizer]),
            // the tool's "other" is every live tensor that is not a parameter, gradient or
            // optimizer state: activations, logits and, when generating, the KV cache
            ToolOther => Target::Components(&[
                Component::Activations,
                Component::Logits,
                Component::KvCache,
            ]),
            DeviceTotal | MetalWorkingSet | VllmCudaGraph | LlamaOutput => return None,
        })
    }
}

impl Target {
    /// The estimate's bytes for this target; None when the breakdown has no serving fit.
    pub fn bytes(self, b: &Breakdown) -> Option<u64> {
        match self {
            Target::Tensors => Some(b.tensors),
            Target::TensorsAndReserve => Some(b.reserved),
            Target::Total => Some(b.total),
            Target::Components(cs) => Some(
                cs.iter()
                    .fold(0u64, |acc, &c| acc.saturating_add(b.bytes(c))),
            ),
            Target::ServingBudget => b.serving.map(|s| s.budget),
            Target::ServingKvPool => b.serving.map(|s| s.kv_pool),
        }
    }
}

/// A measured size beside the estimated one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub level: Level,
    pub measured: u64,
    pub estimated: u64,
}

impl Comparison {
    pub fn new(level: Level, measured: u64, estimated: u64) -> Comparison {
        Comparison {
            level,
            measured,
            estimated,
        }
    }

    /// `figure` beside the breakdown at its level; None when the level has no counterpart.
    pub fn of(figure: &Figure, b: &Breakdown) -> Option<Comparison> {
        let estimated = figure.level.target()?.bytes(b)?;
        Some(Comparison::new(figure.level, figure.bytes, estimated))
    }

    /// Estimated − measured in bytes: positive when the estimate is above the measurement.
    pub fn difference(self) -> i128 {
        i128::from(self.estimated) - i128::from(self.measured)
    }

    /// The difference in hundredths of a percent of the measurement (+1250 is 12.50 % over),
    /// rounded half away from zero; None when nothing was measured.
    pub fn basis_points(self) -> Option<i128> {
        let m = i128::from(self.measured);
        if m == 0 {
            return None;
        }
        let scaled = self.difference() * 10_000;
        let half = m / 2;
        Some(if scaled >= 0 {
            (scaled + half) / m
        } else {
            (scaled - half) / m
        })
    }

    /// The difference in percent of the measurement, for display.
    pub fn percent(self) -> Option<f64> {
        self.basis_points().map(|bp| bp as f64 / 100.0)
    }
}

impl Measurement {
    /// Every figure on an accelerator that has a counterpart in the breakdown; figures of one
    /// level on several devices are summed (the engine's breakdown is per GPU: compare per device
    /// with [`Comparison::of`] when the job is split).
    pub fn compare(&self, b: &Breakdown) -> Vec<Comparison> {
        let mut out: Vec<Comparison> = Vec::new();
        for f in &self.figures {
            if out.iter().any(|c| c.level == f.level) {
                continue;
            }
            let (Some(measured), Some(estimated)) = (
                self.on_devices(f.level),
                f.level.target().and_then(|t| t.bytes(b)),
            ) else {
                continue;
            };
            out.push(Comparison::new(f.level, measured, estimated));
        }
        out
    }
}
