//! Where plotters draws: its shapes written as compact SVG, with integers and two-decimal
//! transparencies only. plotters' own SVG backend writes each transparency and font size with
//! `{}` on an `f64`, which linked core's float printing (Grisu and Dragon4, about 6 KB gzip) into
//! the first load; it also wrote `opacity="1"` on every element and a line break around each
//! text. What plotters lays out (ticks, labels, axes, where a value lands) is unchanged.

use plotters::style::RGBColor;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use vram_engine::decimal;

use vram_text::escape;

/// The colour plotters is given for text, axes and grid; written `currentColor`, so they follow
/// the page's theme.
pub const INK: RGBColor = RGBColor(1, 2, 3);

/// An SVG document of `size` pixels, written into `out` as plotters draws.
pub struct Svg<'a> {
    out: &'a mut String,
    size: (u32, u32),
    closed: bool,
}

impl<'a> Svg<'a> {
    pub fn new(out: &'a mut String, size: (u32, u32)) -> Svg<'a> {
        let (w, h) = size;
        out.push_str(&format!(
            r#"<svg width="{w}" height="{h}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg">"#
        ));
        Svg {
            out,
            size,
            closed: false,
        }
    }
}

/// Drawing into a string cannot fail.
#[derive(Debug)]
pub struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

type Drawn = Result<(), DrawingErrorKind<Never>>;

/// `#rrggbb`, or `currentColor` for [`INK`].
fn colour(c: BackendColor) -> String {
    match c.rgb {
        (r, g, b) if (r, g, b) == (INK.0, INK.1, INK.2) => "currentColor".to_string(),
        (r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
    }
}

/// `name="colour"`, and its transparency as `name-opacity` when the colour is not opaque.
fn paint(name: &str, c: BackendColor) -> String {
    let mut out = format!(r#" {name}="{}""#, colour(c));
    if c.alpha < 1.0 {
        out.push_str(&format!(r#" {name}-opacity="{}""#, decimal(c.alpha, 2)));
    }
    out
}

/// A filled shape's fill, or an outline's stroke.
fn fill_or_stroke<S: BackendStyle>(s: &S, fill: bool) -> String {
    if fill {
        paint("fill", s.color())
    } else {
        stroke(s)
    }
}

fn stroke<S: BackendStyle>(style: &S) -> String {
    format!(
        r#" fill="none"{} stroke-width="{}""#,
        paint("stroke", style.color()),
        style.stroke_width()
    )
}

/// A polyline or polygon through `path`, with its `look` (stroke or fill attributes).
fn shape(tag: &str, path: impl IntoIterator<Item = BackendCoord>, look: &str) -> String {
    let all: Vec<String> = path.into_iter().map(|(x, y)| format!("{x},{y}")).collect();
    format!(r#"<{tag} points="{}"{look}/>"#, all.join(" "))
}

impl DrawingBackend for Svg<'_> {
    type ErrorType = Never;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }

    fn present(&mut self) -> Drawn {
        if !self.closed {
            self.out.push_str("</svg>");
            self.closed = true;
        }
        Ok(())
    }

    fn draw_pixel(&mut self, (x, y): BackendCoord, c: BackendColor) -> Drawn {
        if c.alpha > 0.0 {
            let fill = paint("fill", c);
            self.out.push_str(&format!(
                r#"<rect x="{x}" y="{y}" width="1" height="1"{fill}/>"#
            ));
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, s: &S) -> Drawn {
        if s.color().alpha > 0.0 {
            let ((x1, y1), (x2, y2)) = (from, to);
            self.out.push_str(&format!(
                r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"{}/>"#,
                stroke(s)
            ));
        }
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (x, y): BackendCoord,
        (right, bottom): BackendCoord,
        s: &S,
        fill: bool,
    ) -> Drawn {
        if s.color().alpha > 0.0 {
            let look = fill_or_stroke(s, fill);
            let (w, h) = (right - x, bottom - y);
            self.out.push_str(&format!(
                r#"<rect x="{x}" y="{y}" width="{w}" height="{h}"{look}/>"#
            ));
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Drawn {
        if s.color().alpha > 0.0 {
            self.out.push_str(&shape("polyline", path, &stroke(s)));
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Drawn {
        if s.color().alpha > 0.0 {
            self.out
                .push_str(&shape("polygon", path, &paint("fill", s.color())));
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (cx, cy): BackendCoord,
        r: u32,
        s: &S,
        fill: bool,
    ) -> Drawn {
        if s.color().alpha > 0.0 {
            let look = fill_or_stroke(s, fill);
            self.out
                .push_str(&format!(r#"<circle cx="{cx}" cy="{cy}" r="{r}"{look}/>"#));
        }
        Ok(())
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, s: &T, (x, y): BackendCoord) -> Drawn {
        if s.color().alpha <= 0.0 {
            return Ok(());
        }
        let anchor = match s.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "middle",
        };
        let dy = match s.anchor().v_pos {
            VPos::Top => "0.76em",
            VPos::Center => "0.5ex",
            VPos::Bottom => "-0.5ex",
        };
        let turn = match s.transform() {
            FontTransform::Rotate90 => format!(r#" transform="rotate(90, {x}, {y})""#),
            FontTransform::Rotate180 => format!(r#" transform="rotate(180, {x}, {y})""#),
            FontTransform::Rotate270 => format!(r#" transform="rotate(270, {x}, {y})""#),
            FontTransform::None => String::new(),
        };
        // plotters' sizes are 1.24 times the CSS pixels its SVG backend writes
        self.out.push_str(&format!(
            r#"<text x="{x}" y="{y}" dy="{dy}" text-anchor="{anchor}" font-family="{}" font-size="{}"{}{turn}>{}</text>"#,
            s.family().as_str(),
            decimal(s.size() / 1.24, 2),
            paint("fill", s.color()),
            escape(text)
        ));
        Ok(())
    }

    /// A width of 0.7 em a character, as plotters estimates without a font of its own: plotters
    /// asks only to align labels on a right-hand axis, which the charts do not have, and its
    /// browser estimate adds an element to the page and reads its size (a layout) for each text.
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        s: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Never>> {
        let em = s.size() / 1.24 / 1.24;
        let width = em * 0.7 * text.chars().count() as f64;
        Ok((width.round() as u32, (em * 1.24).round() as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    #[test]
    fn a_chart_is_written_in_the_themes_ink_with_transparency_only_where_asked_and_text_escaped() {
        let mut out = String::new();
        {
            let root = Svg::new(&mut out, (200, 100)).into_drawing_area();
            let mut chart = ChartBuilder::on(&root)
                .x_label_area_size(20)
                .y_label_area_size(30)
                .build_cartesian_2d(crate::Axis::from(0.0..1.0), crate::Axis::from(0.0..10.0))
                .unwrap();
            let ink = INK;
            chart
                .configure_mesh()
                .y_desc("a<b")
                .label_style((FontFamily::SansSerif, 12).into_font().color(&ink))
                .axis_style(ink)
                .bold_line_style(ink.mix(0.12))
                .max_light_lines(0)
                .draw()
                .unwrap();
            root.present().unwrap();
        }
        assert!(out.starts_with("<svg ") && out.ends_with("</svg>"), "{out}");
        assert!(
            out.contains(r#"stroke="currentColor" stroke-opacity="0.12""#),
            "{out}"
        );
        assert!(
            !out.contains(r#"opacity="1""#) && !out.contains("#010203"),
            "{out}"
        );
        assert!(out.contains("a&lt;b") && !out.contains("a<b"), "{out}");
        // plotters' 12 is 9.68 CSS pixels, as its own backend wrote it (9.67741935483871)
        assert!(out.contains(r#"font-size="9.68""#), "{out}");
        assert!(out.contains(">10.0</text>"), "{out}");
    }
}
