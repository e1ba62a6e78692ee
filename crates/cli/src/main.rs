//! `vram-budget`: the same budget as the page, on the command line.

use std::process::ExitCode;

use vram_engine::link::{self, PageSettings};
use vram_engine::{config, fit, memory, presets, Breakdown, Component, Gpu, ModelChoice, Scenario};

const USAGE: &str = "\
vram-budget: how much GPU memory an LLM job needs, and whether it fits

USAGE:
    vram-budget [OPTIONS]
    vram-budget --link 'https://…/?v=1&m=llama-3.1-8b&j=lora&b=4'

MODEL (one of):
    --model ID            a preset (see --list-models)        [llama-3.1-8b]
    --params N            a bare parameter count: 7B, 1.5B, 350M (approximate dense shape)
    --config FILE         a Hugging Face config.json (--name NAME to label it)

JOB:
    --job J               infer | serve | full | lora | qlora   [lora]
    --weights F           fp32 bf16 q8_0 int8 fp8 q6_k q5_k_m q4_k_m nf4 gptq4 awq4 nf4dq q3_k_m q2_k
    --batch N  --seq N    micro-batch per GPU and tokens per sequence (prompt for inference)
    --gen N               generated tokens (inference)
    --grad-accum N        gradient accumulation steps (does not multiply gradient memory)
    --rank N  --targets L LoRA rank and target modules: q,k,v,o,gate,up,down,embed,head or all
    --lora-dropout 0|1    dropout on the adapters' input (each adapter keeps a copy and a mask)
    --train-embed-head 0|1  modules_to_save: train full copies of the embeddings and the head
    --dora 0|1            DoRA: a magnitude per output; base and adapter outputs kept for it
    --optimizer O         adamw adamw_bf16 adamw_8bit adafactor lion sgd_momentum sgd
    --master-weights 0|1  fp32 master weights (for LoRA: fp32 adapters)
    --optimizer-in-backward 0|1  step each parameter as its gradient arrives (no gradient buffer)
    --ckpt C              none | selective | full   (gradient checkpointing)
    --offload-activations 0|1  saved activations wait in CPU memory (two layers stay on the GPU)
    --attention A         flash | eager
    --loss L              full | full16 | chunked | compiled | fused | none
    --kv D                KV-cache dtype: bf16 fp8 int8 int4 fp32
    --static-kv 0|1       inference cache allocated for --max-model-len tokens up front
    --kv-all-heads 0|1    the cache keeps every attention head (GQA expanded), not the KV heads
    --quantize-head 0|1   the output head is quantized with the layers (litgpt / Lightning)
    --attention-16bit 0|1 only the MLP is quantized; attention projections stay 16-bit

HARDWARE:
    --gpu G               see --list-gpus                        [rtx4090]
    --gpus N  --tp N      GPUs and tensor-parallel degree
    --zero S              0 | 1 | 2 | 3       --offload none|opt|all
    --gpu-util P  --block-size N  --max-model-len N  --avg-tokens N  --concurrency N  --batched-tokens N
                          serving (vLLM) settings
    --context-mib N       CUDA context and workspaces, MiB      [1024]
    --reserve P           allocator reserve, % of the tensor peak [5]

OUTPUT:
    --unit gib|gb  --explain (formulas)  --json  --list-models  --list-gpus  --help
";

/// Flags that take a value, and the link key each one sets.
const FLAGS: &[(&str, &str)] = &[
    ("--model", "m"),
    ("--params", "p"),
    ("--job", "j"),
    ("--weights", "w"),
    ("--kv", "kv"),
    ("--optimizer", "o"),
    ("--ckpt", "gc"),
    ("--attention", "at"),
    ("--loss", "ls"),
    ("--zero", "z"),
    ("--offload", "off"),
    ("--gpu", "gpu"),
    ("--unit", "unit"),
    ("--master-weights", "mw"),
    ("--lora-dropout", "ld"),
    ("--train-embed-head", "mts"),
    ("--dora", "dora"),
    ("--optimizer-in-backward", "obw"),
    ("--offload-activations", "ao"),
    ("--quantize-head", "qh"),
    ("--attention-16bit", "a16"),
    ("--static-kv", "ks"),
    ("--kv-all-heads", "kvh"),
    ("--targets", "t"),
    ("--batch", "b"),
    ("--seq", "s"),
    ("--gen", "g"),
    ("--grad-accum", "ga"),
    ("--rank", "r"),
    ("--gpus", "n"),
    ("--tp", "tp"),
    ("--gpu-util", "u"),
    ("--block-size", "bs"),
    ("--max-model-len", "ml"),
    ("--avg-tokens", "al"),
    ("--concurrency", "c"),
    ("--batched-tokens", "bt"),
    ("--context-mib", "ctx"),
    ("--reserve", "rsv"),
];

