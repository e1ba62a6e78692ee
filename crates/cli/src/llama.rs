//! `vram-budget --gguf FILE …`: llama.cpp's buffers per device for a GGUF file, the verdict, the
//! solver's answers, the commands and the decode-speed bound.

use std::io::Read;

use serde::Serialize;

use crate::args::Given;
use crate::llama_flags;
use vram_engine::hub::{read_gguf_parts, GgufPartsError, PartsNext, FIRST_READ};
use vram_engine::{
    llamacpp::best_quant, llamacpp::decode_bound, llamacpp::launch_commands, llamacpp::max_context,
    llamacpp::max_gpu_layers, llamacpp::plan_llama, llamacpp::synthesize_gguf,
    llamacpp::GgufHeader, llamacpp::LlamaPlan, llamacpp::LlamaSettings, llamacpp::Machine,
    llamacpp::Projector, local::local_header, local::local_machine, local::local_settings,
    local::with_ollama_defaults, Scenario, WeightFormat, GIB, MIB,
};
use vram_text::{llama_device, llama_error, llama_word, Lang, LlamaWord as W};

/// What the report prints from: the files' names, llama.cpp's settings, how to print.
struct Args {
    file: String,
    /// The multimodal projector's file, when one is loaded.
    projector: Option<String>,
    alternatives: Vec<String>,
    settings: LlamaSettings,
    json: bool,
    lang: Lang,
}

/// Whether these options ask for the llama.cpp report.
pub fn wanted(options: &[Given]) -> bool {
    options.iter().any(|o| o.flag == "--gguf")
}

pub fn run(options: &[Given]) -> Result<String, String> {
    run_with(options, &read_header)
}

/// The report with each `--gguf` / `--gguf-alt` header read by `load` (a local file, or a
/// Range read from the Hub).
pub fn run_with(
    options: &[Given],
    load: &dyn Fn(&str) -> Result<GgufHeader, String>,
) -> Result<String, String> {
    let run = llama_flags::parse(options)?;
    for line in &run.deprecations {
        eprintln!("vram-budget: {line}");
    }
    let header = load(&run.file)?;
    let s = match run.ollama {
        true => with_ollama_defaults(&run.scenario, &header),
        false => run.scenario,
    };
    let mut settings = local_settings(&s);
    let machine = local_machine(&s);
    if let Some(path) = &run.mmproj {
        let header = load(path)?;
        let projector = Projector::of(&header)
            .map_err(|_| format!("{path}: {}", llama_word(run.lang, W::NotAProjector)))?;
        settings.projector = Some(projector);
    }
    let args = Args {
        file: run.file,
        projector: run.mmproj,
        alternatives: run.alternatives,
        settings,
        json: run.json,
        lang: run.lang,
    };
    let alternatives = args
        .alternatives
        .iter()
        .map(|f| load(f))
        .collect::<Result<Vec<_>, _>>()?;
    report(&args, &header, &alternatives, machine)
}

/// `s` with Ollama's defaults for its model (the link's GGUF summary or the preset) and machine.
pub fn with_ollama(s: &Scenario) -> Result<Scenario, String> {
    let header = local_header(s).map_err(|e| llama_error(Lang::En, &e))?;
    Ok(with_ollama_defaults(s, &header))
}

/// The report for a scenario's llama.cpp / Ollama job (`--job local`, or a link's `j=local`):
/// the model is the link's GGUF summary, else the preset quantized as llama-quantize would.
pub fn scenario_report(s: &Scenario, json: bool) -> Result<String, String> {
    let header = local_header(s).map_err(|e| llama_error(Lang::En, &e))?;
    let file = match &s.gguf {
        Some(f) => f.name.clone(),
        None => {
            let name = s.model.name();
            let short = name.rsplit('/').next().unwrap_or(&name);
            format!("{short}-{}.gguf", s.weights.key())
        }
    };
    // a preset's other GGUF formats are the alternatives the best quant is chosen among
    let mut alternatives: Vec<(String, GgufHeader)> = Vec::new();
    if let (None, Ok(arch)) = (&s.gguf, s.model.architecture()) {
        for format in WeightFormat::ALL.iter().filter(|f| s.job.allows(**f)) {
            if let Ok(h) = synthesize_gguf(&arch, *format) {
                alternatives.push((format.key().to_string(), h));
            }
        }
    }
    let (names, headers): (Vec<String>, Vec<GgufHeader>) = alternatives.into_iter().unzip();
    let args = Args {
        file,
        projector: s.mmproj.as_ref().map(|f| f.name.clone()),
        alternatives: names,
        settings: local_settings(s),
        json,
        lang: Lang::En,
    };
    report(&args, &header, &headers, local_machine(s))
}

