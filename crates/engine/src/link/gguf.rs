//! A GGUF file in a link: its summary (`gg=`), coarsened to fit, beside its name (`gn=`).

use super::text::percent_encode;
use super::Notice;
use super::{LINK_ADDRESS_ROOM, MAX_LINK_CHARS};
use crate::gguf::{Detail, GgufSummary};
use crate::hub::HubSource;
use crate::scenario::Scenario;

/// Names the GGUF file a link carries (`gn=`, its Hub source): a notice when its summary was
/// coarsened, or when the link named a file whose summary (`gg=`) was left out.
pub(super) fn name_file(
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
