//! Work that waits for the next paint (issue 16). A slider step shows its verdict and its bars in
//! the frame that follows the key, and Event Timing measures the step until that frame is on
//! screen; the growth chart, the settings' number boxes and the panels below follow once that
//! frame has been drawn, a frame at 60 Hz later. [`Later`] is a node of the reactive graph that
//! subscribes to what its work reads, as an effect does, but runs that work after the next paint
//! instead of in the step's own task: the memos it reads are not even computed before then, so
//! the step's frame pays only for what it shows. Steps that come faster than frames are
//! coalesced: a work runs once per paint, on the state of that moment.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, RwLock, Weak};

use reactive_graph::graph::{
    AnySource, AnySubscriber, ReactiveNode, Source, Subscriber, WithObserver,
};
use reactive_graph::owner::{on_cleanup, Owner};
use wasm_bindgen::closure::Closure;

/// A node's state in the graph: whether a signal it read changed (`dirty`), whether a run is
/// already waiting for the paint, and what it read in its last run.
struct Node {
    key: usize,
    dirty: bool,
    waiting: bool,
    sources: Vec<AnySource>,
}

/// A node as the graph holds it (weakly, as a subscriber).
struct Shared(RwLock<Node>);

/// A node's work. It reads and writes signals but creates none, so it needs no owner to run
/// under; the owner that created it cleans it up.
#[derive(Clone)]
struct Work {
    key: usize,
    node: Arc<Shared>,
    run: Rc<dyn Fn()>,
}

thread_local! {
    /// Every live node's work (a few dozen, found by key): the graph holds nodes only weakly.
    static WORKS: RefCell<Vec<Work>> = const { RefCell::new(Vec::new()) };
    /// The nodes waiting for the next paint, in the order they were told of a change.
    static WAITING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    static NEXT_KEY: std::cell::Cell<usize> = const { std::cell::Cell::new(1) };
}

/// A work that runs after the next paint whenever what it read last time changes.
#[derive(Clone, Copy)]
pub struct Later(usize);

impl Later {
    /// Registers `run` under the current owner (cleaned up with it). It does not run until
    /// [`Later::run_now`] is called or, once it has run, until what it read changes.
    pub fn new(run: impl Fn() + 'static) -> Later {
        let key = NEXT_KEY.with(|k| {
            let key = k.get();
            k.set(key + 1);
            key
        });
        let node = Arc::new(Shared(RwLock::new(Node {
            key,
            dirty: false,
            waiting: false,
            sources: Vec::new(),
        })));
        let work = Work {
            key,
            node,
            run: Rc::new(run),
        };
        WORKS.with(|w| w.borrow_mut().push(work));
        if Owner::current().is_some() {
            on_cleanup(move || forget(key));
        }
        Later(key)
    }

    /// Runs the work now (a host the page's skeleton has just written is filled in the same
    /// frame), tracking what it reads.
    pub fn run_now(self) {
        if let Some(work) = work_of(self.0) {
            run_tracked(&work);
        }
    }
}

fn work_of(key: usize) -> Option<Work> {
    WORKS.with(|w| w.borrow().iter().find(|w| w.key == key).cloned())
}

/// The node `key` leaves the graph: it stops reading its sources and never runs again.
fn forget(key: usize) {
    let work = WORKS
        .try_with(|w| {
            let mut w = w.borrow_mut();
            let at = w.iter().position(|w| w.key == key)?;
            Some(w.swap_remove(at))
        })
        .ok()
        .flatten();
    if let Some(work) = work {
        let me = subscriber(&work.node);
        work.node.clear_sources(&me);
    }
}

fn subscriber(node: &Arc<Shared>) -> AnySubscriber {
    AnySubscriber(
        Arc::as_ptr(node) as usize,
        Arc::downgrade(node) as Weak<dyn Subscriber + Send + Sync>,
    )
}

/// Runs `run` with `node` as the graph's observer, so that what it reads becomes the node's
/// sources (those of its last run are dropped first).
fn run_tracked(work: &Work) {
    let Work { node, run, .. } = work;
    let me = subscriber(node);
    node.clear_sources(&me);
    if let Ok(mut n) = node.0.write() {
        n.dirty = false;
    }
    me.with_observer(|| run());
}

/// After the next paint: every waiting node whose sources did change runs, once.
fn run_waiting() {
    let keys = WAITING.with(|w| std::mem::take(&mut *w.borrow_mut()));
    for key in keys {
        let Some(work) = work_of(key) else {
            continue;
        };
        if let Ok(mut n) = work.node.0.write() {
            n.waiting = false;
        }
        if work.node.update_if_necessary() {
            run_tracked(&work);
        }
    }
}

/// Puts the node on the list that runs after the next paint; the first on the list asks for it.
fn wait_for_paint(node: &Shared) {
    let key = {
        let Ok(mut n) = node.0.write() else { return };
        if n.waiting {
            return;
        }
        n.waiting = true;
        n.key
    };
    let first = WAITING.with(|w| {
        let mut w = w.borrow_mut();
        w.push(key);
        w.len() == 1
    });
    if first {
        after_next_paint(run_waiting);
    }
}

/// Runs `f` 17 ms (one frame at 60 Hz) after the next animation frame, the one that shows the
/// step: by then that frame has been rastered and drawn, so `f` does not compete with it for the
/// cores. Posting `f` from the animation frame after next instead, as the fourteenth round did,
/// ran it a millisecond after the step's commit where frames come back to back (the frame
/// benchmark's Chromium, a display faster than 60 Hz), beside the raster and the draw of the
/// step's frame on this two-core machine: a median of 114.5 of 150 presses under 16 ms against
/// 123 this way, in alternated runs (issue 16, fifteenth round, in BENCHMARKS.md). At 60 Hz both
/// run `f` about one frame after the step. Where no frame comes within 100 ms (a tab in the
/// background, a headless screenshot) the work runs anyway.
pub fn after_next_paint(f: impl FnOnce() + 'static) {
    crate::page_js::after_next_paint(&Closure::once_into_js(f));
}

impl ReactiveNode for Shared {
    fn mark_dirty(&self) {
        if let Ok(mut n) = self.0.write() {
            n.dirty = true;
        }
        wait_for_paint(self);
    }

    fn mark_check(&self) {
        wait_for_paint(self);
    }

    fn mark_subscribers_check(&self) {}

    fn update_if_necessary(&self) -> bool {
        let sources = {
            let Ok(mut n) = self.0.write() else {
                return false;
            };
            if n.dirty {
                n.dirty = false;
                return true;
            }
            n.sources.clone()
        };
        sources.into_iter().any(|s| s.update_if_necessary())
    }
}

impl Subscriber for Shared {
    fn add_source(&self, source: AnySource) {
        if let Ok(mut n) = self.0.write() {
            if !n.sources.contains(&source) {
                n.sources.push(source);
            }
        }
    }

    fn clear_sources(&self, subscriber: &AnySubscriber) {
        let sources = match self.0.write() {
            Ok(mut n) => std::mem::take(&mut n.sources),
            Err(_) => return,
        };
        for s in sources {
            s.remove_subscriber(subscriber);
        }
    }
}
