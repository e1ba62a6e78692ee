//! Share links: every setting in a short, readable, versioned query string.
//!
//! Only settings that differ from the defaults are written, so links stay short and stay valid when
//! new settings arrive (missing keys take defaults). Unknown keys and bad values are reported and
//! replaced by defaults; nothing in a link is ever executed or shown as markup.

use crate::error::EngineError;
use crate::gguf::{Detail, GgufSummary};
use crate::hub::{HubEndpoint, HubSource};
use crate::llamacpp::{Projector, ProjectorFile};
use crate::measured::{MeasureError, Measurement};
use crate::model::{decode_arch, encode_arch, Architecture};
use crate::presets;
use crate::repair::Repair;
use crate::scenario::{GgufFile, Job, ModelChoice, Scenario};
use crate::scenario::{Refusal, Setting, SETTINGS};

/// The link format's version.
pub const VERSION: u64 = 1;
/// Links longer than this are refused rather than parsed.
pub const MAX_LINK_CHARS: usize = 4_096;

/// What a link holds besides the scenario: page settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageSettings {
    /// "en" or "zh" when the link names a language.
    pub lang: Option<&'static str>,
    /// "Your measurement", compared with the estimate (`ms=`, see [`Measurement::to_link`]).
    pub measured: Option<Measurement>,
    /// The Hub endpoint the page reads model ids from (`hfe=`), when not huggingface.co.
    pub hub_endpoint: Option<HubEndpoint>,
}

/// A decoded link: the scenario, page settings, and what was ignored.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub scenario: Scenario,
    pub page: PageSettings,
    /// One entry per ignored key or value, or setting that was reset.
    pub notices: Vec<Notice>,
}

/// Something a link held that was not used as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The link is longer than [`MAX_LINK_CHARS`] and was not read.
    TooLong { max: usize },
    /// `key=value` was ignored (the value shown is its first 40 characters).
    Ignored {
        key: String,
        value: String,
        why: Ignored,
    },
    /// A key no version of the page wrote (its first 40 characters).
    UnknownKey(String),
    /// The compact architecture (`cfg=`) did not read back.
    BadArchitecture(EngineError),
    /// A setting that could not go with the others was reset, or the conflict that no reset
    /// repairs (see [`Scenario::normalize`]).
    Normalized(Repair),
    /// The measurement (`ms=`) did not read back and was left out.
    BadMeasurement(MeasureError),
    /// The GGUF summary (`gg=`) keeps less than every tensor: it was coarsened so that the link
    /// fits (see [`GgufSummary::for_link`]). Information, not an error.
    GgufDetail(Detail),
    /// The GGUF file `gn=` names was too detailed for a link even coarsened and was left out.
    GgufLeftOut(String),
}

impl Notice {
    /// Whether the link was read as written and the notice only says how (a coarser GGUF summary).
    pub fn is_information(&self) -> bool {
        matches!(self, Notice::GgufDetail(_))
    }
}

/// Why a key's value was ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ignored {
    /// The setting refused it.
    Refused(Refusal),
    /// A link version this page does not write; the settings were read as version 1.
    OtherVersion,
    NoSuchPreset,
    /// Not a parameter count between 1M and 10T.
    NotAParamCount,
    /// The page speaks en and zh.
    OtherLanguage,
    /// A Hub id (`hf=`) without the compact architecture it was read into (`cfg=`).
    HubWithoutArchitecture,
    /// `hf=owner/name@revision` with `hfd=YYYY-MM-DD` did not read back.
    BadHubSource,
    /// Not a GGUF model summary (`gg=`) this page writes, or one whose header does not read.
    NotAGgufSummary,
    /// `hfe=` is not an endpoint `http(s)://host[:port][/path]`.
    BadHubEndpoint,
    /// Not a multimodal projector (`mp=`) this page writes.
    NotAProjector,
}

