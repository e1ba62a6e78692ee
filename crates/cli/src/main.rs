//! `vram-budget`: the same budget as the page, on the command line.

mod flags;
mod hub;
mod llama;
mod llama_flags;
mod measured;

use std::process::ExitCode;

use flags::{split_inline, take_value};
use vram_engine::{
    encode_link, estimate_with, remedies, serve_command, solve, startup_concurrency, verdicts,
    Answer, Job, Remedy, Server, Verdict,
};

use vram_engine::parse_quantization;
use vram_engine::PageSettings;
use vram_engine::{
    decode_link, decode_pairs, find_preset, link_pairs, parse_param_count, presets, Architecture,
    Breakdown, Component, EngineError, Gpu, Measurement, ModelChoice, Notice, Scenario, Setting,
    SettingKind, MAX_CONFIG_BYTES, MAX_LINK_CHARS, SETTINGS,
};
use vram_text::{error, notice, refusal, setting_help, Lang};

const USAGE_HEAD: &str = "\
vram-budget: how much GPU memory an LLM job needs, and whether it fits

USAGE:
    vram-budget [OPTIONS]
    vram-budget --link 'https://…/?v=1&m=llama-3.1-8b&j=lora&b=4'

MODEL (one of):
    --model ID            a preset (see --list-models)        [llama-3.1-8b]
    --params N            a bare parameter count: 7B, 1.5B, 350M (approximate dense shape)
    --config FILE         a Hugging Face config.json (--name NAME to label it)
    --hf ID               a Hugging Face model id or URL (see HUGGING FACE HUB below)

SETTINGS (each is also a link key, shown in brackets with its default):
";

const USAGE_TAIL: &str = "
OUTPUT:
    --unit gib|gb  --explain (formulas)  --json  --list-models  --list-gpus  --help

YOUR MEASUREMENT:
    --measured FILE       compare with what you measured (- for standard input): a vLLM or
                          llama.cpp log, torch.cuda.memory_stats()/memory_summary(), nvidia-smi,
                          the measuring tool's JSON, or a size such as \"21.3 GiB allocated\"
";

/// The usage text: fixed parts around one line per setting of the engine's registry.
fn usage() -> String {
    let d = Scenario::default();
    let mut o = USAGE_HEAD.to_string();
    for st in SETTINGS {
        let flag = format!("--{} {}", st.flag, st.value_hint);
        let choices = match st.kind {
            SettingKind::Choice => format!(": {}", st.keys().join(" ")),
            _ => String::new(),
        };
        o.push_str(&format!(
            "    {flag:<28} {}{choices}  [{}={}]\n",
            setting_help(Lang::En, st.id),
            st.key,
            st.text(&d)
        ));
    }
    o.push_str(USAGE_TAIL);
    o.push_str(hub::USAGE);
    o.push_str(llama::USAGE);
    o
}

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
    Help,
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

fn parse_args(argv: &[String]) -> Result<Command, String> {
    let mut args = Args::default();
    let mut i = 0;
    while i < argv.len() {
        let (flag, inline) = split_inline(&argv[i]);
        let value = |i: &mut usize| take_value(argv, i, &flag, inline.as_deref());
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--list-models" => return Ok(Command::ListModels),
            "--list-gpus" => return Ok(Command::ListGpus),
            "--json" => args.json = true,
            "--explain" => args.explain = true,
            "--ollama" => args.ollama = true,
            "--link" => args.link = Some(value(&mut i)?),
            "--config" => args.config = Some(value(&mut i)?),
            "--name" => args.name = Some(value(&mut i)?),
            "--measured" => args.measured = Some(value(&mut i)?),
            f => match flag_key(f) {
                Some(key) => {
                    let v = value(&mut i)?;
                    args.flags.push((f.to_string(), key, v));
                }
                None => return Err(format!("unknown option {f:?} (see --help)")),
            },
        }
        i += 1;
    }
    Ok(Command::Run(args))
}

