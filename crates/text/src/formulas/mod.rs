//! The budget's formulas and moments as sentences in English and in Chinese, with placeholders
//! (`{0}`, `{1}`, ...) for the numbers; the engine writes no words.

mod sentences;
pub(crate) use sentences::SENTENCES;

use crate::Lang;
use vram_engine::memory::Moment;
use vram_engine::units::thousands;
use vram_engine::Unit;
use vram_engine::{memory::Arg, memory::Formula};

pub use sentences::sentence;

/// The formula in `lang`, sizes in `unit`.
pub fn formula(lang: Lang, formula: &Formula, unit: Unit) -> String {
    let mut out = String::new();
    for clause in &formula.clauses {
        fill(&mut out, sentence(lang, clause.msg), &clause.args, unit);
    }
    out
}

/// When a phase happens, as the engine names it for the job.
pub fn moment(lang: Lang, moment: Moment) -> &'static str {
    match (lang, moment) {
        (Lang::En, Moment::Always) => "always",
        (Lang::En, Moment::StartOfBackward) => "start of backward",
        (Lang::En, Moment::OptimizerStep) => "optimizer step",
        (Lang::En, Moment::Prefill) => "prefill",
        (Lang::En, Moment::EndOfGeneration) => "end of generation",
        (Lang::En, Moment::LoadingWeights) => "loading the weights",
        (Lang::En, Moment::Evaluation) => "evaluation loop",
        (Lang::Zh, Moment::Always) => "始终",
        (Lang::Zh, Moment::StartOfBackward) => "反向传播开始时",
        (Lang::Zh, Moment::OptimizerStep) => "优化器更新时",
        (Lang::Zh, Moment::Prefill) => "预填充 (prefill)",
        (Lang::Zh, Moment::EndOfGeneration) => "生成结束时",
        (Lang::Zh, Moment::LoadingWeights) => "加载权重时",
        (Lang::Zh, Moment::Evaluation) => "评估循环中",
    }
}

/// Appends `template` with each `{i}` replaced by the i-th argument.
fn fill(out: &mut String, template: &str, args: &[Arg], unit: Unit) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        let close = open + len;
        match rest[open + 1..close]
            .parse::<usize>()
            .ok()
            .and_then(|i| args.get(i))
        {
            Some(arg) => out.push_str(&value(*arg, unit)),
            None => out.push('?'),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
}

/// How a value looks, in either language.
fn value(arg: Arg, unit: Unit) -> String {
    match arg {
        Arg::Count(n) => thousands(n),
        Arg::Int(n) => n.to_string(),
        Arg::Bytes(n) => unit.format(n),
        Arg::Bits(b) => vram_engine::units::decimal(b, 3),
        Arg::Format(f) => f.key().to_string(),
        Arg::Targets(t) => t.key(),
    }
}

#[cfg(test)]
mod tests;
