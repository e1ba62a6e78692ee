//! What training adds to the weights: mixed precision's master copy, the gradients and the
//! optimizer's states (and the temporaries of its step).

use super::weights::{lora_largest_matrix, lora_paged_params};
use super::{Budget, Component, Phase, Pool};
use crate::dtype::WeightFormat;
use crate::formula::{Arg, Formula, Msg};
use crate::model::Architecture;
use crate::scenario::{Job, Offload, Optimizer, Scenario};
use crate::units::{div_ceil, prod};

/// A group of trainable parameters sharing one element size.
struct Trainables {
    /// Whether the group is PEFT's embedding and head copies (their formulas say so first).
    saved_copies: bool,
    count: u64,
    /// Bytes of one parameter (and of its gradient).
    elem: u64,
    /// Bytes of one optimizer-state element.
    state_elem: u64,
    /// Parameters of the group's largest tensor.
    largest: u64,
    /// Parameters in tensors large enough for a paged optimizer to page their states.
    pageable: u64,
}

impl Budget<'_> {
    /// Bytes of one trainable element as stored (adapters follow the master-weights switch).
    pub(super) fn trainable_bytes(&self) -> u64 {
        match self.scenario.job {
            Job::Full => self.format.bits().num / 8,
            _ if self.scenario.master_weights => 4,
            _ => self.act_bytes,
        }
    }

    /// Whether the optimizer is a bitsandbytes paged one.
    fn paged(&self) -> bool {
        self.scenario.paged_optimizer && self.scenario.optimizer.can_page()
    }

    /// Bytes of one optimizer-state element: fp32 when the optimizer updates fp32 values.
    fn state_elem_bytes(&self) -> u64 {
        match self.scenario.optimizer {
            Optimizer::AdamW8bit => 1,
            // bitsandbytes' 32-bit optimizers keep fp32 states whatever the parameters' dtype
            _ if self.paged() => 4,
            Optimizer::AdamWBf16 => 2,
            _ if self.scenario.master_weights || self.trainable_bytes() == 4 => 4,
            _ => 2,
        }
    }

    pub(super) fn training_states(&mut self) {
        let n = self.trainable - self.saved_copies;
        if self.scenario.job == Job::Full && self.scenario.master_weights {
            self.master_weights(n);
        }
        let main = Trainables {
            saved_copies: false,
            count: n,
            elem: self.trainable_bytes(),
            state_elem: self.state_elem_bytes(),
            largest: self.largest_trainable(),
            pageable: match self.scenario.job {
                Job::Full => n.saturating_sub(self.params.small),
                _ => lora_paged_params(self.arch, self.scenario),
            },
        };
        self.gradients(&main);
        self.optimizer_states(&main);
        if self.saved_copies > 0 {
            // modules_to_save copies live in the model's dtype, and so do torch's states for them
            let elem = self.format.compute_bytes();
            let state_elem = match self.scenario.optimizer {
                Optimizer::AdamW8bit => 1,
                _ => elem,
            };
            let saved = Trainables {
                saved_copies: true,
                count: self.saved_copies,
                elem,
                state_elem,
                largest: prod(&[self.arch.vocab, self.arch.hidden]),
                pageable: self.saved_copies,
            };
            self.gradients(&saved);
            self.optimizer_states(&saved);
        }
    }

    /// Mixed precision's other copy of `n` trainable parameters: fp32 for the optimizer, or 16-bit
    /// copies for compute when the weights are fp32 already.
    fn master_weights(&mut self, n: u64) {
        if self.format == WeightFormat::Fp32 {
            let copies = div_ceil(prod(&[n, 2]), self.shard(3) * self.tp);
            self.push(Component::Master, Phase::Compute, copies, |_| {
                Formula::of(Msg::MasterFp32Weights, &[Arg::Count(n)]).equals(copies)
            });
            return;
        }
        let master = div_ceil(prod(&[n, 4]), self.shard(1) * self.tp);
        let on_cpu = self.scenario.offload != Offload::None;
        if on_cpu {
            self.offload(master);
        }
        let gpu = if on_cpu { 0 } else { master };
        self.push(Component::Master, Phase::Always, gpu, |b| {
            let mut f = Formula::of(Msg::MasterWeights, &[Arg::Count(n)]);
            b.shard_clauses(&mut f, 1);
            b.offloaded_or_equals(f, on_cpu, master)
        });
    }

    /// The group's gradients: one buffer whatever the accumulation steps, or only the largest
    /// when the optimizer steps inside backward.
    fn gradients(&mut self, group: &Trainables) {
        let &Trainables {
            count,
            elem,
            largest,
            ..
        } = group;
        if self.scenario.optimizer_in_backward {
            // each gradient is applied by its own optimizer as soon as it exists, then freed
            let one = div_ceil(prod(&[largest, elem]), self.shard(2) * self.tp);
            self.push(Component::Gradients, Phase::Compute, one, |b| {
                let mut f = group.formula();
                f.push(
                    Msg::GradientsInBackward,
                    &[Arg::Count(largest), Arg::Int(elem)],
                );
                b.shard_clauses(&mut f, 2);
                let args = [Arg::Bytes(one), Arg::Count(count), Arg::Int(elem)];
                f.and(Msg::NotTheWholeBuffer, &args)
            });
            return;
        }
        // offloading streams them to the host
        let grads = div_ceil(prod(&[count, elem]), self.shard(2) * self.tp);
        let on_cpu = self.scenario.offload != Offload::None;
        if on_cpu {
            self.offload(grads);
        }
        let gpu_grads = if on_cpu { 0 } else { grads };
        let accumulating = self.scenario.grad_accum;
        let persist = accumulating > 1 || self.scenario.gpus > 1;
        let phase = if persist { Phase::Always } else { Phase::Step };
        self.push(Component::Gradients, phase, gpu_grads, |b| {
            let mut f = group.formula();
            f.push(Msg::Gradients, &[Arg::Count(count), Arg::Int(elem)]);
            b.shard_clauses(&mut f, 2);
            if on_cpu {
                f.push(Msg::GradientsStreamedToCpu, &[Arg::Bytes(grads)]);
            } else {
                f.push(Msg::Equals, &[Arg::Bytes(grads)]);
            }
            if accumulating > 1 {
                f.push(Msg::GradientsAccumulated, &[Arg::Int(accumulating)]);
            } else if !persist {
                f.push(Msg::GradientsFreedAfterStep, &[]);
            }
            f
        });
    }

    /// The group's optimizer states, and the state-sized temporary of the step when the
    /// optimizer makes one.
    fn optimizer_states(&mut self, group: &Trainables) {
        let &Trainables {
            count,
            state_elem,
            largest,
            ..
        } = group;
        let on_cpu = self.scenario.offload != Offload::None;
        let paged = if self.paged() && !on_cpu {
            group.pageable.min(count)
        } else {
            0
        };
        let in_allocator = count - paged;
        let (states, formula) =
            optimizer_state_bytes(self.arch, self.scenario, in_allocator, state_elem);
        let opt = div_ceil(states, self.shard(1) * self.tp);
        if on_cpu {
            self.offload(opt);
        }
        let gpu = if on_cpu { 0 } else { opt };
        self.push(Component::Optimizer, Phase::Always, gpu, |b| {
            let mut f = group.formula();
            f.clauses.extend(formula.clauses);
            if paged > 0 {
                f.push(Msg::UnpagedStates, &[]);
            }
            b.shard_clauses(&mut f, 1);
            b.offloaded_or_equals(f, on_cpu, opt)
        });
        if paged > 0 {
            self.paged_states(group, paged);
        }
        // foreach AdamW/Lion/SGD-momentum allocate one state-sized temporary during the step; in
        // backward the step runs one parameter at a time; bitsandbytes steps in place in its own
        // kernel
        let temp_states = matches!(
            self.scenario.optimizer,
            Optimizer::AdamW | Optimizer::AdamWBf16 | Optimizer::Lion | Optimizer::SgdMomentum
        ) && !self.paged();
        if !temp_states || on_cpu {
            return;
        }
        let in_backward = self.scenario.optimizer_in_backward;
        let (temp_count, phase) = if in_backward {
            (largest, Phase::Compute)
        } else {
            (count, Phase::Step)
        };
        let temp = div_ceil(prod(&[temp_count, state_elem]), self.shard(1) * self.tp);
        self.push(Component::Optimizer, phase, temp, |_| {
            let msg = if in_backward {
                Msg::StepTemporaryInBackward
            } else {
                Msg::StepTemporary
            };
            let mut f = group.formula();
            f.push(msg, &[Arg::Count(temp_count), Arg::Int(state_elem)]);
            f.equals(temp)
        });
    }

    /// The states a paged optimizer keeps in CUDA unified memory: bitsandbytes'
    /// `Optimizer8bit.get_state_buffer` (bitsandbytes/optim/optimizer.py) allocates the state of
    /// every tensor of 100,000 elements or more with `F.get_paged`, which calls `cget_managed_ptr`
    /// = `cudaMallocManaged(..., cudaMemAttachHost)` (csrc/pythonInterface.cpp) and prefetches
    /// the pages to the GPU before each step (`cprefetch` = `cudaMemPrefetchAsync`). PyTorch's
    /// allocator never sees them; the device does while they are resident, and the driver pages
    /// them out to host memory instead of failing when the GPU is full.
    fn paged_states(&mut self, group: &Trainables, paged: u64) {
        let (states, formula) =
            optimizer_state_bytes(self.arch, self.scenario, paged, group.state_elem);
        let bytes = div_ceil(states, self.shard(1) * self.tp);
        self.push_at(
            Pool::Unified,
            Component::Optimizer,
            Phase::Always,
            bytes,
            |b| {
                let mut f = group.formula();
                f.clauses.extend(formula.clauses);
                f.push(Msg::PagedStates, &[]);
                b.shard_clauses(&mut f, 1);
                f.equals(bytes)
            },
        );
    }

    /// The formula's end for something offloaded (its `bytes` on the host) or on the GPU.
    fn offloaded_or_equals(&self, f: Formula, on_cpu: bool, bytes: u64) -> Formula {
        if on_cpu {
            f.and(Msg::OffloadedToCpu, &[Arg::Bytes(bytes)])
        } else {
            f.equals(bytes)
        }
    }

    /// Parameters of the largest trainable tensor (the one gradient alive with the step in backward).
    fn largest_trainable(&self) -> u64 {
        match self.scenario.job {
            Job::Full => self.arch.largest_tensor(),
            _ => lora_largest_matrix(self.arch, self.scenario),
        }
    }
}

