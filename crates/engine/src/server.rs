//! How a server is started, as far as it moves memory: which engine, CUDA graphs, speculative
//! decoding and the communication buffers of tensor parallelism.

use crate::gpus::{Gpu, Interconnect};
use crate::scenario::{CudaGraphs, Scenario, Server, SpecMethod, VllmVersion};

/// Tokens one decode step verifies per request: 1, plus the proposed tokens when speculating
/// (vLLM `decode_query_len`, `vllm/config/vllm.py`).
pub fn decode_query_len(s: &Scenario) -> u64 {
    match s.spec {
        SpecMethod::Off => 1,
        _ => 1 + s.spec_tokens,
    }
}

/// V0's batch sizes to capture: 1, 2, 4 and multiples of 8 up to 256 (`vllm/worker/model_runner.py`,
/// `_BATCH_SIZES_TO_CAPTURE`).
fn v0_sizes() -> impl Iterator<Item = u64> {
    [1, 2, 4].into_iter().chain((1..=32).map(|i| 8 * i))
}

/// V1's default capture sizes up to `max`: 1, 2, 4, multiples of 8 below 256, multiples of 16 from
/// 256 (`vllm/config/vllm.py`, `_set_cudagraph_sizes`).
fn v1_sizes(max: u64) -> impl Iterator<Item = u64> {
    [1, 2, 4]
        .into_iter()
        .chain((1..32).map(|i| 8 * i))
        .chain((0..).map(|i| 256 + 16 * i).take_while(move |n| *n <= max))
        .filter(move |n| *n <= max)
}

/// The CUDA graphs a server captures, as (mixed-batch graphs, decode-only full graphs).
///
/// V0 captures one full graph per batch size up to `max_num_seqs` rounded up to the next size
/// (`_get_graph_batch_size`). V1 (`vllm/config/vllm.py`) captures piecewise graphs for token counts
/// up to min(max_num_seqs × decode_query_len × 2, 512, max_num_batched_tokens), the largest always
/// among them, rounded up to multiples of decode_query_len when speculating
/// (`adjust_cudagraph_sizes_for_spec_decode`), and with FULL_AND_PIECEWISE (the default) full
/// decode graphs for the sizes up to max_num_seqs × decode_query_len.
pub(crate) fn captured_graphs(s: &Scenario) -> (u64, u64) {
    if s.cuda_graphs == CudaGraphs::Eager {
        return (0, 0);
    }
    if s.vllm == VllmVersion::V0 {
        let seqs = s.max_num_seqs;
        let padded = if seqs <= 2 {
            seqs
        } else if seqs <= 4 {
            4
        } else {
            seqs.div_ceil(8) * 8
        };
        return (v0_sizes().filter(|n| *n <= padded).count() as u64, 0);
    }
    let q = decode_query_len(s);
    let decode_tokens = s.max_num_seqs.saturating_mul(q);
    let max = decode_tokens
        .saturating_mul(2)
        .min(512)
        .min(s.batched_tokens)
        .max(1);
    let rounded = |n: u64| n.div_ceil(q) * q;
    let mut mixed: Vec<u64> = v1_sizes(max).map(rounded).filter(|n| *n <= max).collect();
    // already ascending (the sizes ascend, rounding up keeps their order, `max` is the largest):
    // no sort, whose code the page's first load would carry for this list alone
    mixed.push(max);
    debug_assert!(mixed.is_sorted());
    mixed.dedup();
    let full = mixed.iter().filter(|n| **n <= decode_tokens).count() as u64;
    (mixed.len() as u64, full)
}

/// What NCCL's P2P transport (buffers in device memory, `src/transport/p2p.cc`) and vLLM's custom
/// all-reduce add on each GPU, MiB: vLLM PR #10511 prints `non_torch_memory` 1.79 GiB for
/// Llama-3-8B on one H100 and 3.58 GiB with `-tp 2`. Ring and tree connect each rank to a fixed
/// number of neighbours per channel, so the figure does not grow with the ranks.
pub const COMM_PEER_TO_PEER_MIB: u64 = 1_833;

/// NVLink SHARP's buffers (NCCL `src/transport/nvls.cc`): `nChannels × 2 × (buffSize + memSize)`
/// per head, times the heads (the GPUs of the switch domain), in unicast memory on every GPU. vLLM
/// issue #9699 (8 × H200) logs "buffSize 4194304 memSize 2097152 nvlsPerRankSize 301989888": 24
/// channels of the default `NCCL_BUFFSIZE` (4 MiB) and 2 MiB of credits.
pub const NVLS_CHANNELS: u64 = 24;
/// `NCCL_BUFFSIZE`'s default, MiB (NCCL docs, environment variables).
pub const NCCL_BUFFSIZE_MIB: u64 = 4;
/// `NVLS_MEM_ALIGN_SIZE`, MiB: the credits beside each NVLS buffer.
pub const NVLS_MEM_MIB: u64 = 2;

