//! Vision towers of multimodal checkpoints (SigLIP, CLIP + projector, Qwen2-VL), counted as
//! parameters outside the language model.

use super::fields::{defaults, Fields};
use super::within;
use crate::error::EngineError;
use crate::json::{Map, Value};
use crate::units::prod;

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
pub(super) fn qwen_vision_params(
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
/// A vision config's fields, with the defaults of its tower family.
fn tower<'a>(vision: &'a Map<String, Value>, family: &str) -> Fields<'a> {
    Fields {
        text: vision,
        top: vision,
        defaults: defaults(family),
    }
}

pub(super) fn llava_vision_params(
    vision: &Map<String, Value>,
    text_hidden: u64,
    top: &Map<String, Value>,
) -> Result<u64, EngineError> {
    let v = tower(vision, "clip_vision_model");
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

pub(super) fn gemma3_vision_params(
    vision: &Map<String, Value>,
    text_hidden: u64,
) -> Result<u64, EngineError> {
    let v = tower(vision, "siglip_vision_model");
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
