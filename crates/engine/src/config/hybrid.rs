//! Hybrid families: which layers hold attention and which a recurrent mixer, and the mixer's
//! shape, as each family's config.json spells them.

use super::fields::Fields;
use super::within;
use crate::error::EngineError;
use crate::json::Value;
use crate::model::{Architecture, Mixer, MlpKind, Recurrent};

/// The recurrent layers of a hybrid family's config, applied to `a` (which the common fields
/// read as a plain transformer); `a` is left alone for every other family.
pub(super) fn apply_hybrid(
    f: &Fields,
    a: &mut Architecture,
    model_type: &str,
) -> Result<(), EngineError> {
    let recurrent = match model_type {
        "qwen3_next" => qwen3_next(f, a)?,
        "nemotron_h" => nemotron_h(f, a)?,
        "granitemoehybrid" => granite_hybrid(f, a)?,
        "jamba" => jamba(f, a)?,
        "lfm2" => lfm2(f, a)?,
        "falcon_h1" => falcon_h1(f, a)?,
        "zamba2" => zamba2(f, a)?,
        _ => return Ok(()),
    };
    a.recurrent = Some(recurrent);
    Ok(())
}

/// Layers whose entry in `layer_types` (or the field named) is one of `kinds`; `None` when the
/// config has no such list.
fn count_types(f: &Fields, field: &str, kinds: &[&str]) -> Option<u64> {
    let types = f.get(&[field]).and_then(Value::as_array)?;
    Some(
        types
            .iter()
            .filter(|t| t.as_str().is_some_and(|s| kinds.contains(&s)))
            .count() as u64,
    )
}

/// A field that must be present, within `1..=max`.
fn needed(f: &Fields, names: &[&str], max: u64) -> Result<u64, EngineError> {
    within(names[0], f.required(names)?, 1, max)
}

/// A plain recurrent shape: the caller fills in what its mixer has.
fn recurrent(mixer: Mixer, layers: u64, total: u64) -> Recurrent {
    Recurrent {
        mixer,
        layers,
        attention_layers: total - layers.min(total),
        ffn_layers: total,
        heads: 0,
        head_dim: 0,
        groups: 0,
        state: 0,
        conv_kernel: 4,
        inner: 0,
        dt_rank: 0,
        conv_bias: false,
        proj_bias: false,
        out_bias: false,
        mixer_norm: true,
        gated_attention: false,
        state_fp32: false,
        shared_blocks: 0,
        adapter_rank: 0,
        attention_adapters: false,
    }
}

/// Qwen3-Next: Gated DeltaNet in three layers of four (`layer_types`, or every
/// `full_attention_interval`-th layer attends), gated attention in the rest.
fn qwen3_next(f: &Fields, a: &Architecture) -> Result<Recurrent, EngineError> {
    let linear = match count_types(f, "layer_types", &["linear_attention"]) {
        Some(n) => n,
        None => {
            let every = f.uint(&["full_attention_interval"])?.unwrap_or(4).max(1);
            a.layers - a.layers / every
        }
    };
    let mut r = recurrent(Mixer::DeltaNet, linear, a.layers);
    r.heads = needed(f, &["linear_num_value_heads"], 65_536)?;
    r.head_dim = needed(f, &["linear_value_head_dim"], 65_536)?;
    r.groups = needed(f, &["linear_num_key_heads"], 65_536)?;
    r.state = needed(f, &["linear_key_head_dim"], 65_536)?;
    r.conv_kernel = needed(f, &["linear_conv_kernel_dim"], 1_024)?;
    r.inner = r.heads * r.head_dim;
    r.gated_attention = true;
    Ok(r)
}

