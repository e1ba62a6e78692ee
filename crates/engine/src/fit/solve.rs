//! The solver: for the selected GPU, how far each setting the job turns can go. Each answer names
//! the setting (its registry key) and the value to set, or says that nothing in the setting's
//! range fits, or that anything up to its upper limit does.

use super::{fits, spread, GPU_COUNTS};
use crate::dtype::WeightFormat;
use crate::memory::estimate_with;
use crate::model::Architecture;
use crate::scenario::{Job, Scenario, Zero};
use crate::scenario::{Setting, SettingValue};

/// What the solver is asked, per job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Question {
    /// Training: the largest micro-batch per GPU.
    MicroBatch,
    /// Training: the longest sequence.
    Sequence,
    /// Training: the accumulation steps that reach the target global batch.
    GradAccum,
    /// Training: the fewest GPUs, with the ZeRO stage they need.
    FewestGpus,
    /// Inference: the longest prompt.
    Context,
    /// Inference: the most sequences at once.
    Batch,
    /// Serving: the longest max_model_len one request can have.
    MaxModelLen,
    /// Serving: the most concurrent requests of the average length.
    RequestsAtAverage,
    /// Serving: the most concurrent requests of max_model_len tokens each.
    RequestsAtMax,
    /// Serving: the fewest GPUs (tensor parallel) for the concurrent requests.
    FewestGpusForRequests,
    /// Every job: the highest-precision weight format the job can use.
    Format,
}

impl Question {
    /// The registry key of the setting the answer changes.
    pub fn setting(self) -> &'static str {
        match self {
            Question::MicroBatch | Question::Batch => "b",
            Question::Sequence | Question::Context => "s",
            Question::GradAccum => "ga",
            Question::FewestGpus | Question::FewestGpusForRequests => "n",
            Question::MaxModelLen => "ml",
            Question::RequestsAtAverage | Question::RequestsAtMax => "c",
            Question::Format => "w",
        }
    }

    /// A stable id: the page's element id (`answer-…`) and the key of its words.
    pub fn id(self) -> &'static str {
        match self {
            Question::MicroBatch => "micro-batch",
            Question::Sequence => "seq",
            Question::GradAccum => "grad-accum",
            Question::FewestGpus => "gpus",
            Question::Context => "context",
            Question::Batch => "batch",
            Question::MaxModelLen => "max-model-len",
            Question::RequestsAtAverage => "requests-avg",
            Question::RequestsAtMax => "requests-max",
            Question::FewestGpusForRequests => "gpus-for-requests",
            Question::Format => "format",
        }
    }

    /// The questions a job asks.
    pub fn for_job(job: Job) -> &'static [Question] {
        match job {
            Job::Full | Job::Lora | Job::Qlora => &[
                Question::MicroBatch,
                Question::Sequence,
                Question::GradAccum,
                Question::FewestGpus,
                Question::Format,
            ],
            Job::Inference => &[Question::Context, Question::Batch, Question::Format],
            Job::Serving => &[
                Question::MaxModelLen,
                Question::RequestsAtAverage,
                Question::RequestsAtMax,
                Question::FewestGpusForRequests,
                Question::Format,
            ],
            // a llama.cpp run has its own solver (max_gpu_layers, max_context)
            Job::Local => &[],
        }
    }
}

/// How far a setting can go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Set the question's setting to this value (and the answer's other settings).
    Set(SettingValue),
    /// Nothing in the setting's range fits (or, for accumulation, reaches the target).
    Nothing,
    /// Every value up to the setting's upper limit fits.
    UpToLimit(u64),
}

/// One answer of the solver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub question: Question,
    pub reach: Reach,
    /// Settings the answer holds at other values (fewest GPUs: tensor parallel and ZeRO stage;
    /// max_model_len: one request; requests at the maximum: the length).
    pub with: Vec<(&'static str, SettingValue)>,
}

impl Answer {
    fn of(question: Question, reach: Reach) -> Answer {
        Answer {
            question,
            reach,
            with: Vec::new(),
        }
    }

    /// `s` with the answer's settings made; `None` unless it sets a value.
    pub fn apply(&self, s: &Scenario) -> Option<Scenario> {
        let Reach::Set(v) = self.reach else {
            return None;
        };
        let mut t = held(s, &self.with);
        registry(self.question.setting()).set(&mut t, v);
        Some(t)
    }

