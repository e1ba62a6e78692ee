//! What a family adds to the common fields: its quirks, mixtures of experts, latent attention
//! and sliding windows.

use super::fields::Fields;
use super::within;
use crate::error::EngineError;
use crate::json::Value;
use crate::model::{Architecture, Mla, MlpKind, Moe, NormKind};

/// What a family does beyond the common fields: GPT-style MLPs and LayerNorms, Falcon's and
/// Phi's norms, Gemma's four norms, QK norms, biases, attention sinks, dropout.
pub(super) fn apply_family(
    f: &Fields,
    a: &mut Architecture,
    model_type: &str,
    gpt_style: bool,
    multi_query: bool,
) {
    let max_context = a.max_context;
    if gpt_style {
        a.mlp = MlpKind::Plain;
        a.norm = NormKind::Layer;
        let bias = f.boolean(&["bias", "use_bias"]).unwrap_or(true);
        a.qkv_bias = bias;
        a.out_bias = bias;
        a.mlp_bias = bias;
    }
    match model_type {
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
        model_type,
        "gemma3" | "gemma3_text" | "qwen3" | "qwen3_moe" | "qwen3_next" | "olmo2"
    ) {
        a.qk_norm = true;
    }
    if matches!(
        model_type,
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
}

/// Mixture of experts: every expert resident, the routed top-k active.
pub(super) fn read_moe(
    f: &Fields,
    model_type: &str,
    intermediate: u64,
) -> Result<Option<Moe>, EngineError> {
    let Some(experts) = f
        .uint(&["num_local_experts", "n_routed_experts", "num_experts"])?
        .filter(|&e| e > 1)
    else {
        return Ok(None);
    };
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
    Ok(Some(Moe {
        experts,
        top_k,
        expert_ffn,
        shared_ffn,
        dense_layers,
        expert_bias: gpt_oss,
        router_bias: gpt_oss,
        // the sigmoid gate on the shared expert (Qwen3NextSparseMoeBlock has it too)
        shared_gate: matches!(model_type, "qwen2_moe" | "qwen3_next"),
    }))
}

/// Multi-head latent attention (DeepSeek): the compressed KV latent and its ranks.
pub(super) fn read_mla(f: &Fields) -> Result<Option<Mla>, EngineError> {
    let Some(kv_lora_rank) = f.uint(&["kv_lora_rank"])? else {
        return Ok(None);
    };
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
    Ok(Some(Mla {
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
    }))
}

/// Sliding windows: every layer, the layers `layer_types` names, or a pattern; `None` when no
/// layer slides or the window covers the whole context. Gives (window, sliding layers).
pub(super) fn read_window(
    f: &Fields,
    model_type: &str,
    layers: u64,
    max_context: u64,
) -> Result<Option<(u64, u64)>, EngineError> {
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
            return Ok(Some((w, sliding.min(layers))));
        }
    }
    Ok(None)
}
