//! Encoder–decoder models (T5 / Flan-T5, BART / mBART, Whisper): the encoder stack beside the
//! decoder an [`Architecture`] describes, and the decoder's cross-attention onto it.
//!
//! Parameter counts follow transformers' modeling files (the snapshots read: `t5` at `6b8b757d`,
//! `bart` at `57228229`, `whisper` at `5c48f71a`; sources and totals in docs/encdec.md):
//! `models/t5/modeling_t5.py` (`T5Attention`: q, k, v, o without biases, `relative_attention_bias`
//! an `Embedding(num_buckets, n_heads)` in the first layer of each stack; `T5LayerNorm` a weight
//! only; a final norm per stack; `shared` embeddings used by both stacks),
//! `models/bart/modeling_bart.py` (q, k, v, out and fc1, fc2 with biases; `BartLearnedPositional
//! Embedding` of `max_position_embeddings + 2` rows per stack; `layernorm_embedding` per stack;
//! `models/mbart` adds a final `layer_norm` per stack) and `models/whisper/modeling_whisper.py`
//! (two `Conv1d` of kernel 3 on `num_mel_bins`; `k_proj` without bias; `embed_positions` of
//! `max_source_positions` rows in the encoder and `max_target_positions` in the decoder; a final
//! `layer_norm` per stack; `proj_out` tied to the token embeddings).

use super::{Architecture, MlpKind};
use crate::error::EngineError;
use crate::units::prod;

/// The encoder of an encoder–decoder model. The [`Architecture`] holding it describes the
/// decoder (its layers, heads, FFN, positions, vocabulary and head); the token embeddings are
/// shared by both stacks; the width (`hidden`), the MLP kind, the norm kind and the biases are
/// the same in both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoder {
    pub layers: u64,
    pub heads: u64,
    pub head_dim: u64,
    /// Intermediate size of the encoder's feed-forward blocks.
    pub ffn: u64,
    /// Rows of the encoder's learned position embeddings (BART: max + 2, Whisper: 1500); 0 for
    /// T5's relative attention.
    pub positions: u64,
    /// The longest source the encoder takes (its learned positions); `None`: no fixed limit (T5).
    pub max_source: Option<u64>,
    /// Whether every source is padded to `max_source` (Whisper's 30-second windows).
    pub fixed_source: bool,
    /// T5's relative attention buckets: an `Embedding(buckets, heads)` in each stack's first layer.
    pub buckets: u64,
    /// Whisper's convolutional front end: input channels (mel bins); 0 when there is none.
    pub mel_bins: u64,
    /// Norm layers at the ends of each stack, outside its layers (T5, BART, Whisper 1; mBART 2).
    pub stack_norms: u64,
    /// Whether the attention's `k` projection has a bias when the others do (Whisper's has none).
    pub k_bias: bool,
}

impl Encoder {
    /// Source tokens the encoder runs over for a requested `source`: Whisper's fixed window, or
    /// `source` within the learned positions.
    pub fn source_tokens(&self, source: u64) -> u64 {
        match self.max_source {
            Some(max) if self.fixed_source => max,
            Some(max) => source.min(max),
            None => source,
        }
    }

    /// The encoder as a stack of its own, in the shape of an [`Architecture`]: its layers, heads
    /// and FFN with the decoder's width and kinds (for the per-layer activation arithmetic).
    pub fn stack(&self, decoder: &Architecture) -> Architecture {
        Architecture {
            layers: self.layers,
            heads: self.heads,
            kv_heads: self.heads,
            head_dim: self.head_dim,
            intermediate: self.ffn,
            norms_per_layer: 2,
            positions: self.positions,
            moe: None,
            mla: None,
            sliding_window: None,
            sliding_layers: 0,
            encoder: None,
            stored: None,
            extra_params: 0,
            ..decoder.clone()
        }
    }

    /// The weight matrices of one encoder layer (self-attention and FFN), as (name, in, out).
    pub fn layer_matrices(&self, decoder: &Architecture) -> Vec<(&'static str, u64, u64)> {
        let stack = self.stack(decoder);
        let mut ms = stack.attention_matrices();
        ms.extend(stack.mlp_matrices(self.ffn));
        ms
    }

    /// The weight matrices of one decoder layer's cross-attention: queries from the decoder,
    /// keys and values from the encoder's output (same width), as (name, in, out).
    pub fn cross_matrices(decoder: &Architecture) -> Vec<(&'static str, u64, u64)> {
        let (h, inner) = (decoder.hidden, decoder.heads * decoder.head_dim);
        vec![
            ("q", h, inner),
            ("k", h, inner),
            ("v", h, inner),
            ("o", inner, h),
        ]
    }

