//! A GGUF model in a share link: what llama.cpp's planner reads from a header (the
//! hyperparameters under `{arch}.…` and every tensor's name, dims and type), grouped so that a
//! tensor repeated over layers is written once with its layer ranges.
//!
//! Text form: `arch~fields~group~group…`, where `fields` is `.`-separated `code value` pairs
//! (`L32.E4096.K8`; a per-layer value as runs `count x value` joined by `_`: `K3x8_29x4`), and a
//! group is `name,dims,type,layers` (`attn_q.weight,4096x4096,q4_K,0-31`; `layers` empty for a
//! tensor outside the repeating layers). Every character is one a link keeps unescaped.

use super::error::GgufError;
use super::ggml_type::GgmlType;
use super::header::{read_gguf, GgufHeader};
use super::value::MetaValue;
use super::write::{DraftValue, GgufDraft};

/// The `{arch}.…` hyperparameters llama.cpp's planner reads, with their one-letter codes.
const FIELDS: [(char, &str); 14] = [
    ('L', "block_count"),
    ('C', "context_length"),
    ('E', "embedding_length"),
    ('F', "feed_forward_length"),
    ('H', "attention.head_count"),
    ('K', "attention.head_count_kv"),
    ('k', "attention.key_length"),
    ('v', "attention.value_length"),
    ('W', "attention.sliding_window"),
    ('P', "attention.sliding_window_pattern"),
    ('X', "expert_count"),
    ('U', "expert_used_count"),
    ('f', "expert_feed_forward_length"),
    ('V', "vocab_size"),
];

/// Bounds on a summary read from a link: tensors after expanding the layer ranges, groups,
/// layers, dims per tensor and characters per name.
const MAX_TENSORS: u64 = 1 << 16;
const MAX_GROUPS: usize = 4_096;
const MAX_LAYER: u32 = 1 << 16;
const MAX_DIMS: usize = 4;
const MAX_NAME: usize = 96;

/// One tensor, or one tensor of each listed layer (`blk.N.{name}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorGroup {
    pub name: String,
    pub dims: Vec<u64>,
    pub ggml_type: GgmlType,
    /// Inclusive layer ranges; empty for a tensor outside the repeating layers.
    pub layers: Vec<(u32, u32)>,
}

/// What a share link carries of a GGUF file: enough to plan llama.cpp's buffers exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufSummary {
    pub arch: String,
    /// (code, value): one value, or one per layer.
    pub(crate) fields: Vec<(char, Vec<u64>)>,
    pub groups: Vec<TensorGroup>,
}

/// Why a summary could not be formed or read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SummaryError {
    /// The header has no `general.architecture`, or one a link cannot carry.
    NoArchitecture,
    /// A tensor name holds a character the text form uses as a separator.
    Unwritable(String),
    /// The text is not a summary this page writes.
    Unreadable,
    /// The rebuilt header did not read (a tensor that is not whole blocks, too large…).
    Header(GgufError),
}

fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

fn field_values(value: &MetaValue) -> Option<Vec<u64>> {
    if let Some(n) = value.as_u64() {
        return Some(vec![n]);
    }
    value
        .as_array()?
        .values
        .as_ref()?
        .iter()
        .map(MetaValue::as_u64)
        .collect()
}

/// `blk.N.rest` → (N, rest).
fn split_layer(name: &str) -> Option<(u32, &str)> {
    let rest = name.strip_prefix("blk.")?;
    let (index, tail) = rest.split_once('.')?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((index.parse().ok()?, tail))
}

impl GgufSummary {
    /// The summary of a file's header.
    pub fn of(header: &GgufHeader) -> Result<GgufSummary, SummaryError> {
        let arch = header
            .architecture()
            .filter(|a| plain_name(a))
            .ok_or(SummaryError::NoArchitecture)?;
        let mut fields: Vec<(char, Vec<u64>)> = FIELDS
            .iter()
            .filter_map(|(code, suffix)| {
                let value = header.get(&format!("{arch}.{suffix}"))?;
                Some((*code, field_values(value)?))
            })
            .collect();
        if !fields.iter().any(|(c, _)| *c == 'V') {
            if let Some(n) = header.hyperparameters().vocab_size {
                fields.push(('V', vec![n]));
            }
        }
        let mut groups: Vec<TensorGroup> = Vec::new();
        for tensor in header.tensors() {
            if !plain_name(tensor.name()) {
                return Err(SummaryError::Unwritable(
                    tensor.name().chars().take(40).collect(),
                ));
            }
            let (layer, name) = match split_layer(tensor.name()) {
                Some((il, rest)) => (Some(il), rest),
                None => (None, tensor.name()),
            };
            let same = |g: &&mut TensorGroup| {
                g.name == name
                    && g.dims == tensor.dims()
                    && g.ggml_type == tensor.ggml_type()
                    && g.layers.is_empty() == layer.is_none()
            };
            match (groups.iter_mut().find(same), layer) {
                (Some(g), Some(il)) => add_layer(&mut g.layers, il),
                _ => groups.push(TensorGroup {
                    name: name.to_string(),
                    dims: tensor.dims().to_vec(),
                    ggml_type: tensor.ggml_type(),
                    layers: layer.map(|il| vec![(il, il)]).unwrap_or_default(),
                }),
            }
        }
        Ok(GgufSummary {
            arch: arch.to_string(),
            fields,
            groups,
        })
    }

    /// The header this summary stands for: the same hyperparameters and tensors, so llama.cpp's
    /// plan of it equals the plan of the file.
    pub fn header(&self) -> Result<GgufHeader, SummaryError> {
        read_gguf(&self.draft().bytes()).map_err(SummaryError::Header)
    }