/// The Mamba-2 mixer's fields under the names `names` gives for (heads, head width, groups,
/// state, kernel).
fn mamba2(f: &Fields, r: &mut Recurrent, names: [&str; 5]) -> Result<(), EngineError> {
    r.heads = needed(f, &[names[0]], 65_536)?;
    r.head_dim = needed(f, &[names[1]], 65_536)?;
    r.groups = f.uint(&[names[2]])?.unwrap_or(1);
    r.state = needed(f, &[names[3]], 65_536)?;
    r.conv_kernel = within(names[4], f.uint(&[names[4]])?.unwrap_or(4), 1, 1_024)?;
    r.inner = r.heads * r.head_dim;
    r.state_fp32 = f.string(&["mamba_ssm_cache_dtype"]) == Some("float32");
    Ok(())
}

/// Nemotron-H: `hybrid_override_pattern` gives each layer one mixer, `M` Mamba-2, `*`
/// attention, `-` a squared-ReLU MLP, `E` experts; each layer has one norm.
fn nemotron_h(f: &Fields, a: &mut Architecture) -> Result<Recurrent, EngineError> {
    let pattern = f
        .string(&["hybrid_override_pattern"])
        .ok_or_else(|| EngineError::MissingField("hybrid_override_pattern".into()))?;
    let count = |c: char| pattern.chars().filter(|p| *p == c).count() as u64;
    if pattern.chars().count() as u64 != a.layers {
        return Err(EngineError::OutOfRange {
            setting: "hybrid_override_pattern".into(),
            value: pattern.chars().count() as u64,
            min: a.layers,
            max: a.layers,
        });
    }
    let mut r = recurrent(Mixer::Mamba2, count('M'), a.layers);
    r.attention_layers = count('*');
    r.ffn_layers = count('-') + count('E');
    mamba2(
        f,
        &mut r,
        [
            "mamba_num_heads",
            "mamba_head_dim",
            "n_groups",
            "ssm_state_size",
            "conv_kernel",
        ],
    )?;
    r.conv_bias = f.boolean(&["use_conv_bias"]).unwrap_or(true);
    r.proj_bias = f.boolean(&["use_bias"]).unwrap_or(false);
    r.out_bias = r.proj_bias;
    a.norms_per_layer = 1;
    a.mlp = MlpKind::Plain;
    if let Some(m) = a.moe.as_mut() {
        m.dense_layers = count('-');
    }
    Ok(r)
}

/// Granite 4.0-H: `layer_types` of "mamba" and "attention"; every layer has a shared gated MLP
/// of `shared_intermediate_size`, and experts of `intermediate_size` where the model has them.
fn granite_hybrid(f: &Fields, a: &mut Architecture) -> Result<Recurrent, EngineError> {
    let mamba = count_types(f, "layer_types", &["mamba"]).unwrap_or(a.layers);
    let mut r = recurrent(Mixer::Mamba2, mamba, a.layers);
    mamba2(
        f,
        &mut r,
        [
            "mamba_n_heads",
            "mamba_d_head",
            "mamba_n_groups",
            "mamba_d_state",
            "mamba_d_conv",
        ],
    )?;
    let expand = f.uint(&["mamba_expand"])?.unwrap_or(2);
    r.inner = within("mamba_expand", expand, 1, 64)?.saturating_mul(a.hidden);
    r.conv_bias = f.boolean(&["mamba_conv_bias"]).unwrap_or(true);
    r.proj_bias = f.boolean(&["mamba_proj_bias"]).unwrap_or(false);
    r.out_bias = r.proj_bias;
    let shared = within(
        "shared_intermediate_size",
        f.required(&["shared_intermediate_size"])?,
        1,
        1 << 24,
    )?;
    match a.moe.as_mut() {
        Some(m) => m.shared_ffn = shared,
        None => a.intermediate = shared,
    }
    Ok(r)
}

