//! nvidia-smi: its table (`| N/A 34C P0 69W / 700W | 71234MiB / 81559MiB | ...`), its CSV
//! (`--query-gpu=index,memory.used,memory.total --format=csv`, with or without `nounits`), and
//! gpustat's line (`[0] Tesla P100-PCIE-16GB | 27'C, 0 % | 103 / 16384 MB |`, MB meaning MiB).
//! Used memory includes the CUDA context of every process on the GPU.

use super::quantity::{self, Quantity};
use super::{at_line, lines, Collect, Device, DeviceApi, Level, MeasureError};

pub(crate) const MARKERS: &[&str] = &["MiB /", "memory.used", "memory.total", " MB |"];

pub(crate) fn read(text: &str, c: &mut Collect) -> Result<(), MeasureError> {
    let mut csv: Option<Columns> = None;
    let mut row = 0u16;
    for (n, line) in lines(text) {
        if line.contains("memory.used") || line.contains("memory.total") {
            csv = Some(Columns::of(line));
            continue;
        }
        if let Some(cols) = &csv {
            if cols.read_row(n, line, row, c)? {
                row = row.saturating_add(1);
            }
        } else if table_row(n, line, row, c)? || gpustat_row(n, line, c)? {
            row = row.saturating_add(1);
        }
    }
    Ok(())
}

/// Where the CSV keeps what, and the unit its header names ("memory.used [MiB]").
struct Columns {
    index: Option<usize>,
    used: Option<usize>,
    total: Option<usize>,
    unit: &'static str,
}

impl Columns {
    fn of(header: &str) -> Columns {
        let names: Vec<&str> = header.split(',').map(str::trim).collect();
        let find = |name: &str| names.iter().position(|c| c.starts_with(name));
        let unit = if header.contains("[GiB]") {
            "GiB"
        } else {
            "MiB"
        };
        Columns {
            index: find("index"),
            used: find("memory.used"),
            total: find("memory.total"),
            unit,
        }
    }

    /// Reads one data row; whether it held a figure.
    fn read_row(
        &self,
        n: usize,
        line: &str,
        row: u16,
        c: &mut Collect,
    ) -> Result<bool, MeasureError> {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let index = self
            .index
            .and_then(|i| cells.get(i))
            .and_then(|s| s.parse::<u16>().ok())
            .unwrap_or(row);
        let device = Some(Device::new(DeviceApi::Gpu, Some(index)));
        let mut any = false;
        for (col, level) in [
            (self.used, Level::DeviceUsed),
            (self.total, Level::DeviceTotal),
        ] {
            let Some(cell) = col.and_then(|i| cells.get(i)) else {
                continue;
            };
            // `nounits` leaves the bare number: the header's unit applies
            let with_unit = if cell.bytes().all(|b| b.is_ascii_digit()) {
                format!("{cell} {}", self.unit)
            } else {
                cell.to_string()
            };
            if let Some(q) = at_line(n, quantity::quantity(&with_unit, false, false))? {
                c.figure(level, q, device);
                any = true;
            }
        }
        Ok(any)
    }
}

/// `| N/A 34C P0 69W / 700W | 71234MiB / 81559MiB | ...`: the memory cell of a GPU (or MIG
/// device) row; BAR1 rows, whose first cell is blank, are skipped.
fn table_row(n: usize, line: &str, row: u16, c: &mut Collect) -> Result<bool, MeasureError> {
    let Some(at) = line.find("MiB /") else {
        return Ok(false);
    };
    let first_cell = line.split('|').nth(1).unwrap_or("");
    if first_cell.trim().is_empty() {
        return Ok(false);
    }
    let start = line[..at]
        .trim_end_matches(|ch: char| ch.is_ascii_digit())
        .len();
    let device = Some(Device::new(DeviceApi::Gpu, Some(row)));
    let Some(used) = at_line(n, quantity::quantity(&line[start..], false, false))? else {
        return Ok(false);
    };
    c.figure(Level::DeviceUsed, used, device);
    if let Some(total) = at_line(n, quantity::first_quantity(&line[at + 5..], 8, false))? {
        c.figure(Level::DeviceTotal, total, device);
    }
    Ok(true)
}

/// `[0] Tesla P100-PCIE-16GB | 27'C,   0 % |   103 / 16384 MB |`.
fn gpustat_row(n: usize, line: &str, c: &mut Collect) -> Result<bool, MeasureError> {
    let Some(index) = line
        .trim_start()
        .strip_prefix('[')
        .and_then(|r| r.split(']').next())
        .and_then(|i| i.parse::<u16>().ok())
    else {
        return Ok(false);
    };
    let Some(cell) = line
        .split('|')
        .find(|cell| cell.trim_end().ends_with(" MB"))
    else {
        return Ok(false);
    };
    let Some((used, total)) = cell.split_once('/') else {
        return Ok(false);
    };
    let device = Some(Device::new(DeviceApi::Gpu, Some(index)));
    let total = at_line(n, quantity::quantity(total.trim(), true, false))?;
    let Some(total @ Quantity { unit, reading, .. }) = total else {
        return Ok(false);
    };
    let used = at_line(n, quantity::decimal(used.trim()).transpose())?;
    if let Some((d, _)) = used {
        let bytes = at_line(n, d.times(unit.bytes(reading)))?;
        c.figure(Level::DeviceUsed, Quantity { bytes, ..total }, device);
    }
    c.figure(Level::DeviceTotal, total, device);
    Ok(true)
}
