//! The budget: every memory component of a scenario, per GPU, with the formula behind each number.
//!
//! Peak = what persists + the largest transient alive at the same moment. Training has two candidate
//! moments: the start of the backward pass (activations and the loss's logits are all alive) and the
//! optimizer step (gradients and the optimizer's temporaries are). Inference has the prefill and the
//! end of generation (the KV cache at full length).

use crate::dtype::WeightFormat;
use crate::error::EngineError;
use crate::model::{Architecture, MlpKind, ParamCounts};
use crate::named_enum;
use crate::scenario::{Attention, Checkpointing, Job, Loss, Offload, Optimizer, Scenario, Zero};
use crate::units::{div_ceil, prod, scale, thousands, Unit, MIB};

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
    }
}

impl Phase {
    /// When the phase happens, in the words of the job: training or inference.
    pub fn describe(self, job: Job) -> &'static str {
        match (self, job.is_training()) {
            (Phase::Always, _) => "always",
            (Phase::Compute, true) => "start of backward",
            (Phase::Step, true) => "optimizer step",
            (Phase::Compute, false) => "prefill",
            (Phase::Step, false) => "end of generation",
            (Phase::Load, _) => "loading the weights",
        }
    }

    /// The moments whose transients compete for the peak, in tie-break order.
    pub const TRANSIENT: [Phase; 3] = [Phase::Compute, Phase::Step, Phase::Load];
}

/// One line of the budget: a component's bytes per GPU, when they are alive, and the arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub component: Component,
    pub phase: Phase,
    pub bytes: u64,
    /// The formula with this scenario's numbers substituted (empty when not asked for).
    pub formula: String,
}

/// How a vLLM-style server fills the selected GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServingFit {
    /// gpu_memory_utilization x capacity: what the server reserves up front.
    pub budget: u64,
    /// What is left for KV blocks after weights, activations and non-torch memory.
    pub kv_pool: u64,
    pub kv_bytes_per_token: u64,
    pub blocks: u64,
    pub tokens: u64,
    /// Requests of the average length that fit at once.
    pub max_concurrency: u64,
    /// Whether one request of max_model_len fits in the pool (vLLM refuses to start otherwise).
    pub max_len_fits: bool,
}

impl ServingFit {
    /// How a vLLM-style server started with this budget's settings fills `gpu`: it reserves
    /// gpu_memory_utilization × capacity and gives KV blocks whatever the weights, the profiled
    /// activations and the non-torch memory leave (the allocator reserve is part of that pool).
    pub fn on(b: &Breakdown, s: &Scenario, gpu: crate::gpus::Gpu) -> ServingFit {
        let budget = scale(gpu.bytes(), s.gpu_util_pct, 100);
        let fixed = b.total - b.bytes(Component::KvCache) - b.bytes(Component::Reserve);
        let kv_pool = budget.saturating_sub(fixed);
        let per_token = b.kv_bytes_per_token.max(1);
        let blocks = kv_pool / prod(&[per_token, s.block_size]).max(1);
        let tokens = blocks * s.block_size;
        let avg = div_ceil(s.avg_tokens, s.block_size) * s.block_size;
        ServingFit {
            budget,
            kv_pool,
            kv_bytes_per_token: per_token,
            blocks,
            tokens,
            max_concurrency: tokens / avg.max(1),
            max_len_fits: tokens >= s.max_model_len,
        }
    }
}

/// The whole budget of one scenario, per GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Breakdown {
    pub lines: Vec<Line>,
    /// The moment of the peak.
    pub peak_phase: Phase,
    /// Live tensor bytes at the peak (what torch.cuda.max_memory_allocated reports).
    pub tensors: u64,
    /// Everything on the device at the peak: tensors + context + reserve (what nvidia-smi shows).
    pub total: u64,
    /// Host memory that offloading uses, per GPU.
    pub cpu: u64,
    pub params: ParamCounts,
    pub active_params: u64,
    pub trainable: u64,
    /// KV-cache bytes of one token (all layers, one rank).
    pub kv_bytes_per_token: u64,
    pub serving: Option<ServingFit>,
}

impl Breakdown {
    /// Whether a line is alive at the peak.
    pub fn at_peak(&self, line: &Line) -> bool {
        line.phase == Phase::Always || line.phase == self.peak_phase
    }

    /// Bytes of a component at the peak.
    pub fn bytes(&self, c: Component) -> u64 {
        self.lines
            .iter()
            .filter(|l| l.component == c && self.at_peak(l))
            .map(|l| l.bytes)
            .sum()
    }

