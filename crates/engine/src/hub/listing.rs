//! The Hub's answer to `/api/models/{repo}`: the commit and the repository's files
//! (`siblings[].rfilename`), and which of them a budget reads.

use super::error::HubError;
use super::id::check_path;
use serde::Deserialize;

use crate::json::{self, Lenient, Whole};

/// The largest listing read (a repository with thousands of files stays far below).
pub const MAX_LISTING_BYTES: usize = 8 << 20;

pub const CONFIG_FILE: &str = "config.json";
pub const INDEX_FILE: &str = "model.safetensors.index.json";

/// The files of a repository at a revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoListing {
    /// The commit the revision resolved to, when the Hub says.
    pub sha: Option<String>,
    /// Plain file paths, sorted (odd names are left out).
    pub files: Vec<String>,
    /// Each file's bytes, when the listing says (`?blobs=true`), by path.
    pub sizes: Vec<(String, u64)>,
}

/// Where the weights' headers are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightFiles {
    /// `model.safetensors.index.json` names the shards.
    Index,
    /// Unsharded safetensors files at the top level.
    Files(Vec<String>),
    /// No safetensors; these GGUF files are there.
    Gguf(Vec<String>),
    Nothing,
}

/// The fields of the answer a listing reads; a field of another type is left out, a sibling
/// without a file name skipped.
#[derive(Default, Deserialize)]
struct Listing {
    #[serde(default)]
    sha: Lenient<String>,
    #[serde(default)]
    siblings: Lenient<Vec<Lenient<Sibling>>>,
}

#[derive(Deserialize)]
struct Sibling {
    rfilename: String,
    #[serde(default)]
    size: Lenient<Whole>,
}

/// Reads a listing's text.
pub(crate) fn read_listing(text: &str) -> Result<RepoListing, HubError> {
    if text.len() > MAX_LISTING_BYTES {
        return Err(HubError::TooLarge {
            bytes: text.len() as u64,
            limit: MAX_LISTING_BYTES as u64,
        });
    }
    let value = json::parse(text).map_err(HubError::NotJson)?;
    let listing: Listing = json::typed(&value).unwrap_or_default();
    let siblings: Vec<Sibling> = listing
        .siblings
        .0
        .ok_or(HubError::NoFileList)?
        .into_iter()
        .filter_map(|s| s.0)
        .collect();
    let mut files: Vec<String> = siblings
        .iter()
        .filter_map(|s| check_path(&s.rfilename).ok())
        .collect();
    files.sort();
    files.dedup();
    let sizes: Vec<(String, u64)> = siblings
        .iter()
        .filter_map(|s| Some((check_path(&s.rfilename).ok()?, s.size.0?.0)))
        .collect();
    let sha = listing
        .sha
        .0
        .filter(|s| s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit()));
    Ok(RepoListing { sha, files, sizes })
}

impl RepoListing {
    pub fn has(&self, file: &str) -> bool {
        self.files.iter().any(|f| f == file)
    }

    /// A file's bytes, when the listing gave them.
    pub fn size(&self, file: &str) -> Option<u64> {
        self.sizes.iter().find(|(f, _)| f == file).map(|(_, n)| *n)
    }

    /// The `.gguf` files, sorted.
    pub fn gguf_files(&self) -> Vec<String> {
        self.files
            .iter()
            .filter(|f| f.to_ascii_lowercase().ends_with(".gguf"))
            .cloned()
            .collect()
    }

    /// Where to read the weights from, safetensors first.
    pub fn weight_files(&self) -> WeightFiles {
        if self.has(INDEX_FILE) {
            return WeightFiles::Index;
        }
        let top: Vec<String> = self
            .files
            .iter()
            .filter(|f| f.ends_with(".safetensors") && !f.contains('/'))
            .cloned()
            .collect();
        let gguf = self.gguf_files();
        if !top.is_empty() {
            WeightFiles::Files(top)
        } else if !gguf.is_empty() {
            WeightFiles::Gguf(gguf)
        } else {
            WeightFiles::Nothing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_gives_the_commit_and_plain_file_names() {
        let text = r#"{"id":"a/b","sha":"0123456789abcdef0123456789abcdef01234567","siblings":[{"rfilename":"config.json"},{"rfilename":"model.safetensors"},{"rfilename":"../evil"},{"rfilename":"sub/x.safetensors"}]}"#;
        let l = read_listing(text).unwrap();
        assert_eq!(
            l.sha.as_deref(),
            Some("0123456789abcdef0123456789abcdef01234567")
        );
        assert_eq!(
            l.files,
            ["config.json", "model.safetensors", "sub/x.safetensors"]
        );
        assert_eq!(
            l.weight_files(),
            WeightFiles::Files(vec!["model.safetensors".into()])
        );
        assert_eq!(read_listing("{}"), Err(HubError::NoFileList));
        let sized = r#"{"siblings":[{"rfilename":"m-Q4_K_M.gguf","size":4920734016},{"rfilename":"README.md"}]}"#;
        let l = read_listing(sized).unwrap();
        assert_eq!(l.size("m-Q4_K_M.gguf"), Some(4_920_734_016));
        assert_eq!(l.size("README.md"), None);
    }

    #[test]
    fn fields_of_another_type_are_skipped_as_before_and_the_rest_is_read() {
        // a sibling that is a number, one without a name, a size in words, a sha that is a number
        let text = r#"{"sha":5,"siblings":[7,{"size":3},{"rfilename":"a.gguf","size":"big"},{"rfilename":"b.gguf","size":2.0}]}"#;
        let l = read_listing(text).unwrap();
        assert_eq!(
            (l.sha.clone(), l.files.clone()),
            (None, vec!["a.gguf".into(), "b.gguf".into()])
        );
        assert_eq!((l.size("a.gguf"), l.size("b.gguf")), (None, Some(2)));
        assert_eq!(
            read_listing(r#"{"siblings":{}}"#),
            Err(HubError::NoFileList)
        );
        assert_eq!(read_listing("[1]"), Err(HubError::NoFileList));
    }
}
