//! Number formats: weights (plain and quantized, with their real bits per weight), KV cache, compute.

use crate::named::named_enum;

named_enum! {
    /// How the model's weights are stored. Ordered from the most to the fewest bits.
    pub enum WeightFormat {
        Fp32 => ("fp32", "fp32"),
        Bf16 => ("bf16", "bf16 / fp16"),
        GgufQ8_0 => ("q8_0", "GGUF Q8_0"),
        Gptq8 => ("gptq8", "GPTQ int8 g128"),
        Int8 => ("int8", "int8 (LLM.int8)"),
        Fp8 => ("fp8", "fp8 (e4m3)"),
        GgufQ6K => ("q6_k", "GGUF Q6_K"),
        GgufQ5KM => ("q5_k_m", "GGUF Q5_K_M"),
        GgufQ4KM => ("q4_k_m", "GGUF Q4_K_M"),
        Nf4 => ("nf4", "NF4 (bitsandbytes)"),
        Fp4 => ("fp4", "FP4 (bitsandbytes)"),
        Nvfp4 => ("nvfp4", "NVFP4 (e2m1, fp8 scale / 16)"),
        Mxfp4 => ("mxfp4", "MXFP4 (e2m1, e8m0 scale / 32)"),
        Gptq4 => ("gptq4", "GPTQ int4 g128"),
        Awq4 => ("awq4", "AWQ int4 g128"),
        Nf4Dq => ("nf4dq", "NF4 + double quant"),
        Fp4Dq => ("fp4dq", "FP4 + double quant"),
        GgufQ3KM => ("q3_k_m", "GGUF Q3_K_M"),
        GgufQ2K => ("q2_k", "GGUF Q2_K"),
        Gptq3 => ("gptq3", "GPTQ int3 g128"),
    }
}

/// Bits per weight as an exact fraction `num / den`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits {
    pub num: u64,
    pub den: u64,
}

impl Bits {
    pub const fn new(num: u64, den: u64) -> Bits {
        Bits { num, den }
    }

    /// Bytes for `count` weights, rounded up.
    pub fn bytes(self, count: u64) -> u64 {
        let bits = count as u128 * self.num as u128;
        let den = self.den as u128 * 8;
        bits.div_ceil(den).min(u64::MAX as u128) as u64
    }

