//! The words of vram-budget, in English and Chinese. The engine returns data (numbers, typed
//! errors, notices, settings by id, formula clauses by message id, moments); the page and the CLI
//! render them through this crate, so both shells say the same thing and a new setting's words
//! are written once.
//!
//! The Chinese of the largest tables (the page's texts, the settings' labels and help, the
//! formulas' sentences) is written `zh!("…")`: the page's wasm leaves it out and loads it on
//! demand (`zh.rs`); write a new entry of those tables the same way.
//!
//! ```
//! use vram_text::{error, formula, Lang};
//! let e = vram_engine::EngineError::TpDoesNotDivide { gpus: 6, tp: 4 };
//! assert_eq!(
//!     error(Lang::En, &e),
//!     "6 GPUs cannot be split into tensor-parallel groups of 4"
//! );
//! let f = vram_engine::memory::Formula::of(vram_engine::memory::Msg::Context, &[vram_engine::memory::Arg::Int(1024)]);
//! assert_eq!(
//!     formula(Lang::En, &f, vram_engine::Unit::Gib),
//!     "1024 MiB (CUDA context, cuBLAS/NCCL workspaces; edit under advanced)"
//! );
//! ```

mod answers;
mod band;
mod choices;
mod errors;
mod formulas;
mod hub;
mod hub_box;
mod hub_read;
mod llamacpp;
mod measured;
mod names;
mod page;
mod report;
mod settings;
mod training;
mod zh;

pub use answers::{
    answer, budget_equation, question, sglang_budget_equation, start_refusal, startup_concurrency,
};
pub use band::{band_family, band_group, band_level, borderline, borderline_why, error_band};
pub use choices::choice_label;
pub use errors::{error, notice, refusal, repair};
pub use formulas::{formula, moment, sentence};
pub use hub::{fetch_failure, file_difference, hub_error, index_error, safetensors_error};
pub use hub_box::hub_box_text;
pub use hub_read::{
    gguf_listed, gguf_read, gguf_unread, hub_read_error, hub_summary, no_weight_files,
};
pub use llamacpp::{llama_device, llama_error, llama_word, LlamaWord};
pub use measured::{level_name, level_note, measure_error, reading_note, source_name};
pub use names::{
    attention, batching, ckpt, component, component_doc, cuda_graphs, dp_framework, framework, job,
    loss, machine, offload, optimizer, pipeline_schedule, remedy, spec_method, split_mode,
    vllm_version, weights_load, zero,
};
pub use page::page_text;
pub use report::report_text;
pub use settings::{setting_help, setting_label, setting_name};
pub use training::{step_tokens_text, training_basis};
pub use zh::{install_zh, zh_ready, zh_table, ZhTable};

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

/// A row of a words table: (key, English, Chinese).
pub(crate) type Row = (&'static str, &'static str, &'static str);

/// The row of `table` for `key`.
pub(crate) fn row(table: &'static [Row], key: &str) -> Option<&'static Row> {
    table.iter().find(|r| r.0 == key)
}

/// Text that goes into SVG or HTML markup as text, never as markup (the page and the on-demand
/// modules render with it).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Text a user typed or a file held, made safe to show on one line: control characters escaped
/// as Rust writes them (`\n`, `\t`, `\r`, `\u{1b}`). Written here rather than with
/// `char::escape_debug`, which links Unicode's printable tables into the first load.
pub fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// `text` shown (see [`shown`]) between double quotes, as a setting's value is quoted in a notice.
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", shown(text))
}

#[cfg(test)]
mod shown_tests {
    use super::*;

    #[test]
    fn shown_text_escapes_control_characters_as_rust_does_and_keeps_the_rest() {
        for text in [
            "a\nb",
            "tab\there",
            "\r",
            "esc\u{1b}[0m",
            "\u{7f}",
            "plain",
            "汉字 ü",
        ] {
            let rust: String = text
                .chars()
                .map(|c| {
                    if c.is_control() {
                        c.escape_debug().to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect();
            assert_eq!(shown(text), rust, "{text:?}");
        }
        assert_eq!(quoted("0"), "\"0\"");
    }
}
