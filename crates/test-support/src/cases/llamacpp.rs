//! llama.cpp on GPUs: public CUDA and Metal load logs (`validation/llamacpp.jsonl`) against the
//! engine's llama.cpp plan, level by level and device by device: the model, KV, compute and
//! output buffers llama.cpp prints. The printed lines are read by the engine's own log reader
//! (the one behind `--measured`); the model is a GGUF header rebuilt from the printed shape.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;
use vram_engine::{
    llamacpp::plan_llama, llamacpp::plan_placed, llamacpp::Backend, llamacpp::LlamaDevice,
    llamacpp::LlamaPlan, llamacpp::LlamaSettings, llamacpp::Placement, measured::DeviceApi,
    measured::Level, measured::SourceKind,
};

use super::gguf_shape::{ggml_type, header, tensors, type_counts, Shape, TypeMix};

/// The cases' file in a validation folder.
pub const FILE: &str = "llamacpp.jsonl";

const MIB: f64 = 1024.0 * 1024.0;

/// Apple silicon's page size, the granule Metal wraps host memory in.
const METAL_PAGE: u64 = 16 * 1024;

/// One public log: where it is, what ran, and the lines it printed.
#[derive(Clone, Debug)]
pub struct LlamaCase {
    pub id: String,
    pub url: String,
    pub backend: Backend,
    pub gpu: String,
    /// The llama.cpp build (or the wrapper's version) that printed the log.
    pub llama_cpp: String,
    pub model: String,
    pub flags: Value,
    pub shape: Shape,
    pub types: Option<TypeMix>,
    /// `type X: N tensors` as the log prints them, when it does.
    pub type_counts: Option<BTreeMap<String, u64>>,
    pub settings: LlamaSettings,
    pub printed: String,
    /// Known differences: (buffer, `gpu` or `host`, why).
    pub differs: Vec<(String, String, String)>,
}

/// One printed figure beside the engine's figure for the same buffer on the same device.
#[derive(Clone, Debug)]
pub struct LlamaRow {
    pub id: String,
    pub level: Level,
    /// `host`, or the GPU's index.
    pub device: LlamaDevice,
    pub printed: u64,
    pub engine: u64,
    /// Why this buffer differs, when the case states a known cause (an older llama.cpp rule).
    pub known: Option<String>,
    /// A Metal buffer wrapping the mapped file: Metal page-aligns the wrapped pointer and size
    /// (16 KiB pages on Apple silicon), which the rebuilt header's offsets cannot place.
    pub page_aligned: bool,
}

impl LlamaRow {
    pub fn error_pct(&self) -> f64 {
        (self.engine as f64 - self.printed as f64) / self.printed as f64 * 100.0
    }

    /// Equal at the 0.01 MiB llama.cpp prints, or within a page at each end of a buffer Metal
    /// page-aligned.
    pub fn exact(&self) -> bool {
        let slack = if self.page_aligned {
            2 * METAL_PAGE
        } else {
            6 * MIB as u64 / 1000
        };
        self.printed.abs_diff(self.engine) <= slack
    }
}

fn flag(flags: &Value, key: &str) -> Result<u64, String> {
    flags
        .get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("flags.{key} missing"))
}

fn settings(flags: &Value) -> Result<LlamaSettings, String> {
    let cache = |key: &str| {
        ggml_type(
            flags
                .get(key)
                .and_then(Value::as_str)
                .ok_or(format!("flags.{key} missing"))?,
        )
    };
    let split = flags
        .get("tensor_split")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_f64)
                .map(|x| x as f32)
                .collect()
        })
        .unwrap_or_else(|| vec![1.0]);
    Ok(LlamaSettings {
        gpu_layers: Some(flag(flags, "ngl")?),
        context: Some(flag(flags, "ctx")?),
        parallel: flag(flags, "parallel")?,
        batch: flag(flags, "batch")?,
        ubatch: flag(flags, "ubatch")?,
        cache_k: cache("cache_k")?,
        cache_v: cache("cache_v")?,
        flash_attn: flags
            .get("flash_attn")
            .and_then(Value::as_bool)
            .ok_or("flags.flash_attn missing")?,
        kv_unified: flags
            .get("kv_unified")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        tensor_split: split,
        ..LlamaSettings::default()
    })
}

