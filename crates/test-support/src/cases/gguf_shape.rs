//! A GGUF header rebuilt from what a llama.cpp log prints: the shape (`print_info` /
//! `llm_load_print_meta`) and, where the file type says it, each tensor's type by llama.cpp's
//! quantization rule (`llama_tensor_get_type`). Only the header is built: the engine reads no
//! weights.

use std::collections::BTreeMap;

use serde_json::Value;
use vram_engine::{llamacpp::read_gguf, llamacpp::GgmlType, llamacpp::GgufHeader};

/// The sizes a log prints for one model.
#[derive(Clone, Debug)]
pub struct Shape {
    pub arch: String,
    /// The tensor layout: `llama` (Llama, Mistral), `qwen2` (llama with q/k/v biases) or `gptneox`
    /// (fused QKV, layer norms and biases).
    pub layout: String,
    pub n_layer: u64,
    pub n_embd: u64,
    pub n_head: u64,
    pub n_head_kv: u64,
    pub head_dim: u64,
    pub n_ff: u64,
    pub n_vocab: u64,
    pub n_ctx_train: u64,
    pub tied: bool,
    /// The file's tensor order: `convert` (convert_hf_to_gguf: token_embd, the layers, then
    /// output_norm and output) or `quantize` (llama-quantize writes the loader's order: the
    /// non-layer tensors by name, then each layer's by name).
    pub order: String,
}

/// The type of every matrix, the output's, and (K-quant mixes) the type of attn_v and ffn_down
/// in the layers llama.cpp's `use_more_bits` picks.
#[derive(Clone, Debug)]
pub struct TypeMix {
    pub weights: GgmlType,
    pub output: GgmlType,
    pub token_embd: GgmlType,
    pub more_bits: Option<GgmlType>,
}

pub fn ggml_type(name: &str) -> Result<GgmlType, String> {
    GgmlType::ALL
        .into_iter()
        .find(|t| t.name().eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown ggml type {name:?}"))
}

fn u64_of(v: &Value, key: &str) -> Result<u64, String> {
    v.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("shape.{key} missing"))
}

impl Shape {
    pub fn from_json(v: &Value) -> Result<Shape, String> {
        let text = |key: &str| {
            v.get(key)
                .and_then(Value::as_str)
                .map(String::from)
                .ok_or_else(|| format!("shape.{key} missing"))
        };
        Ok(Shape {
            arch: text("arch")?,
            layout: text("layout")?,
            n_layer: u64_of(v, "n_layer")?,
            n_embd: u64_of(v, "n_embd")?,
            n_head: u64_of(v, "n_head")?,
            n_head_kv: u64_of(v, "n_head_kv")?,
            head_dim: u64_of(v, "head_dim")?,
            n_ff: u64_of(v, "n_ff")?,
            n_vocab: u64_of(v, "n_vocab")?,
            n_ctx_train: u64_of(v, "n_ctx_train")?,
            tied: v.get("tied").and_then(Value::as_bool).unwrap_or(false),
            order: text("order")?,
        })
    }
}

impl TypeMix {
    pub fn from_json(v: &Value) -> Result<TypeMix, String> {
        let named = |key: &str| v.get(key).and_then(Value::as_str).map(ggml_type);
        let weights = named("weights").ok_or("types.weights missing")??;
        Ok(TypeMix {
            weights,
            output: named("output").transpose()?.unwrap_or(weights),
            token_embd: named("token_embd").transpose()?.unwrap_or(weights),
            more_bits: named("more_bits").transpose()?,
        })
    }
}

/// llama.cpp's `use_more_bits(i, n)`: the first and last eighth of the layers and every third
/// one between them.
fn use_more_bits(layer: u64, n_layer: u64) -> bool {
    layer < n_layer / 8 || layer >= 7 * n_layer / 8 || (layer - n_layer / 8) % 3 == 2
}

/// One tensor: name, dims (ne0 first) and type.
pub type TensorSpec = (String, Vec<u64>, GgmlType);

