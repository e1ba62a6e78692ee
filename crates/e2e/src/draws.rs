//! What the display compositor drew to show each key press, read from a Chromium trace recorded
//! with the `viz` category. Chromium's software compositor draws only
//! the frame's damage rect, the one rectangle around everything that changed on screen, so the
//! draw's time follows that rectangle's area: on this machine a press on the page with the charts
//! in view damaged about 1,034 × 446 px and was drawn in a median of 1.0–1.7 ms, a press on the
//! wide floor 1,240 × 739 px in 2.1 ms.

use serde_json::Value;

use crate::frames::{commit_end_after, keydowns, main_thread_spans, nearest_rank};

/// The draw that showed one press: its damage rect (x, y, width, height in the window's pixels)
/// and how long the draw and the swap took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Draw {
    pub damage: [u32; 4],
    pub ms: f64,
}

impl Draw {
    /// The damage rect's area in pixels.
    pub fn area(&self) -> u64 {
        u64::from(self.damage[2]) * u64::from(self.damage[3])
    }
}

/// A rect as viz writes it: "19,143 1196x857".
fn rect(text: &str) -> Option<[u32; 4]> {
    let (origin, size) = text.split_once(' ')?;
    let (x, y) = origin.split_once(',')?;
    let (w, h) = size.split_once('x')?;
    Some([
        x.parse().ok()?,
        y.parse().ok()?,
        w.parse().ok()?,
        h.parse().ok()?,
    ])
}

/// The damage rect of every frame drawn, with when it was drawn (µs).
fn damages(events: &[Value]) -> Vec<(f64, [u32; 4])> {
    events
        .iter()
        .filter(|e| e["name"] == "DirectRenderer::DrawFrame ProcessForOverlays")
        .filter_map(|e| {
            Some((
                e["ts"].as_f64()?,
                rect(e["args"]["root_damage_rect"].as_str()?)?,
            ))
        })
        .collect()
}

/// The draws and swaps (start and duration, µs).
fn draws_and_swaps(events: &[Value]) -> Vec<(f64, f64)> {
    events
        .iter()
        .filter(|e| e["name"] == "Display::DrawAndSwap" && e["ph"] == "X")
        .filter_map(|e| Some((e["ts"].as_f64()?, e["dur"].as_f64()?)))
        .collect()
}

/// The draw that showed each key press of the trace, in order: the first frame with damage drawn
/// after the commit that followed the keydown. `None` when the trace has no draws with damage (it
/// was recorded without `viz`) or a press has none.
pub fn draws_after_presses(events: &[Value]) -> Option<Vec<Draw>> {
    let spans = main_thread_spans(events);
    let damages = damages(events);
    let swaps = draws_and_swaps(events);
    if damages.is_empty() {
        return None;
    }
    keydowns(&spans)
        .into_iter()
        .map(|t0| {
            let committed = commit_end_after(&spans, t0)?;
            let (at, damage) = damages
                .iter()
                .filter(|(ts, d)| *ts > committed && d[2] > 0 && d[3] > 0)
                .min_by(|a, b| a.0.total_cmp(&b.0))?;
            let (_, dur) = swaps
                .iter()
                .find(|(ts, dur)| *ts <= *at && *at <= ts + dur)?;
            Some(Draw {
                damage: *damage,
                ms: dur / 1000.0,
            })
        })
        .collect()
}

/// "damage median 1034×446 px (largest 1196×857), draw and swap median 1.9 ms, p90 2.7 ms":
/// the median press by damaged area, the largest, and the draw times' median and p90 (nearest
/// rank).
pub fn summary(draws: &[Draw]) -> Option<String> {
    let mut by_area = draws.to_vec();
    by_area.sort_by_key(Draw::area);
    let mut ms: Vec<f64> = draws.iter().map(|d| d.ms).collect();
    ms.sort_by(f64::total_cmp);
    let (median, largest) = (by_area.get(nearest_rank(draws.len(), 50))?, by_area.last()?);
    Some(format!(
        "damage median {}×{} px (largest {}×{}), draw and swap median {:.1} ms, p90 {:.1} ms",
        median.damage[2],
        median.damage[3],
        largest.damage[2],
        largest.damage[3],
        ms[nearest_rank(ms.len(), 50)],
        ms[nearest_rank(ms.len(), 90)]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A trace: the renderer's main thread (pid 1, tid 1), a keydown at `key` µs, its frame's
    /// commit ending at `key` + 6,000, then the display's draws (start, duration, damage).
    fn trace(key: f64, draws: &[(f64, f64, &str)]) -> Vec<Value> {
        let main = |name: &str, ts: f64, dur: f64, kind: &str| {
            json!({"name": name, "ph": "X", "pid": 1, "tid": 1, "ts": ts, "dur": dur,
                   "args": {"data": {"type": kind}}})
        };
        let mut events = vec![
            json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 1,
                   "args": {"name": "CrRendererMain"}}),
            main("EventDispatch", key, 2_000.0, "keydown"),
            main("Commit", key + 5_000.0, 1_000.0, ""),
        ];
        for &(ts, dur, damage) in draws {
            events.push(
                json!({"name": "Display::DrawAndSwap", "ph": "X", "pid": 2, "tid": 2,
                               "ts": ts, "dur": dur}),
            );
            events.push(
                json!({"name": "DirectRenderer::DrawFrame ProcessForOverlays",
                               "ph": "X", "pid": 2, "tid": 2, "ts": ts + 10.0, "dur": 1.0,
                               "args": {"root_damage_rect": damage}}),
            );
        }
        events
    }

    #[test]
    fn a_press_is_shown_by_the_first_draw_with_damage_after_its_commit() {
        let events = trace(
            0.0,
            &[
                // before the commit: an earlier frame
                (4_000.0, 900.0, "0,143 1280x857"),
                // after it, a frame with nothing to draw, then the press's
                (6_500.0, 100.0, "0,0 0x0"),
                (8_000.0, 2_500.0, "34,143 1034x446"),
                (20_000.0, 1_000.0, "19,143 1196x857"),
            ],
        );
        let shown = draws_after_presses(&events).expect("a draw");
        assert_eq!(
            shown,
            vec![Draw {
                damage: [34, 143, 1034, 446],
                ms: 2.5
            }]
        );
        assert_eq!(shown[0].area(), 461_164);
    }

    #[test]
    fn a_trace_without_the_display_compositor_has_no_draws() {
        assert_eq!(draws_after_presses(&trace(0.0, &[])), None);
        // a draw, but none after the press's commit
        let events = trace(10_000.0, &[(8_000.0, 2_500.0, "34,143 1034x446")]);
        assert_eq!(draws_after_presses(&events), None);
    }

    #[test]
    fn the_summary_gives_the_median_and_largest_damage_and_the_draw_times() {
        let d = |w: u32, h: u32, ms: f64| Draw {
            damage: [0, 143, w, h],
            ms,
        };
        let draws = [
            d(1196, 857, 4.2),
            d(1034, 446, 2.0),
            d(1034, 446, 1.2),
            d(628, 410, 0.7),
        ];
        assert_eq!(
            summary(&draws).as_deref(),
            Some("damage median 1034×446 px (largest 1196×857), draw and swap median 1.2 ms, p90 4.2 ms")
        );
        assert_eq!(summary(&[]), None);
    }
}
