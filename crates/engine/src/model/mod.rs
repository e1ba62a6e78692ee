//! Model architectures and their exact parameter counts.

mod encoder;
pub mod presets;
mod text;

pub use crate::dtype::{Bits, KvDtype, WeightFormat};
pub use crate::hybrid::{Mixer, Recurrent};
pub use crate::weight_parts::{PartFormats, WeightPart, PART_FOLLOWS};
pub use encoder::Encoder;
pub use presets::Preset;
pub use text::{decode_arch, encode_arch};

use crate::error::EngineError;
use crate::named::named_enum;
use crate::units::prod;

named_enum! {
    /// Feed-forward block: gated (gate, up, down: SwiGLU/GeGLU) or plain (up, down: GELU).
    pub enum MlpKind {
        Gated => ("gated", "gated (3 matrices)"),
        Plain => ("plain", "plain (2 matrices)"),
    }
}

named_enum! {
    /// Normalisation layers: RMSNorm has a weight; LayerNorm a weight and a bias.
    pub enum NormKind {
        Rms => ("rms", "RMSNorm"),
        Layer => ("layer", "LayerNorm"),
    }
}

/// Mixture of experts: every expert is resident, each token is routed to `top_k` of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moe {
    pub experts: u64,
    pub top_k: u64,
    /// Intermediate size of one routed expert.
    pub expert_ffn: u64,
    /// Total intermediate size of the always-on shared expert(s); 0 when there are none.
    pub shared_ffn: u64,
    /// The first layers that stay dense (DeepSeek's first_k_dense_replace).
    pub dense_layers: u64,
    /// Experts with biases (gpt-oss).
    pub expert_bias: bool,
    /// Router with a bias (gpt-oss).
    pub router_bias: bool,
    /// A sigmoid gate on the shared expert (Qwen2-MoE).
    pub shared_gate: bool,
}

/// Multi-head latent attention (DeepSeek-V2/V3): the cache holds one latent per token and layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mla {
    /// Query compression rank; 0 when queries are projected directly.
    pub q_lora_rank: u64,
    pub kv_lora_rank: u64,
    pub rope_dim: u64,
    pub nope_dim: u64,
    pub v_head_dim: u64,
}

/// A decoder-only transformer's shape, as a config.json describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Architecture {
    pub vocab: u64,
    pub hidden: u64,
    pub intermediate: u64,
    pub layers: u64,
    pub heads: u64,
    pub kv_heads: u64,
    pub head_dim: u64,
    pub tied: bool,
    pub mlp: MlpKind,
    pub norm: NormKind,
    /// Norm layers in each decoder layer (2 for Llama, 4 for Gemma 2/3, 1 for parallel blocks).
    pub norms_per_layer: u64,
    pub qkv_bias: bool,
    pub out_bias: bool,
    pub mlp_bias: bool,
    /// Per-head RMSNorm on q and k (Qwen3, Gemma 3).
    pub qk_norm: bool,
    /// Learned attention sinks, one per head (gpt-oss).
    pub attn_sinks: bool,
    /// A bias on the output head (Phi-1.5/2).
    pub head_bias: bool,
    /// Learned absolute position embeddings (GPT-2, BERT); 0 for RoPE models.
    pub positions: u64,
    pub moe: Option<Moe>,
    pub mla: Option<Mla>,
    /// Sliding-window size, when some layers use one.
    pub sliding_window: Option<u64>,
    /// How many layers use the sliding window (the rest attend to everything).
    pub sliding_layers: u64,
    /// Longest context the model was trained for (max_position_embeddings).
    pub max_context: u64,
    /// Dropout in training (attention probabilities and hidden states), as in BERT.
    pub dropout: bool,
    /// Parameters outside the language model (a vision tower, a pooler): counted, kept 16-bit, frozen.
    pub extra_params: u64,
    /// The weights' exact bytes as the checkpoint's files hold them, when they were read.
    pub stored: Option<StoredWeights>,
    /// The encoder of an encoder–decoder model (T5, BART, Whisper); the rest describes its decoder.
    pub encoder: Option<Encoder>,
    /// A hybrid model's recurrent layers (Mamba, Gated DeltaNet, short convolutions).
    pub recurrent: Option<Recurrent>,
}

