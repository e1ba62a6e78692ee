//! Behaviours that differ between frameworks, exposed as settings: each test checks the arithmetic
//! a setting stands for, against a hand-computed figure.

use crate::EngineError;
use crate::{estimate, Breakdown};
use crate::{
    memory::Pool, scenario::Checkpointing, scenario::Loss, scenario::Offload, scenario::Optimizer,
    Component, Job, ModelChoice, Phase, Scenario, WeightFormat,
};

fn preset(id: &'static str, job: Job) -> Scenario {
    Scenario {
        model: ModelChoice::Preset(id),
        job,
        ..Scenario::default()
    }
}

fn lines(b: &Breakdown, c: Component, p: Phase) -> u64 {
    b.lines
        .iter()
        .filter(|l| l.component == c && l.phase == p)
        .map(|l| l.bytes)
        .sum()
}

/// Llama 3.2 3B, full fine-tune in pure bf16 with bf16 AdamW states (torchtune's recipe).
fn llama_3b_full() -> Scenario {
    Scenario {
        optimizer: Optimizer::AdamWBf16,
        master_weights: false,
        batch: 2,
        seq: 4_096,
        ..preset("llama-3.2-3b", Job::Full)
    }
}

#[test]
fn with_the_optimizer_step_in_backward_only_the_largest_gradient_is_alive_not_the_whole_buffer() {
    let plain = estimate(&llama_3b_full()).unwrap();
    let s = Scenario {
        optimizer_in_backward: true,
        ..llama_3b_full()
    };
    let b = estimate(&s).unwrap();
    // the tied 128256 x 3072 embedding is the largest tensor: one bf16 gradient of it
    assert_eq!(
        lines(&b, Component::Gradients, Phase::Compute),
        128_256 * 3_072 * 2
    );
    assert_eq!(b.bytes(Component::Gradients), 128_256 * 3_072 * 2);
    // no optimizer-step moment with a whole-model temporary any more
    assert_eq!(lines(&b, Component::Optimizer, Phase::Step), 0);
    assert!(plain.largest(Component::Gradients) >= 3_000_000_000 * 2);
    assert!(b.total < plain.total);
}

#[test]
fn the_optimizer_step_in_backward_refuses_gradient_accumulation_in_words() {
    let s = Scenario {
        optimizer_in_backward: true,
        grad_accum: 4,
        ..llama_3b_full()
    };
    let e = estimate(&s).unwrap_err();
    assert_eq!(e, EngineError::StepInBackwardAccumulates { steps: 4 });
}

#[test]
fn offloaded_activations_leave_two_layers_of_checkpoints_on_the_gpu_and_the_rest_in_cpu_memory() {
    let base = Scenario {
        checkpointing: Checkpointing::Full,
        ..llama_3b_full()
    };
    let on = Scenario {
        offload_activations: true,
        ..base.clone()
    };
    let (a, b) = (estimate(&base).unwrap(), estimate(&on).unwrap());
    // 8192 tokens × 3072 hidden × 2 B per checkpointed layer input; 28 layers, 2 stay
    let per_layer = 8_192 * 3_072 * 2;
    assert_eq!(
        a.largest(Component::Activations) - b.largest(Component::Activations),
        26 * per_layer
    );
    assert_eq!(b.cpu - a.cpu, 28 * per_layer);
}

#[test]
fn a_quantized_head_on_a_tied_model_becomes_its_own_4_bit_copy_beside_16_bit_embeddings() {
    let s = Scenario {
        weights: WeightFormat::Nf4,
        ..preset("llama-3.2-1b", Job::Inference)
    };
    let kept = estimate(&s).unwrap();
    let quantized = estimate(&Scenario {
        quantize_head: true,
        ..s
    })
    .unwrap();
    // 128256 × 2048 head at 4.5 bits, on top of the embeddings that stay bf16
    let head = (128_256u64 * 2_048 * 9).div_ceil(16);
    assert_eq!(
        lines(&quantized, Component::Weights, Phase::Always)
            - lines(&kept, Component::Weights, Phase::Always),
        head
    );
}

#[test]
fn bitsandbytes_formats_quantize_while_loading_so_the_largest_matrix_passes_through_in_16_bit() {
    let s = Scenario {
        weights: WeightFormat::Nf4,
        ..preset("llama-3.1-8b", Job::Inference)
    };
    let b = estimate(&s).unwrap();
    // the largest matrix inside the layers: 4096 × 14336 (gate, up, down)
    assert_eq!(
        lines(&b, Component::Weights, Phase::Load),
        4_096 * 14_336 * 2
    );
    // a head quantized too is larger still: 128256 × 4096
    let q = estimate(&Scenario {
        quantize_head: true,
        ..s.clone()
    })
    .unwrap();
    assert_eq!(
        lines(&q, Component::Weights, Phase::Load),
        128_256 * 4_096 * 2
    );
    // formats quantized ahead of time load as they are
    let gptq = estimate(&Scenario {
        weights: WeightFormat::Gptq4,
        ..s
    })
    .unwrap();
    assert_eq!(lines(&gptq, Component::Weights, Phase::Load), 0);
}

