//! The local run's decode speed against -ngl, drawn with plotters into an SVG string: an upper
//! bound from memory bandwidth, with the current -ngl and the largest that fits marked.

use plotters::prelude::*;

// text and grid in INK follow the page's theme: it is written `currentColor`
use vram_svg::{markup, Axis, Shapes, INK};

const LINE: RGBColor = RGBColor(0x4e, 0x79, 0xa7);
const FITS: RGBColor = RGBColor(0x59, 0xa1, 0x4f);

/// `points`: (-ngl, tokens/s); `current`: the chosen -ngl; `largest`: the largest that fits;
/// `x_desc` / `y_desc` / `title`: the axis names and the title in the page's language.
pub fn speed_chart(
    points: &[(u64, f64)],
    current: u64,
    largest: Option<u64>,
    x_desc: &str,
    y_desc: &str,
    title: &str,
) -> String {
    let finite: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.1.is_finite())
        .map(|&(n, v)| (n as f64, v))
        .collect();
    let (Some(first), Some(last)) = (finite.first(), finite.last()) else {
        return String::new();
    };
    let (x0, x1) = (first.0, last.0.max(first.0 + 1.0));
    let ymax = finite.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    const SIZE: (u32, u32) = (640, 260);
    let mut shapes = Vec::new();
    let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = Shapes::new(&mut shapes, SIZE).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(Axis::from(x0..x1), Axis::from(0f64..ymax))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            // named by the enum: the string form lowercases it and links Unicode's case tables
            .label_style((FontFamily::SansSerif, 12).into_font().color(&INK))
            .axis_style(INK)
            .bold_line_style(INK.mix(0.12))
            .light_line_style(INK.mix(0.05))
            .draw()?;
        if let Some(n) = largest {
            // max and min, not clamp: clamp's panic message prints floats
            let n = (n as f64).max(x0).min(x1);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, 0.0), (n, ymax)],
                FITS.mix(0.12).filled(),
            )))?;
        }
        chart.draw_series(std::iter::once(PathElement::new(
            finite.clone(),
            LINE.stroke_width(2),
        )))?;
        let cur = (current as f64).max(x0).min(x1);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(cur, 0.0), (cur, ymax)],
            INK.mix(0.5).stroke_width(1),
        )))?;
        root.present()?;
        Ok(())
    })();
    if drawn.is_err() {
        return String::new();
    }
    markup(&shapes, SIZE, title)
}
