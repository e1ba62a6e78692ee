//! `vram-budget --hf ID`: a Hugging Face model id (or URL) is enough. The engine's Hub reads
//! (`vram_engine::hub`) say what to fetch, in which order, and read every answer; this module
//! fetches (see `http`) and prints what was read beside the budget.

mod gguf;
mod http;
mod read;

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::{Map, Value};
use vram_engine::{
    hub::iso_date, hub::HubEndpoint, hub::HubSource, ModelChoice, Unit, WeightFormat,
};
use vram_text::{file_difference, gguf_read, hub_error, Lang};

use crate::args::Given;

pub use gguf::gguf_refused;
pub use read::Model;

/// The `--hf…` options.
pub const FLAGS: [&str; 4] = ["--hf", "--hf-file", "--hf-endpoint", "--hf-timeout"];

/// The `--hf…` options' values.
pub struct HubArgs {
    pub id: String,
    pub file: Option<String>,
    pub endpoint: Option<String>,
    pub timeout: u64,
}

/// The `--hf…` options among the given ones (the last of each counts), or None without `--hf`.
pub fn hub_args(options: &[Given]) -> Result<Option<HubArgs>, String> {
    let (mut id, mut file, mut endpoint, mut timeout) = (None, None, None, 30);
    for o in options {
        let value = o.value.clone();
        match o.flag.as_str() {
            "--hf" => id = value,
            "--hf-file" => file = value,
            "--hf-endpoint" => endpoint = value,
            "--hf-timeout" => {
                let v = value.unwrap_or_default();
                timeout = v
                    .parse()
                    .ok()
                    .filter(|s| (1..=3_600).contains(s))
                    .ok_or_else(|| format!("--hf-timeout: seconds from 1 to 3600, not {v:?}"))?
            }
            _ => {}
        }
    }
    match (id, file.is_some() || endpoint.is_some()) {
        (Some(id), _) => Ok(Some(HubArgs {
            id,
            file,
            endpoint,
            timeout,
        })),
        (None, true) => Err("--hf-file and --hf-endpoint go with --hf ID".into()),
        (None, false) => Ok(None),
    }
}

/// A model read from the Hub, and where from.
pub struct Loaded {
    pub model: Model,
    pub source: HubSource,
    pub endpoint: String,
}

/// Fetches and reads the model the flags name.
pub fn load(h: &HubArgs) -> Result<Loaded, String> {
    let endpoint_text = h.endpoint.clone().or_else(|| {
        std::env::var("HF_ENDPOINT")
            .ok()
            .filter(|e| !e.trim().is_empty())
    });
    let endpoint = match endpoint_text {
        Some(e) => HubEndpoint::parse(&e).map_err(|e| hub_error(Lang::En, &e))?,
        None => HubEndpoint::default(),
    };
    let token = std::env::var("HF_TOKEN").ok();
    let client = http::Client::new(endpoint.clone(), token, h.timeout);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (model, source) = read::model(&client, &h.id, h.file.as_deref(), &iso_date(now))?;
    Ok(Loaded {
        model,
        source,
        endpoint: endpoint.base().to_string(),
    })
}

impl Loaded {
    /// The llama.cpp report of a GGUF read from the Hub, after a line that says what was read
    /// (in `--json`, a `hub` member).
    pub fn with_gguf_read(&self, report: String, json: bool) -> String {
        let Model::Gguf(g) = &self.model else {
            return report;
        };
        if json {
            let Ok(Value::Object(mut out)) = serde_json::from_str::<Value>(&report) else {
                return report;
            };
            let read = GgufJson {
                endpoint: &self.endpoint,
                repo: &self.source.repo,
                revision: &self.source.revision,
                read_on: &self.source.read_on,
                parts: &g.parts,
                fetched_bytes: g.fetched,
                requests: g.requests,
            };
            out.insert("hub".into(), to_json(&read));
            return serde_json::to_string_pretty(&out).expect("JSON of plain values") + "\n";
        }
        let line = gguf_read(
            Lang::En,
            &self.source,
            &g.file,
            g.parts.len(),
            g.fetched,
            g.requests,
        );
        format!("{line}; from {}\n\n{report}", self.endpoint)
    }

