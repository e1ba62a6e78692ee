//! The element types a safetensors header names, and their bits per element.

use crate::named::named_enum;

named_enum! {
    /// A tensor's element type, spelled as in the safetensors header (`Dtype` in the spec).
    pub enum SafeDtype {
        Bool => ("BOOL", "bool"),
        F4 => ("F4", "fp4 (e2m1)"),
        F6E2M3 => ("F6_E2M3", "fp6 (e2m3)"),
        F6E3M2 => ("F6_E3M2", "fp6 (e3m2)"),
        U8 => ("U8", "uint8"),
        I8 => ("I8", "int8"),
        F8E5M2 => ("F8_E5M2", "fp8 (e5m2)"),
        F8E4M3 => ("F8_E4M3", "fp8 (e4m3)"),
        F8E8M0 => ("F8_E8M0", "fp8 (e8m0 scale)"),
        I16 => ("I16", "int16"),
        U16 => ("U16", "uint16"),
        F16 => ("F16", "fp16"),
        Bf16 => ("BF16", "bf16"),
        I32 => ("I32", "int32"),
        U32 => ("U32", "uint32"),
        F32 => ("F32", "fp32"),
        F64 => ("F64", "fp64"),
        I64 => ("I64", "int64"),
        U64 => ("U64", "uint64"),
    }
}

impl SafeDtype {
    /// Bits per element (safetensors' `Dtype::bitsize`).
    pub const fn bits(self) -> u64 {
        match self {
            SafeDtype::F4 => 4,
            SafeDtype::F6E2M3 | SafeDtype::F6E3M2 => 6,
            SafeDtype::Bool | SafeDtype::U8 | SafeDtype::I8 => 8,
            SafeDtype::F8E5M2 | SafeDtype::F8E4M3 | SafeDtype::F8E8M0 => 8,
            SafeDtype::I16 | SafeDtype::U16 | SafeDtype::F16 | SafeDtype::Bf16 => 16,
            SafeDtype::I32 | SafeDtype::U32 | SafeDtype::F32 => 32,
            SafeDtype::F64 | SafeDtype::I64 | SafeDtype::U64 => 64,
        }
    }

    /// Whether the type is a float a model computes in (not a packed integer or a scale type).
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            SafeDtype::F16 | SafeDtype::Bf16 | SafeDtype::F32 | SafeDtype::F64
        )
    }

    /// Whether the type is an 8-bit float (FP8 checkpoints' weights).
    pub const fn is_fp8(self) -> bool {
        matches!(self, SafeDtype::F8E4M3 | SafeDtype::F8E5M2)
    }

    /// The type named exactly as in a header (case-sensitive, as the spec writes it).
    pub fn from_header(name: &str) -> Option<SafeDtype> {
        Self::ALL.iter().copied().find(|d| d.key() == name)
    }
}
