//! The page's few lines of JavaScript, in one snippet (one file the page imports at start): the
//! loader of the on-demand modules (`crate::readers`), the wait for the paint after a step
//! (`crate::later`) and two writes the patch makes in one call
//! where `web-sys` would take several across the boundary (`crate::chart::patch`).

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
export function set_text(el, text) {
  const only = el.firstChild;
  if (only && only.nodeType === 3 && !only.nextSibling) only.data = text;
  else el.textContent = text;
}
export function element_child(el, at) {
  return el.children[at];
}
export function after_next_paint(f) {
  let done = false;
  const run = () => { if (!done) { done = true; f(); } };
  requestAnimationFrame(() => setTimeout(run, 17));
  setTimeout(run, 100);
}
"#)]
extern "C" {
    /// Imports the module named in `<meta name="{meta}">` once; the same promise after that.
    pub fn load_module(meta: &str) -> Promise;
    /// A promise of the export `name` of that module, the module loaded first.
    pub fn export_of(meta: &str, name: &str) -> Promise;
    /// `el`'s text made `text`: its one text node's data changed where it has one (the node and
    /// its layout object stay), else its children replaced by one text node (`textContent`).
    pub fn set_text(el: &web_sys::Node, text: &str);
    /// `el`'s element child at `at` (`el.children[at]`), or undefined.
    pub fn element_child(el: &web_sys::Node, at: u32) -> Option<web_sys::Node>;
    /// Calls `f` once: 17 ms (a frame at 60 Hz) after the next animation frame (`crate::later`),
    /// or after 100 ms where no frame comes (a tab in the background, a headless screenshot).
    pub fn after_next_paint(f: &JsValue);
}
