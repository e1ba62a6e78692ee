//! The page's own settings in a link: its language (`lang=`), a measurement to compare with
//! (`ms=`) and the Hub endpoint it reads models from (`hfe=`).

use super::{Ignored, Notice, PageSettings, Read, Reading};
use crate::hub::HubEndpoint;
use crate::measured::Measurement;

/// The page's pairs, after the scenario's.
pub(super) fn write(page: &PageSettings, out: &mut Vec<(&str, String)>) {
    if let Some(l) = page.lang {
        out.push(("lang", l.to_string()));
    }
    if let Some(m) = &page.measured {
        out.push(("ms", m.to_link()));
    }
    if let Some(e) = page
        .hub_endpoint
        .as_ref()
        .filter(|e| **e != HubEndpoint::default())
    {
        out.push(("hfe", e.base().to_string()));
    }
}

/// Reads one of the page's pairs; a measurement that does not read back is a notice of its own.
pub(super) fn read(key: &str, v: &str, r: &mut Reading) -> Read {
    match key {
        "lang" => match v {
            "en" => {
                r.page.lang = Some("en");
                Read::Taken
            }
            "zh" => {
                r.page.lang = Some("zh");
                Read::Taken
            }
            _ => Read::Ignored(Ignored::OtherLanguage),
        },
        "hfe" => match HubEndpoint::parse(v) {
            Ok(e) => {
                r.page.hub_endpoint = (e != HubEndpoint::default()).then_some(e);
                Read::Taken
            }
            Err(_) => Read::Ignored(Ignored::BadHubEndpoint),
        },
        "ms" => {
            match Measurement::from_link(v) {
                Ok(m) => r.page.measured = Some(m),
                Err(e) => r.notices.push(Notice::BadMeasurement(e)),
            }
            Read::Taken
        }
        _ => Read::NotMine,
    }
}