impl Trainables {
    /// The start of the group's formulas: nothing for the main group, a name for the copies.
    fn formula(&self) -> Formula {
        if self.saved_copies {
            Formula::of(Msg::SavedCopiesGroup, &[])
        } else {
            Formula::new()
        }
    }
}

/// Optimizer-state bytes for `n` trainable parameters of `state_elem` bytes each, and the formula.
fn optimizer_state_bytes(
    a: &Architecture,
    s: &Scenario,
    n: u64,
    state_elem: u64,
) -> (u64, Formula) {
    let t = Arg::Count(n);
    match s.optimizer {
        Optimizer::AdamW | Optimizer::AdamWBf16 => (
            prod(&[n, 2, state_elem]),
            Formula::of(Msg::AdamStates, &[t, Arg::Int(state_elem)]),
        ),
        Optimizer::AdamW8bit => {
            let b = prod(&[n, 2]) + div_ceil(n, 2048) * 2 * 4;
            (b, Formula::of(Msg::Adam8bitStates, &[t]))
        }
        Optimizer::Lion | Optimizer::SgdMomentum => (
            prod(&[n, state_elem]),
            Formula::of(Msg::MomentumStates, &[t, Arg::Int(state_elem)]),
        ),
        Optimizer::Sgd => (0, Formula::of(Msg::SgdStates, &[])),
        Optimizer::Adafactor => {
            // factored second moment: a row and a column vector per matrix
            let factored = if s.job == Job::Full {
                let per_layer: u64 = a
                    .attention_matrices()
                    .iter()
                    .chain(a.mlp_matrices(a.intermediate).iter())
                    .map(|(_, i, o)| i + o)
                    .sum();
                prod(&[a.layers, per_layer, 4]) + (a.vocab + a.hidden) * 4
            } else {
                prod(&[n, 4]) / 8
            };
            (
                factored,
                Formula::of(Msg::AdafactorStates, &[Arg::Count(factored / 4)]),
            )
        }
    }
}
