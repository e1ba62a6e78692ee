//! The engine against PyTorch runs on the CPU (`docs/measure/`), component by component: the
//! last section of docs/accuracy.md, shared by the `validate` example that writes the file and the
//! test that checks the file is what it writes.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;
use vram_engine::{
    memory::estimate_with, scenario::Attention, scenario::Checkpointing, scenario::LoraTargets,
    scenario::Loss, scenario::Optimizer, Breakdown, Component, Job, ModelChoice, Scenario,
    WeightFormat,
};

/// The command that writes docs/accuracy.md (quoted in it).
pub const COMMAND: &str = "cargo run -p vram-engine --example validate -- --write docs/accuracy.md";

/// The CPU measuring script, from the repository root, for runs.json entries that name none.
const MEASURE_SCRIPT: &str = "docs/measure/measure.py";

/// The repository's `docs/measure/`.
pub fn measure_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/measure")
}

/// One run of measure.py: its arguments and the JSON it printed.
struct CpuRun {
    name: String,
    /// The script, from the repository root: `docs/measure/measure.py` unless runs.json names
    /// another (docs/measure/switches.py for the loops measure.py does not run).
    script: String,
    config: String,
    args: Vec<String>,
    result: Value,
}

/// Reads `runs.json` (name, config, args) and `results/<name>.json` from `dir`.
fn cpu_runs(dir: &Path) -> Result<Vec<CpuRun>, String> {
    let list = dir.join("runs.json");
    if !list.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&list).map_err(|e| e.to_string())?;
    let runs: Value = serde_json::from_str(&text).map_err(|e| format!("runs.json: {e}"))?;
    let mut out = Vec::new();
    for r in runs.as_array().ok_or("runs.json is not a list")? {
        let name = r
            .get("name")
            .and_then(Value::as_str)
            .ok_or("a run without a name")?
            .to_string();
        let config = r
            .get("config")
            .and_then(Value::as_str)
            .ok_or("a run without a config")?
            .to_string();
        let args: Vec<String> = r
            .get("args")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let script = r
            .get("script")
            .and_then(Value::as_str)
            .unwrap_or(MEASURE_SCRIPT)
            .to_string();
        let path = dir.join("results").join(format!("{name}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let result: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        out.push(CpuRun {
            name,
            script,
            config,
            args,
            result,
        });
    }
    Ok(out)
}

fn arg<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// The engine scenario for a measure.py run: its config.json through the engine's own parser and
/// the flags as the page would set them (bf16 weights with no fp32 master, PEFT's fp32 adapters).
fn cpu_scenario(dir: &Path, run: &CpuRun) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(dir.join(&run.config))
        .map_err(|e| format!("{}: {e}", run.config))?;
    let model = ModelChoice::from_config(&run.config, &text).map_err(|e| e.to_string())?;
    let a = &run.args;
    let mode = arg(a, "--mode").unwrap_or("full");
    let num =
        |flag: &str, default: u64| arg(a, flag).and_then(|v| v.parse().ok()).unwrap_or(default);
    let dtype = arg(a, "--dtype").unwrap_or("bf16");
    let job = match mode {
        "infer" => Job::Inference,
        "lora" => Job::Lora,
        _ => Job::Full,
    };
    let targets = arg(a, "--lora-targets").unwrap_or("q_proj,v_proj");
    let mut t = LoraTargets::empty();
    for m in targets.split(',') {
        let key = m.trim().trim_end_matches("_proj");
        t = t.with(key, true);
    }
    Ok(Scenario {
        model,
        job,
        weights: if dtype == "fp32" {
            WeightFormat::Fp32
        } else {
            WeightFormat::Bf16
        },
        batch: num("--batch", 1),
        seq: num("--seq", 256),
        gen: if job == Job::Inference {
            num("--new-tokens", 32)
        } else {
            0
        },
        grad_accum: 1,
        lora_rank: num("--lora-r", 8),
        lora_targets: t,
        optimizer: match arg(a, "--optimizer").unwrap_or("adamw") {
            "sgd" => Optimizer::Sgd,
            "sgd-momentum" => Optimizer::SgdMomentum,
            _ => Optimizer::AdamW,
        },
        // measure.py loads the weights in the compute dtype (no AMP); PEFT keeps adapters in fp32
        master_weights: job == Job::Lora,
        checkpointing: if a.iter().any(|x| x == "--grad-ckpt") {
            Checkpointing::Full
        } else {
            Checkpointing::None
        },
        attention: if arg(a, "--attn") == Some("eager") {
            Attention::Eager
        } else {
            Attention::Flash
        },
        loss: Loss::Full,
        optimizer_in_backward: a.iter().any(|x| x == "--optimizer-in-backward"),
        train_embed_head: arg(a, "--modules-to-save").is_some(),
        dora: a.iter().any(|x| x == "--dora"),
        static_kv: arg(a, "--static-cache").is_some(),
        max_model_len: num("--static-cache", Scenario::default().max_model_len),
        ..Scenario::default()
    })
}