    /// The model for the scenario, with the files' exact bytes, and the format they are in.
    pub fn choice(&self) -> Option<(ModelChoice, Option<WeightFormat>)> {
        let Model::Safetensors(c) = &self.model else {
            return None;
        };
        let choice = ModelChoice::Custom {
            name: self.source.repo.clone(),
            arch: Box::new(c.arch.clone()),
            source: Some(self.source.clone()),
        };
        Some((choice, c.files.stored_format()))
    }

    /// What was read, for the table.
    pub fn section(&self, unit: Unit) -> String {
        let Model::Safetensors(c) = &self.model else {
            return String::new();
        };
        let th = vram_engine::units::thousands;
        let dtypes: Vec<String> = c
            .files
            .by_dtype
            .iter()
            .map(|(d, t)| format!("{} {}", d.key(), unit.format(t.bytes)))
            .collect();
        let mut o = format!(
            "Read from {}: {}@{} on {}\n  {} shard header(s) ({} fetched in all), {} tensors, {} parameters, {} of weights ({}), stored as {}\n",
            self.endpoint,
            self.source.repo,
            self.source.revision,
            self.source.read_on,
            c.shards.len(),
            unit.format(c.fetched),
            th(c.files.total.tensors),
            th(c.files.params),
            unit.format(c.files.weight_bytes()),
            dtypes.join(", "),
            c.files.scheme.label(),
        );
        for d in &c.differences {
            o.push_str(&format!("  {}\n", file_difference(Lang::En, d, unit)));
        }
        o.push('\n');
        o
    }

    /// What was read, for `--json`.
    pub fn json(&self) -> Value {
        let Model::Safetensors(c) = &self.model else {
            return Value::Null;
        };
        let bytes =
            |key: &str, t: &vram_engine::hub::Tally| (key.to_string(), Value::from(t.bytes));
        to_json(&SafetensorsJson {
            endpoint: &self.endpoint,
            repo: &self.source.repo,
            revision: &self.source.revision,
            read_on: &self.source.read_on,
            shards: &c.shards,
            fetched_bytes: c.fetched,
            tensors: c.files.total.tensors,
            params: c.files.params,
            tensor_bytes: c.files.total.bytes,
            weight_bytes: c.files.weight_bytes(),
            scheme: c.files.scheme.key(),
            stored_format: c.files.stored_format().map(|f| f.key()),
            dtype_bytes: c
                .files
                .by_dtype
                .iter()
                .map(|(d, t)| bytes(d.key(), t))
                .collect(),
            role_bytes: c
                .files
                .by_role
                .iter()
                .map(|(r, t)| bytes(r.key(), t))
                .collect(),
            differences: c
                .differences
                .iter()
                .map(|d| file_difference(Lang::En, d, Unit::Gib))
                .collect(),
        })
    }
}

/// `--json`'s `hub` member when the model came from safetensors files.
#[derive(Serialize)]
struct SafetensorsJson<'a> {
    endpoint: &'a str,
    repo: &'a str,
    revision: &'a str,
    read_on: &'a str,
    shards: &'a [String],
    fetched_bytes: u64,
    tensors: u64,
    params: u64,
    tensor_bytes: u64,
    weight_bytes: u64,
    scheme: &'static str,
    stored_format: Option<&'static str>,
    dtype_bytes: Map<String, Value>,
    role_bytes: Map<String, Value>,
    differences: Vec<String>,
}

/// `--json`'s `hub` member when the model came from a GGUF file.
#[derive(Serialize)]
struct GgufJson<'a> {
    endpoint: &'a str,
    repo: &'a str,
    revision: &'a str,
    read_on: &'a str,
    parts: &'a [String],
    fetched_bytes: u64,
    requests: usize,
}

/// A plain struct as a JSON value (its fields are strings and numbers: it cannot fail).
fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