fn report(
    args: &Args,
    header: &GgufHeader,
    alternatives: &[GgufHeader],
    machine: Machine,
) -> Result<String, String> {
    let e = |err| llama_error(args.lang, &err);
    let plan = plan_llama(header, &args.settings, machine.backend()).map_err(e)?;
    let ngl = max_gpu_layers(header, &args.settings, &machine).map_err(e)?;
    let ctx = max_context(header, &args.settings, &machine).map_err(e)?;
    let refs: Vec<&GgufHeader> = alternatives.iter().collect();
    let best = best_quant(&refs, &args.settings, &machine).map_err(e)?;
    let report = Report {
        args,
        header,
        plan: &plan,
        machine,
        ngl,
        ctx,
        best: best.map(|i| args.alternatives[i].as_str()),
    };
    Ok(if args.json {
        report.json()
    } else {
        report.text()
    })
}

/// Reads the file's first bytes, growing the prefix as the engine's reader of GGUF prefixes
/// asks (`read_gguf_parts`, the rule a Hub read follows too), up to 256 MiB.
fn read_header(path: &str) -> Result<GgufHeader, String> {
    let failed = |e: std::io::Error| format!("{path}: {e}");
    let mut file = std::fs::File::open(path).map_err(failed)?;
    let size = file.metadata().map_err(failed)?.len();
    let mut bytes: Vec<u8> = Vec::new();
    let mut upto = FIRST_READ;
    loop {
        let have = bytes.len() as u64;
        (&mut file)
            .take(upto - have)
            .read_to_end(&mut bytes)
            .map_err(failed)?;
        let refused = |e| crate::hub::gguf_refused(path, &e);
        match read_gguf_parts(std::slice::from_ref(&bytes), &[size]) {
            PartsNext::Done(header) => return Ok(header),
            // a file that ends before its length said ends inside its header
            PartsNext::More { upto: next, .. } if next <= bytes.len() as u64 => {
                return Err(refused(GgufPartsError::EndsInHeader { part: 0 }))
            }
            PartsNext::More { upto: next, .. } => upto = next,
            PartsNext::Refused(e) => return Err(refused(e)),
        }
    }
}

struct Report<'a> {
    args: &'a Args,
    header: &'a GgufHeader,
    plan: &'a LlamaPlan,
    machine: Machine,
    ngl: Option<u64>,
    ctx: Option<u64>,
    best: Option<&'a str>,
}

fn gib(bytes: u64) -> String {
    if bytes < GIB {
        format!("{:.2} MiB", bytes as f64 / MIB as f64)
    } else {
        format!("{:.2} GiB", bytes as f64 / GIB as f64)
    }
}

