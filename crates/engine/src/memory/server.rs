//! What a vLLM server holds beside its model and KV pool: CUDA graphs, the communication buffers of
//! tensor parallelism, and a speculative-decoding proposer (a draft model, an EAGLE head or an MTP
//! layer) with its weights and KV cache.

use super::kv::kv_cache_bytes;
use super::{Budget, Component, Phase};
use crate::dtype::Bits;
use crate::formula::{Arg, Formula, Msg};
use crate::model::presets;
use crate::model::Architecture;
use crate::scenario::SpecMethod;
use crate::server::{
    captured_graphs, comm_mib, comm_parts_mib, NCCL_BUFFSIZE_MIB, NVLS_CHANNELS, NVLS_MEM_MIB,
};
use crate::units::{div_ceil, prod, MIB};

/// Graph memory per captured graph and model layer on one GPU, in KiB: what vLLM reports for its
/// graph pool over graphs × layers. vLLM PR #11349 (V0, Llama-3.2-1B, 16 layers, 35 graphs): "Graph
/// capturing finished in 14 secs, took 0.21 GiB", 393 KiB; vLLM PR #44078 (V1 model runner,
/// Llama-3.1-8B with a 5-token EAGLE head on an H200, 49 + 49 graphs of 32 layers): "Graph pool
/// memory: … 1.12 GiB", 374 KiB. Their mean. The buffers a graph keeps are activations, which
/// tensor parallelism splits, so a rank keeps its share (gpt-oss-120b at TP 8 kept 62 MiB, vLLM PR
/// #51590, where this gives 145 MiB).
pub const GRAPH_KIB_PER_LAYER: u64 = 384;

/// The parameters of a proposer built from one decoder layer of `arch` and a projection of two
/// hidden vectors into one (EAGLE's `fc`, MTP's `eh_proj`).
fn one_layer_head_params(arch: &Architecture) -> u64 {
    arch.largest_layer_params() + prod(&[2, arch.hidden, arch.hidden])
}

impl Budget<'_> {
    /// The server's extras, after its KV cache: graphs, communication buffers, the proposer.
    pub(super) fn server_extras(&mut self) {
        self.cuda_graphs();
        self.comm_buffers();
        self.proposer_weights();
    }

    /// CUDA graphs: graphs × layers × the memory one graph keeps per layer. V0 and V1 before 0.21
    /// capture them after sizing the KV pool (`capture_model`), out of what
    /// `gpu_memory_utilization` leaves; from 0.21 the budget makes room for them first.
    fn cuda_graphs(&mut self) {
        let s = self.scenario;
        let (mixed, full) = captured_graphs(s);
        let graphs = mixed + full;
        let layers = self.arch.layers;
        let kib = GRAPH_KIB_PER_LAYER;
        let bytes = div_ceil(prod(&[graphs, layers, kib, 1024]), self.tp);
        self.graph_bytes = bytes;
        if graphs == 0 {
            return;
        }
        self.push(Component::Context, Phase::Always, bytes, |b| {
            let args = [
                Arg::Int(mixed),
                Arg::Int(full),
                Arg::Int(layers),
                Arg::Int(kib),
            ];
            let mut f = Formula::of(Msg::CudaGraphs, &args);
            b.tensor_parallel_clause(&mut f);
            if !s.vllm.budgets_graphs() {
                f.push(Msg::GraphsOutsideBudget, &[]);
            }
            f.equals(bytes)
        });
    }

    /// NCCL's channel buffers and vLLM's custom all-reduce buffers, per GPU, when the model is
    /// split over several GPUs (memory outside PyTorch's allocator that V0 and V1 both measure):
    /// the user's figure, or what the GPUs' interconnect makes of it.
    fn comm_buffers(&mut self) {
        if self.tp < 2 {
            return;
        }
        let s = self.scenario;
        let bytes = comm_mib(s, self.tp) * MIB;
        self.push(Component::Context, Phase::Always, bytes, |b| {
            if s.comm_mib > 0 {
                let args = [Arg::Int(s.comm_mib), Arg::Int(b.tp)];
                return Formula::of(Msg::CommBuffers, &args).equals(bytes);
            }
            let (p2p, nvls) = comm_parts_mib(s.gpu, s.server, b.tp);
            if p2p == 0 {
                return Formula::of(Msg::CommThroughHost, &[]).equals(bytes);
            }
            let mut f = Formula::of(Msg::CommPeerToPeer, &[Arg::Int(p2p)]);
            if nvls > 0 {
                let args = [NVLS_CHANNELS, NCCL_BUFFSIZE_MIB, NVLS_MEM_MIB, b.tp].map(Arg::Int);
                f.push(Msg::CommNvls, &args);
            }
            f.equals(bytes)
        });
    }

    /// The proposer's weights: a draft model in 16-bit, an EAGLE head in 16-bit, an MTP layer in
    /// the checkpoint's format; split over the tensor-parallel ranks like the target.
    fn proposer_weights(&mut self) {
        let s = self.scenario;
        let sixteen = Bits::new(16, 1);
        let (params, bits) = match s.spec {
            SpecMethod::Off | SpecMethod::Ngram => return,
            SpecMethod::Draft => match draft_architecture(s.draft_model) {
                Some(arch) => (arch.params().total(), sixteen),
                None => return,
            },
            SpecMethod::Eagle => (one_layer_head_params(self.arch), sixteen),
            SpecMethod::Mtp => (one_layer_head_params(self.arch), self.format.bits()),
        };
        let per_gpu = div_ceil(bits.bytes(params), self.tp);
        self.push(Component::Weights, Phase::Always, per_gpu, |b| {
            let args = [Arg::Count(params), Arg::Bits(bits.as_f64())];
            let mut f = Formula::of(Msg::ProposerWeights, &args);
            b.tensor_parallel_clause(&mut f);
            f.equals(per_gpu)
        });
    }

    /// KV bytes per token of the proposer, on one rank: the draft model's layers, or the one
    /// layer of an EAGLE head or MTP module. vLLM gives them blocks from the same pool.
    pub(super) fn proposer_kv_per_token(&self) -> u64 {
        let s = self.scenario;
        let bits = s.kv_dtype.bits();
        match s.spec {
            SpecMethod::Off | SpecMethod::Ngram => 0,
            SpecMethod::Draft => draft_architecture(s.draft_model)
                .map(|a| kv_cache_bytes(&a, bits, self.tp, 1, 1))
                .unwrap_or(0),
            SpecMethod::Eagle | SpecMethod::Mtp => {
                let one_layer = Architecture {
                    layers: 1,
                    sliding_window: None,
                    sliding_layers: 0,
                    ..self.arch.clone()
                };
                kv_cache_bytes(&one_layer, bits, self.tp, 1, 1)
            }
        }
    }

    /// The proposer's KV cache for `tokens` pooled tokens.
    pub(super) fn proposer_kv(&mut self, tokens: u64) {
        let per_token = self.proposer_kv_per_token();
        if per_token == 0 {
            return;
        }
        let bytes = prod(&[tokens, per_token]);
        self.push(Component::KvCache, Phase::Always, bytes, |_| {
            Formula::of(
                Msg::ProposerKv,
                &[Arg::Count(tokens), Arg::Count(per_token)],
            )
            .equals(bytes)
        });
    }
}

