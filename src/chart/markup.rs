//! The markup the charts and the answer's panels are written in, read as the patch needs it:
//! elements with their attributes, text, and mixed text and elements, each part borrowed from the
//! markup. Only what plotters, the overlay and the panels write is read; anything else is `None`,
//! and the caller writes it whole.

/// One element of the chart's markup: its name, attributes, what is inside and the whole text.
/// What is inside is read only when asked ([`Node::content`]): a patch asks only of the elements
/// whose markup changed, so the parts of a chart or a panel that stay are scanned, not read.
#[derive(Debug, PartialEq)]
pub struct Node<'a> {
    pub name: &'a str,
    pub attributes: Vec<(&'a str, &'a str)>,
    pub inner: &'a str,
    pub markup: &'a str,
}

#[derive(Debug, PartialEq)]
pub enum Content<'a> {
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
pub enum Part<'a> {
    Text(&'a str),
    Element(Node<'a>),
}

impl<'a> Node<'a> {
    /// What is inside, one level deep: the text, or the child elements (their own content read
    /// when asked in turn). `None` for markup this module does not read (a child's attributes
    /// not in double quotes, say): the caller writes this element's content whole.
    pub fn content(&self) -> Option<Content<'a>> {
        let src = self.inner;
        let (mut children, mut runs, mut text, mut at) = (Vec::new(), Vec::new(), false, 0);
        while let Some(next) = find_byte(src, at, b'<') {
            text |= !blank(&src[at..next]);
            // the text before each child, where the page holds a text node (none when empty)
            runs.push(&src[at..next]);
            let (child, end) = parse_element(src, next)?;
            children.push(child);
            at = end;
        }
        text |= !blank(&src[at..]);
        runs.push(&src[at..]);
        Some(match (children.is_empty(), text) {
            (true, _) => Content::Text(src),
            (false, false) => Content::Elements(children),
            (false, true) => Content::Mixed(mixed(runs, children)),
        })
    }
}

/// Attribute values as the markup writes them; `set_attribute` takes them unescaped.
pub fn unescape_attribute(value: &str) -> String {
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
pub fn unescape_text(text: &str) -> Option<String> {
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
/// and the caller writes the chart whole. The root's content is read when asked.
pub fn parse(markup: &str) -> Option<Node<'_>> {
    let markup = markup.trim();
    let (name, attributes, gt, self_closing) = start_tag(markup, 0)?;
    let attributes = parse_attributes(attributes)?;
    // the root's end tag is the markup's end, read there rather than found by scanning every
    // tag inside (a scan of the whole chart); markup that closes the root early fails when its
    // content is read
    let inner = if self_closing {
        (gt + 1 == markup.len()).then_some("")?
    } else {
        let end_tag = markup
            .len()
            .checked_sub(name.len() + 3)
            .filter(|&at| at > gt)?;
        let closes = markup
            .get(end_tag..)?
            .strip_prefix("</")?
            .strip_suffix('>')?
            == name;
        closes.then(|| &markup[gt + 1..end_tag])?
    };
    Some(Node {
        name,
        attributes,
        inner,
        markup,
    })
}

/// Whether a run of text between elements is only white space (ASCII: the markup's own).
fn blank(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_whitespace())
}

/// Whether `markup` reads as [`parse`] does down to its last element: what the tests check of
/// the markup each panel writes.
#[cfg(test)]
pub fn reads_whole(markup: &str) -> bool {
    fn deep(node: &Node) -> bool {
        match node.content() {
            None => false,
            Some(Content::Text(_)) => true,
            Some(Content::Elements(kids)) => kids.iter().all(deep),
            Some(Content::Mixed(parts)) => parts.iter().all(|p| match p {
                Part::Text(_) => true,
                Part::Element(e) => deep(e),
            }),
        }
    }
    parse(markup).is_some_and(|root| deep(&root))
}

/// The element whose `<` is at `lt`, and where the markup after it starts. Its start tag is
/// read; the elements inside are only matched to their end tags.
fn parse_element(src: &str, lt: usize) -> Option<(Node<'_>, usize)> {
    let (name, attributes, gt, self_closing) = start_tag(src, lt)?;
    let attributes = parse_attributes(attributes)?;
    if self_closing {
        let node = Node {
            name,
            attributes,
            inner: "",
            markup: &src[lt..=gt],
        };
        return Some((node, gt + 1));
    }
    let (next, close) = end_tag(src, name, gt + 1)?;
    let node = Node {
        name,
        attributes,
        inner: &src[gt + 1..next],
        markup: &src[lt..=close],
    };
    Some((node, close + 1))
}

/// Where the byte `b` (an ASCII character) next is in `src`, from `from` on. The markup's
/// delimiters are all ASCII, so the scans read bytes: searching for a `char` set up a searcher on
/// every call, most of a step's reading of the bars (issue 16, nineteenth round).
fn find_byte(src: &str, from: usize, b: u8) -> Option<usize> {
    let at = src.as_bytes().get(from..)?.iter().position(|&c| c == b)?;
    Some(from + at)
}

/// The start tag at `lt`: its name, the text of its attributes, where its `>` is, and whether
/// it closes itself. `None` where `lt` holds no start tag.
fn start_tag(src: &str, lt: usize) -> Option<(&str, &str, usize, bool)> {
    let bytes = src.as_bytes();
    if bytes.get(lt) != Some(&b'<') || bytes.get(lt + 1) == Some(&b'/') {
        return None;
    }
    let gt = find_byte(src, lt, b'>')?;
    let self_closing = bytes[gt - 1] == b'/' && gt - 1 > lt;
    let tag = &src[lt + 1..if self_closing { gt - 1 } else { gt }];
    let name_end = tag
        .bytes()
        .position(|c| c.is_ascii_whitespace())
        .unwrap_or(tag.len());
    let name = &tag[..name_end];
    (!name.is_empty()).then_some((name, &tag[name_end..], gt, self_closing))
}

