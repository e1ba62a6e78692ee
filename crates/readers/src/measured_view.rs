//! "Your measurement" beside the estimate, written here rather than in the page: the comparison
//! table, the mismatch report and the chart marker's label, with the measurement levels' words in
//! both languages. A first visit has no measurement, so none of it is in the first load; the page
//! calls [`measured_view_of`] (through the `measured_view` export) once a measurement is
//! pasted or a link carries one (`ms=`).

use vram_engine::{
    measured::Comparison, measured::Estimated, measured::Measurement, measured::Target, Component,
    Unit,
};
use vram_messages::MeasuredView;
use vram_text::{
    component, escape, level_name, level_note, reading_note, report_text as t, source_name, Lang,
};

/// A difference above this many hundredths of a percent of the measurement is a mismatch (10 %).
const MISMATCH_BASIS_POINTS: i128 = 1_000;

fn mismatched(c: &Comparison) -> bool {
    c.basis_points()
        .is_some_and(|bp| bp.abs() > MISMATCH_BASIS_POINTS)
}

/// What the page shows of a measurement: the table, the report (empty unless a figure is more
/// than 10 % off) and the chart's marker.
pub fn view(l: Lang, unit: Unit, link: &str, m: &Measurement, e: &Estimated) -> MeasuredView {
    let all = m.compare_with(e);
    let report = if all.iter().any(mismatched) {
        report_box(l, &report_markdown(l, unit, link, m, e, &all))
    } else {
        String::new()
    };
    MeasuredView {
        table: format!(
            r#"<div class="table-wrap">{}</div>"#,
            table_html(l, unit, m, &all)
        ),
        report,
        marker: marker(l, unit, &all),
    }
}

/// The page's arguments read back and the view written: language and unit keys, the share link,
/// the measurement in full link form and the estimate in `Estimated::to_link` form; None when
/// one is not what the page writes.
pub fn measured_view_of(
    lang: &str,
    unit: &str,
    link: &str,
    measurement: &str,
    estimated: &str,
) -> Option<MeasuredView> {
    let l = Lang::from_key(lang)?;
    let unit = Unit::from_key(unit)?;
    let m = Measurement::from_full_link(measurement).ok()?;
    let e = Estimated::from_link(estimated)?;
    Some(view(l, unit, link, &m, &e))
}

/// The first figure that counts the whole device or all tensors, else the first compared.
fn marker(lang: Lang, unit: Unit, all: &[Comparison]) -> Option<(u64, String)> {
    let whole = |c: &&Comparison| {
        matches!(
            c.level.target(),
            Some(
                Target::Total | Target::TensorsAndReserve | Target::Tensors | Target::ServingBudget
            )
        )
    };
    let c = all.iter().find(whole).or(all.first())?;
    let label = format!("{}: {}", level_name(lang, c.level), unit.format(c.measured));
    Some((c.measured, label))
}

