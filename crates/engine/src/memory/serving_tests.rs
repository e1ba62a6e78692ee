//! A server's start-up arithmetic, engine by engine: SGLang's static share, the communication
//! memory of tensor parallelism by interconnect, and the budgets verdicts use.

use crate::sglang::default_mem_fraction_permille;
use crate::{fit::*, memory::*, scenario::*};

const MIB: u64 = 1 << 20;

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

fn sglang(f: impl FnOnce(&mut Scenario)) -> (Scenario, Breakdown) {
    served(|s| {
        s.server = Server::Sglang;
        f(s)
    })
}

#[test]
fn sglangs_pool_is_its_static_share_of_what_was_free_before_loading_less_the_weights() {
    let (s, b) = sglang(|_| {});
    let fit = b.serving.unwrap();
    let split = b.sglang_split(&s, s.gpu);
    // free before loading: the driver's 81,121 MiB less the 1,024 MiB CUDA context
    assert_eq!(split.free_before, (81_121 - 1_024) * MIB);
    assert_eq!(split.permille, default_mem_fraction_permille(&s, s.gpu));
    assert_eq!(fit.budget, split.free_before * split.permille / 1_000);
    assert_eq!(fit.kv_pool, fit.budget - b.bytes(Component::Weights));
    // max_total_num_tokens: whole pages of the pool's tokens
    assert_eq!(fit.tokens % s.block_size, 0);
    assert!(fit.tokens * fit.kv_bytes_per_token <= fit.kv_pool);
    assert!((fit.tokens + s.block_size) * fit.kv_bytes_per_token > fit.kv_pool);
}

#[test]
fn a_larger_profiled_batch_shrinks_vllms_pool_but_not_sglangs() {
    let pool = |f: fn(&mut Scenario)| served(f).1.serving.unwrap().kv_pool;
    let vllm_small = pool(|s| s.batched_tokens = 2_048);
    let vllm_large = pool(|s| s.batched_tokens = 32_768);
    assert!(vllm_large < vllm_small);
    let sglang_small = pool(|s| {
        s.server = Server::Sglang;
        s.batched_tokens = 2_048;
    });
    let sglang_large = pool(|s| {
        s.server = Server::Sglang;
        s.batched_tokens = 32_768;
    });
    assert_eq!(sglang_small, sglang_large);
}

#[test]
fn a_higher_mem_fraction_static_gives_sglang_more_tokens() {
    let tokens = |permille| {
        sglang(|s| s.mem_fraction_permille = permille)
            .1
            .serving
            .unwrap()
            .tokens
    };
    assert!(tokens(900) > tokens(800));
    assert!(tokens(800) > tokens(700));
}

#[test]
fn an_sglang_verdict_is_judged_against_its_static_share_and_what_overflows_the_rest() {
    let (s, b) = sglang(|_| {});
    let need = Need::on(&s, &b, s.gpu);
    assert_eq!(need.budget, b.serving.unwrap().budget);
    assert!(need.fits());
    // at 0.999 the activations no longer fit beside the static share: the overflow counts
    let (t, tight) = sglang(|s| s.mem_fraction_permille = 999);
    let tight_need = Need::on(&t, &tight, t.gpu);
    let split = tight.sglang_split(&t, t.gpu);
    let room = split.free_before - split.static_budget;
    assert!(split.dynamic > room);
    let kv = tight.bytes(Component::KvCache);
    assert_eq!(tight_need.needed, split.loaded + kv + split.dynamic - room);
}

#[test]
fn the_sglang_command_carries_the_fraction_it_is_budgeted_with() {
    let (s, _) = sglang(|_| {});
    let line = serve_command(&s, Server::Sglang).line();
    let permille = default_mem_fraction_permille(&s, s.gpu);
    let flag = format!("--mem-fraction-static 0.{permille:03}");
    assert!(line.contains(&flag), "{line}");
}

#[test]
fn tensor_parallel_servers_on_geforce_cards_keep_nccls_buffers_off_the_gpu() {
    let (_, pcie) = served(|s| {
        s.gpu = Gpu::Rtx4090;
        s.gpus = 2;
        s.tp = 2;
    });
    let (_, p2p) = served(|s| {
        s.gpu = Gpu::L40S;
        s.gpus = 2;
        s.tp = 2;
    });
    assert_eq!(pcie.comm_buffers, 0);
    assert_eq!(p2p.comm_buffers, 1_833 * MIB);
    // NVLink SHARP on 8 H200s: 24 channels × 2 × 6 MiB for each of the 8 GPUs
    let (_, nvls) = served(|s| {
        s.gpu = Gpu::H200;
        s.gpus = 8;
        s.tp = 8;
    });
    assert_eq!(nvls.comm_buffers, (1_833 + 24 * 2 * 6 * 8) * MIB);
}

