//! A GGUF repository's files as a user picks them: one entry per model file, the parts of a split
//! file (`…-00001-of-00003.gguf`, llama.cpp's `gguf-split` names) together, its quantization read
//! from the name, and its bytes when the listing gave them.

use super::listing::RepoListing;

/// One model file of a GGUF repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufEntry {
    /// The quantization its name says (`Q4_K_M`, `IQ2_XXS`, `BF16`), upper-case; empty when none.
    pub quant: String,
    /// Its file paths: one, or every part of a split file in order.
    pub parts: Vec<String>,
    /// All its parts' bytes, when the listing gave every part's size.
    pub bytes: Option<u64>,
}

impl GgufEntry {
    /// The first part's path: the name a link and the page show.
    pub fn name(&self) -> &str {
        &self.parts[0]
    }
}

/// `(stem, part, of)` for a split part's path `stem-0000k-of-0000n.gguf`.
fn split_part(path: &str) -> Option<(&str, u32, u32)> {
    let stem = path.get(..path.len().checked_sub(".gguf".len())?)?;
    let (head, of) = stem.rsplit_once("-of-")?;
    let (stem, part) = head.rsplit_once('-')?;
    let number = |s: &str| {
        (s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    Some((stem, number(part)?, number(of)?))
}

/// Whether a name token is a llama.cpp quantization (`ftype`) name.
fn is_quant(token: &str) -> bool {
    let t = token.to_ascii_uppercase();
    let digit_after = |prefix: &str| {
        t.strip_prefix(prefix)
            .and_then(|rest| rest.bytes().next())
            .is_some_and(|b| b.is_ascii_digit())
    };
    digit_after("Q")
        || digit_after("IQ")
        || digit_after("TQ")
        || ["F16", "BF16", "F32", "MXFP4"].contains(&t.as_str())
}

/// The last quantization-like token of a path (`…/Llama-3-8B.Q4_K_M.gguf` → `Q4_K_M`).
pub fn quant_of(path: &str) -> String {
    let stem = split_part(path).map_or_else(|| path.trim_end_matches(".gguf"), |(s, _, _)| s);
    stem.rsplit(['/', '-', '.'])
        .find(|t| is_quant(t))
        .map(str::to_ascii_uppercase)
        .unwrap_or_default()
}

/// Whether a `.gguf` is a multimodal projector (`mmproj-…`), not a language model to plan.
fn is_projector(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|name| name.to_ascii_lowercase().starts_with("mmproj"))
}

/// The repository's GGUF model files grouped by quantization (groups in the order of their
/// first file, names sorted within each); a split file is one entry when all its parts are
/// listed (a partial upload is left out).
pub fn gguf_entries(listing: &RepoListing) -> Vec<GgufEntry> {
    let files: Vec<String> = listing
        .gguf_files()
        .into_iter()
        .filter(|f| !is_projector(f))
        .collect();
    let mut entries: Vec<GgufEntry> = Vec::new();
    for file in &files {
        let parts = match split_part(file) {
            None => vec![file.clone()],
            Some((stem, 1, of)) => {
                let parts: Vec<String> = (1..=of)
                    .map(|k| format!("{stem}-{k:05}-of-{of:05}.gguf"))
                    .collect();
                if !parts.iter().all(|p| listing.has(p)) {
                    continue;
                }
                parts
            }
            Some(_) => continue,
        };
        let bytes = parts.iter().map(|p| listing.size(p)).sum::<Option<u64>>();
        let quant = quant_of(file);
        // after the last of its quantization (names stay in order within it): no sort, whose
        // code the on-demand module would carry for this list alone
        let at = entries
            .iter()
            .rposition(|e| e.quant == quant)
            .map_or(entries.len(), |i| i + 1);
        let entry = GgufEntry {
            quant,
            parts,
            bytes,
        };
        entries.insert(at, entry);
    }
    entries
}

/// The entry a user named: one, several that the name fits equally (a list to choose from), or
/// none.
#[derive(Debug, PartialEq, Eq)]
pub enum GgufChoice<'a> {
    One(&'a GgufEntry),
    Several(Vec<&'a GgufEntry>),
    Nothing,
}

/// The entry `wanted` names: a file path (any part of a split file), else a quantization
/// (`q4_k_m`, any case), else a part of one entry's name; with nothing asked, the first Q4_K_M,
/// else the first entry.
pub fn choose_gguf_entry<'a>(entries: &'a [GgufEntry], wanted: Option<&str>) -> GgufChoice<'a> {
    let one_of = |found: Vec<&'a GgufEntry>| match found.len() {
        0 => GgufChoice::Nothing,
        1 => GgufChoice::One(found[0]),
        _ => GgufChoice::Several(found),
    };
    let Some(wanted) = wanted else {
        let first = entries.iter().find(|e| e.quant == "Q4_K_M");
        return one_of(first.or(entries.first()).into_iter().collect());
    };
    if let Some(entry) = entries.iter().find(|e| e.parts.iter().any(|p| p == wanted)) {
        return GgufChoice::One(entry);
    }
    let quant = wanted.to_ascii_uppercase();
    let by_quant: Vec<&GgufEntry> = entries.iter().filter(|e| e.quant == quant).collect();
    if !by_quant.is_empty() {
        return one_of(by_quant);
    }
    let needle = wanted.to_ascii_lowercase();
    one_of(
        entries
            .iter()
            .filter(|e| e.name().to_ascii_lowercase().contains(&needle))
            .collect(),
    )
}

