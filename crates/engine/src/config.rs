//! Reading a Hugging Face config.json into an [`Architecture`].

use crate::json::{self, Map, Value};

use crate::error::EngineError;
use crate::model::{Architecture, Mla, MlpKind, Moe, NormKind};
use crate::units::prod;

/// The largest config.json accepted, in bytes; anything larger is refused before parsing.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

/// Families whose MLP has two matrices and whose norms are LayerNorms with biases everywhere.
const GPT_STYLE: &[&str] = &[
    "gpt2",
    "gpt_bigcode",
    "bert",
    "roberta",
    "falcon",
    "phi",
    "gpt_neox",
    "opt",
    "starcoder2",
    "gptj",
    "bloom",
];
/// Families whose config.json may omit tie_word_embeddings because they tie by default.
const TIE_BY_DEFAULT: &[&str] = &[
    "gpt2",
    "gpt_bigcode",
    "bert",
    "roberta",
    "falcon",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "opt",
    "bloom",
];

/// Defaults transformers fills in for fields a family's config.json may leave out.
fn defaults(model_type: &str) -> &'static [(&'static str, u64)] {
    match model_type {
        // Gemma3TextConfig: the multimodal checkpoints' text_config names little more than the widths
        "gemma3" | "gemma3_text" => &[
            ("vocab_size", 262_208),
            ("hidden_size", 2_304),
            ("intermediate_size", 9_216),
            ("num_hidden_layers", 26),
            ("num_attention_heads", 8),
            ("num_key_value_heads", 4),
            ("head_dim", 256),
            ("max_position_embeddings", 131_072),
            ("sliding_window", 4_096),
            ("sliding_window_pattern", 6),
        ],
        // LlamaConfig, for the text_config of LLaVA checkpoints
        "llava_text" => &[
            ("vocab_size", 32_000),
            ("hidden_size", 4_096),
            ("intermediate_size", 11_008),
            ("num_hidden_layers", 32),
            ("num_attention_heads", 32),
            ("max_position_embeddings", 2_048),
        ],
        // CLIPVisionConfig
        "clip_vision_model" => &[
            ("hidden_size", 768),
            ("intermediate_size", 3_072),
            ("num_hidden_layers", 12),
            ("image_size", 224),
            ("patch_size", 32),
            ("num_channels", 3),
        ],
        // Qwen2VLVisionConfig / Qwen2_5_VLVisionConfig
        "qwen2_vl_vision" => &[
            ("depth", 32),
            ("embed_dim", 1_280),
            ("mlp_ratio", 4),
            ("in_channels", 3),
            ("patch_size", 14),
            ("spatial_merge_size", 2),
            ("temporal_patch_size", 2),
        ],
        "qwen2_5_vl_vision" => &[
            ("depth", 32),
            ("hidden_size", 1_280),
            ("intermediate_size", 3_420),
            ("in_channels", 3),
            ("patch_size", 14),
            ("spatial_merge_size", 2),
            ("temporal_patch_size", 2),
        ],
        // SiglipVisionConfig
        "siglip_vision_model" => &[
            ("hidden_size", 768),
            ("intermediate_size", 3_072),
            ("num_hidden_layers", 12),
            ("image_size", 224),
            ("patch_size", 16),
            ("num_channels", 3),
        ],
        _ => &[],
    }
}

struct Fields<'a> {
    text: &'a Map<String, Value>,
    top: &'a Map<String, Value>,
    defaults: &'static [(&'static str, u64)],
}

