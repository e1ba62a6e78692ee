//! Behaviour frozen before a refactor: every share link in `frozen/links.txt` opens with exactly the
//! figures recorded in `frozen/<job>.txt` (one line per link, in the file of the job it opens), and
//! every GPU keeps the budget recorded in `frozen/gpus.txt`.
//!
//! A line is `link | group | group …`, each figure `name=value`, groups aligned in columns:
//! total, tensors, peak phase and CPU bytes; each component's bytes (`/largest` when a pipeline
//! stage holds more); parameters; the serving fit; the verdicts; the solver's answers; the
//! remedies; the notices and the canonical link when it is not the link itself. Zeros are left
//! out. The verdicts hold, over the GPU models in `Gpu::ALL` order, which fit (`fits=`, runs
//! `first..last`), the fewest GPUs of each that run the job (`gpus=`, by runs), what the job needs
//! of each (`need=`) and what it may use of each (`gpu-budget=`: `visible`, what the driver
//! reports, or `u<pct>`, gpu_memory_utilization of it): the value most GPUs share, then
//! `name@gpu=` for each GPU that differs, so the 22 headrooms (budget − need) move as one figure.
//!
//! A failing run names each moved figure, recorded → now, with the change and its %. A change that
//! moves the physics on purpose re-records the files:
//! `VRAM_BLESS=1 cargo test -p vram-engine --test engine frozen::`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use vram_engine::{
    fit::remedies, fit::solve, fit::Answer, fit::Reach, memory::estimate_with, verdicts, Component,
    Gpu, Job, SettingValue, Verdict,
};

/// Entries wider than this overflow their column instead of widening it for every line.
const WIDEST_COLUMN: usize = 72;

/// The groups of a line, in their order.
const TOTALS: usize = 0;
const COMPONENTS: usize = 1;
const MODEL: usize = 2;
const SERVING: usize = 3;
const VERDICTS: usize = 4;
const SOLVER: usize = 5;
const REMEDIES: usize = 6;
/// The notices and the canonical link: how the link was read.
const READ: usize = 7;
const GROUPS: usize = 8;

/// One field of a record line.
type Field = (String, String);

/// A link's record: its job (the file it goes to) and its groups of figures.
struct Record {
    job: Job,
    link: String,
    groups: Vec<Vec<Field>>,
}

fn field(name: impl Into<String>, value: impl ToString) -> Field {
    (name.into(), value.to_string())
}

/// Everything a link's budget shows, as figures (bytes and keys, no words).
fn record(link: &str) -> Record {
    let d = vram_engine::link::decode(link);
    let s = &d.scenario;
    let mut groups: Vec<Vec<Field>> = vec![Vec::new(); GROUPS];
    if !d.notices.is_empty() {
        groups[READ].push(field("notices", d.notices.len()));
    }
    let canonical = vram_engine::link::encode(s, &d.page);
    if !same_pairs(link, &canonical) {
        groups[READ].push(field("canonical", canonical));
    }
    let done = |groups| Record {
        job: s.job,
        link: link.to_string(),
        groups,
    };
    let Ok(arch) = s.model.architecture() else {
        groups[TOTALS].push(field("no", "architecture"));
        return done(groups);
    };
    let Ok(b) = estimate_with(s, &arch, false) else {
        groups[TOTALS].push(field("no", "estimate"));
        return done(groups);
    };
    groups[TOTALS].extend([
        field("total", b.total),
        field("tensors", b.tensors),
        field("peak", b.peak_phase.key()),
    ]);
    nonzero(&mut groups[TOTALS], "cpu", b.cpu);
    for c in Component::ALL {
        let (bytes, largest) = (b.bytes(*c), b.largest(*c));
        match (bytes, largest) {
            (0, 0) => {}
            (x, y) if x == y => groups[COMPONENTS].push(field(c.key(), x)),
            (x, y) => groups[COMPONENTS].push(field(c.key(), format!("{x}/{y}"))),
        }
    }
    groups[MODEL].push(field("params", b.params.total()));
    if b.active_params != b.params.total() {
        groups[MODEL].push(field("active", b.active_params));
    }
    nonzero(&mut groups[MODEL], "trainable", b.trainable);
    nonzero(&mut groups[MODEL], "kv/token", b.kv_bytes_per_token);
    if let Some(f) = b.serving {
        groups[SERVING].extend([
            field("kv-budget", f.budget),
            field("pool", f.kv_pool),
            field("blocks", f.blocks),
            field("tokens", f.tokens),
            field("concurrency", f.max_concurrency),
            field("max-len-fits", f.max_len_fits),
        ]);
    }
    match verdicts(s, &arch) {
        Ok(vs) => groups[VERDICTS] = verdict_fields(&vs, s.gpu_util_pct),
        Err(_) => groups[VERDICTS].push(field("no", "verdicts")),
    }
    groups[SOLVER] = solve(s, &arch).iter().map(answer).collect();
    groups[REMEDIES] = remedies(s, &arch, &b)
        .iter()
        .map(|(r, total)| field(format!("remedy:{}", r.key()), total))
        .collect();
    done(groups)
}

