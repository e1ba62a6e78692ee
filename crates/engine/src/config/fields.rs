//! The fields of a config.json, looked up by any of their names, in the text config first, with
//! the defaults transformers fills in for a family.

use crate::error::EngineError;
use crate::json::{self, Map, Value};

/// Defaults transformers fills in for fields a family's config.json may leave out.
pub(super) fn defaults(model_type: &str) -> &'static [(&'static str, u64)] {
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

pub(super) struct Fields<'a> {
    pub(super) text: &'a Map<String, Value>,
    pub(super) top: &'a Map<String, Value>,
    pub(super) defaults: &'static [(&'static str, u64)],
}

impl Fields<'_> {
    pub(super) fn get(&self, names: &[&str]) -> Option<&Value> {
        names.iter().find_map(|n| {
            self.text
                .get(*n)
                .filter(|v| !v.is_null())
                .or_else(|| self.top.get(*n).filter(|v| !v.is_null()))
        })
    }

    pub(super) fn uint(&self, names: &[&str]) -> Result<Option<u64>, EngineError> {
        match self.get(names) {
            None => Ok(self
                .defaults
                .iter()
                .find(|(n, _)| names.contains(n))
                .map(|&(_, v)| v)),
            Some(v) => match json::whole(v) {
                Some(n) => Ok(Some(n)),
                None => {
                    // a number or string can be a megabyte long: show its start
                    let text = json::brief(v);
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

    pub(super) fn required(&self, names: &[&str]) -> Result<u64, EngineError> {
        self.uint(names)?
            .ok_or_else(|| EngineError::MissingField(names[0].into()))
    }

    pub(super) fn boolean(&self, names: &[&str]) -> Option<bool> {
        self.get(names).and_then(Value::as_bool)
    }

    pub(super) fn positive(&self, names: &[&str]) -> bool {
        self.get(names).is_some_and(json::is_positive)
    }

    pub(super) fn string(&self, names: &[&str]) -> Option<&str> {
        self.get(names).and_then(Value::as_str)
    }
}
