//! A chart updated in place. The new SVG is compared with the last one in Rust, element by element,
//! and the page's elements take only the attributes and text that differ: a bar that grew gets a
//! new `y` and `height`, and the axes, grid and labels that stay are not touched. The browser then
//! restyles, lays out and repaints what moved instead of parsing and painting a whole new chart.
//! A first draw, markup this module does not read, or a group whose elements changed in number or
//! kind is written whole. The verdict and the answer's panels are patched the same way, and a text
//! that changes for text goes through `textContent`, so no parser runs for it.

use wasm_bindgen::JsCast;
use web_sys::{Element, Node as PageNode};

/// What a patch writes to: the page's elements, or, in the tests, a record of the writes.
pub trait Tree: Sized {
    fn set_attribute(&self, name: &str, value: &str);
    fn remove_attribute(&self, name: &str);
    fn set_text(&self, text: &str);
    /// The slow write: the markup parsed and its elements built, styled and laid out anew.
    fn set_inner_html(&self, markup: &str);
    fn first_element_child(&self) -> Option<Self>;
    fn next_element_sibling(&self) -> Option<Self>;
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
        let _ = self.unchecked_ref::<Element>().set_attribute(name, value);
    }
    fn remove_attribute(&self, name: &str) {
        let _ = self.unchecked_ref::<Element>().remove_attribute(name);
    }
    fn set_text(&self, text: &str) {
        self.set_text_content(Some(text));
    }
    fn set_inner_html(&self, markup: &str) {
        self.unchecked_ref::<Element>().set_inner_html(markup);
    }
    fn first_element_child(&self) -> Option<Self> {
        let el = self.unchecked_ref::<Element>().first_element_child()?;
        Some(el.into())
    }
    fn next_element_sibling(&self) -> Option<Self> {
        let el = self.unchecked_ref::<Element>().next_element_sibling()?;
        Some(el.into())
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

/// Makes `host`'s content equal to the markup `new`, given that it shows `old` (what the last call
/// wrote): a chart's `<svg>` or a panel's list of elements, patched as the children of `host`.
pub fn patch_inner(host: &impl Tree, old: &str, new: &str) {
    let (was, now) = (format!("<x>{old}</x>"), format!("<x>{new}</x>"));
    match (parse(&was), parse(&now)) {
        (Some(was), Some(now)) if !old.is_empty() => patch_element(host, &was, &now),
        _ => host.set_inner_html(new),
    }
}

/// One element of the chart's markup: its name, attributes, what is inside and the whole text.
#[derive(Debug, PartialEq)]
pub(super) struct Node<'a> {
    pub name: &'a str,
    pub attributes: Vec<(&'a str, &'a str)>,
    pub content: Content<'a>,
    pub inner: &'a str,
    pub markup: &'a str,
}