fn nonzero(group: &mut Vec<Field>, name: &str, value: u64) {
    if value != 0 {
        group.push(field(name, value));
    }
}

/// Whether the canonical link holds the link's pairs and only the version and default model besides.
fn same_pairs(link: &str, canonical: &str) -> bool {
    let pairs = |l: &str| -> Vec<String> {
        let mut p: Vec<String> = l.split('&').map(str::to_string).collect();
        p.sort();
        p
    };
    let (mut given, wanted) = (pairs(link), pairs(canonical));
    if !given.iter().any(|p| p.starts_with("v=")) {
        given.push("v=1".into());
    }
    if !given
        .iter()
        .any(|p| ["m=", "p=", "cfg="].iter().any(|k| p.starts_with(k)))
    {
        given.push("m=llama-3.1-8b".into());
    }
    given.sort();
    given == wanted
}

/// Which GPUs fit, and per GPU the GPUs needed, the need and the budget, each as the value most
/// GPUs share and the GPUs that differ.
fn verdict_fields(vs: &[Verdict], util_pct: u64) -> Vec<Field> {
    let fitting: Vec<Gpu> = vs.iter().filter(|v| v.fits).map(|v| v.gpu).collect();
    let mut out = vec![field("fits", runs(&fitting))];
    let needed: Vec<(Gpu, String)> = vs
        .iter()
        .map(|v| (v.gpu, v.gpus_needed.map_or("-".into(), |n| n.to_string())))
        .collect();
    out.push(field("gpus", by_runs(&needed)));
    let need: Vec<(Gpu, String)> = vs
        .iter()
        .map(|v| {
            (
                v.gpu,
                (i128::from(v.budget) - i128::from(v.headroom)).to_string(),
            )
        })
        .collect();
    out.extend(shared("need", &need));
    let visible = vs.iter().all(|v| v.budget == v.gpu.visible_bytes());
    let utilized = vs.iter().all(|v| {
        u128::from(v.budget) == u128::from(v.gpu.visible_bytes()) * u128::from(util_pct) / 100
    });
    match (visible, utilized) {
        (true, _) => out.push(field("gpu-budget", "visible")),
        (false, true) => out.push(field("gpu-budget", format!("u{util_pct}"))),
        (false, false) => {
            let budgets: Vec<(Gpu, String)> =
                vs.iter().map(|v| (v.gpu, v.budget.to_string())).collect();
            out.extend(shared("gpu-budget", &budgets));
        }
    }
    out
}

/// GPUs in `Gpu::ALL` order, consecutive ones as `first..last`; `none` for none.
fn runs(gpus: &[Gpu]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut run: Vec<Gpu> = Vec::new();
    let flush = |run: &mut Vec<Gpu>, parts: &mut Vec<String>| {
        match run.as_slice() {
            [] => {}
            [one] => parts.push(one.key().into()),
            [first, .., last] => parts.push(format!("{}..{}", first.key(), last.key())),
        }
        run.clear();
    };
    for g in Gpu::ALL {
        if gpus.contains(g) {
            run.push(*g);
        } else {
            flush(&mut run, &mut parts);
        }
    }
    flush(&mut run, &mut parts);
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(",")
    }
}

