//! What the page uses of Leptos: its reactive system (`reactive_graph`, the crate `leptos::prelude`
//! re-exports: signals, memos, effects, owners and contexts), and the two browser helpers the
//! page had from `leptos_dom`. The `leptos` crate itself is not linked: the page has no Leptos
//! views (`src/dom.rs`), and `leptos` brings `server_fn`, whose `wasm-streams` exports stay in
//! every wasm that links it (about 3 KB gzip, with their JavaScript glue).

pub use reactive_graph::computed::Memo;
pub use reactive_graph::effect::Effect;
pub use reactive_graph::graph::untrack;
pub use reactive_graph::owner::{expect_context, on_cleanup, provide_context, Owner, StoredValue};
pub use reactive_graph::prelude::*;
pub use reactive_graph::signal::RwSignal;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Runs `task` on the browser's event loop, under the current reactive owner.
pub fn spawn_local(task: impl std::future::Future<Output = ()> + 'static) {
    reactive_graph::spawn_local_scoped(task)
}

/// The value of the input, select or text box an event happened on ("" for anything else).
pub fn event_target_value(ev: &web_sys::Event) -> String {
    ev.target()
        .and_then(|t| js_sys::Reflect::get(&t, &"value".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// A timeout that can be cleared before it runs.
#[derive(Clone, Copy)]
pub struct TimeoutHandle(i32);

impl TimeoutHandle {
    pub fn clear(&self) {
        if let Some(w) = web_sys::window() {
            w.clear_timeout_with_handle(self.0);
        }
    }
}

/// Runs `f` once after `after`.
pub fn set_timeout_with_handle(
    f: impl FnOnce() + 'static,
    after: std::time::Duration,
) -> Option<TimeoutHandle> {
    let f = Closure::once_into_js(f);
    let ms = i32::try_from(after.as_millis()).unwrap_or(i32::MAX);
    web_sys::window()?
        .set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), ms)
        .ok()
        .map(TimeoutHandle)
}
