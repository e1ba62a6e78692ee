//! What a chart is made of: SVG elements with typed attributes (integer coordinates, colours,
//! a class, data attributes, a title), written as SVG text by [`markup`] or rendered element by
//! element by the page. Both read an element's attributes through [`Shape::attribute`], in the
//! order of [`Shape::names`], so the text and the page's elements carry the same attributes.
//!
//! No attribute is written from an `f64`: transparencies and font sizes are kept in hundredths
//! and written as integers, so drawing a chart links none of core's float printing.

use vram_text::escape;

/// An SVG element's tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tag {
    Rect,
    Line,
    Polyline,
    Polygon,
    Circle,
    Text,
    Group,
}

impl Tag {
    pub fn name(self) -> &'static str {
        match self {
            Tag::Rect => "rect",
            Tag::Line => "line",
            Tag::Polyline => "polyline",
            Tag::Polygon => "polygon",
            Tag::Circle => "circle",
            Tag::Text => "text",
            Tag::Group => "g",
        }
    }

    /// The attributes of its own geometry, in the order they are written.
    pub fn geometry_names(self) -> &'static [&'static str] {
        match self {
            Tag::Rect => &["x", "y", "width", "height"],
            Tag::Line => &["x1", "y1", "x2", "y2"],
            Tag::Polyline | Tag::Polygon => &["points"],
            Tag::Circle => &["cx", "cy", "r"],
            Tag::Text => &[
                "x",
                "y",
                "dy",
                "text-anchor",
                "font-family",
                "font-size",
                "dominant-baseline",
            ],
            Tag::Group => &[],
        }
    }
}

/// The attributes every element starts with, before its data attributes and its geometry's.
const HEAD: [&str; 3] = ["id", "class", "tabindex"];

/// The paint, transform and visibility attributes every element ends with.
const LOOK: [&str; 8] = [
    "fill",
    "fill-opacity",
    "stroke",
    "stroke-opacity",
    "stroke-width",
    "stroke-dasharray",
    "transform",
    "display",
];

/// A colour as SVG writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Paint {
    /// `none`
    Nothing,
    /// `currentColor`: the page's theme
    Ink,
    Rgb(u8, u8, u8),
}

impl Paint {
    pub fn css(self) -> String {
        match self {
            Paint::Nothing => "none".to_string(),
            Paint::Ink => "currentColor".to_string(),
            Paint::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        }
    }
}

/// A paint and its opacity in hundredths (100: opaque, and not written).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Colour {
    pub paint: Paint,
    pub opacity: u8,
}

impl Colour {
    pub const fn opaque(paint: Paint) -> Colour {
        Colour {
            paint,
            opacity: 100,
        }
    }

    fn opacity(self) -> Option<String> {
        (self.opacity < 100).then(|| hundredths(self.opacity.into()))
    }
}

/// An outline: its colour, width in pixels and dashes (dash, gap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stroke {
    pub colour: Colour,
    pub width: Option<u32>,
    pub dash: Option<(u32, u32)>,
}

/// A transform: turned by degrees about a point, or moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transform {
    Rotate(u16, i32, i32),
    Translate(i32, i32),
}

/// Where a text's `text-anchor` puts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// A text's font: its family and its size in hundredths of a CSS pixel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Font {
    pub family: String,
    pub size: u32,
}

/// A text: where it stands (either coordinate may be left to the page), how it is set, and what
/// it says.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Text {
    pub x: Option<i32>,
    pub y: Option<i32>,
    /// `dy`, as an em or ex length plotters aligns with ("0.76em")
    pub dy: Option<&'static str>,
    pub anchor: Option<Anchor>,
    pub font: Option<Font>,
    /// `dominant-baseline="middle"`
    pub middle: bool,
    pub content: String,
}

/// An element's own geometry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Geometry {
    Rect {
        x: i32,
        y: i32,
        width: i32,
        height: i32,
    },
    /// From one end to the other; a hidden line may have none
    Line(Option<((i32, i32), (i32, i32))>),
    Polyline(Vec<(i32, i32)>),
    Polygon(Vec<(i32, i32)>),
    /// Its centre (or the origin of its group, unwritten) and radius
    Circle(Option<(i32, i32)>, u32),
    Text(Text),
    /// Its elements, drawn in order
    Group(Vec<Shape>),
}

/// One SVG element: its geometry, and the attributes every tag may carry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub geometry: Geometry,
    pub id: Option<&'static str>,
    pub class: Option<&'static str>,
    /// `tabindex="0"`: it takes the keyboard's focus
    pub focusable: bool,
    /// Its data attributes, named in full ("data-gpus"), in the order they are written
    pub data: Vec<(&'static str, String)>,
    pub fill: Option<Colour>,
    pub stroke: Option<Stroke>,
    pub transform: Option<Transform>,
    /// `display="none"`
    pub hidden: bool,
    /// A `<title>` child, first: its tooltip and accessible name
    pub title: Option<String>,
}

impl Shape {
    /// An element of `geometry` with no other attribute.
    pub fn new(geometry: Geometry) -> Shape {
        Shape {
            geometry,
            id: None,
            class: None,
            focusable: false,
            data: Vec::new(),
            fill: None,
            stroke: None,
            transform: None,
            hidden: false,
            title: None,
        }
    }

    pub fn tag(&self) -> Tag {
        match self.geometry {
            Geometry::Rect { .. } => Tag::Rect,
            Geometry::Line(_) => Tag::Line,
            Geometry::Polyline(_) => Tag::Polyline,
            Geometry::Polygon(_) => Tag::Polygon,
            Geometry::Circle(..) => Tag::Circle,
            Geometry::Text(_) => Tag::Text,
            Geometry::Group(_) => Tag::Group,
        }
    }