#[derive(Debug, PartialEq)]
pub(super) enum Content<'a> {
    /// text only (escaped as in the markup), or nothing
    Text(&'a str),
    /// elements with nothing but white space between them
    Elements(Vec<Node<'a>>),
    /// text and elements mixed ("Needs <strong>22 GiB</strong> per GPU"): each run of text is a
    /// text node of the page, patched in place while the runs and elements keep their order
    Mixed(Vec<Part<'a>>),
}

/// A run of text (escaped, never empty) or an element, inside mixed content.
#[derive(Debug, PartialEq)]
pub(super) enum Part<'a> {
    Text(&'a str),
    Element(Node<'a>),
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
    match (&was.content, &now.content) {
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

/// What pairs an old child with a new one: its tag and class (a bar segment's group with a bar
/// segment's group, a grid line with a grid line), whatever its other attributes say.
fn key<'a>(node: &Node<'a>) -> (&'a str, &'a str) {
    let class = node.attributes.iter().find(|(n, _)| *n == "class");
    (node.name, class.map_or("", |(_, v)| v))
}

/// `parent`'s children made equal to `now`, given that they show `was`. The children are paired
/// in order by [`key`] (the longest common run of keys): a paired child is patched, an old child
/// left unpaired is removed, and each run of new ones is inserted as markup where it belongs. A
/// chart whose axis gains a tick, or whose bar loses a segment, keeps every other element.
fn patch_children<T: Tree>(parent: &T, was: &[Node], now: &[Node]) {
    let mut on_page = Vec::with_capacity(was.len());
    let mut next = parent.first_element_child();
    for _ in was {
        let Some(el) = next else { break };
        next = el.next_element_sibling();
        on_page.push(el);
    }
    if on_page.len() != was.len() {
        // the page is not what this module wrote last: write the list whole
        let markup: String = now.iter().map(|n| n.markup).collect();
        return parent.set_inner_html(&markup);
    }
    // `last`: the element the next insertion follows (none: the parent's start)
    let (mut last, mut inserted) = (None::<&T>, String::new());
    for step in pairing(was, now) {
        match step {
            Pair::Both(i, j) => {
                insert_after(parent, last, &mut inserted);
                patch_element(&on_page[i], &was[i], &now[j]);
                last = Some(&on_page[i]);
            }
            Pair::Old(i) => on_page[i].remove(),
            Pair::New(j) => inserted.push_str(now[j].markup),
        }
    }
    insert_after(parent, last, &mut inserted);
}

/// Inserts `markup` (and empties it) after `last`, or at the start of `parent`.
fn insert_after<T: Tree>(parent: &T, last: Option<&T>, markup: &mut String) {
    if markup.is_empty() {
        return;
    }
    match last {
        Some(el) => el.insert_html("afterend", markup),
        None => parent.insert_html("afterbegin", markup),
    }
    markup.clear();
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
fn pairing(was: &[Node], now: &[Node]) -> Vec<Pair> {
    let same = |i: usize, j: usize| key(&was[i]) == key(&now[j]);
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

/// Attribute values as the markup writes them; `set_attribute` takes them unescaped.
pub(super) fn unescape_attribute(value: &str) -> String {
    if !value.contains('&') {
        return value.to_string();
    }
    value
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Escaped text as plain text, when it holds no character reference but the five that
/// `vram_text::escape` and plotters write; `None` otherwise (the caller parses it).
pub(super) fn unescape_text(text: &str) -> Option<String> {
    const KNOWN: [(&str, char); 6] = [
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&quot;", '"'),
        ("&#39;", '\''),
        ("&apos;", '\''),
    ];
    let (mut plain, mut rest) = (String::with_capacity(text.len()), text);
    while let Some(at) = rest.find('&') {
        plain.push_str(&rest[..at]);
        let (reference, ch) = KNOWN.iter().find(|(r, _)| rest[at..].starts_with(r))?;
        plain.push(*ch);
        rest = &rest[at + reference.len()..];
    }
    plain.push_str(rest);
    Some(plain)
}

/// The markup that plotters and the overlay write: one root element, attribute values in double
/// quotes that hold no `<`, `>` or `"` (text is escaped), no comments. Anything else is `None`,
/// and the caller writes the chart whole.
pub(super) fn parse(markup: &str) -> Option<Node<'_>> {
    let markup = markup.trim();
    let (node, end) = parse_element(markup, 0)?;
    (end == markup.len()).then_some(node)
}

/// The element whose `<` is at `lt`, and where the markup after it starts.
fn parse_element(src: &str, lt: usize) -> Option<(Node<'_>, usize)> {
    if !src[lt..].starts_with('<') || src[lt..].starts_with("</") {
        return None;
    }
    let gt = lt + src[lt..].find('>')?;
    let tag = &src[lt + 1..gt];
    let self_closing = tag.ends_with('/');
    let tag = tag.trim_end_matches('/');
    let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
    let name = &tag[..name_end];
    let attributes = parse_attributes(&tag[name_end..])?;
    if name.is_empty() {
        return None;
    }
    if self_closing {
        let node = Node {
            name,
            attributes,
            content: Content::Text(""),
            inner: "",
            markup: &src[lt..=gt],
        };
        return Some((node, gt + 1));
    }
    let (mut children, mut runs, mut text, mut at) = (Vec::new(), Vec::new(), false, gt + 1);
    loop {
        let next = at + src[at..].find('<')?;
        text |= !src[at..next].trim().is_empty();
        // the text before each child, where the page holds a text node (none when empty)
        runs.push(&src[at..next]);
        if src[next..].starts_with("</") {
            let close = next + src[next..].find('>')?;
            if &src[next + 2..close] != name {
                return None;
            }
            let inner = &src[gt + 1..next];
            let content = match (children.is_empty(), text) {
                (true, _) => Content::Text(inner),
                (false, false) => Content::Elements(children),
                (false, true) => Content::Mixed(mixed(runs, children)),
            };
            let markup = &src[lt..=close];
            let node = Node {
                name,
                attributes,
                content,
                inner,
                markup,
            };
            return Some((node, close + 1));
        }
        let (child, end) = parse_element(src, next)?;
        children.push(child);
        at = end;
    }
}

/// The runs of text before each child and after the last, and the children, in page order.
fn mixed<'a>(runs: Vec<&'a str>, children: Vec<Node<'a>>) -> Vec<Part<'a>> {
    let mut parts = Vec::with_capacity(runs.len() + children.len());
    let mut children = children.into_iter();
    for run in runs {
        if !run.is_empty() {
            parts.push(Part::Text(run));
        }
        if let Some(child) = children.next() {
            parts.push(Part::Element(child));
        }
    }
    parts
}

/// ` x="1" class="seg"` as pairs.
fn parse_attributes(mut rest: &str) -> Option<Vec<(&str, &str)>> {
    let mut attributes = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Some(attributes);
        }
        let (name, after) = rest.split_once("=\"")?;
        let (value, after) = after.split_once('"')?;
        if name.is_empty() || name.contains(char::is_whitespace) {
            return None;
        }
        attributes.push((name, value));
        rest = after;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;
    use vram_engine::{Overview, Scenario};

    #[test]
    fn a_drawn_chart_reads_as_one_svg_with_a_group_per_bar_segment() {
        let s = Scenario::default();
        let c = Overview::compute(&s).unwrap();
        let svg = crate::chart::stacked(
            &c.bars,
            s.gpus,
            s.gpu.bytes(),
            s.gpu.label(),
            s.unit,
            Lang::En,
            None,
        );
        let root = parse(&svg).unwrap();
        assert_eq!(root.name, "svg");
        let Content::Elements(children) = &root.content else {
            panic!("{:?}", root.content);
        };
        let segments = children
            .iter()
            .filter(|n| n.attributes.contains(&("class", "seg")))
            .count();
        assert_eq!(segments, svg.matches(r#"<g class="seg""#).count());
        assert!(segments > 0);
        let markup: String = children.iter().map(|n| n.markup).collect();
        assert_eq!(markup.replace('\n', ""), root.inner.replace('\n', ""));
    }

    #[test]
    fn nested_groups_keep_their_attributes_and_escaped_text() {
        let root = parse(
            r#"<svg width="2"><rect x="1" y="2"/><g id="a"><title>x &lt; y</title><text>1</text></g></svg>"#,
        )
        .unwrap();
        assert_eq!(root.attributes, [("width", "2")]);
        let Content::Elements(children) = &root.content else {
            panic!("{:?}", root.content);
        };
        assert_eq!(children[0].attributes, [("x", "1"), ("y", "2")]);
        assert_eq!(children[0].markup, r#"<rect x="1" y="2"/>"#);
        let Content::Elements(group) = &children[1].content else {
            panic!("{:?}", children[1].content);
        };
        assert_eq!(group[0].content, Content::Text("x &lt; y"));
        assert_eq!(group[1].inner, "1");
    }

    #[test]
    fn markup_this_module_does_not_read_is_written_whole() {
        assert_eq!(parse(""), None);
        assert_eq!(parse("<svg><g></svg>"), None);
        assert_eq!(parse("<svg><rect/></g></svg>"), None);
        assert_eq!(parse("<svg x='1'></svg>"), None);
        assert_eq!(parse("<svg></svg><svg></svg>"), None);
        let mixed = parse("<svg>loose text<rect/></svg>").unwrap();
        assert!(matches!(mixed.content, Content::Mixed(_)));
    }

    #[test]
    fn the_answer_panels_read_as_elements_so_a_step_patches_them_in_place() {
        let s = Scenario::default();
        let c = Overview::compute(&s).unwrap();
        // what the fit panel writes, as `patch_inner` wraps it: no part of it is written whole
        let rows: String = c
            .verdicts
            .iter()
            .map(|v| {
                format!(
                    r#"<tr id="fit-{}"><td>{:.1}</td></tr>"#,
                    v.gpu.key(),
                    v.headroom as f64
                )
            })
            .collect();
        let markup = format!(
            r#"<x><h2 id="fit-h">a &amp; b</h2><textarea id="serve-command" readonly="" rows="6">x</textarea><table><tbody>{rows}</tbody></table></x>"#
        );
        let root = parse(&markup).unwrap();
        let Content::Elements(children) = &root.content else {
            panic!("{:?}", root.content);
        };
        assert_eq!(children.len(), 3);
        // a bare attribute (`readonly`) is not read: that markup would be written whole
        assert_eq!(
            parse(r#"<x><textarea readonly rows="6"></textarea></x>"#),
            None
        );
    }

    #[test]
    fn mixed_content_reads_as_the_text_nodes_and_elements_the_page_holds() {
        let p = parse(r#"<p>Needs <strong id="t">22 GiB</strong> per GPU<span> (x)</span></p>"#)
            .unwrap();
        let Content::Mixed(parts) = &p.content else {
            panic!("{:?}", p.content);
        };
        let kinds: Vec<&str> = parts
            .iter()
            .map(|part| match part {
                Part::Text(t) => t,
                Part::Element(e) => e.name,
            })
            .collect();
        assert_eq!(kinds, ["Needs ", "strong", " per GPU", "span"]);
    }

    #[test]
    fn escaped_text_is_written_as_plain_text_unless_it_holds_another_reference() {
        assert_eq!(
            unescape_text("a &lt; b &amp;&amp; c").as_deref(),
            Some("a < b && c")
        );
        assert_eq!(
            unescape_text("it&apos;s &#39;x&#39;").as_deref(),
            Some("it's 'x'")
        );
        assert_eq!(unescape_text("22.5 GiB").as_deref(), Some("22.5 GiB"));
        assert_eq!(unescape_text("&amp;apos;").as_deref(), Some("&apos;"));
        assert_eq!(unescape_text("a&nbsp;b"), None);
    }

    #[test]
    fn escaped_attribute_values_are_set_as_plain_text() {
        assert_eq!(
            unescape_attribute("a &amp;lt; &quot;b&quot;"),
            "a &lt; \"b\""
        );
        assert_eq!(unescape_attribute("12.5"), "12.5");
    }
}
