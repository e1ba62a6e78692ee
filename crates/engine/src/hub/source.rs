//! Where a model came from, as it travels in a share link: the repository, the revision read
//! (the commit when the Hub gave one) and the day it was read, so a link says how old it is.

use super::error::HubError;
use super::id::{check_repo, check_revision};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubSource {
    pub repo: String,
    pub revision: String,
    /// `YYYY-MM-DD` (UTC).
    pub read_on: String,
}

impl HubSource {
    /// `owner/name@revision`, the link's `hf=` value.
    pub fn id(&self) -> String {
        format!("{}@{}", self.repo, self.revision)
    }

    /// Reads the link's `hf=` (`owner/name@revision`) and `hfd=` (`YYYY-MM-DD`) values.
    pub fn from_link(id: &str, date: &str) -> Result<HubSource, HubError> {
        let (repo, revision) = id
            .split_once('@')
            .ok_or_else(|| HubError::BadRepoId(id.chars().take(80).collect()))?;
        Ok(HubSource {
            repo: check_repo(repo)?,
            revision: check_revision(revision)?,
            read_on: check_date(date)?,
        })
    }
}

/// A `YYYY-MM-DD` date with a real month and day.
pub fn check_date(text: &str) -> Result<String, HubError> {
    let bad = || HubError::BadDate(text.chars().take(20).collect());
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return Err(bad());
    };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !(digits(y, 4) && digits(m, 2) && digits(d, 2)) {
        return Err(bad());
    }
    let (y, m, d): (u64, u64, u64) = (
        y.parse().map_err(|_| bad())?,
        m.parse().map_err(|_| bad())?,
        d.parse().map_err(|_| bad())?,
    );
    let ok = y >= 1970 && (1..=12).contains(&m) && (1..=days_in_month(y, m)).contains(&d);
    ok.then(|| text.to_string()).ok_or_else(bad)
}

fn days_in_month(y: u64, m: u64) -> u64 {
    let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The UTC date of a Unix time, `YYYY-MM-DD` (Howard Hinnant's civil_from_days).
pub fn iso_date(unix_seconds: u64) -> String {
    let z = (unix_seconds / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_give_their_utc_dates() {
        assert_eq!(iso_date(0), "1970-01-01");
        assert_eq!(iso_date(951_782_400), "2000-02-29");
        assert_eq!(iso_date(1_796_083_200), "2026-12-01");
        assert_eq!(iso_date(1_796_169_599), "2026-12-01");
    }

    #[test]
    fn a_source_reads_back_from_its_link_values_and_odd_dates_are_refused() {
        let s = HubSource::from_link("Qwen/Qwen2.5-7B@a1b2c3", "2026-12-01").unwrap();
        assert_eq!(s.id(), "Qwen/Qwen2.5-7B@a1b2c3");
        assert_eq!(s.read_on, "2026-12-01");
        for bad in [
            "2026-02-30",
            "2026-13-01",
            "26-12-01",
            "2026-12-1",
            "1969-12-31",
        ] {
            assert!(check_date(bad).is_err(), "{bad}");
        }
        assert!(check_date("2028-02-29").is_ok());
        assert!(HubSource::from_link("Qwen/Qwen2.5-7B", "2026-12-01").is_err());
    }
}
