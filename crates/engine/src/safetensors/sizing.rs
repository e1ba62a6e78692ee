//! Exact weight bytes from the tensors the files hold, and what each tensor is: a plain weight,
//! a packed quantized weight (GPTQ/AWQ `qweight`, bitsandbytes 4-bit `weight`), or the scales,
//! zero points, group indices and quantization state beside it.
//! Names follow the exporters: AutoGPTQ / GPTQModel and AutoAWQ (`qweight`, `qzeros`, `scales`,
//! `g_idx`), compressed-tensors and DeepSeek FP8 (`weight_scale`, `input_scale`,
//! `weight_scale_inv`), bitsandbytes through transformers (`absmax`, `quant_map`,
//! `nested_absmax`, `nested_quant_map`, `quant_state.bitsandbytes__nf4`, `SCB`).

use super::dtype::SafeDtype;
use super::header::SafeTensor;
use crate::dtype::WeightFormat;
use crate::named::named_enum;

named_enum! {
    /// What a tensor in a checkpoint is.
    pub enum TensorRole {
        Weight => ("weight", "weights and biases"),
        Packed => ("packed", "packed quantized weights"),
        Scale => ("scale", "scales"),
        ZeroPoint => ("zero", "zero points"),
        GroupIndex => ("g_idx", "group indices"),
        QuantState => ("state", "quantization state"),
        Buffer => ("buffer", "buffers (not parameters)"),
    }
}

named_enum! {
    /// How the checkpoint's linear weights are stored.
    pub enum QuantScheme {
        Plain => ("plain", "plain floats"),
        Gptq => ("gptq", "GPTQ"),
        Awq => ("awq", "AWQ"),
        Fp8 => ("fp8", "FP8"),
        Bnb4 => ("bnb4", "bitsandbytes 4-bit"),
        Bnb4Nested => ("bnb4dq", "bitsandbytes 4-bit, double quant"),
        Bnb4Fp4 => ("bnbfp4", "bitsandbytes FP4"),
        Bnb4Fp4Nested => ("bnbfp4dq", "bitsandbytes FP4, double quant"),
        Bnb8 => ("bnb8", "bitsandbytes LLM.int8"),
        Mxfp4 => ("mxfp4", "MXFP4 blocks and scales"),
        Nvfp4 => ("nvfp4", "NVFP4"),
    }
}

/// Bytes and tensors of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub tensors: u64,
    pub bytes: u64,
}

impl Tally {
    fn add(&mut self, bytes: u64) {
        self.tensors += 1;
        self.bytes = self.bytes.saturating_add(bytes);
    }
}

/// What the safetensors files hold, summed over every shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileWeights {
    pub total: Tally,
    /// Per element type, in [`SafeDtype::ALL`] order; types not present are left out.
    pub by_dtype: Vec<(SafeDtype, Tally)>,
    /// Per role, in [`TensorRole::ALL`] order; roles not present are left out.
    pub by_role: Vec<(TensorRole, Tally)>,
    pub scheme: QuantScheme,
    /// Parameters: elements of weights, packed weights unpacked (8 int4 per int32, 2 per uint8).
    pub params: u64,
    /// Bits per weight that GPTQ/AWQ packed into each int32 (from quantization_config.bits).
    pub(crate) packed_bits: u64,
}

impl FileWeights {
    /// Bytes of tensors that are not buffers: what a framework loads onto the GPU.
    pub fn weight_bytes(&self) -> u64 {
        self.total.bytes - self.role(TensorRole::Buffer).bytes
    }

    pub fn role(&self, role: TensorRole) -> Tally {
        self.by_role
            .iter()
            .find(|(r, _)| *r == role)
            .map_or(Tally::default(), |(_, t)| *t)
    }

    /// The engine's weight format the files are stored in, when one matches.
    pub fn stored_format(&self) -> Option<WeightFormat> {
        match self.scheme {
            QuantScheme::Plain => match self.dominant_weight_dtype()? {
                SafeDtype::Bf16 | SafeDtype::F16 => Some(WeightFormat::Bf16),
                SafeDtype::F32 => Some(WeightFormat::Fp32),
                _ => None,
            },
            QuantScheme::Gptq => match self.packed_bits {
                8 => Some(WeightFormat::Gptq8),
                4 => Some(WeightFormat::Gptq4),
                3 => Some(WeightFormat::Gptq3),
                _ => None,
            },
            QuantScheme::Awq => (self.packed_bits == 4).then_some(WeightFormat::Awq4),
            QuantScheme::Fp8 => Some(WeightFormat::Fp8),
            QuantScheme::Bnb4 => Some(WeightFormat::Nf4),
            QuantScheme::Bnb4Nested => Some(WeightFormat::Nf4Dq),
            QuantScheme::Bnb4Fp4 => Some(WeightFormat::Fp4),
            QuantScheme::Bnb4Fp4Nested => Some(WeightFormat::Fp4Dq),
            QuantScheme::Bnb8 => Some(WeightFormat::Int8),
            QuantScheme::Mxfp4 => Some(WeightFormat::Mxfp4),
            QuantScheme::Nvfp4 => Some(WeightFormat::Nvfp4),
        }
    }