/// Jamba: attention in every `attn_layer_period`-th layer from `attn_layer_offset`, Mamba in the
/// rest; experts in every `expert_layer_period`-th layer from `expert_layer_offset`.
fn jamba(f: &Fields, a: &mut Architecture) -> Result<Recurrent, EngineError> {
    let every = |period: &str, offset: &str, p: u64, o: u64| -> Result<u64, EngineError> {
        let p = within(period, f.uint(&[period])?.unwrap_or(p), 1, a.layers.max(1))?;
        let o = f.uint(&[offset])?.unwrap_or(o);
        Ok((0..a.layers).filter(|i| i % p == o).count() as u64)
    };
    let attention = every("attn_layer_period", "attn_layer_offset", 8, 4)?;
    let experts = every("expert_layer_period", "expert_layer_offset", 2, 1)?;
    let mut r = recurrent(Mixer::Mamba, a.layers - attention, a.layers);
    r.state = within(
        "mamba_d_state",
        f.uint(&["mamba_d_state"])?.unwrap_or(16),
        1,
        65_536,
    )?;
    r.conv_kernel = within(
        "mamba_d_conv",
        f.uint(&["mamba_d_conv"])?.unwrap_or(4),
        1,
        1_024,
    )?;
    r.inner = within(
        "mamba_expand",
        f.uint(&["mamba_expand"])?.unwrap_or(2),
        1,
        64,
    )?
    .saturating_mul(a.hidden);
    // "auto" (or absent) is ceil(hidden / 16)
    r.dt_rank = match f.get(&["mamba_dt_rank"]).and_then(Value::as_u64) {
        Some(n) => within("mamba_dt_rank", n, 1, 1 << 20)?,
        None => a.hidden.div_ceil(16),
    };
    r.conv_bias = f.boolean(&["mamba_conv_bias"]).unwrap_or(true);
    r.proj_bias = f.boolean(&["mamba_proj_bias"]).unwrap_or(false);
    r.out_bias = r.proj_bias;
    if let Some(m) = a.moe.as_mut() {
        m.dense_layers = a.layers - experts;
    }
    Ok(r)
}

/// LFM2: short gated convolutions where `layer_types` says "conv" (or outside `full_attn_idxs`),
/// attention with q and k norms elsewhere; the feed-forward width adjusted as
/// `Lfm2MLP` does (two thirds, times the multiplier, rounded up to `block_multiple_of`).
fn lfm2(f: &Fields, a: &mut Architecture) -> Result<Recurrent, EngineError> {
    let attention = match count_types(f, "layer_types", &["full_attention"]) {
        Some(n) => n,
        None => f
            .get(&["full_attn_idxs"])
            .and_then(Value::as_array)
            .map_or(0, |v| v.len() as u64),
    };
    let mut r = recurrent(
        Mixer::ShortConv,
        a.layers - attention.min(a.layers),
        a.layers,
    );
    r.conv_kernel = within(
        "conv_L_cache",
        f.uint(&["conv_L_cache"])?.unwrap_or(3),
        1,
        1_024,
    )?;
    r.inner = a.hidden;
    r.conv_bias = f.boolean(&["conv_bias"]).unwrap_or(false);
    let ff = within(
        "block_ff_dim",
        f.uint(&["block_ff_dim", "intermediate_size"])?
            .unwrap_or(12_288),
        1,
        1 << 24,
    )?;
    a.intermediate = if f.boolean(&["block_auto_adjust_ff_dim"]).unwrap_or(true) {
        let multiple = within(
            "block_multiple_of",
            f.uint(&["block_multiple_of"])?.unwrap_or(256),
            1,
            1 << 16,
        )?;
        // int(2 * ff / 3), then int(multiplier * ff); the published multipliers are all 1.0,
        // and a fractional one is refused as not a whole number
        let multiplier = within(
            "block_ffn_dim_multiplier",
            f.uint(&["block_ffn_dim_multiplier"])?.unwrap_or(1),
            1,
            64,
        )?;
        (multiplier * (2 * ff / 3)).div_ceil(multiple) * multiple
    } else {
        ff
    };
    a.tied = f
        .boolean(&["tie_embedding", "tie_word_embeddings"])
        .unwrap_or(true);
    a.qk_norm = true;
    Ok(r)
}

