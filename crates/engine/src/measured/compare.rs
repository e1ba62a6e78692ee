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

/// The estimate's figures a measurement is compared with: a breakdown's levels, small enough to
/// hand to the readers module, which writes the comparison (`to_link` / `from_link`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Estimated {
    pub tensors: u64,
    pub reserved: u64,
    pub total: u64,
    /// A server's budget and KV pool.
    pub serving: Option<(u64, u64)>,
    /// Each component's bytes at the peak, in `Component::ALL`'s order.
    pub components: Vec<u64>,
}

impl Estimated {
    pub fn of(b: &Breakdown) -> Estimated {
        Estimated {
            tensors: b.tensors,
            reserved: b.reserved,
            total: b.total,
            serving: b.serving.map(|s| (s.budget, s.kv_pool)),
            components: Component::ALL.iter().map(|c| b.bytes(*c)).collect(),
        }
    }

    /// A component's bytes at the peak.
    pub fn bytes(&self, c: Component) -> u64 {
        let at = Component::ALL.iter().position(|x| *x == c);
        at.and_then(|i| self.components.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// "tensors.reserved.total.budget.kv_pool.c1.c2…", `-` for a pool a non-server lacks.
    pub fn to_link(&self) -> String {
        let (budget, pool) = match self.serving {
            Some((b, p)) => (b.to_string(), p.to_string()),
            None => ("-".to_string(), "-".to_string()),
        };
        let mut parts = vec![
            self.tensors.to_string(),
            self.reserved.to_string(),
            self.total.to_string(),
            budget,
            pool,
        ];
        parts.extend(self.components.iter().map(u64::to_string));
        parts.join(".")
    }

    /// What `to_link` wrote; None for anything else.
    pub fn from_link(text: &str) -> Option<Estimated> {
        let parts: Vec<&str> = text.split('.').collect();
        let [tensors, reserved, total, budget, pool, components @ ..] = parts.as_slice() else {
            return None;
        };
        if components.len() != Component::ALL.len() {
            return None;
        }
        let number = |t: &str| t.parse::<u64>().ok();
        let serving = match (*budget, *pool) {
            ("-", "-") => None,
            (b, p) => Some((number(b)?, number(p)?)),
        };
        Some(Estimated {
            tensors: number(tensors)?,
            reserved: number(reserved)?,
            total: number(total)?,
            serving,
            components: components
                .iter()
                .map(|c| number(c))
                .collect::<Option<_>>()?,
        })
    }
}

impl Target {
    /// The estimate's bytes for this target; None when the estimate has no serving fit.
    pub fn bytes(self, e: &Estimated) -> Option<u64> {
        match self {
            Target::Tensors => Some(e.tensors),
            Target::TensorsAndReserve => Some(e.reserved),
            Target::Total => Some(e.total),
            Target::Components(cs) => Some(
                cs.iter()
                    .fold(0u64, |acc, &c| acc.saturating_add(e.bytes(c))),
            ),
            Target::ServingBudget => e.serving.map(|s| s.0),
            Target::ServingKvPool => e.serving.map(|s| s.1),
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
        let estimated = figure.level.target()?.bytes(&Estimated::of(b))?;
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
        self.compare_with(&Estimated::of(b))
    }

    /// As [`Measurement::compare`], with the estimate's figures alone.
    pub fn compare_with(&self, e: &Estimated) -> Vec<Comparison> {
        let mut out: Vec<Comparison> = Vec::new();
        for f in &self.figures {
            if out.iter().any(|c| c.level == f.level) {
                continue;
            }
            let (Some(measured), Some(estimated)) = (
                self.on_devices(f.level),
                f.level.target().and_then(|t| t.bytes(e)),
            ) else {
                continue;
            };
            out.push(Comparison::new(f.level, measured, estimated));
        }
        out
    }
}