    /// Biases of one attention block of `heads` × `head_dim`, as the model has them.
    fn attention_biases(&self, a: &Architecture, heads: u64, head_dim: u64) -> u64 {
        let inner = heads * head_dim;
        let qkv = if a.qkv_bias {
            inner * if self.k_bias { 3 } else { 2 }
        } else {
            0
        };
        qkv + if a.out_bias { a.hidden } else { 0 }
    }

    /// Biases of the decoder's self-attention when `k` has none (what [`Architecture`] counts
    /// as a q, k, v bias but the model lacks).
    pub(crate) fn missing_k_bias(&self, a: &Architecture) -> u64 {
        if a.qkv_bias && !self.k_bias {
            a.kv_heads * a.head_dim
        } else {
            0
        }
    }

    /// Linear (quantizable) parameters beyond the decoder's own layers: the encoder's layers
    /// and the decoder's cross-attention.
    pub fn linear_params(&self, a: &Architecture) -> u64 {
        let sum = |ms: &[(&str, u64, u64)]| -> u64 { ms.iter().map(|(_, i, o)| i * o).sum() };
        prod(&[self.layers, sum(&self.layer_matrices(a))])
            + prod(&[a.layers, sum(&Self::cross_matrices(a))])
    }

    /// Small parameters beyond the decoder's own: the encoder's biases and norms, the
    /// cross-attention's biases and norm, the stacks' end norms, T5's relative buckets and
    /// Whisper's convolutions.
    pub fn small_params(&self, a: &Architecture) -> u64 {
        let norm = a.norm_params();
        let mlp_bias = if a.mlp_bias {
            match a.mlp {
                MlpKind::Gated => 2 * self.ffn + a.hidden,
                MlpKind::Plain => self.ffn + a.hidden,
            }
        } else {
            0
        };
        let encoder_layer =
            self.attention_biases(a, self.heads, self.head_dim) + 2 * norm + mlp_bias;
        // the cross-attention's norm is the decoder layer's third (norms_per_layer)
        let cross = self.attention_biases(a, a.heads, a.head_dim);
        // the decoder's final norm is counted with the decoder; the encoder has its own. A later
        // pipeline stage (no encoder layers) has neither the encoder's ends nor the first layers'
        // relative buckets
        let runs_encoder = u64::from(self.layers > 0);
        let end_norms =
            runs_encoder * self.stack_norms * norm + self.stack_norms.saturating_sub(1) * norm;
        let buckets = runs_encoder * self.buckets * (self.heads + a.heads);
        let h = a.hidden;
        let conv = if self.mel_bins > 0 {
            prod(&[self.mel_bins, h, 3]) + h + prod(&[h, h, 3]) + h
        } else {
            0
        };
        prod(&[self.layers, encoder_layer]) + prod(&[a.layers, cross]) + end_norms + buckets + conv
    }

    /// Embedding parameters beyond the decoder's: the encoder's learned positions.
    pub fn embedding_params(&self, a: &Architecture) -> u64 {
        prod(&[self.positions, a.hidden])
    }

    /// Cross-attention KV bytes: `source` tokens × the decoder's layers × K and V × heads ×
    /// head_dim × bits / 8, per sequence, kept for the whole generation.
    pub fn cross_kv_bytes(a: &Architecture, bits: u64, tp: u64, seqs: u64, source: u64) -> u64 {
        let per_token_layer = 2 * a.heads.div_ceil(tp.max(1)) * a.head_dim * bits;
        prod(&[seqs, source, a.layers, per_token_layer]).div_ceil(8)
    }
}

impl Encoder {
    /// Checks the encoder's fields, so that the parameter count cannot overflow.
    pub fn validate(&self) -> Result<(), EngineError> {
        let fields = [
            ("encoder_layers", self.layers, 1, 1_024),
            ("encoder_attention_heads", self.heads, 1, 4_096),
            ("encoder_head_dim", self.head_dim, 1, 4_096),
            ("encoder_ffn_dim", self.ffn, 1, 1_048_576),
            ("encoder_positions", self.positions, 0, 1 << 24),
            (
                "max_source_positions",
                self.max_source.unwrap_or(1),
                1,
                1 << 24,
            ),
            ("relative_attention_num_buckets", self.buckets, 0, 65_536),
            ("num_mel_bins", self.mel_bins, 0, 4_096),
            ("stack_norms", self.stack_norms, 0, 8),
        ];
        for (setting, value, min, max) in fields {
            if !(min..=max).contains(&value) {
                return Err(EngineError::OutOfRange {
                    setting: setting.into(),
                    value,
                    min,
                    max,
                });
            }
        }
        Ok(())
    }
}
