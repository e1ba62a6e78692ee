//! config.json's `quantization_config`: the format a checkpoint's linear layers are stored in, and
//! the parts it leaves in another format (the modules each library skips).
//!
//! Field names as the libraries write them: transformers' `BitsAndBytesConfig`, `GPTQConfig`
//! (with GPTQModel's `dynamic` overrides), `AwqConfig`, `FbgemmFp8Config`, `Mxfp4Config`
//! (src/transformers/utils/quantization_config.py, huggingface/transformers@142576881d4a9cc79c35a77e8e7e013024c6eb50),
//! vLLM's `Fp8Config` (`ignored_layers`), compressed-tensors (`config_groups`, `ignore`, `format`)
//! and ModelOpt (`quant_algo`, `exclude_modules`).

use crate::dtype::WeightFormat;
use crate::error::EngineError;
use crate::json::{self, Map, Value};
use crate::weight_parts::{PartFormats, WeightPart};

/// How config.json says the checkpoint is quantized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantization {
    /// The format of the quantized linear layers.
    pub format: WeightFormat,
    /// The parts stored otherwise: left 16-bit by a skip list, or the head quantized too.
    pub parts: PartFormats,
    /// Per linear module of a layer ([`LAYER_MODULES`]), in how many layers the skip list keeps
    /// it 16-bit: Unsloth's dynamic 4-bit checkpoints name single layers' modules
    /// (`model.layers.0.mlp.down_proj`) in `llm_int8_skip_modules`.
    pub kept_in_layers: [u32; 7],
}

/// The linear modules of a layer, by the engine's names and the names checkpoints give them.
pub const LAYER_MODULES: [(&str, &str); 7] = [
    ("q", "q_proj"),
    ("k", "k_proj"),
    ("v", "v_proj"),
    ("o", "o_proj"),
    ("gate", "gate_proj"),
    ("up", "up_proj"),
    ("down", "down_proj"),
];

/// Counts, per module of [`LAYER_MODULES`], the single layers' modules a skip list names: a
/// module (`…layers.3.mlp.down_proj`), or a layer's attention or MLP as a whole.
fn count_layer_skips<'a>(names: impl Iterator<Item = &'a str>) -> [u32; 7] {
    let mut kept = [0u32; 7];
    for name in names {
        let name = name.to_ascii_lowercase();
        let in_one_layer = name
            .split("layers.")
            .skip(1)
            .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        if !in_one_layer || name.contains("vision") || name.contains("visual") {
            continue;
        }
        let last = name.rsplit('.').next().unwrap_or("");
        let modules: &[usize] = match last {
            "self_attn" | "attn" | "attention" => &[0, 1, 2, 3],
            "mlp" | "feed_forward" => &[4, 5, 6],
            _ => match LAYER_MODULES.iter().position(|(_, n)| *n == last) {
                Some(i) => &[i][..],
                None => &[],
            },
        };
        for i in modules {
            kept[*i] += 1;
        }
    }
    kept
}

