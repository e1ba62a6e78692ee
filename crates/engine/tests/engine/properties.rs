//! Properties every valid scenario keeps: share links round-trip, estimates add up and never
//! saturate, memory grows with the work and shrinks with sharding, LoRA and QLoRA save what they
//! promise, and the solver's answer is the boundary of what fits.

use crate::common;

use common::*;
use proptest::prelude::*;
use vram_engine::link::PageSettings;
use vram_engine::*;
use vram_engine::{fit::*, link::*, memory::*, model::*, scenario::*};

/// `s` with Unsloth's loss replaced by a fused one: Unsloth sizes its loss chunks to the memory
/// left free, so a larger step may hold smaller chunks and less in all, by design.
fn without_free_memory_sized_loss(s: Scenario) -> Scenario {
    let loss = if s.loss == Loss::Unsloth {
        Loss::Fused
    } else {
        s.loss
    };
    Scenario { loss, ..s }
}

fn estimate_of(s: &Scenario) -> Breakdown {
    estimate(s).unwrap_or_else(|e| panic!("no estimate ({e}) for {s:?}"))
}

/// The budget of every pipeline stage (one when the layers are not split).
fn stages_of(s: &Scenario) -> Vec<Breakdown> {
    let arch = s.model.architecture().unwrap();
    estimate_stages(s, &arch).unwrap_or_else(|e| panic!("no estimate ({e}) for {s:?}"))
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256),
        failure_persistence: None,
        // the LoRA-vs-full properties filter their draws: long runs need room for the rejects
        max_global_rejects: u32::MAX,
        ..ProptestConfig::default()
    }
}

/// `s` as a full fine-tune and as LoRA, both with a batch and a sequence the engine estimates
/// (under 1 EiB a GPU): a LoRA draw near that bound can be a full fine-tune past it, which the
/// engine refuses (`BeyondHardware`) instead of comparing.
fn full_and_lora(s: &Scenario) -> (Scenario, Scenario) {
    let full = within_bounds(Scenario {
        job: Job::Full,
        ..s.clone()
    });
    let lora = within_bounds(Scenario {
        job: Job::Lora,
        ..full.clone()
    });
    let full = Scenario {
        batch: lora.batch,
        seq: lora.seq,
        gen: lora.gen,
        ..full
    };
    (full, lora)
}

/// A LoRA scenario (the same one makes a full fine-tune by changing the job): 16- or 32-bit
/// base weights, at least one target, ranks up to 512.
fn arb_lora_scenario() -> impl Strategy<Value = Scenario> {
    arb_scenario()
        .prop_map(|s| Scenario {
            job: Job::Lora,
            weights: if s.weights.is_quantized() {
                WeightFormat::Bf16
            } else {
                s.weights
            },
            lora_targets: if s.lora_targets == LoraTargets::empty() {
                LoraTargets::all_linear()
            } else {
                s.lora_targets
            },
            lora_rank: 1 + (s.lora_rank - 1) % 512,
            ..s
        })
        .prop_map(within_bounds)
}

/// `key=value` for one setting of the registry: any key of a choice, a switch either way, a number
/// at the ends of its range or small, LoRA targets (none among them), shares.
fn arb_setting_pair() -> impl Strategy<Value = String> {
    (0..SETTINGS.len()).prop_flat_map(|i| {
        let st = &SETTINGS[i];
        let value = match st.kind {
            SettingKind::Number { min, max, .. } => prop_oneof![
                Just(min),
                Just(max),
                min..=max.min(min.saturating_add(8)),
                (0u32..=6).prop_map(move |e| (1u64 << e).clamp(min, max)),
            ]
            .prop_map(|n| n.to_string())
            .boxed(),
            SettingKind::Choice => proptest::sample::select(st.keys())
                .prop_map(str::to_string)
                .boxed(),
            SettingKind::Switch => proptest::sample::select(vec!["0", "1"])
                .prop_map(str::to_string)
                .boxed(),
            SettingKind::Targets => {
                proptest::sample::select(vec!["", "all", "q,v", "gate", "embed,head"])
                    .prop_map(str::to_string)
                    .boxed()
            }
            SettingKind::Shares => proptest::sample::select(vec!["even", "3,1", "1,1,1"])
                .prop_map(str::to_string)
                .boxed(),
        };
        value.prop_map(move |v| format!("{}={v}", st.key))
    })
}

