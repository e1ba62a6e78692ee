//! The on-demand modules (`crates/readers`, `crates/local-web`, `crates/zh`), built by Trunk
//! beside the page and imported the first time the page needs one, never at start. A module's
//! content-hashed file name (`scripts/post_build.py`) is in `<meta name="{meta}">`; the CSP's
//! `script-src 'self'` allows it. The loader, the page's one JavaScript snippet, forgets a failed
//! import, so the next call tries again.
//!
//! Every export answers the postcard bytes of a `vram-messages` type: [`call`] loads the module,
//! calls the export by name and decodes its answer into that type; a message the page sends
//! goes as [`bytes`].

use js_sys::{Array, Function, Promise, Reflect, Uint8Array};
use vram_messages::{DeserializeOwned, Said, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::i18n::Lang;

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
    fn load_module(meta: &str) -> Promise;
    /// A promise of the export `name` of that module, the module loaded first.
    fn export_of(meta: &str, name: &str) -> Promise;
}

/// An on-demand module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Module {
    /// The readers of pasted text, the measurement beside the estimate, the Hub id box.
    Readers,
    /// The llama.cpp / Ollama job: the GGUF reader and the run's answer.
    Local,
    /// The Chinese of the largest tables.
    Zh,
}

impl Module {
    /// The name of the `<meta>` that holds its file name.
    fn meta(self) -> &'static str {
        match self {
            Module::Readers => "vram-readers",
            Module::Local => "vram-local",
            Module::Zh => "vram-zh",
        }
    }
}

/// Why a module gave nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The module's sentences, English then Chinese.
    Said(Said),
    /// The module could not be loaded (offline, a stale deploy), or answered something else.
    NotLoaded,
}

impl Refused {
    /// The sentence in `lang`, or None when the page must say it (`NotLoaded`).
    pub fn sentence(&self, lang: Lang) -> Option<&str> {
        match self {
            Refused::Said([en, zh]) => Some(lang.pick(en, zh)),
            Refused::NotLoaded => None,
        }
    }
}

/// Starts loading `module` (when the user reaches a panel that will need it).
pub fn preload(module: Module) {
    let _ = load_module(module.meta());
}

/// The export `name` of `module`, the module loaded first.
pub async fn export(module: Module, name: &str) -> Result<Function, Refused> {
    let loaded = JsFuture::from(load_module(module.meta()))
        .await
        .map_err(|_| Refused::NotLoaded)?;
    Reflect::get(&loaded, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or(Refused::NotLoaded)
}

/// A promise of the export `name` of `module`, made in JavaScript (for a module that calls
/// another: `wasm_bindgen_futures::future_to_promise` linked std's I/O error texts into the
/// first load).
pub fn export_promise(module: Module, name: &str) -> Promise {
    export_of(module.meta(), name)
}

/// Calls the export `name` of `module` with `args`; its answer decoded as an `R`.
pub async fn call<R: DeserializeOwned>(
    module: Module,
    name: &str,
    args: &[JsValue],
) -> Result<R, Refused> {
    let f = export(module, name).await?;
    call_now(&f, args).ok_or(Refused::NotLoaded)
}

/// Calls an export already loaded with `args`; its answer decoded as an `R` (None when it
/// throws or answers something else).
pub fn call_now<R: DeserializeOwned>(f: &Function, args: &[JsValue]) -> Option<R> {
    let args: Array = args.iter().collect();
    decode(&f.apply(&JsValue::NULL, &args).ok()?)
}

/// The message a module sent as bytes (a `Uint8Array`).
pub fn decode<R: DeserializeOwned>(value: &JsValue) -> Option<R> {
    let bytes = value.dyn_ref::<Uint8Array>()?.to_vec();
    vram_messages::decode(&bytes)
}

/// A message for a module, as bytes (a `Uint8Array`).
pub fn bytes<T: Serialize>(message: &T) -> JsValue {
    Uint8Array::from(vram_messages::encode(message).as_slice()).into()
}
