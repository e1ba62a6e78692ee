//! A link's text: `key=value` pairs, percent-encoded.

use super::MAX_LINK_CHARS;

/// The `key=value` pairs of a link: a whole URL, a query string with or without '?', or a
/// fragment; `None` when it is longer than [`MAX_LINK_CHARS`].
pub fn pairs(link: &str) -> Option<Vec<(String, String)>> {
    if link.chars().count() > MAX_LINK_CHARS {
        return None;
    }
    let query = match link.find('?') {
        Some(i) => &link[i + 1..],
        None => link.trim_start_matches('#'),
    };
    let query = query.split('#').next().unwrap_or("");
    Some(
        query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (percent_decode(k), percent_decode(v))
            })
            .collect(),
    )
}

pub(super) fn percent_encode(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for b in v.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b',' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub(super) fn percent_decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