/// Writes the query string (without '?') for a scenario and page settings.
pub fn encode(s: &Scenario, page: &PageSettings) -> String {
    let first = Scenario::default();
    let mut out: Vec<(&str, String)> = vec![("v", VERSION.to_string())];
    match &s.model {
        ModelChoice::Preset(id) => out.push(("m", id.to_string())),
        ModelChoice::Params(n) => out.push(("p", n.to_string())),
        ModelChoice::Custom { name, arch, source } => {
            out.push(("mn", name.clone()));
            out.push(("cfg", encode_arch(arch)));
            // beside a GGUF file, `hf=` is the file's (one source per link)
            if let (Some(src), None) = (source, &s.gguf) {
                out.push(("hf", src.id()));
                out.push(("hfd", src.read_on.clone()));
            }
        }
    }
    let gguf_at = out.len();
    if let Some(file) = &s.gguf {
        out.push(("gn", file.name.clone()));
        if let Some(src) = &file.source {
            out.push(("hf", src.id()));
            out.push(("hfd", src.read_on.clone()));
        }
    }
    if let Some(file) = &s.mmproj {
        out.push(("mpn", file.name.clone()));
        out.push(("mp", file.projector.to_text()));
    }
    // the job and the framework against the page's defaults; every other setting against the
    // job's own defaults with the framework's, which the decoder applies first
    let base = s.defaults_of_framework();
    for st in SETTINGS {
        let against = if matches!(st.key, "j" | "ft") {
            &first
        } else {
            &base
        };
        if st.get(s) != st.get(against) {
            out.push((st.key, st.text(s)));
        }
    }
    if let Some(l) = page.lang {
        out.push(("lang", l.to_string()));
    }
    if let Some(m) = &page.measured {
        out.push(("ms", m.to_link()));
    }
    if let Some(e) = page
        .hub_endpoint
        .as_ref()
        .filter(|e| **e != HubEndpoint::default())
    {
        out.push(("hfe", e.base().to_string()));
    }
    let joined = |pairs: &[(&str, String)]| {
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", percent_encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    };
    if let Some(file) = &s.gguf {
        let room = MAX_LINK_CHARS
            .saturating_sub(LINK_ADDRESS_ROOM)
            .saturating_sub(joined(&out).chars().count() + "&gg=".len());
        if let Some(text) = gguf_text_within(&file.summary, room) {
            out.insert(gguf_at + 1, ("gg", text));
        }
    }
    joined(&out)
}

/// The characters a link leaves for the page's own address before the query
/// (`https://host/path/?`): the query a page writes stays under [`MAX_LINK_CHARS`] minus this.
pub const LINK_ADDRESS_ROOM: usize = 256;

/// The characters a `gg=` summary may take ([`GgufSummary::for_link`] coarsens a summary to
/// them): the link's limit less the page's address and 768 for the other settings.
pub const GGUF_LINK_ROOM: usize = MAX_LINK_CHARS - LINK_ADDRESS_ROOM - 768;

/// The summary's text form when it fits in `room` characters (the page's summaries are made to
/// fit when a file is picked, see [`GgufSummary::for_link`]); None leaves it out of the link.
impl GgufSummary {
    /// The most detailed of this summary, each layer's bytes, and the model's bytes whose text
    /// fits a link ([`GGUF_LINK_ROOM`]); this summary itself when none does (a link then leaves
    /// the file out). The page keeps what a link can carry, so a shared link plans what it shows.
    pub fn for_link(&self) -> GgufSummary {
        self.within(GGUF_LINK_ROOM)
    }
}

fn gguf_text_within(summary: &GgufSummary, room: usize) -> Option<String> {
    let text = summary.to_text();
    (percent_encode(&text).chars().count() <= room).then_some(text)
}

/// The `key=value` pairs of a link: a whole URL, a query string with or without '?', or a
/// fragment; `None` when it is longer than [`MAX_LINK_CHARS`].
pub fn pairs(link: &str) -> Option<Vec<(String, String)>> {
    if link.chars().count() > MAX_LINK_CHARS {
        return None;
    }
    let query = match link.find('?') {
        Some(i) => &link[i + 1..],
        None => link.trim_start_matches('#'),
    };
    let query = query.split('#').next().unwrap_or("");
    Some(
        query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (percent_decode(k), percent_decode(v))
            })
            .collect(),
    )
}

/// Reads a link: a whole URL, a query string with or without '?', or a fragment.
pub fn decode(link: &str) -> Decoded {
    decode_checking(link, header_reads)
}

/// [`decode`] that takes a `gg=` summary by its text form alone, without rebuilding and reading
/// its header: the page's first load, which leaves the GGUF reader and writer to the local job's
/// module (that module reads the link again with [`decode`] and refuses what this one let pass).
pub fn decode_gguf_unread(link: &str) -> Decoded {
    decode_checking(link, |_| true)
}