/// Checks one flag's value on its own, so that a refusal names the flag.
fn check_flag(flag: &str, key: &str, v: &str) -> Result<(), String> {
    let why = match key {
        "m" => find_preset(v).is_none().then(|| {
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
        Some(l) => link_pairs(l)
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
            Notice::Reset(e) => error(Lang::En, e),
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
    let argv = match hub::take_args(&argv) {
        Ok((Some(h), rest)) if !rest.iter().any(|a| a == "--help" || a == "-h") => {
            return finish(run_hub(&h, rest))
        }
        Ok((_, rest)) => rest,
        Err(e) => return finish(Err(e)),
    };
    if llama::wanted(&argv) && !argv.iter().any(|a| a == "--help" || a == "-h") {
        return finish(llama::run(&argv));
    }
    match parse_args(&argv) {
        Ok(Command::Help) => {
            print!("{}", usage());
            ExitCode::SUCCESS
        }
        Ok(Command::ListModels) => {
            for p in presets() {
                let a = p.architecture();
                println!(
                    "{:<22} {:<44} {:>18} params",
                    p.id,
                    p.name,
                    vram_engine::thousands(a.params().total())
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
fn run_hub(h: &hub::HubArgs, mut rest: Vec<String>) -> Result<String, String> {
    let loaded = hub::load(h)?;
    if let hub::Model::Gguf(read) = &loaded.model {
        let json = rest.iter().any(|a| a == "--json");
        rest.extend(["--gguf".to_string(), read.file.clone()]);
        let from_hub = |name: &str| {
            if name == read.file {
                Ok(read.header.clone())
            } else {
                Err(format!(
                    "{name}: with --hf, only the repository's chosen GGUF is read"
                ))
            }
        };
        let report = llama::run_with(&rest, &from_hub)?;
        return Ok(loaded.with_gguf_read(report, json));
    }
    let mut args = match parse_args(&rest)? {
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
            .and_then(|h| vram_engine::HubEndpoint::parse(&h.endpoint).ok()),
    };
    if args.json {
        let mut out = json(&s, &b, &verdicts, &solved, &remedies, &page);
        if let Some(h) = &args.hub {
            out["hub"] = h.json();
        }
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
        out.push_str(&format!("link: ?{}\n", encode_link(&s, &page)));
        Ok(out)
    }
}

/// The measurement to compare with: `--measured FILE`, or the one a `--link` carries.
fn measurement(args: &Args) -> Result<Option<Measurement>, String> {
    match (&args.measured, &args.link) {
        (Some(path), _) => measured::read(path).map(Some),
        (None, Some(l)) => Ok(decode_link(l).page.measured),
        (None, None) => Ok(None),
    }
}

/// A line's formula in English, sizes in the scenario's unit.
fn formula(s: &Scenario, f: &vram_engine::Formula) -> String {
    vram_text::formula(vram_text::Lang::En, f, s.unit)
}

/// When a phase happens, in the job's words.
fn moment(s: &Scenario, phase: vram_engine::Phase) -> &'static str {
    vram_text::moment(vram_text::Lang::En, phase.describe(s.job))
}

fn json(
    s: &Scenario,
    b: &Breakdown,
    verdicts: &[Verdict],
    answers: &[Answer],
    remedies: &[(Remedy, u64)],
    page: &PageSettings,
) -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let mut components = Map::new();
    for c in Component::ALL {
        components.insert(c.key().into(), json!(b.bytes(*c)));
    }
    let lines: Vec<Value> = b
        .lines
        .iter()
        .map(|l| json!({"component": l.component.key(), "phase": l.phase.key(), "bytes": l.bytes, "at_peak": b.at_peak(l), "formula": formula(s, &l.formula)}))
        .collect();
    let fits: Vec<Value> = verdicts
        .iter()
        .map(|v| json!({"gpu": v.gpu.key(), "name": v.gpu.label(), "capacity_bytes": v.capacity, "budget_bytes": v.budget, "fits": v.fits, "headroom_bytes": v.headroom, "gpus_needed": v.gpus_needed}))
        .collect();
    let out = json!({
        "model": s.model.name(),
        "link": encode_link(s, page),
        "params": b.params.total(),
        "active_params": b.active_params,
        "trainable_params": b.trainable,
        "per_gpu": true,
        "gpus": s.gpus,
        "peak_phase": moment(s, b.peak_phase),
        "components_bytes": components,
        "tensors_bytes": b.tensors,
        "reserved_bytes": b.reserved,
        "total_bytes": b.total,
        "cpu_offload_bytes": b.cpu,
        "lines": lines,
        "serving": b.serving.map(|f| json!({"budget_bytes": f.budget, "kv_pool_bytes": f.kv_pool, "kv_bytes_per_token": f.kv_bytes_per_token, "blocks": f.blocks, "tokens": f.tokens, "max_concurrency": f.max_concurrency, "max_len_fits": f.max_len_fits, "startup_concurrency_hundredths": startup_concurrency(&f, s)})),
        "serve_commands": (s.job == Job::Serving).then(|| json!({"vllm": serve_command(s, Server::Vllm).line(), "sglang": serve_command(s, Server::Sglang).line()})),
        "fit": fits,
        "solver": {"gpu": s.gpu.key(), "answers": answers.iter().map(answer_json).collect::<Vec<Value>>()},
        "remedies": remedies.iter().map(|(r, total)| json!({"change": r.key(), "label": r.label(), "total_bytes": total})).collect::<Vec<Value>>(),
        "measured": page.measured.as_ref().map(|m| measured::json(m, b)),
        "training": s.job.is_training().then(|| training_json(s)),
    });
    out
}

/// The framework a training budget assumes and the longest step it follows.
fn training_json(s: &Scenario) -> serde_json::Value {
    let step = vram_engine::step_tokens(s);
    serde_json::json!({
        "framework": s.framework.key(),
        "framework_label": s.framework.label(),
        "longest_step": {
            "rows": step.rows,
            "row_tokens": step.row_len,
            "tokens": step.tokens(),
            "cap": step.cap,
            "basis": vram_text::step_tokens_text(Lang::En, &step),
        },
    })
}

/// An answer as JSON: the question, the setting it changes, and its reach.
fn answer_json(a: &Answer) -> serde_json::Value {
    use serde_json::json;
    use vram_engine::{Reach, SettingValue};
    let value = |v: &SettingValue| match v {
        SettingValue::Number(n) => json!(n),
        SettingValue::Choice(k) => json!(k),
        other => json!(format!("{other:?}")),
    };
    let (reach, v) = match &a.reach {
        Reach::Set(v) => ("set", value(v)),
        Reach::Nothing => ("nothing_fits", json!(null)),
        Reach::UpToLimit(n) => ("up_to_limit", json!(n)),
    };
    let with: serde_json::Map<String, serde_json::Value> = a
        .with
        .iter()
        .map(|(k, v)| (k.to_string(), value(v)))
        .collect();
    json!({"question": a.question.id(), "setting": a.question.setting(), "reach": reach, "value": v, "with": with})
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
    let th = vram_engine::thousands;
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
        "\n{:<22} {:>10} {:>10} {:>6} {:>10} {:>12}",
        "GPU", "capacity", "budget", "fits", "headroom", "GPUs needed"
    );
    for v in verdicts {
        let needed = v
            .gpus_needed
            .map(|n| n.to_string())
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            o,
            "{:<22} {:>10.2} {:>10.2} {:>6} {:>10.2} {:>12}",
            v.gpu.label(),
            u.value(v.capacity),
            u.value(v.budget),
            if v.fits { "yes" } else { "no" },
            v.headroom as f64 / u.bytes() as f64,
            needed
        );
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
        let v = json(
            &s,
            &b,
            &verdicts(&s, &arch).unwrap(),
            &solve(&s, &arch),
            &remedies(&s, &arch, &b),
            &PageSettings::default(),
        );
        for c in Component::ALL {
            assert!(v["components_bytes"][c.key()].is_u64(), "{}", c.key());
        }
        assert_eq!(v["total_bytes"].as_u64().unwrap(), b.total);
    }
}
