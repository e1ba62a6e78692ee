//! The hybrid config fixtures' parameter counts against transformers' own: each model built on
//! PyTorch's meta device by `tools/params/count_params.py` (`make params`), its counts kept in
//! tests/fixtures/hybrid/transformers_params.json. This test needs no Python.

use std::path::{Path, PathBuf};

use vram_engine::hub::parse_config;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hybrid")
}

/// Every config fixture, named as the record names it: its path under the fixtures folder
/// without `.json`.
fn configs() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for folder in ["", "variants"] {
        for entry in std::fs::read_dir(fixtures().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.extension().is_some_and(|e| e == "json") && stem != "transformers_params" {
                let name = match folder {
                    "" => stem,
                    _ => format!("{folder}/{stem}"),
                };
                out.push((name, path));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_hybrid_fixture_has_the_parameter_count_transformers_builds_on_the_meta_device() {
    let text = std::fs::read_to_string(fixtures().join("transformers_params.json")).unwrap();
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    let counts = record["counts"].as_object().unwrap();
    let configs = configs();
    // a fixture without a count in the record (or a count without its fixture) fails here:
    // rerun `make params`
    let names: Vec<&String> = configs.iter().map(|(n, _)| n).collect();
    let mut recorded: Vec<&String> = counts.keys().collect();
    recorded.sort();
    assert_eq!(names, recorded);
    let mut wrong = Vec::new();
    for (name, path) in &configs {
        let arch = parse_config(&std::fs::read_to_string(path).unwrap()).unwrap();
        let expected = counts[name.as_str()]["params"].as_u64().unwrap();
        let ours = arch.params().total();
        if ours != expected {
            wrong.push(format!("{name}: engine {ours}, transformers {expected}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!(configs.len(), 14);
}

#[test]
fn every_hybrid_fixture_and_variant_travels_through_the_link_form_unchanged() {
    for (name, path) in configs() {
        let arch = parse_config(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let back =
            vram_engine::model::decode_arch(&vram_engine::model::encode_arch(&arch)).unwrap();
        assert_eq!(back, arch, "{name}");
    }
}
