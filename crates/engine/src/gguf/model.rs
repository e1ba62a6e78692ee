//! What llama.cpp reads from a header to size a model: its architecture, the hyperparameters
//! under `{arch}.…`, and its tensors grouped into repeating layers (`blk.N.`) and the rest.

use super::header::{GgufHeader, TensorInfo};
use super::value::MetaValue;

/// A count that is either one number for every layer or one per layer (llama.cpp's
/// `get_key_or_arr`: OpenELM's head counts, per-layer feed-forward widths).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LayerCounts {
    Same(u64),
    PerLayer(Vec<u64>),
}

impl LayerCounts {
    /// The count at `layer` (for `Same`, every layer's).
    pub fn at(&self, layer: usize) -> Option<u64> {
        match self {
            LayerCounts::Same(n) => Some(*n),
            LayerCounts::PerLayer(counts) => counts.get(layer).copied(),
        }
    }

    /// The largest count over the layers.
    pub fn max(&self) -> u64 {
        match self {
            LayerCounts::Same(n) => *n,
            LayerCounts::PerLayer(counts) => counts.iter().copied().max().unwrap_or(0),
        }
    }
}

/// The hyperparameters llama.cpp reads for the main architectures; None where the file has no
/// such key (or a value of an unusable type).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hyperparameters {
    pub(crate) block_count: Option<u64>,
    pub(crate) context_length: Option<u64>,
    pub(crate) embedding_length: Option<u64>,
    pub(crate) feed_forward_length: Option<LayerCounts>,
    pub(crate) head_count: Option<LayerCounts>,
    pub(crate) head_count_kv: Option<LayerCounts>,
    pub(crate) key_length: Option<u64>,
    pub(crate) value_length: Option<u64>,
    pub(crate) sliding_window: Option<u64>,
    pub(crate) expert_count: Option<u64>,
    pub(crate) expert_used_count: Option<u64>,
    /// `{arch}.vocab_size`, else the length of `tokenizer.ggml.tokens`.
    pub(crate) vocab_size: Option<u64>,
}

/// The tensors of one repeating layer (`blk.N.…`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerTensors<'a> {
    pub index: u32,
    pub tensors: Vec<&'a TensorInfo>,
}

impl LayerTensors<'_> {
    pub fn bytes(&self) -> u64 {
        self.tensors.iter().map(|t| t.bytes()).sum()
    }
}

fn layer_counts(value: &MetaValue) -> Option<LayerCounts> {
    if let Some(n) = value.as_u64() {
        return Some(LayerCounts::Same(n));
    }
    let values = value.as_array()?.values.as_ref()?;
    let counts = values
        .iter()
        .map(MetaValue::as_u64)
        .collect::<Option<Vec<_>>>()?;
    Some(LayerCounts::PerLayer(counts))
}

impl GgufHeader {
    /// `general.architecture`, e.g. "llama", "qwen2", "gemma2".
    pub fn architecture(&self) -> Option<&str> {
        self.get("general.architecture")?.as_str()
    }

    /// `{arch}.{suffix}` as a non-negative integer.
    fn arch_u64(&self, suffix: &str) -> Option<u64> {
        self.arch_value(suffix)?.as_u64()
    }

    fn arch_value(&self, suffix: &str) -> Option<&MetaValue> {
        let arch = self.architecture()?;
        self.get(&format!("{arch}.{suffix}"))
    }

    pub(crate) fn hyperparameters(&self) -> Hyperparameters {
        let tokens = self
            .get("tokenizer.ggml.tokens")
            .and_then(MetaValue::as_array)
            .map(|a| a.len);
        Hyperparameters {
            block_count: self.arch_u64("block_count"),
            context_length: self.arch_u64("context_length"),
            embedding_length: self.arch_u64("embedding_length"),
            feed_forward_length: self
                .arch_value("feed_forward_length")
                .and_then(layer_counts),
            head_count: self
                .arch_value("attention.head_count")
                .and_then(layer_counts),
            head_count_kv: self
                .arch_value("attention.head_count_kv")
                .and_then(layer_counts),
            key_length: self.arch_u64("attention.key_length"),
            value_length: self.arch_u64("attention.value_length"),
            sliding_window: self.arch_u64("attention.sliding_window"),
            expert_count: self.arch_u64("expert_count"),
            expert_used_count: self.arch_u64("expert_used_count"),
            vocab_size: self.arch_u64("vocab_size").or(tokens),
        }
    }

    /// The repeating layers in index order, each with its tensors and their bytes.
    pub fn layers(&self) -> Vec<LayerTensors<'_>> {
        let mut layers: Vec<LayerTensors<'_>> = Vec::new();
        for tensor in self.tensors() {
            let Some(index) = tensor.layer() else {
                continue;
            };
            match layers.binary_search_by_key(&index, |l| l.index) {
                Ok(at) => layers[at].tensors.push(tensor),
                Err(at) => layers.insert(
                    at,
                    LayerTensors {
                        index,
                        tensors: vec![tensor],
                    },
                ),
            }
        }
        layers
    }

    /// Tensors outside the repeating layers (token_embd, output, output_norm, rope tables…).
    #[cfg(test)]
    pub(crate) fn non_layer_tensors(&self) -> Vec<&TensorInfo> {
        self.tensors()
            .iter()
            .filter(|t| t.layer().is_none())
            .collect()
    }

    /// `token_embd.weight`: llama.cpp keeps it in host memory whatever is offloaded.
    pub(crate) fn token_embedding(&self) -> Option<&TensorInfo> {
        self.tensor("token_embd.weight")
    }

    /// `output.weight`; None when the output shares the token embedding (tied).
    pub fn output(&self) -> Option<&TensorInfo> {
        self.tensor("output.weight")
    }

    #[cfg(test)]
    pub(crate) fn output_norm(&self) -> Option<&TensorInfo> {
        self.tensor("output_norm.weight")
    }
}
