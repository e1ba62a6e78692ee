//! Multimodal projector headers (`mmproj-*.gguf`, architecture `clip`) as llama.cpp's converter
//! writes them: a SigLIP-style vision tower (`v.…`) and its projection into the text model
//! (`mm.…`), f16 matrices and f32 norms and biases. Shared by the engine's, the CLI's and the
//! browser's tests.

use vram_engine::{llamacpp::DraftValue, llamacpp::GgmlType, llamacpp::GgufDraft};

/// A vision tower's shape and the `clip.projector_type` it is written with.
pub struct Tower {
    pub kind: &'static str,
    pub layers: u64,
    pub embd: u64,
    pub n_ff: u64,
    pub heads: u64,
    pub image_size: u64,
    pub patch_size: u64,
    /// The text model's embedding width the projection maps into.
    pub text_embd: u64,
}

/// Gemma 3's SigLIP tower (896-pixel images in 14-pixel patches), projecting into 2,560 wide.
pub const GEMMA3: Tower = Tower {
    kind: "gemma3",
    layers: 27,
    embd: 1152,
    n_ff: 4304,
    heads: 16,
    image_size: 896,
    patch_size: 14,
    text_embd: 2560,
};

/// Qwen2.5-VL's tower (window attention, a 2 × 2 merger), projecting into 3,584 wide.
pub const QWEN25VL: Tower = Tower {
    kind: "qwen2.5vl_merger",
    layers: 32,
    embd: 1280,
    n_ff: 3420,
    heads: 16,
    image_size: 560,
    patch_size: 14,
    text_embd: 3584,
};

/// The header of `tower`'s projector file.
pub fn draft(tower: &Tower) -> GgufDraft {
    let mut d = GgufDraft::default();
    let text = |s: &str| DraftValue::Text(s.into());
    d.metadata
        .push(("general.architecture".into(), text("clip")));
    d.metadata
        .push(("clip.has_vision_encoder".into(), DraftValue::U64(1)));
    d.metadata
        .push(("clip.projector_type".into(), text(tower.kind)));
    for (key, v) in [
        ("image_size", tower.image_size),
        ("patch_size", tower.patch_size),
        ("embedding_length", tower.embd),
        ("feed_forward_length", tower.n_ff),
        ("block_count", tower.layers),
        ("attention.head_count", tower.heads),
        ("projection_dim", tower.text_embd),
    ] {
        d.metadata
            .push((format!("clip.vision.{key}"), DraftValue::U64(v)));
    }
    let (e, f) = (tower.embd, tower.n_ff);
    let mut t = |name: String, dims: Vec<u64>, ty| d.tensors.push((name, dims, ty));
    let p = tower.patch_size;
    let positions = (tower.image_size / p).pow(2);
    t(
        "v.patch_embd.weight".into(),
        vec![p, p, 3, e],
        GgmlType::F16,
    );
    t("v.patch_embd.bias".into(), vec![e], GgmlType::F32);
    t(
        "v.position_embd.weight".into(),
        vec![e, positions],
        GgmlType::F16,
    );
    for il in 0..tower.layers {
        for m in ["attn_q", "attn_k", "attn_v", "attn_out"] {
            t(format!("v.blk.{il}.{m}.weight"), vec![e, e], GgmlType::F16);
            t(format!("v.blk.{il}.{m}.bias"), vec![e], GgmlType::F32);
        }
        for n in ["ln1", "ln2"] {
            t(format!("v.blk.{il}.{n}.weight"), vec![e], GgmlType::F32);
            t(format!("v.blk.{il}.{n}.bias"), vec![e], GgmlType::F32);
        }
        t(
            format!("v.blk.{il}.ffn_up.weight"),
            vec![e, f],
            GgmlType::F16,
        );
        t(format!("v.blk.{il}.ffn_up.bias"), vec![f], GgmlType::F32);
        t(
            format!("v.blk.{il}.ffn_down.weight"),
            vec![f, e],
            GgmlType::F16,
        );
        t(format!("v.blk.{il}.ffn_down.bias"), vec![e], GgmlType::F32);
    }
    t("v.post_ln.weight".into(), vec![e], GgmlType::F32);
    t(
        "mm.input_projection.weight".into(),
        vec![e, tower.text_embd],
        GgmlType::F16,
    );
    d
}

/// What the tensors of `tower`'s file take: f16 matrices, f32 vectors.
pub fn tensor_bytes(tower: &Tower) -> u64 {
    let (e, f, p) = (tower.embd, tower.n_ff, tower.patch_size);
    let positions = (tower.image_size / p).pow(2);
    let per_layer = 2 * (4 * e * e + 2 * e * f) + 4 * (4 * e + 4 * e + f + e);
    2 * (p * p * 3 * e)
        + 4 * e
        + 2 * e * positions
        + tower.layers * per_layer
        + 4 * e
        + 2 * e * tower.text_embd
}
