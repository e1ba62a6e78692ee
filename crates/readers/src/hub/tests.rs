// The page's Hub client, driven natively: a stand-in Hub in memory answers in the Hub's URL
// layout (with Range), from checkpoints rebuilt from the engine's real config.json fixtures
// (`crates/engine/tests/fixtures/hub/README.md`), so the order of reads, the limits and the
// sentences the page shows are tested without a browser.

use vram_test_support::checkpoints;

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use super::HubReply;
use super::{hub_reply, read_model, Fetch, Got, HubAnswer, HubProblem, HubRead};
use vram_engine::{hub::FetchFailure, hub::HubEndpoint, model::decode_arch, WeightFormat};

pub(super) const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
pub(super) const ENDPOINT: &str = "http://hub.test/mirror";

/// A file the stand-in serves: its first bytes and the length it claims (headers only).
pub(super) struct File {
    pub(super) bytes: Vec<u8>,
    pub(super) claimed: u64,
}

/// A request the stand-in saw: its URL and Range (start, length).
pub(super) type Seen = (String, Option<(u64, u64)>);

/// The stand-in Hub: files by URL, statuses by URL, and every request it saw.
#[derive(Default)]
pub(super) struct StandIn {
    pub(super) files: HashMap<String, File>,
    pub(super) statuses: HashMap<String, u16>,
    pub(super) seen: RefCell<Vec<Seen>>,
}

impl Fetch for StandIn {
    async fn get(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
        limit: u64,
    ) -> Result<Got, FetchFailure> {
        self.seen.borrow_mut().push((url.to_string(), range));
        let answer = |status| Got {
            status,
            bytes: Vec::new(),
            total: None,
            retry_after: (status == 429).then(|| "30".to_string()),
        };
        if let Some(status) = self.statuses.get(url) {
            return Ok(answer(*status));
        }
        let Some(file) = self.files.get(url) else {
            return Ok(answer(404));
        };
        let Some((start, len)) = range else {
            let mut bytes = file.bytes.clone();
            bytes.truncate(limit as usize + 1);
            return Ok(Got {
                bytes,
                ..answer(200)
            });
        };
        let from = (start as usize).min(file.bytes.len());
        let to = ((start + len) as usize).min(file.bytes.len());
        Ok(Got {
            bytes: file.bytes[from..to].to_vec(),
            total: Some(file.claimed),
            ..answer(206)
        })
    }
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/hub")
}

/// A repository `org/<fixture>` on the stand-in, as the CLI's stand-in Hub lays it out.
fn stand_in(fixture: &str) -> StandIn {
    let (_, storage, n) = checkpoints::FIXTURES
        .iter()
        .find(|f| f.0 == fixture)
        .expect("a fixture");
    let config = checkpoints::config_text(&fixtures(), fixture);
    let cfg: serde_json::Value = serde_json::from_str(&config).unwrap();
    let shards = checkpoints::shards(&checkpoints::tensors(&cfg, *storage), *n);
    let base = format!("{ENDPOINT}/org/{fixture}/resolve/{SHA}");
    let mut hub = StandIn::default();
    let mut put = |name: &str, bytes: Vec<u8>, claimed: u64| {
        let url = format!("{base}/{name}");
        hub.files.insert(url, File { bytes, claimed });
    };
    put("config.json", config.clone().into_bytes(), 0);
    let mut names = vec!["config.json".to_string()];
    if shards.len() > 1 {
        put(
            "model.safetensors.index.json",
            checkpoints::index_json(&shards).into_bytes(),
            0,
        );
        names.push("model.safetensors.index.json".into());
    }
    for (name, tensors) in &shards {
        let name = if shards.len() == 1 {
            "model.safetensors"
        } else {
            name
        };
        let header = checkpoints::header_bytes(tensors, &[("format", "pt")]);
        let data: u64 = tensors.iter().map(|t| t.bytes()).sum();
        let claimed = header.len() as u64 + data;
        put(name, header, claimed);
        names.push(name.to_string());
    }
    let siblings: Vec<String> = names
        .iter()
        .map(|n| format!("{{\"rfilename\":{n:?}}}"))
        .collect();
    let listing = format!(
        "{{\"id\":\"org/{fixture}\",\"sha\":\"{SHA}\",\"siblings\":[{}]}}",
        siblings.join(",")
    );
    hub.files.insert(
        format!("{ENDPOINT}/api/models/org/{fixture}?blobs=true"),
        File {
            bytes: listing.into_bytes(),
            claimed: 0,
        },
    );
    hub
}

/// Runs a future that never waits (the stand-in answers at once).
pub(super) fn now<T>(f: impl Future<Output = T>) -> T {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("the stand-in never makes a read wait"),
    }
}

pub(super) fn answer(hub: &StandIn, id: &str) -> Result<HubAnswer, HubProblem> {
    let endpoint = HubEndpoint::parse(ENDPOINT).unwrap();
    now(read_model(hub, &endpoint, id, "2026-12-01"))
}

/// A safetensors model read (a GGUF repository is not expected here).
fn read(hub: &StandIn, id: &str) -> Result<HubRead, HubProblem> {
    answer(hub, id).map(|a| match a {
        HubAnswer::Model(r) => *r,
        HubAnswer::Gguf(repo) => panic!("a safetensors model, not GGUF files: {repo:?}"),
    })
}

/// The bytes the safetensors spec gives the fixture's tensors (elements × dtype size).
fn spec_bytes(fixture: &str) -> u64 {
    let (_, storage, _) = checkpoints::FIXTURES
        .iter()
        .find(|f| f.0 == fixture)
        .unwrap();
    let cfg: serde_json::Value =
        serde_json::from_str(&checkpoints::config_text(&fixtures(), fixture)).unwrap();
    checkpoints::tensors(&cfg, *storage)
        .iter()
        .map(|t| t.bytes())
        .sum()
}