impl Quantization {
    /// As link pairs: `w=` the format, then each part with a format of its own
    /// (`w=mxfp4&we=bf16&wa=bf16&wh=bf16`).
    pub fn to_text(&self) -> String {
        std::iter::once(("w", self.format))
            .chain(self.parts.overridden().map(|(p, f)| (p.key(), f)))
            .map(|(k, f)| format!("{k}={}", f.key()))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// Reads what [`Quantization::to_text`] writes.
    pub fn from_text(text: &str) -> Option<Quantization> {
        let mut format = None;
        let mut parts = PartFormats::default();
        for pair in text.split('&') {
            let (key, value) = pair.split_once('=')?;
            let f = WeightFormat::from_key(value)?;
            match WeightPart::from_key(key) {
                Some(part) => parts.set(part, Some(f)),
                None if key == "w" => format = Some(f),
                None => return None,
            }
        }
        Some(Quantization {
            format: format?,
            parts,
            kept_in_layers: [0; 7],
        })
    }
}

/// The quantization config.json names, `None` when it names none or one the engine has no
/// format for (2-bit GPTQ, a compressed-tensors scheme without an equivalent).
pub fn parse_quantization(text: &str) -> Result<Option<Quantization>, EngineError> {
    let value = json::parse(text).map_err(EngineError::NotJson)?;
    let top = value.as_object().ok_or(EngineError::NotAnObject)?;
    Ok(top
        .get("quantization_config")
        .and_then(Value::as_object)
        .and_then(read_quantization))
}

/// Reads one `quantization_config` object.
fn read_quantization(q: &Map<String, Value>) -> Option<Quantization> {
    let method = text(q, "quant_method").unwrap_or("").to_ascii_lowercase();
    let bits = q.get("bits").and_then(json::whole);
    let mut parts = PartFormats::default();
    let (format, skipped) = match method.as_str() {
        "bitsandbytes" => (bitsandbytes_format(q)?, "llm_int8_skip_modules"),
        "gptq" => (gptq_format(bits.unwrap_or(4))?, "modules_to_not_convert"),
        "awq" => {
            let bits = bits.or_else(|| q.get("w_bit").and_then(json::whole));
            (
                (bits.unwrap_or(4) == 4).then_some(WeightFormat::Awq4)?,
                "modules_to_not_convert",
            )
        }
        "fp8" | "fbgemm_fp8" => (WeightFormat::Fp8, fp8_skip_key(q)),
        "mxfp4" => (WeightFormat::Mxfp4, "modules_to_not_convert"),
        "modelopt" => (modelopt_format(q)?, "exclude_modules"),
        "compressed-tensors" => (compressed_tensors(q, &mut parts)?, "ignore"),
        _ => return None,
    };
    for name in strings(q, skipped) {
        if let Some(part) = part_named(name) {
            parts.set(part, Some(WeightFormat::Bf16));
        }
    }
    let kept_in_layers = count_layer_skips(strings(q, skipped));
    if method == "gptq" {
        gptq_dynamic(q, format, &mut parts);
    }
    let head_quantized = match method.as_str() {
        // GPTQModel's `lm_head: true`
        "gptq" => q.get("lm_head").and_then(Value::as_bool).unwrap_or(false),
        // their targets are every Linear, lm_head included, unless it is ignored
        "compressed-tensors" | "modelopt" => parts.get(WeightPart::Head).is_none(),
        _ => false,
    };
    if head_quantized {
        parts.set(WeightPart::Head, Some(format));
    }
    Some(Quantization {
        format,
        parts,
        kept_in_layers,
    })
}

/// `BitsAndBytesConfig`: 4-bit (`bnb_4bit_quant_type`, "fp4" unless it says "nf4", and
/// `bnb_4bit_use_double_quant`) or 8-bit (LLM.int8).
fn bitsandbytes_format(q: &Map<String, Value>) -> Option<WeightFormat> {
    let on = |names: &[&str]| {
        names
            .iter()
            .any(|n| q.get(*n).and_then(Value::as_bool) == Some(true))
    };
    if on(&["load_in_4bit", "_load_in_4bit"]) {
        let nf4 = text(q, "bnb_4bit_quant_type") == Some("nf4");
        let double = on(&["bnb_4bit_use_double_quant"]);
        Some(match (nf4, double) {
            (true, true) => WeightFormat::Nf4Dq,
            (true, false) => WeightFormat::Nf4,
            (false, true) => WeightFormat::Fp4Dq,
            (false, false) => WeightFormat::Fp4,
        })
    } else if on(&["load_in_8bit", "_load_in_8bit"]) {
        Some(WeightFormat::Int8)
    } else {
        None
    }
}

fn gptq_format(bits: u64) -> Option<WeightFormat> {
    match bits {
        8 => Some(WeightFormat::Gptq8),
        4 => Some(WeightFormat::Gptq4),
        3 => Some(WeightFormat::Gptq3),
        _ => None,
    }
}

/// vLLM's fp8 config names its skip list `ignored_layers`; transformers' `modules_to_not_convert`.
fn fp8_skip_key(q: &Map<String, Value>) -> &'static str {
    if q.contains_key("ignored_layers") {
        "ignored_layers"
    } else {
        "modules_to_not_convert"
    }
}

/// ModelOpt's `quant_algo`: NVFP4 or FP8.
fn modelopt_format(q: &Map<String, Value>) -> Option<WeightFormat> {
    match text(q, "quant_algo")?.to_ascii_uppercase().as_str() {
        "NVFP4" | "NVFP4_AWQ" => Some(WeightFormat::Nvfp4),
        "FP8" => Some(WeightFormat::Fp8),
        _ => None,
    }
}