/// What a checkpoint's safetensors files hold: every tensor's bytes summed, in one format.
/// A budget in this format uses these bytes instead of the format's nominal bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredWeights {
    pub format: crate::dtype::WeightFormat,
    pub bytes: u64,
}

/// A model's parameters, split the way memory treats them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParamCounts {
    /// Token (and position) embeddings.
    pub(crate) embedding: u64,
    /// The output head, when it is not tied to the embeddings.
    pub head: u64,
    /// Weight matrices of all decoder layers (attention, MLP, experts, routers): what quantization shrinks.
    pub linear: u64,
    /// Norms, biases, sinks: small tensors that stay 16-bit.
    pub(crate) small: u64,
    /// Parameters outside the language model.
    pub extra: u64,
}

impl ParamCounts {
    pub fn total(&self) -> u64 {
        self.embedding + self.head + self.linear + self.small + self.extra
    }
}

impl Architecture {
    /// A plain Llama-style dense model: gated MLP, RMSNorm, no biases, RoPE.
    #[allow(clippy::too_many_arguments)]
    pub fn llama(
        vocab: u64,
        hidden: u64,
        intermediate: u64,
        layers: u64,
        heads: u64,
        kv_heads: u64,
        tied: bool,
    ) -> Architecture {
        Architecture {
            vocab,
            hidden,
            intermediate,
            layers,
            heads,
            kv_heads,
            head_dim: hidden.checked_div(heads).unwrap_or(0),
            tied,
            mlp: MlpKind::Gated,
            norm: NormKind::Rms,
            norms_per_layer: 2,
            qkv_bias: false,
            out_bias: false,
            mlp_bias: false,
            qk_norm: false,
            attn_sinks: false,
            head_bias: false,
            positions: 0,
            moe: None,
            mla: None,
            sliding_window: None,
            sliding_layers: 0,
            max_context: 131_072,
            dropout: false,
            extra_params: 0,
            stored: None,
            encoder: None,
            recurrent: None,
        }
    }

    /// A plausible dense shape for a bare parameter count, as the seeds reason (params ~ 12 h^2 L):
    /// Llama-like proportions, h = 128 * round(sqrt(P / (12 * L)) / 128), a 32k vocabulary.
    pub fn from_param_count(params: u64) -> Result<Architecture, EngineError> {
        if !(1_000_000..=10_000_000_000_000).contains(&params) {
            return Err(EngineError::OutOfRange {
                setting: "p".into(),
                value: params,
                min: 1_000_000,
                max: 10_000_000_000_000,
            });
        }
        let vocab = 32_000u64;
        let p = params as f64;
        // depth grows slowly with size: 32 layers at 7B, 80 at 70B
        let layers = ((p / 7e9).powf(0.4) * 32.0).round().clamp(4.0, 160.0) as u64;
        let mut best: Option<(u64, Architecture)> = None;
        for h_units in 1..=1024u64 {
            let hidden = h_units * 128;
            let heads = (hidden / 128).max(1);
            let ffn = ((hidden * 8 / 3).div_ceil(256)) * 256;
            let a = Architecture::llama(vocab, hidden, ffn, layers, heads, heads, false);
            let n = a.params().total();
            let err = n.abs_diff(params);
            if best.as_ref().is_none_or(|(e, _)| err < *e) {
                best = Some((err, a));
            }
            if n > params {
                break;
            }
        }
        let (_, mut a) = best.expect("at least one width is tried");
        a.max_context = 131_072;
        Ok(a)
    }

    /// Layers with a feed-forward part (all of them, unless a hybrid gives them their own layers).
    pub(crate) fn ffn_layers(&self) -> u64 {
        match &self.recurrent {
            Some(r) => r.ffn_layers.min(self.layers),
            None => self.layers,
        }
    }

