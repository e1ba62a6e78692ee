//! Numbers with units as people paste them: "21.3 GiB", "23,000 MiB", "14.9888 GB", exact to the byte.

use super::MAX_BYTES;
use crate::named::named_enum;

named_enum! {
    /// A size unit exactly as the source wrote it.
    pub enum SizeUnit {
        B => ("b", "B"),
        Kb => ("kb", "KB"),
        Kib => ("kib", "KiB"),
        Mb => ("mb", "MB"),
        Mib => ("mib", "MiB"),
        Gb => ("gb", "GB"),
        Gib => ("gib", "GiB"),
        Tb => ("tb", "TB"),
        Tib => ("tib", "TiB"),
    }
}

named_enum! {
    /// How a written unit became bytes.
    pub enum Reading {
        /// B, KiB, MiB, GiB, TiB: no doubt.
        Exact => ("exact", "exact"),
        /// KB, MB, GB, TB read as written (10^3 steps); some tools print GB and mean GiB.
        Decimal => ("decimal", "decimal as written"),
        /// KB, MB, GB, TB from a source known to divide by 2^10 steps (vLLM's "took … GB",
        /// llama.cpp's "MB", PyTorch's memory_summary, gpustat), read as KiB, MiB, GiB, TiB.
        Binary => ("binary", "binary by source"),
    }
}

impl SizeUnit {
    /// The unit a written word names: "GiB", "gib", "GB", "MB", "bytes" (a lone "B" only when `bare_b`).
    pub(crate) fn from_word(word: &str, bare_b: bool) -> Option<SizeUnit> {
        let unit = match word.to_ascii_lowercase().as_str() {
            "b" if bare_b => SizeUnit::B,
            "bytes" | "byte" => SizeUnit::B,
            "kb" => SizeUnit::Kb,
            "kib" => SizeUnit::Kib,
            "mb" => SizeUnit::Mb,
            "mib" => SizeUnit::Mib,
            "gb" => SizeUnit::Gb,
            "gib" => SizeUnit::Gib,
            "tb" => SizeUnit::Tb,
            "tib" => SizeUnit::Tib,
            _ => return None,
        };
        Some(unit)
    }

    /// Whether the unit as written is a power of ten (KB, MB, GB, TB).
    pub fn is_decimal(self) -> bool {
        matches!(
            self,
            SizeUnit::Kb | SizeUnit::Mb | SizeUnit::Gb | SizeUnit::Tb
        )
    }

    /// Bytes in one unit under a reading: GB is 10^9 read as written and 2^30 read as binary.
    pub fn bytes(self, reading: Reading) -> u64 {
        let binary = !self.is_decimal() || reading == Reading::Binary;
        let step: u64 = if binary { 1 << 10 } else { 1000 };
        let power = match self {
            SizeUnit::B => 0,
            SizeUnit::Kb | SizeUnit::Kib => 1,
            SizeUnit::Mb | SizeUnit::Mib => 2,
            SizeUnit::Gb | SizeUnit::Gib => 3,
            SizeUnit::Tb | SizeUnit::Tib => 4,
        };
        step.pow(power)
    }

    /// The reading of this unit when the source does not say otherwise.
    pub(crate) fn plain_reading(self) -> Reading {
        if self.is_decimal() {
            Reading::Decimal
        } else {
            Reading::Exact
        }
    }
}

/// A decimal number as written: `mantissa / 10^scale`, exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    pub(crate) mantissa: u128,
    pub(crate) scale: u32,
}

/// Digits past this many make a number unreadable (a pasted size never has more).
const MAX_DIGITS: usize = 24;

/// Why a number could not become bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumberProblem {
    Unreadable,
    TooLarge,
}

/// The number at the start of `s` ("23,000.5", "0.90"): its value and the bytes it spans.
/// Commas group thousands in the integer part only. None when `s` does not start with a digit.
pub(crate) fn decimal(s: &str) -> Option<Result<(Decimal, usize), NumberProblem>> {
    let b = s.as_bytes();
    if !b.first()?.is_ascii_digit() {
        return None;
    }
    let (mut i, mut digits, mut mantissa, mut scale) = (0usize, 0usize, 0u128, 0u32);
    let mut in_frac = false;
    while i < b.len() {
        match b[i] {
            d @ b'0'..=b'9' => {
                digits += 1;
                if digits > MAX_DIGITS {
                    return Some(Err(NumberProblem::Unreadable));
                }
                mantissa = mantissa * 10 + u128::from(d - b'0');
                scale += u32::from(in_frac);
            }
            b',' if !in_frac && group_follows(&b[i + 1..]) => {}
            b'.' if !in_frac && b.get(i + 1).is_some_and(u8::is_ascii_digit) => in_frac = true,
            _ => break,
        }
        i += 1;
    }
    Some(Ok((Decimal { mantissa, scale }, i)))
}

/// Whether exactly three digits follow a thousands comma.
fn group_follows(rest: &[u8]) -> bool {
    rest.len() >= 3
        && rest[..3].iter().all(u8::is_ascii_digit)
        && !rest.get(3).is_some_and(u8::is_ascii_digit)
}

impl Decimal {
    /// `self × per_unit` in bytes, rounded half up; refused past `MAX_BYTES`.
    pub(crate) fn times(self, per_unit: u64) -> Result<u64, NumberProblem> {
        let d = 10u128
            .checked_pow(self.scale)
            .ok_or(NumberProblem::Unreadable)?;
        let product = self
            .mantissa
            .checked_mul(u128::from(per_unit))
            .ok_or(NumberProblem::TooLarge)?;
        let (q, r) = (product / d, product % d);
        let v = q + u128::from(r >= d - r && r > 0);
        u64::try_from(v)
            .ok()
            .filter(|&v| v <= MAX_BYTES)
            .ok_or(NumberProblem::TooLarge)
    }

