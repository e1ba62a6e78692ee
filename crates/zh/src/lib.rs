//! The on-demand Chinese module: one export, `table`, the Chinese of the tables the page's wasm
//! leaves out (`vram_text::zh_table`: every English text of those tables and its Chinese, sorted
//! by the English), which the page installs with `vram_text::install_zh` before it switches to
//! Chinese (`src/zh.rs`). `scripts/size_budget.py` gates it apart from the first load.

use wasm_bindgen::prelude::*;

/// The table, in `vram_text::zh_table`'s form.
#[wasm_bindgen]
pub fn table() -> String {
    vram_text::zh_table()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_module_gives_a_table_the_page_can_install() {
        let text: &'static str = Box::leak(super::table().into_boxed_str());
        let table = vram_text::ZhTable::read(text).expect("a table");
        assert_eq!(table.get("Sequence length"), Some("序列长度"));
    }
}
