//! A chart or a panel updated in place. The new markup is compared with the last in Rust, element
//! by element, and the page's nodes take only what differs: a bar that grew gets a new `y` and
//! `height`, a text node its new text, and the axes, grid and labels that stay are not touched.
//! Children that come and go (an axis tick, a bar segment, a remedy, a setting's control) are
//! paired with the old ones by tag and id, or by tag and class where they have no id, and only the
//! unpaired ones are inserted or removed. The browser then
//! restyles, lays out and repaints what moved instead of parsing and painting whole new markup.
//! A first draw, or markup `super::markup` does not read, is written whole.

use super::markup::{parse, unescape_attribute, unescape_text, Content, Node, Part};
use wasm_bindgen::JsCast;
use web_sys::{Element, Node as PageNode};

/// What a patch writes to: the page's elements, or, in the tests, a record of the writes.
pub trait Tree: Sized {
    fn set_attribute(&self, name: &str, value: &str);
    fn remove_attribute(&self, name: &str);
    fn set_text(&self, text: &str);
    /// The slow write: the markup parsed and its elements built, styled and laid out anew.
    fn set_inner_html(&self, markup: &str);
    /// The element child at `at`, counted among element children only, as the page has them now.
    fn element_child(&self, at: usize) -> Option<Self>;
    /// The first child node, text nodes included (mixed content is walked node by node).
    fn first_child(&self) -> Option<Self>;
    fn next_sibling(&self) -> Option<Self>;
    /// Inserts elements as markup, `where` as `insertAdjacentHTML` reads it.
    fn insert_html(&self, at: &str, markup: &str);
    /// Takes the element out of the page.
    fn remove(&self);
}

/// The page's nodes: elements, and the text nodes of mixed content (only `set_text` and the
/// walk reach those).
impl Tree for PageNode {
    fn set_attribute(&self, name: &str, value: &str) {
        let el = self.unchecked_ref::<Element>();
        let _ = el.set_attribute(name, value);
        follow_attribute(el, name, Some(value));
    }
    fn remove_attribute(&self, name: &str) {
        let el = self.unchecked_ref::<Element>();
        let _ = el.remove_attribute(name);
        follow_attribute(el, name, None);
    }
    fn set_text(&self, text: &str) {
        crate::page_js::set_text(self, text);
    }
    fn set_inner_html(&self, markup: &str) {
        self.unchecked_ref::<Element>().set_inner_html(markup);
    }
    fn element_child(&self, at: usize) -> Option<Self> {
        crate::page_js::element_child(self, at as u32)
    }
    fn first_child(&self) -> Option<Self> {
        PageNode::first_child(self)
    }
    fn next_sibling(&self) -> Option<Self> {
        PageNode::next_sibling(self)
    }
    fn insert_html(&self, at: &str, markup: &str) {
        let _ = self
            .unchecked_ref::<Element>()
            .insert_adjacent_html(at, markup);
    }
    fn remove(&self) {
        self.unchecked_ref::<Element>().remove();
    }
}

/// A form control shows its live state, not its attributes, once a user has touched it: an
/// input's value and checkedness and an option's selectedness follow the attribute the patch
/// wrote (`value`, `checked`, `selected`).
fn follow_attribute(el: &Element, name: &str, value: Option<&str>) {
    match name {
        "value" => {
            if let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() {
                input.set_value(value.unwrap_or(""));
            }
        }
        "checked" => {
            if let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() {
                input.set_checked(value.is_some());
            }
        }
        "selected" => {
            if let Some(option) = el.dyn_ref::<web_sys::HtmlOptionElement>() {
                option.set_selected(value.is_some());
            }
        }
        _ => {}
    }
}

/// Makes `host`'s content equal to the markup `new`, given that it shows `old` (what the last call
/// wrote): a chart's `<svg>` or a panel's list of elements, patched as the children of `host`.
pub fn patch_inner(host: &impl Tree, old: &str, new: &str) {
    // nothing to write, even for markup the patch does not read (a form written whole)
    if !old.is_empty() && old == new {
        return;
    }
    let (was, now) = (format!("<x>{old}</x>"), format!("<x>{new}</x>"));
    match (parse(&was), parse(&now)) {
        (Some(was), Some(now)) if !old.is_empty() => patch_element(host, &was, &now),
        _ => host.set_inner_html(new),
    }
}