/// The tensors of a model with this shape; matrices get `mix` (f16 when the mix is unknown),
/// norms and biases f32.
pub fn tensors(shape: &Shape, mix: Option<&TypeMix>) -> Result<Vec<TensorSpec>, String> {
    let f16 = TypeMix {
        weights: GgmlType::F16,
        output: GgmlType::F16,
        token_embd: GgmlType::F16,
        more_bits: None,
    };
    let mix = mix.unwrap_or(&f16);
    let (e, v, ff) = (shape.n_embd, shape.n_vocab, shape.n_ff);
    let (q, kv) = (
        shape.n_head * shape.head_dim,
        shape.n_head_kv * shape.head_dim,
    );
    let mut out: Vec<TensorSpec> = vec![("token_embd.weight".into(), vec![e, v], mix.token_embd)];
    let f32 = GgmlType::F32;
    for il in 0..shape.n_layer {
        let w = mix.weights;
        let more = match mix.more_bits {
            Some(t) if use_more_bits(il, shape.n_layer) => t,
            _ => w,
        };
        let mut add =
            |name: &str, dims: Vec<u64>, ty| out.push((format!("blk.{il}.{name}"), dims, ty));
        match shape.layout.as_str() {
            "llama" | "qwen2" => {
                add("attn_norm.weight", vec![e], f32);
                add("attn_q.weight", vec![e, q], w);
                add("attn_k.weight", vec![e, kv], w);
                add("attn_v.weight", vec![e, kv], more);
                if shape.layout == "qwen2" {
                    add("attn_q.bias", vec![q], f32);
                    add("attn_k.bias", vec![kv], f32);
                    add("attn_v.bias", vec![kv], f32);
                }
                add("attn_output.weight", vec![q, e], w);
                add("ffn_norm.weight", vec![e], f32);
                add("ffn_gate.weight", vec![e, ff], w);
                add("ffn_up.weight", vec![e, ff], w);
                add("ffn_down.weight", vec![ff, e], more);
            }
            "gptneox" => {
                for norm in ["attn_norm", "ffn_norm"] {
                    add(&format!("{norm}.weight"), vec![e], f32);
                    add(&format!("{norm}.bias"), vec![e], f32);
                }
                add("attn_qkv.weight", vec![e, q + 2 * kv], w);
                add("attn_qkv.bias", vec![q + 2 * kv], f32);
                add("attn_output.weight", vec![q, e], w);
                add("attn_output.bias", vec![e], f32);
                add("ffn_up.weight", vec![e, ff], w);
                add("ffn_up.bias", vec![ff], f32);
                add("ffn_down.weight", vec![ff, e], more);
                add("ffn_down.bias", vec![e], f32);
            }
            other => return Err(format!("unknown layout {other:?}")),
        }
    }
    out.push(("output_norm.weight".into(), vec![e], f32));
    if shape.layout == "gptneox" {
        out.push(("output_norm.bias".into(), vec![e], f32));
    }
    if !shape.tied {
        out.push(("output.weight".into(), vec![e, v], mix.output));
    }
    match shape.order.as_str() {
        "convert" => {}
        "quantize" => out.sort_by_key(|(name, _, _)| (layer_of(name), name.clone())),
        other => return Err(format!("unknown tensor order {other:?}")),
    }
    Ok(out)
}

/// `blk.N.…` → Some(N); the non-layer tensors sort first.
fn layer_of(name: &str) -> Option<u64> {
    name.strip_prefix("blk.")?.split('.').next()?.parse().ok()
}

/// How many tensors of each type, as llama.cpp's loader prints them (`type q4_0: 129 tensors`).
pub fn type_counts(tensors: &[TensorSpec]) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for (_, _, ty) in tensors {
        *counts.entry(ty.name().to_string()).or_insert(0) += 1;
    }
    counts
}

fn string(s: &str) -> Vec<u8> {
    let mut out = (s.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(s.as_bytes());
    out
}

fn kv_u32(key: &str, value: u64) -> Vec<u8> {
    let mut entry = string(key);
    entry.extend_from_slice(&4u32.to_le_bytes());
    entry.extend_from_slice(&(value as u32).to_le_bytes());
    entry
}

/// The GGUF v3 header of a file with this shape and these tensors (offsets 32-byte aligned).
pub fn header(shape: &Shape, tensors: &[TensorSpec]) -> Result<GgufHeader, String> {
    let a = &shape.arch;
    let mut arch = string("general.architecture");
    arch.extend_from_slice(&8u32.to_le_bytes());
    arch.extend_from_slice(&string(a));
    let kv = [
        arch,
        kv_u32(&format!("{a}.block_count"), shape.n_layer),
        kv_u32(&format!("{a}.embedding_length"), shape.n_embd),
        kv_u32(&format!("{a}.attention.head_count"), shape.n_head),
        kv_u32(&format!("{a}.attention.head_count_kv"), shape.n_head_kv),
        kv_u32(&format!("{a}.attention.key_length"), shape.head_dim),
        kv_u32(&format!("{a}.attention.value_length"), shape.head_dim),
        kv_u32(&format!("{a}.feed_forward_length"), shape.n_ff),
        kv_u32(&format!("{a}.context_length"), shape.n_ctx_train),
        kv_u32(&format!("{a}.vocab_size"), shape.n_vocab),
    ];
    let mut bytes = b"GGUF".to_vec();
    bytes.extend_from_slice(&3u32.to_le_bytes());
    bytes.extend_from_slice(&(tensors.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&(kv.len() as u64).to_le_bytes());
    kv.iter().for_each(|e| bytes.extend_from_slice(e));
    let mut offset = 0u64;
    for (name, dims, ty) in tensors {
        bytes.extend_from_slice(&string(name));
        bytes.extend_from_slice(&(dims.len() as u32).to_le_bytes());
        dims.iter()
            .for_each(|d| bytes.extend_from_slice(&d.to_le_bytes()));
        bytes.extend_from_slice(&ty.id().to_le_bytes());
        bytes.extend_from_slice(&offset.to_le_bytes());
        let elements: u64 = dims.iter().product();
        let size = ty.bytes_for(elements).ok_or_else(|| {
            format!(
                "{name}: {elements} values are not whole {} blocks",
                ty.name()
            )
        })?;
        offset += size.next_multiple_of(32);
    }
    read_gguf(&bytes).map_err(|e| format!("the rebuilt header does not read: {e:?}"))
}