    /// One step past the answer: one more of a largest, the next count below a fewest, the next
    /// format above the best. `None` when nothing is past it (or for accumulation, which is
    /// arithmetic rather than a limit).
    #[cfg(test)]
    pub(crate) fn beyond(&self, s: &Scenario) -> Option<Scenario> {
        let Reach::Set(v) = self.reach else {
            return None;
        };
        match (self.question, v) {
            (Question::GradAccum, _) => None,
            (Question::FewestGpus | Question::FewestGpusForRequests, SettingValue::Number(n)) => {
                GPU_COUNTS
                    .iter()
                    .rev()
                    .filter(|&&m| m < n)
                    .find_map(|&m| spread(s, m))
            }
            (Question::Format, SettingValue::Choice(k)) => {
                let at = WeightFormat::ALL.iter().position(|f| f.key() == k)?;
                let f = WeightFormat::ALL[..at]
                    .iter()
                    .rev()
                    .find(|f| s.job.allows(**f))?;
                let mut t = s.clone();
                t.weights = *f;
                Some(t)
            }
            (q, SettingValue::Number(n)) => {
                let st = registry(q.setting());
                let (_, max) = st.range()?;
                let mut t = held(s, &self.with);
                st.set(
                    &mut t,
                    SettingValue::Number(n.checked_add(1).filter(|m| *m <= max)?),
                );
                Some(t)
            }
            _ => None,
        }
    }
}

fn registry(key: &str) -> &'static Setting {
    Setting::by_key(key).expect("a setting of the registry")
}