impl Fields<'_> {
    fn get(&self, names: &[&str]) -> Option<&Value> {
        names.iter().find_map(|n| {
            self.text
                .get(n)
                .filter(|v| !v.is_null())
                .or_else(|| self.top.get(n).filter(|v| !v.is_null()))
        })
    }

    fn uint(&self, names: &[&str]) -> Result<Option<u64>, EngineError> {
        match self.get(names) {
            None => Ok(self
                .defaults
                .iter()
                .find(|(n, _)| names.contains(n))
                .map(|&(_, v)| v)),
            Some(v) => match v.as_u64() {
                Some(n) => Ok(Some(n)),
                None => {
                    // a number or string can be a megabyte long: show its start
                    let text = v.to_string();
                    let mut shown: String = text.chars().take(40).collect();
                    if shown.len() < text.len() {
                        shown.push('…');
                    }
                    Err(EngineError::NotAWholeNumber {
                        field: names[0].into(),
                        shown,
                    })
                }
            },
        }
    }

    fn required(&self, names: &[&str]) -> Result<u64, EngineError> {
        self.uint(names)?
            .ok_or_else(|| EngineError::MissingField(names[0].into()))
    }

    fn boolean(&self, names: &[&str]) -> Option<bool> {
        self.get(names).and_then(Value::as_bool)
    }

    fn positive(&self, names: &[&str]) -> bool {
        self.get(names).is_some_and(Value::is_positive)
    }

    fn string(&self, names: &[&str]) -> Option<&str> {
        self.get(names).and_then(Value::as_str)
    }
}

/// Parses config.json text. Unknown fields are ignored; a missing required one is named.
pub fn parse_config(text: &str) -> Result<Architecture, EngineError> {
    if text.len() > MAX_CONFIG_BYTES {
        return Err(EngineError::ConfigTooLarge {
            bytes: text.len(),
            limit: MAX_CONFIG_BYTES,
        });
    }
    let value: Value = json::parse(text).map_err(EngineError::NotJson)?;
    from_value(&value)
}