/// Each run of GPUs (in `Gpu::ALL` order) with one value as `first..last:value`, joined by `,`;
/// only the value when every GPU has it.
fn by_runs(values: &[(Gpu, String)]) -> String {
    if values.windows(2).all(|w| w[0].1 == w[1].1) {
        return values.first().map_or(String::new(), |(_, x)| x.clone());
    }
    let mut runs: Vec<(Gpu, Gpu, &str)> = Vec::new();
    for (g, x) in values {
        match runs.last_mut() {
            Some((_, last, y)) if *y == x.as_str() => *last = *g,
            _ => runs.push((*g, *g, x)),
        }
    }
    runs.iter()
        .map(|(first, last, x)| match first == last {
            true => format!("{}:{x}", first.key()),
            false => format!("{}..{}:{x}", first.key(), last.key()),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `name=` the value most GPUs share (the first in `Gpu::ALL` order on a tie), then `name@gpu=`
/// for each GPU with another value.
fn shared(name: &str, values: &[(Gpu, String)]) -> Vec<Field> {
    let count = |x: &String| values.iter().filter(|(_, y)| y == x).count();
    let Some((_, most)) = values.iter().rev().max_by_key(|(_, x)| count(x)).cloned() else {
        return Vec::new();
    };
    let mut out = vec![field(name, &most)];
    for (g, x) in values {
        if *x != most {
            out.push(field(format!("{name}@{}", g.key()), x));
        }
    }
    out
}

/// `solve:id=value`, `none` or `limit:N`, then `@key=value` for each setting held.
fn answer(a: &Answer) -> Field {
    let value = |v: &SettingValue| match v {
        SettingValue::Number(n) => n.to_string(),
        SettingValue::Choice(k) => k.to_string(),
        other => format!("{other:?}").replace(' ', ""),
    };
    let mut o = match &a.reach {
        Reach::Set(v) => value(v),
        Reach::Nothing => "none".into(),
        Reach::UpToLimit(n) => format!("limit:{n}"),
    };
    for (key, v) in &a.with {
        let _ = write!(o, "@{key}={}", value(v));
    }
    field(format!("solve:{}", a.question.id()), o)
}

/// The lines of one file: every group padded to its column (groups no line has are left out).
fn render(records: &[&Record]) -> String {
    let cells = |r: &Record| -> Vec<String> {
        std::iter::once(r.link.clone())
            .chain(r.groups.iter().map(|g| {
                g.iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            }))
            .collect()
    };
    let rows: Vec<Vec<String>> = records.iter().map(|r| cells(r)).collect();
    let columns = rows.first().map_or(0, Vec::len);
    let used: Vec<usize> = (0..columns)
        .filter(|&c| c == 0 || rows.iter().any(|r| !r[c].is_empty()))
        .collect();
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .filter(|w| *w <= WIDEST_COLUMN)
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = used.iter().map(|&c| width(c)).collect();
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, &c) in used.iter().enumerate() {
            if i > 0 {
                line += " | ";
            }
            let _ = write!(line, "{:<w$}", row[c], w = widths[i]);
        }
        out += line.trim_end();
        out += "\n";
    }
    out
}

/// The file each job's lines go to.
fn file_of(job: Job) -> &'static str {
    match job {
        Job::Inference => "inference.txt",
        Job::Serving => "serve.txt",
        Job::Full => "full.txt",
        Job::Lora => "lora.txt",
        Job::Qlora => "qlora.txt",
        Job::Local => "local.txt",
    }
}

/// Each GPU's capacity and what the driver reports of it: the base of every verdict's budget.
fn gpu_table() -> String {
    Gpu::ALL
        .iter()
        .map(|g| {
            format!(
                "{:<9} | capacity={} visible={}\n",
                g.key(),
                g.bytes(),
                g.visible_bytes()
            )
        })
        .collect()
}

