//! Fuzzing what `--hf` (and later the page) reads from the network: safetensors headers, the
//! index, the Hub's file listing, model ids and URLs, endpoints and link sources. Arbitrary
//! bytes, random JSON, and mutations of real rebuilt headers (bytes flipped, cut, lengths
//! changed). Nothing panics, and whatever is accepted is consistent: tensors tile the data, the
//! sums add up, and built URLs stay on the endpoint.
//! `FUZZ_CASES` sets the cases per target (default 1,000).

use vram_test_support::checkpoints;

use crate::hub::*;
use crate::safetensors::{header_length, is_shard_name, size_weights};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000)
}

/// A small rebuilt checkpoint's header: Llama-2-7B's first tensors, GPTQ-packed.
fn seed_header() -> Vec<u8> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hub");
    let text = checkpoints::config_text(&dir, "llama-2-7b-gptq");
    let cfg: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tensors = checkpoints::tensors(&cfg, checkpoints::Storage::Gptq);
    checkpoints::header_bytes(&tensors[..12], &[("format", "pt")])
}

/// What an accepted header must satisfy.
fn check_accepted(h: &SafetensorsHeader) -> Result<(), TestCaseError> {
    let mut end = 0;
    for t in h.tensors() {
        prop_assert_eq!(t.offset(), end);
        prop_assert_eq!(
            u128::from(t.bytes()) * 8,
            u128::from(t.elements()) * u128::from(t.dtype().bits())
        );
        end += t.bytes();
    }
    prop_assert_eq!(h.data_bytes(), end);
    let w = size_weights(h.tensors().iter(), 4);
    prop_assert_eq!(w.total.bytes, end);
    prop_assert_eq!(w.total.tensors, h.tensors().len() as u64);
    prop_assert_eq!(w.by_role.iter().map(|(_, t)| t.bytes).sum::<u64>(), end);
    Ok(())
}

fn mutate(mut bytes: Vec<u8>, edits: &[(usize, u8)], cut: usize) -> Vec<u8> {
    for (at, b) in edits {
        let n = bytes.len();
        bytes[at % n] = *b;
    }
    bytes.truncate(bytes.len().saturating_sub(cut));
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_never_panic_the_header_reader(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Ok(h) = read_safetensors(&bytes) {
            check_accepted(&h)?;
        }
        let _ = header_length(&bytes);
    }

    #[test]
    fn mutated_real_headers_are_read_consistently_or_refused(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        cut in prop_oneof![Just(0usize), 0usize..64],
    ) {
        let bytes = mutate(seed_header(), &edits, cut);
        match read_safetensors(&bytes) {
            Ok(h) => check_accepted(&h)?,
            Err(SafetensorsError::NeedMoreBytes { needed }) => prop_assert!(needed > bytes.len() as u64),
            Err(_) => {}
        }
    }

    #[test]
    fn header_shaped_json_never_panics(
        dtype in prop_oneof![Just("F16".to_string()), Just("F4".to_string()), Just("U8".to_string()), ".{0,6}"],
        shape in proptest::collection::vec(prop_oneof![0u64..10, any::<u64>()], 0..20),
        begin in prop_oneof![Just(0u64), any::<u64>()],
        end in any::<u64>(),
        name in ".{0,30}",
    ) {
        let shape: Vec<String> = shape.iter().map(u64::to_string).collect();
        let json = format!(
            "{{{:?}:{{\"dtype\":{dtype:?},\"shape\":[{}],\"data_offsets\":[{begin},{end}]}}}}",
            name,
            shape.join(",")
        );
        if let Ok(h) = read_header_json(json.as_bytes()) {
            check_accepted(&h)?;
        }
    }

    #[test]
    fn indexes_and_listings_never_panic_and_name_only_plain_files(text in ".{0,300}", file in ".{0,40}") {
        let _ = read_index(&text);
        let index = format!("{{\"weight_map\":{{\"a\":{file:?}}}}}");
        if let Ok(i) = read_index(&index) {
            prop_assert!(i.shards().iter().all(|s| is_shard_name(s) && !s.contains("..")));
        }
        let listing = format!("{{\"siblings\":[{{\"rfilename\":{file:?}}}]}}");
        if let Ok(l) = read_listing(&listing) {
            prop_assert!(l.files.iter().all(|f| !f.split('/').any(|p| p == "..") && !f.contains('?')));
        }
        let _ = read_listing(&text);
    }

    #[test]
    fn ids_and_endpoints_build_urls_that_stay_on_the_endpoint(id in ".{0,80}", endpoint in ".{0,40}") {
        let hub = HubEndpoint::parse(&endpoint).unwrap_or_default();
        if let Ok(r) = parse_model_id(&id) {
            let info = hub.model_info_url(&r);
            let file = hub.file_url(&r, "config.json");
            prop_assert!(hub.owns(&info) && hub.owns(&file), "{info} {file}");
            prop_assert!(!info.contains("..") && !file.contains("..") && !file.contains('?'));
        }
        let _ = HubSource::from_link(&id, &endpoint);
    }
}