/// The draft model's architecture, from its preset.
fn draft_architecture(id: &str) -> Option<Architecture> {
    presets::find(id).map(|p| p.architecture())
}

#[cfg(test)]
mod tests {
    use crate::fit::Need;
    use crate::gpus::Gpu;
    use crate::memory::{estimate, Breakdown, Component};
    use crate::scenario::{CudaGraphs, Server, SpecMethod};
    use crate::scenario::{Job, Scenario, VllmVersion};
    use crate::units::{GIB, MIB};

    fn served(f: impl FnOnce(&mut Scenario)) -> (Scenario, Breakdown) {
        let mut s = Scenario {
            job: Job::Serving,
            gpu: Gpu::H100,
            ..Scenario::default()
        };
        f(&mut s);
        let b = estimate(&s).unwrap();
        (s, b)
    }

    #[test]
    fn graphs_come_out_of_the_kv_pool_only_from_v1_0_21() {
        for (version, budgeted) in [
            (VllmVersion::V0, false),
            (VllmVersion::V1, false),
            (VllmVersion::V1Graphs, true),
        ] {
            let (_, on) = served(|s| s.vllm = version);
            let (_, eager) = served(|s| {
                s.vllm = version;
                s.cuda_graphs = CudaGraphs::Eager;
            });
            assert!(on.cuda_graphs > 0);
            assert_eq!(eager.cuda_graphs, 0);
            assert!(on.total - eager.total >= on.cuda_graphs);
            let shrink = eager.serving.unwrap().kv_pool - on.serving.unwrap().kv_pool;
            assert_eq!(
                shrink,
                if budgeted { on.cuda_graphs } else { 0 },
                "{version:?}"
            );
        }
    }

    #[test]
    fn v1_graphs_of_llama_3_1_8b_take_86_graphs_times_32_layers_times_384_kib_split_by_tp() {
        let (_, b) = served(|s| s.vllm = VllmVersion::V1Graphs);
        assert_eq!(b.cuda_graphs, 86 * 32 * 384 * 1024);
        assert!(b.cuda_graphs > GIB && b.cuda_graphs < 2 * GIB);
        let (_, split) = served(|s| {
            s.vllm = VllmVersion::V1Graphs;
            s.gpus = 4;
            s.tp = 4;
        });
        assert_eq!(split.cuda_graphs, b.cuda_graphs / 4);
    }

    #[test]
    fn the_budget_is_utilization_times_what_the_driver_reports_not_nvidia_smi() {
        let (s, b) = served(|_| {});
        let fit = b.serving.unwrap();
        assert_eq!(fit.budget, 81_121 * MIB * 90 / 100);
        assert!(fit.budget < s.gpu.bytes() * 90 / 100);
        assert_eq!(Need::on(&s, &b, s.gpu).budget, fit.budget);
    }