fn header_reads(summary: &GgufSummary) -> bool {
    summary.header().is_ok()
}

fn decode_checking(link: &str, gguf_check: fn(&GgufSummary) -> bool) -> Decoded {
    match pairs(link) {
        Some(p) => decode_pairs_checking(&p, gguf_check),
        None => Decoded {
            scenario: Scenario::default(),
            page: PageSettings::default(),
            notices: vec![Notice::TooLong {
                max: MAX_LINK_CHARS,
            }],
        },
    }
}

/// Builds a scenario from `key=value` pairs (a link's, or the CLI's flags named by their keys):
/// each pair on top of the defaults, then [`Scenario::normalize`].
pub fn decode_pairs(pairs: &[(String, String)]) -> Decoded {
    decode_pairs_checking(pairs, header_reads)
}

fn decode_pairs_checking(
    pairs: &[(String, String)],
    gguf_check: fn(&GgufSummary) -> bool,
) -> Decoded {
    let mut notices = Vec::new();
    // the job's defaults first, wherever `j` stands among the pairs
    let job = pairs
        .iter()
        .find(|(k, _)| k == "j")
        .and_then(|(_, v)| Job::from_key(v))
        .unwrap_or(Scenario::default().job);
    let mut s = Scenario::for_job(job);
    let mut page = PageSettings::default();
    let mut name: Option<String> = None;
    let mut cfg: Option<String> = None;
    let mut hub: (Option<String>, Option<String>) = (None, None);
    let mut gguf_name: Option<String> = None;
    let mut projector_name: Option<String> = None;
    // the job, then the framework's defaults (the default framework's when the link names none),
    // before every other setting: the link's own values then override them
    for key in ["j", "ft"] {
        if let (Some(st), Some((_, v))) = (
            Setting::by_key(key),
            pairs.iter().rev().find(|(k, _)| k == key),
        ) {
            // a refused value is reported by the loop below
            let _ = st.apply(&mut s, v);
        }
    }
    let framework = s.framework;
    framework.apply(&mut s);
    for (k, v) in pairs {
        let ignored = |why: Ignored| Notice::Ignored {
            key: k.chars().take(40).collect(),
            value: v.chars().take(40).collect(),
            why,
        };
        let why = match k.as_str() {
            "v" => (v.parse::<u64>().ok() != Some(VERSION)).then_some(Ignored::OtherVersion),
            "m" => match presets::find(v) {
                Some(p) => {
                    s.model = ModelChoice::Preset(p.id);
                    None
                }
                None => Some(Ignored::NoSuchPreset),
            },
            "p" => match parse_count(v)
                .and_then(|n| Architecture::from_param_count(n).map(|_| n).ok())
            {
                Some(n) => {
                    s.model = ModelChoice::Params(n);
                    None
                }
                None => Some(Ignored::NotAParamCount),
            },
            "mn" => {
                name = Some(v.chars().take(80).collect());
                None
            }
            "cfg" => {
                cfg = Some(v.clone());
                None
            }
            "hf" => {
                hub.0 = Some(v.clone());
                None
            }
            "hfd" => {
                hub.1 = Some(v.clone());
                None
            }
            "gn" => {
                gguf_name = Some(v.chars().take(80).collect());
                None
            }
            "gg" => match GgufSummary::from_text(v) {
                Ok(summary) if gguf_check(&summary) => {
                    s.gguf = Some(Box::new(GgufFile {
                        name: String::new(),
                        summary,
                        source: None,
                    }));
                    None
                }
                _ => Some(Ignored::NotAGgufSummary),
            },
            "mpn" => {
                projector_name = Some(v.chars().take(80).collect());
                None
            }
            "mp" => match Projector::from_text(v) {
                Some(projector) => {
                    s.mmproj = Some(Box::new(ProjectorFile {
                        name: String::new(),
                        projector,
                    }));
                    None
                }
                None => Some(Ignored::NotAProjector),
            },
            "lang" => match v.as_str() {
                "en" => {
                    page.lang = Some("en");
                    None
                }
                "zh" => {
                    page.lang = Some("zh");
                    None
                }
                _ => Some(Ignored::OtherLanguage),
            },
            "hfe" => match HubEndpoint::parse(v) {
                Ok(e) => {
                    page.hub_endpoint = (e != HubEndpoint::default()).then_some(e);
                    None
                }
                Err(_) => Some(Ignored::BadHubEndpoint),
            },
            "ms" => {
                match Measurement::from_link(v) {
                    Ok(m) => page.measured = Some(m),
                    Err(e) => notices.push(Notice::BadMeasurement(e)),
                }
                None
            }
            // applied before the loop
            "ft" => Setting::by_key("ft")
                .and_then(|st| st.parse(v).err())
                .map(Ignored::Refused),
            key => match Setting::by_key(key) {
                Some(st) => st.apply(&mut s, v).err().map(Ignored::Refused),
                None => {
                    notices.push(Notice::UnknownKey(key.chars().take(40).collect()));
                    None
                }
            },
        };
        if let Some(why) = why {
            notices.push(ignored(why));
        }
    }
    // `hf=` is the GGUF file's when the link has one (gg=), else the compact architecture's
    let with_gguf = s.gguf.is_some();
    let source = hub_source(hub, cfg.is_some() || with_gguf, &mut notices);
    let (source, gguf_source) = match with_gguf {
        true => (None, source),
        false => (source, None),
    };
    if let Some(text) = cfg {
        match decode_arch(&text) {
            Ok(arch) => {
                s.model = ModelChoice::Custom {
                    name: name.unwrap_or_else(|| "custom model".into()),
                    arch: Box::new(arch),
                    source,
                }
            }
            Err(e) => notices.push(Notice::BadArchitecture(e)),
        }
    }
    match (s.gguf.as_mut(), gguf_name) {
        (Some(file), name) => {
            file.name = name.unwrap_or_else(|| "model.gguf".into());
            file.source = gguf_source;
            let detail = file.summary.detail();
            if detail != Detail::Tensors {
                notices.push(Notice::GgufDetail(detail));
            }
        }
        (None, Some(name)) if !pairs.iter().any(|(k, _)| k == "gg") => {
            notices.push(Notice::GgufLeftOut(name))
        }
        (None, _) => {}
    }
    if let Some(file) = s.mmproj.as_mut() {
        file.name = projector_name.unwrap_or_else(|| "mmproj.gguf".into());
    }
    notices.extend(s.normalize().into_iter().map(Notice::Normalized));
    Decoded {
        scenario: s,
        page,
        notices,
    }
}

