//! A small model of the page's tree for the tests: elements, text nodes and attributes that a
//! patch (`patch_inner`) writes to as it writes to the page, printed to compare with the tree
//! the new markup parses into.

use std::cell::RefCell;
use std::rc::Rc;

use super::markup::{parse, unescape_attribute, unescape_text, Content, Node, Part};
use super::patch::Tree;

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

fn element(node: &Node) -> Rc<RefCell<El>> {
    let content = match node.content().expect("markup the patch reads") {
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
fn part(p: &Part) -> Rc<RefCell<El>> {
    match p {
        Part::Element(e) => element(e),
        Part::Text(t) => Rc::new(RefCell::new(El {
            name: "#text".into(),
            attributes: Vec::new(),
            content: Inside::Text(unescape_text(t).unwrap_or_else(|| t.to_string())),
        })),
    }
}

/// `markup`'s elements, parsed the way the patch reads markup.
fn elements(markup: &str) -> Vec<Rc<RefCell<El>>> {
    let wrapped = format!("<x>{markup}</x>");
    let root = element(&parse(&wrapped).expect("markup the patch reads"));
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
        let root = parse(&wrapped).expect("markup the patch reads");
        let inside = std::mem::replace(
            &mut element(&root).borrow_mut().content,
            Inside::Text(String::new()),
        );
        self.el.borrow_mut().content = inside;
    }
    fn element_child(&self, at: usize) -> Option<Self> {
        self.child(|kids| {
            kids.iter()
                .filter(|k| k.borrow().name != "#text")
                .nth(at)
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
