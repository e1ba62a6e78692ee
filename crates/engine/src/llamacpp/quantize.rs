//! A preset as the GGUF file llama.cpp's quantizer would write: the tensors `convert_hf_to_gguf`
//! names for a llama-style model, each in the type `llama-quantize` gives it.
//!
//! The type rules follow `llama_tensor_get_type_impl` and `tensor_type_fallback` in
//! src/llama-quant.cpp (ggml-org/llama.cpp, read at commit 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714):
//! - 1-D tensors (norms, biases) and the MoE router (`ffn_gate_inp`) are never quantized;
//! - the output (and a tied token embedding) goes to Q6_K unless the mix is Q8_0;
//! - `use_more_bits(i, n)` = i < n/8 or i ≥ 7n/8 or (i − n/8) % 3 == 2: Q4_K_M and Q5_K_M give
//!   those layers' attn_v and ffn_down Q6_K;
//! - Q3_K_M: attn_v Q5_K for the first two layers then Q4_K, ffn_down Q5_K below n/16 then Q4_K,
//!   attn_output Q4_K; Q2_K: attn_v Q4_K when n_gqa ≥ 4 else Q3_K, ffn_down and attn_output Q3_K;
//! - 8-expert models: attn_v and attn_k Q8_0, attn_output Q5_K for the K mixes up to Q4_K_M;
//! - a 70B llama bumps attn_v from Q3_K/Q4_K to Q5_K;
//! - a row that is not whole blocks falls back (Q4_K → Q5_0, Q5_K → Q5_1, Q6_K → Q8_0,
//!   Q2_K/Q3_K → Q4_0), then to F16.

use crate::dtype::WeightFormat;
use crate::gguf::{DraftValue, GgmlType, GgufDraft, GgufHeader};
use crate::model::Architecture;

use super::error::LlamaError;

/// llama.cpp's file types the page offers (`LLAMA_FTYPE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mix {
    F32,
    F16,
    Q8_0,
    Q6K,
    Q5KM,
    Q4KM,
    Q3KM,
    Q2K,
}

impl Mix {
    fn of(format: WeightFormat) -> Option<Mix> {
        Some(match format {
            WeightFormat::Fp32 => Mix::F32,
            WeightFormat::Bf16 => Mix::F16,
            WeightFormat::GgufQ8_0 => Mix::Q8_0,
            WeightFormat::GgufQ6K => Mix::Q6K,
            WeightFormat::GgufQ5KM => Mix::Q5KM,
            WeightFormat::GgufQ4KM => Mix::Q4KM,
            WeightFormat::GgufQ3KM => Mix::Q3KM,
            WeightFormat::GgufQ2K => Mix::Q2K,
            _ => return None,
        })
    }

    /// `llama_ftype_get_default_type`.
    fn default_type(self) -> GgmlType {
        match self {
            Mix::F32 => GgmlType::F32,
            Mix::F16 => GgmlType::F16,
            Mix::Q8_0 => GgmlType::Q8_0,
            Mix::Q6K => GgmlType::Q6K,
            Mix::Q5KM => GgmlType::Q5K,
            Mix::Q4KM => GgmlType::Q4K,
            Mix::Q3KM => GgmlType::Q3K,
            Mix::Q2K => GgmlType::Q2K,
        }
    }
}

/// What a tensor is, as the quantizer's `tensor_get_category` sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    TokenEmbd,
    Output,
    AttnQ,
    AttnK,
    AttnV,
    AttnOutput,
    FfnGate,
    FfnUp,
    FfnDown,
    /// Norms, biases and the router: kept as converted (f32).
    Kept,
}

fn use_more_bits(layer: u64, n_layer: u64) -> bool {
    layer < n_layer / 8
        || layer >= 7 * n_layer / 8
        || (layer as i64 - (n_layer / 8) as i64).rem_euclid(3) == 2
}

struct Quantizer {
    mix: Mix,
    n_layer: u64,
    n_gqa: u64,
    n_expert: u64,
    tied: bool,
    is_70b: bool,
}

impl Quantizer {
    /// The type of a tensor with rows of `ne0` values in `layer`.
    fn type_of(&self, role: Role, layer: u64, ne0: u64) -> GgmlType {
        let base = self.mix.default_type();
        if role == Role::Kept {
            return GgmlType::F32;
        }
        if !base.is_quantized() {
            return base;
        }
        fallback(self.rule(role, layer, base), ne0)
    }