fn mib(bytes: f64) -> String {
    format!("{:.1}", bytes / (1024.0 * 1024.0))
}

fn pct(est: f64, meas: f64) -> String {
    if meas <= 0.0 {
        if est <= 0.0 {
            "–".into()
        } else {
            "n/a".into()
        }
    } else {
        format!("{:+.0} %", (est - meas) / meas * 100.0)
    }
}

/// What a chunked loss keeps for backward, eager and compiled, against the engine's kept term.
fn loss_section(dir: &Path, losses: &[CpuRun]) -> Result<String, String> {
    let mut out = String::new();
    if losses.is_empty() {
        return Ok(out);
    }
    out.push_str(
        "\nThe chunked loss (8 chunks, each upcast to fp32; `switches.py --loss-check`): what autograd keeps for backward \
         over all chunks, measured with saved-tensor hooks, against the term of the engine's formula that stays alive until \
         backward (`ls=chunked`: tokens × vocab × 4 B of fp32 log-probs; `ls=compiled`: tokens × vocab × 2 B, the 16-bit \
         logits the compiled loss saves instead):\n\n\
         | run | tokens × vocab | eager: kept / engine | compiled: kept / engine |\n|---|---|---|---|\n",
    );
    for r in losses {
        let s = cpu_scenario(dir, r)?;
        let arch = s.model.architecture().map_err(|e| e.to_string())?;
        let tokens = s.batch * s.seq;
        let m = r
            .result
            .get("saved_for_backward")
            .ok_or("a loss check without saved_for_backward")?;
        let kept = |k: &str| -> f64 {
            let x = &m[k];
            let logits = if x["keeps_16bit_logits"].as_bool() == Some(true) {
                m["logits_16bit_bytes"].as_f64().unwrap_or(0.0)
            } else {
                0.0
            };
            logits + x["other_saved_bytes"].as_f64().unwrap_or(0.0)
        };
        let (eager, compiled) = (
            (tokens * arch.vocab * 4) as f64,
            (tokens * arch.vocab * 2) as f64,
        );
        let _ = writeln!(
            out,
            "| {} | {} × {} | {} / {} ({}) | {} / {} ({}) |",
            r.name,
            tokens,
            arch.vocab,
            mib(kept("eager")),
            mib(eager),
            pct(eager, kept("eager")),
            mib(kept("compiled")),
            mib(compiled),
            pct(compiled, kept("compiled"))
        );
    }
    Ok(out)
}