/// Reads an already-parsed config.json value.
pub fn from_value(value: &Value) -> Result<Architecture, EngineError> {
    let top = value.as_object().ok_or(EngineError::NotAnObject)?;
    let text = top
        .get("text_config")
        .and_then(Value::as_object)
        .unwrap_or(top);
    let mut f = Fields {
        text,
        top,
        defaults: &[],
    };
    let model_type = f.string(&["model_type"]).unwrap_or("").to_ascii_lowercase();
    let top_type = top.get("model_type").and_then(Value::as_str).unwrap_or("");
    // LLaVA's text_config names only what differs from LlamaConfig's defaults
    f.defaults = if top_type == "llava" && !std::ptr::eq(text, top) {
        defaults("llava_text")
    } else {
        defaults(&model_type)
    };
    let gpt_style = GPT_STYLE.contains(&model_type.as_str());

    let hidden = f.required(&["hidden_size", "n_embd", "d_model", "dim"])?;
    let layers = f.required(&["num_hidden_layers", "n_layer", "num_layers", "n_layers"])?;
    let heads = f.required(&["num_attention_heads", "n_head", "num_heads", "n_heads"])?;
    let vocab = f.required(&["vocab_size", "padded_vocab_size"])?;
    if heads == 0 {
        return Err(EngineError::ZeroField("num_attention_heads".into()));
    }
    let multi_query = f.boolean(&["multi_query"]).unwrap_or(false);
    let kv_heads = match f.uint(&[
        "num_key_value_heads",
        "num_kv_heads",
        "n_head_kv",
        "multi_query_group_num",
    ])? {
        Some(n) => n,
        None if multi_query => 1,
        None => heads,
    };
    let head_dim = f
        .uint(&["head_dim", "kv_channels"])?
        .unwrap_or(hidden / heads);
    let intermediate = match f.uint(&[
        "intermediate_size",
        "n_inner",
        "ffn_dim",
        "ffn_hidden_size",
        "ffn_embed_dim",
    ])? {
        Some(n) => n,
        None => hidden.saturating_mul(4),
    };
    let tied = f
        .boolean(&["tie_word_embeddings"])
        .unwrap_or_else(|| TIE_BY_DEFAULT.contains(&model_type.as_str()));
    let max_context = f
        .uint(&[
            "max_position_embeddings",
            "n_positions",
            "n_ctx",
            "seq_length",
            "max_sequence_length",
        ])?
        .unwrap_or(4_096);
    let max_context = within("max_position_embeddings", max_context, 1, 1 << 28)?;

    let mut a = Architecture::llama(vocab, hidden, intermediate, layers, heads, kv_heads, tied);
    a.head_dim = head_dim;
    a.max_context = max_context;
    if gpt_style {
        a.mlp = MlpKind::Plain;
        a.norm = NormKind::Layer;
        let bias = f.boolean(&["bias", "use_bias"]).unwrap_or(true);
        a.qkv_bias = bias;
        a.out_bias = bias;
        a.mlp_bias = bias;
    }
    match model_type.as_str() {
        "gpt2" | "gpt_bigcode" | "bert" | "roberta" | "opt" => a.positions = max_context,
        "falcon" => {
            let new_arch = f.boolean(&["new_decoder_architecture"]).unwrap_or(false);
            let parallel = f.boolean(&["parallel_attn"]).unwrap_or(true);
            a.norms_per_layer = if new_arch {
                2
            } else if parallel {
                1
            } else {
                2
            };
            if !new_arch && multi_query {
                a.kv_heads = 1;
            }
        }
        "phi" => {
            a.norms_per_layer = 1;
            a.head_bias = true;
        }
        "gemma2" | "gemma3" | "gemma3_text" => a.norms_per_layer = 4,
        _ => {}
    }
    if matches!(
        model_type.as_str(),
        "gemma3" | "gemma3_text" | "qwen3" | "qwen3_moe" | "olmo2"
    ) {
        a.qk_norm = true;
    }
    if matches!(
        model_type.as_str(),
        "qwen2" | "qwen2_moe" | "qwen2_vl" | "qwen2_5_vl"
    ) {
        a.qkv_bias = true;
    }
    if let Some(b) = f.boolean(&["attention_bias"]) {
        if !gpt_style {
            a.qkv_bias = b;
            a.out_bias = b;
        }
    }
    if let Some(b) = f.boolean(&["mlp_bias"]) {
        a.mlp_bias = b;
    }
    if model_type == "gpt_oss" {
        a.attn_sinks = true;
    }
    a.dropout = f.positive(&[
        "attention_probs_dropout_prob",
        "attn_pdrop",
        "attention_dropout",
    ]) || f.positive(&["hidden_dropout_prob", "resid_pdrop", "hidden_dropout"]);
    if let Some(vision) = top.get("vision_config").and_then(Value::as_object) {
        a.extra_params = match top.get("model_type").and_then(Value::as_str) {
            Some("gemma3") => gemma3_vision_params(vision, hidden)?,
            Some("qwen2_5_vl") => qwen_vision_params(vision, hidden, true)?,
            Some("qwen2_vl") => qwen_vision_params(vision, hidden, false)?,
            Some("llava") => llava_vision_params(vision, hidden, top)?,
            _ => 0,
        };
    }

    // Mixture of experts
    if let Some(experts) = f
        .uint(&["num_local_experts", "n_routed_experts", "num_experts"])?
        .filter(|&e| e > 1)
    {
        let top_k = f
            .uint(&[
                "num_experts_per_tok",
                "num_experts_per_token",
                "experts_per_token",
                "moe_topk",
            ])?
            .unwrap_or(2);
        let expert_ffn = f
            .uint(&["moe_intermediate_size", "expert_intermediate_size"])?
            .unwrap_or(intermediate);
        let shared_ffn = match f.uint(&["shared_expert_intermediate_size"])? {
            Some(s) => s,
            None => within(
                "n_shared_experts",
                f.uint(&["n_shared_experts", "num_shared_experts"])?
                    .unwrap_or(0),
                0,
                4_096,
            )?
            .saturating_mul(expert_ffn),
        };
        let shared_ffn = within("shared_expert_intermediate_size", shared_ffn, 0, 1 << 24)?;
        let mut dense_layers = f.uint(&["first_k_dense_replace"])?.unwrap_or(0);
        if let Some(only) = f.get(&["mlp_only_layers"]).and_then(Value::as_array) {
            dense_layers = dense_layers.saturating_add(only.len() as u64);
        }
        let gpt_oss = model_type == "gpt_oss";
        a.moe = Some(Moe {
            experts,
            top_k,
            expert_ffn,
            shared_ffn,
            dense_layers,
            expert_bias: gpt_oss,
            router_bias: gpt_oss,
            shared_gate: model_type == "qwen2_moe",
        });
    }

    // Multi-head latent attention
    if let Some(kv_lora_rank) = f.uint(&["kv_lora_rank"])? {
        let kv_lora_rank = within("kv_lora_rank", kv_lora_rank, 1, 65_536)?;
        let rope_dim = within(
            "qk_rope_head_dim",
            f.required(&["qk_rope_head_dim"])?,
            0,
            4_096,
        )?;
        let nope_dim = within(
            "qk_nope_head_dim",
            f.required(&["qk_nope_head_dim"])?,
            0,
            4_096,
        )?;
        a.mla = Some(Mla {
            q_lora_rank: within(
                "q_lora_rank",
                f.uint(&["q_lora_rank"])?.unwrap_or(0),
                0,
                65_536,
            )?,
            kv_lora_rank,
            rope_dim,
            nope_dim,
            v_head_dim: within(
                "v_head_dim",
                f.uint(&["v_head_dim"])?.unwrap_or(nope_dim),
                0,
                4_096,
            )?,
        });
        a.head_dim = nope_dim + rope_dim;
        a.kv_heads = heads;
    }

    // Sliding windows: every layer, the layers `layer_types` names, or a pattern
    let window = f.uint(&["sliding_window"])?.filter(|&w| w > 0);
    let use_window = f.boolean(&["use_sliding_window"]).unwrap_or(true);
    if let (Some(w), true) = (window, use_window) {
        let sliding = if let Some(types) = f.get(&["layer_types"]).and_then(Value::as_array) {
            types
                .iter()
                .filter(|t| t.as_str().is_some_and(|s| s.contains("sliding")))
                .count() as u64
        } else if let Some(p) = f.uint(&["sliding_window_pattern"])?.filter(|&p| p > 0) {
            // every p-th layer is global
            layers - layers / p
        } else if model_type == "gemma2" {
            layers / 2
        } else if let Some(m) = f
            .uint(&["max_window_layers"])?
            .filter(|_| model_type.starts_with("qwen"))
        {
            layers.saturating_sub(m)
        } else {
            layers
        };
        if sliding > 0 && w < max_context {
            a.sliding_window = Some(w);
            a.sliding_layers = sliding.min(layers);
        }
    }
    a.validate()?;
    Ok(a)
}

