//! Where the files and the config.json disagree: the parameters each implies, the weight bytes
//! by the format's nominal bits against the bytes the files hold, and tensors that are not
//! parameters at all.

use super::sizing::{FileWeights, QuantScheme, TensorRole};
use crate::dtype::WeightFormat;
use crate::model::Architecture;

/// One disagreement between the files and the config, with both numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileDifference {
    /// The files hold a different number of parameters than the config's shape gives (a vision
    /// tower the engine does not count, a multi-token-prediction layer, an untied head…).
    Params { config: u64, files: u64 },
    /// The format's nominal bits per weight give `nominal` bytes; the files hold `files`.
    WeightBytes {
        format: WeightFormat,
        nominal: u64,
        files: u64,
    },
    /// Tensors saved with the weights that are not parameters (rotary frequencies, masks).
    Buffers { tensors: u64, bytes: u64 },
    /// None of the engine's weight formats matches how the files are stored, so budgets use the
    /// nominal bits of the format chosen.
    NoMatchingFormat { scheme: QuantScheme },
    /// The index's `total_size` is not the sum of the shards' tensors.
    IndexTotal { index: u64, files: u64 },
}

/// Bytes of all weights at a format's nominal bits: linear layers at its bits, embeddings and
/// head at its embedding bits, norms and biases at its compute width (no tensor parallelism).
pub fn nominal_weight_bytes(a: &Architecture, format: WeightFormat) -> u64 {
    let p = a.params();
    format
        .embedding_bits()
        .bytes(p.embedding + p.head)
        .saturating_add(format.bits().bytes(p.linear))
        .saturating_add((p.small + p.extra).saturating_mul(format.compute_bytes()))
}

/// Every difference between the files and the architecture read from config.json.
pub(crate) fn compare_with_config(
    arch: &Architecture,
    files: &FileWeights,
    index_total: Option<u64>,
) -> Vec<FileDifference> {
    let mut out = Vec::new();
    let config = arch.params().total();
    if files.params != config {
        out.push(FileDifference::Params {
            config,
            files: files.params,
        });
    }
    match files.stored_format() {
        Some(format) => {
            let nominal = nominal_weight_bytes(arch, format);
            if nominal != files.weight_bytes() {
                out.push(FileDifference::WeightBytes {
                    format,
                    nominal,
                    files: files.weight_bytes(),
                });
            }
        }
        None => out.push(FileDifference::NoMatchingFormat {
            scheme: files.scheme,
        }),
    }
    let buffers = files.role(TensorRole::Buffer);
    if buffers.tensors > 0 {
        out.push(FileDifference::Buffers {
            tensors: buffers.tensors,
            bytes: buffers.bytes,
        });
    }
    if let Some(index) = index_total.filter(|t| *t != files.total.bytes) {
        out.push(FileDifference::IndexTotal {
            index,
            files: files.total.bytes,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::safetensors::header::read_header_json;
    use crate::safetensors::sizing::size_weights;

    #[test]
    fn saved_rotary_buffers_and_an_index_that_disagrees_are_each_named() {
        let arch = Architecture::llama(16, 8, 16, 1, 2, 2, false);
        let n = arch.params().total();
        let json = format!(
            r#"{{"all.weight":{{"dtype":"BF16","shape":[{n}],"data_offsets":[0,{}]}},"model.layers.0.self_attn.rotary_emb.inv_freq":{{"dtype":"F32","shape":[2],"data_offsets":[{},{}]}}}}"#,
            2 * n,
            2 * n,
            2 * n + 8
        );
        let header = read_header_json(json.as_bytes()).unwrap();
        let files = size_weights(header.tensors().iter(), 4);
        assert_eq!(
            compare_with_config(&arch, &files, Some(2 * n)),
            vec![
                FileDifference::Buffers {
                    tensors: 1,
                    bytes: 8
                },
                FileDifference::IndexTotal {
                    index: 2 * n,
                    files: 2 * n + 8
                },
            ]
        );
        let fewer = Architecture::llama(16, 8, 16, 2, 2, 2, false);
        assert!(matches!(
            compare_with_config(&fewer, &files, None).first(),
            Some(FileDifference::Params { config, files: f }) if *config > *f
        ));
    }
}
