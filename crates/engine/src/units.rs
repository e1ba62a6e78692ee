//! Bytes, GiB and GB, and exact integer arithmetic that never overflows.

pub use crate::decimal::{decimal, signed_decimal};

pub const KIB: u64 = 1 << 10;
pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;
pub(crate) const GB: u64 = 1_000_000_000;

crate::named::named_enum! {
    /// How sizes are shown: GPUs and PyTorch count in GiB (2^30); vendors' boxes say GB (10^9).
    pub enum Unit {
        Gib => ("gib", "GiB"),
        Gb => ("gb", "GB"),
    }
}

impl Unit {
    pub fn bytes(self) -> u64 {
        match self {
            Unit::Gib => GIB,
            Unit::Gb => GB,
        }
    }

    /// `bytes` in this unit as a number.
    pub fn value(self, bytes: u64) -> f64 {
        bytes as f64 / self.bytes() as f64
    }

    /// `bytes` written with two decimals and the unit, e.g. "14.96 GiB".
    pub fn format(self, bytes: u64) -> String {
        format!(
            "{} {}",
            crate::decimal::decimal(self.value(bytes), 2),
            self.label()
        )
    }
}

/// The product of `factors`, saturating at `u64::MAX` instead of overflowing.
pub fn prod(factors: &[u64]) -> u64 {
    let mut acc: u128 = 1;
    for &f in factors {
        acc = acc.saturating_mul(f as u128);
        if acc > u64::MAX as u128 {
            return u64::MAX;
        }
    }
    acc as u64
}

/// `value * num / den`, exact in 128-bit and saturating; `den` of zero gives zero.
pub(crate) fn scale(value: u64, num: u64, den: u64) -> u64 {
    if den == 0 {
        return 0;
    }
    let r = (value as u128 * num as u128) / den as u128;
    r.min(u64::MAX as u128) as u64
}

/// `a / b` rounded up; `b` of zero gives `a`.
pub fn div_ceil(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        a.div_ceil(b)
    }
}

/// A count written with thousands separators: 6,738,415,616.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A parameter count in short form: 6.74B, 124M.
pub fn short_count(n: u64) -> String {
    let f = n as f64;
    if f >= 1e12 {
        format!("{}T", crate::decimal::decimal(f / 1e12, 2))
    } else if f >= 1e9 {
        format!("{}B", crate::decimal::decimal(f / 1e9, 2))
    } else if f >= 1e6 {
        format!("{}M", crate::decimal::decimal(f / 1e6, 1))
    } else if f >= 1e3 {
        format!("{}K", crate::decimal::decimal(f / 1e3, 1))
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_saturate_instead_of_overflowing() {
        assert_eq!(prod(&[u64::MAX, 2]), u64::MAX);
        assert_eq!(prod(&[3, 5, 7]), 105);
    }

    #[test]
    fn thousands_separators_group_by_three() {
        assert_eq!(thousands(6_738_415_616), "6,738,415,616");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn a_24_gb_card_is_not_24_gib() {
        assert_eq!(Unit::Gib.format(24 * GIB), "24.00 GiB");
        assert_eq!(Unit::Gb.format(24 * GIB), "25.77 GB");
    }
}