/// The parts of the split file `path` belongs to that the listing lacks (none for a file that
/// is not a part, or whose parts are all there).
pub fn missing_split_parts(listing: &RepoListing, path: &str) -> Vec<String> {
    let Some((stem, _, of)) = split_part(path) else {
        return Vec::new();
    };
    (1..=of)
        .map(|k| format!("{stem}-{k:05}-of-{of:05}.gguf"))
        .filter(|p| !listing.has(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::read_listing;

    #[test]
    fn the_quantization_is_read_from_the_name_whatever_its_separators() {
        assert_eq!(quant_of("Meta-Llama-3-8B-Instruct.Q4_K_M.gguf"), "Q4_K_M");
        assert_eq!(
            quant_of("qwen2.5-7b-instruct-q4_k_m-00001-of-00002.gguf"),
            "Q4_K_M"
        );
        assert_eq!(
            quant_of("UD-IQ2_XXS/model-UD-IQ2_XXS-00001-of-00003.gguf"),
            "IQ2_XXS"
        );
        assert_eq!(quant_of("gemma-3-4b-it-BF16.gguf"), "BF16");
        assert_eq!(quant_of("qwen2-7b.gguf"), "");
    }

    #[test]
    fn a_split_file_is_one_entry_with_its_parts_and_their_bytes_added() {
        let text = r#"{"siblings":[
            {"rfilename":"m-Q8_0-00002-of-00002.gguf","size":300},
            {"rfilename":"m-Q8_0-00001-of-00002.gguf","size":700},
            {"rfilename":"m-Q4_K_M.gguf","size":500},
            {"rfilename":"n-Q4_K_M.gguf","size":8},
            {"rfilename":"m-Q2_K-00001-of-00002.gguf","size":1},
            {"rfilename":"mmproj-m-F16.gguf","size":9},
            {"rfilename":"README.md","size":3}]}"#;
        let entries = gguf_entries(&read_listing(text).unwrap());
        assert_eq!(
            entries,
            [
                GgufEntry {
                    quant: "Q4_K_M".into(),
                    parts: vec!["m-Q4_K_M.gguf".into()],
                    bytes: Some(500),
                },
                GgufEntry {
                    quant: "Q4_K_M".into(),
                    parts: vec!["n-Q4_K_M.gguf".into()],
                    bytes: Some(8),
                },
                GgufEntry {
                    quant: "Q8_0".into(),
                    parts: vec![
                        "m-Q8_0-00001-of-00002.gguf".into(),
                        "m-Q8_0-00002-of-00002.gguf".into()
                    ],
                    bytes: Some(1000),
                },
            ]
        );
    }

    fn entries_of(names: &[&str]) -> Vec<GgufEntry> {
        let siblings: Vec<String> = names
            .iter()
            .map(|n| format!("{{\"rfilename\":{n:?}}}"))
            .collect();
        let text = format!("{{\"siblings\":[{}]}}", siblings.join(","));
        gguf_entries(&read_listing(&text).unwrap())
    }

    #[test]
    fn a_quantization_a_file_name_or_a_part_of_a_name_chooses_one_entry() {
        let entries = entries_of(&[
            "m-Q4_K_M.gguf",
            "m-Q8_0-00001-of-00002.gguf",
            "m-Q8_0-00002-of-00002.gguf",
            "m-IQ2_XXS.gguf",
        ]);
        let name = |c: GgufChoice| match c {
            GgufChoice::One(e) => e.name().to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(name(choose_gguf_entry(&entries, None)), "m-Q4_K_M.gguf");
        assert_eq!(
            name(choose_gguf_entry(&entries, Some("q8_0"))),
            "m-Q8_0-00001-of-00002.gguf"
        );
        assert_eq!(
            name(choose_gguf_entry(
                &entries,
                Some("m-Q8_0-00002-of-00002.gguf")
            )),
            "m-Q8_0-00001-of-00002.gguf"
        );
        assert_eq!(
            name(choose_gguf_entry(&entries, Some("IQ2"))),
            "m-IQ2_XXS.gguf"
        );
        assert_eq!(
            choose_gguf_entry(&entries, Some("IQ1_S")),
            GgufChoice::Nothing
        );
    }

    #[test]
    fn a_name_that_fits_two_entries_gives_both_to_choose_from() {
        let entries = entries_of(&["a-Q4_K_M.gguf", "b-Q4_K_M.gguf", "b-Q8_0.gguf"]);
        let GgufChoice::Several(found) = choose_gguf_entry(&entries, Some("Q4_K_M")) else {
            panic!("one entry for two files");
        };
        let names: Vec<&str> = found.iter().map(|e| e.name()).collect();
        assert_eq!(names, ["a-Q4_K_M.gguf", "b-Q4_K_M.gguf"]);
        assert!(matches!(
            choose_gguf_entry(&entries, Some("b-")),
            GgufChoice::Several(_)
        ));
    }

    #[test]
    fn a_split_file_with_a_part_not_listed_names_the_missing_part() {
        let text = r#"{"siblings":[{"rfilename":"m-00001-of-00003.gguf"},{"rfilename":"m-00003-of-00003.gguf"}]}"#;
        let listing = read_listing(text).unwrap();
        assert!(gguf_entries(&listing).is_empty());
        assert_eq!(
            missing_split_parts(&listing, "m-00001-of-00003.gguf"),
            ["m-00002-of-00003.gguf"]
        );
        assert!(missing_split_parts(&listing, "m-Q4_K_M.gguf").is_empty());
    }
}
