//! The words of vram-budget, in English and Chinese. The engine returns data (numbers, formula
//! clauses by message id, moments); the page and the CLI render them through this crate, so both
//! shells say the same thing.
//!
//! ```
//! use vram_text::{formula, Lang};
//! let f = vram_engine::Formula::of(vram_engine::Msg::Context, &[vram_engine::Arg::Int(1024)]);
//! assert_eq!(
//!     formula(Lang::En, &f, vram_engine::Unit::Gib),
//!     "1024 MiB (CUDA context, cuBLAS/NCCL workspaces; edit under advanced)"
//! );
//! ```

mod formulas;

pub use formulas::{formula, moment, sentence};

/// The languages the product speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    En,
    Zh,
}

impl Lang {
    /// The key in links (`lang=zh`).
    pub fn key(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// The language with link key `k`.
    pub fn from_key(k: &str) -> Option<Lang> {
        match k {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The English or the Chinese of a pair.
    pub fn pick<T>(self, en: T, zh: T) -> T {
        match self {
            Lang::En => en,
            Lang::Zh => zh,
        }
    }
}
