//! The page without Leptos views: its skeleton is markup (each component gives a [`Piece`] of it,
//! `app::start` patches the whole into `#app` when any piece changes), every panel is a host
//! element in it patched in place from a memo ([`patched_in_place`]), and one listener per kind of
//! event on the document hands each event to the handlers of the hosts it happened in
//! ([`on`]), innermost first, as the browser's bubbling would. Leptos keeps the state: signals,
//! memos, effects and their owners. Its views and renderer cost the first load about as much as
//! everything the page shows (issue 16).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::reactive::*;

/// A component's part of the skeleton, written again whenever what it reads changes.
pub type Piece = Rc<dyn Fn() -> String>;

/// The kinds of event the page listens to; each bubbles up to the document.
const KINDS: [&str; 10] = [
    "click",
    "input",
    "change",
    "focusin",
    "focusout",
    "mouseover",
    "mouseout",
    "keydown",
    "dragover",
    "drop",
];

type Handler = Rc<dyn Fn(&web_sys::Event)>;

thread_local! {
    /// (host id, event kind, handler, registration number)
    static HANDLERS: RefCell<Vec<(&'static str, &'static str, Handler, u32)>> = const { RefCell::new(Vec::new()) };
    static REGISTERED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The element with `id` on the page.
pub fn by_id(id: &str) -> Option<Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

/// `handler` for events of `kind` that happen inside the element `host`; it stops when the
/// owner it was registered under (a panel that is no longer shown) is cleaned up.
pub fn on(host: &'static str, kind: &'static str, handler: impl Fn(&web_sys::Event) + 'static) {
    let number = REGISTERED.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    HANDLERS.with(|h| h.borrow_mut().push((host, kind, Rc::new(handler), number)));
    if Owner::current().is_some() {
        on_cleanup(move || {
            let _ = HANDLERS.try_with(|h| h.borrow_mut().retain(|e| e.3 != number));
        });
    }
}

/// One listener per kind on the document: each event goes to the handlers of every element with
/// an id between its target and the document, innermost first.
pub fn listen_to_document() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for kind in KINDS {
        let listener = Closure::<dyn Fn(web_sys::Event)>::new(move |ev: web_sys::Event| {
            let mut at = ev.target().and_then(|t| t.dyn_into::<Element>().ok());
            while let Some(el) = at {
                let id = el.id();
                if !id.is_empty() {
                    let handlers: Vec<Handler> = HANDLERS.with(|h| {
                        h.borrow()
                            .iter()
                            .filter(|(host, k, ..)| *k == kind && *host == id)
                            .map(|e| e.2.clone())
                            .collect()
                    });
                    for handler in handlers {
                        handler(&ev);
                    }
                }
                at = el.parent_element();
            }
        });
        let _ = doc.add_event_listener_with_callback(kind, listener.as_ref().unchecked_ref());
        listener.forget();
    }
}

/// Counts the skeleton's writes: each host's effect reads it, so a host the skeleton wrote anew
/// (a panel shown again) is filled again.
#[derive(Clone, Copy)]
pub struct Drawn(pub RwSignal<u32>);

/// What a host's effect last wrote: the element it wrote into, and the markup.
pub type Written = (Option<Element>, String);

/// The host `id` as the skeleton has it now, and the markup it shows: what the effect's last run
/// wrote, or nothing when the skeleton wrote the element anew (so it is filled whole). None while
/// the skeleton has no such host. Tracks the skeleton's writes.
pub fn host_now(drawn: Drawn, id: &str, was: Option<Written>) -> Option<(Element, String)> {
    drawn.0.track();
    let el = by_id(id)?;
    let shown = match was {
        Some((Some(before), shown)) if before == el => shown,
        _ => String::new(),
    };
    Some((el, shown))
}

/// Keeps the host `id`'s content equal to `markup` by patching it (`crate::chart::patch`): the
/// elements stay, and a step changes the text and attributes that differ instead of parsing
/// and laying out the whole markup again. A host the skeleton wrote anew is written whole. It is
/// written in the step's own frame: only what a step must show at once (the verdict, and the
/// step's own bar: [`patched_now_and_after_paint`]) is; the rest is [`patched_after_paint`]. `then` runs after each write, told whether the
/// host was written whole.
pub fn patched_in_place(id: &'static str, markup: Memo<String>, then: fn(&Element, bool)) {
    patched_now_and_after_paint(id, markup, None, then);
}

/// What writes a host: given the host and the markup it shows, it returns the markup it shows
/// after.
pub type HostWrite = Box<dyn Fn(&Element, &str) -> String>;

