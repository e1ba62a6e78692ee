use super::*;
use crate::dtype::WeightFormat;
use crate::gpus::Gpu;
use crate::hub::HubSource;
use crate::model::{encode_arch, Architecture, StoredWeights};
use crate::scenario::{Job, LoraTargets, ModelChoice, Zero};
use crate::scenario::{SettingKind, SettingValue};

#[test]
fn the_default_scenario_encodes_to_a_short_link() {
    let q = encode(&Scenario::default(), &PageSettings::default());
    assert_eq!(q, "v=1&m=llama-3.1-8b");
}

#[test]
fn a_link_round_trips_every_changed_setting() {
    let s = Scenario {
        job: Job::Full,
        batch: 7,
        zero: Zero::Z3,
        gpus: 8,
        gpu: Gpu::H100,
        lora_targets: LoraTargets::parse("q,v").unwrap(),
        master_weights: false,
        lora_dropout: true,
        ..Scenario::default()
    };
    let page = PageSettings {
        lang: Some("zh"),
        measured: None,
        hub_endpoint: None,
    };
    let d = decode(&format!("https://example.invalid/?{}", encode(&s, &page)));
    assert_eq!(d.notices, Vec::<Notice>::new());
    assert_eq!(d.scenario, s);
    assert_eq!(d.page, page);
}

#[test]
fn a_custom_architecture_travels_in_the_link() {
    let mut s = Scenario::default();
    let arch = crate::config::parse_config(r#"{"model_type":"mixtral","vocab_size":32000,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"num_local_experts":8,"num_experts_per_tok":2,"tie_word_embeddings":false,"sliding_window":4096,"max_position_embeddings":32768}"#).unwrap();
    s.model = ModelChoice::Custom {
        name: "my <b>model</b>".into(),
        arch: Box::new(arch),
        source: None,
    };
    let d = decode(&encode(&s, &PageSettings::default()));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario, s);
}

#[test]
fn a_hub_model_travels_with_its_exact_bytes_its_revision_and_the_day_it_was_read() {
    let mut arch = Architecture::llama(128_256, 4_096, 14_336, 32, 32, 8, false);
    arch.stored = Some(StoredWeights {
        format: WeightFormat::Gptq4,
        bytes: 5_734_532_096,
    });
    let s = Scenario {
        model: ModelChoice::Custom {
            name: "org/Llama-GPTQ".into(),
            arch: Box::new(arch),
            source: Some(HubSource {
                repo: "org/Llama-GPTQ".into(),
                revision: "0123456789abcdef0123456789abcdef01234567".into(),
                read_on: "2026-12-01".into(),
            }),
        },
        weights: WeightFormat::Gptq4,
        job: Job::Inference,
        ..Scenario::default()
    };
    let q = encode(&s, &PageSettings::default());
    assert!(q.contains("_wf9_wb5734532096"), "{q}");
    assert!(q.contains("&hfd=2026-12-01"), "{q}");
    let d = decode(&q);
    assert_eq!(d.notices, Vec::<Notice>::new());
    assert_eq!(d.scenario, s);
}

#[test]
fn a_hub_id_without_its_architecture_or_with_a_bad_date_is_a_notice() {
    let alone = decode("hf=org/m@main&hfd=2026-12-01");
    assert_eq!(alone.scenario.model, Scenario::default().model);
    assert_eq!(alone.notices.len(), 1, "{:?}", alone.notices);
    let cfg = encode_arch(&Architecture::llama(
        32_000, 4_096, 11_008, 32, 32, 32, false,
    ));
    let bad_date = decode(&format!("cfg={cfg}&hf=org/m@main&hfd=2026-02-30"));
    assert!(matches!(
        &bad_date.scenario.model,
        ModelChoice::Custom { source: None, .. }
    ));
    assert!(matches!(
        bad_date.notices.as_slice(),
        [Notice::Ignored {
            why: Ignored::BadHubSource,
            ..
        }]
    ));
    let half = decode(&format!("cfg={cfg}_wb100"));
    assert_eq!(
        half.notices,
        vec![Notice::BadArchitecture(EngineError::BadArchField(
            "wf".into()
        ))]
    );
}

#[test]
fn unknown_keys_and_bad_values_are_reported_and_take_defaults() {
    let d = decode("?v=1&b=abc&zzz=1&w=int3&s=0&gpu=h100");
    assert_eq!(d.scenario.batch, Scenario::default().batch);
    assert_eq!(d.scenario.weights, Scenario::default().weights);
    assert_eq!(d.scenario.seq, Scenario::default().seq);
    assert_eq!(d.scenario.gpu, Gpu::H100);
    assert_eq!(d.notices.len(), 4, "{:?}", d.notices);
}