/// compressed-tensors: each of `config_groups` quantizes its `targets` in its scheme (the group's
/// `format`, the top-level one, or its weights' bits and type). The group that targets every
/// `Linear` gives the format; groups whose targets name a part give that part its own. Without a
/// `Linear` group, the experts' (MLP's) group gives the format, else the first group's.
fn compressed_tensors(q: &Map<String, Value>, parts: &mut PartFormats) -> Option<WeightFormat> {
    let top = text(q, "format");
    let groups = q.get("config_groups").and_then(Value::as_object);
    let mut linear = None;
    let mut first = None;
    for (_, group) in groups.into_iter().flat_map(|g| g.iter()) {
        let Some(group) = group.as_object() else {
            continue;
        };
        let Some(format) = compressed_group_format(group, top) else {
            continue;
        };
        first = first.or(Some(format));
        for target in strings(group, "targets") {
            if target == "Linear" {
                linear = Some(format);
            } else if let Some(part) = part_named(target) {
                parts.set(part, Some(format));
            }
        }
    }
    linear
        .or(parts.get(WeightPart::Mlp))
        .or(first)
        .or_else(|| compressed_packing(top?))
}

/// A compressed-tensors packing that says its scheme by name.
fn compressed_packing(format: &str) -> Option<WeightFormat> {
    match format {
        "nvfp4-pack-quantized" => Some(WeightFormat::Nvfp4),
        "mxfp4-pack-quantized" => Some(WeightFormat::Mxfp4),
        _ => None,
    }
}

/// One group's scheme: its packing by name, or its weights' bits and type.
fn compressed_group_format(group: &Map<String, Value>, top: Option<&str>) -> Option<WeightFormat> {
    if let Some(f) = text(group, "format").or(top).and_then(compressed_packing) {
        return Some(f);
    }
    let weights = group.get("weights")?.as_object()?;
    let bits = weights.get("num_bits").and_then(json::whole)?;
    let float = text(weights, "type") == Some("float");
    match (bits, float) {
        (8, true) => Some(WeightFormat::Fp8),
        (8, false) => Some(WeightFormat::Int8),
        (4, true) if weights.get("group_size").and_then(json::whole) == Some(32) => {
            Some(WeightFormat::Mxfp4)
        }
        (4, true) => Some(WeightFormat::Nvfp4),
        // int4 + a 16-bit scale per group of 128: AWQ's layout less its zero points
        (4, false) => Some(WeightFormat::Awq4),
        _ => None,
    }
}

/// GPTQModel's `dynamic`: `-:pattern` leaves matching modules 16-bit, `+:pattern` (or a bare
/// pattern) gives them their own `bits`; patterns that pin single layers are not a part's format.
fn gptq_dynamic(q: &Map<String, Value>, format: WeightFormat, parts: &mut PartFormats) {
    let Some(dynamic) = q.get("dynamic").and_then(Value::as_object) else {
        return;
    };
    for (pattern, overrides) in dynamic.iter() {
        let (skip, pattern) = match pattern.split_once(':') {
            Some(("-", p)) => (true, p),
            Some(("+", p)) => (false, p),
            _ => (false, pattern.as_str()),
        };
        let Some(part) = part_named(pattern) else {
            continue;
        };
        let own = if skip {
            Some(WeightFormat::Bf16)
        } else {
            overrides
                .as_object()
                .and_then(|o| o.get("bits"))
                .and_then(json::whole)
                .and_then(gptq_format)
                .or(Some(format))
        };
        parts.set(part, own);
    }
}

/// The part a module name (or a `re:` pattern) names, when it names one part in every layer:
/// not a router or gate (a few parameters that stay 16-bit in any case), not one layer alone,
/// not a vision tower.
fn part_named(name: &str) -> Option<WeightPart> {
    let name = name.trim_start_matches("re:").to_ascii_lowercase();
    let last = name
        .trim_end_matches('$')
        .rsplit(['.', '*'])
        .find(|s| !s.is_empty())
        .unwrap_or("");
    let routerish = matches!(last, "router" | "gate" | "shared_expert_gate");
    let one_layer = name
        .split("layers.")
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    if routerish || one_layer || name.contains("vision") || name.contains("visual") {
        return None;
    }
    const PARTS: &[(WeightPart, &[&str])] = &[
        (WeightPart::Head, &["lm_head", "output_layer"]),
        (
            WeightPart::Embeddings,
            &["embed_tokens", "wte", "embeddings"],
        ),
        (
            WeightPart::Attention,
            &["attn", "attention", "q_proj", "k_proj", "v_proj", "o_proj"],
        ),
        (
            WeightPart::Mlp,
            &[
                "mlp",
                "experts",
                "feed_forward",
                "gate_proj",
                "up_proj",
                "down_proj",
            ],
        ),
    ];
    PARTS
        .iter()
        .find(|(_, words)| words.iter().any(|w| name.contains(w)))
        .map(|(part, _)| *part)
}

