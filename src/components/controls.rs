//! The sliders' scale: a numeric setting's slider steps on a log scale (positions 0..=1000)
//! unless its descriptor says otherwise; the controls themselves are markup
//! (`settings_list.rs`).

/// Slider position (0..=1000) for a value on a log scale from `min` to `max`.
pub(crate) fn log_pos(v: u64, min: u64, max: u64) -> u64 {
    let (v, min, max) = (
        v.clamp(min.max(1), max) as f64,
        min.max(1) as f64,
        max as f64,
    );
    ((v.ln() - min.ln()) / (max.ln() - min.ln()) * 1000.0).round() as u64
}

/// Value for a log-scale slider position, rounded to a power of two when `pow2`.
pub(crate) fn log_value(pos: u64, min: u64, max: u64, pow2: bool) -> u64 {
    let (min_f, max_f) = (min.max(1) as f64, max as f64);
    let v = (min_f.ln() + (max_f.ln() - min_f.ln()) * pos as f64 / 1000.0).exp();
    let v = if pow2 {
        2f64.powf(v.log2().round())
    } else {
        v.round()
    };
    (v as u64).clamp(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_slider_positions_round_trip_through_powers_of_two() {
        for v in [1u64, 2, 4, 64, 1024] {
            assert_eq!(log_value(log_pos(v, 1, 1024), 1, 1024, true), v);
        }
        assert_eq!(log_value(0, 128, 1_048_576, false), 128);
        assert_eq!(log_value(1000, 128, 1_048_576, false), 1_048_576);
    }
}