    fn rule(&self, role: Role, layer: u64, base: GgmlType) -> GgmlType {
        use GgmlType::*;
        let more = use_more_bits(layer, self.n_layer);
        let eight = self.n_expert == 8;
        match role {
            Role::Output => output_type(base),
            Role::TokenEmbd if self.tied => output_type(base),
            Role::AttnV => {
                let mut t = match self.mix {
                    Mix::Q2K if self.n_gqa >= 4 => Q4K,
                    Mix::Q2K => Q3K,
                    Mix::Q3KM if layer < 2 => Q5K,
                    Mix::Q3KM => Q4K,
                    Mix::Q4KM | Mix::Q5KM if more => Q6K,
                    _ => base,
                };
                if self.is_70b && matches!(t, Q3K | Q4K) {
                    t = Q5K;
                }
                if eight {
                    t = Q8_0;
                }
                t
            }
            Role::AttnK if eight => Q8_0,
            Role::FfnDown => match self.mix {
                Mix::Q2K => Q3K,
                Mix::Q3KM if layer < self.n_layer / 16 => Q5K,
                Mix::Q3KM => Q4K,
                Mix::Q4KM | Mix::Q5KM if more => Q6K,
                _ => base,
            },
            Role::AttnOutput => match self.mix {
                Mix::Q2K | Mix::Q3KM | Mix::Q4KM if eight => Q5K,
                Mix::Q2K => Q3K,
                Mix::Q3KM => Q4K,
                _ => base,
            },
            _ => base,
        }
    }
}

fn output_type(base: GgmlType) -> GgmlType {
    if base == GgmlType::Q8_0 {
        GgmlType::Q8_0
    } else {
        GgmlType::Q6K
    }
}

/// `tensor_type_fallback`: a row that is not whole blocks of the chosen type.
fn fallback(chosen: GgmlType, ne0: u64) -> GgmlType {
    use GgmlType::*;
    if ne0.is_multiple_of(chosen.block_size()) {
        return chosen;
    }
    let next = match chosen {
        Q2K | Q3K => Q4_0,
        Q4K => Q5_0,
        Q5K => Q5_1,
        Q6K => Q8_0,
        _ => F16,
    };
    if ne0.is_multiple_of(next.block_size()) {
        next
    } else {
        F16
    }
}

