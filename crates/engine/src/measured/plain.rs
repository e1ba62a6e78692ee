//! A size typed by hand or copied from a print: "21.3 GiB allocated", "max_memory_allocated =
//! 21.3 GiB", "torch.cuda.max_memory_reserved: 23000 MiB", "18.5 GB". The level is the nearest
//! level word before the size, else the first after it; GB stays GB (10^9) and is marked decimal.

use super::quantity::{self, Quantity, Reading, SizeUnit};
use super::{at_line, lines, Collect, Level, MeasureError, MAX_BYTES};

/// Level words, longest first where one contains another.
const WORDS: &[(&str, Level)] = &[
    ("max_memory_allocated", Level::Allocated),
    ("memory_allocated", Level::Allocated),
    ("allocated", Level::Allocated),
    ("max_memory_reserved", Level::Reserved),
    ("memory_reserved", Level::Reserved),
    ("max_memory_cached", Level::Reserved),
    ("reserved", Level::Reserved),
    ("cached", Level::Reserved),
    ("active", Level::Active),
    ("nvidia-smi", Level::DeviceUsed),
    ("used", Level::DeviceUsed),
    ("total", Level::DeviceTotal),
];

/// How far after a size a level word may stand ("21.3 GiB allocated").
const AFTER: usize = 24;

pub(crate) fn read(text: &str, c: &mut Collect) -> Result<(), MeasureError> {
    for (n, line) in lines(text) {
        read_line(n, line, c)?;
    }
    Ok(())
}

fn read_line(n: usize, line: &str, c: &mut Collect) -> Result<(), MeasureError> {
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    let mut i = 0;
    while i < line.len() {
        let starts_number = line.as_bytes()[i].is_ascii_digit() && !glued(line, i);
        if !starts_number {
            i += 1;
            continue;
        }
        let before = &lower[from..i];
        let q = match at_line(n, quantity::quantity(&line[i..], false, false))? {
            Some(q) => Some(q),
            None => bare_bytes(n, &line[i..], before)?,
        };
        let Some(q) = q else {
            i += line[i..].bytes().take_while(u8::is_ascii_digit).count();
            continue;
        };
        let end = i + q.len;
        let after_end = next_boundary(&lower, end, end + AFTER);
        let level = last_word(before)
            .or_else(|| first_word(&lower[end..after_end]))
            .unwrap_or(Level::Unstated);
        c.figure(level, q, None);
        from = end;
        i = end;
    }
    Ok(())
}

/// A whole number of bytes with no unit, right after a level word ("max_memory_allocated: 22871605248").
fn bare_bytes(n: usize, s: &str, before: &str) -> Result<Option<Quantity>, MeasureError> {
    let tail = before.trim_end_matches([' ', ':', '=', '\t', '(']);
    if !WORDS.iter().any(|(w, _)| tail.ends_with(w)) {
        return Ok(None);
    }
    let Some(number) = quantity::decimal(s) else {
        return Ok(None);
    };
    let (d, len) = at_line(n, number)?;
    let Some(bytes) = d.whole() else {
        return Ok(None);
    };
    if bytes > MAX_BYTES {
        return Err(MeasureError::OutOfRange { line: n });
    }
    Ok(Some(Quantity {
        bytes,
        unit: SizeUnit::B,
        reading: Reading::Exact,
        len,
    }))
}

/// Whether the digit at `i` continues a word or a number ("H100", "v0.6", "llama-3.1").
fn glued(line: &str, i: usize) -> bool {
    line[..i]
        .bytes()
        .last()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b',' || b == b'_')
}

/// The end of the text after a size where its level word may stand: before the next digit.
fn next_boundary(lower: &str, start: usize, limit: usize) -> usize {
    let limit = limit.min(lower.len());
    lower[start..]
        .char_indices()
        .find(|&(j, ch)| start + j >= limit || ch.is_ascii_digit())
        .map_or(lower.len(), |(j, _)| start + j)
}

/// The level word that ends last in `s`.
fn last_word(s: &str) -> Option<Level> {
    WORDS
        .iter()
        .filter_map(|&(w, level)| s.rfind(w).map(|at| (at + w.len(), level)))
        .max_by_key(|&(end, _)| end)
        .map(|(_, level)| level)
}

/// The level word that starts first in `s`.
fn first_word(s: &str) -> Option<Level> {
    WORDS
        .iter()
        .filter_map(|&(w, level)| s.find(w).map(|at| (at, level)))
        .min_by_key(|&(at, _)| at)
        .map(|(_, level)| level)
}