/// The section of the report comparing the engine with measure.py on the CPU.
pub fn cpu_section(dir: &Path) -> Result<String, String> {
    let (losses, runs): (Vec<CpuRun>, Vec<CpuRun>) = cpu_runs(dir)?
        .into_iter()
        .partition(|r| r.args.iter().any(|a| a == "--loss-check"));
    if runs.is_empty() {
        return Ok(String::new());
    }
    let mut out = String::new();
    out.push_str("## PyTorch on CPU, component by component\n\n");
    out.push_str(
        "`docs/measure/measure.py` runs transformers (and PEFT for LoRA) on randomly initialised weights on the CPU and \
         counts every live tensor storage the way the CUDA allocator's `allocated` figure does, keeping the breakdown at the \
         peak: parameters (and buffers), gradients, optimizer state and *other* (activations, logits, temporaries, KV cache). \
         It has no CUDA context and no allocator rounding, so it is compared with the engine's tensor lines for the same \
         scenario: parameters ↔ weights + adapters, gradients ↔ gradients, optimizer ↔ optimizer states, other ↔ \
         activations + logits + KV cache (+ master copies). The engine reads the same config.json with its own parser. \
         Sizes in MiB.\n\n",
    );
    out.push_str(
        "Each run (from the repository root, with the venv `.venv-measure` holding torch, transformers and peft; \
         `make measure` reruns all of them from `docs/measure/runs.json`, each well under a minute on two cores; \
         `docs/measure/switches.py` imports measure.py's counter and model builder and adds the loops measure.py does not \
         run: the optimizer step in backward, PEFT modules_to_save, a static cache, and the chunked loss eager vs \
         compiled):\n\n```sh\n",
    );
    for r in runs.iter().chain(&losses) {
        let _ = writeln!(
            out,
            ".venv-measure/bin/python {} --config docs/measure/{} {} > docs/measure/results/{}.json",
            r.script,
            r.config,
            r.args.join(" "),
            r.name
        );
    }
    out.push_str("```\n\n");
    out.push_str(
        "| run | engine peak at | params: measured / engine | grads | optimizer | other (activations …) | peak total: measured / engine | error |\n\
         |---|---|---|---|---|---|---|---:|\n",
    );
    let mut notes = String::new();
    for r in &runs {
        let s = cpu_scenario(dir, r)?;
        let arch = s.model.architecture().map_err(|e| e.to_string())?;
        let b: Breakdown =
            estimate_with(&s, &arch, true).map_err(|e| format!("{}: {e}", r.name))?;
        let br = r
            .result
            .get("breakdown_near_peak")
            .cloned()
            .unwrap_or(Value::Null);
        let m = |k: &str| br.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let peak = r
            .result
            .get("peak_bytes_total")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let e = |c: Component| b.bytes(c) as f64;
        let e_params = e(Component::Weights) + e(Component::Adapter);
        let e_grads = e(Component::Gradients);
        let e_opt = e(Component::Optimizer);
        let e_other = e(Component::Activations)
            + e(Component::Logits)
            + e(Component::KvCache)
            + e(Component::Master);
        let e_total = b.tensors as f64;
        let cell =
            |meas: f64, est: f64| format!("{} / {} ({})", mib(meas), mib(est), pct(est, meas));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} / {} | {} |",
            r.name,
            b.peak_phase.label(),
            cell(m("param"), e_params),
            cell(m("grad"), e_grads),
            cell(m("optimizer"), e_opt),
            cell(m("other"), e_other),
            mib(peak),
            mib(e_total),
            pct(e_total, peak)
        );
        let lines: Vec<String> = b
            .lines
            .iter()
            .filter(|l| {
                b.at_peak(l)
                    && !matches!(l.component, Component::Context | Component::Reserve)
                    && l.bytes > 0
            })
            .map(|l| {
                let formula = vram_text::formula(vram_text::Lang::En, &l.formula, s.unit);
                format!("  - {}: {formula}", l.component.label())
            })
            .collect();
        let _ = writeln!(
            notes,
            "- **{}** (`{}`; {} params, {} trainable measured): engine lines at its peak:\n{}",
            r.name,
            r.args.join(" "),
            r.result.get("params").and_then(Value::as_u64).unwrap_or(0),
            r.result
                .get("trainable_params")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            lines.join("\n")
        );
    }
    out.push_str(
        "\nReading it: the breakdown is taken at each side's own peak moment, which need not be the same moment: with \
         gradient checkpointing the measured peak falls late in the backward pass (most gradients alive, one layer \
         recomputed), while the engine puts it at the optimizer step. On the CPU torch's AdamW takes the per-tensor path \
         (the multi-tensor `foreach` path, which allocates one state-sized temporary during the step, is the default only \
         for CUDA tensors), so the engine's step temporary has no CPU counterpart. The `act-*` runs use a 4096-token \
         vocabulary so that activations, not logits, dominate *other*. The `switch-*` runs check the engine's \
         switches: modules_to_save, DoRA and the static cache land within 0–3 %; with the optimizer step in backward the \
         gradient buffer is gone on both sides, and the engine's +14 % is its checkpointing model counting the loss's \
         logits and the one recomputed layer at the same moment (they are alive at different moments of the backward \
         pass), which the step's gradient buffer hides in the plain `act-full-gc` run.\n",
    );
    out.push_str(&loss_section(dir, &losses)?);
    out.push_str("\nThe engine's arithmetic for each run:\n\n");
    out.push_str(&notes);
    Ok(out)
}