/// The end tag of the element `name` whose content starts at `from`: where its `</` and its `>`
/// are. The tags inside are only counted, opened and closed, not read: this scan runs over every
/// element's descendants, and reading each tag inside took most of a step's reading (issue 16).
/// An end tag that closes the element but names another is `None`.
fn end_tag(src: &str, name: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = src.as_bytes();
    let mut open = 0usize;
    let mut at = from;
    loop {
        let next = find_byte(src, at, b'<')?;
        let close = find_byte(src, next, b'>')?;
        if bytes.get(next + 1) == Some(&b'/') {
            if open == 0 {
                return (src.get(next + 2..close)? == name).then_some((next, close));
            }
            open -= 1;
        } else if bytes[close - 1] != b'/' {
            open += 1;
        }
        at = close + 1;
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
        rest = rest.trim_ascii_start();
        if rest.is_empty() {
            return Some(attributes);
        }
        let eq = find_byte(rest, 0, b'=')?;
        let name = &rest[..eq];
        if rest.as_bytes().get(eq + 1) != Some(&b'"') {
            return None;
        }
        let close = find_byte(rest, eq + 2, b'"')?;
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace()) {
            return None;
        }
        attributes.push((name, &rest[eq + 2..close]));
        rest = &rest[close + 1..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;
    use vram_engine::{Overview, Scenario};

    #[test]
    fn a_drawn_chart_reads_as_one_svg_with_a_rectangle_per_bar_segment() {
        let s = Scenario::default();
        let c = Overview::compute(&s).unwrap();
        let (shapes, _) = crate::chart::stacked(
            &crate::chart::bars(&c.bars),
            s.gpus,
            (s.gpu.bytes(), s.gpu.label()),
            s.unit,
            Lang::En,
            None,
            None,
        );
        let svg = crate::chart::svg_text(&shapes, crate::chart::BARS_SIZE, "bars");
        let root = parse(&svg).unwrap();
        assert_eq!(root.name, "svg");
        let Some(Content::Elements(children)) = root.content() else {
            panic!("{:?}", root.content());
        };
        let segments = children
            .iter()
            .filter(|n| n.attributes.contains(&("class", "seg")))
            .count();
        assert_eq!(segments, svg.matches(r#"<polygon class="seg""#).count());
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
        let Some(Content::Elements(children)) = root.content() else {
            panic!("{:?}", root.content());
        };
        assert_eq!(children[0].attributes, [("x", "1"), ("y", "2")]);
        assert_eq!(children[0].markup, r#"<rect x="1" y="2"/>"#);
        let Some(Content::Elements(group)) = children[1].content() else {
            panic!("{:?}", children[1].content());
        };
        assert_eq!(group[0].content(), Some(Content::Text("x &lt; y")));
        assert_eq!(group[1].inner, "1");
    }

    #[test]
    fn markup_this_module_does_not_read_is_written_whole() {
        // markup whose root, or whose root's content, does not read
        let unread = |m: &str| parse(m).and_then(|root| root.content()).is_none();
        assert_eq!(parse(""), None);
        assert!(unread("<svg><g></svg>"));
        assert!(unread("<svg><rect/></g></svg>"));
        // tags inside are only counted until their element is read: then a mismatch shows
        let crossed = parse("<svg><a></b></svg>").unwrap();
        assert_eq!(crossed.content(), None);
        assert_eq!(parse("<svg x='1'></svg>"), None);
        assert!(unread("<svg></svg><svg></svg>"));
        assert!(unread("<svg></svg></svg>"));
        assert_eq!(parse("<svg></g>"), None);
        let mixed = parse("<svg>loose text<rect/></svg>").unwrap();
        assert!(matches!(mixed.content(), Some(Content::Mixed(_))));
        // an element inside is read when its content is asked for: then it is written whole
        let inside = parse(r#"<svg><g><rect x='1'/></g></svg>"#).unwrap();
        let Some(Content::Elements(groups)) = inside.content() else {
            panic!("{:?}", inside.content());
        };
        assert_eq!(groups[0].content(), None);
        assert!(!reads_whole(r#"<svg><g><rect x='1'/></g></svg>"#));
        assert!(reads_whole(r#"<svg><g><rect x="1"/></g>text</svg>"#));
    }

    #[test]
    fn the_answer_panels_read_as_elements_so_a_step_patches_them_in_place() {
        let s = Scenario::default();
        let c = Overview::compute(&s).unwrap();
        let verdicts = vram_engine::verdicts(&s, &c.arch).unwrap();
        // what the fit table writes, as `patch_inner` wraps it: no part of it is written whole
        let rows: String = verdicts
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
        let Some(Content::Elements(children)) = root.content() else {
            panic!("{:?}", root.content());
        };
        assert_eq!(children.len(), 3);
        // a bare attribute (`readonly`) is not read: that markup would be written whole
        let bare = r#"<x><textarea readonly rows="6"></textarea></x>"#;
        assert_eq!(parse(bare).unwrap().content(), None);
        assert!(!reads_whole(bare));
    }

    #[test]
    fn mixed_content_reads_as_the_text_nodes_and_elements_the_page_holds() {
        let p = parse(r#"<p>Needs <strong id="t">22 GiB</strong> per GPU<span> (x)</span></p>"#)
            .unwrap();
        let Some(Content::Mixed(parts)) = p.content() else {
            panic!("{:?}", p.content());
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
