//! ggml's tensor types and their storage: `block_size` elements take `type_size` bytes.
//!
//! Figures from ggml's `type_traits` table (`ggml/src/ggml.c`) and the block structs it sizes
//! (`ggml/src/ggml-common.h`), llama.cpp commit 0c1e57098bba43ac29e6e3b677cdceebdd22334f (the one
//! llama-cpp-python 0.3.36 vendors). Ids are `enum ggml_type` in `ggml/include/ggml.h`.

/// A ggml tensor type as GGUF stores it (its numeric id is `enum ggml_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GgmlType {
    F32,
    F16,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q8_0,
    Q8_1,
    Q2K,
    Q3K,
    Q4K,
    Q5K,
    Q6K,
    Q8K,
    Iq2Xxs,
    Iq2Xs,
    Iq3Xxs,
    Iq1S,
    Iq4Nl,
    Iq3S,
    Iq2S,
    Iq4Xs,
    I8,
    I16,
    I32,
    I64,
    F64,
    Iq1M,
    Bf16,
    Tq1_0,
    Tq2_0,
    Mxfp4,
    Nvfp4,
    Q1_0,
    Q2_0,
}

impl GgmlType {
    /// Every type this reader knows, in id order.
    pub const ALL: [GgmlType; 35] = {
        use GgmlType::*;
        [
            F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1, Q2K, Q3K, Q4K, Q5K, Q6K, Q8K, Iq2Xxs,
            Iq2Xs, Iq3Xxs, Iq1S, Iq4Nl, Iq3S, Iq2S, Iq4Xs, I8, I16, I32, I64, F64, Iq1M, Bf16,
            Tq1_0, Tq2_0, Mxfp4, Nvfp4, Q1_0, Q2_0,
        ]
    };

    /// (id, ggml's name, elements per block, bytes per block).
    const fn traits(self) -> (u32, &'static str, u64, u64) {
        use GgmlType::*;
        match self {
            F32 => (0, "f32", 1, 4),
            F16 => (1, "f16", 1, 2),
            Q4_0 => (2, "q4_0", 32, 18),   // f16 d + 16 nibble bytes
            Q4_1 => (3, "q4_1", 32, 20),   // f16 d, m + 16
            Q5_0 => (6, "q5_0", 32, 22),   // f16 d + u32 high bits + 16
            Q5_1 => (7, "q5_1", 32, 24),   // f16 d, m + u32 + 16
            Q8_0 => (8, "q8_0", 32, 34),   // f16 d + 32 int8
            Q8_1 => (9, "q8_1", 32, 36),   // f16 d, s + 32 int8
            Q2K => (10, "q2_K", 256, 84),  // 2 f16 + 16 scales + 64 quants
            Q3K => (11, "q3_K", 256, 110), // f16 + 64 + 32 hmask + 12 scales
            Q4K => (12, "q4_K", 256, 144), // 2 f16 + 12 scales + 128
            Q5K => (13, "q5_K", 256, 176), // 2 f16 + 12 + 128 + 32
            Q6K => (14, "q6_K", 256, 210), // f16 + 16 scales + 192
            Q8K => (15, "q8_K", 256, 292), // f32 + 256 int8 + 16 int16 sums
            Iq2Xxs => (16, "iq2_xxs", 256, 66),
            Iq2Xs => (17, "iq2_xs", 256, 74),
            Iq3Xxs => (18, "iq3_xxs", 256, 98),
            Iq1S => (19, "iq1_s", 256, 50),
            Iq4Nl => (20, "iq4_nl", 32, 18),
            Iq3S => (21, "iq3_s", 256, 110),
            Iq2S => (22, "iq2_s", 256, 82),
            Iq4Xs => (23, "iq4_xs", 256, 136),
            I8 => (24, "i8", 1, 1),
            I16 => (25, "i16", 1, 2),
            I32 => (26, "i32", 1, 4),
            I64 => (27, "i64", 1, 8),
            F64 => (28, "f64", 1, 8),
            Iq1M => (29, "iq1_m", 256, 56),
            Bf16 => (30, "bf16", 1, 2),
            Tq1_0 => (34, "tq1_0", 256, 54), // f16 + 4 + 48 (five trits a byte)
            Tq2_0 => (35, "tq2_0", 256, 66), // f16 + 64
            Mxfp4 => (39, "mxfp4", 32, 17),  // e8m0 scale + 16
            Nvfp4 => (40, "nvfp4", 64, 36),  // 4 e4m3 scales + 32
            Q1_0 => (41, "q1_0", 128, 18),   // f16 + 16 sign bytes
            Q2_0 => (42, "q2_0", 64, 18),    // f16 + 16
        }
    }

    /// The type whose `enum ggml_type` value is `id`; ids ggml removed or never had give None.
    pub(crate) fn from_id(id: u32) -> Option<GgmlType> {
        Self::ALL.into_iter().find(|t| t.id() == id)
    }

    pub fn id(self) -> u32 {
        self.traits().0
    }

    /// ggml's own name (`ggml_type_name`), e.g. "q4_K".
    pub fn name(self) -> &'static str {
        self.traits().1
    }

    /// Elements per block (`blck_size`).
    pub fn block_size(self) -> u64 {
        self.traits().2
    }

    /// Bytes per block (`type_size`).
    pub(crate) fn type_size(self) -> u64 {
        self.traits().3
    }

    /// Whether ggml stores this type in blocks of more than one element.
    pub fn is_quantized(self) -> bool {
        self.block_size() > 1
    }

    /// Bytes of `elements` values, None when they are not whole blocks or the bytes overflow.
    pub fn bytes_for(self, elements: u64) -> Option<u64> {
        if !elements.is_multiple_of(self.block_size()) {
            return None;
        }
        (elements / self.block_size()).checked_mul(self.type_size())
    }
}