#[test]
fn a_sharded_model_is_read_from_its_headers_alone_pinned_to_the_listed_commit() {
    let hub = stand_in("llama-3-8b");
    let r = read(&hub, "org/llama-3-8b").unwrap();
    assert_eq!(r.files.weight_bytes(), spec_bytes("llama-3-8b"));
    assert_eq!(r.shards.len(), 4);
    assert_eq!(r.source.id(), format!("org/llama-3-8b@{SHA}"));
    assert_eq!(r.source.read_on, "2026-12-01");
    let seen = hub.seen.borrow();
    // the listing, the index, config.json, then two Range reads per shard
    assert_eq!(seen.len(), 3 + 2 * 4, "{seen:?}");
    assert_eq!(
        seen[0].0,
        format!("{ENDPOINT}/api/models/org/llama-3-8b?blobs=true")
    );
    assert!(
        seen[1..].iter().all(|(url, _)| url.contains(SHA)),
        "{seen:?}"
    );
    assert!(seen[3..].iter().all(|(_, range)| range.is_some()));
    assert_eq!(seen[3].1, Some((0, 8)));
}

#[test]
fn a_gptq_checkpoint_keeps_its_exact_bytes_in_the_architecture_the_link_carries() {
    let hub = stand_in("llama-2-7b-gptq");
    let r = read(&hub, "org/llama-2-7b-gptq").unwrap();
    let stored = r.arch.stored.expect("GPTQ files have a format");
    assert_eq!(stored.format, WeightFormat::Gptq4);
    assert_eq!(stored.bytes, spec_bytes("llama-2-7b-gptq"));
    let HubReply::Model {
        arch,
        source,
        read_on,
        lines,
    } = hub_reply(Ok(HubAnswer::Model(Box::new(r.clone()))))
    else {
        panic!("a read model replies with its architecture");
    };
    assert_eq!(decode_arch(&arch).unwrap(), r.arch);
    assert_eq!(source, format!("org/llama-2-7b-gptq@{SHA}"));
    assert_eq!(read_on, "2026-12-01");
    assert!(
        lines[0].contains("1 shard header(s)") && lines[0].contains("GPTQ"),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains("个分片文件头"), "{}", lines[1]);
    // GPTQ's scales and zero points put the files above int4's nominal bits: said in both
    assert_eq!(lines[0].lines().count(), 1 + r.differences.len());
    assert!(!r.differences.is_empty());
}

#[test]
fn a_gated_repository_says_so_in_both_languages_and_reads_nothing_more() {
    let mut hub = stand_in("llama-3-8b");
    let listing = format!("{ENDPOINT}/api/models/org/llama-3-8b?blobs=true");
    hub.statuses.insert(listing, 401);
    let HubReply::Error([en, zh]) = hub_reply(answer(&hub, "org/llama-3-8b")) else {
        panic!("a gated repository is refused");
    };
    assert!(en.contains("gated or private (HTTP 401)"), "{en}");
    assert!(zh.contains("受限或私有仓库"), "{zh}");
    assert_eq!(hub.seen.borrow().len(), 1);
}

#[test]
fn missing_rate_limited_and_cut_answers_each_get_their_own_failure() {
    let hub = stand_in("llama-2-7b");
    assert!(matches!(
        read(&hub, "org/nothing-here"),
        Err(HubProblem::Fetch(FetchFailure::NotFound { .. }))
    ));
    let mut limited = stand_in("llama-2-7b");
    let config = format!("{ENDPOINT}/org/llama-2-7b/resolve/{SHA}/config.json");
    limited.statuses.insert(config, 429);
    assert_eq!(
        read(&limited, "org/llama-2-7b"),
        Err(HubProblem::Fetch(FetchFailure::RateLimited {
            retry_after: Some(30)
        }))
    );
    let mut cut = stand_in("llama-2-7b");
    for file in cut.files.values_mut().filter(|f| f.claimed > 0) {
        file.bytes.truncate(100);
    }
    assert!(matches!(
        read(&cut, "org/llama-2-7b"),
        Err(HubProblem::Fetch(FetchFailure::Truncated { got: 92, .. }))
    ));
}

#[test]
fn a_listing_over_its_size_limit_is_refused_before_it_is_parsed() {
    let mut hub = stand_in("llama-2-7b");
    let listing = format!("{ENDPOINT}/api/models/org/llama-2-7b?blobs=true");
    hub.files.get_mut(&listing).unwrap().bytes =
        vec![b' '; vram_engine::hub::MAX_LISTING_BYTES + 10];
    assert!(matches!(
        read(&hub, "org/llama-2-7b"),
        Err(HubProblem::Fetch(FetchFailure::TooLarge { .. }))
    ));
}

#[test]
fn a_hub_url_with_a_revision_asks_for_that_revision_and_a_bad_id_fetches_nothing() {
    let hub = stand_in("llama-2-7b");
    let _ = read(&hub, "https://huggingface.co/org/llama-2-7b/tree/v1.0");
    assert_eq!(
        hub.seen.borrow()[0].0,
        format!("{ENDPOINT}/api/models/org/llama-2-7b/revision/v1.0?blobs=true")
    );
    let quiet = stand_in("llama-2-7b");
    assert!(matches!(read(&quiet, "not an id"), Err(HubProblem::Id(_))));
    assert!(quiet.seen.borrow().is_empty());
}
