//! `--measured FILE`: a user's measurement read, compared with the estimate, and printed.

use std::io::Read;

use serde::Serialize;

use vram_engine::{measured::Comparison, measured::Figure, measured::Measurement, Breakdown, Unit};
use vram_text::{level_name, level_note, measure_error, reading_note, source_name, Lang};

/// A difference above this many hundredths of a percent is worth a report (10 %).
pub const MISMATCH_BASIS_POINTS: i128 = 1_000;

/// Reads `--measured FILE` (`-`: standard input), refusing more than the engine reads before
/// reading it all; every refusal names the flag.
pub fn read(path: &str) -> Result<Measurement, String> {
    let text = read_limited(path).map_err(|e| format!("--measured: {e}"))?;
    vram_engine::measured::parse(&text)
        .map_err(|e| format!("--measured: {path}: {}", measure_error(Lang::En, &e)))
}

fn read_limited(path: &str) -> Result<String, String> {
    let limit = vram_engine::measured::MAX_INPUT_BYTES as u64;
    let mut bytes = Vec::new();
    let cannot = |e: std::io::Error| format!("cannot read {path}: {e}");
    if path == "-" {
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
    } else {
        let file = std::fs::File::open(path).map_err(cannot)?;
        let len = file.metadata().map_err(cannot)?.len();
        if len > limit {
            return Err(too_large(path, len));
        }
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
    }
    if bytes.len() as u64 > limit {
        return Err(too_large(path, bytes.len() as u64));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn too_large(path: &str, len: u64) -> String {
    let e = vram_engine::measured::MeasureError::TooLarge {
        bytes: usize::try_from(len).unwrap_or(usize::MAX),
        limit: vram_engine::measured::MAX_INPUT_BYTES,
    };
    format!("{path}: {}", measure_error(Lang::En, &e))
}

/// The section printed after the table: each compared figure beside the estimate at its level,
/// its level explained in one line, then what was measured but has no estimate to meet.
pub fn section(m: &Measurement, b: &Breakdown, unit: Unit) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\nYour measurement ({}), in {} per GPU",
        source_name(Lang::En, m.source()),
        unit.label()
    );
    let comparisons = m.compare(b);
    let _ = writeln!(
        o,
        "{:<30} {:>10} {:>10} {:>11} {:>9}",
        "level", "measured", "estimate", "difference", "%"
    );
    for c in &comparisons {
        let _ = writeln!(
            o,
            "{:<30} {:>10.2} {:>10.2} {:>+11.2} {:>9}",
            level_name(Lang::En, c.level),
            unit.value(c.measured),
            unit.value(c.estimated),
            c.difference() as f64 / unit.bytes() as f64,
            percent(c)
        );
        let _ = writeln!(o, "    {}", level_note(Lang::En, c.level));
    }
    for f in m
        .figures()
        .iter()
        .filter(|f| !comparisons.iter().any(|c| c.level == f.level))
    {
        let _ = writeln!(
            o,
            "{:<30} {:>10.2}  (no estimate at this level)",
            level_name(Lang::En, f.level),
            unit.value(f.bytes)
        );
    }
    for note in reading_notes(m) {
        let _ = writeln!(o, "note: {note}");
    }
    let off = comparisons.iter().filter(|c| mismatched(c)).count();
    if off > 0 {
        let _ = writeln!(
            o,
            "{off} of {} compared figures differ by more than 10 %: the page's \"Your measurement\" panel drafts a report",
            comparisons.len()
        );
    }
    o
}

/// Whether a comparison is off by more than 10 % of the measurement.
pub fn mismatched(c: &Comparison) -> bool {
    c.basis_points()
        .is_some_and(|bp| bp.abs() > MISMATCH_BASIS_POINTS)
}

/// "+12.5 %", or "–" when nothing was measured.
fn percent(c: &Comparison) -> String {
    c.percent()
        .map(|p| format!("{p:+.1} %"))
        .unwrap_or_else(|| "–".into())
}

/// One note per unit read in a way worth saying (GB as 10^9), each once.
fn reading_notes(m: &Measurement) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    for note in m.figures().iter().filter_map(|f| reading_note(Lang::En, f)) {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    notes
}

/// The `measured` object of `--json`: every figure in bytes and each comparison.
#[derive(Serialize)]
pub struct MeasuredJson {
    source: &'static str,
    figures: Vec<FigureJson>,
    facts: FactsJson,
    comparisons: Vec<ComparisonJson>,
}

#[derive(Serialize)]
struct FigureJson {
    level: &'static str,
    bytes: u64,
    unit: &'static str,
    reading: &'static str,
    device: Option<DeviceJson>,
}

#[derive(Serialize)]
struct DeviceJson {
    api: &'static str,
    index: Option<u16>,
    mapped: bool,
}

#[derive(Serialize)]
struct FactsJson {
    gpu_blocks: Option<u64>,
    cpu_blocks: Option<u64>,
    kv_tokens: Option<u64>,
    concurrency_tokens: Option<u64>,
    concurrency_hundredths: Option<u64>,
    gpu_util_hundredths: Option<u64>,
    params: Option<u64>,
    trainable_params: Option<u64>,
}

#[derive(Serialize)]
struct ComparisonJson {
    level: &'static str,
    measured_bytes: u64,
    estimated_bytes: u64,
    difference_bytes: i64,
    difference_basis_points: Option<i64>,
    over_10_percent: bool,
}

pub fn json(m: &Measurement, b: &Breakdown) -> MeasuredJson {
    let figure = |f: &Figure| FigureJson {
        level: f.level.key(),
        bytes: f.bytes,
        unit: f.unit.label(),
        reading: f.reading.key(),
        device: f.device.map(|d| DeviceJson {
            api: d.api.key(),
            index: d.index,
            mapped: d.mapped,
        }),
    };
    let comparison = |c: &Comparison| ComparisonJson {
        level: c.level.key(),
        measured_bytes: c.measured,
        estimated_bytes: c.estimated,
        difference_bytes: c.difference() as i64,
        difference_basis_points: c.basis_points().map(|bp| bp as i64),
        over_10_percent: mismatched(c),
    };
    let f = m.facts();
    MeasuredJson {
        source: m.source().key(),
        figures: m.figures().iter().map(figure).collect(),
        facts: FactsJson {
            gpu_blocks: f.gpu_blocks,
            cpu_blocks: f.cpu_blocks,
            kv_tokens: f.kv_tokens,
            concurrency_tokens: f.concurrency_tokens,
            concurrency_hundredths: f.concurrency_hundredths,
            gpu_util_hundredths: f.gpu_util_hundredths,
            params: f.params,
            trainable_params: f.trainable_params,
        },
        comparisons: m.compare(b).iter().map(comparison).collect(),
    }
}
