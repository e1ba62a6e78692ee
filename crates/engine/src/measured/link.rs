//! A measurement in a share link: short, URL-safe, exact.
//!
//! `1` `{source}` `~` figures `~` facts. A figure is `{level}{unit}{reading}{bytes}` with an optional
//! `-{api}{mapped}{index}` for its device; a fact is `{key}{value}`; both joined by `.`. Levels,
//! units, readings, sources and APIs are their position in `ALL` as one base-36 character; numbers
//! are base 36: 14.99 GiB of vLLM weights take 10 characters, a figure on CUDA1 four more.

use super::quantity::{Reading, SizeUnit};
use super::{
    Device, DeviceApi, Facts, Figure, Level, MeasureError, Measurement, SourceKind, MAX_BYTES,
    MAX_COUNT, MAX_FIGURES,
};

/// A measurement's link text is at most this long; figures past it are left out, in order.
pub(crate) const LINK_MAX: usize = 300;
const VERSION: char = '1';

const FACT_KEYS: [char; 8] = ['g', 'c', 't', 'n', 'x', 'u', 'p', 'r'];

pub(crate) fn fact_slots(f: &mut Facts) -> [&mut Option<u64>; 8] {
    [
        &mut f.gpu_blocks,
        &mut f.cpu_blocks,
        &mut f.kv_tokens,
        &mut f.concurrency_tokens,
        &mut f.concurrency_hundredths,
        &mut f.gpu_util_hundredths,
        &mut f.params,
        &mut f.trainable_params,
    ]
}

impl Measurement {
    /// The link form, at most `LINK_MAX` characters of `[0-9a-z.~-]`.
    pub fn to_link(&self) -> String {
        self.encode(LINK_MAX)
    }

    /// Reads a link form back; `BadLink` for anything `to_link` would not write.
    pub fn from_link(text: &str) -> Result<Measurement, MeasureError> {
        decode(text, LINK_MAX).ok_or(MeasureError::BadLink)
    }

    /// The link form with every figure (no length limit): how the on-demand readers module hands
    /// a whole measurement to the page, which reads it back with [`Measurement::from_full_link`].
    pub fn to_full_link(&self) -> String {
        self.encode(usize::MAX)
    }

    /// Reads [`Measurement::to_full_link`]'s text back; `BadLink` for anything it would not write.
    pub fn from_full_link(text: &str) -> Result<Measurement, MeasureError> {
        decode(text, usize::MAX).ok_or(MeasureError::BadLink)
    }

    /// Figures in order while the text stays within `max` characters; facts always.
    fn encode(&self, max: usize) -> String {
        let mut facts = self.facts;
        let facts: Vec<String> = fact_slots(&mut facts)
            .iter()
            .zip(FACT_KEYS)
            .filter_map(|(v, key)| v.map(|v| format!("{key}{}", base36(v))))
            .collect();
        let facts = facts.join(".");
        let mut out = format!("{VERSION}{}~", digit(self.source.index()));
        let budget = max.saturating_sub(1 + facts.len());
        let mut first = true;
        for f in &self.figures {
            let text = figure_text(f);
            let sep = usize::from(!first);
            if out.len() + sep + text.len() > budget {
                break;
            }
            if !first {
                out.push('.');
            }
            out.push_str(&text);
            first = false;
        }
        out.push('~');
        out.push_str(&facts);
        out
    }
}

fn figure_text(f: &Figure) -> String {
    let mut s = format!(
        "{}{}{}{}",
        digit(f.level.index()),
        digit(f.unit.index()),
        digit(f.reading.index()),
        base36(f.bytes)
    );
    if let Some(d) = f.device {
        s.push('-');
        s.push(digit(d.api.index()));
        s.push(if d.mapped { '1' } else { '0' });
        if let Some(i) = d.index {
            s.push_str(&base36(u64::from(i)));
        }
    }
    s
}

fn decode(text: &str, max: usize) -> Option<Measurement> {
    if text.len() > max {
        return None;
    }
    let mut parts = text.split('~');
    let (head, figures, facts) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let mut head = head.chars();
    if head.next()? != VERSION {
        return None;
    }
    let source = *SourceKind::ALL.get(undigit(head.next()?)?)?;
    if head.next().is_some() {
        return None;
    }
    let figures: Vec<Figure> = if figures.is_empty() {
        Vec::new()
    } else {
        figures
            .split('.')
            .map(decode_figure)
            .collect::<Option<_>>()?
    };
    if figures.len() > MAX_FIGURES {
        return None;
    }
    let facts = decode_facts(facts)?;
    Measurement::new(source, figures, facts)
}

fn decode_figure(s: &str) -> Option<Figure> {
    let (main, device) = match s.split_once('-') {
        Some((m, d)) => (m, Some(d)),
        None => (s, None),
    };
    let mut chars = main.chars();
    let level = *Level::ALL.get(undigit(chars.next()?)?)?;
    let unit = *SizeUnit::ALL.get(undigit(chars.next()?)?)?;
    let reading = *Reading::ALL.get(undigit(chars.next()?)?)?;
    let bytes = unbase36(chars.as_str()).filter(|&b| b <= MAX_BYTES)?;
    let device = match device {
        None => None,
        Some(d) => Some(decode_device(d)?),
    };
    Some(Figure {
        level,
        bytes,
        unit,
        reading,
        device,
    })
}

fn decode_device(s: &str) -> Option<Device> {
    let mut chars = s.chars();
    let api = *DeviceApi::ALL.get(undigit(chars.next()?)?)?;
    let mapped = match chars.next()? {
        '0' => false,
        '1' => true,
        _ => return None,
    };
    let rest = chars.as_str();
    let index = if rest.is_empty() {
        None
    } else {
        Some(u16::try_from(unbase36(rest)?).ok()?)
    };
    Some(Device { api, index, mapped })
}

fn decode_facts(s: &str) -> Option<Facts> {
    let mut facts = Facts::default();
    if s.is_empty() {
        return Some(facts);
    }
    for part in s.split('.') {
        let mut chars = part.chars();
        let key = chars.next()?;
        let slot = FACT_KEYS.iter().position(|&k| k == key)?;
        let value = unbase36(chars.as_str()).filter(|&v| v <= MAX_COUNT)?;
        let slots = fact_slots(&mut facts);
        if slots[slot].replace(value).is_some() {
            return None;
        }
    }
    Some(facts)
}

fn digit(i: usize) -> char {
    char::from_digit(i as u32, 36).expect("fewer than 36 variants")
}

fn undigit(c: char) -> Option<usize> {
    (!c.is_ascii_uppercase())
        .then(|| c.to_digit(36))
        .flatten()
        .map(|d| d as usize)
}

fn base36(mut v: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(digit((v % 36) as usize));
        v /= 36;
        if v == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}

/// A base-36 number as `base36` writes it: lowercase, no leading zeros, at most 13 digits.
fn unbase36(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 13 || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    s.chars().try_fold(0u64, |acc, c| {
        acc.checked_mul(36)?.checked_add(undigit(c)? as u64)
    })
}
