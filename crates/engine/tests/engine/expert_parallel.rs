//! Expert parallelism for MoE serving (vLLM `--enable-expert-parallel` with
//! `--data-parallel-size`, SGLang `--ep-size` with `--enable-dp-attention`): the routed experts
//! spread over every GPU, the attention replicated on each data-parallel rank, and each rank's
//! KV cache holding its share of the requests.

use vram_engine::{
    estimate, fit::serve_command, scenario::Server, Component, Job, ModelChoice, Scenario,
    WeightFormat,
};

fn qwen3_moe(ep: bool) -> Scenario {
    Scenario {
        job: Job::Serving,
        model: ModelChoice::Preset("qwen3-30b-a3b"),
        weights: WeightFormat::Bf16,
        gpus: 4,
        tp: 1,
        concurrency: 16,
        expert_parallel: ep,
        ..Scenario::default()
    }
}

#[test]
fn qwen3_30b_a3b_over_4_gpus_keeps_a_quarter_of_its_experts_on_each() {
    let (off, on) = (qwen3_moe(false), qwen3_moe(true));
    let (b_off, b_on) = (estimate(&off).unwrap(), estimate(&on).unwrap());
    // routed experts: 48 layers × 128 experts × 3 × 2,048 × 768 = 28,991,029,248 parameters,
    // 57,982,058,496 B in bf16; a quarter stays: 57,982,058,496 − 14,495,514,624 saved
    let saved = 57_982_058_496 - 14_495_514_624;
    assert_eq!(
        b_off.bytes(Component::Weights) - b_on.bytes(Component::Weights),
        saved
    );
    // 16 requests over 4 data-parallel ranks: each GPU caches 4
    assert_eq!(
        b_off.bytes(Component::KvCache),
        4 * b_on.bytes(Component::KvCache)
    );
}

#[test]
fn a_dense_model_or_one_gpu_has_nothing_to_spread() {
    let dense = Scenario {
        model: ModelChoice::Preset("llama-3.1-8b"),
        ..qwen3_moe(true)
    };
    let plain = Scenario {
        expert_parallel: false,
        ..dense.clone()
    };
    assert_eq!(
        estimate(&dense).unwrap().bytes(Component::Weights),
        estimate(&plain).unwrap().bytes(Component::Weights)
    );
    let one = Scenario {
        gpus: 1,
        ..qwen3_moe(true)
    };
    let one_off = Scenario {
        expert_parallel: false,
        ..one.clone()
    };
    assert_eq!(
        estimate(&one).unwrap().total,
        estimate(&one_off).unwrap().total
    );
}

#[test]
fn the_commands_ask_each_server_for_its_expert_and_data_parallel_ranks() {
    let s = qwen3_moe(true);
    let vllm = serve_command(&s, Server::Vllm).line();
    assert!(
        vllm.contains("--tensor-parallel-size 1 --data-parallel-size 4 --enable-expert-parallel"),
        "{vllm}"
    );
    let sglang = serve_command(&s, Server::Sglang).line();
    assert!(
        sglang.contains("--tp 4 --dp-size 4 --enable-dp-attention --ep-size 4"),
        "{sglang}"
    );
}