/// Links that set the settings that conflict (job, formats, GPUs, tensor and pipeline parallel,
/// the optimizer step in backward with accumulation, LoRA targets) among any others.
fn arb_conflicting_link() -> impl Strategy<Value = String> {
    let keyed = |key: &'static str, values: Vec<&'static str>| {
        proptest::option::of(
            proptest::sample::select(values).prop_map(move |v| format!("{key}={v}")),
        )
    };
    let formats = || {
        WeightFormat::ALL
            .iter()
            .map(|f| f.key())
            .collect::<Vec<_>>()
    };
    let conflicts = (
        keyed(
            "m",
            vec![
                "llama-3.1-8b",
                "qwen3-30b-a3b",
                "gpt-oss-20b",
                "deepseek-v3",
            ],
        ),
        keyed("j", Job::ALL.iter().map(|j| j.key()).collect()),
        keyed("w", formats()),
        (
            keyed("we", formats()),
            keyed("wa", formats()),
            keyed("wx", formats()),
            keyed("wh", formats()),
        ),
        keyed("n", vec!["1", "2", "3", "4", "6", "8", "12"]),
        keyed("tp", vec!["1", "2", "3", "4", "8"]),
        keyed("pp", vec!["1", "2", "3", "4"]),
        (
            keyed("obw", vec!["0", "1"]),
            keyed("ga", vec!["1", "2", "4"]),
        ),
        keyed("t", vec!["", "gate", "q,v", "embed"]),
    );
    (
        conflicts,
        proptest::collection::vec(arb_setting_pair(), 0..12),
    )
        .prop_map(
            |((m, j, w, (we, wa, wx, wh), n, tp, pp, (obw, ga), t), others)| {
                [m, j, w, we, wa, wx, wh, n, tp, pp, obw, ga, t]
                    .into_iter()
                    .flatten()
                    .chain(others)
                    .collect::<Vec<_>>()
                    .join("&")
            },
        )
}

