//! The Chinese of the largest tables, loaded on demand (`crates/zh`, through `crate::modules`):
//! the page's wasm is built with `vram-text`'s `zh-on-demand` feature, so the first load carries
//! English only for those tables. The page asks for Chinese through [`switch_to`]; it switches
//! once the table is in.

use vram_messages::ZhTable;

use crate::i18n::Lang;
use crate::modules::{call, Module};
use crate::state::AppState;
use leptos::prelude::*;

/// The language toggle's id: it says `data-failed` when the table did not load.
const TOGGLE: &str = "lang-toggle";

/// Imports the module and installs its table; whether Chinese can be shown.
async fn load_table() -> bool {
    call::<ZhTable>(Module::Zh, "table", &[])
        .await
        .is_ok_and(|table| vram_text::install_zh(table.0))
}

/// Marks the page while the table loads (`data-stale` on `<html>`, which exists before the
/// page's first render; the browser tests' reads wait for no stale element) and the toggle when
/// it did not load (`data-failed`).
fn mark(loading: bool, failed: bool) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let marks = [
        (doc.document_element(), "data-stale", loading),
        (doc.get_element_by_id(TOGGLE), "data-failed", failed),
    ];
    for (el, name, on) in marks {
        if let Some(el) = el {
            let _ = if on {
                el.set_attribute(name, "")
            } else {
                el.remove_attribute(name)
            };
        }
    }
}

/// Shows the page in `lang`: at once for English or when the Chinese table is in; otherwise
/// once it has loaded (the page stays as it is meanwhile, and stays English if it fails: a later
/// click tries again).
pub fn switch_to(st: AppState, lang: Lang) {
    if lang == Lang::En || vram_text::zh_ready() {
        st.lang.set(lang);
        return;
    }
    mark(true, false);
    leptos::task::spawn_local(async move {
        let ready = load_table().await;
        mark(false, !ready);
        if ready {
            st.lang.set(Lang::Zh);
        }
    });
}