#[test]
fn a_link_with_conflicting_settings_is_repaired_with_a_notice() {
    let d = decode("j=full&w=nf4");
    assert_eq!(d.scenario.job, Job::Full);
    assert_eq!(d.scenario.weights, WeightFormat::Bf16);
    assert_eq!(d.notices.len(), 1);
}

#[test]
fn the_optimizer_step_in_backward_with_accumulation_is_turned_off_and_accumulation_kept() {
    let d = decode("j=full&obw=1&ga=4&dora=1");
    assert!(!d.scenario.optimizer_in_backward);
    assert_eq!(d.scenario.grad_accum, 4);
    assert!(d.scenario.dora);
    assert_eq!(d.notices.len(), 1, "{:?}", d.notices);
    assert_eq!(
        d.notices[0],
        Notice::Normalized(Repair::Reset {
            cause: EngineError::StepInBackwardAccumulates { steps: 4 },
            setting: "obw"
        })
    );
}

#[test]
fn every_switch_travels_in_the_link_and_a_bad_value_is_reported() {
    let mut s = Scenario::default();
    for st in SETTINGS.iter().filter(|st| st.kind == SettingKind::Switch) {
        let on = st.get(&s) == SettingValue::On(true);
        st.set(&mut s, SettingValue::On(!on));
    }
    let d = decode(&encode(&s, &PageSettings::default()));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario, s);
    let bad = decode("ks=yes&kvh=2");
    assert_eq!(bad.notices.len(), 2, "{:?}", bad.notices);
    assert!(!bad.scenario.static_kv && !bad.scenario.kv_all_heads);
}

#[test]
fn an_overlong_link_is_refused_not_parsed() {
    let d = decode(&format!("b={}", "9".repeat(MAX_LINK_CHARS)));
    assert_eq!(d.scenario, Scenario::default());
    assert_eq!(
        d.notices,
        vec![Notice::TooLong {
            max: MAX_LINK_CHARS
        }]
    );
}

#[test]
fn a_measurement_travels_in_the_link_under_ms_and_reads_back_equal() {
    let m = crate::measured::parse(
        "model weights take 14.96GiB; non_torch_memory takes 1.79GiB; PyTorch activation peak memory takes 1.26GiB; the rest of the memory reserved for KV Cache is 53.29GiB.",
    )
    .unwrap();
    let page = PageSettings {
        lang: None,
        measured: Some(m),
        hub_endpoint: None,
    };
    let q = encode(&Scenario::default(), &page);
    assert!(q.starts_with("v=1&m=llama-3.1-8b&ms=1"), "{q}");
    let d = decode(&q);
    assert_eq!(d.notices, Vec::<Notice>::new());
    assert_eq!(d.page, page);
}

#[test]
fn a_bad_measurement_in_the_link_is_a_notice_and_the_rest_of_the_link_is_read() {
    let d = decode("b=7&ms=1z~zz~&lang=zh");
    assert_eq!(d.scenario.batch, 7);
    assert_eq!(d.page.lang, Some("zh"));
    assert_eq!(d.page.measured, None);
    assert_eq!(
        d.notices,
        vec![Notice::BadMeasurement(MeasureError::BadLink)]
    );
    let long = decode(&format!("ms=1{}", "0".repeat(400)));
    assert_eq!(
        long.notices,
        vec![Notice::BadMeasurement(MeasureError::BadLink)]
    );
}

#[test]
fn parameter_counts_read_with_suffixes() {
    assert_eq!(parse_param_count("7B").unwrap(), 7_000_000_000);
    assert_eq!(parse_param_count("1.5b").unwrap(), 1_500_000_000);
    assert!(parse_param_count("lots").is_err());
}

#[test]
fn a_mirror_endpoint_travels_in_the_link_and_the_default_or_a_bad_one_does_not() {
    let mirror = HubEndpoint::parse("https://hf-mirror.com").unwrap();
    let page = PageSettings {
        hub_endpoint: Some(mirror.clone()),
        ..PageSettings::default()
    };
    let q = encode(&Scenario::default(), &page);
    assert!(q.contains("hfe=https%3A%2F%2Fhf-mirror.com"), "{q}");
    assert_eq!(decode(&q).page.hub_endpoint, Some(mirror));
    let default = PageSettings {
        hub_endpoint: Some(HubEndpoint::default()),
        ..PageSettings::default()
    };
    assert!(!encode(&Scenario::default(), &default).contains("hfe="));
    assert_eq!(
        decode("hfe=https%3A%2F%2Fhuggingface.co").page.hub_endpoint,
        None
    );
    let bad = decode("hfe=ftp%3A%2F%2Fx");
    assert_eq!(bad.page.hub_endpoint, None);
    assert!(matches!(
        bad.notices.as_slice(),
        [Notice::Ignored {
            why: Ignored::BadHubEndpoint,
            ..
        }]
    ));
}
