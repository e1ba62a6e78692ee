//! Pipeline parallelism and layer splits: each stage holds its share of the layers, the first the
//! embeddings, the last the head and the loss; 1F1B keeps up to `pp` micro-batches on the first
//! stage, GPipe all of them; the per-GPU figure is the busiest stage; data-parallel sharding
//! applies within a stage.

use crate::{link::*, memory::*, scenario::*};

fn training(model: &'static str, pp: u64, micro_batches: u64) -> Scenario {
    Scenario {
        model: ModelChoice::Preset(model),
        job: Job::Full,
        batch: 1,
        seq: 2_048,
        grad_accum: micro_batches,
        checkpointing: Checkpointing::None,
        loss: Loss::Full,
        gpus: pp,
        pp,
        ..Scenario::default()
    }
}

fn stages(s: &Scenario) -> Vec<Breakdown> {
    let arch = s.model.architecture().unwrap();
    estimate_stages(s, &arch).unwrap()
}

#[test]
fn the_stages_weights_add_up_to_the_whole_model_when_the_head_is_untied() {
    let whole = estimate(&training("llama-3.1-8b", 1, 1)).unwrap();
    let split = stages(&training("llama-3.1-8b", 4, 1));
    assert_eq!(split.len(), 4);
    let sum: u64 = split.iter().map(|b| b.bytes(Component::Weights)).sum();
    assert_eq!(sum, whole.bytes(Component::Weights));
}

#[test]
fn a_tied_head_is_a_second_copy_on_the_last_training_stage() {
    let whole = estimate(&training("llama-3.2-1b", 1, 1)).unwrap();
    let split = stages(&training("llama-3.2-1b", 2, 1));
    let arch = ModelChoice::Preset("llama-3.2-1b").architecture().unwrap();
    assert!(arch.tied);
    let sum: u64 = split.iter().map(|b| b.bytes(Component::Weights)).sum();
    let copy = arch.vocab * arch.hidden * 2;
    assert_eq!(sum, whole.bytes(Component::Weights) + copy);
}

#[test]
fn only_the_last_training_stage_computes_the_logits() {
    let split = stages(&training("llama-3.1-8b", 4, 1));
    let with_logits: Vec<u64> = split.iter().map(|b| b.largest(Component::Logits)).collect();
    assert!(with_logits[..3].iter().all(|&l| l == 0), "{with_logits:?}");
    assert!(with_logits[3] > 0);
}

#[test]
fn under_1f1b_the_first_stage_keeps_as_many_micro_batches_as_there_are_stages() {
    let split = stages(&training("llama-3.1-8b", 4, 16));
    let in_flight: Vec<u64> = split.iter().map(|b| b.stage.in_flight).collect();
    assert_eq!(in_flight, vec![4, 3, 2, 1]);
    // same layers on each stage: the first holds 4 × the last's kept activations (the last also
    // has its final norm, which the first does not)
    let first = split[0].largest(Component::Activations);
    let last = split[3].largest(Component::Activations);
    assert!(first > 3 * last && first < 4 * last, "{first} vs {last}");
}

#[test]
fn fewer_micro_batches_than_stages_bound_what_1f1b_keeps() {
    let split = stages(&training("llama-3.1-8b", 8, 2));
    assert_eq!(split[0].stage.in_flight, 2);
    assert_eq!(split[7].stage.in_flight, 1);
}

#[test]
fn gpipe_keeps_every_micro_batch_of_the_step_on_every_stage() {
    let mut s = training("llama-3.1-8b", 4, 8);
    s.pipeline_schedule = PipelineSchedule::GPipe;
    let split = stages(&s);
    assert!(split.iter().all(|b| b.stage.in_flight == 8));
    let one_f_one_b = stages(&training("llama-3.1-8b", 4, 8));
    assert_eq!(
        split[0].largest(Component::Activations),
        2 * one_f_one_b[0].largest(Component::Activations)
    );
}

#[test]
fn the_per_gpu_figure_is_the_busiest_stage() {
    for pp in [2, 4, 8] {
        for m in [1, 4, 32] {
            let s = training("llama-3.1-8b", pp, m);
            let busiest = stages(&s).iter().map(|b| b.total).max().unwrap();
            assert_eq!(estimate(&s).unwrap().total, busiest, "pp {pp}, m {m}");
        }
    }
}