fn held(s: &Scenario, with: &[(&'static str, SettingValue)]) -> Scenario {
    let mut t = s.clone();
    for (key, v) in with {
        registry(key).set(&mut t, *v);
    }
    t
}

/// Whether `t` is a valid scenario that fits its GPU.
fn fits_on(t: &Scenario, arch: &Architecture) -> bool {
    estimate_with(t, arch, false)
        .map(|b| fits(t, &b, t.gpu))
        .unwrap_or(false)
}

/// Largest `x` in `lo..=hi` for which `ok(x)` holds, assuming `ok` is monotone (true then false).
fn largest(lo: u64, hi: u64, ok: impl Fn(u64) -> bool) -> Reach {
    if !ok(lo) {
        return Reach::Nothing;
    }
    if ok(hi) {
        return Reach::UpToLimit(hi);
    }
    let (mut good, mut bad) = (lo, hi);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Reach::Set(SettingValue::Number(good))
}

/// The largest value of the question's setting that fits, the `with` settings held.
fn largest_setting(
    s: &Scenario,
    arch: &Architecture,
    question: Question,
    with: Vec<(&'static str, SettingValue)>,
) -> Answer {
    let st = registry(question.setting());
    let (min, max) = st.range().expect("a numeric setting");
    // vLLM refuses a max_model_len past the model's own context (max_position_embeddings)
    let max = match question {
        Question::MaxModelLen => max.min(arch.max_context.max(min)),
        _ => max,
    };
    let base = held(s, &with);
    let reach = largest(min, max, |x| {
        let mut t = base.clone();
        st.set(&mut t, SettingValue::Number(x));
        fits_on(&t, arch)
    });
    Answer {
        question,
        reach,
        with,
    }
}

/// The fewest GPUs on the ladder the GPU table uses, and for training the lowest ZeRO stage
/// (from the chosen one up) that fits on them.
fn fewest_gpus(s: &Scenario, arch: &Architecture, question: Question) -> Answer {
    for n in GPU_COUNTS {
        let Some(t) = spread(s, n) else { continue };
        if !fits_on(&t, arch) {
            continue;
        }
        let zero = Zero::ALL
            .iter()
            .copied()
            .filter(|z| (s.zero.stage()..=t.zero.stage()).contains(&z.stage()))
            .find(|z| {
                fits_on(
                    &Scenario {
                        zero: *z,
                        ..t.clone()
                    },
                    arch,
                )
            })
            .unwrap_or(t.zero);
        let mut with = vec![("tp", SettingValue::Number(t.tp))];
        // an inference or serving spread drops the pipeline: the answer says so, or applying it
        // would keep stages that the GPU count no longer divides into
        if t.pp != s.pp {
            with.push(("pp", SettingValue::Number(t.pp)));
        }
        if s.job.is_training() {
            with.push(("z", SettingValue::Choice(zero.key())));
        }
        return Answer {
            question,
            reach: Reach::Set(SettingValue::Number(n)),
            with,
        };
    }
    Answer::of(question, Reach::Nothing)
}

/// Accumulation steps that reach the target global batch with this micro-batch and these
/// data-parallel ranks: ceil(target / (micro-batch × GPUs / (tp × pp))).
fn grad_accum(s: &Scenario, arch: &Architecture) -> Option<Answer> {
    if s.global_batch == 0 {
        return None;
    }
    let per_step = s.batch.saturating_mul(s.data_parallel());
    let steps = s.global_batch.div_ceil(per_step.max(1));
    let (_, max) = registry("ga").range()?;
    let t = Scenario {
        grad_accum: steps,
        ..s.clone()
    };
    let reach = if steps <= max && fits_on(&t, arch) {
        Reach::Set(SettingValue::Number(steps))
    } else {
        Reach::Nothing
    };
    Some(Answer::of(Question::GradAccum, reach))
}

/// The weight format with the most bits per weight that the job can use and that fits.
fn best_format(s: &Scenario, arch: &Architecture) -> Answer {
    let best = WeightFormat::ALL.iter().find(|&&f| {
        s.job.allows(f)
            && fits_on(
                &Scenario {
                    weights: f,
                    ..s.clone()
                },
                arch,
            )
    });
    let reach = best.map_or(Reach::Nothing, |f| {
        Reach::Set(SettingValue::Choice(f.key()))
    });
    Answer::of(Question::Format, reach)
}

fn answer(s: &Scenario, arch: &Architecture, q: Question) -> Option<Answer> {
    let number = |key: &'static str, n: u64| (key, SettingValue::Number(n));
    Some(match q {
        Question::GradAccum => return grad_accum(s, arch),
        Question::FewestGpus | Question::FewestGpusForRequests => fewest_gpus(s, arch, q),
        Question::Format => best_format(s, arch),
        // what vLLM checks at start-up: one request of that length in the pool
        Question::MaxModelLen => largest_setting(s, arch, q, vec![number("c", 1)]),
        Question::RequestsAtMax => largest_setting(s, arch, q, vec![number("al", s.max_model_len)]),
        _ => largest_setting(s, arch, q, Vec::new()),
    })
}

/// The solver's answers for the selected GPU, in the job's order.
pub fn solve(s: &Scenario, arch: &Architecture) -> Vec<Answer> {
    Question::for_job(s.job)
        .iter()
        .filter_map(|q| answer(s, arch, *q))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::decode;

    fn answers(link: &str) -> Vec<Answer> {
        let s = decode(link).scenario;
        solve(&s, &s.model.architecture().unwrap())
    }

    #[test]
    fn a_70b_server_on_four_h100s_is_answered_in_serving_settings_not_in_limits() {
        let a = answers("?v=1&m=llama-3.1-70b&j=serve&gpu=h100&n=4&tp=4&c=64");
        let asked: Vec<Question> = a.iter().map(|a| a.question).collect();
        assert_eq!(asked, Question::for_job(Job::Serving));
        for x in &a {
            match x.question {
                // the model's own context, 131,072, not the setting's 10,485,760
                Question::MaxModelLen => assert_eq!(x.reach, Reach::UpToLimit(131_072)),
                _ => assert!(matches!(x.reach, Reach::Set(_)), "{x:?}"),
            }
        }
    }

    #[test]
    fn qlora_is_offered_only_the_4_bit_formats_it_trains_on() {
        let a = answers("?v=1&j=qlora&gpu=h100");
        let format = a.iter().find(|a| a.question == Question::Format).unwrap();
        assert_eq!(format.reach, Reach::Set(SettingValue::Choice("nf4")));
    }

    #[test]
    fn a_global_batch_target_is_reached_by_accumulation_over_the_data_parallel_ranks() {
        let a = answers("?v=1&j=lora&gpu=h100&b=4&n=2&gb=64");
        let ga = a
            .iter()
            .find(|a| a.question == Question::GradAccum)
            .unwrap();
        assert_eq!(ga.reach, Reach::Set(SettingValue::Number(8)));
        assert!(answers("?v=1&j=lora")
            .iter()
            .all(|a| a.question != Question::GradAccum));
    }
}