    /// Bytes of a component when it is largest, whether or not that is the peak.
    pub fn largest(&self, c: Component) -> u64 {
        Phase::TRANSIENT
            .iter()
            .map(|p| {
                self.lines
                    .iter()
                    .filter(|l| l.component == c && (l.phase == Phase::Always || l.phase == *p))
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
    let b = Budget::new(s, arch, explain).run();
    // past an exbibyte a GPU the arithmetic has left physics (and saturated); say so instead
    if b.total >= MAX_PER_GPU || b.cpu >= MAX_PER_GPU {
        return Err(EngineError::BeyondHardware);
    }
    Ok(b)
}

/// The largest budget per GPU the engine reports (1 EiB); anything larger is an error.
pub const MAX_PER_GPU: u64 = 1 << 60;

struct Budget<'a> {
    s: &'a Scenario,
    a: &'a Architecture,
    explain: bool,
    unit: Unit,
    lines: Vec<Line>,
    cpu: u64,
    fmt: WeightFormat,
    /// Bytes of one activation element.
    c: u64,
    tp: u64,
    dp: u64,
    params: ParamCounts,
    /// Everything that trains: the whole model, or the adapters plus `saved`.
    trainable: u64,
    /// Parameters of the full embedding and head copies PEFT trains (modules_to_save).
    saved: u64,
}

/// A group of trainable parameters sharing one element size.
struct Trainables {
    /// Prefix of the group's formulas ("" for the main group).
    what: &'static str,
    n: u64,
    /// Bytes of one parameter (and of its gradient).
    bytes: u64,
    /// Bytes of one optimizer-state element.
    state: u64,
    /// Parameters of the group's largest tensor.
    largest: u64,
}

impl<'a> Budget<'a> {
    fn new(s: &'a Scenario, a: &'a Architecture, explain: bool) -> Budget<'a> {
        let fmt = s.effective_weights();
        let c = if fmt == WeightFormat::Fp32 && !s.master_weights {
            4
        } else {
            2
        };
        let params = a.params();
        let saved = if s.job.is_peft() && s.train_embed_head {
            prod(&[2, a.vocab, a.hidden])
        } else {
            0
        };
        let trainable = match s.job {
            Job::Full => params.total() - params.extra,
            Job::Lora | Job::Qlora => lora_params(a, s) + saved,
            Job::Inference | Job::Serving => 0,
        };
        Budget {
            s,
            a,
            explain,
            unit: s.unit,
            lines: Vec::with_capacity(16),
            cpu: 0,
            fmt,
            c,
            tp: s.tp,
            dp: s.gpus / s.tp,
            params,
            trainable,
            saved,
        }
    }

    fn g(&self, bytes: u64) -> String {
        self.unit.format(bytes)
    }

    fn push(
        &mut self,
        component: Component,
        phase: Phase,
        bytes: u64,
        formula: impl FnOnce(&Self) -> String,
    ) {
        let formula = if self.explain {
            formula(self)
        } else {
            String::new()
        };
        self.lines.push(Line {
            component,
            phase,
            bytes,
            formula,
        });
    }

    fn zero(&self) -> Zero {
        if self.s.job.is_training() {
            self.s.zero
        } else {
            Zero::Z0
        }
    }

    /// Divisor of model states under ZeRO for a given stage threshold.
    fn shard(&self, from_stage: u8) -> u64 {
        if self.zero().stage() >= from_stage {
            self.dp
        } else {
            1
        }
    }

    fn run(mut self) -> Breakdown {
        self.weights();
        if self.s.job.is_training() {
            self.training_states();
            self.training_activations();
        } else {
            self.inference();
        }
        let context = self.s.context_mib * MIB;
        self.push(Component::Context, Phase::Always, context, |b| {
            format!(
                "{} MiB (CUDA context, cuBLAS/NCCL workspaces; edit under advanced) = {}",
                b.s.context_mib,
                b.g(context)
            )
        });

        let sum = |lines: &[Line], p: Phase| -> u64 {
            lines
                .iter()
                .filter(|l| l.phase == p)
                .map(|l| l.bytes)
                .fold(0u64, u64::saturating_add)
        };
        let always_tensors = sum(&self.lines, Phase::Always) - context;
        // the largest transient moment; on a tie the earlier one in TRANSIENT
        let (peak_phase, transient) = Phase::TRANSIENT
            .iter()
            .map(|&p| (p, sum(&self.lines, p)))
            .fold(
                (Phase::Compute, 0),
                |best, (p, v)| {
                    if v > best.1 {
                        (p, v)
                    } else {
                        best
                    }
                },
            );
        let tensors = always_tensors.saturating_add(transient);
        let reserve = scale(tensors, self.s.reserve_pct, 100);
        self.push(Component::Reserve, Phase::Always, reserve, |b| {
            format!(
                "{}% × {} live tensors at the peak = {}",
                b.s.reserve_pct,
                b.g(tensors),
                b.g(reserve)
            )
        });
        let total = tensors.saturating_add(context).saturating_add(reserve);
        let kv_bytes_per_token = self.kv_bytes(1, 1);
        let mut b = Breakdown {
            lines: self.lines,
            peak_phase,
            tensors,
            total,
            cpu: self.cpu,
            params: self.params,
            active_params: self.a.active_params(),
            trainable: self.trainable,
            kv_bytes_per_token,
            serving: None,
        };
        if self.s.job == Job::Serving {
            b.serving = Some(ServingFit::on(&b, self.s, self.s.gpu));
        }
        b
    }

    // ---- weights -------------------------------------------------------------------------------

    /// Bytes of all model weights in their stored format, on one tensor-parallel rank.
    fn weight_bytes(&self) -> (u64, String) {
        let p = &self.params;
        let fmt = self.fmt;
        let small_bytes = fmt.compute_bytes();
        let head = self.quantized_head();
        let emb = match head {
            // the head takes the linear layers' format; a tied head becomes its own copy
            Some(n) => fmt
                .embedding_bits()
                .bytes(p.embedding + p.head - p.head.min(n))
                .saturating_add(fmt.bits().bytes(n)),
            None => fmt.embedding_bits().bytes(p.embedding + p.head),
        };
        // attention projections kept 16-bit when only the MLP is quantized
        let attn16 = if self.s.attention_16bit && fmt.is_quantized() {
            prod(&[self.a.layers, self.a.attention_params()])
        } else {
            0
        };
        let lin = fmt
            .bits()
            .bytes(p.linear - attn16)
            .saturating_add(prod(&[attn16, 2]));
        let small = (p.small + p.extra) * small_bytes;
        let all = div_ceil(emb + lin + small, self.tp);
        let text = if self.explain {
            let mut t = if let Some(n) = head {
                format!(
                    "{} linear + {} head ({}) × {:.3} bits + {} embeddings × {:.3} bits + {} norms/biases × {} B",
                    thousands(p.linear),
                    thousands(n),
                    if self.a.tied { "quantized too, so no longer tied" } else { "quantized too" },
                    fmt.bits().as_f64(),
                    thousands(p.embedding + p.head - p.head.min(n)),
                    fmt.embedding_bits().as_f64(),
                    thousands(p.small + p.extra),
                    small_bytes
                )
            } else if fmt.is_quantized() {
                format!(
                    "{} linear × {:.3} bits + {} embedding/head × {:.3} bits + {} norms/biases × {} B",
                    thousands(p.linear),
                    fmt.bits().as_f64(),
                    thousands(p.embedding + p.head),
                    fmt.embedding_bits().as_f64(),
                    thousands(p.small + p.extra),
                    small_bytes
                )
            } else {
                format!(
                    "{} params × {} B ({})",
                    thousands(p.total()),
                    fmt.bits().num / 8,
                    fmt.key()
                )
            };
            if attn16 > 0 {
                t.push_str(&format!(
                    ", of which {} attention params stay 16-bit (× 2 B, not {:.3} bits)",
                    thousands(attn16),
                    fmt.bits().as_f64()
                ));
            }
            if self.tp > 1 {
                t.push_str(&format!(" ÷ {} (tensor parallel)", self.tp));
            }
            t
        } else {
            String::new()
        };
        (all, text)
    }

    /// The largest quantized matrix (a layer's, or the head when it is quantized too) and its
    /// bytes in 16-bit on one rank: what bitsandbytes holds while it quantizes or dequantizes.
    fn largest_in_16_bit(&self) -> (u64, u64) {
        let n = self
            .a
            .largest_linear_matrix()
            .max(self.quantized_head().unwrap_or(0));
        (n, div_ceil(prod(&[n, 2]), self.tp))
    }

    /// Parameters of the output head when it is quantized with the linear layers.
    fn quantized_head(&self) -> Option<u64> {
        (self.s.quantize_head && self.fmt.is_quantized() && self.s.job != Job::Full)
            .then(|| prod(&[self.a.vocab, self.a.hidden]))
    }

    fn weights(&mut self) {
        let (all, text) = self.weight_bytes();
        let z3 = self.zero() == Zero::Z3;
        let offload_params = z3 && self.s.offload == Offload::All;
        let per_gpu = if z3 { div_ceil(all, self.dp) } else { all };
        if offload_params {
            self.cpu = self.cpu.saturating_add(per_gpu);
        }
        let gpu_bytes = if offload_params { 0 } else { per_gpu };
        self.push(Component::Weights, Phase::Always, gpu_bytes, |b| {
            let mut f = text.clone();
            if z3 {
                f.push_str(&format!(" ÷ {} GPUs (ZeRO-3 shards weights)", b.dp));
            }
            if offload_params {
                f.push_str(&format!(" → {} in CPU memory, 0 on the GPU", b.g(per_gpu)));
            } else {
                f.push_str(&format!(" = {}", b.g(gpu_bytes)));
            }
            f
        });
        if z3 && self.dp > 1 {
            // ZeRO-3/FSDP gathers a layer at a time and prefetches the next one
            let layer = self.fmt.bits().bytes(self.a.largest_layer_params());
            let gathered = 2 * div_ceil(layer, self.tp);
            self.push(Component::Weights, Phase::Compute, gathered, |b| {
                format!(
                    "2 × {} params of the largest layer × {:.3} bits (ZeRO-3 gathers one layer and prefetches the next) = {}",
                    thousands(b.a.largest_layer_params()),
                    b.fmt.bits().as_f64(),
                    b.g(gathered)
                )
            });
        }
        // bitsandbytes quantizes while loading: each matrix reaches the GPU in 16-bit first (a
        // server measures its KV pool after loading, so serving has no such moment)
        if self.fmt.quantizes_on_load() && self.s.job != Job::Serving {
            let (largest, copy) = self.largest_in_16_bit();
            self.push(Component::Weights, Phase::Load, copy, |b| {
                format!(
                    "bitsandbytes quantizes while loading: the largest matrix ({} params) is on the GPU in 16-bit before it is quantized, × 2 B = {}",
                    thousands(largest),
                    b.g(copy)
                )
            });
        }
    }

    // ---- training ------------------------------------------------------------------------------

    /// Bytes of one trainable element as stored (adapters follow the master-weights switch).
    fn trainable_bytes(&self) -> u64 {
        match self.s.job {
            Job::Full => self.fmt.bits().num / 8,
            _ if self.s.master_weights => 4,
            _ => self.c,
        }
    }

    /// Bytes of one optimizer-state element: fp32 when the optimizer updates fp32 values.
    fn state_elem_bytes(&self) -> u64 {
        match self.s.optimizer {
            Optimizer::AdamW8bit => 1,
            Optimizer::AdamWBf16 => 2,
            _ if self.s.master_weights || self.trainable_bytes() == 4 => 4,
            _ => 2,
        }
    }

    fn training_states(&mut self) {
        let n = self.trainable - self.saved;
        let tb = self.trainable_bytes();
        if self.saved > 0 {
            let es = self.fmt.compute_bytes();
            let copies = div_ceil(prod(&[self.saved, es]), self.shard(3) * self.tp);
            let saved = self.saved;
            self.push(Component::Adapter, Phase::Always, copies, |b| {
                format!(
                    "modules_to_save: trainable copies of the embeddings and the head, {} params × {} B (the frozen originals stay in the weights) = {}",
                    thousands(saved),
                    es,
                    b.g(copies)
                )
            });
        }
        if self.s.job.is_peft() {
            // adapters shard with the layers they adapt, like their gradients and states
            let bytes = div_ceil(prod(&[n, tb]), self.shard(3) * self.tp);
            self.push(Component::Adapter, Phase::Always, bytes, |b| {
                format!(
                    "{} trainable = r {} × (d_in + d_out) over {} per layer × {} B = {}",
                    thousands(n),
                    b.s.lora_rank,
                    b.s.lora_targets.key(),
                    tb,
                    b.g(bytes)
                )
            });
        }

        // master weights (mixed precision)
        if self.s.job == Job::Full && self.s.master_weights {
            if self.fmt == WeightFormat::Fp32 {
                let copies = div_ceil(prod(&[n, 2]), self.shard(3) * self.tp);
                self.push(Component::Master, Phase::Compute, copies, |b| {
                    format!(
                        "fp32 weights are the master copy; autocast keeps 16-bit copies for backward: {} × 2 B = {}",
                        thousands(n),
                        b.g(copies)
                    )
                });
            } else {
                let master = div_ceil(prod(&[n, 4]), self.shard(1) * self.tp);
                let on_cpu = self.s.offload != Offload::None;
                if on_cpu {
                    self.cpu = self.cpu.saturating_add(master);
                }
                let gpu = if on_cpu { 0 } else { master };
                self.push(Component::Master, Phase::Always, gpu, |b| {
                    let mut f = format!("{} × 4 B (fp32 copy the optimizer updates)", thousands(n));
                    shard_text(b, &mut f, 1);
                    f.push_str(&if on_cpu {
                        format!(" → offloaded to CPU ({})", b.g(master))
                    } else {
                        format!(" = {}", b.g(gpu))
                    });
                    f
                });
            }
        }

        let main = Trainables {
            what: "",
            n,
            bytes: tb,
            state: self.state_elem_bytes(),
            largest: self.largest_trainable(),
        };
        self.grads_and_states(main);
        if self.saved > 0 {
            // modules_to_save copies live in the model's dtype, and so do torch's states for them
            let es = self.fmt.compute_bytes();
            let state = match self.s.optimizer {
                Optimizer::AdamW8bit => 1,
                _ => es,
            };
            let saved = Trainables {
                what: "embeddings + head copies: ",
                n: self.saved,
                bytes: es,
                state,
                largest: prod(&[self.a.vocab, self.a.hidden]),
            };
            self.grads_and_states(saved);
        }
    }

    /// Gradients, optimizer states and the step's temporary of one group of trainables.
    fn grads_and_states(&mut self, g: Trainables) {
        let Trainables {
            what,
            n,
            bytes: gb,
            state: se,
            largest,
        } = g;
        let in_backward = self.s.optimizer_in_backward;
        if in_backward {
            // each gradient is applied by its own optimizer as soon as it exists, then freed
            let one = div_ceil(prod(&[largest, gb]), self.shard(2) * self.tp);
            self.push(Component::Gradients, Phase::Compute, one, |b| {
                let mut f = format!(
                    "{what}optimizer step in backward: each gradient is applied and freed as soon as it exists, so only the largest ({} params) × {} B is alive",
                    thousands(largest),
                    gb
                );
                shard_text(b, &mut f, 2);
                f.push_str(&format!(
                    " = {}, not the whole {} × {} B buffer",
                    b.g(one),
                    thousands(n),
                    gb
                ));
                f
            });
        } else {
            // one buffer, whatever the accumulation steps; offloading streams them to the host
            let grads = div_ceil(prod(&[n, gb]), self.shard(2) * self.tp);
            let grads_on_cpu = self.s.offload != Offload::None;
            if grads_on_cpu {
                self.cpu = self.cpu.saturating_add(grads);
            }
            let gpu_grads = if grads_on_cpu { 0 } else { grads };
            let persist = self.s.grad_accum > 1 || self.s.gpus > 1;
            let phase = if persist { Phase::Always } else { Phase::Step };
            self.push(Component::Gradients, phase, gpu_grads, |b| {
                let mut f = format!("{what}{} trainable × {} B", thousands(n), gb);
                shard_text(b, &mut f, 2);
                if grads_on_cpu {
                    f.push_str(&format!(" → streamed to CPU memory with the offloaded optimizer ({})", b.g(grads)));
                } else {
                    f.push_str(&format!(" = {}", b.g(grads)));
                }
                if b.s.grad_accum > 1 {
                    f.push_str(&format!(
                        "; accumulating {} micro-batches adds into the same buffer, so it is not ×{}",
                        b.s.grad_accum, b.s.grad_accum
                    ));
                } else if !persist {
                    f.push_str("; freed after each step (zero_grad(set_to_none)), so alive at the step, not at the start of backward");
                }
                f
            });
        }

        // optimizer states
        let (states, formula) = optimizer_states(self.a, self.s, n, se);
        let opt = div_ceil(states, self.shard(1) * self.tp);
        let on_cpu = self.s.offload != Offload::None;
        if on_cpu {
            self.cpu = self.cpu.saturating_add(opt);
        }
        let gpu = if on_cpu { 0 } else { opt };
        self.push(Component::Optimizer, Phase::Always, gpu, |b| {
            let mut f = format!("{what}{formula}");
            shard_text(b, &mut f, 1);
            f.push_str(&if on_cpu {
                format!(" → offloaded to CPU ({})", b.g(opt))
            } else {
                format!(" = {}", b.g(gpu))
            });
            f
        });
        // foreach AdamW/Lion/SGD-momentum allocate one state-sized temporary during the step; in
        // backward the step runs one parameter at a time
        let temp_states = matches!(
            self.s.optimizer,
            Optimizer::AdamW | Optimizer::AdamWBf16 | Optimizer::Lion | Optimizer::SgdMomentum
        );
        if temp_states && !on_cpu {
            let (count, phase) = if in_backward {
                (largest, Phase::Compute)
            } else {
                (n, Phase::Step)
            };
            let temp = div_ceil(prod(&[count, se]), self.shard(1) * self.tp);
            self.push(Component::Optimizer, phase, temp, |b| {
                format!(
                    "{what}{} × {} B: the step's temporary ({}) = {}",
                    thousands(count),
                    se,
                    if in_backward {
                        "one parameter at a time, inside backward"
                    } else {
                        "multi-tensor update"
                    },
                    b.g(temp)
                )
            });
        }
    }

    /// Parameters of the largest trainable tensor (the one gradient alive with the step in backward).
    fn largest_trainable(&self) -> u64 {
        match self.s.job {
            Job::Full => self.a.largest_tensor(),
            _ => lora_largest_matrix(self.a, self.s),
        }
    }

    fn training_activations(&mut self) {
        let s = self.s;
        let a = self.a;
        let c = self.c;
        let tokens = prod(&[s.batch, s.seq]);
        let layer = layer_activation_bytes(a, s, c, self.tp);
        let per_layer_per_token = layer.total();
        let scores = layer.scores_per_token;
        let layers = a.layers;
        let final_norm = (4 + 2 * c) * a.hidden;
        // what each layer keeps until its backward (per token), and what one layer needs on top
        // while it is recomputed
        let (kept, working, how) = match s.checkpointing {
            Checkpointing::None => (
                per_layer_per_token,
                0,
                format!("{} B per token and layer", thousands(per_layer_per_token)),
            ),
            Checkpointing::Selective => (
                per_layer_per_token - scores,
                prod(&[tokens, scores]),
                format!(
                    "{} B per token and layer (attention core recomputed{})",
                    thousands(per_layer_per_token - scores),
                    if scores > 0 {
                        ", its scores alive for one layer"
                    } else {
                        ""
                    }
                ),
            ),
            Checkpointing::Full => (
                c * a.hidden,
                prod(&[tokens, per_layer_per_token]),
                format!(
                    "{} B per token and layer (layer inputs kept) + one layer recomputed in backward: {} tokens × {} B",
                    c * a.hidden,
                    thousands(tokens),
                    thousands(per_layer_per_token)
                ),
            ),
        };
        let all_layers = prod(&[tokens, layers, kept]);
        // offloaded: the kept tensors wait in CPU memory; the GPU holds the layer in use and the
        // next one, copied back ahead of time
        let on_gpu_layers = if s.offload_activations {
            layers.min(2)
        } else {
            layers
        };
        if s.offload_activations {
            self.cpu = self.cpu.saturating_add(all_layers);
        }
        let bytes = prod(&[tokens, on_gpu_layers, kept])
            .saturating_add(working)
            .saturating_add(prod(&[tokens, final_norm]));
        self.push(Component::Activations, Phase::Compute, bytes, |b| {
            let mut f = format!(
                "{} tokens × {} layers × {how}",
                thousands(tokens),
                on_gpu_layers
            );
            f.push_str(&format!(" + final norm {} B per token", final_norm));
            if scores > 0 && s.checkpointing != Checkpointing::Full {
                f.push_str(&format!(
                    "; eager attention stores {} B per token for the seq × seq scores",
                    thousands(scores)
                ));
            }
            if s.offload_activations {
                f.push_str(&format!(
                    "; offloaded: {} layers' worth ({}) waits in CPU memory, the GPU holds the layer in use and the next one",
                    layers,
                    b.g(all_layers)
                ));
            }
            f.push_str(&format!(" = {}", b.g(bytes)));
            f
        });
        if s.job.is_peft() && s.dora {
            self.dora_norm();
        }
        self.logits(tokens);
    }

    /// DoRA's weight norm: each adapted layer builds B·A and W + B·A (in the adapters' dtype; a
    /// 4-bit base is dequantized first) to take the column norm, one layer at a time.
    fn dora_norm(&mut self) {
        let s = self.s;
        let n = adapted_matrices(self.a, s)
            .iter()
            .map(|(_, i, o)| prod(&[*i, *o]))
            .max()
            .unwrap_or(0);
        let adapter = if s.master_weights { 4 } else { self.c };
        let dequant = if s.job == Job::Qlora { self.c } else { 0 };
        let bytes = div_ceil(prod(&[n, 2 * adapter + dequant]), self.tp);
        self.push(Component::Activations, Phase::Compute, bytes, |b| {
            format!(
                "DoRA's column norm: the largest adapted matrix ({} params) as B·A and W + B·A × {} B each{} = {}",
                thousands(n),
                adapter,
                if dequant > 0 {
                    format!(", after dequantizing W to {dequant} B")
                } else {
                    String::new()
                },
                b.g(bytes)
            )
        });
    }

    fn logits(&mut self, tokens: u64) {
        let v = div_ceil(self.a.vocab, self.tp);
        let h = self.a.hidden;
        let (bytes, f) = match self.s.loss {
            Loss::Full => (
                prod(&[tokens, v, 12]),
                format!("{} tokens × {} vocab × 12 B (fp32 log-probs 4 + their gradient 4 + the upcast's gradient 4)", thousands(tokens), thousands(v)),
            ),
            Loss::Full16 => (
                prod(&[tokens, v, 3 * self.c]),
                format!(
                    "{} tokens × {} vocab × {} B (16-bit logits, their shifted copy and log-probs; no fp32 upcast)",
                    thousands(tokens),
                    thousands(v),
                    3 * self.c
                ),
            ),
            Loss::Chunked => {
                let chunk = div_ceil(tokens, 8);
                (
                    prod(&[tokens, v, 4]).saturating_add(prod(&[chunk, v, 8])),
                    format!(
                        "{} tokens × {} vocab × 4 B (log-probs kept for backward) + one chunk of {} tokens × 8 B (upcast + gradient)",
                        thousands(tokens),
                        thousands(v),
                        thousands(chunk)
                    ),
                )
            }
            Loss::ChunkedCompiled => {
                let chunk = div_ceil(tokens, 8);
                let c = self.c;
                (
                    prod(&[tokens, v, c]).saturating_add(prod(&[chunk, v, c])),
                    format!(
                        "{} tokens × {} vocab × {c} B (the 16-bit logits: a compiled loss keeps them and recomputes the softmax in backward, no fp32 copy) + one chunk of {} tokens × {c} B (its gradient)",
                        thousands(tokens),
                        thousands(v),
                        thousands(chunk)
                    ),
                )
            }
            Loss::Fused => {
                let chunk = div_ceil(prod(&[tokens, h]), v.max(1)).max(1);
                (
                    prod(&[tokens, h, 2 * self.c]).saturating_add(prod(&[chunk, v, 8])),
                    format!(
                        "no full logits: {} tokens × {} hidden × {} B (hidden and its gradient) + a chunk of {} tokens × {} vocab × 8 B",
                        thousands(tokens),
                        h,
                        2 * self.c,
                        thousands(chunk),
                        thousands(v)
                    ),
                )
            }
            Loss::NoLmHead => (0, "no language-model head: the classifier's outputs are negligible".into()),
        };
        self.push(Component::Logits, Phase::Compute, bytes, |b| {
            format!("{f} = {}", b.g(bytes))
        });
        // a 4-bit head (bitsandbytes) keeps its input for backward and dequantizes its whole
        // weight to 16-bit for each matmul, while the loss's logits are alive
        if let (Some(n), true) = (self.quantized_head(), self.dequantizes_4bit()) {
            let c = self.c;
            let head = div_ceil(prod(&[n, 2]), self.tp).saturating_add(prod(&[tokens, h, c]));
            if self.s.loss != Loss::NoLmHead {
                self.push(Component::Logits, Phase::Compute, head, |b| {
                    format!(
                        "the 4-bit head dequantized for its matmul: {} params × 2 B + its input kept for backward: {} tokens × {} hidden × {c} B = {}",
                        thousands(n),
                        thousands(tokens),
                        h,
                        b.g(head)
                    )
                });
            }
        }
    }

    /// Whether matmuls with these weights dequantize a whole 4-bit matrix to 16-bit first
    /// (bitsandbytes NF4 outside single-token decoding).
    fn dequantizes_4bit(&self) -> bool {
        matches!(self.fmt, WeightFormat::Nf4 | WeightFormat::Nf4Dq)
    }

    // ---- inference and serving -----------------------------------------------------------------

    /// KV-cache bytes of one token over all layers for `ctx` tokens of context, on one rank.
    fn kv_bytes(&self, seqs: u64, ctx: u64) -> u64 {
        let bits = self.s.kv_dtype.bits();
        if self.s.kv_all_heads && self.a.mla.is_none() {
            kv_bytes_with_heads(self.a, self.a.heads, bits, self.tp, seqs, ctx)
        } else {
            kv_cache_bytes(self.a, bits, self.tp, seqs, ctx)
        }
    }

    fn inference(&mut self) {
        let s = self.s;
        let a = self.a;
        if s.job == Job::Serving {
            let tokens = s.batched_tokens;
            let act = prefill_activation_bytes(a, s, self.c, self.tp, 1, tokens);
            // vLLM samples one token per sequence: logits of up to 256 sequences in fp32
            let logits = prod(&[
                s.concurrency.min(256),
                div_ceil(a.vocab, self.tp),
                4 + self.c,
            ]);
            self.push(Component::Activations, Phase::Compute, act, |b| {
                format!("peak of one forward over {} batched tokens (profiled like vLLM's max_num_batched_tokens) = {}", thousands(tokens), b.g(act))
            });
            self.push(Component::Logits, Phase::Compute, logits, |b| {
                format!(
                    "{} sequences × {} vocab × {} B (last-token logits for sampling) = {}",
                    s.concurrency.min(256),
                    thousands(a.vocab),
                    4 + b.c,
                    b.g(logits)
                )
            });
            let block_tokens = div_ceil(s.avg_tokens, s.block_size) * s.block_size;
            let kv = self.kv_bytes(s.concurrency, block_tokens);
            self.push(Component::KvCache, Phase::Always, kv, |b| {
                format!(
                    "{} requests × {} tokens (average, rounded up to blocks of {}) × {} B per token = {}",
                    s.concurrency,
                    thousands(block_tokens),
                    s.block_size,
                    thousands(b.kv_bytes(1, 1)),
                    b.g(kv)
                )
            });
            return;
        }
        let prompt = s.seq;
        let full = s.seq + s.gen;
        let act = prefill_activation_bytes(a, s, self.c, self.tp, s.batch, prompt);
        let logits = prod(&[s.batch, div_ceil(a.vocab, self.tp), 4 + self.c]);
        let heads_note = |b: &Self| {
            if b.s.kv_all_heads && a.mla.is_none() && a.kv_heads < a.heads {
                format!(
                    " (every one of the {} attention heads cached, not the {} KV heads)",
                    a.heads, a.kv_heads
                )
            } else {
                String::new()
            }
        };
        if s.static_kv {
            // a static cache cannot hold more than its length; past it, count what generation needs
            let len = s.max_model_len.max(full);
            let kv = self.kv_bytes(s.batch, len);
            self.push(Component::KvCache, Phase::Always, kv, |b| {
                format!(
                    "{} sequences × {} tokens (a static cache, allocated for the {} before the first token) × {} B per token{} = {}",
                    s.batch,
                    thousands(len),
                    if len > s.max_model_len { "prompt + generated tokens, more than the max model length" } else { "max model length" },
                    thousands(b.kv_bytes(1, 1)),
                    heads_note(b),
                    b.g(kv)
                )
            });
        } else {
            self.growing_kv(prompt, full, heads_note);
        }
        if self.dequantizes_4bit() && prod(&[s.batch, prompt]) > 1 {
            // bitsandbytes dequantizes each 4-bit matrix to 16-bit to multiply more than one token
            let (n, dq) = self.largest_in_16_bit();
            self.push(Component::Weights, Phase::Compute, dq, |b| {
                format!(
                    "the prefill's 4-bit matmuls dequantize one matrix at a time: the largest, {} params × 2 B = {}",
                    thousands(n),
                    b.g(dq)
                )
            });
        }
        self.push(Component::Activations, Phase::Compute, act, |b| {
            let mut f = format!(
                "largest transient of one layer over the prompt: {} tokens",
                thousands(s.batch * prompt)
            );
            if s.attention == Attention::Eager {
                f.push_str(" incl. the eager seq × seq scores");
            }
            f.push_str(&format!(" = {}", b.g(act)));
            f
        });
        self.push(Component::Logits, Phase::Compute, logits, |b| {
            format!(
                "{} sequences × {} vocab × {} B (last-token logits, fp32 for sampling) = {}",
                s.batch,
                thousands(a.vocab),
                4 + b.c,
                b.g(logits)
            )
        });
    }

    /// The cache as it grows: the prompt's at the prefill, prompt + generated at the end.
    fn growing_kv(&mut self, prompt: u64, full: u64, heads_note: impl Fn(&Self) -> String) {
        let s = self.s;
        let a = self.a;
        let kv_prompt = self.kv_bytes(s.batch, prompt);
        let kv_full = self.kv_bytes(s.batch, full);
        self.push(Component::KvCache, Phase::Compute, kv_prompt, |b| {
            format!(
                "{} sequences × {} prompt tokens × {} B per token{}, at the prefill = {}",
                s.batch,
                thousands(prompt),
                thousands(b.kv_bytes(1, 1)),
                heads_note(b),
                b.g(kv_prompt)
            )
        });
        self.push(Component::KvCache, Phase::Step, kv_full, |b| {
            let per_token = b.kv_bytes(1, 1);
            let mut f = format!(
                "{} sequences × {} tokens (prompt + generated) × {} B per token",
                s.batch,
                thousands(full),
                thousands(per_token)
            );
            if let Some(w) = a.sliding_window {
                f.push_str(&format!(
                    " ({} of {} layers keep only the last {} tokens)",
                    a.sliding_layers,
                    a.layers,
                    thousands(w)
                ));
            }
            f.push_str(&heads_note(b));
            f.push_str(&format!(" = {}", b.g(kv_full)));
            f
        });
    }
}

fn shard_text(b: &Budget, f: &mut String, stage: u8) {
    if b.zero().stage() >= stage && b.dp > 1 {
        f.push_str(&format!(" ÷ {} GPUs (ZeRO-{})", b.dp, b.zero().stage()));
    }
    if b.tp > 1 {
        f.push_str(&format!(" ÷ {} (tensor parallel)", b.tp));
    }
}

/// Trainable LoRA parameters: r × (d_in + d_out) for each targeted matrix of each layer (each expert).
pub fn lora_params(a: &Architecture, s: &Scenario) -> u64 {
    let r = s.lora_rank;
    let t = s.lora_targets;
    // DoRA adds a magnitude per output of each adapted matrix
    let magnitude = u64::from(s.dora);
    let sum = |ms: &[(&str, u64, u64)]| -> u64 {
        ms.iter()
            .filter(|(n, _, _)| t.contains(n))
            .map(|(_, i, o)| r * (i + o) + magnitude * o)
            .sum()
    };
    let mut n = a.layers * sum(&a.attention_matrices());
    n += a.dense_layers() * sum(&a.mlp_matrices(a.intermediate));
    if let Some(m) = &a.moe {
        let per_layer = m.experts * sum(&a.mlp_matrices(m.expert_ffn))
            + if m.shared_ffn > 0 {
                sum(&a.mlp_matrices(m.shared_ffn))
            } else {
                0
            };
        n += a.moe_layers() * per_layer;
    }
    if t.contains("embed") {
        n += r * (a.vocab + a.hidden);
    }
    if t.contains("head") {
        n += r * (a.hidden + a.vocab);
    }
    n
}

/// The matrices LoRA adapts in one layer (and one expert), as (name, in, out).
fn adapted_matrices(a: &Architecture, s: &Scenario) -> Vec<(&'static str, u64, u64)> {
    let mut ms = a.attention_matrices();
    ms.extend(a.mlp_matrices(a.intermediate));
    if let Some(m) = &a.moe {
        ms.extend(a.mlp_matrices(m.expert_ffn));
    }
    ms.retain(|(n, _, _)| s.lora_targets.contains(n));
    ms
}

/// Parameters of the largest LoRA matrix: r × the widest dimension among the targeted modules.
fn lora_largest_matrix(a: &Architecture, s: &Scenario) -> u64 {
    let t = s.lora_targets;
    let mut widest = adapted_matrices(a, s)
        .iter()
        .map(|(_, i, o)| *i.max(o))
        .max()
        .unwrap_or(0);
    if t.contains("embed") || t.contains("head") {
        widest = widest.max(a.vocab);
    }
    prod(&[s.lora_rank, widest])
}

/// Optimizer-state bytes for `n` trainable parameters, and the formula.
fn optimizer_states(a: &Architecture, s: &Scenario, n: u64, se: u64) -> (u64, String) {
    let t = thousands(n);
    match s.optimizer {
        Optimizer::AdamW | Optimizer::AdamWBf16 => (
            prod(&[n, 2, se]),
            format!("{t} trainable × 2 moments × {se} B"),
        ),
        Optimizer::AdamW8bit => {
            let b = prod(&[n, 2]) + div_ceil(n, 2048) * 2 * 4;
            (
                b,
                format!("{t} trainable × 2 moments × 1 B + an fp32 scale per 2048-value block"),
            )
        }
        Optimizer::Lion | Optimizer::SgdMomentum => (
            prod(&[n, se]),
            format!("{t} trainable × 1 momentum × {se} B"),
        ),
        Optimizer::Sgd => (0, "plain SGD keeps no state".into()),
        Optimizer::Adafactor => {
            // factored second moment: a row and a column vector per matrix
            let per_layer: u64 = if s.job == Job::Full {
                a.attention_matrices()
                    .iter()
                    .chain(a.mlp_matrices(a.intermediate).iter())
                    .map(|(_, i, o)| i + o)
                    .sum()
            } else {
                0
            };
            let factored = if s.job == Job::Full {
                prod(&[a.layers, per_layer, 4]) + (a.vocab + a.hidden) * 4
            } else {
                prod(&[n, 4]) / 8
            };
            (factored, format!("Adafactor keeps a row and a column of the second moment per matrix: {} values × 4 B", thousands(factored / 4)))
        }
    }
}

/// Per-token activation bytes of one decoder layer kept for backward, split as the layer computes them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerActivations {
    /// Inside the norms: the fp32 upcast, and the normalised input when the norm's weight trains.
    pub norms: u64,
    /// What attention itself keeps: q, k, v after RoPE, the kernel's output and log-sum-exp.
    pub attention: u64,
    /// What the MLP's nonlinearity keeps: gate and up outputs and act(gate) (gated), or the GELU input.
    pub mlp: u64,
    /// Inputs of the linear layers that keep them: trainable weights, or bitsandbytes 4-bit matmuls.
    pub linear_inputs: u64,
    /// LoRA: each adapter's input cast to the adapter dtype, and its r-wide middle.
    pub lora: u64,
    /// Eager attention's seq x seq scores, per token of the sequence.
    pub scores_per_token: u64,
}