/// `n`, or an error naming `setting` when it is outside `min..=max`.
fn within(setting: &str, n: u64, min: u64, max: u64) -> Result<u64, EngineError> {
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(EngineError::OutOfRange {
            setting: setting.into(),
            value: n,
            min,
            max,
        })
    }
}

/// Gemma 3's SigLIP vision tower and its projector onto the text width, as transformers builds them.
/// A vision tower's field, required (or its config class's default) and within `1..=max`.
fn vision_field(v: &Fields, names: &[&str], max: u64) -> Result<u64, EngineError> {
    within(
        &format!("vision_config.{}", names[0]),
        v.required(names)?,
        1,
        max,
    )
}

/// The shape of a CLIP / SigLIP vision transformer, from its vision_config.
struct ViT {
    h: u64,
    ffn: u64,
    layers: u64,
    image: u64,
    patch: u64,
    channels: u64,
}

impl ViT {
    fn read(v: &Fields) -> Result<ViT, EngineError> {
        Ok(ViT {
            h: vision_field(v, &["hidden_size"], 65_536)?,
            ffn: vision_field(v, &["intermediate_size"], 262_144)?,
            layers: vision_field(v, &["num_hidden_layers"], 1_024)?,
            image: vision_field(v, &["image_size"], 65_536)?,
            patch: vision_field(v, &["patch_size"], 65_536)?,
            channels: vision_field(v, &["num_channels"], 64)?,
        })
    }

