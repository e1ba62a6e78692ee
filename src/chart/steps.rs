//! The browser benchmark's slider steps replayed natively (`crates/e2e/src/frames.rs`): the six
//! sliders, 25 presses each, from the page's opening scenario, and the writes each press makes to
//! the page's charts through `patch_inner`, recorded instead of made. A whole rewrite
//! (`innerHTML`) is what a step must avoid: its elements are parsed, built, styled and laid out
//! anew, where a patched attribute restyles one element.

use std::cell::RefCell;
use std::rc::Rc;

use vram_engine::{Job, Overview, Scenario, Setting, SettingKind, SettingValue};

use super::patch::{patch_inner, Tree};
use crate::components::controls::{log_pos, log_value};
use crate::i18n::Lang;

/// One write a patch made.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    Attribute,
    Removed,
    Text,
    /// `innerHTML` of this many bytes, at this element (its path of child indices).
    Whole(Vec<usize>, usize),
    /// Elements inserted as markup of this many bytes.
    Inserted(usize),
    /// An element taken out.
    Gone,
}

/// An element of the record: its path from the host, and the log every element shares.
#[derive(Clone)]
pub struct Recorder {
    path: Vec<usize>,
    log: Rc<RefCell<Vec<Write>>>,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            path: Vec::new(),
            log: Rc::default(),
        }
    }
    pub fn take(&self) -> Vec<Write> {
        std::mem::take(&mut self.log.borrow_mut())
    }
    fn push(&self, w: Write) {
        self.log.borrow_mut().push(w);
    }
}

impl Tree for Recorder {
    fn set_attribute(&self, _: &str, _: &str) {
        self.push(Write::Attribute);
    }
    fn remove_attribute(&self, _: &str) {
        self.push(Write::Removed);
    }
    fn set_text(&self, _: &str) {
        self.push(Write::Text);
    }
    fn set_inner_html(&self, markup: &str) {
        self.push(Write::Whole(self.path.clone(), markup.len()));
    }
    fn first_element_child(&self) -> Option<Self> {
        let mut path = self.path.clone();
        path.push(0);
        Some(Recorder {
            path,
            log: self.log.clone(),
        })
    }
    fn next_element_sibling(&self) -> Option<Self> {
        let mut path = self.path.clone();
        *path.last_mut()? += 1;
        Some(Recorder {
            path,
            log: self.log.clone(),
        })
    }
    fn first_child(&self) -> Option<Self> {
        self.first_element_child()
    }
    fn next_sibling(&self) -> Option<Self> {
        self.next_element_sibling()
    }
    fn insert_html(&self, _: &str, markup: &str) {
        self.push(Write::Inserted(markup.len()));
    }
    fn remove(&self) {
        self.push(Write::Gone);
    }
}

/// A slider of the benchmark: its setting, and whether a press is Chromium's big step
/// (PageUp/PageDown, a tenth of the range) or an arrow (one slider position).
pub const BENCH_SLIDERS: [(&str, bool); 6] = [
    ("weights", false),
    ("seq", false),
    ("batch", true),
    ("lora-rank", true),
    ("grad-accum", true),
    ("gpus", true),
];

