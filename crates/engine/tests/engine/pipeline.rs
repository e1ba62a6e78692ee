//! Pipeline stages in the solver's answers, and the words that say them.

use vram_engine::*;
use vram_engine::{fit::*, memory::*};

#[test]
fn the_fewest_gpus_for_a_server_with_pipeline_stages_say_the_pipeline_they_drop() {
    // found by the property tests: a vLLM server on two pipeline stages asked how few GPUs hold
    // its requests; the answer was tensor parallelism over as many GPUs as it counted, which the
    // two stages do not divide, because the answer left the stages as they were
    let s = Scenario {
        model: ModelChoice::Preset("qwen3-8b"),
        job: Job::Serving,
        weights: WeightFormat::Fp32,
        gpus: 2,
        pp: 2,
        concurrency: 64,
        avg_tokens: 18_439,
        max_model_len: 80,
        gpu_util_pct: 78,
        gpu: Gpu::H200,
        ..Scenario::default()
    };
    let arch = s.model.architecture().unwrap();
    let asked = solve(&s, &arch)
        .into_iter()
        .find(|a| a.question == Question::FewestGpusForRequests)
        .unwrap();
    let Reach::Set(SettingValue::Number(n)) = asked.reach else {
        panic!("{asked:?}");
    };
    assert!(
        asked.with.contains(&("pp", SettingValue::Number(1))),
        "{asked:?}"
    );
    let t = asked.apply(&s).unwrap();
    assert_eq!((t.gpus, t.pp), (n, 1));
    let b = estimate_with(&t, &arch, false).unwrap();
    assert!(fits(&t, &b, t.gpu), "{t:?}");
    assert!(vram_text::answer(vram_text::Lang::En, &asked).ends_with(", pp 1)"));
}