#[test]
fn a_4_bit_head_is_dequantized_for_its_matmul_and_keeps_its_input_while_the_logits_are_alive() {
    let s = Scenario {
        weights: WeightFormat::Nf4,
        batch: 2,
        seq: 1_024,
        ..preset("llama-3.1-8b", Job::Qlora)
    };
    let kept = estimate(&s).unwrap();
    let quantized = estimate(&Scenario {
        quantize_head: true,
        ..s
    })
    .unwrap();
    // 128256 × 4096 head in 16-bit, and 2048 tokens × 4096 hidden × 2 B of its input
    assert_eq!(
        quantized.largest(Component::Logits) - kept.largest(Component::Logits),
        128_256 * 4_096 * 2 + 2_048 * 4_096 * 2
    );
}

#[test]
fn a_4_bit_prefill_dequantizes_the_largest_matrix_but_a_single_token_does_not() {
    let s = Scenario {
        weights: WeightFormat::Nf4Dq,
        batch: 1,
        seq: 100,
        ..preset("llama-3.1-8b", Job::Inference)
    };
    let b = estimate(&s).unwrap();
    assert_eq!(
        lines(&b, Component::Weights, Phase::Compute),
        4_096 * 14_336 * 2
    );
    let one = estimate(&Scenario {
        seq: 1,
        ..s.clone()
    })
    .unwrap();
    assert_eq!(lines(&one, Component::Weights, Phase::Compute), 0);
    // GPTQ kernels multiply without a 16-bit copy
    let gptq = estimate(&Scenario {
        weights: WeightFormat::Gptq4,
        ..s
    })
    .unwrap();
    assert_eq!(lines(&gptq, Component::Weights, Phase::Compute), 0);
}

#[test]
fn modules_to_save_train_full_16_bit_copies_of_the_embeddings_and_the_head_with_their_states() {
    let s = Scenario {
        lora_rank: 8,
        master_weights: false,
        ..preset("qwen2.5-7b", Job::Lora)
    };
    let plain = estimate(&s).unwrap();
    let saved = estimate(&Scenario {
        train_embed_head: true,
        ..s
    })
    .unwrap();
    let copies = 2 * 152_064 * 3_584;
    assert_eq!(saved.trainable - plain.trainable, copies);
    // the copies (2 B), their AdamW moments (2 × 2 B) and, at the step, their gradients (2 B)
    // and the step's temporary (2 B)
    assert_eq!(
        saved.largest(Component::Adapter) - plain.largest(Component::Adapter),
        copies * 2
    );
    assert_eq!(
        lines(&saved, Component::Optimizer, Phase::Always)
            - lines(&plain, Component::Optimizer, Phase::Always),
        copies * 4
    );
    assert_eq!(
        lines(&saved, Component::Gradients, Phase::Step)
            - lines(&plain, Component::Gradients, Phase::Step),
        copies * 2
    );
}

#[test]
fn dora_adds_a_magnitude_per_output_and_keeps_two_outputs_per_adapted_matrix_and_token() {
    let s = Scenario {
        lora_rank: 16,
        lora_targets: crate::scenario::LoraTargets::parse("q,v").unwrap(),
        master_weights: true,
        checkpointing: Checkpointing::None,
        batch: 1,
        seq: 1_024,
        ..preset("llama-3.1-8b", Job::Lora)
    };
    let lora = estimate(&s).unwrap();
    let dora = estimate(&Scenario { dora: true, ..s }).unwrap();
    // magnitudes: q has 4096 outputs, v 1024, in each of 32 layers
    assert_eq!(dora.trainable - lora.trainable, 32 * (4_096 + 1_024));
    // per token and layer: base output (2 B) + fp32 adapter output (4 B) for q and v; plus the
    // column norm's B·A and W + B·A of the largest adapted matrix (q: 4096²) in fp32
    let saved = 1_024 * 32 * (2 + 4) * (4_096 + 1_024);
    let norm = 4_096 * 4_096 * 8;
    assert_eq!(
        dora.largest(Component::Activations) - lora.largest(Component::Activations),
        saved + norm
    );
}

#[test]
fn a_compiled_chunked_loss_keeps_16_bit_logits_where_the_eager_one_keeps_fp32_log_probs() {
    let s = Scenario {
        loss: Loss::Chunked,
        ..llama_3b_full()
    };
    let eager = estimate(&s).unwrap();
    let compiled = estimate(&Scenario {
        loss: Loss::ChunkedCompiled,
        ..s
    })
    .unwrap();
    let (tokens, vocab) = (8_192u64, 128_256u64);
    let chunk = tokens / 8;
    assert_eq!(
        eager.largest(Component::Logits),
        tokens * vocab * 4 + chunk * vocab * 8
    );
    assert_eq!(
        compiled.largest(Component::Logits),
        tokens * vocab * 2 + chunk * vocab * 2
    );
}