impl LayerActivations {
    pub fn total(&self) -> u64 {
        self.norms
            + self.attention
            + self.mlp
            + self.linear_inputs
            + self.lora
            + self.scores_per_token
    }
}

/// What one decoder layer saves for backward per token (bytes), with `c`-byte activations.
///
/// A linear layer keeps its input only to compute its weight's gradient, so frozen layers keep
/// nothing (bitsandbytes' 4-bit matmul is the exception: it keeps its input anyway). Norms keep
/// their fp32 upcast; attention keeps q, k, v and its output; the MLP keeps what its
/// nonlinearity needs. MoE layers do this for the top_k experts each token is routed to.
pub fn layer_activation_bytes(a: &Architecture, s: &Scenario, c: u64, tp: u64) -> LayerActivations {
    let h = a.hidden;
    let full = s.job == Job::Full;
    // bitsandbytes' MatMul4Bit saves its input even though the weight is frozen
    let linears_keep_inputs = full
        || (s.job == Job::Qlora
            && matches!(
                s.effective_weights(),
                WeightFormat::Nf4 | WeightFormat::Nf4Dq
            ));
    let norms = a.norms_per_layer.max(2) * (4 + if full { c } else { 0 }) * h;
    let out = a.attn_out_dim();
    let attention =
        c * (a.q_dim() + 2 * a.kv_dim() + out) + 4 * a.heads + if a.dropout { h } else { 0 };
    let mut scores = 0;
    if s.attention == Attention::Eager {
        // fp32 softmax output + the c-byte probabilities for the matmul with V, per head and key
        scores = prod(&[a.heads, s.seq, 4 + c]);
        if a.dropout {
            scores = scores.saturating_add(prod(&[a.heads, s.seq, 1 + c]));
        }
    }
    // (per-token MLP core, intermediate width, token multiplicity) for dense and routed parts
    let core = |f: u64| match a.mlp {
        MlpKind::Gated => 3 * f * c,
        MlpKind::Plain => f * c,
    };
    let (ffn, routed) = match &a.moe {
        None => (a.intermediate, 1),
        Some(m) => (m.expert_ffn, m.top_k),
    };
    let mlp_dense = core(a.intermediate);
    let mut mlp = match &a.moe {
        None => mlp_dense,
        Some(m) => {
            let moe_part = m.top_k * core(m.expert_ffn)
                + 4 * m.experts
                + if m.shared_ffn > 0 {
                    core(m.shared_ffn)
                } else {
                    0
                };
            (a.dense_layers() * mlp_dense + a.moe_layers() * moe_part) / a.layers.max(1)
        }
    };
    if a.dropout {
        mlp += h;
    }
    // input groups of the linear layers: (modules sharing one input, input width, tokens per token)
    let groups: [(&[&str], u64, u64); 4] = [
        (&["q", "k", "v"], h, 1),
        (&["o"], out, 1),
        (&["gate", "up"], h, routed),
        (&["down"], ffn, routed),
    ];
    let adapter_bytes = if s.master_weights { 4 } else { c };
    // output width of each adaptable module, for DoRA's saved outputs
    let out_of = |name: &str| -> u64 {
        a.attention_matrices()
            .into_iter()
            .chain(a.mlp_matrices(ffn))
            // the last matrix of a name is the one whose output the layer uses (MLA's q_b)
            .rfind(|(n, _, _)| *n == name)
            .map_or(0, |(_, _, o)| o)
    };
    let mut linear_inputs = 0;
    let mut lora = 0;
    for (modules, width, times) in groups {
        let targeted: Vec<&&str> = modules
            .iter()
            .filter(|m| s.job.is_peft() && s.lora_targets.contains(m))
            // a plain (2-matrix) MLP has no gate to adapt
            .filter(|m| **m != "gate" || a.mlp == MlpKind::Gated)
            .collect();
        let shares_input = !targeted.is_empty() && adapter_bytes == c && !s.lora_dropout;
        if linears_keep_inputs || shares_input {
            linear_inputs += times * c * width;
        }
        for m in &targeted {
            // PEFT casts the input to the adapter's dtype (a copy lora_A keeps); dropout makes each
            // adapter its own copy plus a 1-byte mask; lora_B keeps A's r outputs
            let input = if s.lora_dropout {
                (adapter_bytes + 1) * width
            } else if adapter_bytes != c {
                adapter_bytes * width
            } else {
                0
            };
            lora += times * (input + adapter_bytes * s.lora_rank);
            if s.dora {
                // DoRA scales the base output and the adapter's output by the trainable
                // magnitude: both are saved for its gradient
                lora += times * (c + adapter_bytes) * out_of(m);
            }
        }
    }
    LayerActivations {
        norms,
        attention: div_ceil(attention, tp),
        mlp: div_ceil(mlp, tp),
        linear_inputs: div_ceil(linear_inputs, tp),
        lora,
        scores_per_token: div_ceil(scores, tp),
    }
}