    /// The float type holding most bytes among plain weights.
    fn dominant_weight_dtype(&self) -> Option<SafeDtype> {
        self.by_dtype
            .iter()
            .filter(|(d, _)| d.is_float())
            .max_by_key(|(_, t)| t.bytes)
            .map(|(d, _)| *d)
    }
}

/// The role of a tensor from its name (and dtype, for bitsandbytes' packed uint8 weights).
pub fn tensor_role(name: &str, dtype: SafeDtype, scheme: QuantScheme) -> TensorRole {
    let last = name.rsplit('.').next().unwrap_or(name);
    if name.contains(".quant_state.") || last == "quant_map" || last == "nested_quant_map" {
        return TensorRole::QuantState;
    }
    match last {
        "qweight" => TensorRole::Packed,
        "qzeros" => TensorRole::ZeroPoint,
        "g_idx" => TensorRole::GroupIndex,
        "scales"
        | "weight_scale"
        | "input_scale"
        | "weight_scale_inv"
        | "absmax"
        | "nested_absmax"
        | "SCB"
        | "weight_scale_2"
        | "weight_global_scale"
        | "input_global_scale" => TensorRole::Scale,
        // rotary frequencies and causal masks that older exporters saved with the weights
        "inv_freq" | "masked_bias" => TensorRole::Buffer,
        // compressed-tensors names NVFP4's packed weights `weight_packed`
        "weight" | "weight_packed" if dtype == SafeDtype::U8 && packs_two_a_byte(scheme) => {
            TensorRole::Packed
        }
        // gpt-oss's experts: `gate_up_proj_blocks` (two e2m1 a byte) and `gate_up_proj_scales`
        _ if scheme == QuantScheme::Mxfp4 && last.ends_with("_blocks") => TensorRole::Packed,
        _ if scheme == QuantScheme::Mxfp4 && last.ends_with("_scales") => TensorRole::Scale,
        _ => TensorRole::Weight,
    }
}

/// Schemes whose packed weights are uint8 bytes of two 4-bit values.
fn packs_two_a_byte(scheme: QuantScheme) -> bool {
    matches!(
        scheme,
        QuantScheme::Bnb4
            | QuantScheme::Bnb4Nested
            | QuantScheme::Bnb4Fp4
            | QuantScheme::Bnb4Fp4Nested
            | QuantScheme::Mxfp4
            | QuantScheme::Nvfp4
    )
}

/// The scheme the tensor names show.
pub fn quant_scheme<'a>(tensors: impl Iterator<Item = &'a SafeTensor> + Clone) -> QuantScheme {
    let ends = |suffix: &str| tensors.clone().any(|t| t.name().ends_with(suffix));
    let contains = |part: &str| tensors.clone().any(|t| t.name().contains(part));
    let fp4 = contains(".quant_state.bitsandbytes__fp4");
    if ends(".nested_absmax") && fp4 {
        QuantScheme::Bnb4Fp4Nested
    } else if ends(".nested_absmax") {
        QuantScheme::Bnb4Nested
    } else if fp4 {
        QuantScheme::Bnb4Fp4
    } else if ends(".absmax") || contains(".quant_state.bitsandbytes__") {
        QuantScheme::Bnb4
    } else if ends("_blocks") && ends("_scales") {
        QuantScheme::Mxfp4
    } else if ends(".weight_scale_2") || ends(".weight_global_scale") {
        QuantScheme::Nvfp4
    } else if ends(".SCB") {
        QuantScheme::Bnb8
    } else if ends(".qweight") {
        if ends(".g_idx") {
            QuantScheme::Gptq
        } else {
            QuantScheme::Awq
        }
    } else if tensors.clone().any(|t| t.dtype().is_fp8()) {
        QuantScheme::Fp8
    } else {
        QuantScheme::Plain
    }
}

/// Sums every tensor of a checkpoint by type and role; `packed_bits` is the GPTQ/AWQ bit width
/// (quantization_config.bits, 4 when the config does not say).
pub(crate) fn size_weights<'a>(
    tensors: impl Iterator<Item = &'a SafeTensor> + Clone,
    packed_bits: u64,
) -> FileWeights {
    let scheme = quant_scheme(tensors.clone());
    let mut total = Tally::default();
    let mut dtypes = vec![Tally::default(); SafeDtype::ALL.len()];
    let mut roles = vec![Tally::default(); TensorRole::ALL.len()];
    let mut params: u64 = 0;
    for t in tensors {
        let role = tensor_role(t.name(), t.dtype(), scheme);
        total.add(t.bytes());
        dtypes[t.dtype().index()].add(t.bytes());
        roles[role.index()].add(t.bytes());
        // a packed word holds its bits ÷ the packed bits weights (3-bit GPTQ: 32 in three int32)
        let unpacked = match role {
            TensorRole::Weight => t.elements(),
            TensorRole::Packed if packs_two_a_byte(scheme) => t.elements().saturating_mul(2),
            TensorRole::Packed => {
                t.elements().saturating_mul(t.dtype().bits()) / packed_bits.clamp(1, 32)
            }
            _ => 0,
        };
        params = params.saturating_add(unpacked);
    }
    FileWeights {
        total,
        by_dtype: present(SafeDtype::ALL, dtypes),
        by_role: present(TensorRole::ALL, roles),
        scheme,
        params,
        packed_bits,
    }
}