#[derive(Default)]
struct Args {
    pairs: Vec<(String, String)>,
    link: Option<String>,
    config: Option<String>,
    name: Option<String>,
    json: bool,
    explain: bool,
}

enum Command {
    Run(Args),
    Help,
    ListModels,
    ListGpus,
}

fn parse_args(argv: &[String]) -> Result<Command, String> {
    let mut args = Args::default();
    let mut i = 0;
    while i < argv.len() {
        let raw = &argv[i];
        let (flag, inline) = match raw.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (raw.clone(), None),
        };
        let value = |i: &mut usize| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            *i += 1;
            argv.get(*i)
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--list-models" => return Ok(Command::ListModels),
            "--list-gpus" => return Ok(Command::ListGpus),
            "--json" => args.json = true,
            "--explain" => args.explain = true,
            "--link" => args.link = Some(value(&mut i)?),
            "--config" => args.config = Some(value(&mut i)?),
            "--name" => args.name = Some(value(&mut i)?),
            f => match FLAGS.iter().find(|(name, _)| *name == f) {
                Some((_, key)) => {
                    let v = value(&mut i)?;
                    args.pairs.push((key.to_string(), v));
                }
                None => return Err(format!("unknown option {f:?} (see --help)")),
            },
        }
        i += 1;
    }
    Ok(Command::Run(args))
}

