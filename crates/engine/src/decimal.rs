//! Numbers with a fixed count of decimals, written exactly as `format!("{:.N}")` writes them
//! (the exact binary value rounded half to even), without core's float printing: Grisu, Dragon4
//! and their tables cost the page about 6 KB gzip, and a fixed count of decimals needs none of it.
//!
//! The value `m × 2^e` times `10^places` is an integer when `e ≥ 0`; otherwise its integer part
//! and whether the dropped bits are below, at or above one half decide the last digit. Both are
//! exact on a small big number of 32-bit limbs.

use std::cmp::Ordering;

/// `value` with `places` decimals: `decimal(14.955, 2)` is "14.96" when 14.955 is stored above
/// the half, as `format!("{:.2}", 14.955)` writes it.
pub fn decimal(value: f64, places: u32) -> String {
    written(value, places, false)
}

/// `value` with `places` decimals and a sign either way, as `format!("{:+.N}")`: "+1.5", "-0.3".
pub fn signed_decimal(value: f64, places: u32) -> String {
    written(value, places, true)
}

fn written(value: f64, places: u32, plus: bool) -> String {
    if value.is_nan() {
        return "NaN".to_string();
    }
    let mut out = String::new();
    if value.is_sign_negative() {
        out.push('-');
    } else if plus {
        out.push('+');
    }
    if value.is_infinite() {
        out.push_str("inf");
        return out;
    }
    let digits = rounded_digits(value.abs(), places);
    // at least one digit before the point
    let places = places as usize;
    let padded = format!(
        "{}{digits}",
        "0".repeat((places + 1).saturating_sub(digits.len()))
    );
    let point = padded.len() - places;
    out.push_str(&padded[..point]);
    if places > 0 {
        out.push('.');
        out.push_str(&padded[point..]);
    }
    out
}

/// The decimal digits of `value × 10^places` rounded half to even (`value` finite, not negative).
fn rounded_digits(value: f64, places: u32) -> String {
    let bits = value.to_bits();
    let (biased, fraction) = ((bits >> 52) & 0x7ff, bits & ((1 << 52) - 1));
    let (mantissa, exponent) = match biased {
        0 => (fraction, -1074),
        _ => (fraction | 1 << 52, biased as i32 - 1075),
    };
    if let Some(digits) = rounded_in_u64(mantissa, exponent, places) {
        return digits;
    }
    let mut n = Limbs::from(mantissa);
    for _ in 0..places {
        n.times(10);
    }
    if exponent >= 0 {
        n.shift_left(exponent as u32);
    } else {
        let rest = n.shift_right(exponent.unsigned_abs());
        if rest == Ordering::Greater || (rest == Ordering::Equal && n.is_odd()) {
            n.add_one();
        }
    }
    n.into_decimal()
}

/// The same digits for the values the page writes (a mantissa times 10^places within 64 bits:
/// up to three places), on machine integers, so the common case skips the big-number path.
/// `None` sends the rest there.
fn rounded_in_u64(mantissa: u64, exponent: i32, places: u32) -> Option<String> {
    let scaled = mantissa.checked_mul(10u64.checked_pow(places)?)?;
    let whole = if exponent >= 0 {
        scaled
            .checked_shl(exponent as u32)
            .filter(|w| w >> exponent == scaled)?
    } else {
        let by = exponent.unsigned_abs();
        if by >= 64 {
            // the product is under 2^64, so under one half of the last place: it rounds to zero
            return Some("0".to_string());
        }
        let (whole, rest, half) = (scaled >> by, scaled & ((1 << by) - 1), 1u64 << (by - 1));
        whole + u64::from(rest > half || (rest == half && whole & 1 == 1))
    };
    Some(whole.to_string())
}

/// A non-negative integer, least significant 32 bits first.
struct Limbs(Vec<u32>);

impl Limbs {
    fn from(value: u64) -> Limbs {
        Limbs(vec![value as u32, (value >> 32) as u32])
    }