    /// One encoder layer: q, k, v, out with biases, two LayerNorms, fc1 and fc2 with biases.
    fn layer_params(h: u64, ffn: u64) -> u64 {
        4 * (h * h + h) + 4 * h + 2 * h * ffn + ffn + h
    }
}

/// Qwen2-VL and Qwen2.5-VL vision towers, as transformers builds them: a Conv3d patch embedding
/// without bias, blocks of norms + fused qkv + projection + MLP (Qwen2.5: gated, RMSNorm;
/// Qwen2: fc1/fc2, LayerNorm), and the patch merger's norm and two-layer MLP into the text width.
fn qwen_vision_params(
    vision: &Map<String, Value>,
    text_hidden: u64,
    v25: bool,
) -> Result<u64, EngineError> {
    let v = Fields {
        text: vision,
        top: vision,
        defaults: defaults(if v25 {
            "qwen2_5_vl_vision"
        } else {
            "qwen2_vl_vision"
        }),
    };
    let h = if v25 {
        vision_field(&v, &["hidden_size"], 65_536)?
    } else {
        vision_field(&v, &["embed_dim"], 65_536)?
    };
    let ffn = if v25 {
        vision_field(&v, &["intermediate_size"], 262_144)?
    } else {
        prod(&[h, vision_field(&v, &["mlp_ratio"], 64)?])
    };
    let depth = vision_field(&v, &["depth", "num_hidden_layers"], 1_024)?;
    let channels = vision_field(&v, &["in_channels", "in_chans"], 64)?;
    let patch = vision_field(&v, &["patch_size", "spatial_patch_size"], 1_024)?;
    let merge = vision_field(&v, &["spatial_merge_size"], 64)?;
    let temporal = vision_field(&v, &["temporal_patch_size"], 64)?;
    let out_name = if v25 {
        "out_hidden_size"
    } else {
        "hidden_size"
    };
    // without its own width the merger projects into the text model's (checked with the text model)
    let out = match v.uint(&[out_name])? {
        Some(o) => within(&format!("vision_config.{out_name}"), o, 1, 131_072)?,
        None => text_hidden.min(131_072),
    };
    let norm = if v25 { h } else { 2 * h };
    let mlp = if v25 {
        3 * h * ffn + 2 * ffn + h
    } else {
        2 * h * ffn + ffn + h
    };
    let block = 2 * norm + (3 * h * h + 3 * h) + (h * h + h) + mlp;
    let merged = h * merge * merge;
    let merger = norm + merged * merged + merged + merged * out + out;
    Ok(prod(&[channels, temporal, patch, patch, h])
        .saturating_add(prod(&[depth, block]))
        .saturating_add(merger))
}

/// LLaVA: a CLIP vision tower (class token, patch and position embeddings, pre- and post-
/// LayerNorm, layers of q, k, v, out with biases, two LayerNorms and fc1/fc2) and the two-layer
/// projector into the text width.
fn llava_vision_params(
    vision: &Map<String, Value>,
    text_hidden: u64,
    top: &Map<String, Value>,
) -> Result<u64, EngineError> {
    let v = Fields {
        text: vision,
        top: vision,
        defaults: defaults("clip_vision_model"),
    };
    let ViT {
        h,
        ffn,
        layers,
        image,
        patch,
        channels,
    } = ViT::read(&v)?;
    let positions = (image / patch).pow(2) + 1;
    let embeddings = h + channels * patch * patch * h + positions * h;
    let bias = top
        .get("multimodal_projector_bias")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let projector = prod(&[h, text_hidden])
        .saturating_add(prod(&[text_hidden, text_hidden]))
        .saturating_add(if bias {
            text_hidden.saturating_mul(2)
        } else {
            0
        });
    Ok((embeddings + 4 * h + layers * ViT::layer_params(h, ffn)).saturating_add(projector))
}