/// `differs`: a list of {"buffer", "device", "why"}.
fn differs(v: &Value) -> Result<Vec<(String, String, String)>, String> {
    let Some(list) = v.get("differs").and_then(Value::as_array) else {
        return Ok(Vec::new());
    };
    list.iter()
        .map(|d| Ok((text(d, "buffer")?, text(d, "device")?, text(d, "why")?)))
        .collect()
}

fn text(v: &Value, key: &str) -> Result<String, String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(String::from)
        .ok_or_else(|| format!("{key} missing"))
}

impl LlamaCase {
    pub fn from_json(v: &Value) -> Result<LlamaCase, String> {
        let id = text(v, "id")?;
        let in_case = |e: String| format!("{id}: {e}");
        let backend = match text(v, "backend").map_err(in_case)?.as_str() {
            "cuda" => Backend::Cuda,
            "metal" => Backend::Metal,
            other => return Err(in_case(format!("backend {other:?}"))),
        };
        let flags = v.get("flags").cloned().unwrap_or(Value::Null);
        let counts = v.get("type_counts").and_then(Value::as_object).map(|m| {
            m.iter()
                .filter_map(|(k, n)| n.as_u64().map(|n| (k.clone(), n)))
                .collect()
        });
        let types = match v.get("types").filter(|t| !t.is_null()) {
            Some(t) => Some(TypeMix::from_json(t).map_err(in_case)?),
            None => None,
        };
        Ok(LlamaCase {
            url: text(v, "url").map_err(in_case)?,
            backend,
            gpu: text(v, "gpu").map_err(in_case)?,
            llama_cpp: text(v, "llama_cpp").map_err(in_case)?,
            model: text(v, "model").map_err(in_case)?,
            shape: Shape::from_json(v.get("shape").unwrap_or(&Value::Null)).map_err(in_case)?,
            settings: settings(&flags).map_err(in_case)?,
            flags,
            types,
            type_counts: counts,
            printed: text(v, "printed").map_err(in_case)?,
            differs: differs(v).map_err(in_case)?,
            id,
        })
    }

    /// The engine's plan for this case on its backend.
    pub fn plan(&self) -> Result<LlamaPlan, String> {
        let specs = tensors(&self.shape, self.types.as_ref())?;
        let header = header(&self.shape, &specs)?;
        plan_llama(&header, &self.settings, self.backend).map_err(|e| format!("{e:?}"))
    }

    /// The engine's plan with the layers placed as given (an older build's placement rule).
    pub fn plan_placed(&self, placement: Placement) -> Result<LlamaPlan, String> {
        let specs = tensors(&self.shape, self.types.as_ref())?;
        let header = header(&self.shape, &specs)?;
        plan_placed(&header, &self.settings, self.backend, placement).map_err(|e| format!("{e:?}"))
    }

    /// The type counts of the rebuilt tensors (to hold against the log's).
    pub fn rebuilt_type_counts(&self) -> Result<BTreeMap<String, u64>, String> {
        Ok(type_counts(&tensors(&self.shape, self.types.as_ref())?))
    }

