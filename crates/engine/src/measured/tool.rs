//! The project's measuring tool (docs/measure, `measure.py`): one JSON object, sizes in bytes.
//!
//! `{"args": {...}, "params": N, "trainable_params": N, "peak_bytes_total": B,
//!   "breakdown_near_peak": {"param": B, "grad": B, "optimizer": B, "other": B},
//!   "kv_cache_bytes_final": B, "cuda": {"max_memory_allocated": B, "max_memory_reserved": B,
//!   "device_used_now": B, "device_total": B}}` — the last two keys only when present.

use super::quantity::Quantity;
use super::{count, Collect, Level, MeasureError, MAX_BYTES};
use crate::json::{self, Value};

pub(crate) const MARKERS: &[&str] = &[
    "\"peak_bytes_total\"",
    "\"breakdown_near_peak\"",
    "\"max_memory_allocated\"",
];

const TOP: &[(&str, Level)] = &[
    ("peak_bytes_total", Level::ToolPeak),
    ("kv_cache_bytes_final", Level::ToolKvCache),
];
const BREAKDOWN: &[(&str, Level)] = &[
    ("param", Level::ToolParam),
    ("grad", Level::ToolGrad),
    ("optimizer", Level::ToolOptimizer),
    ("other", Level::ToolOther),
];
const CUDA: &[(&str, Level)] = &[
    ("max_memory_allocated", Level::Allocated),
    ("max_memory_reserved", Level::Reserved),
    ("device_used_now", Level::DeviceUsed),
    ("device_total", Level::DeviceTotal),
];

pub(crate) fn read(text: &str, c: &mut Collect) -> Result<(), MeasureError> {
    let doc = json::parse(text).map_err(|e| MeasureError::BadJson {
        line: e.line,
        column: e.column,
        why: e.why,
    })?;
    let sections = [
        (Some(&doc), TOP),
        (doc.get("breakdown_near_peak"), BREAKDOWN),
        (doc.get("cuda"), CUDA),
    ];
    for (section, keys) in sections {
        let Some(section) = section else { continue };
        for &(key, level) in keys {
            if let Some(bytes) = bytes_at(text, section, key)? {
                let q = Quantity::exact_bytes(bytes);
                c.figure(level, q, None);
            }
        }
    }
    let facts = c.facts();
    facts.params = count(
        line_of(text, "params"),
        doc.get("params").and_then(json::whole),
    )?;
    facts.trainable_params = count(
        line_of(text, "trainable_params"),
        doc.get("trainable_params").and_then(json::whole),
    )?;
    Ok(())
}

/// A byte count under `key`: None when absent or not a whole number, an error past `MAX_BYTES`.
fn bytes_at(text: &str, section: &Value, key: &str) -> Result<Option<u64>, MeasureError> {
    let Some(v) = section.get(key) else {
        return Ok(None);
    };
    let out_of_range = MeasureError::OutOfRange {
        line: line_of(text, key),
    };
    match json::whole(v) {
        Some(b) if b > MAX_BYTES => Err(out_of_range),
        Some(b) => Ok(Some(b)),
        // a positive number that is not a whole u64 is past u64: out of range; anything else
        // is not a figure
        None if json::is_positive(v) => Err(out_of_range),
        None => Ok(None),
    }
}

/// The 1-based line where `"key"` first appears (1 when it does not).
fn line_of(text: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    text.find(&quoted)
        .map_or(1, |i| text[..i].matches('\n').count() + 1)
}
