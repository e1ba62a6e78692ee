//! `vram-budget`: the same budget as the page, on the command line.

mod args;
mod hub;
mod llama;
mod llama_flags;
mod measured;
mod report_json;

use std::process::ExitCode;

use args::{Given, Parsed};
use report_json::Report;
use vram_engine::{
    fit::estimate_band, fit::remedies, fit::serve_command, fit::solve, fit::startup_concurrency,
    fit::Answer, fit::Remedy, memory::estimate_with, scenario::Server, verdicts, Job, Verdict,
};

use vram_engine::hub::parse_quantization;
use vram_engine::link::PageSettings;
use vram_engine::{
    hub::MAX_CONFIG_BYTES, link::decode_pairs, link::parse_param_count, link::Notice,
    link::MAX_LINK_CHARS, measured::Measurement, Architecture, Breakdown, Component, EngineError,
    Gpu, ModelChoice, Scenario, Setting,
};
use vram_text::{error, notice, refusal, Lang};

#[derive(Default)]
struct Args {
    /// (flag, link key, value) in the order given.
    flags: Vec<(String, &'static str, String)>,
    link: Option<String>,
    config: Option<String>,
    name: Option<String>,
    measured: Option<String>,
    json: bool,
    explain: bool,
    /// `--ollama`: a llama.cpp run with Ollama's defaults for its model and machine.
    ollama: bool,
    /// A model read from the Hub (`--hf`).
    hub: Option<Box<hub::Loaded>>,
}

enum Command {
    Run(Args),
    ListModels,
    ListGpus,
}

/// The link key a flag sets: a setting of the registry, or the model.
fn flag_key(flag: &str) -> Option<&'static str> {
    match flag {
        "--model" => Some("m"),
        "--params" => Some("p"),
        _ => flag
            .strip_prefix("--")
            .and_then(Setting::by_flag)
            .map(|st| st.key),
    }
}

/// The budget's options (the Hub's are `hub`'s).
fn budget_args(options: &[Given]) -> Result<Command, String> {
    let mut args = Args::default();
    for o in options {
        let value = || o.value.clone().unwrap_or_default();
        match o.flag.as_str() {
            "--list-models" => return Ok(Command::ListModels),
            "--list-gpus" => return Ok(Command::ListGpus),
            "--json" => args.json = true,
            "--explain" => args.explain = true,
            "--ollama" => args.ollama = true,
            "--link" => args.link = Some(value()),
            "--config" => args.config = Some(value()),
            "--name" => args.name = Some(value()),
            "--measured" => args.measured = Some(value()),
            f if hub::FLAGS.contains(&f) => {}
            f => match flag_key(f) {
                Some(key) => args.flags.push((f.to_string(), key, value())),
                None => return Err(format!("unknown option {f:?} (see --help)")),
            },
        }
    }
    Ok(Command::Run(args))
}

/// Checks one flag's value on its own, so that a refusal names the flag.
fn check_flag(flag: &str, key: &str, v: &str) -> Result<(), String> {
    let why = match key {
        "m" => vram_engine::model::presets::find(v).is_none().then(|| {
            error(
                Lang::En,
                &EngineError::UnknownPreset(v.chars().take(40).collect()),
            )
        }),
        "p" => match parse_param_count(v) {
            Err(e) => Some(error(Lang::En, &e)),
            Ok(n) => Architecture::from_param_count(n)
                .err()
                .map(|_| "not a parameter count between 1M and 10T".to_string()),
        },
        _ => {
            Setting::by_key(key).and_then(|st| st.parse(v).err().map(|r| refusal(Lang::En, st, &r)))
        }
    };
    match why {
        Some(why) => Err(format!("{flag}: {why}")),
        None => Ok(()),
    }
}