    /// Every printed buffer beside the engine's, summed per level and device; the model buffer
    /// only when the tensor types are known.
    pub fn rows(&self) -> Result<Vec<LlamaRow>, String> {
        let plan = self.plan()?;
        let m = vram_engine::measured::parse_as(SourceKind::LlamaCpp, &self.printed)
            .map_err(|e| format!("{}: the printed lines do not read: {e:?}", self.id))?;
        let mut printed: BTreeMap<(u8, LlamaDevice), (Level, u64)> = BTreeMap::new();
        for f in m.figures() {
            let Some(device) = f.device else { continue };
            let at = if device.is_host() {
                LlamaDevice::Host
            } else if matches!(device.api, DeviceApi::Cuda | DeviceApi::Metal) {
                LlamaDevice::Gpu(usize::from(device.index.unwrap_or(0)))
            } else {
                continue;
            };
            let rank = level_rank(f.level);
            printed.entry((rank, at)).or_insert((f.level, 0)).1 += f.bytes;
        }
        let mut rows = Vec::new();
        for ((_, device), (level, bytes)) in printed {
            let Some(buffers) = plan.device(device) else {
                return Err(format!("{}: the engine has no {device:?}", self.id));
            };
            let engine = match level {
                Level::LlamaModel if self.types.is_some() => buffers.model,
                Level::LlamaKv => buffers.kv,
                Level::LlamaCompute => buffers.compute,
                Level::LlamaOutput => buffers.output,
                _ => continue,
            };
            let side = if device == LlamaDevice::Host {
                "host"
            } else {
                "gpu"
            };
            let known = self
                .differs
                .iter()
                .find(|(b, d, _)| b == level_name(level) && d == side)
                .map(|(_, _, why)| why.clone());
            rows.push(LlamaRow {
                id: self.id.clone(),
                level,
                device,
                printed: bytes,
                engine,
                known,
                page_aligned: level == Level::LlamaModel
                    && self.backend == Backend::Metal
                    && device != LlamaDevice::Host
                    && self.settings.mmap,
            });
        }
        Ok(rows)
    }
}

fn level_rank(level: Level) -> u8 {
    match level {
        Level::LlamaModel => 0,
        Level::LlamaKv => 1,
        Level::LlamaCompute => 2,
        Level::LlamaOutput => 3,
        _ => 4,
    }
}

/// Every case of `dir/llamacpp.jsonl`, in file order (none when the folder has no such file).
pub fn load(dir: &Path) -> Result<Vec<LlamaCase>, String> {
    let path = dir.join(FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    super::read_jsonl(&path)?
        .iter()
        .map(LlamaCase::from_json)
        .collect()
}

fn device_name(backend: Backend, device: LlamaDevice) -> String {
    match (backend, device) {
        (_, LlamaDevice::Host) => "host".into(),
        (Backend::Metal, LlamaDevice::Gpu(_)) => "Metal".into(),
        (_, LlamaDevice::Gpu(i)) => format!("CUDA{i}"),
    }
}

pub fn level_name(level: Level) -> &'static str {
    match level {
        Level::LlamaModel => "model",
        Level::LlamaKv => "KV",
        Level::LlamaCompute => "compute",
        Level::LlamaOutput => "output",
        _ => "other",
    }
}

fn flags_text(flags: &Value) -> String {
    let n = |k: &str| flags.get(k).and_then(Value::as_u64).unwrap_or(0);
    let fa = flags.get("flash_attn").and_then(Value::as_bool) == Some(true);
    format!(
        "-ngl {} -c {} -b {} -ub {} -np {}{}",
        n("ngl"),
        n("ctx"),
        n("batch"),
        n("ubatch"),
        n("parallel"),
        if fa { " -fa" } else { "" }
    )
}

/// The summary line of one level: rows, how many equal at the printed 0.01 MiB, median and
/// worst absolute error.
fn level_summary(out: &mut String, name: &str, rows: &[&LlamaRow]) {
    if rows.is_empty() {
        return;
    }
    let mut errors: Vec<f64> = rows.iter().map(|r| r.error_pct().abs()).collect();
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    let exact = rows.iter().filter(|r| r.exact()).count();
    let _ = writeln!(
        out,
        "| {name} | {} | {exact} | {median:.1} % | {:.1} % |",
        rows.len(),
        errors[errors.len() - 1]
    );
}

