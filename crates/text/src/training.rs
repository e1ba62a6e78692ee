//! What a training budget assumes: the framework whose defaults it started from, and the longest
//! step the data can produce (the tokens the peak follows).

use vram_engine::{scenario::LengthReason, scenario::StepTokens, Scenario};

use crate::zh;
use crate::Lang;

/// (key, English, Chinese); `{0}`, `{1}` … are the numbers of [`training_basis`].
pub(crate) const TRAINING: &[crate::Row] = &[
    ("framework", "framework: {0} (its defaults, as changed here)", zh!("微调框架：{0}（按其默认值，以及此处的修改）")),
    ("cap", "longest step: {0} × {1} tokens, every row as long as the cap (no sample length given)", zh!("最长的一步：{0} × {1} token，每行与上限一样长（未给出样本长度）")),
    ("padded", "longest step: {0} × {1} tokens, every row padded to the cap", zh!("最长的一步：{0} × {1} token，每行补齐到上限")),
    ("packed", "longest step: {0} × {1} tokens, samples packed into rows of the cap", zh!("最长的一步：{0} × {1} token，样本打包成上限长度的行")),
    ("samples", "longest step: {0} × {1} tokens, rows padded to the longest sample ({1} of the cap's {2})", zh!("最长的一步：{0} × {1} token，每行补齐到最长样本（上限 {2} 中的 {1}）")),
    ("flattened", "longest step: {0} samples of {1} tokens flattened into one row of {3} (padding-free; cap {2})", zh!("最长的一步：{0} 个 {1} token 的样本展平成一行 {3} token（无填充；上限 {2}）")),
];

fn template(lang: Lang, key: &str) -> &'static str {
    crate::row(TRAINING, key).map_or("?", |(_, en, zh)| lang.text(en, zh))
}

fn fill(text: &str, args: &[String]) -> String {
    args.iter().enumerate().fold(text.to_string(), |t, (i, a)| {
        t.replace(&format!("{{{i}}}"), a)
    })
}

/// The longest step's tokens and why, in words.
pub fn step_tokens_text(lang: Lang, step: &StepTokens) -> String {
    let th = vram_engine::units::thousands;
    let key = match step.reason {
        LengthReason::Cap => "cap",
        LengthReason::PaddedToCap => "padded",
        LengthReason::Packed => "packed",
        LengthReason::Samples => "samples",
        LengthReason::Flattened => "flattened",
    };
    let args = [
        th(step.batch),
        th(step.budget_len()),
        th(step.cap),
        th(step.tokens()),
    ];
    fill(template(lang, key), &args)
}

/// The framework a training budget assumes and the step its peak follows; empty for other jobs.
pub fn training_basis(lang: Lang, s: &Scenario) -> Vec<String> {
    if !s.job.is_training() {
        return Vec::new();
    }
    let framework = crate::names::framework(lang, s.framework).to_string();
    let mut out = vec![fill(template(lang, "framework"), &[framework])];
    if !s.model.is_encoder_decoder() {
        out.push(step_tokens_text(
            lang,
            &vram_engine::scenario::step_tokens(s),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{scenario::Batching, Job};

    #[test]
    fn a_padding_free_batch_of_short_samples_says_it_flattens_them_below_the_cap() {
        let s = Scenario {
            job: Job::Qlora,
            batch: 4,
            seq: 2_048,
            sample_len: 512,
            batching: Batching::PaddingFree,
            ..Scenario::default()
        };
        let lines = training_basis(Lang::En, &s);
        assert_eq!(
            lines[0],
            "framework: TRL SFTTrainer (its defaults, as changed here)"
        );
        // 4 samples × 512 tokens = 2,048 tokens in one row
        assert_eq!(
            lines[1],
            "longest step: 4 samples of 512 tokens flattened into one row of 2,048 (padding-free; cap 2,048)"
        );
    }

    #[test]
    fn every_reason_has_words_in_both_languages() {
        for (key, en, zh) in TRAINING {
            assert!(!en.is_empty() && !zh.is_empty(), "{key}");
        }
    }
}
