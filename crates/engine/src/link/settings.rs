//! The registry's settings in a link, by their keys ([`Setting::by_key`]).

use super::{Ignored, Read, Reading};
use crate::scenario::{Job, Scenario, Setting};

/// The scenario the other pairs go on: the job's defaults, wherever `j=` stands among the pairs,
/// then the framework's (the default framework's when the link names none), so that the link's
/// own values override them.
pub(super) fn first(pairs: &[(String, String)]) -> Scenario {
    let job = pairs
        .iter()
        .find(|(k, _)| k == "j")
        .and_then(|(_, v)| Job::from_key(v))
        .unwrap_or(Scenario::default().job);
    let mut s = Scenario::for_job(job);
    for key in ["j", "ft"] {
        if let (Some(st), Some((_, v))) = (
            Setting::by_key(key),
            pairs.iter().rev().find(|(k, _)| k == key),
        ) {
            // a refused value is reported by `read`
            let _ = st.apply(&mut s, v);
        }
    }
    let framework = s.framework;
    framework.apply(&mut s);
    s
}

/// Sets the registry's setting `key` names.
pub(super) fn read(key: &str, v: &str, r: &mut Reading) -> Read {
    let refused = |result: Result<_, _>| {
        result
            .err()
            .map_or(Read::Taken, |e| Read::Ignored(Ignored::Refused(e)))
    };
    match Setting::by_key(key) {
        // applied by `first`: only a refusal is left to say
        Some(st) if key == "ft" => refused(st.parse(v).map(|_| ())),
        Some(st) => refused(st.apply(&mut r.scenario, v)),
        None => Read::NotMine,
    }
}