    /// The header this summary stands for, to write: `general.architecture`, the hyperparameters,
    /// then every tensor in the summary's order.
    pub fn draft(&self) -> GgufDraft {
        let mut draft = GgufDraft::default();
        draft.metadata.push((
            "general.architecture".into(),
            DraftValue::Text(self.arch.clone()),
        ));
        for (code, values) in &self.fields {
            let Some((_, suffix)) = FIELDS.iter().find(|(c, _)| c == code) else {
                continue;
            };
            let value = match values.as_slice() {
                [one] => DraftValue::U64(*one),
                many => DraftValue::U32s(
                    many.iter()
                        .map(|&v| u32::try_from(v).unwrap_or(u32::MAX))
                        .collect(),
                ),
            };
            draft
                .metadata
                .push((format!("{}.{suffix}", self.arch), value));
        }
        for g in &self.groups {
            if g.layers.is_empty() {
                draft
                    .tensors
                    .push((g.name.clone(), g.dims.clone(), g.ggml_type));
            }
            for &(first, last) in &g.layers {
                for il in first..=last {
                    let name = format!("blk.{il}.{}", g.name);
                    draft.tensors.push((name, g.dims.clone(), g.ggml_type));
                }
            }
        }
        draft
    }

    /// The text form a link carries.
    pub fn to_text(&self) -> String {
        let mut parts = vec![self.arch.clone()];
        let fields: Vec<String> = self
            .fields
            .iter()
            .map(|(code, values)| format!("{code}{}", runs(values)))
            .collect();
        parts.push(fields.join("."));
        for g in &self.groups {
            let dims: Vec<String> = g.dims.iter().map(u64::to_string).collect();
            let layers: Vec<String> = g
                .layers
                .iter()
                .map(|&(a, b)| {
                    if a == b {
                        a.to_string()
                    } else {
                        format!("{a}-{b}")
                    }
                })
                .collect();
            parts.push(format!(
                "{},{},{},{}",
                g.name,
                dims.join("x"),
                g.ggml_type.name(),
                layers.join("_")
            ));
        }
        parts.join("~")
    }

    /// Reads the text form back; anything it did not write, or beyond its bounds, is refused.
    pub fn from_text(text: &str) -> Result<GgufSummary, SummaryError> {
        let mut parts = text.split('~');
        let arch = parts
            .next()
            .filter(|a| plain_name(a))
            .ok_or(SummaryError::Unreadable)?;
        let fields = read_fields(parts.next().ok_or(SummaryError::Unreadable)?)
            .ok_or(SummaryError::Unreadable)?;
        let groups = parts
            .map(read_group)
            .collect::<Option<Vec<_>>>()
            .filter(|g| g.len() <= MAX_GROUPS)
            .ok_or(SummaryError::Unreadable)?;
        let tensors: u64 = groups
            .iter()
            .map(|g| match g.layers.is_empty() {
                true => 1,
                false => g.layers.iter().map(|&(a, b)| u64::from(b - a) + 1).sum(),
            })
            .sum();
        if tensors > MAX_TENSORS {
            return Err(SummaryError::Unreadable);
        }
        Ok(GgufSummary {
            arch: arch.to_string(),
            fields,
            groups,
        })
    }
}

fn add_layer(ranges: &mut Vec<(u32, u32)>, il: u32) {
    match ranges.last_mut() {
        Some((_, last)) if last.checked_add(1) == Some(il) => *last = il,
        _ => ranges.push((il, il)),
    }
}

/// `8` for one value; `3x8_29x4` for per-layer values.
fn runs(values: &[u64]) -> String {
    if let [one] = values {
        return one.to_string();
    }
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &v in values {
        match out.last_mut() {
            Some((count, last)) if *last == v => *count += 1,
            _ => out.push((1, v)),
        }
    }
    let runs: Vec<String> = out.iter().map(|(n, v)| format!("{n}x{v}")).collect();
    runs.join("_")
}

fn read_fields(text: &str) -> Option<Vec<(char, Vec<u64>)>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split('.')
        .map(|field| {
            let code = field.chars().next()?;
            FIELDS.iter().find(|(c, _)| *c == code)?;
            let value = &field[code.len_utf8()..];
            Some((code, read_runs(value)?))
        })
        .collect()
}

fn read_runs(text: &str) -> Option<Vec<u64>> {
    if !text.contains('x') {
        return Some(vec![text.parse().ok()?]);
    }
    let mut values = Vec::new();
    for run in text.split('_') {
        let (count, value) = run.split_once('x')?;
        let count: u32 = count.parse().ok().filter(|&n| n > 0 && n <= MAX_LAYER)?;
        let value: u64 = value.parse().ok()?;
        if values.len() + count as usize > MAX_LAYER as usize {
            return None;
        }
        values.extend(std::iter::repeat_n(value, count as usize));
    }
    Some(values)
}

fn read_group(text: &str) -> Option<TensorGroup> {
    let mut fields = text.split(',');
    let name = fields.next().filter(|n| plain_name(n))?;
    let dims = fields
        .next()?
        .split('x')
        .map(|d| d.parse::<u64>().ok())
        .collect::<Option<Vec<_>>>()
        .filter(|d| !d.is_empty() && d.len() <= MAX_DIMS)?;
    let type_name = fields.next()?;
    let ggml_type = GgmlType::ALL.into_iter().find(|t| t.name() == type_name)?;
    let layers = match fields.next()? {
        "" => Vec::new(),
        list => list
            .split('_')
            .map(read_range)
            .collect::<Option<Vec<_>>>()?,
    };
    if fields.next().is_some() {
        return None;
    }
    Some(TensorGroup {
        name: name.to_string(),
        dims,
        ggml_type,
        layers,
    })
}

fn read_range(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
    (a <= b && b < MAX_LAYER).then_some((a, b))
}
