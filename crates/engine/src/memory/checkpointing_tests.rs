//! Checkpointing granularities: Megatron's selective recompute drops attention's seq × seq core,
//! torchtitan's operator-level policy keeps every other matmul's output, full checkpointing keeps
//! each layer's input; sequence parallelism splits that input over the tensor-parallel GPUs.

use crate::{memory::*, scenario::*};

fn full_training(checkpointing: Checkpointing, attention: Attention) -> Scenario {
    Scenario {
        model: ModelChoice::Preset("llama-3.1-8b"),
        job: Job::Full,
        batch: 1,
        seq: 4_096,
        checkpointing,
        attention,
        loss: Loss::Fused,
        ..Scenario::default()
    }
}

/// The first count of the activations formula's clause `msg`: the bytes a layer keeps per token.
fn kept_per_token(s: &Scenario, msg: Msg) -> u64 {
    let b = estimate(s).unwrap();
    let line = b
        .lines
        .iter()
        .find(|l| l.component == Component::Activations)
        .expect("an activations line");
    let clause = line
        .formula
        .clauses
        .iter()
        .find(|c| c.msg == msg)
        .unwrap_or_else(|| panic!("no {msg:?} in {:?}", line.formula));
    match clause.args[0] {
        Arg::Count(n) | Arg::Int(n) => n,
        other => panic!("{other:?}"),
    }
}

#[test]
fn op_level_checkpointing_keeps_the_input_the_attention_output_and_every_other_matmul_output() {
    let s = full_training(Checkpointing::Op, Attention::Flash);
    // Llama 3.1 8B, bf16: q (4096), v (1024), gate (14336) and down (4096) of the seven matmuls,
    // the attention output (4096) and its fp32 log-sum-exp per head (32 × 4 B), the layer input
    // (4096)
    let expected = 2 * (4_096 + 1_024 + 14_336 + 4_096) + 2 * 4_096 + 4 * 32 + 2 * 4_096;
    assert_eq!(kept_per_token(&s, Msg::KeptOpOutputs), expected);
}

#[test]
fn op_level_checkpointing_sits_between_no_checkpointing_and_every_layer() {
    let activations = |c| {
        estimate(&full_training(c, Attention::Flash))
            .unwrap()
            .largest(Component::Activations)
    };
    let (none, op, full) = (
        activations(Checkpointing::None),
        activations(Checkpointing::Op),
        activations(Checkpointing::Full),
    );
    assert!(full < op && op < none, "{full} < {op} < {none}");
}

#[test]
fn megatron_selective_recompute_drops_exactly_the_eager_score_matrices() {
    let none = kept_per_token(
        &full_training(Checkpointing::None, Attention::Eager),
        Msg::KeptAll,
    );
    let selective = kept_per_token(
        &full_training(Checkpointing::Selective, Attention::Eager),
        Msg::KeptSelectiveScores,
    );
    // the fp32 softmax and its 16-bit copy for the product with V, 32 heads × 4096 keys
    assert_eq!(none - selective, 32 * 4_096 * (4 + 2));
}

#[test]
fn with_a_fused_attention_kernel_selective_recompute_keeps_what_no_checkpointing_keeps() {
    let none = estimate(&full_training(Checkpointing::None, Attention::Flash)).unwrap();
    let selective = estimate(&full_training(Checkpointing::Selective, Attention::Flash)).unwrap();
    assert_eq!(
        none.largest(Component::Activations),
        selective.largest(Component::Activations)
    );
}

#[test]
fn sequence_parallelism_splits_the_checkpointed_layer_input_over_the_tensor_parallel_gpus() {
    let tp = Scenario {
        gpus: 8,
        tp: 8,
        ..full_training(Checkpointing::Full, Attention::Flash)
    };
    let split = Scenario {
        sequence_parallel: true,
        ..tp.clone()
    };
    assert_eq!(kept_per_token(&tp, Msg::KeptLayerInputs), 2 * 4_096);
    assert_eq!(kept_per_token(&split, Msg::KeptLayerInputs), 2 * 4_096 / 8);
}

#[test]
fn sequence_parallelism_means_nothing_without_tensor_parallelism() {
    let one = full_training(Checkpointing::Full, Attention::Flash);
    let switched = Scenario {
        sequence_parallel: true,
        ..one.clone()
    };
    assert_eq!(
        estimate(&one).unwrap().total,
        estimate(&switched).unwrap().total
    );
}