/// The communication memory a server split over `tp` GPUs of `gpu` takes on each, MiB, by part:
/// (peer-to-peer buffers and custom all-reduce, NVLink SHARP). Without peer-to-peer NCCL's SHM
/// transport keeps every buffer in host shared memory (`src/transport/shm.cc`, `shmOpen`) and vLLM
/// disables its custom all-reduce ("your platform lacks GPU P2P capability"): nothing on the GPU.
/// NCCL engages NVLS only for more than two GPUs (vLLM issue #9699), and SGLang turns it off
/// unless `--enable-nccl-nvls` (sgl-project/sglang PR #631 "Disable NCCL_NVLS by default", PR
/// #3502 "Make NCCL NVLS configurable", default false).
pub fn comm_parts_mib(gpu: Gpu, server: Server, tp: u64) -> (u64, u64) {
    if tp < 2 || gpu.interconnect() == Interconnect::PcieHost {
        return (0, 0);
    }
    let nvls = if gpu.has_nvls() && tp > 2 && server == Server::Vllm {
        NVLS_CHANNELS * 2 * (NCCL_BUFFSIZE_MIB + NVLS_MEM_MIB) * tp
    } else {
        0
    };
    (COMM_PEER_TO_PEER_MIB, nvls)
}

/// The communication memory per GPU of `gpu`, MiB: the user's `comm-mib` when set (not 0), else
/// what the GPUs' interconnect, the server and the tensor-parallel degree `tp` make of it.
pub fn comm_mib_on(s: &Scenario, gpu: Gpu, tp: u64) -> u64 {
    match (tp, s.comm_mib) {
        (0 | 1, _) => 0,
        (_, 0) => {
            let (p2p, nvls) = comm_parts_mib(gpu, s.server, tp);
            p2p + nvls
        }
        (_, mib) => mib,
    }
}

/// [`comm_mib_on`] the scenario's GPU.
pub fn comm_mib(s: &Scenario, tp: u64) -> u64 {
    comm_mib_on(s, s.gpu, tp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v1(f: impl FnOnce(&mut Scenario)) -> (u64, u64) {
        let mut s = Scenario {
            vllm: VllmVersion::V1Graphs,
            ..Scenario::default()
        };
        f(&mut s);
        captured_graphs(&s)
    }

    #[test]
    fn v1_captures_51_mixed_and_35_decode_graphs_by_default_as_its_start_up_log_prints() {
        // "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)"
        assert_eq!(v1(|_| {}), (51, 35));
    }

    #[test]
    fn fewer_sequences_capture_fewer_graphs_and_eager_captures_none() {
        // max_num_seqs 8: sizes up to 16 (1, 2, 4, 8, 16), decode graphs up to 8
        assert_eq!(v1(|s| s.max_num_seqs = 8), (5, 4));
        assert_eq!(v1(|s| s.cuda_graphs = CudaGraphs::Eager), (0, 0));
    }

    #[test]
    fn v0_captures_one_graph_per_batch_size_up_to_max_num_seqs() {
        let v0 = |seqs| {
            captured_graphs(&Scenario {
                max_num_seqs: seqs,
                vllm: VllmVersion::V0,
                ..Scenario::default()
            })
        };
        assert_eq!(v0(256), (35, 0));
        assert_eq!(v0(20), (6, 0)); // 1, 2, 4, 8, 16, 24
    }

    #[test]
    fn the_communication_memory_follows_the_interconnect_and_reproduces_the_h100_tp2_measurement() {
        let on = |gpu, tp| {
            comm_mib(
                &Scenario {
                    gpu,
                    comm_mib: 0,
                    ..Scenario::default()
                },
                tp,
            )
        };
        assert_eq!(on(Gpu::H100, 1), 0);
        assert_eq!(on(Gpu::H100, 2), 1_833);
        // NVLS from 3 GPUs: 24 × 2 × 6 MiB per GPU of the domain, 2,304 MiB at 8 as vLLM #9699 logs
        assert_eq!(on(Gpu::H200, 8), 1_833 + 2_304);
        assert_eq!(on(Gpu::A100_80, 8), 1_833);
        assert_eq!(on(Gpu::Rtx4090, 2), 0);
        assert_eq!(on(Gpu::L40S, 2), 1_833);
        let set = Scenario {
            gpu: Gpu::Rtx4090,
            comm_mib: 700,
            ..Scenario::default()
        };
        assert_eq!(comm_mib(&set, 2), 700, "the user's figure wins");
        assert_eq!(comm_mib(&set, 1), 0);
        let sglang = Scenario {
            gpu: Gpu::H200,
            server: Server::Sglang,
            comm_mib: 0,
            ..Scenario::default()
        };
        assert_eq!(comm_mib(&sglang, 8), 1_833, "SGLang turns NVLS off");
    }

    #[test]
    fn speculating_rounds_the_sizes_up_to_the_tokens_each_request_verifies() {
        // 3 proposed tokens: 4 per request; sizes up to min(256 × 4 × 2, 512) rounded to 4s
        let (mixed, full) = v1(|s| {
            s.spec = SpecMethod::Ngram;
            s.spec_tokens = 3;
        });
        assert!(mixed < 51, "{mixed}");
        assert_eq!(full, mixed);
    }
}