fn patch_element(el: &impl Tree, was: &Node, now: &Node) {
    if was.markup == now.markup {
        return;
    }
    for (name, _) in &was.attributes {
        if !now.attributes.iter().any(|(n, _)| n == name) {
            el.remove_attribute(name);
        }
    }
    for (name, value) in &now.attributes {
        if !was.attributes.contains(&(name, value)) {
            el.set_attribute(name, &unescape_attribute(value));
        }
    }
    if was.inner == now.inner {
        return;
    }
    // what is inside, read only now that it differs; markup this module does not read is
    // written whole
    let (Some(was_inside), Some(now_inside)) = (was.content(), now.content()) else {
        return el.set_inner_html(now.inner);
    };
    match (&was_inside, &now_inside) {
        (Content::Elements(was), Content::Elements(now)) => patch_children(el, was, now),
        // a list that empties or fills (the remedies of a job that stops or starts fitting)
        (Content::Text(t), Content::Elements(now)) if t.trim().is_empty() => {
            patch_children(el, &[], now)
        }
        (Content::Elements(was), Content::Text(t)) if t.trim().is_empty() => {
            patch_children(el, was, &[])
        }
        (Content::Mixed(was), Content::Mixed(now)) if same_shape(was, now) => {
            patch_parts(el, was, now)
        }
        // text for text: no parse, the element's one text node changes
        (Content::Text(_), Content::Text(text)) => match unescape_text(text) {
            Some(text) => el.set_text(&text),
            None => el.set_inner_html(now.inner),
        },
        _ => el.set_inner_html(now.inner),
    }
}

/// Whether two mixed contents hold text and elements in the same order, the elements paired by
/// [`key`]: then each text node and element of the page has its counterpart.
fn same_shape(was: &[Part], now: &[Part]) -> bool {
    was.len() == now.len()
        && was.iter().zip(now).all(|pair| match pair {
            (Part::Text(_), Part::Text(_)) => true,
            (Part::Element(a), Part::Element(b)) => key(a) == key(b),
            _ => false,
        })
}

/// Each text node and element of mixed content patched with its counterpart (`same_shape`).
fn patch_parts<T: Tree>(parent: &T, was: &[Part], now: &[Part]) {
    let mut on_page = parent.first_child();
    for pair in was.iter().zip(now) {
        let Some(node) = on_page else {
            return;
        };
        on_page = node.next_sibling();
        match pair {
            (Part::Element(a), Part::Element(b)) => patch_element(&node, a, b),
            (Part::Text(a), Part::Text(b)) if a != b => match unescape_text(b) {
                Some(text) => node.set_text(&text),
                None => return parent.set_inner_html(&parts_markup(now)),
            },
            _ => {}
        }
    }
}

fn parts_markup(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => t,
            Part::Element(e) => e.markup,
        })
        .collect()
}

/// What pairs an old child with a new one: its tag and id when it has one (a setting's control
/// with the same setting's, so the slider a user drags stays the element under the pointer while
/// others come and go around it), else its tag and class (a bar segment's group with a bar
/// segment's group, a grid line with a grid line), whatever its other attributes say.
fn key<'a>(node: &Node<'a>) -> (&'a str, bool, &'a str) {
    let named = |name: &str| node.attributes.iter().find(|(n, _)| *n == name);
    match named("id") {
        Some((_, id)) => (node.name, true, id),
        None => (node.name, false, named("class").map_or("", |(_, v)| v)),
    }
}