#[test]
fn every_job_is_judged_against_the_total_the_driver_reports() {
    for job in [Job::Inference, Job::Lora, Job::Full] {
        let s = Scenario {
            job,
            ..Scenario::default()
        };
        let b = estimate(&s).unwrap();
        for gpu in Gpu::ALL {
            assert_eq!(
                Need::on(&s, &b, *gpu).budget,
                gpu.visible_bytes(),
                "{job:?}"
            );
        }
    }
}

#[test]
fn each_gpu_of_the_verdict_table_is_charged_its_own_interconnects_communication_memory() {
    for server in [Server::Vllm, Server::Sglang] {
        let (s, b) = served(|s| {
            s.server = server;
            s.gpu = Gpu::Rtx4090;
            s.gpus = 4;
            s.tp = 4;
        });
        for gpu in [Gpu::H100, Gpu::L40S, Gpu::A100_80] {
            let t = Scenario { gpu, ..s.clone() };
            let own = estimate(&t).unwrap();
            assert_ne!(own.comm_buffers, b.comm_buffers, "{gpu:?}");
            assert_eq!(Need::on(&s, &b, gpu), Need::on(&t, &own, gpu), "{gpu:?}");
        }
        // the verdict table, which judges every card with the selected card's breakdown
        let arch = s.model.architecture().unwrap();
        let table = verdicts(&s, &arch).unwrap();
        let h100 = table.iter().find(|v| v.gpu == Gpu::H100).unwrap();
        let t = Scenario {
            gpu: Gpu::H100,
            ..s.clone()
        };
        let own = Need::on(&t, &estimate(&t).unwrap(), Gpu::H100);
        assert_eq!(h100.headroom, own.headroom(), "{server:?}");
    }
}

fn pipelined(pp: u64) -> Scenario {
    Scenario {
        job: Job::Serving,
        gpu: Gpu::H100,
        gpus: pp,
        pp,
        ..Scenario::default()
    }
}

#[test]
fn a_pipelined_servers_stages_sum_to_the_whole_model_with_the_sampler_on_the_last() {
    let s = pipelined(4);
    let arch = s.model.architecture().unwrap();
    let stages = estimate_stages(&s, &arch).unwrap();
    assert_eq!(stages.len(), 4);
    let whole = estimate(&pipelined(1)).unwrap();
    let weights: u64 = stages.iter().map(|b| b.bytes(Component::Weights)).sum();
    assert_eq!(weights, whole.bytes(Component::Weights));
    let kv_per_token: u64 = stages.iter().map(|b| b.kv_bytes_per_token).sum();
    assert_eq!(kv_per_token, whole.kv_bytes_per_token);
    let sampler: Vec<u64> = stages
        .iter()
        .map(|b| b.largest(Component::Logits))
        .collect();
    assert_eq!(sampler[..3], [0, 0, 0]);
    assert_eq!(sampler[3], whole.largest(Component::Logits));
}

#[test]
fn pipeline_parallelism_never_raises_a_servers_weights_per_gpu() {
    let weights = |pp| estimate(&pipelined(pp)).unwrap().bytes(Component::Weights);
    for pp in [2, 4, 8, 16, 32] {
        assert!(weights(pp) <= weights(pp / 2), "pp {pp}");
    }
}

#[test]
fn a_pipelined_server_sizes_every_stage_to_the_fewest_blocks_any_stage_holds() {
    let s = pipelined(4);
    let arch = s.model.architecture().unwrap();
    let fewest = estimate_stages(&s, &arch)
        .unwrap()
        .iter()
        .map(|b| b.serving.unwrap().blocks)
        .min()
        .unwrap();
    let b = estimate(&s).unwrap();
    assert_eq!(b.serving.unwrap().blocks, fewest);
    let line = serve_command(&s, Server::Vllm).line();
    assert!(line.contains("--pipeline-parallel-size 4"), "{line}");
    let line = serve_command(&s, Server::Sglang).line();
    assert!(line.contains("--pp-size 4"), "{line}");
}
