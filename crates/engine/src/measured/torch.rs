//! PyTorch's own accounts: the dict `torch.cuda.memory_stats()` prints and the table of
//! `torch.cuda.memory_summary()`. Both give peaks of allocated, active and reserved memory.

use super::quantity::{self, Quantity};
use super::{at_line, lines, Collect, Device, DeviceApi, Level, MeasureError, MAX_BYTES};

pub(crate) const STATS_MARKERS: &[&str] = &["bytes.all.peak", "bytes.all.current"];
pub(crate) const SUMMARY_MARKERS: &[&str] = &["CUDA memory summary", "| Allocated memory"];

/// memory_stats() keys of the peaks, in the order they are kept.
const STATS: &[(&str, Level)] = &[
    ("allocated_bytes.all.peak", Level::Allocated),
    ("active_bytes.all.peak", Level::Active),
    ("reserved_bytes.all.peak", Level::Reserved),
];

/// Reads `{'active.all.allocated': 10, ..., 'allocated_bytes.all.peak': 22871605248, ...}`, also
/// as JSON (double quotes) or as the older `OrderedDict([('allocated_bytes.all.peak', 228...), ...])`.
pub(crate) fn read_stats(text: &str, c: &mut Collect) -> Result<(), MeasureError> {
    for &(key, level) in STATS {
        let Some(at) = text.find(key) else { continue };
        let line = text[..at].matches('\n').count() + 1;
        let rest = &text[at + key.len()..];
        let value = rest.trim_start_matches(['\'', '"', ' ', '\t', '\n', '\r', ':', ',']);
        let Some(number) = quantity::decimal(value) else {
            continue;
        };
        let (d, _) = at_line(line, number)?;
        let Some(bytes) = d.whole() else { continue };
        if bytes > MAX_BYTES {
            return Err(MeasureError::OutOfRange { line });
        }
        let q = Quantity::exact_bytes(bytes);
        c.figure(level, q, None);
    }
    Ok(())
}

/// Table rows whose "Peak Usage" column is kept.
const ROWS: &[(&str, Level)] = &[
    ("Allocated memory", Level::Allocated),
    ("Active memory", Level::Active),
    ("GPU reserved memory", Level::Reserved),
];

/// Reads the rows `| Allocated memory | Cur Usage | Peak Usage | Tot Alloc | Tot Freed |`. Sizes are
/// written "133632 B", "2048 KB" or "14.02 GiB"; older versions wrote KB, MB, GB for powers of 1024.
pub(crate) fn read_summary(text: &str, c: &mut Collect) -> Result<(), MeasureError> {
    let mut device = None;
    for (n, line) in lines(text) {
        if let Some(at) = line.find("device ID") {
            device = quantity::first_decimal(&line[at..], 12)
                .and_then(|d| d.whole())
                .and_then(|i| u16::try_from(i).ok())
                .map(|i| Device::new(DeviceApi::Gpu, Some(i)));
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(&(_, level)) = ROWS.iter().find(|(name, _)| cells.get(1) == Some(name)) else {
            continue;
        };
        let Some(peak) = cells.get(3) else { continue };
        if let Some(q) = at_line(n, quantity::quantity(peak, true, true))? {
            c.figure(level, q, device);
        }
    }
    Ok(())
}
