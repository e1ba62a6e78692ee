//! The error bands the engine compiles in, and the accuracy report's sections per framework and
//! per band: both read the counted cases of a [`Report`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use vram_engine::{fit::BandLevel, fit::FrameworkFamily, fit::MIN_BAND_CASES, Job};

use super::{stats, Group, Report};

impl Report {
    /// The error bands the engine compiles in (`crates/engine/src/band/table.txt`): for every group
    /// of counted cases (job, framework family or any, level or any peak level), how many there
    /// are and the lowest and highest residual, measured ÷ estimated − 1, in tenths of a percent.
    pub fn band_table(&self) -> String {
        type Key = (usize, usize, usize);
        let mut groups: BTreeMap<Key, (String, Vec<(String, i32)>)> = BTreeMap::new();
        for c in self.counted() {
            let job = c.mapped.scenario.job;
            let level = c.mapped.measure.band_level();
            let mut levels = vec![level];
            if level.is_peak() {
                levels.push(BandLevel::Memory);
            }
            for level in levels {
                for family in [Some(c.mapped.family), None] {
                    let key = (
                        job.index(),
                        family.map_or(0, |f| f.index() + 1),
                        level.index(),
                    );
                    let name = format!(
                        "{} {} {}",
                        job.key(),
                        family.map_or("*", |f| f.key()),
                        level.key()
                    );
                    let entry = groups.entry(key).or_insert_with(|| (name, Vec::new()));
                    entry.1.push((c.id.clone(), c.residual_permille()));
                }
            }
        }
        let mut out = String::new();
        out.push_str(
            "# Error bands of the engine's estimates, from the counted cases of validation/.\n\
             # Written by `cargo run -p vram-engine --example validate -- --write-bands \
             crates/engine/src/band/table.txt`; do not edit.\n\
             # job family level cases lowest highest ids: residuals are measured / estimated - 1, \
             in tenths of a percent; family * is any family; level memory is any of allocated, \
             reserved, device.\n",
        );
        for (name, cases) in groups.values() {
            let lowest = cases.iter().map(|(_, r)| *r).min().unwrap_or(0);
            let highest = cases.iter().map(|(_, r)| *r).max().unwrap_or(0);
            let ids: Vec<&str> = cases.iter().map(|(id, _)| id.as_str()).collect();
            let _ = writeln!(
                out,
                "{name} {} {lowest} {highest} {}",
                cases.len(),
                ids.join(",")
            );
        }
        out
    }

    /// The summary split by framework family within each task.
    pub(super) fn by_framework_markdown(&self) -> String {
        let mut out = String::from(
            "### By framework\n\nThe same statistics per task and framework family (the tools built on the transformers \
             Trainer, TRL's SFTTrainer among them, count as one family).\n\n\
             | task | framework | cases | median | 90th percentile | worst |\n|---|---|---:|---:|---:|---:|\n",
        );
        for g in Group::ALL {
            for family in FrameworkFamily::ALL {
                let s = stats(
                    self.counted()
                        .filter(|c| c.mapped.group == g && c.mapped.family == *family),
                );
                if let Some(s) = s {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {:.1} % | {:.1} % | {:.1} % |",
                        g.label(),
                        family.label(),
                        s.n,
                        s.median,
                        s.p90,
                        s.max
                    );
                }
            }
        }
        out.push('\n');
        out
    }

    /// The error bands the engine states beside its estimates, as `band_table` writes them.
    pub(super) fn bands_markdown(&self) -> String {
        let mut out = format!(
            "## Error bands\n\n\
             Beside each estimate the page and the CLI say where measured runs like it landed: the lowest and highest \
             residual (measured ÷ estimated − 1) of the counted cases of the same job, framework family and measured \
             level, read from `crates/engine/src/band/table.txt` (`vram_engine::fit::estimate_band`). A group needs at least \
             {MIN_BAND_CASES} cases, else the answer says there are too few; of n residuals drawn alike the next falls inside \
             their range with probability (n − 1) / (n + 1). The table is written by the same program \
             (`--write-bands`); `cargo test -p vram-engine --test engine validation::` fails when it is stale. Groups with \
             {MIN_BAND_CASES} cases or more (`any` framework: every family together; `peak memory` level: allocated, reserved and \
             device figures together):\n\n\
             | job | framework | measured as | cases | measured runs landed within |\n|---|---|---|---:|---|\n"
        );
        for line in self.band_table().lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(job), Some(level)) = (Job::from_key(f[0]), BandLevel::from_key(f[2])) else {
                continue;
            };
            let family = FrameworkFamily::from_key(f[1]).map_or("any", |x| x.label());
            let cases: u32 = f[3].parse().unwrap_or(0);
            if cases < MIN_BAND_CASES {
                continue;
            }
            let pct = |p: &str| {
                let v: f64 = p.parse().unwrap_or(0.0);
                format!("{:+.1} %", v / 10.0)
            };
            let _ = writeln!(
                out,
                "| {} | {family} | {} | {cases} | {} … {} |",
                job.label(),
                level.label(),
                pct(f[4]),
                pct(f[5])
            );
        }
        out.push('\n');
        out
    }
}
