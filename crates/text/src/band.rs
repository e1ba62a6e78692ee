//! The error band of an estimate, in words: where measured runs like it landed, or why the
//! answer states none.

use vram_engine::{
    fit::Band, fit::BandGroup, fit::BandLevel, fit::FrameworkFamily, fit::MIN_BAND_CASES,
    units::signed_decimal, Unit,
};

use crate::names::job;
use crate::Lang;

/// A framework family's name.
pub fn band_family(lang: Lang, f: Option<FrameworkFamily>) -> &'static str {
    let Some(f) = f else {
        return match lang {
            Lang::En => "any framework",
            Lang::Zh => "任意框架",
        };
    };
    match (lang, f) {
        (Lang::En, f) => f.label(),
        (Lang::Zh, FrameworkFamily::Transformers) => {
            "transformers + PEFT（Trainer、TRL、axolotl、LLaMA-Factory）"
        }
        (Lang::Zh, FrameworkFamily::Other) => "其他程序",
        (Lang::Zh, f) => f.label(),
    }
}

/// What the cases of a band measured.
pub fn band_level(lang: Lang, l: BandLevel) -> &'static str {
    match lang {
        Lang::En => l.label(),
        Lang::Zh => match l {
            BandLevel::Allocated => "已分配的张量",
            BandLevel::Reserved => "分配器保留",
            BandLevel::Device => "设备总量",
            BandLevel::Memory => "峰值显存（任意工具）",
            BandLevel::Load => "加载之后",
            BandLevel::KvPool => "KV 缓存池",
        },
    }
}

/// The group a band was read from: "QLoRA · any framework · device total".
pub fn band_group(lang: Lang, g: BandGroup) -> String {
    format!(
        "{} · {} · {}",
        job(lang, g.job),
        band_family(lang, g.family),
        band_level(lang, g.level)
    )
}

/// A residual in tenths of a percent, signed: "−6.2 %", "+9.1 %".
fn percent(permille: i32) -> String {
    signed_decimal(f64::from(permille) / 10.0, 1).replace('-', "−") + " %"
}

/// The band of an estimate of `total` bytes, written in `unit`.
pub fn error_band(lang: Lang, band: &Band, total: u64, unit: Unit) -> String {
    let group = band_group(lang, band.group());
    match (*band, band.bounds(total)) {
        (
            Band::Range {
                cases,
                lower_permille,
                upper_permille,
                ..
            },
            Some((low, high)),
        ) => {
            let (lo, hi) = (percent(lower_permille), percent(upper_permille));
            let (low, high) = (unit.format(low), unit.format(high));
            match lang {
                Lang::En => format!(
                    "measured runs like this landed within {lo} … {hi} of the estimate ({low} … {high}; {cases} cases: {group})"
                ),
                Lang::Zh => format!(
                    "同类实测运行落在估计值的 {lo} … {hi} 之间（{low} … {high}；{cases} 个案例：{group}）"
                ),
            }
        }
        (band, _) => {
            let cases = band.cases();
            match lang {
                Lang::En => format!(
                    "too few similar measured runs to state an error band: {cases} ({group}), {MIN_BAND_CASES} needed"
                ),
                Lang::Zh => format!(
                    "同类实测案例太少，无法给出误差范围：{cases} 个（{group}），至少需要 {MIN_BAND_CASES} 个"
                ),
            }
        }
    }
}

/// The word beside a verdict whose band holds the card's limit.
pub fn borderline(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "borderline",
        Lang::Zh => "临界",
    }
}

/// Why a verdict is borderline, in a sentence.
pub fn borderline_why(lang: Lang) -> &'static str {
    match lang {
        Lang::En => {
            "borderline: measured runs like this one landed on both sides of this card's limit"
        }
        Lang::Zh => "临界：同类实测运行落在这张卡上限的两侧",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{Job, GIB};

    fn qlora(family: Option<FrameworkFamily>) -> BandGroup {
        BandGroup {
            job: Job::Qlora,
            family,
            level: BandLevel::Device,
        }
    }

    #[test]
    fn a_band_states_its_range_its_sizes_and_the_cases_behind_it() {
        let band = Band::Range {
            group: qlora(Some(FrameworkFamily::Transformers)),
            cases: 12,
            lower_permille: -62,
            upper_permille: 91,
        };
        // 20 GiB × 0.938 = 18.76 GiB, × 1.091 = 21.82 GiB
        assert_eq!(
            error_band(Lang::En, &band, 20 * GIB, Unit::Gib),
            "measured runs like this landed within −6.2 % … +9.1 % of the estimate (18.76 GiB … 21.82 GiB; \
             12 cases: QLoRA · transformers + PEFT (Trainer, TRL, axolotl, LLaMA-Factory) · device total)"
        );
        let zh = error_band(Lang::Zh, &band, 20 * GIB, Unit::Gib);
        assert!(
            zh.contains("−6.2 % … +9.1 %") && zh.contains("12 个案例"),
            "{zh}"
        );
    }

    #[test]
    fn too_few_cases_are_said_as_such_with_no_range() {
        let band = Band::TooFew {
            group: qlora(None),
            cases: 3,
        };
        let en = error_band(Lang::En, &band, 20 * GIB, Unit::Gib);
        assert_eq!(
            en,
            "too few similar measured runs to state an error band: 3 (QLoRA · any framework · device total), 5 needed"
        );
        assert!(!en.contains('%'));
        assert!(error_band(Lang::Zh, &band, 20 * GIB, Unit::Gib).contains("太少"));
    }
}