impl Report<'_> {
    fn lang(&self) -> Lang {
        self.args.lang
    }

    fn server_line(&self) -> String {
        let c = launch_commands(&self.args.settings, self.plan.shape.n_layer);
        let mut line = format!("llama-server -m {}", self.args.file);
        if let Some(p) = &self.args.projector {
            line.push_str(&format!(" --mmproj {p}"));
        }
        for (flag, value) in &c.llama_server {
            line.push(' ');
            line.push_str(flag);
            if !value.is_empty() {
                line.push(' ');
                line.push_str(value);
            }
        }
        line
    }

    fn ollama_lines(&self) -> (String, String, bool) {
        let c = launch_commands(&self.args.settings, self.plan.shape.n_layer);
        let env: Vec<String> = c
            .ollama_env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let opts: Vec<String> = c
            .ollama_options
            .iter()
            .map(|(k, v)| format!("PARAMETER {k} {v}"))
            .collect();
        (
            format!("{} ollama serve", env.join(" ")),
            opts.join("; "),
            c.ollama_mixed_cache,
        )
    }

    fn text(&self) -> String {
        let l = self.lang();
        let w = |x| llama_word(l, x);
        let p = self.plan;
        let s = &p.sizes;
        let mut o = format!(
            "{} ({}, {} layers)\n{}: n_ctx {} ({} × {} cells), n_batch {}, n_ubatch {}; {}: {}/{}\n\n",
            self.args.file,
            self.header.architecture().unwrap_or("?"),
            p.shape.n_layer,
            w(W::Context),
            s.n_ctx,
            s.streams,
            s.n_ctx_seq,
            s.n_batch,
            s.n_ubatch,
            w(W::Offloaded),
            p.placement.offloaded,
            p.shape.n_layer + 1,
        );
        let projector = self.args.settings.projector.is_some();
        let projector_cell = |text: &str| match projector {
            true => format!(" {text:>11}"),
            false => String::new(),
        };
        o.push_str(&format!(
            "{:<10} {:>11} {:>11} {:>11} {:>11}{} {:>11} {:>11}\n",
            "",
            w(W::Model),
            w(W::KvCache),
            w(W::Compute),
            w(W::Output),
            projector_cell("mmproj"),
            w(W::Total),
            w(W::Limit)
        ));
        let fit = self.machine.fit(p);
        for ((device, b), f) in p.devices.iter().zip(&fit) {
            let limit = f.limit.map(gib).unwrap_or_else(|| "-".into());
            let verdict = if f.fits() {
                w(W::Fits)
            } else {
                w(W::DoesNotFit)
            };
            o.push_str(&format!(
                "{:<10} {:>11} {:>11} {:>11} {:>11}{} {:>11} {:>11}  {verdict}\n",
                llama_device(l, *device),
                gib(b.model),
                gib(b.kv),
                gib(b.compute),
                gib(b.output),
                projector_cell(&gib(b.projector + b.projector_compute)),
                gib(b.total()),
                limit
            ));
        }
        if p.host().mapped && p.host().model > 0 {
            o.push_str(&format!(
                "  ({}: {})\n",
                llama_device(l, vram_engine::llamacpp::LlamaDevice::Host),
                w(W::Mapped)
            ));
        }
        if let Machine::Mac(mac) = self.machine {
            o.push_str(&format!(
                "{} {}: {} ({} {} GB); {}: sudo sysctl iogpu.wired_limit_mb={}\n",
                mac.label,
                w(W::WorkingSet),
                gib(mac.working_set()),
                w(W::Limit),
                mac.memory_gib,
                w(W::WiredLimit),
                mac.memory_gib * 1024 * 7 / 8
            ));
        }
        if let Machine::Uma(uma) = self.machine {
            o.push_str(&format!(
                "{} {} GB: {} {}; {} {}\n",
                uma.kind.label(),
                uma.memory_gib,
                w(W::GpuMayAllocate),
                gib(uma.gpu_limit()),
                w(W::OsMemory),
                gib(uma.os_bytes()),
            ));
        }
        let verdict = if self.machine.fits(p) {
            w(W::Fits)
        } else {
            w(W::DoesNotFit)
        };
        o.push_str(&format!("\n=> {verdict}\n\n"));
        let or_nothing = |v: Option<u64>| {
            v.map(|n| n.to_string())
                .unwrap_or_else(|| w(W::NothingFits).into())
        };
        o.push_str(&format!("{}: {}\n", w(W::LargestNgl), or_nothing(self.ngl)));
        o.push_str(&format!(
            "{}: {}\n",
            w(W::LongestContext),
            or_nothing(self.ctx)
        ));
        let best = match (self.args.alternatives.is_empty(), self.best) {
            (true, _) => w(W::NoAlternatives).to_string(),
            (false, Some(f)) => f.to_string(),
            (false, None) => w(W::NothingFits).to_string(),
        };
        o.push_str(&format!(
            "{}: {best}\n\n{}:\n  {}\n",
            w(W::BestQuant),
            w(W::Commands),
            self.server_line()
        ));
        let (env, opts, mixed) = self.ollama_lines();
        o.push_str(&format!("  {env}\n  Modelfile: {opts}\n"));
        if mixed {
            o.push_str(&format!("  ({})\n", w(W::MixedCache)));
        }
        let bound = decode_bound(self.header, p, self.args.settings.cpu_moe_layers, |d| {
            self.machine.bandwidth(d)
        });
        o.push_str(&format!(
            "\n{}: {:.1} tok/s ({}), {:.1} tok/s ({})\n",
            w(W::SpeedBound),
            bound.empty_context,
            w(W::EmptyContext),
            bound.full_context,
            w(W::FullContext)
        ));
        o
    }

    fn json(&self) -> String {
        let p = self.plan;
        let fit = self.machine.fit(p);
        let devices = p
            .devices
            .iter()
            .zip(&fit)
            .map(|((d, b), f)| DeviceJson {
                device: llama_device(Lang::En, *d),
                model_bytes: b.model,
                kv_bytes: b.kv,
                compute_bytes: b.compute,
                output_bytes: b.output,
                total_bytes: b.total(),
                layers: b.layers,
                projector_bytes: b.projector,
                projector_compute_bytes: b.projector_compute,
                limit_bytes: f.limit,
                fits: f.fits(),
            })
            .collect();
        let c = launch_commands(&self.args.settings, p.shape.n_layer);
        let bound = decode_bound(self.header, p, self.args.settings.cpu_moe_layers, |d| {
            self.machine.bandwidth(d)
        });
        let (ollama_serve, ollama_modelfile, _) = self.ollama_lines();
        let sizes = &p.sizes;
        let plan = PlanJson {
            file: &self.args.file,
            mmproj: self.args.projector.as_deref(),
            n_layer: p.shape.n_layer,
            context: ContextJson {
                n_ctx: sizes.n_ctx,
                n_ctx_seq: sizes.n_ctx_seq,
                streams: sizes.streams,
                n_batch: sizes.n_batch,
                n_ubatch: sizes.n_ubatch,
                swa_cells: sizes.swa_cells,
            },
            offloaded_layers: p.placement.offloaded,
            devices,
            fits: self.machine.fits(p),
            max_gpu_layers: self.ngl,
            max_context: self.ctx,
            best_quant: self.best,
            llama_server: self.server_line(),
            llama_server_flags: c.llama_server,
            ollama_env: c.ollama_env,
            ollama_options: c.ollama_options,
            ollama_serve,
            ollama_modelfile,
            decode_tokens_per_s_max: SpeedJson {
                empty_context: bound.empty_context,
                full_context: bound.full_context,
            },
        };
        format!("{}\n", serde_json::to_string_pretty(&plan).unwrap())
    }
}

