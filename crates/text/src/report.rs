//! The words of "Your measurement"'s comparison and mismatch report, which the readers module
//! writes (`crates/readers/src/measured_view.rs`): a first visit has no measurement, so neither
//! language is in the first load, and the module carries both.

use crate::Lang;

/// The text for `key` in `lang`; "?" when the key is missing (caught by a test).
pub fn report_text(lang: Lang, key: &str) -> &'static str {
    crate::row(REPORT, key).map_or("?", |(_, en, zh)| lang.pick(en, zh))
}

/// (key, English, Chinese).
const REPORT: &[crate::Row] = &[
    ("measured", "Measured", "实测"),
    ("estimate", "Estimate", "估算"),
    ("difference", "Estimate − measured", "估算 − 实测"),
    ("not_compared", "no estimate at this level", "估算中没有对应口径"),
    ("mismatch_h", "The estimate is more than 10 % off. Help fix it: copy this report into an issue and fill in the versions.", "估算与实测相差超过 10%。欢迎帮助改进：复制这份报告提交 issue，并填写版本信息。"),
    ("copy_report", "Copy report", "复制报告"),
    ("report_title", "vram-budget: estimate vs measurement", "vram-budget：估算与实测对比"),
    ("report_scenario", "Scenario", "场景"),
    ("report_source", "Measured with", "实测来源"),
    ("report_level", "Level", "口径"),
    ("report_components", "Estimate per component (per GPU, at the peak):", "各部分估算（每卡，峰值时刻）："),
    ("report_versions", "Versions (please fill in):", "版本（请填写）："),
    ("report_driver", "driver / CUDA", "驱动 / CUDA"),
    ("total", "Total", "合计"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_report_word_reads_in_both_languages() {
        for (key, en, zh) in REPORT {
            assert!(!en.is_empty() && !zh.is_empty() && en != zh, "{key}");
            assert_eq!(report_text(Lang::En, key), *en);
        }
        assert_eq!(report_text(Lang::En, "nope"), "?");
    }
}