    /// Its text, for a text.
    pub fn content(&self) -> Option<&str> {
        match &self.geometry {
            Geometry::Text(t) => Some(&t.content),
            _ => None,
        }
    }

    /// Its elements, for a group.
    pub fn children(&self) -> &[Shape] {
        match &self.geometry {
            Geometry::Group(kids) => kids,
            _ => &[],
        }
    }

    /// The names of every attribute it may have, in the order they are written: `id`, `class`,
    /// `tabindex`, its data attributes, its geometry's ([`Tag::geometry_names`]), then its
    /// paint, transform and visibility.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        HEAD.into_iter()
            .chain(self.data.iter().map(|(n, _)| *n))
            .chain(self.tag().geometry_names().iter().copied())
            .chain(LOOK)
    }

    /// The value of its attribute `name`, as SVG writes it (unescaped), or none where it has
    /// none.
    pub fn attribute(&self, name: &str) -> Option<String> {
        if name.starts_with("data-") {
            return self
                .data
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone());
        }
        let fill = || self.fill.map(|c| c.paint.css());
        let stroke = self.stroke;
        match name {
            "id" => self.id.map(str::to_string),
            "class" => self.class.map(str::to_string),
            "tabindex" => self.focusable.then(|| "0".to_string()),
            "fill" => fill(),
            "fill-opacity" => self.fill.and_then(Colour::opacity),
            "stroke" => stroke.map(|s| s.colour.paint.css()),
            "stroke-opacity" => stroke.and_then(|s| s.colour.opacity()),
            "stroke-width" => stroke.and_then(|s| s.width).map(|w| w.to_string()),
            "stroke-dasharray" => stroke.and_then(|s| s.dash).map(|(d, g)| format!("{d} {g}")),
            "transform" => self.transform.map(|t| match t {
                Transform::Rotate(deg, x, y) => format!("rotate({deg}, {x}, {y})"),
                Transform::Translate(x, y) => format!("translate({x},{y})"),
            }),
            "display" => self.hidden.then(|| "none".to_string()),
            _ => self.geometry.attribute(name),
        }
    }
}

impl Geometry {
    fn attribute(&self, name: &str) -> Option<String> {
        let n = |v: i32| Some(v.to_string());
        match (self, name) {
            (Geometry::Rect { x, .. }, "x") => n(*x),
            (Geometry::Rect { y, .. }, "y") => n(*y),
            (Geometry::Rect { width, .. }, "width") => n(*width),
            (Geometry::Rect { height, .. }, "height") => n(*height),
            (Geometry::Line(Some(((x1, y1), (x2, y2)))), _) => match name {
                "x1" => n(*x1),
                "y1" => n(*y1),
                "x2" => n(*x2),
                "y2" => n(*y2),
                _ => None,
            },
            (Geometry::Polyline(p) | Geometry::Polygon(p), "points") => Some(points(p)),
            (Geometry::Circle(Some((cx, _)), _), "cx") => n(*cx),
            (Geometry::Circle(Some((_, cy)), _), "cy") => n(*cy),
            (Geometry::Circle(_, r), "r") => Some(r.to_string()),
            (Geometry::Text(t), _) => match name {
                "x" => t.x.map(|x| x.to_string()),
                "y" => t.y.map(|y| y.to_string()),
                "dy" => t.dy.map(str::to_string),
                "text-anchor" => t.anchor.map(|a| {
                    match a {
                        Anchor::Start => "start",
                        Anchor::Middle => "middle",
                        Anchor::End => "end",
                    }
                    .to_string()
                }),
                "font-family" => t.font.as_ref().map(|f| f.family.clone()),
                "font-size" => t.font.as_ref().map(|f| hundredths(f.size)),
                "dominant-baseline" => t.middle.then(|| "middle".to_string()),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A polygon's or polyline's points: "x,y x,y …".
fn points(path: &[(i32, i32)]) -> String {
    let all: Vec<String> = path.iter().map(|(x, y)| format!("{x},{y}")).collect();
    all.join(" ")
}

/// `h` hundredths with two decimals: "0.12", "9.68", as `vram_engine::units::decimal(h / 100, 2)`.
fn hundredths(h: u32) -> String {
    format!("{}.{:02}", h / 100, h % 100)
}

/// An SVG document of `size` pixels holding `shapes`, with `title` (none where empty) first.
pub fn markup(shapes: &[Shape], size: (u32, u32), title: &str) -> String {
    let (w, h) = size;
    let mut out = format!(
        r#"<svg width="{w}" height="{h}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg">"#
    );
    if !title.is_empty() {
        out.push_str(&format!("<title>{}</title>", escape(title)));
    }
    for s in shapes {
        write(s, &mut out);
    }
    out.push_str("</svg>");
    out
}

/// One element and its children as SVG text, its attribute values and text escaped.
fn write(s: &Shape, out: &mut String) {
    let tag = s.tag().name();
    out.push('<');
    out.push_str(tag);
    for name in s.names() {
        if let Some(v) = s.attribute(name) {
            out.push_str(&format!(r#" {name}="{}""#, escape(&v)));
        }
    }
    let (content, kids) = (s.content(), s.children());
    if s.title.is_none() && content.is_none() && kids.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    if let Some(title) = &s.title {
        out.push_str(&format!("<title>{}</title>", escape(title)));
    }
    if let Some(text) = content {
        out.push_str(&escape(text));
    }
    for kid in kids {
        write(kid, out);
    }
    out.push_str(&format!("</{tag}>"));
}