    /// Layers that use a dense MLP (all of them, unless the model is MoE).
    pub fn dense_layers(&self) -> u64 {
        match &self.moe {
            Some(m) => m.dense_layers.min(self.ffn_layers()),
            None => self.ffn_layers(),
        }
    }

    /// Layers with routed experts.
    pub(crate) fn moe_layers(&self) -> u64 {
        self.ffn_layers() - self.dense_layers()
    }

    /// Layers with attention: all of them, unless a hybrid gives some a recurrent mixer instead.
    pub(crate) fn attention_layers(&self) -> u64 {
        match &self.recurrent {
            Some(r) => r.attention_layers.min(self.layers),
            None => self.layers,
        }
    }

    /// Layers with a recurrent mixer, which keep a state per sequence rather than per token.
    pub(crate) fn recurrent_layers(&self) -> u64 {
        self.recurrent
            .as_ref()
            .map_or(0, |r| r.layers.min(self.layers))
    }

    /// Width of the q projection's output: the queries, and Qwen3-Next's output gate beside them.
    fn q_proj_dim(&self) -> u64 {
        let gated = self.recurrent.as_ref().is_some_and(|r| r.gated_attention);
        self.heads * self.head_dim * if gated { 2 } else { 1 }
    }

    /// Width of what q, k and v read: the hidden state, or in Zamba2's shared blocks the hidden
    /// state beside the embeddings, twice as wide.
    fn attention_input(&self) -> u64 {
        match &self.recurrent {
            Some(r) if r.shared_blocks > 0 => 2 * self.hidden,
            _ => self.hidden,
        }
    }

    /// Sets of attention and dense-MLP weights the layers hold: one per layer that has them, or
    /// Zamba2's shared blocks.
    fn weight_sets(&self) -> (u64, u64) {
        match self.recurrent.as_ref().map_or(0, |r| r.shared_blocks) {
            0 => (self.attention_layers(), self.dense_layers()),
            n => (n, n),
        }
    }

    /// The routed experts' weight matrices, all layers (no shared experts, routers or biases):
    /// what expert parallelism spreads over its ranks.
    pub fn routed_expert_params(&self) -> u64 {
        match &self.moe {
            Some(m) => prod(&[
                self.moe_layers(),
                m.experts,
                Self::matrices_params(&self.mlp_matrices(m.expert_ffn)),
            ]),
            None => 0,
        }
    }

    /// Width of all query heads together.
    pub fn q_dim(&self) -> u64 {
        match &self.mla {
            Some(m) => self.heads * (m.nope_dim + m.rope_dim),
            None => self.heads * self.head_dim,
        }
    }

    /// Width of the keys (or values) of all KV heads together, as attention computes them.
    pub fn kv_dim(&self) -> u64 {
        match &self.mla {
            Some(m) => self.heads * (m.nope_dim + m.rope_dim),
            None => self.kv_heads * self.head_dim,
        }
    }

    /// Width of the attention output before o_proj.
    pub fn attn_out_dim(&self) -> u64 {
        match &self.mla {
            Some(m) => self.heads * m.v_head_dim,
            None => self.heads * self.head_dim,
        }
    }

    /// The weight matrices of one layer's attention, as (name, in, out).
    pub fn attention_matrices(&self) -> Vec<(&'static str, u64, u64)> {
        let h = self.hidden;
        match &self.mla {
            Some(m) => {
                let qk = m.nope_dim + m.rope_dim;
                let mut v = Vec::with_capacity(5);
                if m.q_lora_rank > 0 {
                    v.push(("q", h, m.q_lora_rank));
                    v.push(("q", m.q_lora_rank, self.heads * qk));
                } else {
                    v.push(("q", h, self.heads * qk));
                }
                v.push(("k", h, m.kv_lora_rank + m.rope_dim));
                v.push((
                    "v",
                    m.kv_lora_rank,
                    self.heads * (m.nope_dim + m.v_head_dim),
                ));
                v.push(("o", self.heads * m.v_head_dim, h));
                v
            }
            None => {
                let input = self.attention_input();
                vec![
                    ("q", input, self.q_proj_dim()),
                    ("k", input, self.kv_heads * self.head_dim),
                    ("v", input, self.kv_heads * self.head_dim),
                    ("o", self.heads * self.head_dim, h),
                ]
            }
        }
    }

