//! A Hub read as the page receives it: the architecture (exact bytes included) and where it
//! came from for the link, and what was read in both languages; or why not.

use vram_engine::{encode_arch, Unit};
use vram_text::{
    error, fetch_failure, file_difference, gguf_only, hub_error, hub_summary, index_error,
    no_weight_files, safetensors_error, Lang,
};

use super::read::{HubProblem, HubRead};
use crate::{Reply, LANGS};

/// The reply for a read (or its failure).
pub fn hub_reply(read: Result<HubRead, HubProblem>) -> Reply {
    match read {
        Ok(r) => Reply::Hub {
            arch: encode_arch(&r.arch),
            source: r.source.id(),
            read_on: r.source.read_on.clone(),
            lines: LANGS.map(|l| lines(l, &r)),
        },
        Err(p) => Reply::Error(LANGS.map(|l| problem(l, &p))),
    }
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
        HubProblem::GgufOnly(files) => gguf_only(lang, files),
        HubProblem::NoWeights(repo) => no_weight_files(lang, repo),
    }
}
