//! The Chinese of the largest tables, on demand: the page's fixed texts (`page.rs`), the
//! settings' labels and help (`settings.rs`), the formulas' sentences
//! (`formulas/sentences.rs`) and the choices' names (`names.rs`). Each of their Chinese entries
//! is written `zh!("…")`.
//!
//! - Built as usual (the CLI, the tests, the on-demand modules), `zh!` is the literal.
//! - Built with the feature `zh-on-demand` (the page's wasm, `Cargo.toml`), `zh!` is empty, so
//!   the first load carries none of that Chinese. The page imports the `crates/zh` module when
//!   Chinese is first asked for; its one export is [`zh_table`], which the page hands to
//!   [`install_zh`] before it switches language.
//!
//! [`Lang::text`] reads an entry: English as written, Chinese as written or, where the build left
//! it empty, from the installed table by its English (English until the table is installed).

use std::sync::OnceLock;

use crate::Lang;

/// An entry's Chinese: the literal, or nothing in a build whose Chinese loads on demand.
#[cfg(not(feature = "zh-on-demand"))]
#[macro_export]
macro_rules! zh {
    ($chinese:literal) => {
        $chinese
    };
}

/// An entry's Chinese: the literal, or nothing in a build whose Chinese loads on demand.
#[cfg(feature = "zh-on-demand")]
#[macro_export]
macro_rules! zh {
    ($chinese:literal) => {
        ""
    };
}

/// Ends each entry of [`zh_table`].
const END: char = '\0';

/// The key of an English text in [`zh_table`]: its 32-bit FNV-1a hash (a test checks that no two
/// English texts of the tables share one). The module's table carries keys, not the English.
pub const fn key_of(en: &str) -> u32 {
    let bytes = en.as_bytes();
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ bytes[i] as u32).wrapping_mul(0x0100_0193);
        i += 1;
    }
    hash
}

/// A table's (key of the English, Chinese) pairs, computed while compiling: only `zh_table` (the
/// module's export) reads them, so the English stays out of the module.
macro_rules! keyed {
    ($table:expr) => {{
        const N: usize = $table.len();
        const KEYED: [(u32, &str); N] = {
            let mut out = [(0, ""); N];
            let mut i = 0;
            while i < N {
                out[i] = (key_of($table[i].1), $table[i].2);
                i += 1;
            }
            out
        };
        &KEYED
    }};
}

