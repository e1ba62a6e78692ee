//! Reading a Hugging Face config.json into an [`Architecture`]: the common fields here, the
//! families' quirks, experts, latents and windows in `parts`, vision towers in `vision`.

mod encdec;
mod fields;
mod hybrid;
mod parts;
mod quant;
mod vision;

pub use quant::{parse_quantization, Quantization, LAYER_MODULES};

use crate::json::{self, Value};

use encdec::{encdec_defaults, is_encoder_decoder, read_encdec};
use fields::{defaults, Fields};
use hybrid::apply_hybrid;
use parts::{apply_family, read_mla, read_moe, read_window};
use vision::{gemma3_vision_params, llava_vision_params, qwen_vision_params};

use crate::error::EngineError;
use crate::model::Architecture;

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
    if is_encoder_decoder(&model_type) {
        f.defaults = encdec_defaults(&model_type);
        let a = read_encdec(&f, &model_type)?;
        a.validate()?;
        return Ok(a);
    }
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
    apply_family(&f, &mut a, &model_type, gpt_style, multi_query);
    if let Some(vision) = top.get("vision_config").and_then(Value::as_object) {
        a.extra_params = match top.get("model_type").and_then(Value::as_str) {
            Some("gemma3") => gemma3_vision_params(vision, hidden)?,
            Some("qwen2_5_vl") => qwen_vision_params(vision, hidden, true)?,
            Some("qwen2_vl") => qwen_vision_params(vision, hidden, false)?,
            Some("llava") => llava_vision_params(vision, hidden, top)?,
            _ => 0,
        };
    }

    if let Some(moe) = read_moe(&f, &model_type, intermediate)? {
        a.moe = Some(moe);
    }
    if let Some(mla) = read_mla(&f)? {
        a.head_dim = mla.nope_dim + mla.rope_dim;
        a.kv_heads = heads;
        a.mla = Some(mla);
    }
    if let Some((window, sliding)) = read_window(&f, &model_type, layers, max_context)? {
        a.sliding_window = Some(window);
        a.sliding_layers = sliding;
    }
    apply_hybrid(&f, &mut a, &model_type)?;
    a.validate()?;
    Ok(a)
}
/// `n`, or an error naming `setting` when it is outside `min..=max`.
pub(super) fn within(setting: &str, n: u64, min: u64, max: u64) -> Result<u64, EngineError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_size_near_u64s_limit_is_refused_in_every_presets_family_without_overflow() {
        for preset in crate::model::presets::all() {
            let mut config: Value = serde_json::from_str(preset.config()).expect("preset JSON");
            // the configs that name it so at the top (not T5's d_model or a nested text_config)
            if config.get("hidden_size").is_none() {
                continue;
            }
            config["hidden_size"] = Value::from(1u64 << 63);
            let text = config.to_string();
            assert!(parse_config(&text).is_err(), "{} read", preset.id);
        }
    }

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