/// `--json` of a llama.cpp plan.
#[derive(Serialize)]
struct PlanJson<'a> {
    file: &'a str,
    mmproj: Option<&'a str>,
    n_layer: u64,
    context: ContextJson,
    offloaded_layers: u64,
    devices: Vec<DeviceJson>,
    fits: bool,
    max_gpu_layers: Option<u64>,
    max_context: Option<u64>,
    best_quant: Option<&'a str>,
    llama_server: String,
    llama_server_flags: Vec<(&'static str, String)>,
    ollama_env: Vec<(&'static str, String)>,
    ollama_options: Vec<(&'static str, String)>,
    ollama_serve: String,
    ollama_modelfile: String,
    decode_tokens_per_s_max: SpeedJson,
}

#[derive(Serialize)]
struct ContextJson {
    n_ctx: u64,
    n_ctx_seq: u64,
    streams: u64,
    n_batch: u64,
    n_ubatch: u64,
    swa_cells: Option<u64>,
}

#[derive(Serialize)]
struct DeviceJson {
    device: String,
    model_bytes: u64,
    kv_bytes: u64,
    compute_bytes: u64,
    output_bytes: u64,
    total_bytes: u64,
    layers: u64,
    projector_bytes: u64,
    projector_compute_bytes: u64,
    limit_bytes: Option<u64>,
    fits: bool,
}

#[derive(Serialize)]
struct SpeedJson {
    empty_context: f64,
    full_context: f64,
}