/// Measured beside estimated, one row per compared level, each level explained; figures with no
/// counterpart and how each was read, as notes.
fn table_html(l: Lang, unit: Unit, m: &Measurement, all: &[Comparison]) -> String {
    let mut rows = String::new();
    for c in all {
        rows.push_str(&format!(
            r#"<tr data-level="{}"{}><th scope="row">{}<br /><span class="note">{}</span></th><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            c.level.key(),
            if mismatched(c) { r#" class="off""# } else { "" },
            escape(level_name(l, c.level)),
            escape(level_note(l, c.level)),
            unit.format(c.measured),
            unit.format(c.estimated),
            difference(unit, c)
        ));
    }
    let mut notes: Vec<String> = m
        .figures()
        .iter()
        .filter(|f| !all.iter().any(|c| c.level == f.level))
        .map(|f| {
            format!(
                "{}: {} ({})",
                level_name(l, f.level),
                unit.format(f.bytes),
                t(l, "not_compared")
            )
        })
        .collect();
    for note in m.figures().iter().filter_map(|f| reading_note(l, f)) {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    let notes: String = notes
        .iter()
        .map(|n| format!("<li>{}</li>", escape(n)))
        .collect();
    format!(
        r#"<p class="note">{}</p><table id="measured-table"><thead><tr><th scope="col"></th><th scope="col">{}</th><th scope="col">{}</th><th scope="col">{}</th></tr></thead><tbody>{rows}</tbody></table><ul class="note">{notes}</ul>"#,
        escape(source_name(l, m.source())),
        t(l, "measured"),
        t(l, "estimate"),
        t(l, "difference")
    )
}

/// "+0.65 GiB (+185.7 %)": estimate minus measurement.
fn difference(unit: Unit, c: &Comparison) -> String {
    let d = vram_engine::units::signed_decimal(c.difference() as f64 / unit.bytes() as f64, 2);
    match c.percent() {
        Some(p) => format!(
            "{d} {} ({} %)",
            unit.label(),
            vram_engine::units::signed_decimal(p, 1)
        ),
        None => format!("{d} {}", unit.label()),
    }
}

/// The report in a read-only box with its copy button, as escaped markup (`readonly=""`: the
/// page's patch reads boolean attributes written with a value).
fn report_box(l: Lang, report: &str) -> String {
    format!(
        r#"<label class="note" for="mismatch-report">{}</label><textarea id="mismatch-report" rows="10" readonly="">{}</textarea><div class="row"><button type="button" id="mismatch-copy">{}</button><span id="mismatch-status" role="status"></span></div>"#,
        escape(t(l, "mismatch_h")),
        escape(report),
        escape(t(l, "copy_report"))
    )
}

/// The report: the scenario's link, each measured figure with its level beside the estimate, the
/// estimate per component, and blanks for the versions.
fn report_markdown(
    l: Lang,
    unit: Unit,
    link: &str,
    m: &Measurement,
    e: &Estimated,
    all: &[Comparison],
) -> String {
    let mut o = format!(
        "### {}\n\n{}: {link}\n{}: {}\n\n| {} | {} | {} | {} |\n|---|---:|---:|---:|\n",
        t(l, "report_title"),
        t(l, "report_scenario"),
        t(l, "report_source"),
        source_name(l, m.source()),
        t(l, "report_level"),
        t(l, "measured"),
        t(l, "estimate"),
        t(l, "difference")
    );
    for c in all {
        o.push_str(&format!(
            "| {} (`{}`) | {} | {} | {} |\n",
            level_name(l, c.level),
            c.level.key(),
            unit.format(c.measured),
            unit.format(c.estimated),
            difference(unit, c)
        ));
    }
    o.push_str(&format!("\n{}\n\n", t(l, "report_components")));
    for comp in Component::ALL.iter().filter(|c| e.bytes(**c) > 0) {
        o.push_str(&format!(
            "- {}: {}\n",
            component(l, *comp),
            unit.format(e.bytes(*comp))
        ));
    }
    o.push_str(&format!(
        "- {}: {}\n\n{}\n\n- torch: \n- transformers / vLLM / llama.cpp: \n- GPU: \n- {}: \n",
        t(l, "total"),
        unit.format(e.total),
        t(l, "report_versions"),
        t(l, "report_driver")
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{estimate, Scenario, GIB};

    fn view(l: Lang, text: &str) -> MeasuredView {
        let s = Scenario::default();
        let b = estimate(&s).unwrap();
        let m = vram_engine::measured::parse(text).unwrap();
        measured_view_of(
            l.key(),
            s.unit.key(),
            "https://x/?v=1&b=4",
            &m.to_full_link(),
            &Estimated::of(&b).to_link(),
        )
        .expect("the page's arguments give a view")
    }

    #[test]
    fn a_measurement_far_off_the_estimate_gets_a_row_per_level_a_report_and_a_marker() {
        // the default LoRA job needs about 22 GiB: 40 GiB reserved is far off
        for l in [Lang::En, Lang::Zh] {
            let v = view(
                l,
                "max_memory_allocated = 21.3 GiB\nmax_memory_reserved = 40 GiB",
            );
            assert_eq!(v.table.matches("<tr data-level=").count(), 2, "{}", v.table);
            assert!(v.table.contains(r#"class="off""#), "{}", v.table);
            assert!(
                v.report.contains("| ") && v.report.contains("mismatch-copy"),
                "{}",
                v.report
            );
            // the chart marks the first figure that counts all tensors: the allocated peak
            let (bytes, label) = v.marker.unwrap();
            assert_eq!(bytes, 213 * GIB / 10);
            assert!(label.ends_with("21.30 GiB"), "{label}");
        }
    }

    #[test]
    fn a_measurement_close_to_the_estimate_gets_no_report() {
        let s = Scenario::default();
        let b = estimate(&s).unwrap();
        let gib = vram_engine::units::decimal(s.unit.value(b.tensors), 2);
        let v = view(Lang::En, &format!("max_memory_allocated = {gib} GiB"));
        assert_eq!(v.report, "");
        assert_eq!(v.table.matches("<tr data-level=").count(), 1, "{}", v.table);
        assert!(!v.table.contains(r#"class="off""#), "{}", v.table);
    }

    #[test]
    fn anything_the_page_did_not_write_gives_no_view() {
        assert_eq!(measured_view_of("en", "gib", "", "nonsense", "1.2.3"), None);
        assert_eq!(measured_view_of("fr", "gib", "", "", ""), None);
    }
}