/// Keeps the host `id` up to date by `write`, which gets the host and the markup it shows and
/// returns the markup it shows after: at once when the skeleton writes the host anew, and after
/// the next paint when anything else `write` read changes (`crate::later`): a slider step's own
/// frame shows the verdict and the bars, the host follows once that frame is drawn (issue 16).
pub fn host_after_paint(id: &'static str, write: HostWrite) {
    let drawn = expect_context::<Drawn>();
    let shown = RefCell::new(None::<Written>);
    let later = crate::later::Later::new(move || {
        let was = shown.borrow_mut().take();
        // the skeleton's writes are tracked by the effect below, not by the later work
        let Some((el, old)) = untrack(|| host_now(drawn, id, was)) else {
            return;
        };
        let now = write(&el, &old);
        *shown.borrow_mut() = Some((Some(el), now));
    });
    Effect::new(move |_| {
        drawn.0.track();
        later.run_now();
    });
}

/// [`patched_in_place`] for a host that may follow one frame behind the step's own frame (the
/// growth chart, the settings' controls, the panels below): see [`host_after_paint`].
pub fn patched_after_paint(id: &'static str, markup: Memo<String>) {
    host_after_paint(
        id,
        Box::new(move |el, shown| {
            let node: &web_sys::Node = el;
            markup.with(|m| crate::chart::patch::patch_inner(node, shown, m));
            markup.get_untracked()
        }),
    );
}

/// [`patched_in_place`] and [`patched_after_paint`] on one host: `now`, what a step must show
/// at once, in the step's own frame, and `after` (when given), the whole of it, once that frame
/// is drawn. Each patches from what the host shows, whichever of them wrote it. `then` runs
/// after each write, told whether the host was written whole.
pub fn patched_now_and_after_paint(
    id: &'static str,
    now: Memo<String>,
    after: Option<Memo<String>>,
    then: fn(&Element, bool),
) {
    let drawn = expect_context::<Drawn>();
    let shown = Rc::new(RefCell::new(None::<Written>));
    let in_frame = shown.clone();
    Effect::new(move |_| patch_shown(drawn, id, &in_frame, now, then));
    let Some(after) = after else {
        return;
    };
    // after every write of `now` (it reads `now`), and after a skeleton's write (`host_now`
    // tracks it): the host then shows `after`, or stays as it is where the two are the same
    let later = crate::later::Later::new(move || {
        now.track();
        patch_shown(drawn, id, &shown, after, then);
    });
    later.run_now();
}

/// Host `id` patched from what it shows (`shown`, whoever wrote it last) to `markup`, and
/// `shown` set to it. One function for both writers of [`patched_now_and_after_paint`], so the
/// page's code holds it once.
#[inline(never)]
fn patch_shown(
    drawn: Drawn,
    id: &str,
    shown: &RefCell<Option<Written>>,
    markup: Memo<String>,
    then: fn(&Element, bool),
) {
    let was = shown.borrow_mut().take();
    let Some((el, old)) = host_now(drawn, id, was) else {
        return;
    };
    let node: &web_sys::Node = &el;
    markup.with(|m| crate::chart::patch::patch_inner(node, &old, m));
    then(&el, old.is_empty());
    *shown.borrow_mut() = Some((Some(el), markup.get_untracked()));
}

/// The pieces one after the other, as one piece.
pub fn joined(pieces: Vec<Piece>) -> Piece {
    Rc::new(move || pieces.iter().map(|p| p()).collect())
}

/// Writes the page's skeleton into a new `#app` at the end of the body, and
/// patches it in place whenever a piece changes; each write is counted in [`Drawn`], so the hosts
/// it wrote anew are filled again.
pub fn draw_skeleton(skeleton: Piece) {
    let drawn = expect_context::<Drawn>().0;
    let app = web_sys::window().and_then(|w| w.document()).and_then(|d| {
        let app = d.create_element("div").ok()?;
        app.set_id("app");
        d.body()?.append_child(&app).ok()?;
        Some(app)
    });
    Effect::new(move |was: Option<String>| {
        let now = skeleton();
        if let Some(app) = &app {
            let node: &web_sys::Node = app;
            crate::chart::patch::patch_inner(node, was.as_deref().unwrap_or(""), &now);
        }
        if was.as_deref() != Some(now.as_str()) {
            drawn.update(|n| *n += 1);
        }
        now
    });
}

/// `setup` run while `shown` holds, under an owner of its own, and its piece of the skeleton
/// shown then; nothing otherwise. When `shown` turns false the owner is cleaned up: the
/// component's signals, effects and handlers go with it, as a Leptos `<Show>` would drop them.
pub fn while_shown(shown: Memo<bool>, setup: impl Fn() -> Piece + 'static) -> Piece {
    let piece = RwSignal::new_local(None::<Piece>);
    // an effect cleans up what its last run created before it runs again
    Effect::new(move |_| piece.set(shown.get().then(&setup)));
    Rc::new(move || piece.with(|p| p.as_ref().map(|p| p()).unwrap_or_default()))
}

/// A piece that never changes.
pub fn fixed(markup: String) -> Piece {
    Rc::new(move || markup.clone())
}
