//! Where the page's and the local module's charts are drawn. plotters lays them out (ticks,
//! labels, axes, where each value lands) and draws into [`Shapes`]: a list of SVG elements with
//! typed attributes ([`Shape`]), which [`markup`] writes as SVG text and the page renders as
//! elements of its own.
//!
//! Both of plotters' own pieces used here printed floats with `{}` or `{:.0}`, which linked core's
//! float printing (Grisu, Dragon4 and their tables) into each wasm module that draws a chart.

mod axis;
mod backend;
mod shape;

pub use axis::{tick_label, Axis};
pub use backend::{Never, Shapes, INK};
pub use shape::{
    markup, Anchor, Colour, Font, Geometry, Paint, Shape, Stroke, Tag, Text, Transform,
};