/// The report's llama.cpp section.
pub fn section(dir: &Path) -> Result<String, String> {
    let cases = load(dir)?;
    if cases.is_empty() {
        return Ok(String::new());
    }
    let mut rows = Vec::new();
    for c in &cases {
        rows.extend(c.rows()?);
    }
    let mut out = String::new();
    out.push_str("## llama.cpp on GPUs: public CUDA and Metal logs\n\n");
    out.push_str(
        "Each case is a llama.cpp load log published with its model and flags (`validation/llamacpp.jsonl`, \
         described in `validation/README.md`). The engine's log reader (the one behind `--measured`) reads the printed \
         buffers; the engine plans the same model, rebuilt as a GGUF header from the shape the log prints, with the \
         same flags on the same backend. The model buffer is compared only where the file type fixes every tensor's type \
         (the rebuilt types reproduce the log's type counts). Sizes in MiB; error = (engine − printed) / printed.\n\n",
    );
    out.push_str(
        "The rules these logs check, as the engine follows them (current llama.cpp, the builds of tools/llamacpp): a GPU \
         that holds the output layer reserves the larger of the layers' peak and the output's (n_ubatch × (n_vocab + \
         n_embd) f32: logits and final norm); with every layer offloaded the host keeps only the graph's inputs; on a Mac \
         with mmap the Metal buffer is the file span of its tensors; at partial offload on CUDA (op offload on, a \
         micro-batch of 32 tokens or more) the GPU runs the ops on host weights, copying one weight at a time into its \
         compute buffer, and the host keeps only the inputs and the K and V rows it stores. LC-CUDA-PYTHIA-Q4_0-NGL10 \
         is llama.cpp's CI at `-ngl 10` (build 4418), which still counted -ngl from the last repeating layer and kept \
         the output on the host, where current llama.cpp offloads the output first: the case plans today's rule, so \
         its model, KV and GPU compute rows are listed apart below. Planned with that build's placement the engine \
         gives every one of its buffers but the repacked host weights exactly (crates/engine/tests/engine/llamacpp_offload.rs): \
         CUDA0 compute 203.99 MiB, the output weight's copy with the logits and norm (100.74 + 98.25 + 5.00), and \
         host compute 14.01 MiB.\n\n",
    );
    out.push_str(
        "*Equal* is equal at the 0.01 MiB llama.cpp prints; for a Metal buffer wrapping the mapped file, within the \
         16 KiB page Metal aligns each end to.\n\n",
    );
    out.push_str(
        "| level | buffers | equal | median abs. error | worst |\n|---|---:|---:|---:|---:|\n",
    );
    for level in [
        Level::LlamaModel,
        Level::LlamaKv,
        Level::LlamaCompute,
        Level::LlamaOutput,
    ] {
        for (name, on_host) in [("GPU", false), ("host", true)] {
            let of: Vec<&LlamaRow> = rows
                .iter()
                .filter(|r| {
                    r.known.is_none()
                        && r.level == level
                        && (r.device == LlamaDevice::Host) == on_host
                })
                .collect();
            level_summary(&mut out, &format!("{} ({name})", level_name(level)), &of);
        }
    }
    out.push_str("\n| case | GPU | llama.cpp | model | flags |\n|---|---|---|---|---|\n");
    for c in &cases {
        let _ = writeln!(
            out,
            "| [{}]({}) | {} | {} | {} | `{}` |",
            c.id,
            c.url,
            c.gpu,
            c.llama_cpp,
            c.model,
            flags_text(&c.flags)
        );
    }
    let known: Vec<&LlamaRow> = rows.iter().filter(|r| r.known.is_some()).collect();
    if !known.is_empty() {
        out.push_str("\nLeft out of the summary, each with the cause its case states:\n\n");
        for r in known {
            let _ = writeln!(
                out,
                "- {} {} ({:+.1} %): {}",
                r.id,
                level_name(r.level),
                r.error_pct(),
                r.known.as_deref().unwrap_or("")
            );
        }
    }
    out.push_str(
        "\n| case | buffer | device | printed | engine | error |\n|---|---|---|---:|---:|---:|\n",
    );
    for r in &rows {
        let backend = cases.iter().find(|c| c.id == r.id).map(|c| c.backend);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2} | {:.2} | {:+.1} % |",
            r.id,
            level_name(r.level),
            device_name(backend.unwrap_or(Backend::Cuda), r.device),
            r.printed as f64 / MIB,
            r.engine as f64 / MIB,
            r.error_pct()
        );
    }
    out.push('\n');
    Ok(out)
}
