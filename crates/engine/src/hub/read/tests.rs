// The read order driven by hand: each GET a read asks for, answered in memory.

use super::*;
use crate::gguf::{read_gguf, GgufError};
use crate::hub::HubEndpoint;

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
const BASE: &str = "http://hub.test";

fn endpoint() -> HubEndpoint {
    HubEndpoint::parse(BASE).unwrap()
}

fn ok(bytes: &[u8]) -> Result<Got, FetchFailure> {
    Ok(Got {
        status: 200,
        bytes: bytes.to_vec(),
        ..Got::default()
    })
}

/// A range's bytes of `file`, as a server that honours Range answers.
fn partial(file: &[u8], get: &Get) -> Result<Got, FetchFailure> {
    let (start, len) = get.range.expect("a range");
    let from = (start as usize).min(file.len());
    let to = ((start + len) as usize).min(file.len());
    Ok(Got {
        status: 206,
        bytes: file[from..to].to_vec(),
        total: Some(file.len() as u64),
        retry_after: None,
    })
}

fn asked<T: std::fmt::Debug>(step: Step<T>) -> Get {
    match step {
        Step::Get(g) => g,
        Step::Done(d) => panic!("done early: {d:?}"),
    }
}

/// A safetensors file with one 2 × 3 BF16 tensor (12 bytes): 8-byte length, header, data.
fn safetensors() -> Vec<u8> {
    let header = br#"{"lm_head.weight":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]}}"#;
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header);
    file.extend_from_slice(&[0; 12]);
    file
}

const CONFIG: &str = r#"{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":64,
"intermediate_size":128,"num_attention_heads":4,"num_key_value_heads":4,"num_hidden_layers":2,
"vocab_size":100,"max_position_embeddings":512,"torch_dtype":"bfloat16"}"#;

#[test]
fn a_model_is_read_as_its_list_config_then_two_ranges_per_shard_pinned_to_the_listed_commit() {
    let mut read = ModelRead::new(endpoint(), "org/m", "2026-12-01");
    let listing = asked(read.start());
    assert_eq!(listing.url, format!("{BASE}/api/models/org/m?blobs=true"));
    assert_eq!(listing.range, None);
    let list = format!(
        r#"{{"id":"org/m","sha":"{SHA}","siblings":[{{"rfilename":"config.json"}},{{"rfilename":"model.safetensors"}}]}}"#
    );
    let config = asked(read.answer(ok(list.as_bytes())));
    assert_eq!(
        config.url,
        format!("{BASE}/org/m/resolve/{SHA}/config.json")
    );
    let file = safetensors();
    let length = asked(read.answer(ok(CONFIG.as_bytes())));
    assert_eq!(length.range, Some((0, 8)));
    let header = asked(read.answer(partial(&file, &length)));
    // the header is 71 bytes (the JSON above), right after the 8-byte length
    assert_eq!(header.range, Some((8, 71)));
    let Step::Done(Ok(RepoRead::Checkpoint(c))) = read.answer(partial(&file, &header)) else {
        panic!("the model is read");
    };
    assert_eq!(c.shards, ["model.safetensors"]);
    assert_eq!(c.files.weight_bytes(), 12);
    // the list, config.json, and the two header reads
    let fetched = list.len() + CONFIG.len() + 8 + 71;
    assert_eq!(c.fetched, fetched as u64);
    assert_eq!(c.source.id(), format!("org/m@{SHA}"));
    assert_eq!(c.source.read_on, "2026-12-01");
}

#[test]
fn a_server_that_ignores_range_is_read_no_further_than_asked() {
    let file = safetensors();
    let get = Get::range(String::from("u"), 8, 5);
    let whole = get.exact("o/m", ok(&file)).unwrap();
    assert_eq!(whole.bytes, &file[8..13]);
    let cut = get.exact("o/m", ok(&file[..10]));
    assert_eq!(
        cut.err(),
        Some(FetchFailure::Truncated {
            url: "u".into(),
            expected: 5,
            got: 2
        })
    );
    let text = Get::text(String::from("u"), 4);
    assert!(matches!(
        text.body("o/m", ok(b"12345")),
        Err(FetchFailure::TooLarge { limit: 4, .. })
    ));
}

#[test]
fn a_gated_list_or_a_bad_id_ends_the_read_with_its_reason() {
    let mut read = ModelRead::new(endpoint(), "org/m", "2026-12-01");
    asked(read.start());
    let gated = read.answer(Ok(Got {
        status: 401,
        ..Got::default()
    }));
    assert_eq!(
        gated,
        Step::Done(Err(HubReadError::Fetch(FetchFailure::Gated {
            repo: "org/m".into(),
            status: 401
        })))
    );
    let mut bad = ModelRead::new(endpoint(), "not an id", "2026-12-01");
    assert!(matches!(bad.start(), Step::Done(Err(HubReadError::Id(_)))));
}

#[test]
fn a_gguf_file_named_in_the_url_lists_the_gguf_files_beside_safetensors() {
    let mut read = ModelRead::new(
        endpoint(),
        "https://huggingface.co/org/m/blob/main/m-Q4_0.gguf",
        "2026-12-01",
    );
    asked(read.start());
    let list = format!(
        r#"{{"sha":"{SHA}","siblings":[{{"rfilename":"model.safetensors"}},{{"rfilename":"m-Q4_0.gguf"}}]}}"#
    );
    let Step::Done(Ok(RepoRead::Gguf(g))) = read.answer(ok(list.as_bytes())) else {
        panic!("the GGUF files, to choose from");
    };
    assert_eq!(g.pinned.revision.as_deref(), Some(SHA));
    assert_eq!(g.pinned.file.as_deref(), Some("m-Q4_0.gguf"));
}

fn fixture(name: &str) -> Vec<u8> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gguf");
    std::fs::read(dir.join(name)).unwrap()
}

#[test]
fn a_gguf_header_is_read_in_growing_ranges_each_starting_where_the_last_ended() {
    let file = fixture("llama-q4_k.header.gguf");
    let mut read = GgufPartsRead::new(
        endpoint(),
        "org/m",
        SHA,
        vec!["m.gguf".into()],
        read_gguf_parts,
    );
    let mut step = read.start();
    let mut ranges = Vec::new();
    let answer = loop {
        match step {
            Step::Get(get) => {
                ranges.push(get.range.unwrap());
                step = read.answer(partial(&file, &get));
            }
            Step::Done(answer) => break answer.unwrap(),
        }
    };
    assert_eq!(ranges[0], (0, 24));
    for pair in ranges.windows(2) {
        assert_eq!(pair[1].0, pair[0].0 + pair[0].1, "{ranges:?}");
    }
    assert_eq!(answer.requests, ranges.len());
    assert!(answer.fetched <= file.len() as u64);
    assert_eq!(answer.header, read_gguf(&file).unwrap());
}

#[test]
fn parts_that_end_inside_their_header_or_a_reader_that_asks_nothing_new_stop_the_read() {
    let file = fixture("llama-q4_k.header.gguf");
    let cut = &file[..100];
    assert_eq!(
        read_gguf_parts(&[cut.to_vec()], &[100]),
        PartsNext::Refused(GgufPartsError::EndsInHeader { part: 0 })
    );
    let stuck = |_: &[Vec<u8>], _: &[u64]| PartsNext::<(), GgufError>::More { part: 0, upto: 24 };
    let mut read = GgufPartsRead::new(endpoint(), "org/m", SHA, vec!["m.gguf".into()], stuck);
    let first = asked(read.start());
    assert_eq!(
        read.answer(partial(&file, &first)),
        Step::Done(Err(GgufReadError::Unread))
    );
}
