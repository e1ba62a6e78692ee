//! Checkpoints rebuilt from a config.json: the tensor names, dtypes and shapes transformers'
//! Llama and Mixtral classes save, quantized the way each exporter writes them, split into
//! shards with real safetensors headers and an index. See `tests/fixtures/hub/README.md`.

use serde_json::Value;

/// One tensor of a rebuilt checkpoint.
#[derive(Clone, Debug)]
pub struct Tensor {
    pub name: String,
    pub dtype: &'static str,
    pub shape: Vec<u64>,
}

impl Tensor {
    fn new(name: String, dtype: &'static str, shape: &[u64]) -> Tensor {
        Tensor {
            name,
            dtype,
            shape: shape.to_vec(),
        }
    }

    /// Bytes by the safetensors spec: elements × the dtype's size.
    pub fn bytes(&self) -> u64 {
        let size = match self.dtype {
            "F8_E4M3" | "U8" | "I8" => 1,
            "F16" | "BF16" => 2,
            "F32" | "I32" => 4,
            other => panic!("no size for {other}"),
        };
        self.shape.iter().product::<u64>() * size
    }
}

/// How the linear layers are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    Plain(&'static str),
    Gptq,
    Awq,
    Fp8,
    Nf4,
}

/// The GPTQ/AWQ group size of the fixtures.
pub const GROUP: u64 = 128;
/// The length of a rebuilt bitsandbytes quant_state blob.
pub const NF4_STATE_BYTES: u64 = 96;

fn field(cfg: &Value, key: &str) -> u64 {
    cfg[key]
        .as_u64()
        .unwrap_or_else(|| panic!("config lacks {key}"))
}

/// A linear layer `[out, in]` as the storage writes it.
fn linear(out: &mut Vec<Tensor>, name: &str, rows: u64, cols: u64, storage: Storage) {
    let t =
        |suffix: &str, dtype, shape: &[u64]| Tensor::new(format!("{name}.{suffix}"), dtype, shape);
    match storage {
        Storage::Plain(dtype) => out.push(t("weight", dtype, &[rows, cols])),
        Storage::Gptq => out.extend([
            t("qweight", "I32", &[cols / 8, rows]),
            t("qzeros", "I32", &[cols / GROUP, rows / 8]),
            t("scales", "F16", &[cols / GROUP, rows]),
            t("g_idx", "I32", &[cols]),
        ]),
        Storage::Awq => out.extend([
            t("qweight", "I32", &[cols, rows / 8]),
            t("qzeros", "I32", &[cols / GROUP, rows / 8]),
            t("scales", "F16", &[cols / GROUP, rows]),
        ]),
        Storage::Fp8 => out.extend([
            t("weight", "F8_E4M3", &[rows, cols]),
            t("weight_scale", "F32", &[]),
            t("input_scale", "F32", &[]),
        ]),
        Storage::Nf4 => out.extend([
            t("weight", "U8", &[rows * cols / 2, 1]),
            t("weight.absmax", "F32", &[rows * cols / 64]),
            t("weight.quant_map", "F32", &[16]),
            t(
                "weight.quant_state.bitsandbytes__nf4",
                "U8",
                &[NF4_STATE_BYTES],
            ),
        ]),
    }
}

/// The 16-bit type of everything that is not a quantized linear layer.
pub fn float_dtype(storage: Storage) -> &'static str {
    match storage {
        Storage::Plain(d) => d,
        Storage::Gptq | Storage::Awq => "F16",
        Storage::Fp8 | Storage::Nf4 => "BF16",
    }
}