fn gemma3_vision_params(vision: &Map<String, Value>, text_hidden: u64) -> Result<u64, EngineError> {
    let v = Fields {
        text: vision,
        top: vision,
        defaults: defaults("siglip_vision_model"),
    };
    let ViT {
        h,
        ffn,
        layers,
        image,
        patch,
        channels,
    } = ViT::read(&v)?;
    let linear = |i: u64, o: u64| i * o + o;
    let mlp = linear(h, ffn) + linear(ffn, h);
    let patches = (image / patch).pow(2);
    let embeddings = channels * patch * patch * h + h + patches * h;
    // probe, multi-head attention, LayerNorm, MLP
    let head = if v.boolean(&["vision_use_head"]).unwrap_or(true) {
        h + 3 * linear(h, h) + linear(h, h) + 2 * h + mlp
    } else {
        0
    };
    // mm_input_projection_weight and mm_soft_emb_norm
    let projector = prod(&[h, text_hidden]).saturating_add(h);
    Ok((embeddings + ViT::layer_params(h, ffn) * layers + 2 * h + head).saturating_add(projector))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_llama_config_json_reads_into_the_exact_parameter_count() {
        let cfg = r#"{"model_type":"llama","vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,
            "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"tie_word_embeddings":false,
            "max_position_embeddings":4096,"torch_dtype":"float16","some_unknown_field":[1,2,3]}"#;
        let a = parse_config(cfg).unwrap();
        assert_eq!(a.params().total(), 6_738_415_616);
    }

    #[test]
    fn a_missing_hidden_size_is_named_in_the_error() {
        let err =
            parse_config(r#"{"num_hidden_layers":2,"num_attention_heads":2,"vocab_size":10}"#)
                .unwrap_err();
        assert_eq!(err, EngineError::MissingField("hidden_size".into()));
        assert!(err.to_string().contains("hidden_size"));
    }

    #[test]
    fn qwen2_5_vl_7b_counts_its_vision_tower_like_transformers_8_292_166_656() {
        let a = parse_config(r#"{"architectures":["Qwen2_5_VLForConditionalGeneration"],"attention_dropout":0.0,"hidden_act":"silu","hidden_size":3584,"intermediate_size":18944,"max_position_embeddings":128000,"max_window_layers":28,"model_type":"qwen2_5_vl","num_attention_heads":28,"num_hidden_layers":28,"num_key_value_heads":4,"rms_norm_eps":1e-06,"rope_theta":1000000.0,"sliding_window":32768,"tie_word_embeddings":false,"torch_dtype":"bfloat16","use_cache":true,"use_sliding_window":false,"vision_config":{"depth":32,"hidden_act":"silu","hidden_size":1280,"intermediate_size":3420,"num_heads":16,"in_chans":3,"out_hidden_size":3584,"patch_size":14,"spatial_merge_size":2,"spatial_patch_size":14,"window_size":112,"fullatt_block_indexes":[7,15,23,31],"tokens_per_second":2,"temporal_patch_size":2},"rope_scaling":{"type":"mrope","mrope_section":[16,24,24]},"vocab_size":152064}"#).unwrap();
        assert_eq!(a.params().total(), 8_292_166_656);
        // the vision tower and merger: 676,550,144 of them, outside the language model
        assert_eq!(a.extra_params, 676_550_144);
    }

    #[test]
    fn qwen2_vl_7b_counts_its_vision_tower_like_transformers_8_291_375_616() {
        let a = parse_config(r#"{"architectures":["Qwen2VLForConditionalGeneration"],"attention_dropout":0.0,"hidden_act":"silu","hidden_size":3584,"intermediate_size":18944,"max_position_embeddings":32768,"max_window_layers":28,"model_type":"qwen2_vl","num_attention_heads":28,"num_hidden_layers":28,"num_key_value_heads":4,"rms_norm_eps":1e-06,"rope_theta":1000000.0,"sliding_window":32768,"tie_word_embeddings":false,"torch_dtype":"bfloat16","use_sliding_window":false,"vision_config":{"depth":32,"embed_dim":1280,"mlp_ratio":4,"num_heads":16,"in_chans":3,"hidden_size":3584,"patch_size":14,"spatial_merge_size":2,"spatial_patch_size":14,"temporal_patch_size":2},"rope_scaling":{"type":"mrope","mrope_section":[16,24,24]},"vocab_size":152064}"#).unwrap();
        assert_eq!(a.params().total(), 8_291_375_616);
    }

    #[test]
    fn llava_1_5_7b_reads_llama_defaults_and_counts_clip_and_projector_like_transformers() {
        // its text_config names only what differs from LlamaConfig; transformers counts 7,063,427,072
        let a = parse_config(r#"{"architectures":["LlavaForConditionalGeneration"],"ignore_index":-100,"image_token_index":32000,"model_type":"llava","pad_token_id":32001,"projector_hidden_act":"gelu","text_config":{"_name_or_path":"lmsys/vicuna-7b-v1.5","architectures":["LlamaForCausalLM"],"max_position_embeddings":4096,"model_type":"llama","rms_norm_eps":1e-05,"torch_dtype":"float16","vocab_size":32064},"tie_word_embeddings":false,"torch_dtype":"float16","vision_config":{"hidden_size":1024,"image_size":336,"intermediate_size":4096,"model_type":"clip_vision_model","num_attention_heads":16,"num_hidden_layers":24,"patch_size":14,"projection_dim":768,"vocab_size":32000},"vision_feature_layer":-2,"vision_feature_select_strategy":"default","vocab_size":32064}"#).unwrap();
        assert_eq!(a.params().total(), 7_063_427_072);
        assert_eq!(a.extra_params, 303_507_456 + 20_979_712);
    }

    #[test]
    fn text_config_of_a_multimodal_model_is_read() {
        let cfg = r#"{"model_type":"llava","text_config":{"vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,
            "num_hidden_layers":32,"num_attention_heads":32,"tie_word_embeddings":false}}"#;
        assert_eq!(parse_config(cfg).unwrap().params().total(), 6_738_415_616);
    }

    #[test]
    fn malformed_json_is_a_bad_config_error_not_a_panic() {
        assert!(matches!(
            parse_config("{\"hidden_size\": 4096,"),
            Err(EngineError::NotJson(_))
        ));
        assert!(matches!(
            parse_config("[1,2]"),
            Err(EngineError::NotAnObject)
        ));
        assert!(matches!(
            parse_config(
                r#"{"hidden_size":"big","num_hidden_layers":2,"num_attention_heads":2,"vocab_size":10}"#
            ),
            Err(EngineError::NotAWholeNumber { .. })
        ));
    }

    #[test]
    fn a_config_over_one_megabyte_is_refused_before_parsing() {
        let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(MAX_CONFIG_BYTES));
        assert!(
            matches!(parse_config(&big), Err(EngineError::ConfigTooLarge { limit, .. }) if limit == MAX_CONFIG_BYTES)
        );
    }

    const SIGLIP_896: &str = r#""vision_config":{"hidden_size":1152,"image_size":896,"intermediate_size":4304,"model_type":"siglip_vision_model",
        "num_attention_heads":16,"num_hidden_layers":27,"patch_size":14,"vision_use_head":false}"#;

    #[test]
    fn gemma_3_4b_as_published_gets_transformers_defaults_and_its_vision_tower() {
        // google/gemma-3-4b-it: the text_config names only the widths; transformers counts 4,300,079,472
        let cfg = format!(
            r#"{{"model_type":"gemma3","text_config":{{"hidden_size":2560,"intermediate_size":10240,"model_type":"gemma3_text",
            "num_hidden_layers":34,"rope_scaling":{{"factor":8.0,"rope_type":"linear"}},"sliding_window":1024}},{SIGLIP_896}}}"#
        );
        let a = parse_config(&cfg).unwrap();
        assert_eq!(
            (a.vocab, a.heads, a.kv_heads, a.head_dim),
            (262_208, 8, 4, 256)
        );
        assert_eq!(a.params().extra, 419_816_304);
        assert_eq!(a.params().total(), 4_300_079_472);
        assert_eq!(
            (a.sliding_window, a.full_attention_layers()),
            (Some(1_024), 5)
        );
    }

    #[test]
    fn gemma_3_12b_as_published_takes_the_default_head_dim_not_hidden_over_heads() {
        let cfg = format!(
            r#"{{"model_type":"gemma3","text_config":{{"hidden_size":3840,"intermediate_size":15360,"model_type":"gemma3_text",
            "num_attention_heads":16,"num_hidden_layers":48,"num_key_value_heads":8,"sliding_window":1024}},{SIGLIP_896}}}"#
        );
        let a = parse_config(&cfg).unwrap();
        assert_eq!(a.head_dim, 256);
        assert_eq!(a.params().total(), 12_187_325_040);
    }

    #[test]
    fn a_siglip_tower_without_vision_use_head_counts_its_pooling_head() {
        let cfg = r#"{"model_type":"gemma3","text_config":{"hidden_size":256,"intermediate_size":512,"model_type":"gemma3_text",
            "num_hidden_layers":2,"vocab_size":1000},"vision_config":{"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
            "image_size":64,"patch_size":16,"num_attention_heads":4}}"#;
        let a = parse_config(cfg).unwrap();
        assert_eq!((a.params().extra, a.params().total()), (167_168, 4_358_656));
    }

    #[test]
    fn an_absurd_vision_config_is_an_error_not_a_panic() {
        let cfg = r#"{"model_type":"gemma3","text_config":{"hidden_size":256,"intermediate_size":512,"num_hidden_layers":2},
            "vision_config":{"hidden_size":18446744073709551615,"patch_size":0}}"#;
        assert!(matches!(
            parse_config(cfg),
            Err(EngineError::OutOfRange { .. })
        ));
        let huge_text = r#"{"model_type":"gemma3","text_config":{"hidden_size":4000000000000,"num_hidden_layers":2},"vision_config":{}}"#;
        assert!(parse_config(huge_text).is_err());
    }

    #[test]
    fn the_largest_whole_number_in_any_field_is_an_error_not_a_panic() {
        let base = r#""hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100,"n_routed_experts":4,
            "num_experts_per_tok":2,"moe_intermediate_size":32,"n_shared_experts":1,"kv_lora_rank":8,"q_lora_rank":8,
            "qk_rope_head_dim":8,"qk_nope_head_dim":8,"v_head_dim":8"#;
        let fields = [
            "hidden_size",
            "max_position_embeddings",
            "n_shared_experts",
            "shared_expert_intermediate_size",
            "kv_lora_rank",
            "q_lora_rank",
            "qk_rope_head_dim",
            "qk_nope_head_dim",
            "v_head_dim",
        ];
        for model_type in ["deepseek_v3", "gpt2", "qwen2_moe"] {
            for field in fields {
                let cfg = format!(
                    r#"{{"model_type":"{model_type}",{base},"{field}":{}}}"#,
                    u64::MAX
                );
                assert!(parse_config(&cfg).is_err(), "{model_type} {field}");
            }
        }
    }
}