#[test]
fn an_fp8_checkpoint_with_16_bit_attention_stores_the_mlp_at_8_bits_and_attention_at_16() {
    let s = Scenario {
        weights: WeightFormat::Fp8,
        ..preset("llama-3.1-8b", Job::Inference)
    };
    let all = estimate(&s).unwrap();
    let mixed = estimate(&Scenario {
        attention_16bit: true,
        ..s
    })
    .unwrap();
    // per layer: q 4096², k and v 4096 × 1024, o 4096²; 32 layers, one more byte each
    let attention = 32 * (2 * 4_096 * 4_096 + 2 * 4_096 * 1_024);
    assert_eq!(
        lines(&mixed, Component::Weights, Phase::Always)
            - lines(&all, Component::Weights, Phase::Always),
        attention
    );
}

#[test]
fn a_static_cache_holds_the_max_model_length_from_the_start_and_gqa_expansion_multiplies_it() {
    let s = Scenario {
        batch: 1,
        seq: 6,
        gen: 300,
        max_model_len: 4_096,
        static_kv: true,
        ..preset("llama-3.1-8b", Job::Inference)
    };
    let b = estimate(&s).unwrap();
    // 4096 tokens × 32 layers × 2 (K, V) × 8 KV heads × 128 × 2 B, alive before the first token
    let grouped = 4_096 * 32 * 2 * 8 * 128 * 2;
    assert_eq!(lines(&b, Component::KvCache, Phase::Always), grouped);
    let expanded = estimate(&Scenario {
        kv_all_heads: true,
        ..s
    })
    .unwrap();
    assert_eq!(
        lines(&expanded, Component::KvCache, Phase::Always),
        grouped * 4
    );
}

#[test]
fn settings_for_another_job_change_nothing() {
    let s = preset("llama-3.1-8b", Job::Inference);
    let b = estimate(&s).unwrap();
    let with = Scenario {
        optimizer_in_backward: true,
        offload_activations: true,
        train_embed_head: true,
        attention_16bit: true,
        quantize_head: true,
        offload: Offload::None,
        ..s
    };
    assert_eq!(estimate(&with).unwrap().total, b.total);
}

#[test]
fn paged_optimizer_states_are_on_the_device_but_not_in_the_allocators_tensors() {
    let plain = Scenario {
        optimizer: Optimizer::AdamW,
        master_weights: true,
        ..llama_3b_full()
    };
    let paged = Scenario {
        paged_optimizer: true,
        ..plain.clone()
    };
    let (p, q) = (estimate(&plain).unwrap(), estimate(&paged).unwrap());
    let unified: u64 = q
        .lines
        .iter()
        .filter(|l| l.pool == Pool::Unified)
        .map(|l| l.bytes)
        .sum();
    // every matrix of 100,000 elements or more: all but the norms, two fp32 moments each
    let n = q.params.total() - q.params.small;
    assert_eq!(unified, n * 2 * 4);
    assert_eq!(q.paged, unified);
    // the allocator sees only the norms' states, and no foreach temporary (bitsandbytes steps in place)
    let in_allocator: u64 = q
        .lines
        .iter()
        .filter(|l| l.component == Component::Optimizer && l.pool == Pool::Allocator)
        .map(|l| l.bytes)
        .sum();
    assert_eq!(in_allocator, q.params.small * 2 * 4);
    assert!(q.tensors + unified <= p.tensors);
    let reserve = q.bytes(Component::Reserve);
    let context = q.bytes(Component::Context);
    assert_eq!(q.total, q.tensors + q.paged + context + reserve);
}

#[test]
fn small_lora_adapters_keep_their_states_in_the_allocator_even_with_a_paged_optimizer() {
    // rank 8 on a 3072-wide model: every A and B has under 100,000 elements
    let s = Scenario {
        lora_rank: 8,
        paged_optimizer: true,
        ..preset("llama-3.2-3b", Job::Lora)
    };
    let b = estimate(&s).unwrap();
    assert_eq!(b.paged, 0);
    let wide = Scenario { lora_rank: 64, ..s };
    assert!(estimate(&wide).unwrap().paged > 0);
}

#[test]
fn vllms_profile_samples_max_num_seqs_sequences_and_v1_does_not_deduct_the_context_again() {
    let v0 = Scenario {
        max_num_seqs: 1_024,
        vllm: crate::scenario::VllmVersion::V0,
        ..preset("llama-3.1-8b", Job::Serving)
    };
    let b0 = estimate(&v0).unwrap();
    // 1024 sequences × 128,256 vocab × (4 B fp32 + 2 B bf16)
    assert_eq!(b0.bytes(Component::Logits), 1_024 * 128_256 * 6);
    let v1 = Scenario {
        vllm: crate::scenario::VllmVersion::V1,
        ..v0
    };
    let b1 = estimate(&v1).unwrap();
    let (f0, f1) = (b0.serving.unwrap(), b1.serving.unwrap());
    // the CUDA context; the graphs (also context lines) come out of neither budget before 0.21
    assert_eq!(f1.kv_pool - f0.kv_pool, v0.context_mib << 20);
    assert!(b0.bytes(Component::Context) > v0.context_mib << 20);
}
