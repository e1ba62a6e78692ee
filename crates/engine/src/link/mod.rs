//! Share links: every setting in a short, readable, versioned query string.
//!
//! Only settings that differ from the defaults are written, so links stay short and stay valid when
//! new settings arrive (missing keys take defaults). Unknown keys and bad values are reported and
//! replaced by defaults; nothing in a link is ever executed or shown as markup.

mod gguf;
mod model;
mod page;
mod settings;
mod text;

pub use gguf::GGUF_LINK_ROOM;
pub use model::parse_param_count;
pub use text::pairs;

use crate::error::EngineError;
use crate::gguf::{Detail, GgufSummary};
use crate::hub::HubEndpoint;
use crate::measured::{MeasureError, Measurement};
use crate::repair::Repair;
use crate::scenario::{Refusal, Scenario, SETTINGS};
use gguf::gguf_text_within;
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
    gguf::write(s, &mut out);
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
    page::write(page, &mut out);
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
    let mut r = Reading {
        scenario: settings::first(pairs),
        page: PageSettings::default(),
        notices: Vec::new(),
        model: model::Pending::default(),
        gguf: gguf::Pending::new(gguf_check),
    };
    for (k, v) in pairs {
        let read = READERS
            .iter()
            .map(|read| read(k, v, &mut r))
            .find(|read| !matches!(read, Read::NotMine))
            .unwrap_or(Read::NotMine);
        match read {
            Read::Taken => {}
            Read::Ignored(why) => r.notices.push(Notice::Ignored {
                key: k.chars().take(40).collect(),
                value: v.chars().take(40).collect(),
                why,
            }),
            Read::NotMine => r
                .notices
                .push(Notice::UnknownKey(k.chars().take(40).collect())),
        }
    }
    let gguf_source = model::finish(&mut r);
    gguf::finish(&mut r, gguf_source);
    let mut s = r.scenario;
    r.notices
        .extend(s.normalize().into_iter().map(Notice::Normalized));
    Decoded {
        scenario: s,
        page: r.page,
        notices: r.notices,
    }
}

/// What the decoder holds while it reads a link's pairs: the scenario and page settings so far,
/// the notices, and what the model's and the GGUF file's pairs leave for after the others.
struct Reading {
    scenario: Scenario,
    page: PageSettings,
    notices: Vec<Notice>,
    model: model::Pending,
    gguf: gguf::Pending,
}

/// What a concern made of one `key=value` pair.
enum Read {
    /// Not one of its keys.
    NotMine,
    /// Its key, read (or reported by a notice of its own).
    Taken,
    /// Its key, with a value it ignored.
    Ignored(Ignored),
}

/// Each concern's reader of a pair, asked in turn: the link's version, the model, the GGUF files,
/// the page's settings, then the registry's. A key that none takes is unknown.
const READERS: [fn(&str, &str, &mut Reading) -> Read; 5] = [
    read_version,
    model::read,
    gguf::read,
    page::read,
    settings::read,
];

/// The link's version (`v=`); a link of another version is read as version 1.
fn read_version(key: &str, v: &str, _: &mut Reading) -> Read {
    match key {
        "v" if v.parse::<u64>().ok() != Some(VERSION) => Read::Ignored(Ignored::OtherVersion),
        "v" => Read::Taken,
        _ => Read::NotMine,
    }
}

#[cfg(test)]
mod gguf_tests;
#[cfg(test)]
mod tests;