    #[test]
    fn tensor_parallel_servers_lose_their_nccl_buffers_from_each_gpus_pool() {
        let (_, one) = served(|_| {});
        let (_, two) = served(|s| {
            s.gpus = 2;
            s.tp = 2;
        });
        assert_eq!(one.comm_buffers, 0);
        assert_eq!(two.comm_buffers, 1_833 * MIB);
        let (_, pcie) = served(|s| {
            s.gpu = Gpu::Rtx4090;
            s.gpus = 2;
            s.tp = 2;
        });
        assert_eq!(
            pcie.comm_buffers, 0,
            "no peer-to-peer: NCCL's buffers in host memory"
        );
        let (_, two_less) = served(|s| {
            s.gpus = 2;
            s.tp = 2;
            s.comm_mib = 833;
        });
        let gained = two_less.serving.unwrap().kv_pool - two.serving.unwrap().kv_pool;
        assert_eq!(gained, 1_000 * MIB);
    }

    #[test]
    fn cpu_offload_gb_moves_its_gib_of_each_gpus_weights_to_cpu_memory_and_the_kv_pool_takes_them()
    {
        let (_, none) = served(|_| {});
        let (s, four) = served(|s| s.cpu_offload_gib = 4);
        let moved = none.bytes(Component::Weights) - four.bytes(Component::Weights);
        assert_eq!(moved, 4 * GIB);
        assert_eq!(four.cpu - none.cpu, 4 * GIB);
        let gained = four.serving.unwrap().kv_pool - none.serving.unwrap().kv_pool;
        assert_eq!(gained, 4 * GIB);
        for server in [Server::Vllm, Server::Sglang] {
            let flags = crate::fit::serve_command(&s, server).flags;
            assert!(
                flags.contains(&("--cpu-offload-gb", "4".into())),
                "{flags:?}"
            );
        }
        // never more than the weights themselves
        let (_, all) = served(|s| s.cpu_offload_gib = 1_024);
        assert_eq!(all.bytes(Component::Weights), 0);
    }

    #[test]
    fn a_draft_model_brings_its_16_bit_weights_and_a_kv_cache_that_shares_the_blocks() {
        let (_, off) = served(|_| {});
        let (_, draft) = served(|s| {
            s.spec = SpecMethod::Draft;
            s.draft_model = "llama-3.2-1b";
        });
        // Llama 3.2 1B: 1,235,814,400 params × 2 B; 16 layers × 2 × 8 KV heads × 64 × 2 B
        let weights = draft.bytes(Component::Weights) - off.bytes(Component::Weights);
        assert_eq!(weights, 1_235_814_400 * 2);
        assert_eq!(
            draft.kv_bytes_per_token - off.kv_bytes_per_token,
            16 * 2 * 8 * 64 * 2
        );
        assert!(draft.serving.unwrap().blocks < off.serving.unwrap().blocks);
    }

    #[test]
    fn an_ngram_proposer_takes_no_weights_or_kv_and_an_eagle_head_one_layer() {
        let (_, off) = served(|_| {});
        let (_, ngram) = served(|s| s.spec = SpecMethod::Ngram);
        assert_eq!(
            ngram.bytes(Component::Weights),
            off.bytes(Component::Weights)
        );
        assert_eq!(ngram.kv_bytes_per_token, off.kv_bytes_per_token);
        let (_, eagle) = served(|s| s.spec = SpecMethod::Eagle);
        assert_eq!(
            eagle.kv_bytes_per_token - off.kv_bytes_per_token,
            off.kv_bytes_per_token / 32
        );
        assert!(eagle.bytes(Component::Weights) > off.bytes(Component::Weights));
    }

    #[test]
    fn graphs_captured_after_sizing_count_against_the_budget_only_past_the_margin() {
        // V0 at 100 %: no margin is left for the graphs; at 95 % (4 GiB) they fit in it
        let (s, b) = served(|s| {
            s.vllm = VllmVersion::V0;
            s.gpu_util_pct = 100;
        });
        let need = Need::on(&s, &b, s.gpu);
        let margin = s.gpu.visible_bytes() - need.budget;
        assert!(b.cuda_graphs > margin);
        let (t, eager) = served(|s| {
            s.vllm = VllmVersion::V0;
            s.gpu_util_pct = 100;
            s.cuda_graphs = CudaGraphs::Eager;
        });
        let without = Need::on(&t, &eager, t.gpu);
        assert_eq!(need.needed - without.needed, b.cuda_graphs - margin);
        let (u, roomy) = served(|s| {
            s.vllm = VllmVersion::V0;
            s.gpu_util_pct = 95;
        });
        let (v, roomy_eager) = served(|s| {
            s.vllm = VllmVersion::V0;
            s.gpu_util_pct = 95;
            s.cuda_graphs = CudaGraphs::Eager;
        });
        assert_eq!(
            Need::on(&u, &roomy, u.gpu).needed,
            Need::on(&v, &roomy_eager, v.gpu).needed
        );
    }
}
