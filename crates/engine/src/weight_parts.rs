//! Checkpoints whose parts are stored in different formats: gpt-oss keeps its experts in MXFP4
//! and attention in bf16, bitsandbytes skips the modules `llm_int8_skip_modules` names,
//! compressed-tensors leaves its `ignore` list 16-bit. One optional format per part overrides the
//! weights' format for that part.

use crate::dtype::WeightFormat;
use crate::named::named_enum;

named_enum! {
    /// A part of the model whose weights a checkpoint may store in a format of their own. The key
    /// is the part's link key.
    pub enum WeightPart {
        Embeddings => ("we", "embeddings"),
        Attention => ("wa", "attention"),
        Mlp => ("wx", "MLP / experts"),
        Head => ("wh", "output head"),
    }
}

/// The key a part's setting takes for "no format of its own": the part follows the weights'
/// format (embeddings and the head stay 16-bit, as before).
pub const PART_FOLLOWS: &str = "auto";

/// A format for each part that has one of its own; `None` follows the weights' format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartFormats([Option<WeightFormat>; 4]);

impl PartFormats {
    /// The format `part` has of its own, if any.
    pub fn get(self, part: WeightPart) -> Option<WeightFormat> {
        self.0[part.index()]
    }

    /// Gives `part` a format of its own (`Some`) or lets it follow the weights' format (`None`).
    pub fn set(&mut self, part: WeightPart, format: Option<WeightFormat>) {
        self.0[part.index()] = format;
    }

    /// `self` with `part` in `format`.
    pub fn with(mut self, part: WeightPart, format: WeightFormat) -> PartFormats {
        self.set(part, Some(format));
        self
    }

    /// Whether every part follows the weights' format.
    pub fn is_empty(self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// The parts with a format of their own.
    pub(crate) fn overridden(self) -> impl Iterator<Item = (WeightPart, WeightFormat)> {
        WeightPart::ALL
            .iter()
            .filter_map(move |p| self.get(*p).map(|f| (*p, f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_follows_the_weights_until_it_is_given_a_format() {
        let mut parts = PartFormats::default();
        assert!(parts.is_empty());
        parts = parts.with(WeightPart::Mlp, WeightFormat::Mxfp4);
        assert_eq!(parts.get(WeightPart::Mlp), Some(WeightFormat::Mxfp4));
        assert_eq!(parts.get(WeightPart::Attention), None);
        assert_eq!(
            parts.overridden().collect::<Vec<_>>(),
            [(WeightPart::Mlp, WeightFormat::Mxfp4)]
        );
        parts.set(WeightPart::Mlp, None);
        assert!(parts.is_empty());
    }
}
