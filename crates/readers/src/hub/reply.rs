//! A Hub read as the page receives it: the architecture (exact bytes included) and where it
//! came from for the link, and what was read in both languages; or why not.

use vram_engine::{hub::GgufEntry, model::encode_arch, Unit};
use vram_text::{
    error, escape, fetch_failure, file_difference, gguf_listed, gguf_read, gguf_unread, hub_error,
    hub_summary, index_error, no_weight_files, safetensors_error, Lang,
};

use super::gguf::GgufRead;
use super::read::{HubAnswer, HubProblem, HubRead};
use crate::LANGS;

/// What the Hub client gives the Hub id box (`panel.rs`), which stays inside this module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HubReply {
    /// A model read: its architecture in link form, `owner/name@revision`, the day it was read,
    /// and what was read (lines joined by `\n`), one text per [`LANGS`] entry.
    Model {
        arch: String,
        source: String,
        read_on: String,
        lines: [String; 2],
    },
    /// A GGUF repository's model files, at the commit listed: what to say about them, and the
    /// list to pick from as escaped markup.
    GgufList {
        source: String,
        read_on: String,
        said: [String; 2],
        markup: String,
    },
    /// A GGUF file's header read from the Hub: its `gg=` summary, where and when it was read,
    /// the file's name, and what was read.
    Gguf {
        summary: String,
        source: String,
        read_on: String,
        name: String,
        lines: [String; 2],
    },
    /// Why nothing was read: one sentence per entry of [`LANGS`].
    Error([String; 2]),
}

/// The reply for a read (or its failure).
pub fn hub_reply(read: Result<HubAnswer, HubProblem>) -> HubReply {
    match read {
        Ok(HubAnswer::Model(r)) => HubReply::Model {
            arch: encode_arch(&r.arch),
            source: r.source.id(),
            read_on: r.source.read_on.clone(),
            lines: LANGS.map(|l| lines(l, &r)),
        },
        Ok(HubAnswer::Gguf(repo)) => HubReply::GgufList {
            source: repo.source.id(),
            read_on: repo.source.read_on.clone(),
            said: LANGS.map(|l| gguf_listed(l, &repo.source, repo.entries.len())),
            markup: options_markup(&repo.entries),
        },
        Err(p) => HubReply::Error(LANGS.map(|l| problem(l, &p))),
    }
}

/// The reply for a GGUF file's header read from the Hub (or its failure).
pub fn gguf_reply(read: Result<GgufRead, HubProblem>) -> HubReply {
    match read {
        Ok(r) => HubReply::Gguf {
            lines: LANGS.map(|l| {
                let name = &r.parts[0];
                gguf_read(l, &r.source, name, r.parts.len(), r.fetched, r.requests)
            }),
            name: r.parts[0].clone(),
            source: r.source.id(),
            read_on: r.source.read_on,
            summary: r.summary,
        },
        Err(p) => HubReply::Error(LANGS.map(|l| problem(l, &p))),
    }
}

/// A GGUF repository's files to pick from, under a heading per quantization: each a button
/// with its name (a split file's first part, and its part count) and size, its paths in
/// `data-parts` (joined by `\n`) for the page to hand back when it is picked.
fn options_markup(entries: &[GgufEntry]) -> String {
    let mut out = String::from(r#"<div id="hub-ggufs">"#);
    let mut heading = None;
    for e in entries {
        if heading != Some(&e.quant) {
            heading = Some(&e.quant);
            let q = if e.quant.is_empty() { "GGUF" } else { &e.quant };
            out.push_str(&format!(r#"<p class="gguf-quant">{}</p>"#, escape(q)));
        }
        let split = match e.parts.len() {
            1 => String::new(),
            n => format!(" ×{n}"),
        };
        let size = e.bytes.map(|b| Unit::Gib.format(b)).unwrap_or_default();
        out.push_str(&format!(
            r#"<button type="button" class="hub-gguf" data-quant="{}" data-parts="{}">{}{split} · {size}</button>"#,
            escape(&e.quant),
            escape(&e.parts.join("\n")),
            escape(e.name()),
        ));
    }
    out.push_str("</div>");
    out
}

/// What was read, then one line per difference from the config, joined by newlines.
fn lines(lang: Lang, r: &HubRead) -> String {
    let mut out = vec![hub_summary(
        lang,
        &r.source,
        r.shards.len(),
        r.fetched,
        &r.files,
        Unit::Gib,
    )];
    out.extend(
        r.differences
            .iter()
            .map(|d| file_difference(lang, d, Unit::Gib)),
    );
    out.join("\n")
}

fn problem(lang: Lang, p: &HubProblem) -> String {
    match p {
        HubProblem::Id(e) => hub_error(lang, e),
        HubProblem::Fetch(f) => fetch_failure(lang, f),
        HubProblem::Config(e) => format!("config.json: {}", error(lang, e)),
        HubProblem::Index(e) => format!("model.safetensors.index.json: {}", index_error(lang, e)),
        HubProblem::Shard(file, e) => safetensors_error(lang, file, e),
        HubProblem::GgufUnread(file) => gguf_unread(lang, file),
        HubProblem::GgufRefused([en, zh]) => lang.pick(en, zh).to_string(),
        HubProblem::NoWeights(repo) => no_weight_files(lang, repo),
    }
}
