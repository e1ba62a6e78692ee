//! llama.cpp's recurrent state (`src/llama-memory-recurrent.cpp`): for each recurrent layer of a
//! hybrid model (Mamba, Mamba-2, Gated DeltaNet, LFM2's short convolutions) one row of
//! `n_embd_r` (the convolution window) and one of `n_embd_s` (the SSM state) per sequence slot,
//! `max(1, n_seq_max)` slots (`-np`), both F32 (`llama-model.cpp`, `create_memory`), however
//! long the context.

use crate::gguf::{GgufHeader, LayerCounts, MetaValue};

/// The recurrent layers of a GGUF model and the width of their state rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecurrentState {
    /// Per layer: whether it keeps a recurrent state.
    pub layers: Vec<bool>,
    /// The convolution window's width per slot (`llama_hparams::n_embd_r`).
    pub(crate) n_embd_r: u64,
    /// The SSM state's width per slot (`llama_hparams::n_embd_s`).
    pub(crate) n_embd_s: u64,
}

/// Bytes of one F32 element of the state.
const STATE_BYTES: u64 = 4;

impl RecurrentState {
    /// The state the header describes, `None` for a model without recurrent layers.
    /// `n_embd_r` = (ssm.conv_kernel − 1) × (ssm.inner_size + 2 × ssm.group_count ×
    /// ssm.state_size), or n_embd × (shortconv.l_cache − 1) for LFM2; `n_embd_s` =
    /// ssm.state_size × ssm.inner_size (`src/llama-hparams.cpp`). A layer is recurrent where it
    /// has no KV heads (and, in Nemotron-H, no feed-forward either), or, for Qwen3-Next, outside
    /// every `full_attention_interval`-th layer.
    pub fn of(header: &GgufHeader, n_layer: u64, n_embd: u64) -> Option<RecurrentState> {
        let arch = header.architecture()?;
        let key = |suffix: &str| {
            header
                .get(&format!("{arch}.{suffix}"))
                .and_then(MetaValue::as_u64)
        };
        let (n_embd_r, n_embd_s) = match key("shortconv.l_cache") {
            Some(l_cache) => (n_embd.saturating_mul(l_cache.saturating_sub(1)), 0),
            None => {
                let conv = key("ssm.conv_kernel")?;
                let inner = key("ssm.inner_size").unwrap_or(0);
                let state = key("ssm.state_size").unwrap_or(0);
                let groups = key("ssm.group_count").unwrap_or(0);
                let channels = inner.saturating_add(groups.saturating_mul(state).saturating_mul(2));
                (
                    conv.saturating_sub(1).saturating_mul(channels),
                    state.saturating_mul(inner),
                )
            }
        };
        let hp = header.hyperparameters();
        let at = |counts: &Option<LayerCounts>, il: u64| {
            counts.as_ref().and_then(|c| c.at(il as usize)).unwrap_or(0)
        };
        let interval = key("full_attention_interval").filter(|&n| n > 0);
        let layers = (0..n_layer)
            .map(|il| match interval {
                Some(n) => (il + 1) % n != 0,
                None if arch == "nemotron_h" => {
                    at(&hp.head_count_kv, il) == 0 && at(&hp.feed_forward_length, il) == 0
                }
                None => at(&hp.head_count_kv, il) == 0,
            })
            .collect();
        Some(RecurrentState {
            layers,
            n_embd_r,
            n_embd_s,
        })
    }

    /// Whether layer `il` keeps a state rather than K and V.
    pub fn is_recurrent(&self, il: usize) -> bool {
        self.layers.get(il).copied().unwrap_or(false)
    }

    /// Bytes of one layer's state for `slots` sequence slots.
    pub(crate) fn layer_bytes(&self, slots: u64) -> u64 {
        (self.n_embd_r + self.n_embd_s)
            .saturating_mul(STATE_BYTES)
            .saturating_mul(slots.max(1))
    }
}