/// Every (key, Chinese) pair of the on-demand tables, sorted by key, each once.
fn keyed_pairs() -> Vec<(u32, &'static str)> {
    let tables: [&[(u32, &str)]; 5] = [
        keyed!(crate::page::PAGE),
        keyed!(crate::training::TRAINING),
        keyed!(crate::settings::LABELS),
        keyed!(crate::settings::HELP),
        keyed!(crate::formulas::SENTENCES),
    ];
    let mut all: Vec<(u32, &'static str)> = tables.concat();
    // the choices' names: their English is the engine's label, read at run time
    all.extend(
        crate::names::enumerated_pairs()
            .into_iter()
            .map(|(en, zh)| (key_of(en), zh)),
    );
    all.sort_unstable();
    all.dedup();
    all
}

/// The on-demand tables' Chinese as one string for [`install_zh`]: per English text, its key in
/// eight hex digits and its Chinese, in increasing key order, each entry ended by a NUL.
pub fn zh_table() -> String {
    let mut out = String::new();
    for (key, zh) in keyed_pairs() {
        // the eight hex digits written out: the module needs no formatting code
        for shift in (0..8).rev() {
            out.push(char::from(
                b"0123456789abcdef"[(key >> (4 * shift)) as usize & 15],
            ));
        }
        out.push_str(zh);
        out.push(END);
    }
    out
}

/// A table read back: (key, Chinese) pairs in strictly increasing key order.
pub struct ZhTable(Vec<(u32, &'static str)>);

impl ZhTable {
    /// The table in [`zh_table`]'s form, or None when it is not (an entry without its key or its
    /// Chinese, keys out of order).
    pub fn read(text: &'static str) -> Option<ZhTable> {
        let mut pairs = Vec::new();
        for entry in text.strip_suffix(END)?.split(END) {
            let (key, zh) = (entry.get(..8)?, entry.get(8..)?);
            let key = u32::from_str_radix(key, 16).ok()?;
            if zh.is_empty() || pairs.last().is_some_and(|(k, _)| *k >= key) {
                return None;
            }
            pairs.push((key, zh));
        }
        Some(ZhTable(pairs))
    }

    /// The Chinese of the English text `en`.
    pub fn get(&self, en: &str) -> Option<&'static str> {
        let key = key_of(en);
        let i = self.0.binary_search_by(|p| p.0.cmp(&key)).ok()?;
        Some(self.0[i].1)
    }
}

static INSTALLED: OnceLock<ZhTable> = OnceLock::new();

/// Installs the table the `crates/zh` module gave; false when it is not a table. Kept for the
/// life of the page (read on every Chinese render).
pub fn install_zh(text: String) -> bool {
    let text: &'static str = Box::leak(text.into_boxed_str());
    match ZhTable::read(text) {
        // a second table (two clicks while the first loaded) is the same table: keep the first
        Some(table) => {
            let _ = INSTALLED.set(table);
            true
        }
        None => false,
    }
}

/// Whether Chinese can be shown now: always in a build that carries it, once installed in one
/// whose Chinese loads on demand.
pub fn zh_ready() -> bool {
    !cfg!(feature = "zh-on-demand") || INSTALLED.get().is_some()
}

/// The installed table's Chinese for `en`, else `en`.
fn installed(en: &'static str) -> &'static str {
    INSTALLED.get().and_then(|t| t.get(en)).unwrap_or(en)
}

impl Lang {
    /// An on-demand table's entry in this language: in a build that carries the Chinese, `zh`;
    /// in one whose Chinese loads on demand, the installed table's (`en` until it is installed).
    pub fn text(self, en: &'static str, zh: &'static str) -> &'static str {
        match self {
            Lang::En => en,
            Lang::Zh if cfg!(feature = "zh-on-demand") => installed(en),
            Lang::Zh => zh,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (English, Chinese) pair of the on-demand tables, each once.
    fn pairs() -> Vec<(&'static str, &'static str)> {
        let mut all: Vec<(&'static str, &'static str)> = crate::page::PAGE
            .iter()
            .chain(crate::training::TRAINING)
            .chain(crate::settings::LABELS)
            .chain(crate::settings::HELP)
            .map(|(_, en, zh)| (*en, *zh))
            .chain(
                crate::formulas::SENTENCES
                    .iter()
                    .map(|(_, en, zh)| (*en, *zh)),
            )
            .chain(crate::names::enumerated_pairs())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    #[test]
    fn no_english_text_of_the_tables_has_two_chinese_ones_or_shares_a_key() {
        let all = pairs();
        let twice: Vec<_> = all.windows(2).filter(|w| w[0].0 == w[1].0).collect();
        assert!(twice.is_empty(), "{twice:?}");
        let mut keys: Vec<u32> = all.iter().map(|(en, _)| key_of(en)).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), all.len(), "two English texts share a key");
        assert!(all.len() > 300, "{}", all.len());
        assert_eq!(keyed_pairs().len(), all.len());
    }

    #[test]
    fn the_table_reads_back_to_every_pair_it_was_written_from() {
        let text: &'static str = Box::leak(zh_table().into_boxed_str());
        assert!(!text.contains("Sequence length"), "the English stays out");
        let table = ZhTable::read(text).expect("a table");
        for (en, zh) in pairs() {
            assert_eq!(table.get(en), Some(zh), "{en}");
        }
        assert_eq!(table.get("not a sentence of the tables"), None);
        assert_eq!(
            table.get(crate::page::page_text(Lang::En, "seq")),
            Some("序列长度")
        );
    }

    #[test]
    fn a_table_out_of_order_or_missing_a_key_or_a_chinese_text_is_refused() {
        let [a, b] = [key_of("a"), key_of("b")];
        let (lo, hi) = (a.min(b), a.max(b));
        assert!(ZhTable::read(Box::leak(
            format!("{hi:08x}乙\0{lo:08x}甲\0").into_boxed_str()
        ))
        .is_none());
        assert!(ZhTable::read(Box::leak(
            format!("{lo:08x}\0{hi:08x}乙\0").into_boxed_str()
        ))
        .is_none());
        assert!(ZhTable::read("1234乙\0").is_none());
        assert!(ZhTable::read("zzzzzzzz乙\0").is_none());
        assert!(ZhTable::read(Box::leak(format!("{lo:08x}甲").into_boxed_str())).is_none());
        let t = ZhTable::read(Box::leak(format!("{a:08x}甲\0").into_boxed_str())).expect("a table");
        assert_eq!((t.get("a"), t.get("b")), (Some("甲"), None));
    }

    #[test]
    fn an_installed_table_gives_the_chinese_of_an_english_text_or_else_the_english() {
        // no other test in this binary installs a table
        let en = crate::page::page_text(Lang::En, "seq");
        assert_eq!(installed(en), en);
        assert!(!install_zh("zzzzzzzz乙\0".into()));
        assert!(install_zh(zh_table()));
        assert_eq!(installed(en), "序列长度");
        assert_eq!(installed("no such text"), "no such text");
        // this build carries its Chinese: an entry reads as written
        assert_eq!(Lang::Zh.text(en, "序列"), "序列");
        assert_eq!(Lang::En.text(en, "序列"), en);
    }
}