proptest! {
    #![proptest_config(config())]

    /// A link's settings either end up working together (the scenario estimates, or is refused
    /// only as beyond any hardware) or the last notice names the conflict left; and each reset
    /// names a setting the link gave, now at its default, a cause of the job the link opens as,
    /// and words for both languages that name the setting.
    #[test]
    fn every_decoded_link_estimates_or_its_last_notice_says_why_not(link in arb_conflicting_link()) {
        let d = vram_engine::link::decode(&link);
        let repairs: Vec<&Repair> = d
            .notices
            .iter()
            .filter_map(|n| match n {
                Notice::Normalized(r) => Some(r),
                _ => None,
            })
            .collect();
        match estimate(&d.scenario) {
            Ok(_) | Err(EngineError::BeyondHardware) => prop_assert!(
                !repairs.iter().any(|r| matches!(r, Repair::Unrepaired(_))),
                "{link}: {:?}", d.notices
            ),
            Err(e) => prop_assert_eq!(
                d.notices.last(),
                Some(&Notice::Normalized(Repair::Unrepaired(e))),
                "{}", link
            ),
        }
        // the job's defaults: a llama.cpp run's weights go back to Q4_K_M, every other job's to bf16
        let default = Scenario::for_job(d.scenario.job);
        for r in repairs {
            let Repair::Reset { cause, setting } = r else { continue };
            let st = Setting::by_key(setting).unwrap();
            prop_assert!(link.split('&').any(|p| p.starts_with(&format!("{setting}="))), "{link}: {r:?}");
            prop_assert_eq!(st.get(&d.scenario), st.get(&default), "{}: {:?}", link, r);
            if let EngineError::FormatNotForJob { job, .. } | EngineError::PartFormatNotForJob { job, .. } = cause {
                prop_assert_eq!(*job, d.scenario.job, "{}: {:?}", link, r);
            }
            for lang in [vram_text::Lang::En, vram_text::Lang::Zh] {
                let words = vram_text::repair(lang, r);
                let named = vram_text::setting_name(lang, setting);
                let lora_default = matches!(cause, EngineError::LoraTargetsAbsent(_));
                prop_assert!(lora_default || words.contains(&named), "{:?} does not name {:?}", words, named);
            }
        }
    }

    #[test]
    fn every_valid_scenario_survives_its_share_link_unchanged_and_without_notices(
        s in arb_scenario(),
        page in arb_page(),
    ) {
        prop_assert!(s.validate().is_ok(), "the strategy made an invalid scenario: {s:?}");
        let q = vram_engine::link::encode(&s, &page);
        let d = vram_engine::link::decode(&q);
        prop_assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
        prop_assert_eq!(&d.scenario, &s, "{}", q);
        prop_assert_eq!(d.page, page);
        // and as a whole URL, as the page shares it
        let url = vram_engine::link::decode(&format!("https://example.invalid/vram/?{q}"));
        prop_assert!(url.notices.is_empty());
        prop_assert_eq!(url.scenario, s);
    }

    #[test]
    fn a_custom_architecture_from_a_config_survives_its_share_link(
        text in arb_config_text(),
        name in arb_name(),
    ) {
        if let Ok(model) = ModelChoice::from_config(&name, &text) {
            let s = Scenario { model, ..Scenario::default() };
            let d = vram_engine::link::decode(&vram_engine::link::encode(&s, &PageSettings::default()));
            prop_assert!(d.notices.is_empty(), "{:?}", d.notices);
            prop_assert_eq!(d.scenario, s);
        }
    }

    #[test]
    fn a_generated_architecture_survives_its_share_link(a in arb_arch()) {
        let text = encode_arch(&a);
        prop_assert_eq!(decode_arch(&text), Ok(a));
    }

    #[test]
    fn every_valid_scenario_has_an_estimate_whose_peak_lines_add_up_to_the_total(s in arb_scenario()) {
        let b = estimate_of(&s);
        for l in &b.lines {
            prop_assert!(l.bytes < SATURATED, "{:?} saturated: {} for {s:?}", l.component, l.bytes);
            prop_assert!(!l.formula.is_empty(), "{:?} has no formula", l.component);
            let formula = vram_text::formula(vram_text::Lang::En, &l.formula, s.unit);
            prop_assert!(!shows_non_finite(&formula), "{}", formula);
        }
        prop_assert!(b.total < SATURATED, "total saturated for {s:?}");
        prop_assert!(b.total >= b.tensors);
        let at_peak: u64 = b.lines.iter().filter(|l| b.at_peak(l)).map(|l| l.bytes).sum();
        prop_assert_eq!(at_peak, b.total);
        for c in Component::ALL {
            prop_assert!(b.bytes(*c) <= b.largest(*c));
        }
        let shown = s.unit.format(b.total);
        prop_assert!(!shows_non_finite(&shown), "{}", shown);
    }

    #[test]
    fn one_more_sequence_in_the_batch_never_lowers_total_memory(s in arb_scenario()) {
        let s = without_free_memory_sized_loss(s);
        let more = Scenario { batch: s.batch + 1, ..s.clone() };
        let (a, b) = (estimate_of(&s), estimate_of(&more));
        prop_assert!(b.total >= a.total, "{} -> {} for {s:?}", a.total, b.total);
    }

    #[test]
    fn twice_the_sequence_length_never_lowers_total_memory(s in arb_scenario()) {
        let s = without_free_memory_sized_loss(s);
        let more = Scenario { seq: s.seq * 2, ..s.clone() };
        let (a, b) = (estimate_of(&s), estimate_of(&more));
        prop_assert!(b.total >= a.total, "{} -> {} for {s:?}", a.total, b.total);
    }

    #[test]
    fn twice_the_gpus_under_zero_3_never_raise_per_gpu_memory(
        s in arb_lora_scenario(),
        job in proptest::sample::select(vec![Job::Full, Job::Lora, Job::Qlora]),
    ) {
        let s = Scenario { job, ..s };
        // from two data-parallel ranks up: with one, ZeRO-3 shards nothing, gathers nothing and
        // gradients need not outlive the step, so the second GPU adds the gathered layers and a
        // persistent gradient buffer (a real cost, not an error)
        let gpus = s.gpus.max(2 * s.tp * s.pp.max(1)).min(2_048);
        // Unsloth's loss sizes its chunks to half the memory left free (up to 4 GiB of logits
        // each): a GPU the sharding frees spends more on the loss, by design
        let loss = if s.loss == Loss::Unsloth { Loss::Fused } else { s.loss };
        let s = Scenario { zero: Zero::Z3, gpus, loss, ..s };
        let more = Scenario { gpus: gpus * 2, ..s.clone() };
        let (a, b) = (estimate_of(&s), estimate_of(&more));
        prop_assert!(b.total <= a.total, "{} -> {} for {s:?}", a.total, b.total);
    }

    #[test]
    fn sharding_over_more_ranks_never_raises_per_gpu_memory_from_two_ranks_up(
        s in arb_lora_scenario(),
        job in proptest::sample::select(vec![Job::Full, Job::Lora, Job::Qlora]),
        zero in proptest::sample::select(Zero::ALL.to_vec()),
        framework in proptest::sample::select(DpFramework::ALL.to_vec()),
        load in proptest::sample::select(WeightsLoad::ALL.to_vec()),
    ) {
        // every framework, strategy and way of loading: its buffers do not grow with the ranks,
        // its shards shrink; a shard group caps the sharding, so leave it to all ranks
        let gpus = s.gpus.max(2 * s.tp * s.pp.max(1)).min(2_048);
        let s = without_free_memory_sized_loss(Scenario {
            job, zero, gpus, dp_framework: framework, weights_load: load, shard_group: 0,
            global_batch: 0, ..s
        });
        let more = Scenario { gpus: gpus * 2, ..s.clone() };
        let (a, b) = (estimate_of(&s), estimate_of(&more));
        prop_assert!(b.total <= a.total, "{} -> {} for {s:?}", a.total, b.total);
        prop_assert!(b.reserved <= a.reserved, "{} -> {} for {s:?}", a.reserved, b.reserved);
    }

    #[test]
    fn a_paged_optimizer_never_raises_the_allocators_reserved_level(
        s in arb_lora_scenario(),
        job in proptest::sample::select(vec![Job::Full, Job::Lora, Job::Qlora]),
    ) {
        let s = without_free_memory_sized_loss(Scenario { job, paged_optimizer: false, ..s });
        // the optimizers bitsandbytes can page: where the registry offers the switch
        prop_assume!((Setting::by_key("po").unwrap().applies)(&s));
        // bitsandbytes' 32-bit optimizers keep fp32 states, small tensors' included, where torch's
        // AdamW over 16-bit values keeps 16-bit ones: compare paged with unpaged at the same
        // state width (fp32 master weights or adapters, fp32 weights, or 8-bit states)
        prop_assume!(
            s.master_weights
                || s.optimizer == Optimizer::AdamW8bit
                || (s.job == Job::Full && s.weights == WeightFormat::Fp32)
        );
        let paged = Scenario { paged_optimizer: true, ..s.clone() };
        let (a, b) = (estimate_of(&s), estimate_of(&paged));
        prop_assert!(b.reserved <= a.reserved, "{} -> {} for {s:?}", a.reserved, b.reserved);
    }

    #[test]
    fn lora_model_states_never_exceed_full_fine_tunings_when_adapters_are_at_most_a_quarter_of_the_model(
        s in arb_lora_scenario(),
    ) {
        // Exceptions, each a real cost of LoRA, not an error of the engine:
        // - offloading: full fine-tuning then keeps only the 16-bit model on the GPU (master,
        //   gradients and optimizer live on the host) while LoRA keeps the same model plus its adapters;
        // - ZeRO-2 over several GPUs: full fine-tuning's gradients, master and optimizer are sharded,
        //   LoRA's adapter weights are replicated on every GPU;
        // - tensor parallelism: the engine splits weights, gradients and optimizer states over the
        //   ranks, but not the adapters (see docs/robustness.md);
        // - the optimizer step in backward: full fine-tuning then never holds its gradient buffer,
        //   and under ZeRO-1 its master and states are sharded while LoRA's adapters are not;
        // - modules_to_save: LoRA then trains full copies of the embeddings and the head on top of
        //   the frozen originals;
        // - pipeline stages: an adapter on the embeddings or the head sits whole on one stage, while
        //   full fine-tuning's states are split stage by stage;
        // - ZeRO-3 / FSDP: each layer is gathered whole for its forward and backward, adapters
        //   included, so when every other state is sharded over hundreds of GPUs LoRA's gathered
        //   layer (frozen weights plus a wide-rank adapter) is larger than full fine-tuning's.
        let s = Scenario {
            offload: Offload::None,
            tp: 1,
            pp: 1,
            zero: if matches!(s.zero, Zero::Z2 | Zero::Z3) { Zero::Z1 } else { s.zero },
            optimizer_in_backward: false,
            train_embed_head: false,
            dora: false,
            ..s
        };
        let (full, lora) = full_and_lora(&s);
        let (f, l) = (estimate_of(&full), estimate_of(&lora));
        // An adapter holds r x (d_in + d_out) values against the matrix's d_in x d_out: a rank near
        // the matrix's width makes LoRA train as many values as full fine-tuning does.
        prop_assume!(4 * l.trainable <= f.trainable);
        let states = |b: &Breakdown| -> u64 {
            [Component::Weights, Component::Adapter, Component::Master, Component::Gradients, Component::Optimizer]
                .iter()
                .map(|c| b.largest(*c))
                .sum()
        };
        // each line rounds up to whole bytes on its own: a few bytes of slack on tiny models
        prop_assert!(states(&l) <= states(&f) + 16, "LoRA {} > full {} for {lora:?}", states(&l), states(&f));
    }

    #[test]
    fn lora_never_needs_more_than_full_fine_tuning_with_16_bit_adapters_and_a_stateful_optimizer(
        s in arb_lora_scenario(),
    ) {
        // The conditions of the model-states property above, and for the activations:
        // - adapters in the compute dtype without dropout: fp32 adapters (master weights) make PEFT
        //   keep an fp32 copy of every adapted module's input, and dropout a dropped copy and a mask
        //   per adapter, where full fine-tuning keeps one 16-bit input shared by q, k and v;
        // - a rank small against the width: each adapter keeps its r-wide middle per token
        //   (r x modules x experts per token), which must stay under the norm inputs full
        //   fine-tuning alone keeps (2 x hidden per layer);
        // - an optimizer with per-parameter state: with plain SGD or Adafactor's factored rows and
        //   columns, full fine-tuning adds almost nothing outside the step, while LoRA's adapter
        //   weights are alive at the forward/backward peak;
        // - no pipeline stages, as above;
        // - no paged optimizer: full fine-tuning's states then leave the caching allocator for
        //   unified memory, and with them the allocator's reserve on them, while LoRA's adapter
        //   weights stay in it and pay the reserve (qwen3-4b, fp32, rank 459, 8-bit AdamW, a
        //   64 % reserve: LoRA 11 MB over full fine-tuning's 67.1 GB).
        let s = Scenario {
            paged_optimizer: false,
            offload: Offload::None,
            tp: 1,
            pp: 1,
            zero: if matches!(s.zero, Zero::Z2 | Zero::Z3) { Zero::Z1 } else { s.zero },
            master_weights: false,
            lora_dropout: false,
            optimizer_in_backward: false,
            train_embed_head: false,
            dora: false,
            optimizer: match s.optimizer {
                Optimizer::Sgd | Optimizer::Adafactor => Optimizer::AdamW,
                o => o,
            },
            ..without_free_memory_sized_loss(s)
        };
        let arch = s.model.architecture().unwrap();
        let routed = arch.moe.as_ref().map_or(1, |m| m.top_k);
        let per_token_modules: u64 = ["q", "k", "v", "o", "gate", "up", "down"]
            .iter()
            .filter(|m| s.lora_targets.contains(m))
            .map(|m| if ["gate", "up", "down"].contains(m) { routed } else { 1 })
            .sum();
        prop_assume!(s.lora_rank * per_token_modules <= 2 * arch.hidden);
        let (full, lora) = full_and_lora(&s);
        let (f, l) = (estimate_of(&full), estimate_of(&lora));
        prop_assume!(4 * l.trainable <= f.trainable);
        prop_assert!(l.total <= f.total + 16, "LoRA {} > full {} for {lora:?}", l.total, f.total);
    }

    #[test]
    fn qlora_weights_never_exceed_lora_weights(s in arb_lora_scenario(), q in proptest::sample::select(quantized())) {
        // the same scenario with its 16- or 32-bit base quantized: the weights kept and a ZeRO-3
        // gather; not the moment bitsandbytes quantizes at load, when one 16-bit matrix passes
        // through the GPU that a sharded or offloaded 16-bit base never holds whole. Without a
        // quantized head or embeddings: on a tied model the other becomes a quantized copy beside
        // the 16-bit one, which outweighs the layers' savings when the layers are few. Without
        // prepare_model_for_kbit_training, which upcasts QLoRA's 16-bit parameters (embeddings,
        // head, norms) to fp32, twice what LoRA keeps of them.
        let s = Scenario {
            quantize_head: false,
            weight_parts: PartFormats::default(),
            kbit_upcast: false,
            ..s
        };
        let lora = s.clone();
        let qlora = Scenario { job: Job::Qlora, weights: q, ..s.clone() };
        // Stage by stage: with the layers split over pipeline stages the busiest stage of the
        // two can differ (QLoRA's activations are not LoRA's), and its weights with it.
        let kept = |b: &Breakdown| -> u64 {
            b.lines
                .iter()
                .filter(|x| x.component == Component::Weights && x.phase != Phase::Load)
                .map(|x| x.bytes)
                .sum()
        };
        for (l, q) in stages_of(&lora).iter().zip(&stages_of(&qlora)) {
            prop_assert!(kept(q) <= kept(l), "stage {}: {} > {} for {qlora:?}", l.stage.index, kept(q), kept(l));
        }
    }

    #[test]
    fn every_suggested_change_makes_the_job_fit_and_none_is_suggested_when_it_fits(s in arb_scenario()) {
        let arch = s.model.architecture().unwrap();
        let b = estimate_with(&s, &arch, false).unwrap();
        let remedies = remedies(&s, &arch, &b);
        if fits(&s, &b, s.gpu) {
            prop_assert!(remedies.is_empty());
        }
        for (r, total) in remedies {
            let t = r.apply(&s).unwrap();
            let bt = estimate_with(&t, &arch, false).unwrap();
            prop_assert_eq!(bt.total, total);
            prop_assert!(fits(&t, &bt, t.gpu), "{:?} does not fit: {:?}", r, t);
        }
    }

    #[test]
    fn the_accumulation_the_solver_gives_is_the_fewest_that_reaches_the_global_batch(
        s in arb_scenario()
    ) {
        let arch = s.model.architecture().unwrap();
        let steps = solve(&s, &arch).into_iter().find_map(|a| match a.reach {
            Reach::Set(SettingValue::Number(n)) if a.question == Question::GradAccum => Some(n),
            _ => None,
        });
        if let Some(steps) = steps {
            let per_step = s.batch * s.data_parallel();
            prop_assert!(steps * per_step >= s.global_batch);
            prop_assert!((steps - 1) * per_step < s.global_batch);
        }
    }

    #[test]
    fn the_solver_asks_only_the_questions_of_the_job(s in arb_scenario()) {
        let arch = s.model.architecture().unwrap();
        for a in solve(&s, &arch) {
            prop_assert!(Question::for_job(s.job).contains(&a.question));
            let setting = Setting::by_key(a.question.setting()).unwrap();
            let changes_the_job_size = matches!(a.question.setting(), "n" | "w");
            prop_assert!(changes_the_job_size || (setting.applies)(&s), "{:?} for {:?}", a, s.job);
        }
    }

    #[test]
    fn verdict_and_headroom_agree_in_sign_on_every_gpu(s in arb_scenario()) {
        let arch = s.model.architecture().unwrap();
        for v in verdicts(&s, &arch).unwrap() {
            prop_assert_eq!(v.fits, v.headroom >= 0 && v.refusal.is_none(), "{:?} for {:?}", v, s);
            prop_assert!(v.budget <= v.capacity);
            if v.fits {
                prop_assert!(v.gpus_needed.is_some_and(|n| n <= s.gpus), "{:?} for {:?}", v, s);
            }
        }
    }
}

#[test]
fn a_servers_longest_max_model_len_stops_at_the_models_own_context() {
    let d = vram_engine::link::decode("?v=1&m=llama-3.1-70b&j=serve&gpu=h100&n=4&tp=4&c=64");
    let arch = d.scenario.model.architecture().unwrap();
    let answer = solve(&d.scenario, &arch)
        .into_iter()
        .find(|a| a.question == Question::MaxModelLen)
        .unwrap();
    assert_eq!(answer.reach, Reach::UpToLimit(131_072));
}
