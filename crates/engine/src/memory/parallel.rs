//! What a data-parallel framework adds to the sharded model states: its communication buffers,
//! the units FSDP keeps gathered, and how the weights reach the GPUs. With `dpf=none` (the
//! default) none of this is counted: the model states alone, as the ZeRO paper counts them.

use super::{Budget, Component, Phase};
use crate::formula::{Arg, Formula, Msg};
use crate::scenario::{DpFramework, Job, Scenario, WeightsLoad, Zero};
use crate::units::{div_ceil, prod};

/// DeepSpeed's `reduce_bucket_size` default, in elements (deepspeed/runtime/zero/config.py,
/// `ZERO_OPTIMIZATION_REDUCE_BUCKET_SIZE_DEFAULT = 500_000_000`). ZeRO-1/2 allocate it whole in
/// `backward()` when `contiguous_gradients` is on (its default): `torch.empty(int(self.reduce_bucket_size),
/// dtype=self.dtype)` (deepspeed/runtime/zero/stage_1_and_2.py); ZeRO-3 keeps one flat bucket of
/// the same size for the reduce-scatter (stage3.py `__ipg_bucket_flat_buffer`).
const DS_REDUCE_BUCKET: u64 = 500_000_000;
/// DeepSpeed ZeRO-3 `stage3_prefetch_bucket_size` default (50,000,000 elements) and
/// `stage3_max_live_parameters` (1,000,000,000): parameters gathered ahead of use, and the most
/// that stay gathered at once (deepspeed/runtime/zero/config.py).
const DS_PREFETCH_BUCKET: u64 = 50_000_000;
const DS_MAX_LIVE: u64 = 1_000_000_000;

/// Ranks one shard spans: the data-parallel ranks, or the shard group when it is smaller
/// (FSDP HYBRID_SHARD shards within a node and replicates across nodes).
pub(super) fn shard_ranks(s: &Scenario) -> u64 {
    let dp = s.data_parallel();
    match s.shard_group {
        0 => dp,
        g => g.min(dp),
    }
    .max(1)
}

