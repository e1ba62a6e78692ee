//! FSDP's `no_sync()` while accumulating gradients, in words: the gradient line says what it
//! counts in both languages (its figures are the memory module's unit tests).

use vram_engine::estimate;
use vram_engine::{
    memory::Msg, scenario::DpFramework, scenario::Zero, Job, ModelChoice, Scenario, Unit,
};
use vram_text::Lang;

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

#[test]
fn the_no_sync_gradient_line_says_the_frozen_weights_are_counted_in_both_languages() {
    let b = estimate(&llama_13b_fsdp(Job::Lora, DpFramework::Fsdp1, true)).unwrap();
    let line = b
        .lines
        .iter()
        .find(|l| {
            l.formula
                .clauses
                .iter()
                .any(|c| c.msg == Msg::FsdpWholeUnitGradients)
        })
        .expect("a whole-unit gradient line");
    let en = vram_text::formula(Lang::En, &line.formula, Unit::Gib);
    let zh = vram_text::formula(Lang::Zh, &line.formula, Unit::Gib);
    assert!(en.contains("frozen weights included"), "{en}");
    assert!(zh.contains("冻结权重也计入"), "{zh}");
}