/// Builds the scenario: the link's pairs first, flags on top, through the same decoder as links;
/// a refused flag, anything a link held that was ignored, or a conflict is an error here.
fn scenario(args: &Args) -> Result<Scenario, String> {
    let mut pairs = match &args.link {
        Some(l) => vram_engine::link::pairs(l)
            .ok_or_else(|| format!("the link is longer than {MAX_LINK_CHARS} characters"))?,
        None => Vec::new(),
    };
    for (flag, key, v) in &args.flags {
        check_flag(flag, key, v)?;
        pairs.push((key.to_string(), v.clone()));
    }
    let decoded = decode_pairs(&pairs);
    for info in decoded.notices.iter().filter(|n| n.is_information()) {
        eprintln!("vram-budget: link: {}", notice(Lang::En, info));
    }
    if let Some(first) = decoded.notices.iter().find(|n| !n.is_information()) {
        return Err(match first {
            // flags were checked above: what is left is the link's, or a conflict
            Notice::Normalized(r) => error(Lang::En, r.cause()),
            n => format!("link: {}", notice(Lang::En, n)),
        });
    }
    let mut s = decoded.scenario;
    if let Some(path) = &args.config {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        if meta.len() > MAX_CONFIG_BYTES as u64 {
            return Err(format!(
                "{path} is {} KiB; a config.json over {} KiB is refused",
                meta.len() / 1024,
                MAX_CONFIG_BYTES / 1024
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let name = args.name.clone().unwrap_or_else(|| path.to_string());
        s.model = ModelChoice::from_config(&name, &text)
            .map_err(|e| format!("{path}: {}", error(Lang::En, &e)))?;
        let chosen = |key: &str| args.flags.iter().any(|(_, k, _)| *k == key);
        if let Ok(Some(q)) = parse_quantization(&text) {
            s.apply_quantization(&q, chosen);
        }
    }
    if let Some((choice, format)) = args.hub.as_deref().and_then(hub::Loaded::choice) {
        s.model = choice;
        // the format the files are stored in, unless --weights chose one or the job refuses it
        let chosen = args.flags.iter().any(|(_, key, _)| *key == "w");
        if let Some(f) = format.filter(|f| !chosen && s.job.allows(*f)) {
            s.weights = f;
        }
    }
    s.validate().map_err(|e| error(Lang::En, &e))?;
    Ok(s)
}

/// Prints a run's output, or its error as one line on stderr with exit code 2.
fn finish(result: Result<String, String>) -> ExitCode {
    match result {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("vram-budget: {}", vram_text::shown(&e));
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let options = match args::parse(&argv) {
        Ok(Parsed::Help(help)) => {
            print!("{help}");
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Run(options)) => options,
        Err(e) => return finish(Err(e)),
    };
    match hub::hub_args(&options) {
        Ok(Some(h)) => return finish(run_hub(&h, options)),
        Ok(None) => {}
        Err(e) => return finish(Err(e)),
    }
    if llama::wanted(&options) {
        return finish(llama::run(&options));
    }
    match budget_args(&options) {
        Ok(Command::ListModels) => {
            for p in vram_engine::model::presets::all() {
                let a = p.architecture();
                println!(
                    "{:<22} {:<44} {:>18} params",
                    p.id,
                    p.name,
                    vram_engine::units::thousands(a.params().total())
                );
            }
            ExitCode::SUCCESS
        }
        Ok(Command::ListGpus) => {
            for g in Gpu::ALL {
                println!("{:<10} {:<20} {:>7} MiB", g.key(), g.label(), g.mib());
            }
            ExitCode::SUCCESS
        }
        Ok(Command::Run(args)) => finish(run(&args)),
        Err(e) => finish(Err(e)),
    }
}

/// `--hf ID`: the model from the Hub, then the budget (safetensors) or llama.cpp's plan (GGUF).
fn run_hub(h: &hub::HubArgs, mut options: Vec<Given>) -> Result<String, String> {
    let loaded = hub::load(h)?;
    if let hub::Model::Gguf(read) = &loaded.model {
        let json = options.iter().any(|o| o.flag == "--json");
        options.push(Given::new("--gguf", Some(&read.file)));
        let from_hub = |name: &str| {
            if name == read.file {
                Ok(read.header.clone())
            } else {
                Err(format!(
                    "{name}: with --hf, only the repository's chosen GGUF is read"
                ))
            }
        };
        let report = llama::run_with(&options, &from_hub)?;
        return Ok(loaded.with_gguf_read(report, json));
    }
    let mut args = match budget_args(&options)? {
        Command::Run(args) => args,
        _ => return Err("--hf goes with a budget's options".into()),
    };
    args.hub = Some(Box::new(loaded));
    run(&args)
}

fn run(args: &Args) -> Result<String, String> {
    let s = scenario(args)?;
    if s.job == vram_engine::Job::Local {
        let s = match args.ollama {
            true => llama::with_ollama(&s)?,
            false => s,
        };
        return llama::scenario_report(&s, args.json);
    }
    if args.ollama {
        return Err(
            "--ollama sets a llama.cpp run's defaults: it goes with --job local or --gguf".into(),
        );
    }
    let arch = s.model.architecture().map_err(|e| error(Lang::En, &e))?;
    let b = estimate_with(&s, &arch, true).map_err(|e| error(Lang::En, &e))?;
    let verdicts = verdicts(&s, &arch).map_err(|e| error(Lang::En, &e))?;
    let solved = solve(&s, &arch);
    let remedies = remedies(&s, &arch, &b);
    let page = PageSettings {
        lang: None,
        measured: measurement(args)?,
        // a mirror the model was read from opens the page on the same mirror
        hub_endpoint: args
            .hub
            .as_deref()
            .and_then(|h| vram_engine::hub::HubEndpoint::parse(&h.endpoint).ok()),
    };
    if args.json {
        let mut out = Report::new(&s, &b, &verdicts, &solved, &remedies, &page);
        out.hub = args.hub.as_ref().map(|h| h.json());
        Ok(serde_json::to_string_pretty(&out).expect("JSON of plain values") + "\n")
    } else {
        let mut out = args
            .hub
            .as_ref()
            .map_or(String::new(), |h| h.section(s.unit));
        out.push_str(&table(&s, &b, &verdicts, &solved, &remedies, args.explain));
        if let Some(m) = &page.measured {
            out.push_str(&measured::section(m, &b, s.unit));
        }
        out.push_str(&format!(
            "link: ?{}\n",
            vram_engine::link::encode(&s, &page)
        ));
        Ok(out)
    }
}

/// The measurement to compare with: `--measured FILE`, or the one a `--link` carries.
fn measurement(args: &Args) -> Result<Option<Measurement>, String> {
    match (&args.measured, &args.link) {
        (Some(path), _) => measured::read(path).map(Some),
        (None, Some(l)) => Ok(vram_engine::link::decode(l).page.measured),
        (None, None) => Ok(None),
    }
}

/// A line's formula in English, sizes in the scenario's unit.
fn formula(s: &Scenario, f: &vram_engine::memory::Formula) -> String {
    vram_text::formula(vram_text::Lang::En, f, s.unit)
}

/// When a phase happens, in the job's words.
fn moment(s: &Scenario, phase: vram_engine::Phase) -> &'static str {
    vram_text::moment(vram_text::Lang::En, phase.describe(s.job))
}

/// The error band of the total as JSON: the group of validation cases it was read from, how many,
/// and the lowest and highest residual (measured ÷ estimated − 1) in tenths of a percent with the
/// sizes they put the total at; `lower_permille` and the rest are null when too few cases are alike.
pub(crate) fn band_json(s: &Scenario, b: &Breakdown) -> serde_json::Value {
    use serde_json::json;
    use vram_engine::fit::Band;
    let band = estimate_band(s);
    let g = band.group();
    let (lower, upper) = match band {
        Band::Range {
            lower_permille,
            upper_permille,
            ..
        } => (Some(lower_permille), Some(upper_permille)),
        Band::TooFew { .. } => (None, None),
    };
    let (label, figure) = banded_figure(s, b);
    let bounds = band.bounds(figure);
    json!({
        "stated": bounds.is_some(),
        "of": if label == "Error band" { "total" } else { "kv_pool" },
        "of_bytes": figure,
        "group": {"job": g.job.key(), "framework": g.family.map(|f| f.key()), "level": g.level.key()},
        "cases": band.cases(),
        "min_cases": vram_engine::fit::MIN_BAND_CASES,
        "lower_permille": lower,
        "upper_permille": upper,
        "low_bytes": bounds.map(|(low, _)| low),
        "high_bytes": bounds.map(|(_, high)| high),
        "text": vram_text::error_band(Lang::En, &band, figure, s.unit),
    })
}

/// The figure the error band is about, with its row label: the total per GPU, or for a server
/// its KV pool (what its logs print and the band's cases measured).
fn banded_figure(s: &Scenario, b: &Breakdown) -> (&'static str, u64) {
    match (s.job, b.serving) {
        (Job::Serving, Some(f)) => ("Error band (KV pool)", f.kv_pool),
        _ => ("Error band", b.total),
    }
}

fn table(
    s: &Scenario,
    b: &Breakdown,
    verdicts: &[Verdict],
    answers: &[Answer],
    remedies: &[(Remedy, u64)],
    explain: bool,
) -> String {
    use std::fmt::Write;
    let u = s.unit;
    let mut o = String::new();
    let th = vram_engine::units::thousands;
    let _ = writeln!(
        o,
        "{} · {} · {} · batch {} × {} tokens · {} × {}",
        s.model.name(),
        s.job.label(),
        s.effective_weights().label(),
        s.batch,
        th(s.seq),
        s.gpus,
        s.gpu.label()
    );
    for line in vram_text::training_basis(Lang::En, s) {
        let _ = writeln!(o, "{line}");
    }
    let _ = writeln!(
        o,
        "params {} (active {}, trainable {})\n",
        th(b.params.total()),
        th(b.active_params),
        th(b.trainable)
    );
    let _ = writeln!(o, "{:<28} {:>10}  at the peak", "per GPU", u.label());
    for c in Component::ALL {
        let at = b.bytes(*c);
        let largest = b.largest(*c);
        if largest == 0 {
            continue;
        }
        let note = if at == largest {
            String::new()
        } else {
            format!("(up to {} outside the peak)", u.format(largest))
        };
        let _ = writeln!(o, "{:<28} {:>10.2}  {}", c.label(), u.value(at), note);
        if explain {
            for l in b.lines.iter().filter(|l| l.component == *c) {
                let _ = writeln!(o, "    [{}] {}", moment(s, l.phase), formula(s, &l.formula));
            }
        }
    }
    let _ = writeln!(
        o,
        "{:<28} {:>10.2}  (live tensors {}, at the {})",
        "Total per GPU",
        u.value(b.total),
        u.format(b.tensors),
        moment(s, b.peak_phase)
    );
    let (label, figure) = banded_figure(s, b);
    let _ = writeln!(
        o,
        "{:<28} {}",
        label,
        vram_text::error_band(Lang::En, &estimate_band(s), figure, u)
    );
    if b.cpu > 0 {
        let _ = writeln!(o, "{:<28} {:>10.2}", "CPU memory (offload)", u.value(b.cpu));
    }
    if let (Some(f), Server::Sglang) = (b.serving, s.server) {
        let split = b.sglang_split(s, s.gpu);
        let _ = writeln!(
            o,
            "\nSGLang on {}: mem_fraction_static {}.{:03} × {} free before loading = {}; weights {}, KV pool {} = max_total_num_tokens {} ({} pages of {}), ~{} requests of {} tokens at once{}",
            s.gpu.label(),
            split.permille / 1_000,
            split.permille % 1_000,
            u.format(split.free_before),
            u.format(split.static_budget),
            u.format(split.loaded),
            u.format(f.kv_pool),
            th(f.tokens),
            th(f.blocks),
            s.block_size,
            f.max_concurrency,
            s.avg_tokens,
            if f.max_len_fits { "" } else { "; too small for one max-length request" }
        );
    } else if let Some(f) = b.serving {
        let _ = writeln!(
            o,
            "\nvLLM on {}: reserves {} ({}%), KV pool {} = {} blocks of {} tokens = {} tokens, ~{} requests of {} tokens at once{}",
            s.gpu.label(),
            u.format(f.budget),
            s.gpu_util_pct,
            u.format(f.kv_pool),
            th(f.blocks),
            s.block_size,
            th(f.tokens),
            f.max_concurrency,
            s.avg_tokens,
            if f.max_len_fits { "" } else { "; too small for one max-length request" }
        );
        let x = startup_concurrency(&f, s);
        let _ = writeln!(
            o,
            "{}",
            vram_text::startup_concurrency(Lang::En, s.max_model_len, x)
        );
    }
    let _ = writeln!(
        o,
        "\n{:<22} {:>10} {:>10} {:>6} {:>10} {:>12}  band",
        "GPU", "capacity", "budget", "fits", "headroom", "GPUs needed"
    );
    for v in verdicts {
        let needed = v
            .gpus_needed
            .map(|n| n.to_string())
            .unwrap_or_else(|| "-".into());
        let row = format!(
            "{:<22} {:>10.2} {:>10.2} {:>6} {:>10.2} {:>12}  {}",
            v.gpu.label(),
            u.value(v.capacity),
            u.value(v.budget),
            if v.fits { "yes" } else { "no" },
            v.headroom as f64 / u.bytes() as f64,
            needed,
            if v.borderline {
                vram_text::borderline(Lang::En)
            } else {
                ""
            }
        );
        let _ = writeln!(o, "{}", row.trim_end());
    }
    if let Some(v) = verdicts.iter().find(|v| v.gpu == s.gpu) {
        let serving = s.job == Job::Serving;
        let util = (serving && s.server == Server::Vllm).then_some(s.gpu_util_pct);
        let (budget, visible) = (u.format(v.budget), u.format(v.gpu.visible_bytes()));
        let capacity = u.format(v.capacity);
        let equation = if serving && s.server == Server::Sglang {
            let split = b.sglang_split(s, s.gpu);
            let free = u.format(split.free_before);
            vram_text::sglang_budget_equation(Lang::En, split.permille, &budget, &free)
        } else {
            vram_text::budget_equation(Lang::En, util, &budget, &visible, &capacity)
        };
        let _ = writeln!(o, "{}: {equation}", v.gpu.label());
        if v.borderline {
            let _ = writeln!(
                o,
                "{}: {}",
                v.gpu.label(),
                vram_text::borderline_why(Lang::En)
            );
        }
        if let Some(r) = &v.refusal {
            let _ = writeln!(
                o,
                "{}",
                vram_text::start_refusal(Lang::En, r, |x| u.format(x))
            );
        }
    }
    let _ = writeln!(o, "\nOn {}:", s.gpu.label());
    for a in answers {
        let _ = writeln!(
            o,
            "  {:<44} {}",
            vram_text::question(Lang::En, a.question),
            vram_text::answer(Lang::En, a)
        );
    }
    if s.job == Job::Serving {
        for server in [Server::Vllm, Server::Sglang] {
            let _ = writeln!(o, "\n{}", serve_command(s, server).line());
        }
        let _ = writeln!(o);
    }
    if !remedies.is_empty() {
        let _ = writeln!(
            o,
            "It fits on {} with any one of these changes:",
            s.gpu.label()
        );
        for (r, total) in remedies {
            let _ = writeln!(o, "  {:<52} {}", r.label(), u.format(*total));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the command line for a budget.
    fn parse_args(argv: &[String]) -> Result<Command, String> {
        match args::parse(argv)? {
            Parsed::Run(options) => budget_args(&options),
            Parsed::Help(_) => Err("the help".into()),
        }
    }

    fn args(v: &[&str]) -> Args {
        match parse_args(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap() {
            Command::Run(a) => a,
            _ => panic!("not a run"),
        }
    }

    #[test]
    fn flags_and_a_link_build_the_same_scenario() {
        let from_flags = scenario(&args(&[
            "--job",
            "full",
            "--batch",
            "2",
            "--gpu=h100",
            "--zero",
            "3",
            "--gpus",
            "8",
        ]))
        .unwrap();
        let from_link = scenario(&args(&[
            "--link",
            "https://x.invalid/?v=1&j=full&b=2&gpu=h100&z=3&n=8",
        ]))
        .unwrap();
        assert_eq!(from_flags, from_link);
    }

    #[test]
    fn a_bad_value_is_one_clear_error() {
        let err = scenario(&args(&["--batch", "lots"])).err().unwrap();
        assert!(err.contains("batch"), "{err}");
        assert!(parse_args(&["--frobnicate".to_string()]).is_err());
        assert!(parse_args(&["--batch".to_string()]).is_err());
    }

    #[test]
    fn json_output_names_every_component_in_bytes() {
        let s = Scenario::default();
        let arch = s.model.architecture().unwrap();
        let b = estimate_with(&s, &arch, true).unwrap();
        let report = Report::new(
            &s,
            &b,
            &verdicts(&s, &arch).unwrap(),
            &solve(&s, &arch),
            &remedies(&s, &arch, &b),
            &PageSettings::default(),
        );
        let v = serde_json::to_value(&report).unwrap();
        for c in Component::ALL {
            assert!(v["components_bytes"][c.key()].is_u64(), "{}", c.key());
        }
        assert_eq!(v["total_bytes"].as_u64().unwrap(), b.total);
    }
}
