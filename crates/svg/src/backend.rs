//! Where plotters draws: each shape it draws kept as a [`Shape`], with integer coordinates and
//! transparencies and font sizes in hundredths. plotters' own SVG backend writes each
//! transparency and font size with `{}` on an `f64`, which linked core's float printing (Grisu
//! and Dragon4, about 6 KB gzip) into the first load; it also wrote `opacity="1"` on every
//! element and a line break around each text. What plotters lays out (ticks, labels, axes,
//! where a value lands) is unchanged.

use plotters::style::RGBColor;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};

use crate::shape::{Anchor, Colour, Font, Geometry, Paint, Shape, Stroke, Text, Transform};

/// The colour plotters is given for text, axes and grid; kept as [`Paint::Ink`]
/// (`currentColor`), so they follow the page's theme.
pub const INK: RGBColor = RGBColor(1, 2, 3);

/// A drawing of `size` pixels: plotters' shapes, added to `out` as it draws them.
pub struct Shapes<'a> {
    out: &'a mut Vec<Shape>,
    size: (u32, u32),
}

impl<'a> Shapes<'a> {
    pub fn new(out: &'a mut Vec<Shape>, size: (u32, u32)) -> Shapes<'a> {
        Shapes { out, size }
    }
}

/// Drawing into a list cannot fail.
#[derive(Debug)]
pub struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

type Drawn = Result<(), DrawingErrorKind<Never>>;

/// A plotters colour: [`Paint::Ink`] for [`INK`], its transparency in hundredths.
fn colour(c: BackendColor) -> Colour {
    let paint = match c.rgb {
        (r, g, b) if (r, g, b) == (INK.0, INK.1, INK.2) => Paint::Ink,
        (r, g, b) => Paint::Rgb(r, g, b),
    };
    Colour {
        paint,
        opacity: (c.alpha.clamp(0.0, 1.0) * 100.0).round() as u8,
    }
}

/// An outline in `style`: no fill, and its stroke.
fn outlined<S: BackendStyle>(geometry: Geometry, style: &S) -> Shape {
    Shape {
        fill: Some(Colour::opaque(Paint::Nothing)),
        stroke: Some(Stroke {
            colour: colour(style.color()),
            width: Some(style.stroke_width()),
            dash: None,
        }),
        ..Shape::new(geometry)
    }
}

/// A filled shape in `style`'s colour.
fn filled<S: BackendStyle>(geometry: Geometry, style: &S) -> Shape {
    Shape {
        fill: Some(colour(style.color())),
        ..Shape::new(geometry)
    }
}

/// Filled, or outlined.
fn painted<S: BackendStyle>(geometry: Geometry, style: &S, fill: bool) -> Shape {
    if fill {
        filled(geometry, style)
    } else {
        outlined(geometry, style)
    }
}

impl DrawingBackend for Shapes<'_> {
    type ErrorType = Never;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }

    fn present(&mut self) -> Drawn {
        Ok(())
    }

    fn draw_pixel(&mut self, (x, y): BackendCoord, c: BackendColor) -> Drawn {
        if c.alpha > 0.0 {
            self.out.push(Shape {
                fill: Some(colour(c)),
                ..Shape::new(Geometry::Rect {
                    x,
                    y,
                    width: 1,
                    height: 1,
                })
            });
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, s: &S) -> Drawn {
        if s.color().alpha > 0.0 {
            self.out.push(outlined(Geometry::Line(Some((from, to))), s));
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
            let (width, height) = (right - x, bottom - y);
            let rect = Geometry::Rect {
                x,
                y,
                width,
                height,
            };
            self.out.push(painted(rect, s, fill));
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Drawn {
        if s.color().alpha > 0.0 {
            let line = Geometry::Polyline(path.into_iter().collect());
            self.out.push(outlined(line, s));
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Drawn {
        if s.color().alpha > 0.0 {
            let polygon = Geometry::Polygon(path.into_iter().collect());
            self.out.push(filled(polygon, s));
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        centre: BackendCoord,
        r: u32,
        s: &S,
        fill: bool,
    ) -> Drawn {
        if s.color().alpha > 0.0 {
            self.out
                .push(painted(Geometry::Circle(Some(centre), r), s, fill));
        }
        Ok(())
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, s: &T, (x, y): BackendCoord) -> Drawn {
        if s.color().alpha <= 0.0 {
            return Ok(());
        }
        let anchor = match s.anchor().h_pos {
            HPos::Left => Anchor::Start,
            HPos::Right => Anchor::End,
            HPos::Center => Anchor::Middle,
        };
        let dy = match s.anchor().v_pos {
            VPos::Top => "0.76em",
            VPos::Center => "0.5ex",
            VPos::Bottom => "-0.5ex",
        };
        let turn = match s.transform() {
            FontTransform::Rotate90 => Some(90),
            FontTransform::Rotate180 => Some(180),
            FontTransform::Rotate270 => Some(270),
            FontTransform::None => None,
        };
        // plotters' sizes are 1.24 times the CSS pixels its SVG backend writes
        let font = Font {
            family: s.family().as_str().to_string(),
            size: (s.size() / 1.24 * 100.0).round() as u32,
        };
        self.out.push(Shape {
            fill: Some(colour(s.color())),
            transform: turn.map(|deg| Transform::Rotate(deg, x, y)),
            ..Shape::new(Geometry::Text(Text {
                x: Some(x),
                y: Some(y),
                dy: Some(dy),
                anchor: Some(anchor),
                font: Some(font),
                middle: false,
                content: text.to_string(),
            }))
        });
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
        let mut shapes = Vec::new();
        {
            let root = Shapes::new(&mut shapes, (200, 100)).into_drawing_area();
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
        let out = crate::markup(&shapes, (200, 100), "");
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
