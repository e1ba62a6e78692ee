//! `--json`: the estimate as serde structs, fields in the order they are written.

use serde::Serialize;
use serde_json::{Map, Value};
use vram_engine::{
    fit::serve_command, fit::startup_concurrency, fit::Answer, fit::Reach, fit::Remedy,
    link::PageSettings, memory::ServingFit, scenario::Server, Breakdown, Component, Job, Scenario,
    SettingValue, Verdict,
};

use crate::{formula, measured, moment};

/// The whole answer of one estimate.
#[derive(Serialize)]
pub struct Report {
    model: String,
    link: String,
    params: u64,
    active_params: u64,
    trainable_params: u64,
    per_gpu: bool,
    gpus: u64,
    peak_phase: &'static str,
    components_bytes: Map<String, Value>,
    tensors_bytes: u64,
    reserved_bytes: u64,
    total_bytes: u64,
    cpu_offload_bytes: u64,
    lines: Vec<LineJson>,
    serving: Option<ServingJson>,
    serve_commands: Option<ServeCommands>,
    fit: Vec<FitJson>,
    error_band: Value,
    solver: Solver,
    remedies: Vec<RemedyJson>,
    measured: Option<measured::MeasuredJson>,
    training: Option<TrainingJson>,
    /// What `--hf` read, when it read the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hub: Option<Value>,
}

/// The framework a training budget assumes and the longest step it follows.
#[derive(Serialize)]
struct TrainingJson {
    framework: &'static str,
    framework_label: &'static str,
    longest_step: StepJson,
}

#[derive(Serialize)]
struct StepJson {
    rows: u64,
    row_tokens: u64,
    tokens: u64,
    cap: u64,
    basis: String,
}

#[derive(Serialize)]
struct LineJson {
    component: &'static str,
    phase: &'static str,
    bytes: u64,
    at_peak: bool,
    formula: String,
}

#[derive(Serialize)]
struct ServingJson {
    budget_bytes: u64,
    kv_pool_bytes: u64,
    kv_bytes_per_token: u64,
    blocks: u64,
    tokens: u64,
    max_concurrency: u64,
    max_len_fits: bool,
    startup_concurrency_hundredths: u64,
}

#[derive(Serialize)]
struct ServeCommands {
    vllm: String,
    sglang: String,
}

#[derive(Serialize)]
struct FitJson {
    gpu: &'static str,
    name: &'static str,
    capacity_bytes: u64,
    budget_bytes: u64,
    fits: bool,
    borderline: bool,
    headroom_bytes: i64,
    gpus_needed: Option<u64>,
    /// Why the server would not start there, in words; null when nothing refuses it.
    refusal: Option<String>,
}

#[derive(Serialize)]
struct Solver {
    gpu: &'static str,
    answers: Vec<AnswerJson>,
}

/// An answer: the question, the setting it changes, and its reach.
#[derive(Serialize)]
struct AnswerJson {
    question: &'static str,
    setting: &'static str,
    reach: &'static str,
    value: Value,
    with: Map<String, Value>,
}

#[derive(Serialize)]
struct RemedyJson {
    change: &'static str,
    label: &'static str,
    total_bytes: u64,
}

impl Report {
    pub fn new(
        s: &Scenario,
        b: &Breakdown,
        verdicts: &[Verdict],
        answers: &[Answer],
        remedies: &[(Remedy, u64)],
        page: &PageSettings,
    ) -> Report {
        let components_bytes = Component::ALL
            .iter()
            .map(|c| (c.key().to_string(), Value::from(b.bytes(*c))))
            .collect();
        let lines = b
            .lines
            .iter()
            .map(|l| LineJson {
                component: l.component.key(),
                phase: l.phase.key(),
                bytes: l.bytes,
                at_peak: b.at_peak(l),
                formula: formula(s, &l.formula),
            })
            .collect();
        Report {
            model: s.model.name().to_string(),
            link: vram_engine::link::encode(s, page),
            params: b.params.total(),
            active_params: b.active_params,
            trainable_params: b.trainable,
            per_gpu: true,
            gpus: s.gpus,
            peak_phase: moment(s, b.peak_phase),
            components_bytes,
            tensors_bytes: b.tensors,
            reserved_bytes: b.reserved,
            total_bytes: b.total,
            cpu_offload_bytes: b.cpu,
            lines,
            serving: b.serving.map(|f| ServingJson::new(&f, s)),
            serve_commands: (s.job == Job::Serving).then(|| ServeCommands {
                vllm: serve_command(s, Server::Vllm).line(),
                sglang: serve_command(s, Server::Sglang).line(),
            }),
            fit: verdicts.iter().map(FitJson::new).collect(),
            error_band: crate::band_json(s, b),
            solver: Solver {
                gpu: s.gpu.key(),
                answers: answers.iter().map(AnswerJson::new).collect(),
            },
            remedies: remedies
                .iter()
                .map(|(r, total)| RemedyJson {
                    change: r.key(),
                    label: r.label(),
                    total_bytes: *total,
                })
                .collect(),
            measured: page.measured.as_ref().map(|m| measured::json(m, b)),
            training: s.job.is_training().then(|| TrainingJson::new(s)),
            hub: None,
        }
    }
}

impl TrainingJson {
    fn new(s: &Scenario) -> TrainingJson {
        let step = vram_engine::scenario::step_tokens(s);
        TrainingJson {
            framework: s.framework.key(),
            framework_label: s.framework.label(),
            longest_step: StepJson {
                rows: step.rows,
                row_tokens: step.row_len,
                tokens: step.tokens(),
                cap: step.cap,
                basis: vram_text::step_tokens_text(vram_text::Lang::En, &step),
            },
        }
    }
}

impl ServingJson {
    fn new(f: &ServingFit, s: &Scenario) -> ServingJson {
        ServingJson {
            budget_bytes: f.budget,
            kv_pool_bytes: f.kv_pool,
            kv_bytes_per_token: f.kv_bytes_per_token,
            blocks: f.blocks,
            tokens: f.tokens,
            max_concurrency: f.max_concurrency,
            max_len_fits: f.max_len_fits,
            startup_concurrency_hundredths: startup_concurrency(f, s),
        }
    }
}

impl FitJson {
    fn new(v: &Verdict) -> FitJson {
        FitJson {
            gpu: v.gpu.key(),
            name: v.gpu.label(),
            capacity_bytes: v.capacity,
            budget_bytes: v.budget,
            fits: v.fits,
            borderline: v.borderline,
            headroom_bytes: v.headroom,
            gpus_needed: v.gpus_needed,
            refusal: v
                .refusal
                .map(|r| vram_text::start_refusal(vram_text::Lang::En, &r, |x| x.to_string())),
        }
    }
}

impl AnswerJson {
    fn new(a: &Answer) -> AnswerJson {
        let value = |v: &SettingValue| match v {
            SettingValue::Number(n) => Value::from(*n),
            SettingValue::Choice(k) => Value::from(*k),
            other => Value::from(format!("{other:?}")),
        };
        let (reach, v) = match &a.reach {
            Reach::Set(v) => ("set", value(v)),
            Reach::Nothing => ("nothing_fits", Value::Null),
            Reach::UpToLimit(n) => ("up_to_limit", Value::from(*n)),
        };
        AnswerJson {
            question: a.question.id(),
            setting: a.question.setting(),
            reach,
            value: v,
            with: a
                .with
                .iter()
                .map(|(k, v)| (k.to_string(), value(v)))
                .collect(),
        }
    }
}
