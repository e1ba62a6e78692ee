//! The seed texts' worked examples (the two source texts the product grew from: a book chapter and a blog post, in Chinese). Where their physics holds the engine agrees;
//! where it does not, the test pins the right figure and its name says why.

use super::kv::kv_cache_bytes;
use crate::units::{GB, GIB};
use crate::{estimate, memory::lora_params};
use crate::{
    scenario::LoraTargets, scenario::Optimizer, Component, Gpu, Job, ModelChoice, Scenario,
    WeightFormat,
};

fn llama2_7b() -> Scenario {
    Scenario {
        model: ModelChoice::Preset("llama-2-7b"),
        ..Scenario::default()
    }
}

#[track_caller]
fn close(actual: u64, expected: f64, tolerance: f64) {
    let a = actual as f64;
    assert!(
        (a / expected - 1.0).abs() <= tolerance,
        "{a} is not within {:.0}% of {expected}",
        tolerance * 100.0
    );
}

#[test]
fn seed_000_seven_billion_fp16_weights_take_14_gb() {
    let s = Scenario {
        job: Job::Inference,
        ..llama2_7b()
    };
    let b = estimate(&s).unwrap();
    // Llama-2-7B has 6.74B parameters: 13.5 GB, the seed's "14 GB" for a round 7B
    close(b.bytes(Component::Weights), 6_738_415_616.0 * 2.0, 0.0001);
    assert_eq!(b.params.total() * 2, 13_476_831_232);
}

#[test]
fn seed_000_mixed_precision_adamw_holds_12_bytes_per_parameter_84_gb_for_7b() {
    let s = Scenario {
        job: Job::Full,
        weights: WeightFormat::Bf16,
        master_weights: true,
        optimizer: Optimizer::AdamW,
        ..llama2_7b()
    };
    let b = estimate(&s).unwrap();
    // the states that persist (the step's temporary comes and goes)
    let persistent: u64 = b
        .lines
        .iter()
        .filter(|l| {
            l.phase == crate::Phase::Always
                && matches!(l.component, Component::Master | Component::Optimizer)
        })
        .map(|l| l.bytes)
        .sum();
    assert_eq!(persistent as f64 / b.trainable as f64, 12.0);
    close(persistent, 84e9 * 6.738 / 7.0, 0.001);
}

#[test]
fn seed_000_thirteen_b_full_fine_tune_keeps_26_gb_of_bf16_weights_and_26_gb_of_gradients() {
    let s = Scenario {
        model: ModelChoice::Preset("llama-2-13b"),
        job: Job::Full,
        grad_accum: 2,
        ..Scenario::default()
    };
    let b = estimate(&s).unwrap();
    close(b.bytes(Component::Weights), 26e9, 0.01);
    close(b.bytes(Component::Gradients), 26e9, 0.01);
}

#[test]
fn seed_000_kv_cache_of_llama_7b_at_2048_tokens_is_1_gib_not_the_seeds_2_gb() {
    // 2 (K, V) × 32 layers × 4096 × 2048 tokens × 2 B = 1,073,741,824 B: the seed doubles it
    let a = crate::model::presets::find("llama-2-7b")
        .unwrap()
        .architecture();
    assert_eq!(kv_cache_bytes(&a, 16, 1, 1, 2048), GIB);
    assert_eq!(
        kv_cache_bytes(&a, 16, 1, 8, 2048),
        8 * GIB,
        "batch 8 is 8 GiB, not the seed's 16 GB"
    );
}

#[test]
fn kv_cache_follows_kv_heads_so_llama_3_8b_needs_a_quarter_of_llama_2_7b_per_token() {
    let l2 = crate::model::presets::find("llama-2-7b")
        .unwrap()
        .architecture();
    let l3 = crate::model::presets::find("llama-3.1-8b")
        .unwrap()
        .architecture();
    assert_eq!(
        kv_cache_bytes(&l2, 16, 1, 1, 1),
        4 * kv_cache_bytes(&l3, 16, 1, 1, 1)
    );
}

#[test]
fn seed_000_lora_rank_8_on_q_and_v_of_a_7b_trains_about_4_million_parameters() {
    let s = Scenario {
        lora_rank: 8,
        lora_targets: LoraTargets::parse("q,v").unwrap(),
        ..llama2_7b()
    };
    let a = crate::model::presets::find("llama-2-7b")
        .unwrap()
        .architecture();
    assert_eq!(lora_params(&a, &s), 4_194_304);
}