/// The largest transient of an inference forward over `seqs` × `len` tokens: one layer's
/// intermediates (no autograd keeps anything), eager scores when the kernel materialises them.
pub fn prefill_activation_bytes(
    a: &Architecture,
    s: &Scenario,
    c: u64,
    tp: u64,
    seqs: u64,
    len: u64,
) -> u64 {
    let tokens = prod(&[seqs, len]);
    let h = a.hidden;
    let ffn = |f: u64| match a.mlp {
        MlpKind::Gated => 3 * f,
        MlpKind::Plain => 2 * f,
    };
    let mlp = match &a.moe {
        None => ffn(a.intermediate),
        Some(m) => (m.top_k * ffn(m.expert_ffn)
            + if m.shared_ffn > 0 {
                ffn(m.shared_ffn)
            } else {
                0
            })
        .max(ffn(a.intermediate)),
    };
    let attn = a.q_dim() + 2 * a.kv_dim() + a.attn_out_dim();
    let per_token = c * (div_ceil(mlp.max(attn), tp) + 4 * h);
    let mut bytes = prod(&[tokens, per_token]);
    if s.attention == Attention::Eager {
        bytes = bytes.saturating_add(prod(&[seqs, div_ceil(a.heads, tp), len, len, 4 + 3 * c]));
    }
    bytes
}