#[test]
fn the_busiest_stage_still_reports_the_whole_models_parameters() {
    let s = training("llama-3.1-8b", 4, 4);
    let b = estimate(&s).unwrap();
    assert_eq!(b.params.total(), 8_030_261_248);
    assert_eq!(b.trainable, 8_030_261_248);
}

#[test]
fn inference_split_by_layers_reports_the_fullest_gpu_not_the_average() {
    let s = Scenario {
        model: ModelChoice::Preset("llama-3.1-70b"),
        job: Job::Inference,
        batch: 1,
        seq: 1_000,
        gen: 100,
        gpus: 4,
        pp: 4,
        ..Scenario::default()
    };
    let whole = estimate(&Scenario {
        gpus: 1,
        pp: 1,
        ..s.clone()
    })
    .unwrap();
    let per_gpu = estimate(&s).unwrap().bytes(Component::Weights);
    let average = whole.bytes(Component::Weights) / 4;
    assert!(per_gpu > average, "{per_gpu} vs {average}");
    // the fullest GPU holds 20 of 80 layers and one end of the model: the 128k × 8192 embeddings
    // or head (2.1 GB in bf16)
    let arch = ModelChoice::Preset("llama-3.1-70b").architecture().unwrap();
    let end = arch.vocab * arch.hidden * 2;
    assert!(per_gpu.abs_diff(average + end / 2) < end, "{per_gpu}");
}

#[test]
fn a_split_inference_model_keeps_each_layers_kv_cache_on_its_own_gpu() {
    let s = Scenario {
        model: ModelChoice::Preset("llama-3.1-8b"),
        job: Job::Inference,
        batch: 8,
        seq: 8_000,
        gen: 1_000,
        gpus: 4,
        pp: 4,
        ..Scenario::default()
    };
    let whole = estimate(&Scenario {
        gpus: 1,
        pp: 1,
        ..s.clone()
    })
    .unwrap();
    let split = stages(&s);
    let kv: u64 = split.iter().map(|b| b.largest(Component::KvCache)).sum();
    assert_eq!(kv, whole.largest(Component::KvCache));
}

#[test]
fn a_tied_inference_model_computes_its_head_beside_the_embeddings() {
    let s = Scenario {
        model: ModelChoice::Preset("llama-3.2-1b"),
        job: Job::Inference,
        gpus: 2,
        pp: 2,
        ..Scenario::default()
    };
    let split = stages(&s);
    assert!(split[0].largest(Component::Logits) > 0);
    assert_eq!(split[1].largest(Component::Logits), 0);
    let whole = estimate(&Scenario {
        gpus: 1,
        pp: 1,
        ..s.clone()
    })
    .unwrap();
    let sum: u64 = split.iter().map(|b| b.bytes(Component::Weights)).sum();
    assert_eq!(sum, whole.bytes(Component::Weights));
}

#[test]
fn zero_shards_model_states_only_among_the_data_parallel_ranks_of_a_stage() {
    // 16 GPUs = 2 stages × 2 tensor-parallel × 4 data-parallel
    let s = Scenario {
        gpus: 16,
        tp: 2,
        pp: 2,
        zero: Zero::Z1,
        ..training("llama-3.1-8b", 2, 2)
    };
    let b = estimate(&s).unwrap();
    let one_rank = Scenario {
        gpus: 4,
        zero: Zero::Z0,
        ..s.clone()
    };
    let unsharded = estimate(&one_rank).unwrap();
    assert_eq!(b.stage.index, unsharded.stage.index);
    let ratio = unsharded.bytes(Component::Optimizer) as f64 / b.bytes(Component::Optimizer) as f64;
    assert!((ratio - 4.0).abs() < 1e-3, "{ratio}");
}