/// Builds the scenario: the link first, flags on top; any ignored value is an error here.
fn scenario(args: &Args) -> Result<Scenario, String> {
    let mut query = match &args.link {
        Some(l) => {
            // as link::decode reads it; a fragment is dropped so the flags appended below count
            let q = match l.find('?') {
                Some(i) => &l[i + 1..],
                None => l.trim_start_matches('#'),
            };
            let q = q.split('#').next().unwrap_or("").to_string();
            if q.chars().count() > link::MAX_LINK_CHARS {
                return Err(format!(
                    "the link is longer than {} characters",
                    link::MAX_LINK_CHARS
                ));
            }
            q
        }
        None => String::new(),
    };
    for (k, v) in &args.pairs {
        if k == "p" {
            let n = link::parse_param_count(v).map_err(|e| e.to_string())?;
            query.push_str(&format!("&p={n}"));
            continue;
        }
        let encoded: String = v
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._,".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        query.push_str(&format!("&{k}={encoded}"));
    }
    let decoded = link::decode(&query);
    if let Some(first) = decoded.notices.first() {
        return Err(first.clone());
    }
    let mut s = decoded.scenario;
    if let Some(path) = &args.config {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        if meta.len() > config::MAX_CONFIG_BYTES as u64 {
            return Err(format!(
                "{path} is {} KiB; a config.json over {} KiB is refused",
                meta.len() / 1024,
                config::MAX_CONFIG_BYTES / 1024
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let name = args.name.clone().unwrap_or_else(|| path.to_string());
        s.model = ModelChoice::from_config(&name, &text).map_err(|e| format!("{path}: {e}"))?;
    }
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match parse_args(&argv) {
        Ok(Command::Help) => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Command::ListModels) => {
            for p in presets::all() {
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
        Ok(Command::Run(args)) => match run(&args) {
            Ok(out) => {
                print!("{out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("vram-budget: {}", one_line(&e));
                ExitCode::from(2)
            }
        },
        Err(e) => {
            eprintln!("vram-budget: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// An error as one line: control characters (a newline in a path, an escape sequence) are escaped.
fn one_line(e: &str) -> String {
    let mut out = String::with_capacity(e.len());
    for c in e.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

fn run(args: &Args) -> Result<String, String> {
    let s = scenario(args)?;
    let arch = s.model.architecture().map_err(|e| e.to_string())?;
    let b = memory::estimate_with(&s, &arch, true).map_err(|e| e.to_string())?;
    let verdicts = fit::verdicts(&s, &arch).map_err(|e| e.to_string())?;
    let solved = fit::solve(&s, &arch);
    let remedies = fit::remedies(&s, &arch, &b);
    if args.json {
        Ok(json(&s, &b, &verdicts, &solved, &remedies) + "\n")
    } else {
        Ok(table(&s, &b, &verdicts, &solved, &remedies, args.explain))
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
    verdicts: &[fit::Verdict],
    solved: &fit::Solved,
    remedies: &[(fit::Remedy, u64)],
) -> String {
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
        .map(|v| json!({"gpu": v.gpu.key(), "name": v.gpu.label(), "capacity_bytes": v.capacity, "fits": v.fits, "headroom_bytes": v.headroom, "gpus_needed": v.gpus_needed}))
        .collect();
    let out = json!({
        "model": s.model.name(),
        "link": link::encode(s, &PageSettings::default()),
        "params": b.params.total(),
        "active_params": b.active_params,
        "trainable_params": b.trainable,
        "per_gpu": true,
        "gpus": s.gpus,
        "peak_phase": moment(s, b.peak_phase),
        "components_bytes": components,
        "tensors_bytes": b.tensors,
        "total_bytes": b.total,
        "cpu_offload_bytes": b.cpu,
        "lines": lines,
        "serving": b.serving.map(|f| json!({"budget_bytes": f.budget, "kv_pool_bytes": f.kv_pool, "kv_bytes_per_token": f.kv_bytes_per_token, "blocks": f.blocks, "tokens": f.tokens, "max_concurrency": f.max_concurrency, "max_len_fits": f.max_len_fits})),
        "fit": fits,
        "solver": {"gpu": s.gpu.key(), "max_batch": solved.max_batch, "max_seq": solved.max_seq, "max_concurrency": solved.max_concurrency, "best_format": solved.best_format.map(|f| f.key())},
        "remedies": remedies.iter().map(|(r, total)| json!({"change": r.key(), "label": r.label(), "total_bytes": total})).collect::<Vec<Value>>(),
    });
    serde_json::to_string_pretty(&out).expect("JSON of plain values")
}

fn table(
    s: &Scenario,
    b: &Breakdown,
    verdicts: &[fit::Verdict],
    solved: &fit::Solved,
    remedies: &[(fit::Remedy, u64)],
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
    if let Some(f) = b.serving {
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
    }
    let _ = writeln!(
        o,
        "\n{:<22} {:>10} {:>6} {:>10} {:>12}",
        "GPU", "capacity", "fits", "headroom", "GPUs needed"
    );
    for v in verdicts {
        let needed = v
            .gpus_needed
            .map(|n| n.to_string())
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            o,
            "{:<22} {:>10.2} {:>6} {:>10.2} {:>12}",
            v.gpu.label(),
            u.value(v.capacity),
            if v.fits { "yes" } else { "no" },
            v.headroom as f64 / u.bytes() as f64,
            needed
        );
    }
    let opt = |x: Option<u64>| x.map(th).unwrap_or_else(|| "none".into());
    let _ = writeln!(
        o,
        "\nOn {}: max batch {}, max sequence {}, max concurrency {}, best weight format {}",
        s.gpu.label(),
        opt(solved.max_batch),
        opt(solved.max_seq),
        opt(solved.max_concurrency),
        solved.best_format.map(|f| f.label()).unwrap_or("none")
    );
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
    let _ = writeln!(o, "link: ?{}", link::encode(s, &PageSettings::default()));
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
        let b = memory::estimate_with(&s, &arch, true).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json(
            &s,
            &b,
            &fit::verdicts(&s, &arch).unwrap(),
            &fit::solve(&s, &arch),
            &fit::remedies(&s, &arch, &b),
        ))
        .unwrap();
        for c in Component::ALL {
            assert!(v["components_bytes"][c.key()].is_u64(), "{}", c.key());
        }
        assert_eq!(v["total_bytes"].as_u64().unwrap(), b.total);
    }
}
