//! The page's few lines of JavaScript, in one snippet (one file the page imports at start): the
//! loader of the on-demand modules (`crate::readers`).

use js_sys::Promise;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
const loading = {};
export function load_module(meta) {
  if (!loading[meta]) {
    const name = document.querySelector(`meta[name="${meta}"]`).content;
    loading[meta] = import(new URL(name, document.baseURI).href)
      .then((m) => m.default().then(() => m))
      .catch((e) => { delete loading[meta]; throw e; });
  }
  return loading[meta];
}
export function export_of(meta, name) {
  return load_module(meta).then((m) => m[name]);
}
"#)]
extern "C" {
    /// Imports the module named in `<meta name="{meta}">` once; the same promise after that.
    pub fn load_module(meta: &str) -> Promise;
    /// A promise of the export `name` of that module, the module loaded first.
    pub fn export_of(meta: &str, name: &str) -> Promise;
}
