//! Behaviour frozen before a refactor: every share link in `frozen/links.txt` opens with exactly the
//! bytes, verdicts, solver answers and remedies recorded in `frozen/expected.txt`.
//!
//! A change that moves the physics on purpose re-records the file, and the diff shows what moved:
//! `VRAM_BLESS=1 cargo test -p vram-engine --release --test frozen`.

use std::fmt::Write as _;
use std::path::Path;

use vram_engine::{
    decode_link, encode_link, estimate_with, remedies, solve, verdicts, Answer, Component, Reach,
    SettingValue,
};

/// Everything a link's budget shows, as plain text (bytes and keys, no words).
fn record(link: &str) -> String {
    let mut o = String::new();
    let d = decode_link(link);
    let s = &d.scenario;
    let _ = writeln!(o, "link {link}");
    let _ = writeln!(o, "canonical {}", encode_link(s, &d.page));
    let _ = writeln!(o, "notices {}", d.notices.len());
    let arch = match s.model.architecture() {
        Ok(a) => a,
        Err(_) => {
            let _ = writeln!(o, "no architecture");
            return o;
        }
    };
    let b = match estimate_with(s, &arch, false) {
        Ok(b) => b,
        Err(_) => {
            let _ = writeln!(o, "no estimate");
            return o;
        }
    };
    let at: Vec<String> = Component::ALL
        .iter()
        .map(|c| format!("{}={}/{}", c.key(), b.bytes(*c), b.largest(*c)))
        .collect();
    let _ = writeln!(o, "components {}", at.join(" "));
    let _ = writeln!(
        o,
        "peak {} tensors {} total {} cpu {} params {} active {} trainable {} kv/token {}",
        b.peak_phase.key(),
        b.tensors,
        b.total,
        b.cpu,
        b.params.total(),
        b.active_params,
        b.trainable,
        b.kv_bytes_per_token
    );
    if let Some(f) = b.serving {
        let _ = writeln!(
            o,
            "serving budget {} pool {} blocks {} tokens {} concurrency {} max-len-fits {}",
            f.budget, f.kv_pool, f.blocks, f.tokens, f.max_concurrency, f.max_len_fits
        );
    }
    match verdicts(s, &arch) {
        Ok(vs) => {
            let v: Vec<String> = vs
                .iter()
                .map(|v| {
                    format!(
                        "{}:{}:{}:{}",
                        v.gpu.key(),
                        u8::from(v.fits),
                        v.headroom,
                        v.gpus_needed.map_or("-".into(), |n| n.to_string())
                    )
                })
                .collect();
            let _ = writeln!(o, "verdicts {}", v.join(" "));
        }
        Err(_) => {
            let _ = writeln!(o, "no verdicts");
        }
    }
    let answers: Vec<String> = solve(s, &arch).iter().map(answer).collect();
    let _ = writeln!(o, "solved {}", answers.join(" "));
    let r: Vec<String> = remedies(s, &arch, &b)
        .iter()
        .map(|(r, total)| format!("{}={total}", r.key()))
        .collect();
    let _ = writeln!(o, "remedies {}", r.join(" "));
    o
}

/// `id=value`, `id=none` or `id=limit:N`, then `@key=value` for each setting held.
fn answer(a: &Answer) -> String {
    let value = |v: &SettingValue| match v {
        SettingValue::Number(n) => n.to_string(),
        SettingValue::Choice(k) => k.to_string(),
        other => format!("{other:?}"),
    };
    let mut o = format!("{}=", a.question.id());
    match &a.reach {
        Reach::Set(v) => o += &value(v),
        Reach::Nothing => o += "none",
        Reach::UpToLimit(n) => o += &format!("limit:{n}"),
    }
    for (key, v) in &a.with {
        o += &format!("@{key}={}", value(v));
    }
    o
}

#[test]
fn every_frozen_link_opens_with_the_recorded_budget() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frozen");
    let links = std::fs::read_to_string(dir.join("links.txt")).expect("tests/frozen/links.txt");
    let links: Vec<&str> = links
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("# "))
        .collect();
    assert!(links.len() >= 200, "only {} frozen links", links.len());
    let actual: String = links.iter().map(|l| record(l) + "\n").collect();
    let path = dir.join("expected.txt");
    if std::env::var_os("VRAM_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("write expected.txt");
        return;
    }
    let expected = std::fs::read_to_string(&path).expect("tests/frozen/expected.txt");
    let (mut a, mut e) = (actual.split("\n\n"), expected.split("\n\n"));
    let mut differ = Vec::new();
    loop {
        match (a.next(), e.next()) {
            (None, None) => break,
            (x, y) if x != y => differ.push(format!(
                "now:\n{}\nrecorded:\n{}",
                x.unwrap_or("(nothing)"),
                y.unwrap_or("(nothing)")
            )),
            _ => {}
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} links open differently; the first:\n{}",
        differ.len(),
        links.len(),
        differ[0]
    );
}