    /// The weight matrices of one dense MLP of intermediate size `ffn`, as (name, in, out).
    pub fn mlp_matrices(&self, ffn: u64) -> Vec<(&'static str, u64, u64)> {
        let h = self.hidden;
        match self.mlp {
            MlpKind::Gated => vec![("gate", h, ffn), ("up", h, ffn), ("down", ffn, h)],
            MlpKind::Plain => vec![("up", h, ffn), ("down", ffn, h)],
        }
    }

    fn matrices_params(ms: &[(&'static str, u64, u64)]) -> u64 {
        ms.iter().map(|(_, i, o)| i * o).sum()
    }

    fn attention_small_params(&self) -> u64 {
        let mut n = 0;
        if self.qkv_bias {
            n += self.q_dim() + 2 * self.kv_heads * self.head_dim;
        }
        if self.out_bias {
            n += self.hidden;
        }
        if self.qk_norm {
            n += 2 * self.head_dim;
        }
        if self.attn_sinks {
            n += self.heads;
        }
        if let Some(e) = &self.encoder {
            n -= e.missing_k_bias(self);
        }
        if let Some(m) = &self.mla {
            // the RMSNorms on the compressed q and kv
            n += m.q_lora_rank + m.kv_lora_rank;
        }
        n
    }

    fn mlp_bias_params(&self, ffn: u64) -> u64 {
        match self.mlp {
            MlpKind::Gated => 2 * ffn + self.hidden,
            MlpKind::Plain => ffn + self.hidden,
        }
    }

    /// Parameters of one norm layer (the final norm is one).
    pub(crate) fn norm_params(&self) -> u64 {
        match self.norm {
            NormKind::Rms => self.hidden,
            NormKind::Layer => 2 * self.hidden,
        }
    }

    /// Linear and small parameters of one MoE layer's feed-forward part: (linear, small).
    fn moe_ffn_params(&self, m: &Moe) -> (u64, u64) {
        let expert = Self::matrices_params(&self.mlp_matrices(m.expert_ffn));
        let mut linear = m.experts * expert + m.experts * self.hidden; // experts + router
        let mut small = 0;
        if m.expert_bias {
            small += m.experts * self.mlp_bias_params(m.expert_ffn);
        }
        if m.router_bias {
            small += m.experts;
        }
        if m.shared_ffn > 0 {
            linear += Self::matrices_params(&self.mlp_matrices(m.shared_ffn));
            if m.shared_gate {
                linear += self.hidden;
            }
        }
        (linear, small)
    }

    /// Parameters of one layer (its largest kind, for MoE): what ZeRO-3 gathers at a time.
    pub fn largest_layer_params(&self) -> u64 {
        let attn = Self::matrices_params(&self.attention_matrices());
        let dense = Self::matrices_params(&self.mlp_matrices(self.intermediate));
        let moe = self
            .moe
            .as_ref()
            .map(|m| self.moe_ffn_params(m).0)
            .unwrap_or(0);
        let mixer = self
            .recurrent
            .as_ref()
            .map_or(0, |r| r.linear_params(self.hidden));
        attn.max(mixer) + dense.max(moe) + self.norms_per_layer * self.norm_params()
    }

    /// Parameters of one layer's attention projections (q, k, v, o; MLA's down and up projections).
    pub(crate) fn attention_params(&self) -> u64 {
        Self::matrices_params(&self.attention_matrices())
    }

    /// Parameters of the largest weight matrix inside the layers (attention, MLP or one expert):
    /// what a layer-by-layer loader or a per-tensor optimizer holds at once.
    pub fn largest_linear_matrix(&self) -> u64 {
        let mut ms = self.attention_matrices();
        ms.extend(self.mlp_matrices(self.intermediate));
        if let Some(m) = &self.moe {
            ms.extend(self.mlp_matrices(m.expert_ffn));
            if m.shared_ffn > 0 {
                ms.extend(self.mlp_matrices(m.shared_ffn));
            }
        }
        ms.iter()
            .map(|(_, i, o)| prod(&[*i, *o]))
            .max()
            .unwrap_or(0)
    }

    /// Parameters of the largest single tensor of the model, embeddings included.
    pub fn largest_tensor(&self) -> u64 {
        self.largest_linear_matrix()
            .max(prod(&[self.vocab, self.hidden]))
    }

    /// Exact parameter counts, the way transformers counts `model.parameters()`.
    pub fn params(&self) -> ParamCounts {
        let h = self.hidden;
        let mut embedding = prod(&[self.vocab, h]) + prod(&[self.positions, h]);
        let head = if self.tied { 0 } else { prod(&[self.vocab, h]) }
            + if self.head_bias { self.vocab } else { 0 };
        let attn = Self::matrices_params(&self.attention_matrices());
        let dense_ffn = Self::matrices_params(&self.mlp_matrices(self.intermediate));
        let (attn_sets, ffn_sets) = self.weight_sets();
        let mut linear = attn_sets * attn + ffn_sets * dense_ffn;
        let mut small = attn_sets * self.attention_small_params()
            + self.layers * self.norms_per_layer * self.norm_params()
            + self.norm_params();
        if let Some(r) = &self.recurrent {
            let (shared_linear, shared_small) = r.shared_block_extras(h, self.intermediate);
            linear += self.recurrent_layers() * r.linear_params(h) + shared_linear;
            small += self.recurrent_layers() * r.small_params(h) + shared_small;
        }
        if self.mlp_bias {
            small += ffn_sets * self.mlp_bias_params(self.intermediate);
        }
        if let Some(m) = &self.moe {
            let (l, s) = self.moe_ffn_params(m);
            linear += self.moe_layers() * l;
            small += self.moe_layers() * s;
        }
        if let Some(e) = &self.encoder {
            embedding += e.embedding_params(self);
            linear += e.linear_params(self);
            small += e.small_params(self);
        }
        ParamCounts {
            embedding,
            head,
            linear,
            small,
            extra: self.extra_params,
        }
    }

    /// Parameters one token touches: all but the experts it is not routed to.
    pub fn active_params(&self) -> u64 {
        let total = self.params().total();
        match &self.moe {
            Some(m) => {
                let expert = Self::matrices_params(&self.mlp_matrices(m.expert_ffn));
                let idle = m.experts.saturating_sub(m.top_k) * expert * self.moe_layers();
                total - idle
            }
            None => total,
        }
    }

    /// Layers that keep every token in their KV cache (the other attention layers keep a sliding
    /// window; recurrent layers keep no KV).
    pub fn full_attention_layers(&self) -> u64 {
        let attention = self.attention_layers();
        match self.sliding_window {
            Some(_) => attention - self.sliding_layers.min(attention),
            None => attention,
        }
    }

    /// Checks that the shape holds together; the error names the field and its range.
    pub fn validate(&self) -> Result<(), EngineError> {
        // every field that feeds the parameter count, so that it cannot overflow (a link can set
        // them all)
        let mut more: Vec<(&str, u64, u64, u64)> = vec![
            ("vocab_size", self.vocab, 1, 4_000_000),
            ("hidden_size", self.hidden, 1, 131_072),
            ("intermediate_size", self.intermediate, 1, 1_048_576),
            ("num_hidden_layers", self.layers, 1, 1_024),
            ("num_attention_heads", self.heads, 1, 4_096),
            ("num_key_value_heads", self.kv_heads, 1, 4_096),
            ("head_dim", self.head_dim, 1, 4_096),
            ("norms_per_layer", self.norms_per_layer, 0, 8),
            ("position_embeddings", self.positions, 0, 1 << 28),
            ("extra_params", self.extra_params, 0, 20_000_000_000_000),
        ];
        if let Some(m) = &self.moe {
            more.push(("shared_expert_intermediate_size", m.shared_ffn, 0, 1 << 24));
        }
        if let Some(m) = &self.mla {
            more.extend([
                ("q_lora_rank", m.q_lora_rank, 0, 65_536),
                ("kv_lora_rank", m.kv_lora_rank, 1, 65_536),
                ("qk_rope_head_dim", m.rope_dim, 0, 4_096),
                ("qk_nope_head_dim", m.nope_dim, 0, 4_096),
                ("v_head_dim", m.v_head_dim, 0, 4_096),
            ]);
        }
        for (name, value, min, max) in more {
            if !(min..=max).contains(&value) {
                return Err(EngineError::OutOfRange {
                    setting: name.into(),
                    value,
                    min,
                    max,
                });
            }
        }
        if self.mla.is_none() && !self.heads.is_multiple_of(self.kv_heads) {
            return Err(EngineError::HeadsNotShared {
                heads: self.heads,
                kv_heads: self.kv_heads,
            });
        }
        if let Some(m) = &self.moe {
            if m.experts == 0 || m.experts > 4_096 {
                return Err(EngineError::OutOfRange {
                    setting: "experts".into(),
                    value: m.experts,
                    min: 1,
                    max: 4_096,
                });
            }
            if m.top_k == 0 || m.top_k > m.experts {
                return Err(EngineError::ExpertsPerToken {
                    top_k: m.top_k,
                    experts: m.experts,
                });
            }
            if m.expert_ffn == 0 || m.expert_ffn > 1_048_576 {
                return Err(EngineError::OutOfRange {
                    setting: "moe_intermediate_size".into(),
                    value: m.expert_ffn,
                    min: 1,
                    max: 1_048_576,
                });
            }
        }
        if let Some(w) = self.sliding_window {
            if w == 0 {
                return Err(EngineError::ZeroWindow);
            }
        }
        if let Some(e) = &self.encoder {
            e.validate()?;
        }
        if let Some(r) = &self.recurrent {
            r.validate(self.layers)?;
        }
        if self.params().total() > 20_000_000_000_000 {
            return Err(EngineError::TooManyParameters);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_2_7b_has_6_738_415_616_parameters() {
        let a = Architecture::llama(32_000, 4_096, 11_008, 32, 32, 32, false);
        assert_eq!(a.params().total(), 6_738_415_616);
    }

    #[test]
    fn llama_3_1_8b_has_8_030_261_248_parameters() {
        let a = Architecture::llama(128_256, 4_096, 14_336, 32, 32, 8, false);
        assert_eq!(a.params().total(), 8_030_261_248);
    }

    #[test]
    fn tied_embeddings_are_counted_once() {
        let untied = Architecture::llama(128_256, 3_072, 8_192, 28, 24, 8, false);
        let tied = Architecture {
            tied: true,
            ..untied.clone()
        };
        assert_eq!(
            untied.params().total() - tied.params().total(),
            128_256 * 3_072
        );
        assert_eq!(tied.params().total(), 3_212_749_824);
    }

    #[test]
    fn a_bare_7b_gets_a_dense_shape_near_7b() {
        let a = Architecture::from_param_count(7_000_000_000).unwrap();
        let n = a.params().total() as f64;
        assert!((n / 7e9 - 1.0).abs() < 0.05, "{n}");
        assert_eq!(a.layers, 32);
    }

    #[test]
    fn kv_heads_that_do_not_divide_the_heads_are_an_error() {
        let a = Architecture::llama(32_000, 4_096, 11_008, 32, 32, 5, false);
        assert_eq!(
            a.validate(),
            Err(EngineError::HeadsNotShared {
                heads: 32,
                kv_heads: 5
            })
        );
    }
}