/// The kinds that occur, with their tallies, in the kinds' order.
fn present<T: Copy>(all: &[T], tallies: Vec<Tally>) -> Vec<(T, Tally)> {
    all.iter()
        .copied()
        .zip(tallies)
        .filter(|(_, t)| t.tensors > 0)
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::safetensors::header::read_header_json;

    /// A header of (name, dtype, shape) laid end to end, each tensor in whole bytes.
    pub(in crate::safetensors) fn header(tensors: &[(&str, &str, &[u64])]) -> Vec<SafeTensor> {
        let mut offset = 0;
        let entries: Vec<String> = tensors
            .iter()
            .map(|(name, dtype, shape)| {
                let bits = SafeDtype::from_header(dtype).unwrap().bits();
                let end = offset + (shape.iter().product::<u64>() * bits).div_ceil(8);
                let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
                let e = format!(
                    "{name:?}:{{\"dtype\":{dtype:?},\"shape\":[{}],\"data_offsets\":[{offset},{end}]}}",
                    dims.join(",")
                );
                offset = end;
                e
            })
            .collect();
        let json = format!("{{{}}}", entries.join(","));
        read_header_json(json.as_bytes())
            .unwrap()
            .tensors()
            .to_vec()
    }

    #[test]
    fn double_quantized_nf4_is_recognised_by_its_nested_absmax() {
        let n = 4_096 * 4_096;
        let ts = header(&[
            ("l.weight", "U8", &[n / 2, 1]),
            ("l.weight.absmax", "U8", &[n / 64]),
            ("l.weight.nested_absmax", "F32", &[n / 64 / 256]),
            ("l.weight.nested_quant_map", "F32", &[256]),
            ("l.weight.quant_map", "F32", &[16]),
            ("l.weight.quant_state.bitsandbytes__nf4", "U8", &[120]),
        ]);
        let w = size_weights(ts.iter(), 4);
        assert_eq!(w.scheme, QuantScheme::Bnb4Nested);
        assert_eq!(w.stored_format(), Some(WeightFormat::Nf4Dq));
        assert_eq!(w.params, n);
        assert_eq!(w.role(TensorRole::Packed).bytes, n / 2);
        assert_eq!(w.role(TensorRole::QuantState).tensors, 3);
    }

    #[test]
    fn llm_int8_checkpoints_are_recognised_by_their_row_scales() {
        let ts = header(&[("l.weight", "I8", &[64, 128]), ("l.SCB", "F32", &[64])]);
        let w = size_weights(ts.iter(), 4);
        assert_eq!(w.scheme, QuantScheme::Bnb8);
        assert_eq!(w.stored_format(), Some(WeightFormat::Int8));
        assert_eq!(w.params, 64 * 128);
        assert_eq!(w.weight_bytes(), 64 * 128 + 64 * 4);
    }

    #[test]
    fn rotary_buffers_are_not_parameters_nor_weight_bytes() {
        let ts = header(&[
            ("l.weight", "F16", &[8, 8]),
            ("l.rotary_emb.inv_freq", "F32", &[64]),
        ]);
        let w = size_weights(ts.iter(), 4);
        assert_eq!(w.params, 64);
        assert_eq!(w.total.bytes, 128 + 256);
        assert_eq!(w.weight_bytes(), 128);
        assert_eq!(w.role(TensorRole::Buffer).tensors, 1);
    }

    #[test]
    fn eight_bit_gptq_unpacks_four_weights_a_word_and_is_gptq8() {
        let ts = header(&[
            ("l.qweight", "I32", &[32, 64]),
            ("l.qzeros", "I32", &[1, 16]),
            ("l.scales", "F16", &[1, 64]),
            ("l.g_idx", "I32", &[128]),
        ]);
        let w = size_weights(ts.iter(), 8);
        assert_eq!(w.scheme, QuantScheme::Gptq);
        assert_eq!(w.params, 128 * 64);
        assert_eq!(w.stored_format(), Some(WeightFormat::Gptq8));
    }

    #[test]
    fn three_bit_gptq_unpacks_thirty_two_weights_from_three_words() {
        // AutoGPTQ packs 3-bit weights across word boundaries: 128 input rows in 12 int32 rows
        let ts = header(&[
            ("l.qweight", "I32", &[12, 64]),
            ("l.qzeros", "I32", &[1, 6]),
            ("l.scales", "F16", &[1, 64]),
            ("l.g_idx", "I32", &[128]),
        ]);
        let w = size_weights(ts.iter(), 3);
        assert_eq!(w.params, 128 * 64);
        assert_eq!(w.stored_format(), Some(WeightFormat::Gptq3));
    }

    #[test]
    fn five_bit_gptq_matches_no_format() {
        let ts = header(&[("l.qweight", "I32", &[20, 64]), ("l.g_idx", "I32", &[128])]);
        assert_eq!(size_weights(ts.iter(), 5).stored_format(), None);
    }
}