/// Falcon-H1: attention and a Mamba-2 mixer side by side in every layer (their outputs summed),
/// then a gated MLP; the mixer's inner width is `mamba_d_ssm`, its gated norm present only with
/// `mamba_rms_norm`, its output projection's bias with `projectors_bias`.
fn falcon_h1(f: &Fields, a: &mut Architecture) -> Result<Recurrent, EngineError> {
    let mut r = recurrent(Mixer::Mamba2, a.layers, a.layers);
    r.attention_layers = a.layers;
    mamba2(
        f,
        &mut r,
        [
            "mamba_n_heads",
            "mamba_d_head",
            "mamba_n_groups",
            "mamba_d_state",
            "mamba_d_conv",
        ],
    )?;
    if let Some(d_ssm) = f.uint(&["mamba_d_ssm"])? {
        r.inner = within("mamba_d_ssm", d_ssm, 1, 1 << 20)?;
    }
    r.conv_bias = f.boolean(&["mamba_conv_bias"]).unwrap_or(true);
    r.proj_bias = f.boolean(&["mamba_proj_bias"]).unwrap_or(false);
    r.out_bias = f.boolean(&["projectors_bias"]).unwrap_or(false);
    r.mixer_norm = f.boolean(&["mamba_rms_norm"]).unwrap_or(false);
    Ok(r)
}

/// Zamba2: a Mamba-2 mixer in every layer; where `layers_block_type` says "hybrid" a shared
/// attention-and-MLP block runs first (`num_mem_blocks` of them, taken in turn), reading the
/// hidden state beside the embeddings (2 × hidden wide, heads of 2 × hidden / heads), with an
/// adapter of `adapter_rank` on the MLP of each such layer (and on q, k and v with
/// `use_shared_attention_adapter`). The mixer's head width is expand × hidden / heads (the config's
/// `mamba_headdim` is recomputed so); its convolution always has a bias.
fn zamba2(f: &Fields, a: &mut Architecture) -> Result<Recurrent, EngineError> {
    let hybrid = count_types(f, "layers_block_type", &["hybrid"])
        .or_else(|| count_types(f, "layer_types", &["hybrid"]))
        .ok_or_else(|| EngineError::MissingField("layers_block_type".into()))?;
    let hybrid = within("layers_block_type", hybrid, 1, a.layers)?;
    let mut r = recurrent(Mixer::Mamba2, a.layers, a.layers);
    r.attention_layers = hybrid;
    r.ffn_layers = hybrid;
    let expand = within(
        "mamba_expand",
        f.uint(&["mamba_expand"])?.unwrap_or(2),
        1,
        64,
    )?;
    r.inner = expand.saturating_mul(a.hidden);
    r.heads = within(
        "n_mamba_heads",
        f.uint(&["n_mamba_heads"])?.unwrap_or(8),
        1,
        65_536,
    )?;
    r.head_dim = r.inner / r.heads;
    r.groups = within(
        "mamba_ngroups",
        f.uint(&["mamba_ngroups"])?.unwrap_or(1),
        1,
        65_536,
    )?;
    r.state = within(
        "mamba_d_state",
        f.uint(&["mamba_d_state"])?.unwrap_or(64),
        1,
        65_536,
    )?;
    r.conv_kernel = within(
        "mamba_d_conv",
        f.uint(&["mamba_d_conv"])?.unwrap_or(4),
        1,
        1_024,
    )?;
    r.conv_bias = true;
    r.proj_bias = f.boolean(&["add_bias_linear"]).unwrap_or(false);
    r.out_bias = r.proj_bias;
    r.shared_blocks = within(
        "num_mem_blocks",
        f.uint(&["num_mem_blocks"])?.unwrap_or(1),
        1,
        hybrid,
    )?;
    r.adapter_rank = within(
        "adapter_rank",
        f.uint(&["adapter_rank"])?.unwrap_or(128),
        1,
        65_536,
    )?;
    r.attention_adapters = f
        .boolean(&["use_shared_attention_adapter"])
        .unwrap_or(false);
    a.head_dim = a.hidden.saturating_mul(2) / a.heads;
    a.norms_per_layer = 1;
    a.mlp_bias = r.proj_bias;
    a.tied = f.boolean(&["tie_word_embeddings"]).unwrap_or(true);
    Ok(r)
}