/// KV-cache bytes for `seqs` sequences of `ctx` tokens: 2 (K and V) × KV heads per rank × head_dim
/// × bits/8 per layer and token; MLA caches one latent (kv_lora_rank + rope dim); sliding-window
/// layers keep at most `window` tokens.
pub fn kv_cache_bytes(a: &Architecture, bits: u64, tp: u64, seqs: u64, ctx: u64) -> u64 {
    kv_bytes_with_heads(a, a.kv_heads, bits, tp, seqs, ctx)
}

/// [`kv_cache_bytes`] with `heads` K/V heads cached per layer (not MLA).
fn kv_bytes_with_heads(
    a: &Architecture,
    heads: u64,
    bits: u64,
    tp: u64,
    seqs: u64,
    ctx: u64,
) -> u64 {
    let per_layer_token_bits = match &a.mla {
        Some(m) => (m.kv_lora_rank + m.rope_dim) * bits,
        None => 2 * div_ceil(heads, tp) * a.head_dim * bits,
    };
    let full_layers = a.full_attention_layers();
    let sliding_layers = a.layers - full_layers;
    let window = a.sliding_window.unwrap_or(ctx).min(ctx);
    let token_layers = prod(&[full_layers, ctx]).saturating_add(prod(&[sliding_layers, window]));
    div_ceil(prod(&[seqs, token_layers, per_layer_token_bits]), 8)
}