/// The scenario after each press on `id`, as the page's slider would make it: `presses` presses,
/// up until the end of the slider's range, then down.
pub fn presses(start: &Scenario, id: &str, big: bool, presses: usize) -> Vec<Scenario> {
    let setting = Setting::by_id(id).expect("a setting of the registry");
    let mut s = start.clone();
    let mut up = true;
    let mut out = Vec::new();
    for _ in 0..presses {
        match setting.kind {
            SettingKind::Number {
                slider: (min, max),
                log,
                pow2,
                ..
            } => {
                let SettingValue::Number(v) = setting.get(&s) else {
                    unreachable!()
                };
                let (lo, hi, pos) = if log {
                    (0, 1000, log_pos(v, min, max))
                } else {
                    (min, max, v.clamp(min, max))
                };
                if pos >= hi {
                    up = false;
                } else if pos <= lo {
                    up = true;
                }
                let step = if big { ((hi - lo) / 10).max(1) } else { 1 };
                let pos = if up {
                    (pos + step).min(hi)
                } else {
                    pos.saturating_sub(step).max(lo)
                };
                let v = if log {
                    log_value(pos, min, max, pow2)
                } else {
                    pos
                };
                setting.set(&mut s, SettingValue::Number(v));
            }
            SettingKind::Choice => {
                let offered = setting.offered(&s);
                let key = match setting.key {
                    "w" => s.effective_weights().key(),
                    _ => match setting.get(&s) {
                        SettingValue::Choice(k) => k,
                        _ => "",
                    },
                };
                let at = offered.iter().position(|k| *k == key).unwrap_or(0);
                let last = offered.len().saturating_sub(1);
                if at >= last {
                    up = false;
                } else if at == 0 {
                    up = true;
                }
                let at = if up { at + 1 } else { at.saturating_sub(1) };
                setting.set(&mut s, SettingValue::Choice(offered[at.min(last)]));
            }
            _ => panic!("{id} is not a slider"),
        }
        s.normalize();
        out.push(s.clone());
    }
    out
}

/// Both charts' markup for a scenario, as the page draws them.
pub fn charts(s: &Scenario) -> [String; 2] {
    let c = Overview::compute(s).expect("the scenario computes");
    let (limit, name) = (s.gpu.visible_bytes(), s.gpu.label());
    [
        super::stacked(&c.bars, s.gpus, limit, name, s.unit, Lang::En, None),
        super::sweep(
            &c.sweep,
            s.swept_tokens(),
            s.job == Job::Serving,
            limit,
            name,
            s.unit,
            Lang::En,
        ),
    ]
}

/// An element of a small model of the page's tree, enough to apply a patch to and compare.
#[derive(Debug)]
struct El {
    name: String,
    /// unescaped, as `setAttribute` takes them, sorted when compared
    attributes: Vec<(String, String)>,
    content: Inside,
}

#[derive(Debug)]
enum Inside {
    Elements(Vec<Rc<RefCell<El>>>),
    Text(String),
    /// mixed text and elements: text nodes (`#text`) and elements
    Mixed(Vec<Rc<RefCell<El>>>),
}

fn element(node: &super::patch::Node) -> Rc<RefCell<El>> {
    use super::patch::{unescape_attribute, unescape_text, Content};
    let content = match &node.content {
        Content::Text(t) => Inside::Text(unescape_text(t).unwrap_or_else(|| t.to_string())),
        Content::Elements(kids) => Inside::Elements(kids.iter().map(element).collect()),
        Content::Mixed(parts) => Inside::Mixed(parts.iter().map(part).collect()),
    };
    let attributes = node
        .attributes
        .iter()
        .map(|(n, v)| (n.to_string(), unescape_attribute(v)))
        .collect();
    Rc::new(RefCell::new(El {
        name: node.name.to_string(),
        attributes,
        content,
    }))
}

/// A part of mixed content as a node of the model: an element, or a text node (`#text`).
fn part(p: &super::patch::Part) -> Rc<RefCell<El>> {
    match p {
        super::patch::Part::Element(e) => element(e),
        super::patch::Part::Text(t) => Rc::new(RefCell::new(El {
            name: "#text".into(),
            attributes: Vec::new(),
            content: Inside::Text(super::patch::unescape_text(t).unwrap_or_else(|| t.to_string())),
        })),
    }
}

/// `markup`'s elements, parsed the way the patch reads markup.
fn elements(markup: &str) -> Vec<Rc<RefCell<El>>> {
    let wrapped = format!("<x>{markup}</x>");
    let root = element(&super::patch::parse(&wrapped).expect("markup the patch reads"));
    let inside = std::mem::replace(&mut root.borrow_mut().content, Inside::Text(String::new()));
    match inside {
        Inside::Elements(kids) => kids,
        Inside::Text(t) if t.trim().is_empty() => Vec::new(),
        other => panic!("not a list of elements: {other:?}"),
    }
}