/// Every tensor of a Llama or Mixtral checkpoint, in transformers' order.
pub fn tensors(cfg: &Value, storage: Storage) -> Vec<Tensor> {
    let (v, h, f) = (
        field(cfg, "vocab_size"),
        field(cfg, "hidden_size"),
        field(cfg, "intermediate_size"),
    );
    let heads = field(cfg, "num_attention_heads");
    let kv = cfg["num_key_value_heads"].as_u64().unwrap_or(heads);
    let hd = h / heads;
    let experts = cfg["num_local_experts"].as_u64();
    let fl = float_dtype(storage);
    let mut out = vec![Tensor::new("model.embed_tokens.weight".into(), fl, &[v, h])];
    for l in 0..field(cfg, "num_hidden_layers") {
        let p = format!("model.layers.{l}");
        out.push(Tensor::new(format!("{p}.input_layernorm.weight"), fl, &[h]));
        for (m, rows, cols) in [
            ("q_proj", heads * hd, h),
            ("k_proj", kv * hd, h),
            ("v_proj", kv * hd, h),
            ("o_proj", h, heads * hd),
        ] {
            linear(&mut out, &format!("{p}.self_attn.{m}"), rows, cols, storage);
        }
        match experts {
            Some(e) => {
                out.push(Tensor::new(
                    format!("{p}.block_sparse_moe.gate.weight"),
                    fl,
                    &[e, h],
                ));
                for j in 0..e {
                    for (m, rows, cols) in [("w1", f, h), ("w2", h, f), ("w3", f, h)] {
                        linear(
                            &mut out,
                            &format!("{p}.block_sparse_moe.experts.{j}.{m}"),
                            rows,
                            cols,
                            storage,
                        );
                    }
                }
            }
            None => {
                for (m, rows, cols) in [("gate_proj", f, h), ("up_proj", f, h), ("down_proj", h, f)]
                {
                    linear(&mut out, &format!("{p}.mlp.{m}"), rows, cols, storage);
                }
            }
        }
        out.push(Tensor::new(
            format!("{p}.post_attention_layernorm.weight"),
            fl,
            &[h],
        ));
    }
    out.push(Tensor::new("model.norm.weight".into(), fl, &[h]));
    if !cfg["tie_word_embeddings"].as_bool().unwrap_or(false) {
        out.push(Tensor::new("lm_head.weight".into(), fl, &[v, h]));
    }
    out
}

/// A safetensors file's first bytes: the 8-byte length, then the JSON header.
pub fn header_bytes(tensors: &[Tensor], metadata: &[(&str, &str)]) -> Vec<u8> {
    let mut json = String::from("{");
    if !metadata.is_empty() {
        let pairs: Vec<String> = metadata
            .iter()
            .map(|(k, v)| format!("{k:?}:{v:?}"))
            .collect();
        json.push_str(&format!("\"__metadata__\":{{{}}},", pairs.join(",")));
    }
    let mut offset = 0;
    let entries: Vec<String> = tensors
        .iter()
        .map(|t| {
            let end = offset + t.bytes();
            let shape: Vec<String> = t.shape.iter().map(u64::to_string).collect();
            let e = format!(
                "{:?}:{{\"dtype\":{:?},\"shape\":[{}],\"data_offsets\":[{offset},{end}]}}",
                t.name,
                t.dtype,
                shape.join(",")
            );
            offset = end;
            e
        })
        .collect();
    json.push_str(&entries.join(","));
    json.push('}');
    // pad with spaces to a multiple of 8, as the safetensors writer does
    while json.len() % 8 != 0 {
        json.push(' ');
    }
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    out
}

/// Splits tensors in order into `n` shards of about equal bytes, named as transformers names them.
pub fn shards(tensors: &[Tensor], n: usize) -> Vec<(String, Vec<Tensor>)> {
    let total: u64 = tensors.iter().map(Tensor::bytes).sum();
    let per = total.div_ceil(n as u64);
    let mut out: Vec<Vec<Tensor>> = vec![Vec::new(); n];
    let mut running = 0;
    for t in tensors {
        let i = ((running / per) as usize).min(n - 1);
        out[i].push(t.clone());
        running += t.bytes();
    }
    out.into_iter()
        .enumerate()
        .map(|(i, ts)| (format!("model-{:05}-of-{n:05}.safetensors", i + 1), ts))
        .collect()
}

/// `model.safetensors.index.json` for shards, with transformers' `total_size`.
pub fn index_json(shards: &[(String, Vec<Tensor>)]) -> String {
    let total: u64 = shards
        .iter()
        .flat_map(|(_, ts)| ts)
        .map(Tensor::bytes)
        .sum();
    let map: Vec<String> = shards
        .iter()
        .flat_map(|(file, ts)| ts.iter().map(move |t| format!("{:?}:{file:?}", t.name)))
        .collect();
    format!(
        "{{\"metadata\":{{\"total_size\":{total}}},\"weight_map\":{{{}}}}}",
        map.join(",")
    )
}

/// A fixture's config.json text.
pub fn config_text(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{name}.config.json"))).unwrap()
}

/// Each fixture: its name, storage and shard count.
pub const FIXTURES: &[(&str, Storage, usize)] = &[
    ("llama-3-8b", Storage::Plain("BF16"), 4),
    ("llama-2-7b", Storage::Plain("F16"), 2),
    ("mixtral-8x7b", Storage::Plain("BF16"), 19),
    ("llama-2-7b-gptq", Storage::Gptq, 1),
    ("llama-2-7b-awq", Storage::Awq, 1),
    ("llama-3-8b-fp8", Storage::Fp8, 2),
    ("llama-3-8b-bnb-4bit", Storage::Nf4, 2),
];
