//! Decimal text read exactly, without floating point: the parameter counts of links and flags
//! ("1.5B", "6738415616", "3e9").

/// A JSON number's text as (negative, digits, power of ten): "-1.25e3" is (true, 125, 1).
/// Exact, with no floating point; None past 38 significant digits.
pub fn decimal(text: &str) -> Option<(bool, u128, i32)> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mant, exp) = match rest.find(['e', 'E']) {
        Some(i) => (
            &rest[..i],
            rest[i + 1..].trim_start_matches('+').parse::<i32>().ok()?,
        ),
        None => (rest, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut m: u128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        m = m.checked_mul(10)?.checked_add(u128::from(b - b'0'))?;
    }
    Some((negative, m, exp.checked_sub(frac.len() as i32)?))
}

/// `mantissa × 10^(exp + shift)` as a whole u64, rounded half up; None when it does not fit.
pub fn scaled(mantissa: u128, exp: i32, shift: i32) -> Option<u64> {
    let e = exp.checked_add(shift)?;
    if mantissa == 0 {
        return Some(0);
    }
    let v = if e >= 0 {
        mantissa.checked_mul(10u128.checked_pow(e as u32)?)?
    } else {
        // a divisor past u128 (10^39 and up) exceeds twice any mantissa: the value rounds to 0
        let Some(d) = 10u128.checked_pow(e.unsigned_abs()) else {
            return Some(0);
        };
        // half up without `mantissa + d / 2`, which overflows for 39-digit mantissas
        let (q, r) = (mantissa / d, mantissa % d);
        q + u128::from(r >= d - r)
    };
    u64::try_from(v).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_reads_into_digits_and_a_power_of_ten() {
        assert_eq!(decimal("-1.25e3"), Some((true, 125, 1)));
        assert_eq!(decimal("4096"), Some((false, 4096, 0)));
        assert_eq!(decimal("1."), Some((false, 1, 0)));
        assert_eq!(decimal(".5"), None);
        assert_eq!(decimal("1e"), None);
    }

    #[test]
    fn scaling_rounds_half_up_and_refuses_what_does_not_fit() {
        // 1.5 × 10^9, 25 × 10^-1 = 2.5 → 3, 14 × 10^-1 = 1.4 → 1
        assert_eq!(scaled(15, -1, 9), Some(1_500_000_000));
        assert_eq!(scaled(25, -1, 0), Some(3));
        assert_eq!(scaled(14, -1, 0), Some(1));
        assert_eq!(scaled(2, 19, 0), None);
    }
}