/// `parent`'s children made equal to `now`, given that they show `was`. The children are paired
/// in order by [`key`] (the longest common run of keys): a paired child is patched, an old child
/// left unpaired is removed, and each run of new ones is inserted as markup where it belongs. A
/// chart whose axis gains a tick, or whose bar loses a segment, keeps every other element. Only
/// the children a write reaches are looked up on the page (a paired child whose markup is the
/// same is not), by their place among the element children as the writes before left them.
fn patch_children<T: Tree>(parent: &T, was: &[Node], now: &[Node]) {
    let (was_keys, now_keys): (Vec<_>, Vec<_>) =
        (was.iter().map(key).collect(), now.iter().map(key).collect());
    let mut list = Children {
        parent,
        moved: 0,
        after: None,
        inserted: String::new(),
        inserting: 0,
    };
    let done = pairing(&was_keys, &now_keys)
        .into_iter()
        .try_for_each(|step| match step {
            Pair::Both(i, j) => list.patch(i, &was[i], &now[j]),
            Pair::Old(i) => list.remove(i),
            Pair::New(j) => {
                list.inserted.push_str(now[j].markup);
                list.inserting += 1;
                Some(())
            }
        });
    if done.and_then(|_| list.insert()).is_none() {
        // the page is not what this module wrote last: write the list whole
        let markup: String = now.iter().map(|n| n.markup).collect();
        parent.set_inner_html(&markup);
    }
}

/// A list of children being patched in order: where the old ones are now, and the new ones
/// waiting to be inserted. `None` from a step: a child is not on the page where it should be.
struct Children<'p, T> {
    parent: &'p T,
    /// elements inserted minus elements removed so far: old child `i` is at `i + moved`
    moved: isize,
    /// the place of the element the next insertion follows (none: the parent's start)
    after: Option<usize>,
    inserted: String,
    inserting: isize,
}

impl<T: Tree> Children<'_, T> {
    fn place(&self, old: usize) -> usize {
        (old as isize + self.moved) as usize
    }
    fn patch(&mut self, old: usize, was: &Node, now: &Node) -> Option<()> {
        self.insert()?;
        let at = self.place(old);
        if was.markup != now.markup {
            patch_element(&self.parent.element_child(at)?, was, now);
        }
        self.after = Some(at);
        Some(())
    }
    fn remove(&mut self, old: usize) -> Option<()> {
        self.parent.element_child(self.place(old))?.remove();
        self.moved -= 1;
        Some(())
    }
    /// Inserts the waiting markup after `after`, or at the start of the parent.
    fn insert(&mut self) -> Option<()> {
        if self.inserting == 0 {
            return Some(());
        }
        match self.after {
            Some(at) => self
                .parent
                .element_child(at)?
                .insert_html("afterend", &self.inserted),
            None => self.parent.insert_html("afterbegin", &self.inserted),
        }
        self.after = Some(self.after.map_or(0, |at| at + 1) + self.inserting as usize - 1);
        self.moved += self.inserting;
        self.inserted.clear();
        self.inserting = 0;
        Some(())
    }
}

#[derive(Debug, PartialEq)]
enum Pair {
    Both(usize, usize),
    Old(usize),
    New(usize),
}

/// The old and new children in order: paired along the longest common subsequence of their
/// keys, the rest old (removed) or new (inserted). The common start and end are paired first, so
/// the table is only as large as the part that changed.
fn pairing<K: PartialEq>(was: &[K], now: &[K]) -> Vec<Pair> {
    let same = |i: usize, j: usize| was[i] == now[j];
    let head = (0..was.len().min(now.len()))
        .take_while(|&k| same(k, k))
        .count();
    let tail = (0..was.len().min(now.len()) - head)
        .take_while(|&k| same(was.len() - 1 - k, now.len() - 1 - k))
        .count();
    let (n, m) = (was.len() - head - tail, now.len() - head - tail);
    // lcs[i][j]: the longest common run of was[head+i..] and now[head+j..] (middle part only)
    let width = m + 1;
    let mut lcs = vec![0u16; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * width + j] = if same(head + i, head + j) {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let mut out: Vec<Pair> = (0..head).map(|k| Pair::Both(k, k)).collect();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && same(head + i, head + j) {
            out.push(Pair::Both(head + i, head + j));
            (i, j) = (i + 1, j + 1);
        } else if j < m && (i == n || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j]) {
            out.push(Pair::New(head + j));
            j += 1;
        } else {
            out.push(Pair::Old(head + i));
            i += 1;
        }
    }
    out.extend((0..tail).map(|k| Pair::Both(head + n + k, head + m + k)));
    out
}