    /// The number as a whole count when it is one ("2,042,016"), else None.
    pub(crate) fn whole(self) -> Option<u64> {
        if self.scale != 0 {
            return None;
        }
        u64::try_from(self.mantissa).ok()
    }

    /// The number in hundredths, rounded half up ("997.08" is 99708, "0.9" is 90).
    pub(crate) fn hundredths(self) -> Option<u64> {
        let v = self.times(100).ok()?;
        Some(v)
    }
}

/// A size read from text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Quantity {
    pub bytes: u64,
    pub unit: SizeUnit,
    pub reading: Reading,
    /// Bytes of text the number and its unit span.
    pub len: usize,
}

impl Quantity {
    /// A count of bytes written as a plain number (JSON values, memory_stats keys).
    pub(crate) fn exact_bytes(bytes: u64) -> Quantity {
        Quantity {
            bytes,
            unit: SizeUnit::B,
            reading: Reading::Exact,
            len: 0,
        }
    }
}

/// The size at the start of `s`: a number, optional spaces, a unit word ("21.3 GiB", "79.22GiB").
/// `binary_decimal_units`: the source writes KB/MB/GB and means KiB/MiB/GiB. A lone "B" counts only
/// when `bare_b`. Ok(None) when `s` does not start with a number followed by a unit.
pub(crate) fn quantity(
    s: &str,
    binary_decimal_units: bool,
    bare_b: bool,
) -> Result<Option<Quantity>, NumberProblem> {
    let Some(number) = decimal(s) else {
        return Ok(None);
    };
    let (d, n) = number?;
    let rest = &s[n..];
    let gap = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    let word_len = rest[gap..]
        .bytes()
        .take_while(u8::is_ascii_alphabetic)
        .count();
    let Some(unit) = SizeUnit::from_word(&rest[gap..gap + word_len], bare_b) else {
        return Ok(None);
    };
    let reading = if unit.is_decimal() && binary_decimal_units {
        Reading::Binary
    } else {
        unit.plain_reading()
    };
    let bytes = d.times(unit.bytes(reading))?;
    Ok(Some(Quantity {
        bytes,
        unit,
        reading,
        len: n + gap + word_len,
    }))
}

/// The first size in `s` within `window` bytes of its start: skips anything that is not a digit.
pub(crate) fn first_quantity(
    s: &str,
    window: usize,
    binary_decimal_units: bool,
) -> Result<Option<Quantity>, NumberProblem> {
    for (i, c) in s.char_indices() {
        if i > window {
            break;
        }
        if c.is_ascii_digit() && !preceded_by_digit(s, i) {
            if let Some(q) = quantity(&s[i..], binary_decimal_units, false)? {
                return Ok(Some(q));
            }
        }
    }
    Ok(None)
}

fn preceded_by_digit(s: &str, i: usize) -> bool {
    s[..i]
        .bytes()
        .last()
        .is_some_and(|b| b.is_ascii_digit() || b == b'.' || b == b',')
}

/// The first number in `s` within `window` bytes of its start.
pub(crate) fn first_decimal(s: &str, window: usize) -> Option<Decimal> {
    let (i, _) = s
        .char_indices()
        .take_while(|(i, _)| *i <= window)
        .find(|(_, c)| c.is_ascii_digit())?;
    decimal(&s[i..])?.ok().map(|(d, _)| d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str) -> u64 {
        quantity(s, false, true).unwrap().unwrap().bytes
    }

    #[test]
    fn gib_and_gb_are_read_exactly_as_written() {
        assert_eq!(bytes("1 GiB"), 1 << 30);
        assert_eq!(bytes("1GB"), 1_000_000_000);
        assert_eq!(bytes("21.3 GiB"), 22_870_700_851); // 21.3 × 2^30 = 22870700851.2
        assert_eq!(bytes("23,000 MiB"), 23_000 << 20);
        assert_eq!(bytes("0.5 B"), 1);
    }

    #[test]
    fn a_source_that_means_gib_by_gb_is_read_as_binary() {
        let q = quantity("14.9888 GB", true, false).unwrap().unwrap();
        assert_eq!((q.unit, q.reading), (SizeUnit::Gb, Reading::Binary));
        assert_eq!(q.bytes, 16_094_101_452); // 14.9888 × 2^30 = 16094101451.57
    }

    #[test]
    fn sizes_past_sixteen_pib_or_with_too_many_digits_are_refused() {
        assert_eq!(
            quantity("16385 TiB", false, false),
            Err(NumberProblem::TooLarge)
        );
        assert_eq!(
            quantity("1234567890123456789012345 B", false, true),
            Err(NumberProblem::Unreadable)
        );
        assert_eq!(quantity("12 apples", false, false), Ok(None));
    }

    #[test]
    fn thousands_commas_group_only_three_digits() {
        assert_eq!(
            decimal("2,042,016 tokens").unwrap().unwrap().0.whole(),
            Some(2_042_016)
        );
        assert_eq!(decimal("12,5").unwrap().unwrap().0.whole(), Some(12));
        assert_eq!(
            decimal("997.08x").unwrap().unwrap().0.hundredths(),
            Some(99_708)
        );
    }
}
