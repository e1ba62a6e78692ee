//! Hybrid models: a recurrent token mixer (Mamba, Mamba-2, Gated DeltaNet, a short convolution)
//! in some layers instead of attention. Those layers keep a fixed state per sequence (a
//! convolution window and an SSM or delta-rule state) instead of K and V per token.
//!
//! Parameter counts follow transformers' modeling files (`models/qwen3_next/modeling_qwen3_next.py`
//! `Qwen3NextGatedDeltaNet` and the gated `Qwen3NextAttention`; `models/nemotron_h/
//! modeling_nemotron_h.py` `NemotronHMamba2Mixer` and `NemotronHBlock`, one norm and one mixer per
//! layer; `models/granitemoehybrid/modeling_granitemoehybrid.py` (Bamba's Mamba-2 mixer);
//! `models/jamba/modeling_jamba.py` `JambaMambaMixer` with its dt, B and C norms;
//! `models/falcon_h1/modeling_falcon_h1.py` (attention and a Mamba-2 mixer side by side in every
//! layer, the mixer's gated norm only with `mamba_rms_norm`);
//! `models/lfm2/modeling_lfm2.py` `Lfm2ShortConv`). The state shapes follow vLLM's
//! `vllm/model_executor/layers/mamba/mamba_utils.py` (`MambaStateShapeCalculator`) and
//! llama.cpp's `n_embd_r` / `n_embd_s` (`src/llama-hparams.cpp`).

use crate::error::EngineError;
use crate::named::named_enum;
use crate::units::{div_ceil, prod};

named_enum! {
    /// The recurrent token mixer of a hybrid model's non-attention layers.
    pub enum Mixer {
        Mamba2 => ("mamba2", "Mamba-2"),
        Mamba => ("mamba", "Mamba"),
        DeltaNet => ("gdn", "Gated DeltaNet"),
        ShortConv => ("conv", "short convolution"),
    }
}

/// The recurrent layers of a hybrid model and the layers around them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recurrent {
    pub mixer: Mixer,
    /// Layers with the recurrent mixer.
    pub layers: u64,
    /// Layers with attention (Falcon-H1 would run both in every layer).
    pub(crate) attention_layers: u64,
    /// Layers with a feed-forward part, dense or experts (Nemotron-H's are layers of their own).
    pub(crate) ffn_layers: u64,
    /// Mamba-2: heads; Gated DeltaNet: value heads.
    pub heads: u64,
    /// Mamba-2: width of a head; Gated DeltaNet: width of a value head.
    pub head_dim: u64,
    /// Mamba-2: groups of B and C; Gated DeltaNet: key heads.
    pub groups: u64,
    /// Mamba, Mamba-2: state size; Gated DeltaNet: width of a key head.
    pub state: u64,
    /// Width of the causal convolution's kernel.
    pub conv_kernel: u64,
    /// The mixer's inner width: Mamba's expand × hidden, Mamba-2's heads × head width.
    pub inner: u64,
    /// Mamba: rank of the time-step projection.
    pub dt_rank: u64,
    pub conv_bias: bool,
    /// A bias on the mixer's input projection.
    pub proj_bias: bool,
    /// A bias on the mixer's output projection (the input projection's flag in every family
    /// but Falcon-H1, whose `projectors_bias` sets it).
    pub out_bias: bool,
    /// Mamba-2's gated RMSNorm over the inner width (Falcon-H1 may leave it out:
    /// `mamba_rms_norm`).
    pub mixer_norm: bool,
    /// Attention with an output gate: a q projection twice as wide (Qwen3-Next).
    pub gated_attention: bool,
    /// The SSM state kept in fp32 (the config's `mamba_ssm_cache_dtype`).
    pub state_fp32: bool,
    /// Zamba2: the attention layers take `shared_blocks` attention-and-MLP blocks in turn, one
    /// set of weights each (`num_mem_blocks`); 0 where every attention layer has its own.
    pub(crate) shared_blocks: u64,
    /// Zamba2: rank of the adapters each attention layer adds to its shared block's MLP (and,
    /// with `attention_adapters`, to its q, k and v projections).
    pub(crate) adapter_rank: u64,
    /// Zamba2's `use_shared_attention_adapter`.
    pub(crate) attention_adapters: bool,
}