/// One line per element, attributes sorted: two trees that print the same show the same.
fn print(el: &El, out: &mut String) {
    let mut attributes = el.attributes.clone();
    attributes.sort();
    out.push_str(&format!("<{} {attributes:?}>", el.name));
    match &el.content {
        Inside::Elements(kids) => kids.iter().for_each(|k| print(&k.borrow(), out)),
        Inside::Mixed(kids) => kids.iter().for_each(|k| match &k.borrow().content {
            Inside::Text(t) if k.borrow().name == "#text" => out.push_str(&format!("[{t}]")),
            _ => print(&k.borrow(), out),
        }),
        Inside::Text(t) => out.push_str(t),
    }
    out.push_str(&format!("</{}>", el.name));
}

/// An element of the model with its parent, which the patch writes to as it writes to the page.
#[derive(Clone)]
pub struct Model {
    el: Rc<RefCell<El>>,
    parent: Option<Rc<RefCell<El>>>,
}

impl Model {
    /// A host element holding `markup`'s elements.
    pub fn host(markup: &str) -> Model {
        let el = Rc::new(RefCell::new(El {
            name: "div".into(),
            attributes: Vec::new(),
            content: Inside::Elements(elements(markup)),
        }));
        Model { el, parent: None }
    }
    /// The tree, one comparable line.
    pub fn printed(&self) -> String {
        let mut out = String::new();
        print(&self.el.borrow(), &mut out);
        out
    }
    /// The child `pick` chooses among this element's children.
    fn child(&self, pick: impl Fn(&[Rc<RefCell<El>>]) -> Option<Rc<RefCell<El>>>) -> Option<Model> {
        let el = match &self.el.borrow().content {
            Inside::Elements(kids) | Inside::Mixed(kids) => pick(kids),
            Inside::Text(_) => None,
        }?;
        let parent = Some(self.el.clone());
        Some(Model { el, parent })
    }
    /// The sibling `pick` chooses given this element's place among its parent's children.
    fn sibling(
        &self,
        pick: impl Fn(&[Rc<RefCell<El>>], usize) -> Option<Rc<RefCell<El>>>,
    ) -> Option<Model> {
        let (parent, at) = self.siblings();
        let el = match &parent.borrow().content {
            Inside::Elements(kids) | Inside::Mixed(kids) => pick(kids, at),
            Inside::Text(_) => None,
        }?;
        Some(Model {
            el,
            parent: Some(parent),
        })
    }
    fn siblings(&self) -> (Rc<RefCell<El>>, usize) {
        let parent = self.parent.clone().expect("an element with a parent");
        let at = match &parent.borrow().content {
            Inside::Elements(kids) | Inside::Mixed(kids) => {
                kids.iter().position(|k| Rc::ptr_eq(k, &self.el))
            }
            _ => None,
        };
        (parent, at.expect("the element is its parent's child"))
    }
}