/// The header of `arch` quantized to `format` as llama.cpp would write it; refused for formats
/// llama.cpp does not write, for attention it names differently (MLA) and for recurrent layers,
/// whose tensors each family names its own way (a hybrid's real .gguf file reads as it is).
pub fn synthesize_gguf(
    arch: &Architecture,
    format: WeightFormat,
) -> Result<GgufHeader, LlamaError> {
    let mix = Mix::of(format).ok_or(LlamaError::NoGgufForm)?;
    if arch.mla.is_some() || arch.recurrent.is_some() || arch.heads == 0 || arch.layers == 0 {
        return Err(LlamaError::NoGgufForm);
    }
    let q = Quantizer {
        mix,
        n_layer: arch.layers,
        n_gqa: arch.heads / arch.kv_heads.max(1),
        n_expert: arch.moe.as_ref().map_or(0, |m| m.experts),
        tied: arch.tied,
        is_70b: arch.layers == 80,
    };
    let (h, hd) = (arch.hidden, arch.head_dim);
    let mut draft = GgufDraft::default();
    let mut tensor = |name: String, dims: Vec<u64>, role: Role, layer: u64| {
        let ty = q.type_of(role, layer, dims[0]);
        draft.tensors.push((name, dims, ty));
    };
    tensor(
        "token_embd.weight".into(),
        vec![h, arch.vocab],
        Role::TokenEmbd,
        0,
    );
    for il in 0..arch.layers {
        let t = |part: &str| format!("blk.{il}.{part}");
        tensor(t("attn_norm.weight"), vec![h], Role::Kept, il);
        tensor(
            t("attn_q.weight"),
            vec![h, arch.heads * hd],
            Role::AttnQ,
            il,
        );
        tensor(
            t("attn_k.weight"),
            vec![h, arch.kv_heads * hd],
            Role::AttnK,
            il,
        );
        tensor(
            t("attn_v.weight"),
            vec![h, arch.kv_heads * hd],
            Role::AttnV,
            il,
        );
        if arch.qkv_bias {
            tensor(t("attn_q.bias"), vec![arch.heads * hd], Role::Kept, il);
            tensor(t("attn_k.bias"), vec![arch.kv_heads * hd], Role::Kept, il);
            tensor(t("attn_v.bias"), vec![arch.kv_heads * hd], Role::Kept, il);
        }
        tensor(
            t("attn_output.weight"),
            vec![arch.heads * hd, h],
            Role::AttnOutput,
            il,
        );
        tensor(t("ffn_norm.weight"), vec![h], Role::Kept, il);
        match arch.moe.as_ref().filter(|m| il >= m.dense_layers) {
            Some(moe) => {
                let (e, f) = (moe.experts, moe.expert_ffn);
                tensor(t("ffn_gate_inp.weight"), vec![h, e], Role::Kept, il);
                tensor(t("ffn_gate_exps.weight"), vec![h, f, e], Role::FfnGate, il);
                tensor(t("ffn_up_exps.weight"), vec![h, f, e], Role::FfnUp, il);
                tensor(t("ffn_down_exps.weight"), vec![f, h, e], Role::FfnDown, il);
                if moe.shared_ffn > 0 {
                    let s = moe.shared_ffn;
                    tensor(t("ffn_gate_shexp.weight"), vec![h, s], Role::FfnGate, il);
                    tensor(t("ffn_up_shexp.weight"), vec![h, s], Role::FfnUp, il);
                    tensor(t("ffn_down_shexp.weight"), vec![s, h], Role::FfnDown, il);
                }
            }
            None => {
                let f = arch.intermediate;
                tensor(t("ffn_gate.weight"), vec![h, f], Role::FfnGate, il);
                tensor(t("ffn_up.weight"), vec![h, f], Role::FfnUp, il);
                tensor(t("ffn_down.weight"), vec![f, h], Role::FfnDown, il);
            }
        }
    }
    tensor("output_norm.weight".into(), vec![h], Role::Kept, 0);
    if !arch.tied {
        tensor("output.weight".into(), vec![h, arch.vocab], Role::Output, 0);
    }
    draft.metadata = metadata(arch);
    crate::gguf::read_gguf(&draft.bytes()).map_err(|_| LlamaError::NoGgufForm)
}

/// The hyperparameters `convert_hf_to_gguf` writes for a llama-style model.
fn metadata(arch: &Architecture) -> Vec<(String, DraftValue)> {
    let mut m: Vec<(String, DraftValue)> = vec![
        (
            "general.architecture".into(),
            DraftValue::Text("llama".into()),
        ),
        ("llama.block_count".into(), DraftValue::U64(arch.layers)),
        (
            "llama.context_length".into(),
            DraftValue::U64(arch.max_context),
        ),
        (
            "llama.embedding_length".into(),
            DraftValue::U64(arch.hidden),
        ),
        (
            "llama.feed_forward_length".into(),
            DraftValue::U64(arch.intermediate),
        ),
        (
            "llama.attention.head_count".into(),
            DraftValue::U64(arch.heads),
        ),
        (
            "llama.attention.head_count_kv".into(),
            DraftValue::U64(arch.kv_heads),
        ),
        (
            "llama.attention.key_length".into(),
            DraftValue::U64(arch.head_dim),
        ),
        (
            "llama.attention.value_length".into(),
            DraftValue::U64(arch.head_dim),
        ),
        ("llama.vocab_size".into(), DraftValue::U64(arch.vocab)),
    ];
    if let Some(moe) = &arch.moe {
        m.push(("llama.expert_count".into(), DraftValue::U64(moe.experts)));
        m.push(("llama.expert_used_count".into(), DraftValue::U64(moe.top_k)));
        m.push((
            "llama.expert_feed_forward_length".into(),
            DraftValue::U64(moe.expert_ffn),
        ));
    }
    if let (Some(window), true) = (arch.sliding_window, arch.sliding_layers > 0) {
        // of every `pattern` layers the first pattern − 1 slide (0: all of them)
        let full = arch.layers.saturating_sub(arch.sliding_layers);
        let pattern = arch.layers.checked_div(full).unwrap_or(0);
        m.push((
            "llama.attention.sliding_window".into(),
            DraftValue::U64(window),
        ));
        m.push((
            "llama.attention.sliding_window_pattern".into(),
            DraftValue::U64(pattern),
        ));
    }
    m
}