#[test]
fn gpus_that_do_not_split_into_stages_are_refused_and_normalized_away() {
    let mut s = Scenario {
        gpus: 8,
        tp: 2,
        pp: 3,
        ..training("llama-3.1-8b", 1, 1)
    };
    assert_eq!(
        s.validate(),
        Err(EngineError::PpDoesNotDivide {
            gpus: 8,
            tp: 2,
            pp: 3
        })
    );
    s.normalize();
    assert_eq!((s.tp, s.pp), (2, 1));
}

#[test]
fn a_server_split_over_pipeline_stages_needs_a_gpu_per_stage_and_holds_less_on_each() {
    // vLLM --pipeline-parallel-size: one worker (GPU) per stage
    let s = Scenario {
        job: Job::Serving,
        gpus: 1,
        pp: 4,
        ..Scenario::default()
    };
    assert!(matches!(
        estimate(&s),
        Err(EngineError::PpDoesNotDivide { .. })
    ));
    let split = Scenario {
        gpus: 4,
        ..s.clone()
    };
    let unsplit = Scenario { pp: 1, ..s.clone() };
    assert!(estimate(&split).unwrap().total < estimate(&unsplit).unwrap().total);
}

#[test]
fn splitting_a_model_over_more_stages_never_raises_the_per_gpu_figure_without_accumulation() {
    for model in ["llama-3.1-8b", "qwen2.5-7b", "llama-3.2-1b"] {
        let mut last = estimate(&training(model, 1, 1)).unwrap().total;
        for pp in [2, 4, 8] {
            let now = estimate(&training(model, pp, 1)).unwrap().total;
            assert!(now < last, "{model}: pp {pp} {now} ≥ {last}");
            last = now;
        }
    }
}

#[test]
fn a_pipeline_link_round_trips_through_its_keys() {
    let s = Scenario {
        pipeline_schedule: PipelineSchedule::GPipe,
        ..training("llama-3.1-8b", 4, 8)
    };
    let link = crate::link::encode(&s, &PageSettings::default());
    assert!(
        link.contains("pp=4") && link.contains("pps=gpipe"),
        "{link}"
    );
    assert_eq!(crate::link::decode(&link).scenario, s);
}

#[test]
fn interleaving_two_chunks_holds_the_warm_up_chunks_of_the_first_gpu() {
    // 4 GPUs × 2 chunks of 4 layers (Llama 3.1 8B's 32): GPU 0 runs (2 − 1) × 4 + 2 × 3 warm-up
    // chunk-forwards and the one its first backward needs, 11 chunk-micro-batches of 4 layers
    let s = Scenario {
        pipeline_schedule: PipelineSchedule::Interleaved,
        virtual_stages: 2,
        ..training("llama-3.1-8b", 4, 8)
    };
    let arch = s.model.architecture().unwrap();
    let first = PipelineStage::of(&s, &arch, 0);
    assert_eq!((first.layers, first.chunks, first.in_flight), (8, 2, 11));
    assert_eq!(first.layers_in_flight(first.layers), 44);
    // 1F1B holds 4 micro-batches of its 8 layers: 32
    let plain = PipelineStage::of(&training("llama-3.1-8b", 4, 8), &arch, 0);
    assert_eq!(plain.layers_in_flight(plain.layers), 32);
}

#[test]
fn interleaved_chunks_still_add_up_to_the_whole_model() {
    let s = Scenario {
        pipeline_schedule: PipelineSchedule::Interleaved,
        virtual_stages: 3,
        ..training("llama-3.1-8b", 4, 8)
    };
    let whole = estimate(&training("llama-3.1-8b", 1, 1)).unwrap();
    let split = stages(&s);
    let layers: u64 = split.iter().map(|b| b.stage.layers).sum();
    assert_eq!(layers, 32);
    let sum: u64 = split.iter().map(|b| b.bytes(Component::Weights)).sum();
    assert_eq!(sum, whole.bytes(Component::Weights));
}

#[test]
fn few_micro_batches_bound_what_the_interleaved_schedule_keeps() {
    let s = Scenario {
        pipeline_schedule: PipelineSchedule::Interleaved,
        virtual_stages: 2,
        ..training("llama-3.1-8b", 8, 2)
    };
    let arch = s.model.architecture().unwrap();
    assert_eq!(PipelineStage::of(&s, &arch, 0).in_flight, 4);
}
