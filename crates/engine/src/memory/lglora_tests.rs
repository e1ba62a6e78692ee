//! FSDP's `no_sync()` while accumulating gradients (Lightning Fabric's `no_backward_sync`, as
//! lit-gpt's finetune scripts use it): each test checks the gradient line against a figure
//! computed by hand from the architecture's parameter counts.

use crate::{estimate, Breakdown};
use crate::{scenario::DpFramework, scenario::Zero, Component, Job, ModelChoice, Phase, Scenario};

/// Llama 2 13B in pure bf16, FULL_SHARD over four GPUs, eight micro-batches a step.
fn llama_13b_fsdp(job: Job, framework: DpFramework, no_sync: bool) -> Scenario {
    Scenario {
        model: ModelChoice::Preset("llama-2-13b"),
        job,
        master_weights: false,
        gpus: 4,
        zero: Zero::Z3,
        dp_framework: framework,
        grad_accum: 8,
        fsdp_no_sync: no_sync,
        ..Scenario::default()
    }
}

fn gradients(b: &Breakdown) -> u64 {
    b.lines
        .iter()
        .filter(|l| l.component == Component::Gradients && l.phase == Phase::Compute)
        .map(|l| l.bytes)
        .sum()
}

/// The gradient bytes `no_sync` adds to the same job.
fn added_by_no_sync(job: Job, framework: DpFramework) -> u64 {
    let on = estimate(&llama_13b_fsdp(job, framework, true)).unwrap();
    let off = estimate(&llama_13b_fsdp(job, framework, false)).unwrap();
    gradients(&on) - gradients(&off)
}

/// Parameters of the decoder layers (all but the embeddings and the head) of Llama 2 13B.
fn llama_13b_layer_params() -> u64 {
    let p = ModelChoice::Preset("llama-2-13b")
        .architecture()
        .unwrap()
        .params();
    p.total() - p.embedding - p.head
}

#[test]
fn lora_adapters_inside_fsdp1_units_keep_the_layers_whole_unsharded_gradient_under_no_sync() {
    let s = llama_13b_fsdp(Job::Lora, DpFramework::Fsdp1, true);
    let b = estimate(&s).unwrap();
    let adapters = b.trainable;
    let expected = (llama_13b_layer_params() + adapters) * 2;
    assert_eq!(added_by_no_sync(Job::Lora, DpFramework::Fsdp1), expected);
    // 40 layers of 5120² × 4 + 3 × 5120 × 13,824 weights and two norms: about 23.6 GiB in bf16
    assert!(expected > 25_000_000_000 && expected < 26_000_000_000);
}

#[test]
fn fsdp2_shards_per_parameter_so_lora_under_no_sync_keeps_only_the_adapters_gradients() {
    let b = estimate(&llama_13b_fsdp(Job::Lora, DpFramework::Fsdp2, true)).unwrap();
    assert_eq!(
        added_by_no_sync(Job::Lora, DpFramework::Fsdp2),
        b.trainable * 2
    );
}

#[test]
fn a_full_fine_tune_under_no_sync_keeps_every_trainable_parameters_unsharded_gradient() {
    let b = estimate(&llama_13b_fsdp(Job::Full, DpFramework::Fsdp1, true)).unwrap();
    assert_eq!(
        added_by_no_sync(Job::Full, DpFramework::Fsdp1),
        b.trainable * 2
    );
}

#[test]
fn no_sync_adds_nothing_when_every_micro_batch_is_a_step() {
    let on = Scenario {
        grad_accum: 1,
        ..llama_13b_fsdp(Job::Lora, DpFramework::Fsdp1, true)
    };
    let off = Scenario {
        fsdp_no_sync: false,
        ..on.clone()
    };
    assert_eq!(
        estimate(&on).unwrap().tensors,
        estimate(&off).unwrap().tensors
    );
}