fn text<'a>(q: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    q.get(key).and_then(Value::as_str)
}

fn strings<'a>(q: &'a Map<String, Value>, key: &str) -> impl Iterator<Item = &'a str> {
    q.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(q: &str) -> Option<Quantization> {
        parse_quantization(&format!(r#"{{"quantization_config":{q}}}"#)).unwrap()
    }

    #[test]
    fn bitsandbytes_4_bit_without_a_quant_type_is_fp4_as_transformers_defaults() {
        let q = read(r#"{"quant_method":"bitsandbytes","load_in_4bit":true}"#).unwrap();
        assert_eq!(q.format, WeightFormat::Fp4);
        let q = read(
            r#"{"quant_method":"bitsandbytes","_load_in_4bit":true,"bnb_4bit_quant_type":"fp4","bnb_4bit_use_double_quant":true}"#,
        );
        assert_eq!(q.unwrap().format, WeightFormat::Fp4Dq);
    }

    #[test]
    fn module_names_map_to_their_part_and_routers_and_single_layers_to_none() {
        assert_eq!(part_named("lm_head"), Some(WeightPart::Head));
        assert_eq!(
            part_named("model.layers.*.self_attn"),
            Some(WeightPart::Attention)
        );
        assert_eq!(
            part_named("model.embed_tokens"),
            Some(WeightPart::Embeddings)
        );
        assert_eq!(part_named("re:.*mlp.gate$"), None);
        assert_eq!(part_named("model.layers.*.mlp.router"), None);
        assert_eq!(part_named("model.layers.0.mlp"), None);
        assert_eq!(part_named("re:.*mlp.*"), Some(WeightPart::Mlp));
    }

    #[test]
    fn compressed_tensors_groups_that_target_parts_give_those_parts_their_format() {
        let q = read(
            r#"{"quant_method":"compressed-tensors","format":"mixed-precision","config_groups":{
            "group_0":{"weights":{"num_bits":8,"type":"float","strategy":"block"},"targets":["re:.*self_attn.*"]},
            "group_1":{"weights":{"num_bits":4,"type":"float","group_size":16},"targets":["re:.*mlp.experts.*"]}},
            "ignore":["lm_head"]}"#,
        )
        .unwrap();
        assert_eq!(q.format, WeightFormat::Nvfp4);
        assert_eq!(q.parts.get(WeightPart::Attention), Some(WeightFormat::Fp8));
        assert_eq!(q.parts.get(WeightPart::Mlp), Some(WeightFormat::Nvfp4));
        assert_eq!(q.parts.get(WeightPart::Head), Some(WeightFormat::Bf16));
    }

    #[test]
    fn a_quantization_travels_as_link_pairs_and_back() {
        let q = Quantization {
            format: WeightFormat::Mxfp4,
            parts: PartFormats::default().with(WeightPart::Attention, WeightFormat::Bf16),
            kept_in_layers: [0; 7],
        };
        assert_eq!(q.to_text(), "w=mxfp4&wa=bf16");
        assert_eq!(Quantization::from_text(&q.to_text()), Some(q));
        assert_eq!(Quantization::from_text("w=mxfp4&zz=bf16"), None);
        assert_eq!(Quantization::from_text("wa=bf16"), None);
    }

    #[test]
    fn single_layers_modules_an_unsloth_dynamic_checkpoint_skips_are_counted_per_module() {
        let q = read(
            r#"{"quant_method":"bitsandbytes","load_in_4bit":true,"bnb_4bit_quant_type":"nf4",
            "bnb_4bit_use_double_quant":true,"llm_int8_skip_modules":["lm_head",
            "model.layers.0.mlp.down_proj","model.layers.1.mlp.down_proj","model.layers.2.self_attn",
            "vision_tower.layers.0.mlp.fc1"]}"#,
        )
        .unwrap();
        // q, k, v, o once (layer 2's attention), down twice; the vision tower's layers do not count
        assert_eq!(q.kept_in_layers, [1, 1, 1, 1, 0, 0, 2]);
        assert_eq!(q.parts.get(WeightPart::Head), Some(WeightFormat::Bf16));
        assert_eq!(q.parts.get(WeightPart::Mlp), None);
    }

    #[test]
    fn two_bit_gptq_and_an_unknown_method_have_no_format() {
        assert_eq!(read(r#"{"quant_method":"gptq","bits":2}"#), None);
        assert_eq!(read(r#"{"quant_method":"hqq"}"#), None);
        assert_eq!(parse_quantization(r#"{"hidden_size":8}"#).unwrap(), None);
    }
}