impl Tree for Model {
    fn set_attribute(&self, name: &str, value: &str) {
        let mut el = self.el.borrow_mut();
        match el.attributes.iter_mut().find(|(n, _)| n == name) {
            Some(a) => a.1 = value.to_string(),
            None => el.attributes.push((name.to_string(), value.to_string())),
        }
    }
    fn remove_attribute(&self, name: &str) {
        self.el.borrow_mut().attributes.retain(|(n, _)| n != name);
    }
    fn set_text(&self, text: &str) {
        self.el.borrow_mut().content = Inside::Text(text.to_string());
    }
    fn set_inner_html(&self, markup: &str) {
        let wrapped = format!("<x>{markup}</x>");
        let root = super::patch::parse(&wrapped).expect("markup the patch reads");
        let inside = std::mem::replace(
            &mut element(&root).borrow_mut().content,
            Inside::Text(String::new()),
        );
        self.el.borrow_mut().content = inside;
    }
    fn first_element_child(&self) -> Option<Self> {
        self.child(|kids| kids.iter().find(|k| k.borrow().name != "#text").cloned())
    }
    fn next_element_sibling(&self) -> Option<Self> {
        self.sibling(|kids, at| {
            kids[at + 1..]
                .iter()
                .find(|k| k.borrow().name != "#text")
                .cloned()
        })
    }
    fn first_child(&self) -> Option<Self> {
        self.child(|kids| kids.first().cloned())
    }
    fn next_sibling(&self) -> Option<Self> {
        self.sibling(|kids, at| kids.get(at + 1).cloned())
    }
    fn insert_html(&self, at: &str, markup: &str) {
        let (parent, index) = match at {
            "afterend" => {
                let (parent, i) = self.siblings();
                (parent, i + 1)
            }
            "afterbegin" => (self.el.clone(), 0),
            _ => panic!("the patch inserts afterend or afterbegin, not {at}"),
        };
        let mut p = parent.borrow_mut();
        if !matches!(p.content, Inside::Elements(_)) {
            p.content = Inside::Elements(Vec::new());
        }
        if let Inside::Elements(kids) = &mut p.content {
            for (k, el) in elements(markup).into_iter().enumerate() {
                kids.insert(index + k, el);
            }
        }
    }
    fn remove(&self) {
        let (parent, at) = self.siblings();
        let mut p = parent.borrow_mut();
        if let Inside::Elements(kids) = &mut p.content {
            kids.remove(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every press of the benchmark on both charts: the markup before and after.
    fn bench_presses() -> Vec<(&'static str, [String; 2], [String; 2])> {
        let start = Scenario::default();
        let mut out = Vec::new();
        for (id, big) in BENCH_SLIDERS {
            let mut shown = charts(&start);
            for s in presses(&start, id, big, 25) {
                let next = charts(&s);
                out.push((id, shown, next.clone()));
                shown = next;
            }
        }
        out
    }

    #[test]
    fn a_patched_chart_shows_exactly_the_new_markup_after_every_benchmark_press() {
        for (id, old, new) in bench_presses() {
            for (old, new) in old.iter().zip(&new) {
                let page = Model::host(old);
                patch_inner(&page, old, new);
                assert_eq!(
                    page.printed(),
                    Model::host(new).printed(),
                    "a press on {id}"
                );
            }
        }
    }

    #[test]
    fn children_that_come_and_go_are_inserted_and_removed_where_they_belong() {
        let cases = [
            ("<a/><b/><c/>", "<a/><c/>"),
            ("<a/><c/>", "<a/><b/><c/>"),
            ("<a/><b/>", "<b/><a/>"),
            ("<a/>", "<b/><b/><a/><b/>"),
            ("<a x=\"1\"/><a x=\"2\"/>", "<b/><a x=\"3\"/>"),
            (
                r#"<g class="seg"><rect y="1"/></g><text>1</text>"#,
                r#"<text>2</text><g class="seg"><rect y="2"/><title>t</title></g>"#,
            ),
            (
                "<p>Needs <b>1 GiB</b> per GPU</p>",
                "<p>Needs <b>2 GiB</b> in all</p>",
            ),
            ("<p>a <b>1</b></p>", "<p><b>1</b> a</p>"),
            ("<p>a &lt; <b>1</b></p>", "<p>a &gt; <b>2</b></p>"),
            ("<p>a <b>1</b></p>", "<p>a &nbsp; <b>1</b></p>"),
            ("<div></div>", "<div><b>1</b><i>2</i></div>"),
            ("<div><b>1</b><i>2</i></div>", "<div></div>"),
        ];
        for (old, new) in cases {
            let page = Model::host(old);
            patch_inner(&page, old, new);
            assert_eq!(page.printed(), Model::host(new).printed(), "{old} -> {new}");
        }
    }

    #[test]
    fn the_benchmark_steps_patch_both_charts_without_writing_either_whole() {
        let start = Scenario::default();
        let host = Recorder::new();
        let mut report = String::new();
        for (id, big) in BENCH_SLIDERS {
            let mut shown = charts(&start);
            for s in presses(&start, id, big, 25) {
                let next = charts(&s);
                for (old, new) in shown.iter().zip(&next) {
                    patch_inner(&host, old, new);
                }
                shown = next;
                for w in host.take() {
                    if let Write::Whole(path, bytes) = w {
                        report.push_str(&format!("{id}: {path:?} {bytes} B\n"));
                    }
                }
            }
        }
        assert_eq!(report, "");
    }
}
