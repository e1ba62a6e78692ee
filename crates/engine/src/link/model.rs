//! The model in a link: a preset (`m=`), a parameter count (`p=`), or a compact architecture
//! (`cfg=`, named by `mn=`) with the Hub repository it was read from (`hf=`, `hfd=`).

use super::{Ignored, Notice, Read, Reading};
use crate::error::EngineError;
use crate::hub::HubSource;
use crate::model::{decode_arch, encode_arch, presets, Architecture};
use crate::scenario::ModelChoice;

/// The model's pairs; beside a GGUF file (`alone` false) `hf=` is the file's, one source per link.
pub(super) fn write(model: &ModelChoice, alone: bool, out: &mut Vec<(&str, String)>) {
    match model {
        ModelChoice::Preset(id) => out.push(("m", id.to_string())),
        ModelChoice::Params(n) => out.push(("p", n.to_string())),
        ModelChoice::Custom { name, arch, source } => {
            out.push(("mn", name.clone()));
            out.push(("cfg", encode_arch(arch)));
            if let (Some(src), true) = (source, alone) {
                out.push(("hf", src.id()));
                out.push(("hfd", src.read_on.clone()));
            }
        }
    }
}

/// What the model's pairs leave for after the others: the compact architecture (`cfg=`), its
/// name (`mn=`) and the Hub source (`hf=`, `hfd=`), which is the GGUF file's when there is one.
#[derive(Default)]
pub(super) struct Pending {
    name: Option<String>,
    cfg: Option<String>,
    hub: (Option<String>, Option<String>),
}

/// Reads one of the model's pairs: a preset or a parameter count at once, the rest once every
/// pair is read ([`finish`]).
pub(super) fn read(key: &str, v: &str, r: &mut Reading) -> Read {
    let pending = &mut r.model;
    match key {
        "m" => match presets::find(v) {
            Some(p) => {
                r.scenario.model = ModelChoice::Preset(p.id);
                Read::Taken
            }
            None => Read::Ignored(Ignored::NoSuchPreset),
        },
        "p" => match parse_count(v).and_then(|n| Architecture::from_param_count(n).map(|_| n).ok())
        {
            Some(n) => {
                r.scenario.model = ModelChoice::Params(n);
                Read::Taken
            }
            None => Read::Ignored(Ignored::NotAParamCount),
        },
        "mn" => {
            pending.name = Some(v.chars().take(80).collect());
            Read::Taken
        }
        "cfg" => {
            pending.cfg = Some(v.to_string());
            Read::Taken
        }
        "hf" => {
            pending.hub.0 = Some(v.to_string());
            Read::Taken
        }
        "hfd" => {
            pending.hub.1 = Some(v.to_string());
            Read::Taken
        }
        _ => Read::NotMine,
    }
}

/// Once every pair is read: the Hub source, then the compact architecture with its name and
/// source. Returns the source when it is the GGUF file's (`hf=` beside `gg=`).
pub(super) fn finish(r: &mut Reading) -> Option<HubSource> {
    let Pending { name, cfg, hub } = std::mem::take(&mut r.model);
    let with_gguf = r.scenario.gguf.is_some();
    let source = hub_source(hub, cfg.is_some() || with_gguf, &mut r.notices);
    let (source, gguf_source) = match with_gguf {
        true => (None, source),
        false => (source, None),
    };
    if let Some(text) = cfg {
        match custom(&text, name, source) {
            Ok(model) => r.scenario.model = model,
            Err(e) => r.notices.push(Notice::BadArchitecture(e)),
        }
    }
    gguf_source
}

/// The model a compact architecture (`cfg=`) names, with its name and Hub source.
fn custom(
    text: &str,
    name: Option<String>,
    source: Option<HubSource>,
) -> Result<ModelChoice, EngineError> {
    Ok(ModelChoice::Custom {
        name: name.unwrap_or_else(|| "custom model".into()),
        arch: Box::new(decode_arch(text)?),
        source,
    })
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
