//! The charts' axes: plotters' own `f64` axis (where values land, where the ticks go), with its
//! tick labels written by `vram_engine::units::decimal` instead of plotters' float printer, which
//! formats with `{:.0}` on an `f64` and so linked core's float printing into the first load.

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use vram_engine::units::decimal;

/// An `f64` axis over a range, labelled with the fewest decimals (at least one, at most five)
/// that write its ticks: "0.0", "2.5", "10.0", as plotters labels them.
pub struct Axis(RangedCoordf64);

impl From<Range<f64>> for Axis {
    fn from(range: Range<f64>) -> Axis {
        Axis(range.into())
    }
}

impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.0.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        self.0.key_points(hint)
    }

    fn range(&self) -> Range<f64> {
        self.0.range()
    }
}

impl ValueFormatter<f64> for Axis {
    fn format(value: &f64) -> String {
        tick_label(*value)
    }
}

/// `value` with the fewest decimals, one to five, that leave it within plotters' tolerance
/// (10^-5, growing tenfold with each decimal written).
pub fn tick_label(value: f64) -> String {
    let places = (0..5)
        .find(|&p| {
            let scaled = value * 10f64.powi(p);
            (scaled - scaled.round()).abs() < 1e-5 * 10f64.powi(p)
        })
        .unwrap_or(5);
    decimal(value, places.max(1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::data::float::FloatPrettyPrinter;

    #[test]
    fn tick_labels_read_as_plotters_writes_them() {
        let plotters = FloatPrettyPrinter {
            allow_scientific: false,
            min_decimal: 1,
            max_decimal: 5,
        };
        // the ticks of the axes the charts draw: 0 up to a round top, from 1 to 10^6 GiB
        for top in [
            1.0, 1.25, 3.5, 8.0, 12.5, 30.0, 70.0, 175.0, 600.0, 2500.0, 1e6,
        ] {
            let axis = Axis::from(0.0..top);
            for n in [3, 5, 8, 10, 12] {
                for v in axis.key_points(n) {
                    assert_eq!(tick_label(v), plotters.print(v), "{v} of 0..{top}");
                }
            }
        }
        assert_eq!(tick_label(0.0), "0.0");
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(0.125), "0.125");
    }
}