/// The model's Hub source (`hf=` and `hfd=`), kept only beside a compact architecture or a GGUF
/// summary: the link opens offline from `cfg=` / `gg=`, and the id only says where it was read
/// and when.
fn hub_source(
    hub: (Option<String>, Option<String>),
    with_arch: bool,
    notices: &mut Vec<Notice>,
) -> Option<HubSource> {
    let (id, date) = match hub {
        (None, None) => return None,
        (id, date) => (id.unwrap_or_default(), date.unwrap_or_default()),
    };
    let ignored = |why| Notice::Ignored {
        key: "hf".into(),
        value: id.chars().take(40).collect(),
        why,
    };
    if !with_arch {
        notices.push(ignored(Ignored::HubWithoutArchitecture));
        return None;
    }
    match HubSource::from_link(&id, &date) {
        Ok(src) => Some(src),
        Err(_) => {
            notices.push(ignored(Ignored::BadHubSource));
            None
        }
    }
}

fn parse_count(v: &str) -> Option<u64> {
    let v = v.trim();
    let (num, shift) = match v.chars().last()? {
        'k' | 'K' => (&v[..v.len() - 1], 3),
        'm' | 'M' => (&v[..v.len() - 1], 6),
        'b' | 'B' => (&v[..v.len() - 1], 9),
        't' | 'T' => (&v[..v.len() - 1], 12),
        _ => (v, 0),
    };
    let (negative, mantissa, exp) = crate::exact::decimal(num.trim())?;
    let n = crate::exact::scaled(mantissa, exp, shift)?;
    (!negative && (1..=1_000_000_000_000_000).contains(&n)).then_some(n)
}

/// Reads a parameter count such as "7B", "1.5b", "124M" or "6738415616".
pub fn parse_param_count(v: &str) -> Result<u64, EngineError> {
    parse_count(v).ok_or_else(|| EngineError::NotAParamCount(v.chars().take(40).collect()))
}

fn percent_encode(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for b in v.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b',' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn percent_decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::WeightFormat;
    use crate::gpus::Gpu;
    use crate::model::StoredWeights;
    use crate::scenario::{Job, LoraTargets, Zero};
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
}
