//! The settings registry walked setting by setting: a value other than the default travels
//! through a link and back, and every value a setting refuses is refused with its range.

use vram_engine::{
    link::PageSettings, scenario::Refusal, Scenario, Setting, SettingKind, SettingValue, SETTINGS,
};

/// A scenario with one setting moved off its default (and, for the tensor-parallel degree and
/// the pipeline stages, GPUs for them to divide), with the value as the link writes it.
fn moved(st: &vram_engine::Setting) -> (Scenario, String) {
    let mut s = Scenario::default();
    if st.key == "tp" || st.key == "pp" {
        s.gpus = 64;
    }
    let default = st.text(&s);
    let other = match st.kind {
        SettingKind::Number { min, max, .. } => {
            let d: u64 = default.parse().unwrap();
            if d < max { d + 1 } else { min }.to_string()
        }
        SettingKind::Choice => st
            .offered(&s)
            .into_iter()
            .find(|k| *k != default)
            .expect("a second choice")
            .to_string(),
        SettingKind::Switch => if default == "1" { "0" } else { "1" }.to_string(),
        SettingKind::Targets => "q,v".to_string(),
        SettingKind::Shares => "3,1".to_string(),
    };
    st.apply(&mut s, &other).unwrap();
    (s, other)
}

#[test]
fn every_setting_moved_off_its_default_travels_through_a_link_and_back() {
    for st in SETTINGS {
        let (s, value) = moved(st);
        let link = vram_engine::link::encode(&s, &PageSettings::default());
        assert!(
            link.split('&')
                .any(|kv| kv == format!("{}={value}", st.key)),
            "{}: {link}",
            st.key
        );
        let back = vram_engine::link::decode(&link);
        assert!(back.notices.is_empty(), "{}: {:?}", st.key, back.notices);
        assert_eq!(back.scenario, s, "{}", st.key);
        assert_eq!(st.text(&back.scenario), value, "{}", st.key);
    }
}

#[test]
fn a_number_one_past_either_end_of_its_range_is_refused_with_the_range() {
    for st in SETTINGS {
        let Some((min, max)) = st.range() else {
            continue;
        };
        let refused = Err(Refusal::OutOfRange { min, max });
        assert_eq!(st.parse(&(max + 1).to_string()), refused, "{}", st.key);
        if min > 0 {
            assert_eq!(st.parse(&(min - 1).to_string()), refused, "{}", st.key);
        }
        assert_eq!(st.parse(&max.to_string()), Ok(SettingValue::Number(max)));
    }
}

#[test]
fn keys_flags_and_ids_are_each_unique() {
    for (i, a) in SETTINGS.iter().enumerate() {
        for b in &SETTINGS[i + 1..] {
            assert_ne!(a.key, b.key);
            assert_ne!(a.flag, b.flag);
            assert_ne!(a.id, b.id);
        }
    }
}

#[test]
fn every_setting_writes_back_what_it_reads() {
    let d = Scenario::default();
    for st in SETTINGS {
        let mut s = d.clone();
        st.apply(&mut s, &st.text(&d)).unwrap();
        assert_eq!(s, d, "{}", st.key);
    }
}

#[test]
fn a_number_outside_its_range_is_refused_with_the_range() {
    let b = Setting::by_key("b").unwrap();
    assert_eq!(
        b.parse("0"),
        Err(Refusal::OutOfRange {
            min: 1,
            max: 1 << 20
        })
    );
    assert_eq!(b.parse("-3"), b.parse("0"));
    assert_eq!(b.parse("12"), Ok(SettingValue::Number(12)));
}
