//! Where the page's and the local module's charts are drawn. plotters lays them out (ticks,
//! labels, axes, where each value lands); this crate writes what it draws as SVG text.
//!
//! Both of plotters' own pieces used here printed floats with `{}` or `{:.0}`, which linked core's
//! float printing (Grisu, Dragon4 and their tables) into each wasm module that draws a chart.

mod axis;
mod backend;

pub use axis::{tick_label, Axis};
pub use backend::{Never, Svg, INK};
