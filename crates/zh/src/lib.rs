//! The on-demand Chinese module: one export, `table`, the Chinese of the tables the page's wasm
//! leaves out (`vram_text::zh_table`: every English text of those tables and its Chinese, sorted
//! by the English) as a `vram_messages::ZhTable`'s bytes, which the page installs with
//! `vram_text::install_zh` before it switches to Chinese (`src/zh.rs`). `scripts/size_budget.py`
//! gates it apart from the first load.

use vram_messages::{encode, ZhTable};
use wasm_bindgen::prelude::*;

/// The table, in `vram_text::zh_table`'s form, as a [`ZhTable`]'s bytes.
#[wasm_bindgen]
pub fn table() -> Vec<u8> {
    encode(&ZhTable(vram_text::zh_table()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_module_gives_a_table_the_page_can_install() {
        let table: vram_messages::ZhTable = vram_messages::decode(&super::table()).unwrap();
        let text: &'static str = Box::leak(table.0.into_boxed_str());
        let table = vram_text::ZhTable::read(text).expect("a table");
        assert_eq!(table.get("Sequence length"), Some("序列长度"));
    }
}