    pub fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl WeightFormat {
    /// Bits per weight of the quantized (linear-layer) weights, including scales and zero points.
    pub fn bits(self) -> Bits {
        match self {
            WeightFormat::Fp32 => Bits::new(32, 1),
            WeightFormat::Bf16 => Bits::new(16, 1),
            // per-row scales are negligible next to 8 bits a weight
            WeightFormat::Fp8 => Bits::new(8, 1),
            // LLM.int8: int8 weights + one fp32 scale per output row (~0.008 bits at 4096 columns)
            WeightFormat::Int8 => Bits::new(8 * 4096 + 32, 4096),
            // bitsandbytes 4-bit (NF4 and FP4 alike: only the 16-entry code differs): 4 bits + one
            // fp32 absmax per 64 weights
            WeightFormat::Nf4 | WeightFormat::Fp4 => Bits::new(9, 2),
            // + double quant: the absmax to 8 bits, one fp32 absmax per 256 of them: 4 + 8/64 + 32/(64*256)
            WeightFormat::Nf4Dq | WeightFormat::Fp4Dq => Bits::new(2113, 512),
            // NVFP4 (modelopt / compressed-tensors): e2m1 + one fp8 e4m3 scale per 16 (the per-tensor
            // fp32 global scales are 64 bits a matrix, left out)
            WeightFormat::Nvfp4 => Bits::new(4 * 16 + 8, 16),
            // MXFP4 (OCP microscaling, gpt-oss): e2m1 + one e8m0 scale byte per 32
            WeightFormat::Mxfp4 => Bits::new(4 * 32 + 8, 32),
            // GPTQ b-bit, group 128: qweight b bits, per group an fp16 scale and a b-bit zero point
            // (qzeros), + an int32 g_idx per input row (~32/4096 = 1/128 bit a weight)
            WeightFormat::Gptq8 => Bits::new(8 * 128 + 16 + 8 + 1, 128),
            WeightFormat::Gptq4 => Bits::new(4 * 128 + 16 + 4 + 1, 128),
            WeightFormat::Gptq3 => Bits::new(3 * 128 + 16 + 3 + 1, 128),
            WeightFormat::Awq4 => Bits::new(4 * 128 + 20, 128),
            // GGUF: effective bits of llama.cpp's mixes on a 7B Llama (k-quant block tables)
            WeightFormat::GgufQ8_0 => Bits::new(17, 2),
            WeightFormat::GgufQ6K => Bits::new(105, 16),
            WeightFormat::GgufQ5KM => Bits::new(569, 100),
            WeightFormat::GgufQ4KM => Bits::new(485, 100),
            WeightFormat::GgufQ3KM => Bits::new(391, 100),
            WeightFormat::GgufQ2K => Bits::new(335, 100),
        }
    }

    /// Whether the format is a quantization (as opposed to a plain float the model trains in).
    pub fn is_quantized(self) -> bool {
        !matches!(self, WeightFormat::Fp32 | WeightFormat::Bf16)
    }

    /// Bits of the embeddings and the head under this format.
    pub fn embedding_bits(self) -> Bits {
        match self {
            WeightFormat::Fp32 => Bits::new(32, 1),
            WeightFormat::GgufQ8_0 => self.bits(),
            // llama.cpp keeps embeddings and the output head at Q6_K in its k-quant mixes
            WeightFormat::GgufQ6K
            | WeightFormat::GgufQ5KM
            | WeightFormat::GgufQ4KM
            | WeightFormat::GgufQ3KM
            | WeightFormat::GgufQ2K => WeightFormat::GgufQ6K.bits(),
            _ => Bits::new(16, 1),
        }
    }

    /// Bytes per element of the compute dtype used with these weights (activations, logits).
    pub fn compute_bytes(self) -> u64 {
        match self {
            WeightFormat::Fp32 => 4,
            _ => 2,
        }
    }

    /// Whether the library quantizes the 16-bit checkpoint while loading it (bitsandbytes), rather
    /// than loading weights that were quantized ahead of time (GPTQ, AWQ, GGUF, fp8 checkpoints).
    /// For a bitsandbytes 4-bit format, whether its block scales are quantized again (double
    /// quantization); None for every other format.
    pub fn bnb_4bit_double_quant(self) -> Option<bool> {
        match self {
            WeightFormat::Nf4 | WeightFormat::Fp4 => Some(false),
            WeightFormat::Nf4Dq | WeightFormat::Fp4Dq => Some(true),
            _ => None,
        }
    }

    pub fn quantizes_on_load(self) -> bool {
        matches!(
            self,
            WeightFormat::Int8
                | WeightFormat::Nf4
                | WeightFormat::Nf4Dq
                | WeightFormat::Fp4
                | WeightFormat::Fp4Dq
        )
    }
}

named_enum! {
    /// Data type of the KV cache.
    pub enum KvDtype {
        Bf16 => ("bf16", "bf16 / fp16"),
        Fp8 => ("fp8", "fp8"),
        Int8 => ("int8", "int8"),
        Int4 => ("int4", "int4"),
        Fp32 => ("fp32", "fp32"),
    }
}

impl KvDtype {
    /// Bits per cached element.
    pub fn bits(self) -> u64 {
        match self {
            KvDtype::Fp32 => 32,
            KvDtype::Bf16 => 16,
            KvDtype::Fp8 | KvDtype::Int8 => 8,
            KvDtype::Int4 => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nf4_with_double_quant_is_about_4_127_bits_not_4() {
        let b = WeightFormat::Nf4Dq.bits().as_f64();
        assert!((b - 4.127).abs() < 0.001, "{b}");
        assert_eq!(WeightFormat::Nf4.bits().as_f64(), 4.5);
    }

    #[test]
    fn gguf_q4_k_m_is_about_4_85_bits() {
        assert!((WeightFormat::GgufQ4KM.bits().as_f64() - 4.85).abs() < 1e-9);
    }

    #[test]
    fn formats_are_ordered_from_most_to_fewest_bits() {
        let bits: Vec<f64> = WeightFormat::ALL
            .iter()
            .map(|f| f.bits().as_f64())
            .collect();
        assert!(bits.windows(2).all(|w| w[0] >= w[1]), "{bits:?}");
    }

    #[test]
    fn bytes_round_up_to_whole_bytes() {
        assert_eq!(Bits::new(4, 1).bytes(3), 2);
        assert_eq!(Bits::new(16, 1).bytes(1_000), 2_000);
    }
}
