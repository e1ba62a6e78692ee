//! Where a page's script time goes: the V8 CPU profile that Chrome DevTools Protocol's
//! `Profiler.stop` returns, summed per function name. A wasm build keeps its functions' names
//! only when its name section survives (`wasm-opt -g`), which the benchmark's profile build does.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;

use serde_json::{json, Value};

use crate::Session;

/// Starts V8's CPU profiler in `session`, a sample every 100 µs.
pub fn start(session: &Session) {
    session.cdp("Profiler.enable", json!({}));
    session.cdp("Profiler.setSamplingInterval", json!({ "interval": 100 }));
    session.cdp("Profiler.start", json!({}));
}

/// Stops the profiler [`start`] started, writes its profile to `path` and returns it.
pub fn stop_into(session: &Session, path: &OsStr) -> Value {
    let profile = session.cdp("Profiler.stop", json!({}))["profile"].clone();
    let _ = std::fs::write(path, profile.to_string());
    profile
}

/// Prints the `top` functions with the most script time in `profile` (inclusive, then own), in
/// ms per one of the `count` things profiled: `of` names them all ("page presses"), `each` one
/// ("a press").
pub fn print_top(profile: &Value, count: usize, of: &str, each: &str, top: usize) {
    let (times, script) = function_times(profile);
    let ms_per_sample = sample_interval_us(profile) / 1000.0;
    let per_one = |samples: usize| samples as f64 * ms_per_sample / count.max(1) as f64;
    println!(
        "CPU profile of {count} {of}: script {:.2} ms {each} ({script} samples of {:.3} ms); by function, ms {each} within / own:",
        per_one(script),
        ms_per_sample
    );
    for t in times.iter().take(top) {
        println!(
            "  {:>6.3} / {:>6.3}  {}",
            per_one(t.within),
            per_one(t.own),
            t.name
        );
    }
}

/// One function's share of a profile, in samples.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionTime {
    pub name: String,
    /// samples with the function on top of the stack
    pub own: usize,
    /// samples with the function anywhere on the stack (counted once per sample)
    pub within: usize,
}

/// Node names that are not script: V8's bookkeeping nodes.
const NOT_SCRIPT: [&str; 3] = ["(idle)", "(program)", "(garbage collector)"];

/// Each function name's own and inclusive samples, largest inclusive first, and the number of
/// samples that were script at all (not idle, not V8's own bookkeeping).
pub fn function_times(profile: &Value) -> (Vec<FunctionTime>, usize) {
    let mut name_of = HashMap::new();
    let mut parent_of = HashMap::new();
    for node in profile["nodes"].as_array().into_iter().flatten() {
        let Some(id) = node["id"].as_u64() else {
            continue;
        };
        let frame = &node["callFrame"];
        let name = match frame["functionName"].as_str() {
            Some("") | None => "(anonymous)".to_string(),
            Some(n) => n.to_string(),
        };
        name_of.insert(id, name);
        for child in node["children"].as_array().into_iter().flatten() {
            if let Some(c) = child.as_u64() {
                parent_of.insert(c, id);
            }
        }
    }
    let mut times: HashMap<String, FunctionTime> = HashMap::new();
    let mut script = 0;
    for sample in profile["samples"].as_array().into_iter().flatten() {
        let Some(top) = sample.as_u64() else { continue };
        let Some(top_name) = name_of.get(&top) else {
            continue;
        };
        if NOT_SCRIPT.contains(&top_name.as_str()) || top_name == "(root)" {
            continue;
        }
        script += 1;
        entry(&mut times, top_name).own += 1;
        let mut seen = HashSet::new();
        let mut at = Some(top);
        while let Some(id) = at {
            let name = &name_of[&id];
            if name != "(root)" && seen.insert(name.clone()) {
                entry(&mut times, name).within += 1;
            }
            at = parent_of.get(&id).copied();
        }
    }
    let mut list: Vec<FunctionTime> = times.into_values().collect();
    list.sort_by(|a, b| b.within.cmp(&a.within).then(a.name.cmp(&b.name)));
    (list, script)
}

fn entry<'a>(times: &'a mut HashMap<String, FunctionTime>, name: &str) -> &'a mut FunctionTime {
    times
        .entry(name.to_string())
        .or_insert_with(|| FunctionTime {
            name: name.to_string(),
            own: 0,
            within: 0,
        })
}

/// The sampling interval of `profile`, in microseconds: the median gap between samples.
pub fn sample_interval_us(profile: &Value) -> f64 {
    let mut gaps: Vec<f64> = profile["timeDeltas"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_f64)
        .filter(|d| *d > 0.0)
        .collect();
    if gaps.is_empty() {
        return f64::NAN;
    }
    gaps.sort_by(|a, b| a.total_cmp(b));
    gaps[gaps.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// root → handler → { patch → parse, engine }, and an idle node.
    fn made_up_profile() -> Value {
        let node = |id: u64, name: &str, children: Vec<u64>| json!({"id": id, "callFrame": {"functionName": name}, "children": children});
        json!({
            "nodes": [
                node(1, "(root)", vec![2, 6]),
                node(2, "handler", vec![3, 5]),
                node(3, "patch", vec![4]),
                node(4, "parse", vec![]),
                node(5, "engine", vec![]),
                node(6, "(idle)", vec![]),
            ],
            "samples": [4, 4, 4, 3, 5, 2, 6, 6, 6, 6],
            "timeDeltas": [100, 100, 100, 100, 100, 100, 100, 100, 100, 100]
        })
    }

    #[test]
    fn a_functions_inclusive_time_counts_every_sample_below_it_and_idle_is_not_script() {
        let (times, script) = function_times(&made_up_profile());
        assert_eq!(script, 6);
        let of = |n: &str| times.iter().find(|t| t.name == n).cloned().unwrap();
        assert_eq!(
            (of("handler").own, of("handler").within),
            (1, 6),
            "{times:?}"
        );
        assert_eq!((of("patch").own, of("patch").within), (1, 4));
        assert_eq!((of("parse").own, of("parse").within), (3, 3));
        assert_eq!((of("engine").own, of("engine").within), (1, 1));
        assert!(times.iter().all(|t| t.name != "(idle)"));
        assert_eq!(times[0].name, "handler", "largest inclusive first");
    }

    #[test]
    fn a_recursive_function_is_counted_once_per_sample() {
        let profile = json!({
            "nodes": [
                {"id": 1, "callFrame": {"functionName": "(root)"}, "children": [2]},
                {"id": 2, "callFrame": {"functionName": "walk"}, "children": [3]},
                {"id": 3, "callFrame": {"functionName": "walk"}, "children": []},
            ],
            "samples": [3, 3],
            "timeDeltas": [50, 50]
        });
        let (times, _) = function_times(&profile);
        assert_eq!(times.len(), 1);
        assert_eq!((times[0].own, times[0].within), (2, 2));
        assert_eq!(sample_interval_us(&profile), 50.0);
    }
}