#[test]
fn seed_000_a_24_gb_card_serves_more_than_10_requests_of_1024_tokens_because_each_needs_half_a_gib_not_1_gb(
) {
    let s = Scenario {
        job: Job::Serving,
        avg_tokens: 1024,
        concurrency: 8,
        gpu: Gpu::Rtx4090,
        max_model_len: 4096,
        ..llama2_7b()
    };
    let b = estimate(&s).unwrap();
    // 1024 tokens × 512 KiB per token = 0.5 GiB a request
    assert_eq!(b.kv_bytes_per_token * 1024, GIB / 2);
    let fit = b.serving.unwrap();
    assert!(
        fit.max_concurrency > 10 && fit.max_concurrency < 20,
        "{}",
        fit.max_concurrency
    );
}

#[test]
fn gradient_accumulation_does_not_multiply_gradient_memory_unlike_seed_003s_8_times_14_gb() {
    let one = Scenario {
        job: Job::Full,
        grad_accum: 1,
        gpus: 2,
        ..llama2_7b()
    };
    let eight = Scenario {
        grad_accum: 8,
        ..one.clone()
    };
    let (b1, b8) = (estimate(&one).unwrap(), estimate(&eight).unwrap());
    assert_eq!(
        b1.bytes(Component::Gradients),
        b8.bytes(Component::Gradients)
    );
    assert_eq!(b1.total, b8.total);
}

#[test]
fn seed_003_int4_7b_weights_are_more_than_3_5_gb_because_of_scales_and_16_bit_embeddings() {
    let s = Scenario {
        job: Job::Inference,
        weights: WeightFormat::Gptq4,
        ..llama2_7b()
    };
    let w = estimate(&s).unwrap().bytes(Component::Weights);
    assert!(w as f64 > 3.5 * GB as f64 * 6.738 / 7.0 * 1.05, "{w}");
    let nf4 = Scenario {
        weights: WeightFormat::Nf4Dq,
        ..s.clone()
    };
    assert!(
        estimate(&nf4).unwrap().bytes(Component::Weights) < w,
        "NF4 with double quant is 4.127 bits, GPTQ g128 4.16"
    );
}

#[test]
fn a_frozen_quantized_base_has_no_gradients_or_optimizer_states_of_its_own() {
    let s = Scenario {
        job: Job::Qlora,
        weights: WeightFormat::Nf4Dq,
        ..llama2_7b()
    };
    let b = estimate(&s).unwrap();
    let a = crate::model::presets::find("llama-2-7b")
        .unwrap()
        .architecture();
    assert_eq!(b.trainable, lora_params(&a, &s));
    // gradients only for the adapters (fp32), none for the 6.7B frozen base
    assert_eq!(b.largest(Component::Gradients), b.trainable * 4);
    assert!(b.trainable < b.params.total() / 100);
}

#[test]
fn moe_keeps_every_expert_resident_but_routes_activations_to_top_k() {
    let s = Scenario {
        model: ModelChoice::Preset("mixtral-8x7b"),
        job: Job::Inference,
        ..Scenario::default()
    };
    let b = estimate(&s).unwrap();
    assert_eq!(b.bytes(Component::Weights), b.params.total() * 2);
    assert!(b.active_params < b.params.total() / 3);
}

#[test]
fn flash_attention_stores_no_seq_by_seq_scores_while_eager_does() {
    let flash = Scenario {
        seq: 8192,
        checkpointing: crate::scenario::Checkpointing::None,
        ..llama2_7b()
    };
    let eager = Scenario {
        attention: crate::scenario::Attention::Eager,
        ..flash.clone()
    };
    let (f, e) = (estimate(&flash).unwrap(), estimate(&eager).unwrap());
    // 32 heads × 8192² × 6 B × 32 layers × batch 4 more
    let extra = e.bytes(Component::Activations) - f.bytes(Component::Activations);
    assert_eq!(extra, 32 * 8192 * 8192 * 6 * 32 * 4);
}

#[test]
fn logits_of_a_152k_vocabulary_at_32k_tokens_are_the_surveys_18_gib_upcast_plus_gradients() {
    let s = Scenario {
        model: ModelChoice::Preset("qwen2.5-7b"),
        batch: 1,
        seq: 32_768,
        loss: crate::scenario::Loss::Full,
        ..Scenario::default()
    };
    let b = estimate(&s).unwrap();
    // 32,768 × 152,064 × 4 B = 18.6 GiB for the fp32 log-probs alone; × 3 with their gradients
    assert_eq!(b.bytes(Component::Logits), 32_768 * 152_064 * 12);
}