impl Recurrent {
    /// Channels of the causal convolution: what its state keeps `conv_kernel - 1` steps of.
    pub fn conv_channels(&self, hidden: u64) -> u64 {
        match self.mixer {
            Mixer::Mamba2 => self.inner + 2 * self.groups * self.state,
            Mixer::Mamba => self.inner,
            Mixer::DeltaNet => 2 * self.groups * self.state + self.inner,
            Mixer::ShortConv => hidden,
        }
    }

    /// Elements of one layer's SSM (or delta-rule) state for one sequence.
    pub fn ssm_elements(&self) -> u64 {
        match self.mixer {
            Mixer::Mamba2 | Mixer::DeltaNet => prod(&[self.heads, self.head_dim, self.state]),
            Mixer::Mamba => prod(&[self.inner, self.state]),
            Mixer::ShortConv => 0,
        }
    }

    /// Elements of one layer's convolution state for one sequence.
    pub fn conv_elements(&self, hidden: u64) -> u64 {
        prod(&[
            self.conv_kernel.saturating_sub(1),
            self.conv_channels(hidden),
        ])
    }

    /// Bytes of one layer's state for one sequence on one of `tp` ranks: the convolution window
    /// in `conv_bytes` per element, the SSM state in `ssm_bytes` (both split over the ranks as
    /// vLLM shards heads and channels).
    pub fn layer_state_bytes(&self, hidden: u64, tp: u64, conv_bytes: u64, ssm_bytes: u64) -> u64 {
        let tp = tp.max(1);
        div_ceil(self.conv_elements(hidden), tp) * conv_bytes
            + div_ceil(self.ssm_elements(), tp) * ssm_bytes
    }

    /// Weight-matrix parameters of one recurrent mixer (what quantization shrinks).
    pub fn linear_params(&self, hidden: u64) -> u64 {
        let h = hidden;
        let d = self.inner;
        match self.mixer {
            Mixer::Mamba2 => {
                let projection = d + self.conv_channels(h) + self.heads;
                prod(&[h, projection]) + prod(&[d, h])
            }
            Mixer::Mamba => {
                let r = self.dt_rank;
                prod(&[h, 2 * d]) + prod(&[d, r + 2 * self.state]) + prod(&[r, d]) + prod(&[d, h])
            }
            Mixer::DeltaNet => {
                let key = self.groups * self.state;
                prod(&[h, 2 * key + 2 * d]) + prod(&[h, 2 * self.heads]) + prod(&[d, h])
            }
            Mixer::ShortConv => prod(&[h, 3 * h]) + prod(&[h, h]),
        }
    }

    /// Small parameters of one recurrent mixer: the convolution, per-head decay and skip terms,
    /// norms and biases.
    pub fn small_params(&self, hidden: u64) -> u64 {
        let h = hidden;
        let d = self.inner;
        let channels = self.conv_channels(h);
        let conv = prod(&[channels, self.conv_kernel]) + self.conv_bias as u64 * channels;
        conv + match self.mixer {
            // dt_bias, A_log, D per head; the gated RMSNorm over the inner width
            Mixer::Mamba2 => {
                let projection = d + channels + self.heads;
                3 * self.heads
                    + self.mixer_norm as u64 * d
                    + self.proj_bias as u64 * projection
                    + self.out_bias as u64 * h
            }
            // dt_proj's bias, A_log (inner × state), D, and Jamba's dt, B and C norms
            Mixer::Mamba => {
                d + prod(&[d, self.state])
                    + d
                    + self.dt_rank
                    + 2 * self.state
                    + self.proj_bias as u64 * 2 * d
                    + self.out_bias as u64 * h
            }
            // dt_bias and A_log per value head; the gated RMSNorm over one value head
            Mixer::DeltaNet => 2 * self.heads + self.head_dim,
            // in_proj's and out_proj's biases ride with the convolution's
            Mixer::ShortConv => self.conv_bias as u64 * (3 * h + h),
        }
    }