/// A line's link and its figures by name.
fn figures(line: &str) -> (String, BTreeMap<String, String>) {
    let mut parts = line.split(" | ");
    let link = parts.next().unwrap_or_default().trim_end().to_string();
    let named = parts
        .flat_map(|g| g.split_whitespace())
        .map(|f| match f.split_once('=') {
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => (f.to_string(), String::new()),
        })
        .collect();
    (link, named)
}

/// `old → new`, with the change and the change in % of each number that moved (`bytes/largest`
/// holds two).
fn moved(old: Option<&String>, new: Option<&String>) -> String {
    let shown = |v: Option<&String>| v.map_or("(none)".to_string(), String::clone);
    let numbers = |v: Option<&String>| -> Option<Vec<i128>> {
        v?.split('/').map(|x| x.parse::<i128>().ok()).collect()
    };
    let change = match (numbers(old), numbers(new)) {
        (Some(a), Some(b)) if a.len() == b.len() => {
            let by: Vec<String> = a
                .iter()
                .zip(&b)
                .filter(|(x, y)| x != y)
                .map(|(&x, &y)| match x {
                    0 => format!("{:+}", y - x),
                    _ => format!(
                        "{:+}, {:+.2}%",
                        y - x,
                        (y - x) as f64 / x.abs() as f64 * 100.0
                    ),
                })
                .collect();
            match by.is_empty() {
                true => String::new(),
                false => format!(" ({})", by.join("; ")),
            }
        }
        _ => String::new(),
    };
    format!("{} → {}{change}", shown(old), shown(new))
}

/// Each line of `expected` and `actual` that differs, as its link and its moved figures.
fn differences(file: &str, expected: &str, actual: &str) -> Vec<String> {
    type Lines<'a> = BTreeMap<String, (usize, &'a str, BTreeMap<String, String>)>;
    let read = |text| -> Lines {
        str::lines(text)
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
            .map(|(i, l)| {
                let (link, f) = figures(l);
                (link, (i, l, f))
            })
            .collect()
    };
    let (old, new) = (read(expected), read(actual));
    let mut out = Vec::new();
    let mut links: Vec<(&String, usize)> = new.iter().map(|(l, (i, ..))| (l, *i)).collect();
    links.extend(
        old.iter()
            .filter(|(l, _)| !new.contains_key(*l))
            .map(|(l, (i, ..))| (l, *i)),
    );
    links.sort_by_key(|(_, i)| *i);
    for (link, _) in links {
        let line = match (old.get(link), new.get(link)) {
            (None, _) => "not recorded".to_string(),
            (_, None) => "recorded but not in links.txt".to_string(),
            (Some((_, was, a)), Some((_, now, b))) => {
                let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
                let changes: Vec<String> = names
                    .into_iter()
                    .filter(|n| a.get(*n) != b.get(*n))
                    .map(|n| format!("{n} {}", moved(a.get(n), b.get(n))))
                    .collect();
                match (changes.is_empty(), was == now) {
                    (true, true) => continue,
                    (true, false) => "the same figures, laid out differently".to_string(),
                    (false, _) => changes.join(", "),
                }
            }
        };
        out.push(format!("{file}: {link}: {line}"));
    }
    out
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
    let records: Vec<Record> = links.iter().map(|l| record(l)).collect();
    let mut files: Vec<(PathBuf, String)> = vec![(dir.join("gpus.txt"), gpu_table())];
    for job in Job::ALL {
        let of_job: Vec<&Record> = records.iter().filter(|r| r.job == *job).collect();
        let path = dir.join(file_of(*job));
        if !of_job.is_empty() || path.exists() {
            files.push((path, render(&of_job)));
        }
    }
    if std::env::var_os("VRAM_BLESS").is_some() {
        for (path, text) in &files {
            std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        return;
    }
    let mut differ = Vec::new();
    for (path, actual) in &files {
        let expected = std::fs::read_to_string(path).unwrap_or_default();
        let name = path.file_name().unwrap().to_string_lossy();
        differ.extend(differences(&name, &expected, actual));
    }
    assert!(
        differ.is_empty(),
        "{} lines of the frozen record moved, recorded → now (re-record with VRAM_BLESS=1 if they should):\n{}",
        differ.len(),
        differ.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}
