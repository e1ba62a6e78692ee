//! `--tensor-split` as a setting of a scenario: each GPU's share of the layers, as llama.cpp reads
//! `-ts 3,1` or `-ts 0.6,0.4` (common/arg.cpp: a list of non-negative numbers, one per device,
//! normalised by their sum in `llama_model_load`). The shares are kept as exact thousandths
//! reduced by their greatest common divisor, so `0.6,0.4` and `3,2` are one value and one link.

use super::settings::MAX_GPUS;

/// The largest share one GPU may be given, in thousandths (1000.000).
const MAX_SHARE_MILLI: u32 = 1_000_000;

/// The GPUs' shares of the layers; no shares: an even split over however many GPUs there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TensorShares {
    len: u8,
    parts: [u32; MAX_GPUS],
}

/// The text of the even split in links and on the command line.
pub const EVEN_SPLIT: &str = "even";

impl TensorShares {
    /// An even split over the GPUs, whatever their number (llama.cpp's default).
    pub const EVEN: TensorShares = TensorShares {
        len: 0,
        parts: [0; MAX_GPUS],
    };

    /// Reads `3,1`, `0.6,0.4` or `1/1/2` (at most three decimals, each share at most 1000, at
    /// least one above zero, at most 16 GPUs); `even` or nothing is the even split.
    pub fn parse(text: &str) -> Option<TensorShares> {
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case(EVEN_SPLIT) {
            return Some(TensorShares::EVEN);
        }
        let milli = text
            .split([',', '/'])
            .map(thousandths)
            .collect::<Option<Vec<u32>>>()?;
        if milli.len() > MAX_GPUS || milli.iter().all(|&m| m == 0) {
            return None;
        }
        let divisor = milli.iter().fold(0, |g, &m| gcd(g, m));
        let mut parts = [0; MAX_GPUS];
        for (slot, m) in parts.iter_mut().zip(&milli) {
            *slot = m / divisor;
        }
        Some(TensorShares {
            len: milli.len() as u8,
            parts,
        })
    }

    /// Whether this is the even split.
    pub fn is_even(&self) -> bool {
        self.len == 0
    }

    /// The shares in GPU order (empty for the even split).
    pub fn parts(&self) -> &[u32] {
        &self.parts[..usize::from(self.len)]
    }

    /// How many GPUs the shares name (0 for the even split).
    pub fn gpus(&self) -> usize {
        usize::from(self.len)
    }

    /// The text form: `even`, or the reduced shares joined by commas (`3,1`); as thousandths
    /// (`0.5,3.051`) when a reduced share passes the 1000 that [`TensorShares::parse`] takes.
    pub fn key(&self) -> String {
        if self.is_even() {
            return EVEN_SPLIT.to_string();
        }
        let whole = self.parts().iter().all(|&p| p <= MAX_SHARE_MILLI / 1000);
        self.parts()
            .iter()
            .map(|&p| match whole {
                true => p.to_string(),
                false => thousandths_text(p),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Whether these shares split over `gpus` GPUs: the even split does over any number, typed
    /// shares when they name that many.
    pub fn applies_to(&self, gpus: usize) -> bool {
        self.is_even() || self.gpus() == gpus
    }

    /// llama.cpp's `tensor_split` for `gpus` GPUs: these shares when they name that many GPUs,
    /// else the even split (a link whose GPU count changed after the split was typed).
    pub(crate) fn for_gpus(&self, gpus: usize) -> Vec<f32> {
        if !self.is_even() && self.gpus() == gpus {
            self.parts().iter().map(|&p| p as f32).collect()
        } else {
            vec![1.0; gpus]
        }
    }
}

/// A share as exact thousandths: digits, optionally a point and up to three more.
fn thousandths(text: &str) -> Option<u32> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() || !digits(whole) || !digits(fraction) {
        return None;
    }
    if whole.len() > 7 || fraction.len() > 3 {
        return None;
    }
    let whole: u32 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let padded = format!("{fraction:0<3}");
    let milli = whole.checked_mul(1000)? + padded.parse::<u32>().ok()?;
    (milli <= MAX_SHARE_MILLI).then_some(milli)
}

/// Thousandths as a decimal: `3051` is `3.051`, `500` is `0.5`, `2000` is `2`.
fn thousandths_text(milli: u32) -> String {
    let text = format!("{}.{:03}", milli / 1000, milli % 1000);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_and_whole_shares_of_one_proportion_are_one_value() {
        let a = TensorShares::parse("0.6,0.4").unwrap();
        let b = TensorShares::parse("3,2").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.key(), "3,2");
        assert_eq!(a.for_gpus(2), vec![3.0, 2.0]);
    }

    #[test]
    fn the_even_split_reads_from_nothing_or_its_word_and_follows_the_gpu_count() {
        assert_eq!(TensorShares::parse(""), Some(TensorShares::EVEN));
        assert_eq!(TensorShares::parse("Even"), Some(TensorShares::EVEN));
        assert_eq!(TensorShares::EVEN.key(), "even");
        assert_eq!(TensorShares::EVEN.for_gpus(3), vec![1.0; 3]);
    }

    #[test]
    fn shares_that_name_another_gpu_count_fall_back_to_the_even_split() {
        let s = TensorShares::parse("3,1").unwrap();
        assert_eq!(s.for_gpus(3), vec![1.0; 3]);
    }

    #[test]
    fn unreadable_shares_are_refused() {
        for bad in [
            "0,0",
            "1,,1",
            "-1,2",
            "1e3",
            "0.0001,1",
            "1001,1",
            "a,b",
            ".",
            "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
        ] {
            assert_eq!(TensorShares::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_even_split_applies_to_any_gpu_count_and_typed_shares_to_their_own() {
        assert!(TensorShares::EVEN.applies_to(3));
        let s = TensorShares::parse("3,1").unwrap();
        assert!(s.applies_to(2) && !s.applies_to(3));
    }

    #[test]
    fn shares_whose_reduced_parts_pass_a_thousand_are_written_as_decimals_and_read_back_equal() {
        let t = TensorShares::parse("0.5,3.051").unwrap();
        assert_eq!(t.parts(), [500, 3051]);
        assert_eq!(t.key(), "0.5,3.051");
        assert_eq!(TensorShares::parse(&t.key()), Some(t));
        let whole = TensorShares::parse("6,2").unwrap();
        assert_eq!(whole.key(), "3,1");
    }

    #[test]
    fn a_zero_share_keeps_its_gpu_in_the_list() {
        let s = TensorShares::parse("0,1,1").unwrap();
        assert_eq!(s.parts(), &[0, 1, 1]);
        assert_eq!(s.gpus(), 3);
    }
}