impl Budget<'_> {
    /// The formula's division for sharded states, named as the framework names the strategy:
    /// FSDP's FULL_SHARD = ZeRO-3, SHARD_GRAD_OP = ZeRO-2, HYBRID_SHARD = ZeRO-3 within a shard
    /// group (torch/distributed/fsdp/api.py `ShardingStrategy`; NO_SHARD = ZeRO-0 shards nothing).
    pub(super) fn sharding_clause(&self, formula: &mut Formula) {
        let stage = self.zero().stage();
        let shards = Arg::Int(self.shards);
        let fsdp = self.scenario.dp_framework.is_fsdp();
        match stage {
            3 if fsdp && self.shards < self.dp => formula.push(
                Msg::FsdpHybridShard,
                &[shards, Arg::Int(self.dp / self.shards)],
            ),
            3 if fsdp => formula.push(Msg::FsdpFullShard, &[shards]),
            2 if fsdp => formula.push(Msg::FsdpShardGradOp, &[shards]),
            _ => formula.push(Msg::ZeroShards, &[shards, Arg::Int(u64::from(stage))]),
        }
    }

    /// The framework's buffers for the gradients' trip between ranks (several GPUs only).
    pub(super) fn data_parallel_buffers(&mut self) {
        if self.dp < 2 {
            return;
        }
        match self.scenario.dp_framework {
            DpFramework::None => {}
            DpFramework::Ddp => self.ddp_buckets(),
            DpFramework::DeepSpeed => self.deepspeed_reduce_bucket(),
            DpFramework::Fsdp1 | DpFramework::Fsdp2 => {
                self.fsdp_units();
                self.fsdp_unsynced_gradients();
            }
        }
    }

    /// FSDP's `no_sync()` on the accumulating micro-batches skips the reduce-scatter, so every
    /// rank keeps the unsharded gradients until the step's last micro-batch ("FSDP will
    /// accumulate the full model gradients (instead of gradient shards) until the eventual
    /// sync", torch/distributed/fsdp/fully_sharded_data_parallel.py `no_sync`; Lightning Fabric's
    /// `no_backward_sync` calls it, fabric/strategies/fsdp.py). A FSDP1 flat parameter gets a
    /// gradient for the whole unit when any of its parameters trains (`use_orig_params=True`,
    /// Lightning's default: "gradient memory usage will be higher than expected (namely,
    /// equivalent to not freezing those parameters)", FSDP docs), so adapters wrapped with
    /// their layer make the layers' whole gradient. Under a pipeline stage_kept_gathered counts it.
    fn fsdp_unsynced_gradients(&mut self) {
        let s = self.scenario;
        let accumulating = s.fsdp_no_sync && s.grad_accum > 1 && self.zero().stage() >= 2;
        if !accumulating || self.trainable == 0 || self.fsdp_keeps_stage_gathered() {
            return;
        }
        let whole_units = s.job.is_peft() && s.dp_framework == DpFramework::Fsdp1;
        let layers = self.params.linear + self.params.small;
        let n = if whole_units {
            layers + self.trainable
        } else {
            self.trainable
        };
        let elem = if s.master_weights { 4 } else { self.act_bytes };
        let bytes = div_ceil(prod(&[n, elem]), self.tp);
        self.push(Component::Gradients, Phase::Compute, bytes, |b| {
            let mut f = Formula::of(
                Msg::FsdpUnshardedGradients,
                &[Arg::Count(n), Arg::Int(elem)],
            );
            if whole_units {
                f.push(Msg::FsdpWholeUnitGradients, &[Arg::Count(layers)]);
            }
            b.tensor_parallel_clause(&mut f);
            f.equals(bytes)
        });
    }

    /// DDP's reducer copies every gradient into its buckets (`bucket_cap_mb`, 25 MB each, the
    /// first 1 MB: torch/nn/parallel/distributed.py `_DEFAULT_FIRST_BUCKET_BYTES`), and the
    /// buckets together hold every gradient: a second gradient-sized buffer for the whole run,
    /// unless `gradient_as_bucket_view=True` makes the gradients views into the buckets (pytorch
    /// PR #41954: "peak memory dropped ~1GB" for ~1 GB of parameters).
    fn ddp_buckets(&mut self) {
        if self.scenario.bucket_view || self.trainable == 0 {
            return;
        }
        let elem = self.trainable_bytes();
        let n = self.trainable;
        let bytes = div_ceil(prod(&[n, elem]), self.tp);
        self.push(Component::Gradients, Phase::Always, bytes, |b| {
            let mut f = Formula::of(Msg::DdpBuckets, &[Arg::Count(n), Arg::Int(elem)]);
            b.tensor_parallel_clause(&mut f);
            f.equals(bytes)
        });
    }

    /// DeepSpeed ZeRO's reduce bucket, allocated whole in backward whatever the model's size.
    fn deepspeed_reduce_bucket(&mut self) {
        if self.zero() == Zero::Z0 || self.trainable == 0 {
            return;
        }
        let elem = self.act_bytes;
        let bytes = prod(&[DS_REDUCE_BUCKET, elem]);
        self.push(Component::Gradients, Phase::Compute, bytes, |_| {
            let args = [Arg::Count(DS_REDUCE_BUCKET), Arg::Int(elem)];
            Formula::of(Msg::DeepSpeedReduceBucket, &args).equals(bytes)
        });
    }

    /// ZeRO-3 under DeepSpeed: the module in use plus the prefetch bucket stay gathered, at most
    /// `stage3_max_live_parameters` (partitioned_param_coordinator.py `fetch_sub_module`).
    pub(super) fn deepspeed_live_parameters(&mut self) {
        let layer = self.arch.largest_layer_params();
        let live = (layer + DS_PREFETCH_BUCKET).min(DS_MAX_LIVE);
        let bytes = div_ceil(self.format.bits().bytes(live), self.tp);
        self.push(Component::Weights, Phase::Compute, bytes, |b| {
            let args = [
                Arg::Count(layer),
                Arg::Count(DS_PREFETCH_BUCKET),
                Arg::Count(DS_MAX_LIVE),
                Arg::Bits(b.format.bits().as_f64()),
            ];
            Formula::of(Msg::DeepSpeedLiveParams, &args).equals(bytes)
        });
    }

    /// What FSDP keeps unsharded besides the layers it gathers (weights.rs: the current unit and
    /// the prefetched one, FSDP1 `backward_prefetch=BACKWARD_PRE`, FSDP2's implicit prefetch of
    /// one module). FSDP1 gathers whole flat-parameter units, and its auto-wrap policies
    /// (`transformer_auto_wrap_policy`, accelerate's TRANSFORMER_BASED_WRAP) wrap the decoder
    /// layers only, leaving the embeddings and head in the root's flat parameter; FSDP2 recipes
    /// call `fully_shard` per module, the embeddings and head included (torchtune's
    /// `custom_sharded_layers: ['tok_embeddings', 'output']`), so their root holds nothing large.
    /// FSDP1's root unit is not resharded after the forward because the backward needs it at once (FSDP1
    /// `_post_forward_reshard`: `free_unsharded_flat_param = not state._is_root and ...`; FSDP2
    /// `fully_shard(reshard_after_forward)`: "the root FSDP state has its value specially set to
    /// False"), so it is whole at the start of the backward. Each unit's gradients are unsharded
    /// before the reduce-scatter: FSDP1 reduces the unit's flat gradient, FSDP2 copies the
    /// module's gradients into one reduce-scatter input (`foreach_reduce` in
    /// torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py); the next unit's gradients are
    /// computed while one is being reduced, so two units' worth, in the reduce dtype.
    fn fsdp_units(&mut self) {
        let stage = self.zero().stage();
        if stage == 3 && self.scenario.dp_framework == DpFramework::Fsdp1 {
            let p = &self.params;
            let root = div_ceil(
                self.format.embedding_bits().bytes(p.embedding + p.head),
                self.tp,
            );
            self.push(Component::Weights, Phase::Compute, root, |b| {
                let n = Arg::Count(b.params.embedding + b.params.head);
                let bits = Arg::Bits(b.format.embedding_bits().as_f64());
                Formula::of(Msg::FsdpRootUnit, &[n, bits]).equals(root)
            });
        }
        if stage < 2 {
            return;
        }
        let unit = match self.scenario.job {
            Job::Full => self.arch.largest_layer_params(),
            _ => div_ceil(self.trainable - self.saved_copies, self.arch.layers.max(1)),
        };
        let elem = self.act_bytes;
        let bytes = div_ceil(prod(&[2, unit, elem]), self.tp);
        self.push(Component::Gradients, Phase::Compute, bytes, |_| {
            Formula::of(Msg::FsdpReduceScatter, &[Arg::Count(unit), Arg::Int(elem)]).equals(bytes)
        });
    }

    /// Whether FSDP runs under a pipeline whose stage sees several micro-batches a step: then
    /// the stage's parameters are not resharded after each forward (torchtitan
    /// `parallelize.py`: `reshard_after_forward = not pp_enabled`, "to avoid per-microbatch
    /// all-gathers"), and the schedule skips the gradient reduce-scatter until the last
    /// micro-batch (torch.distributed.pipelining `PipelineStage.backward_maybe_with_nosync`).
    pub(super) fn fsdp_keeps_stage_gathered(&self) -> bool {
        self.stage.is_split()
            && self.scenario.dp_framework.is_fsdp()
            && self.scenario.grad_accum > 1
    }

    /// The stage's weights gathered whole for the step, and its unsharded gradients accumulated
    /// across micro-batches in the reduce dtype (FSDP2 `FSDPParam.accumulate_unsharded_grad_if_needed`
    /// upcasts them to `reduce_dtype`: fp32 with fp32 master weights).
    pub(super) fn stage_kept_gathered(&mut self) {
        let gathered = self.weight_bytes();
        self.push(Component::Weights, Phase::Compute, gathered, |b| {
            let args = [Arg::Int(b.stage.index + 1), Arg::Int(b.stage.stages)];
            Formula::of(Msg::FsdpStageGathered, &args).equals(gathered)
        });
        let n = self.trainable;
        if n == 0 {
            return;
        }
        let elem = if self.scenario.master_weights {
            4
        } else {
            self.act_bytes
        };
        let grads = div_ceil(prod(&[n, elem]), self.tp);
        self.push(Component::Gradients, Phase::Compute, grads, |b| {
            let mut f = Formula::of(
                Msg::FsdpUnshardedGradients,
                &[Arg::Count(n), Arg::Int(elem)],
            );
            b.tensor_parallel_clause(&mut f);
            f.equals(grads)
        });
    }

    /// How a sharded job's weights reach the GPU. `full`: every rank holds the whole model
    /// before sharding it (a state dict loaded onto each GPU, then wrapped), so the load-time
    /// level is the full weights, which on this rank is above what the run keeps by the line's
    /// bytes (the states that come later do not exist yet). `rank0`: FSDP's
    /// `sync_module_states=True` moves rank 0's CPU copy to the GPU one unit at a time and
    /// broadcasts it (torch/distributed/fsdp/_init_utils.py `_sync_module_params_and_buffers`).
    pub(super) fn loading_sharded(&mut self) {
        let s = self.scenario;
        if !s.job.is_training() || self.zero() != Zero::Z3 || self.dp < 2 {
            return;
        }
        match s.weights_load {
            WeightsLoad::Sharded => {}
            WeightsLoad::Full => {
                let full = self.weight_bytes();
                let always: u64 = self
                    .lines
                    .iter()
                    .filter(|l| l.phase == Phase::Always && l.pool == super::Pool::Allocator)
                    .map(|l| l.bytes)
                    .fold(0u64, u64::saturating_add);
                let above = full.saturating_sub(always);
                self.push(Component::Weights, Phase::Load, above, |_| {
                    let args = [Arg::Bytes(full), Arg::Bytes(always)];
                    Formula::of(Msg::LoadedWholeOnEveryRank, &args).equals(above)
                });
            }
            WeightsLoad::Rank0 => {
                let layer = self.arch.largest_layer_params();
                let bytes = div_ceil(self.format.bits().bytes(layer), self.tp);
                self.push(Component::Weights, Phase::Load, bytes, |b| {
                    let bits = Arg::Bits(b.format.bits().as_f64());
                    Formula::of(Msg::LoadedUnitByUnit, &[Arg::Count(layer), bits]).equals(bytes)
                });
            }
        }
    }
}
