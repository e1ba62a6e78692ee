//! Share links: every setting in a short, readable, versioned query string.
//!
//! Only settings that differ from the defaults are written, so links stay short and stay valid when
//! new settings arrive (missing keys take defaults). Unknown keys and bad values are reported and
//! replaced by defaults; nothing in a link is ever executed or shown as markup.

mod gguf;
mod model;
mod text;

pub use gguf::GGUF_LINK_ROOM;
pub use model::parse_param_count;
pub use text::pairs;

use crate::error::EngineError;
use crate::gguf::{Detail, GgufSummary};
use crate::hub::HubEndpoint;
use crate::llamacpp::{Projector, ProjectorFile};
use crate::measured::{MeasureError, Measurement};
use crate::model::presets;
use crate::model::Architecture;
use crate::repair::Repair;
use crate::scenario::{GgufFile, Job, ModelChoice, Scenario};
use crate::scenario::{Refusal, Setting, SETTINGS};
use gguf::gguf_text_within;
use model::{hub_source, parse_count};
use text::percent_encode;

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
    model::write(&s.model, s.gguf.is_none(), &mut out);
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
        match model::custom(&text, name, source) {
            Ok(model) => s.model = model,
            Err(e) => notices.push(Notice::BadArchitecture(e)),
        }
    }
    let gguf_named = pairs.iter().any(|(k, _)| k == "gg");
    notices.extend(gguf::name_file(&mut s, gguf_name, gguf_source, gguf_named));
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

#[cfg(test)]
mod tests;
