//! What llama.cpp reads from a header to size its buffers: layer count, attention widths per
//! layer, which layers slide (llama-hparams.cpp `set_swa_pattern`), vocabulary, experts.

use super::error::{LlamaError, MissingKey};
use super::recurrent::RecurrentState;
use crate::gguf::{GgufHeader, LayerCounts};

/// The largest width or count read from a header (real models stay below 2^20).
const MAX_DIMENSION: u64 = 1 << 24;

/// The sizes of one GGUF model that llama.cpp's placement and buffers depend on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlamaShape {
    pub n_layer: u64,
    pub n_embd: u64,
    pub n_head: u64,
    pub n_vocab: u64,
    /// The training context, llama.cpp's default -c.
    pub n_ctx_train: Option<u64>,
    /// Per layer: K and V row widths (KV heads × head size) and whether it slides.
    pub layers: Vec<AttentionLayer>,
    pub head_k: u64,
    pub head_v: u64,
    pub sliding_window: Option<u64>,
    /// FFN width one token passes through: n_ff, or n_ff × experts used for a MoE.
    pub n_ff_active: u64,
    pub(crate) expert_count: u64,
    pub expert_used: u64,
    /// Gemma's extra norm after attention keeps one more n_embd row per token alive.
    pub post_attention_norm: bool,
    /// A hybrid model's recurrent layers, which keep a state per sequence instead of K and V.
    pub(crate) recurrent: Option<RecurrentState>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionLayer {
    pub k_width: u64,
    pub v_width: u64,
    pub(crate) sliding: bool,
}

/// llama.cpp's default sliding-window pattern per architecture (models/<arch>.cpp
/// `load_swa_pattern(ml, n)`): of every n layers, the first n − 1 slide.
fn default_swa_pattern(arch: &str) -> Option<u64> {
    match arch {
        "gemma2" | "gpt-oss" => Some(2),
        "cohere2" => Some(4),
        "gemma3" => Some(6),
        _ => None,
    }
}

impl LlamaShape {
    pub fn of(header: &GgufHeader) -> Result<LlamaShape, LlamaError> {
        let hp = header.hyperparameters();
        let need = |v: Option<u64>, key| v.filter(|&n| n > 0).ok_or(LlamaError::Missing(key));
        let n_layer = need(hp.block_count, MissingKey::BlockCount)?;
        let n_embd = need(hp.embedding_length, MissingKey::EmbeddingLength)?;
        let heads = hp
            .head_count
            .ok_or(LlamaError::Missing(MissingKey::HeadCount))?;
        let n_head = need(Some(heads.max()), MissingKey::HeadCount)?;
        let n_vocab = need(hp.vocab_size, MissingKey::VocabSize)?;
        if header.layers().is_empty() {
            return Err(LlamaError::Missing(MissingKey::Layers));
        }
        let head_k = hp.key_length.unwrap_or(n_embd / n_head);
        let head_v = hp.value_length.unwrap_or(n_embd / n_head);
        let kv_heads = hp.head_count_kv.unwrap_or(heads.clone());
        let arch = header.architecture().unwrap_or("");
        let pattern = hp.sliding_window.and(sliding_pattern(header, arch));
        let recurrent = RecurrentState::of(header, n_layer, n_embd);
        let layers = (0..n_layer)
            .map(|il| {
                let kv = match &recurrent {
                    Some(r) if r.is_recurrent(il as usize) => 0,
                    _ => layer_count(&kv_heads, il),
                };
                AttentionLayer {
                    k_width: kv * head_k,
                    v_width: kv * head_v,
                    sliding: pattern.is_some_and(|n| n == 0 || il % n < n - 1),
                }
            })
            .collect();
        let ff = hp
            .feed_forward_length
            .map(|f| f.max())
            .unwrap_or(4 * n_embd);
        let expert_count = hp.expert_count.unwrap_or(0);
        let expert_used = hp.expert_used_count.unwrap_or(0).max(1);
        let sizes = [
            n_layer,
            n_embd,
            n_head,
            n_vocab,
            head_k,
            head_v,
            ff,
            expert_used,
        ];
        if sizes.iter().any(|&n| n > MAX_DIMENSION) || kv_heads.max() > MAX_DIMENSION {
            return Err(LlamaError::Overflow);
        }
        let n_ff_active = expert_ff(header).unwrap_or(ff).min(MAX_DIMENSION) * expert_used;
        Ok(LlamaShape {
            n_layer,
            n_embd,
            n_head,
            n_vocab,
            n_ctx_train: hp.context_length.filter(|&n| n > 0),
            layers,
            head_k,
            head_v,
            sliding_window: hp.sliding_window.filter(|_| pattern.is_some()),
            n_ff_active,
            expert_count,
            expert_used,
            post_attention_norm: arch.starts_with("gemma"),
            recurrent,
        })
    }

    pub fn has_sliding_layers(&self) -> bool {
        self.layers.iter().any(|l| l.sliding)
    }
}

fn layer_count(counts: &LayerCounts, layer: u64) -> u64 {
    usize::try_from(layer)
        .ok()
        .and_then(|il| counts.at(il))
        .unwrap_or(0)
}

/// `{arch}.attention.sliding_window_pattern` when it is a number, else the architecture's.
fn sliding_pattern(header: &GgufHeader, arch: &str) -> Option<u64> {
    let key = format!("{arch}.attention.sliding_window_pattern");
    match header.get(&key).and_then(|v| v.as_u64()) {
        Some(n) => Some(n),
        None => default_swa_pattern(arch),
    }
}

/// `{arch}.expert_feed_forward_length` (Qwen MoE, gpt-oss) when present.
fn expert_ff(header: &GgufHeader) -> Option<u64> {
    let arch = header.architecture()?;
    header
        .get(&format!("{arch}.expert_feed_forward_length"))?
        .as_u64()
        .filter(|&n| n > 0)
}