    /// Bytes per token one recurrent mixer keeps for backward with `c`-byte activations, as the
    /// kernels transformers trains with save them: Mamba-2's fused split-conv-scan
    /// (`mamba_ssm/ops/triton/ssd_combined.py`, `MambaSplitConv1dScanCombinedFn`: the in_proj
    /// output z, x, B, C, dt, the scan's gated output and the norm's fp32 rstd per group);
    /// Mamba's `MambaInnerFn` (`mamba_ssm/ops/selective_scan_interface.py`: x and z, the
    /// x_proj output, delta and the gated output); the Gated DeltaNet's convolution input and
    /// output, gate and core output, fp32 decay and beta per head, and `chunk_gated_delta_rule`'s
    /// fp32 64-wide chunk matrix A per head (`fla/ops/gated_delta_rule/chunk.py`); LFM2's
    /// in_proj output, gated input and convolution output. The chunk states are recomputed in
    /// backward, not kept.
    pub fn scan_activation_bytes(&self, hidden: u64, c: u64) -> u64 {
        let d = self.inner;
        match self.mixer {
            Mixer::Mamba2 => {
                let zxbcdt = 2 * d + 2 * self.groups * self.state + self.heads;
                c * (zxbcdt + d) + 4 * self.groups.max(1)
            }
            Mixer::Mamba => c * (4 * d + self.dt_rank + 2 * self.state),
            Mixer::DeltaNet => {
                c * (2 * self.conv_channels(hidden) + 2 * d) + 4 * self.heads * (64 + 2)
            }
            Mixer::ShortConv => c * 5 * hidden,
        }
    }

    /// Zamba2's parameters beside its shared blocks' attention and MLP, as (linear, small): in
    /// each attention layer a hidden × hidden map after the block, an MLP adapter (hidden →
    /// rank → 2 × `ffn`) and, with `attention_adapters`, q, k and v adapters (2 × hidden → rank
    /// → 2 × hidden each); in each shared block the norms before attention (2 × hidden, as its
    /// input is the hidden state beside the embeddings) and before the MLP (hidden). Nothing for
    /// other families.
    pub fn shared_block_extras(&self, hidden: u64, ffn: u64) -> (u64, u64) {
        if self.shared_blocks == 0 {
            return (0, 0);
        }
        let (h, r) = (hidden, self.adapter_rank);
        let mlp_adapter = prod(&[h, r]) + prod(&[r, 2 * ffn]);
        let attention_adapters = self.attention_adapters as u64 * 3 * 2 * prod(&[2 * h, r]);
        let per_layer = prod(&[h, h]) + mlp_adapter + attention_adapters;
        (
            prod(&[self.attention_layers, per_layer]),
            prod(&[self.shared_blocks, 3 * h]),
        )
    }

    /// Checks the fields against `layers`, naming the first one out of range.
    pub fn validate(&self, layers: u64) -> Result<(), EngineError> {
        let fields = [
            ("recurrent_layers", self.layers, 1, layers),
            ("attention_layers", self.attention_layers, 1, layers),
            ("ffn_layers", self.ffn_layers, 0, layers),
            ("recurrent_heads", self.heads, 0, 65_536),
            ("recurrent_head_dim", self.head_dim, 0, 65_536),
            ("n_groups", self.groups, 0, 65_536),
            ("ssm_state_size", self.state, 0, 65_536),
            ("conv_kernel", self.conv_kernel, 1, 1_024),
            ("recurrent_inner", self.inner, 0, 1 << 20),
            ("dt_rank", self.dt_rank, 0, 1 << 20),
            (
                "num_mem_blocks",
                self.shared_blocks,
                0,
                self.attention_layers,
            ),
            ("adapter_rank", self.adapter_rank, 0, 65_536),
        ];
        for (name, value, min, max) in fields {
            if !(min..=max).contains(&value) {
                return Err(EngineError::OutOfRange {
                    setting: name.into(),
                    value,
                    min,
                    max,
                });
            }
        }
        Ok(())
    }
}
