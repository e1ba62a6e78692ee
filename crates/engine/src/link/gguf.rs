//! A GGUF file in a link: its summary (`gg=`), coarsened to fit, beside its name (`gn=`); and a
//! multimodal projector loaded beside it (`mp=`, named by `mpn=`).

use super::text::percent_encode;
use super::{Ignored, Notice, Read, Reading};
use super::{LINK_ADDRESS_ROOM, MAX_LINK_CHARS};
use crate::gguf::{Detail, GgufSummary};
use crate::hub::HubSource;
use crate::llamacpp::{Projector, ProjectorFile};
use crate::scenario::{GgufFile, Scenario};

/// The files' pairs but the summary, which goes after the name once the rest of the link is
/// known (its room is what the rest leaves).
pub(super) fn write(s: &Scenario, out: &mut Vec<(&str, String)>) {
    if let Some(file) = &s.gguf {
        out.push(("gn", file.name.clone()));
        if let Some(src) = &file.source {
            out.push(("hf", src.id()));
            out.push(("hfd", src.read_on.clone()));
        }
    }
    if let Some(file) = &s.mmproj {
        out.push(("mpn", file.name.clone()));
        out.push(("mp", file.projector.to_text()));
    }
}

/// What the files' pairs leave for after the others: their names, and whether a summary was given.
pub(super) struct Pending {
    /// Whether a summary's header must read back for the summary to be taken.
    check: fn(&GgufSummary) -> bool,
    name: Option<String>,
    projector_name: Option<String>,
    summary_given: bool,
}

impl Pending {
    pub(super) fn new(check: fn(&GgufSummary) -> bool) -> Pending {
        Pending {
            check,
            name: None,
            projector_name: None,
            summary_given: false,
        }
    }
}

/// Reads one of the files' pairs: a summary or a projector at once, the names once every pair is
/// read ([`finish`]).
pub(super) fn read(key: &str, v: &str, r: &mut Reading) -> Read {
    let pending = &mut r.gguf;
    match key {
        "gn" => {
            pending.name = Some(v.chars().take(80).collect());
            Read::Taken
        }
        "gg" => {
            pending.summary_given = true;
            match GgufSummary::from_text(v) {
                Ok(summary) if (pending.check)(&summary) => {
                    r.scenario.gguf = Some(Box::new(GgufFile {
                        name: String::new(),
                        summary,
                        source: None,
                    }));
                    Read::Taken
                }
                _ => Read::Ignored(Ignored::NotAGgufSummary),
            }
        }
        "mpn" => {
            pending.projector_name = Some(v.chars().take(80).collect());
            Read::Taken
        }
        "mp" => match Projector::from_text(v) {
            Some(projector) => {
                r.scenario.mmproj = Some(Box::new(ProjectorFile {
                    name: String::new(),
                    projector,
                }));
                Read::Taken
            }
            None => Read::Ignored(Ignored::NotAProjector),
        },
        _ => Read::NotMine,
    }
}

/// Once every pair is read: names the GGUF file (with its Hub `source`) and the projector.
pub(super) fn finish(r: &mut Reading, source: Option<HubSource>) {
    let name = r.gguf.name.take();
    let summary_given = r.gguf.summary_given;
    r.notices
        .extend(name_file(&mut r.scenario, name, source, summary_given));
    if let Some(file) = r.scenario.mmproj.as_mut() {
        file.name = r
            .gguf
            .projector_name
            .take()
            .unwrap_or_else(|| "mmproj.gguf".into());
    }
}

/// Names the GGUF file a link carries (`gn=`, its Hub source): a notice when its summary was
/// coarsened, or when the link named a file whose summary (`gg=`) was left out.
fn name_file(
    s: &mut Scenario,
    name: Option<String>,
    source: Option<HubSource>,
    summary_given: bool,
) -> Option<Notice> {
    match (s.gguf.as_mut(), name) {
        (Some(file), name) => {
            file.name = name.unwrap_or_else(|| "model.gguf".into());
            file.source = source;
            let detail = file.summary.detail();
            (detail != Detail::Tensors).then_some(Notice::GgufDetail(detail))
        }
        (None, Some(name)) if !summary_given => Some(Notice::GgufLeftOut(name)),
        (None, _) => None,
    }
}

/// The characters a `gg=` summary may take ([`GgufSummary::for_link`] coarsens a summary to
/// them): the link's limit less the page's address and 768 for the other settings.
pub const GGUF_LINK_ROOM: usize = MAX_LINK_CHARS - LINK_ADDRESS_ROOM - 768;

impl GgufSummary {
    /// The most detailed of this summary, each layer's bytes, and the model's bytes whose text
    /// fits a link ([`GGUF_LINK_ROOM`]); this summary itself when none does (a link then leaves
    /// the file out). The page keeps what a link can carry, so a shared link plans what it shows.
    pub fn for_link(&self) -> GgufSummary {
        self.within(GGUF_LINK_ROOM)
    }
}

/// The summary's text form when it fits in `room` characters (the page's summaries are made to
/// fit when a file is picked, see [`GgufSummary::for_link`]); None leaves it out of the link.
pub(super) fn gguf_text_within(summary: &GgufSummary, room: usize) -> Option<String> {
    let text = summary.to_text();
    (percent_encode(&text).chars().count() <= room).then_some(text)
}