    fn times(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let product = *limb as u64 * factor as u64 + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn add_one(&mut self) {
        for limb in &mut self.0 {
            let (sum, overflow) = limb.overflowing_add(1);
            *limb = sum;
            if !overflow {
                return;
            }
        }
        self.0.push(1);
    }

    fn is_odd(&self) -> bool {
        self.0[0] & 1 == 1
    }

    fn bit(&self, at: u32) -> bool {
        let limb = (at / 32) as usize;
        limb < self.0.len() && self.0[limb] >> (at % 32) & 1 == 1
    }

    fn shift_left(&mut self, by: u32) {
        let mut shifted = vec![0u32; (by / 32) as usize];
        let (bits, mut carry) = (by % 32, 0u32);
        for &limb in &self.0 {
            shifted.push(if bits == 0 {
                limb
            } else {
                limb << bits | carry
            });
            carry = if bits == 0 { 0 } else { limb >> (32 - bits) };
        }
        shifted.push(carry);
        self.0 = shifted;
    }

    /// Drops the low `by` bits, and says how they compare with half of `2^by`.
    fn shift_right(&mut self, by: u32) -> Ordering {
        let half = by - 1;
        let below = (0..half.min(32 * self.0.len() as u32)).any(|at| self.bit(at));
        let rest = match (self.bit(half), below) {
            (false, _) => Ordering::Less,
            (true, false) => Ordering::Equal,
            (true, true) => Ordering::Greater,
        };
        let (whole, bits) = ((by / 32) as usize, by % 32);
        let kept: Vec<u32> = (whole..self.0.len())
            .map(|i| {
                let high = self.0.get(i + 1).copied().unwrap_or(0);
                if bits == 0 {
                    self.0[i]
                } else {
                    self.0[i] >> bits | high << (32 - bits)
                }
            })
            .collect();
        self.0 = if kept.is_empty() { vec![0] } else { kept };
        rest
    }

    /// Base ten, by dividing by 10^9 until nothing is left.
    fn into_decimal(mut self) -> String {
        const CHUNK: u64 = 1_000_000_000;
        let mut chunks = Vec::new();
        while self.0.iter().any(|&limb| limb != 0) {
            let mut rest = 0u64;
            for limb in self.0.iter_mut().rev() {
                let current = rest << 32 | *limb as u64;
                *limb = (current / CHUNK) as u32;
                rest = current % CHUNK;
            }
            chunks.push(rest as u32);
        }
        let Some((first, lower)) = chunks.split_last() else {
            return "0".to_string();
        };
        let mut out = first.to_string();
        for chunk in lower.iter().rev() {
            out.push_str(&format!("{chunk:09}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: the same values on every run
    fn numbers(seed: u64) -> impl Iterator<Item = u64> {
        let mut state = seed;
        std::iter::repeat_with(move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
    }

    #[test]
    fn ties_round_to_even_on_the_exact_binary_value_as_rust_writes_them() {
        assert_eq!(decimal(0.125, 2), "0.12");
        assert_eq!(decimal(0.375, 2), "0.38");
        assert_eq!(decimal(2.5, 0), "2");
        assert_eq!(decimal(0.35, 1), "0.3");
        assert_eq!(decimal(0.05, 1), "0.1");
        assert_eq!(decimal(24.0, 2), "24.00");
        assert_eq!(decimal(0.0, 3), "0.000");
        assert_eq!(decimal(-0.0, 1), "-0.0");
        assert_eq!(signed_decimal(3.25, 1), "+3.2");
        assert_eq!(signed_decimal(-0.04, 1), "-0.0");
        assert_eq!(decimal(f64::INFINITY, 1), "inf");
        assert_eq!(signed_decimal(f64::NAN, 1), "NaN");
    }

    #[test]
    fn the_machine_integer_path_writes_what_format_writes_wherever_it_applies() {
        let mut randoms = numbers(0x2545_f491_4f6c_dd1d);
        let mut fast = 0;
        for _ in 0..20_000 {
            let raw = randoms.next().unwrap();
            let v = (raw >> 11) as f64 / (1u64 << (raw % 60)) as f64;
            let places = (raw % 5) as u32;
            let bits = v.to_bits();
            let (mantissa, exponent) = (
                (bits & ((1 << 52) - 1)) | 1 << 52,
                ((bits >> 52) & 0x7ff) as i32 - 1075,
            );
            if v == 0.0 {
                continue;
            }
            if let Some(digits) = rounded_in_u64(mantissa, exponent, places) {
                fast += 1;
                let p = places as usize;
                // what format! writes, without its point and leading zeros
                let written = format!("{v:.p$}").replace('.', "");
                let written = match written.trim_start_matches('0') {
                    "" => "0",
                    digits => digits,
                };
                assert_eq!(digits, written, "{v:e} {places}");
            }
        }
        assert!(fast > 10_000, "{fast}");
    }

    #[test]
    fn every_value_is_written_as_format_writes_it() {
        let mut randoms = numbers(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let raw = randoms.next().unwrap();
            let places = (raw % 7) as u32;
            // any bit pattern (subnormals, huge values) and values of the sizes the page shows
            let values = [
                f64::from_bits(raw >> 1),
                (raw >> 11) as f64 / (1u64 << (raw % 50)) as f64,
                (raw % 100_000) as f64 / 1000.0,
                -((raw % 2_000_001) as f64 / 8.0),
            ];
            for v in values.into_iter().filter(|v| v.is_finite()) {
                let p = places as usize;
                assert_eq!(decimal(v, places), format!("{v:.p$}"), "{v:e} {places}");
                assert_eq!(signed_decimal(v, places), format!("{v:+.p$}"), "{v:e}");
            }
        }
    }
}
