//! Model ids as users type them: `owner/name`, `owner/name@revision`, or a Hub URL
//! (`https://huggingface.co/owner/name`, `…/tree/rev`, `…/blob/rev/file`, `…/resolve/rev/file`,
//! on any mirror's host). Repository names follow huggingface_hub's `validate_repo_id`.

use super::error::HubError;

/// A repository, a revision (`None`: the default branch) and perhaps one file in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubRef {
    pub repo: String,
    pub revision: Option<String>,
    pub file: Option<String>,
}

impl HubRef {
    /// The revision to resolve files at: the one given, or `main`.
    pub fn revision_or_main(&self) -> &str {
        self.revision.as_deref().unwrap_or("main")
    }
}

/// The longest repository id huggingface_hub accepts.
const MAX_REPO_CHARS: usize = 96;
const MAX_REVISION_CHARS: usize = 255;
const MAX_PATH_CHARS: usize = 512;

fn shown(text: &str) -> String {
    text.chars().take(80).collect()
}

/// Reads a model id or URL.
pub(crate) fn parse_model_id(text: &str) -> Result<HubRef, HubError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(HubError::EmptyId);
    }
    if let Some(rest) = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
    {
        return parse_url_path(rest);
    }
    let (repo, revision) = match text.split_once('@') {
        Some((repo, rev)) => (repo, Some(check_revision(rev)?)),
        None => (text, None),
    };
    Ok(HubRef {
        repo: check_repo(repo)?,
        revision,
        file: None,
    })
}

/// `host/owner/name[/tree|blob|resolve/rev[/file]]` after the scheme.
fn parse_url_path(rest: &str) -> Result<HubRef, HubError> {
    let not_model = || HubError::NotAModelUrl(shown(rest));
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let mut segments: Vec<&str> = path.split('/').skip(1).filter(|s| !s.is_empty()).collect();
    if segments.first() == Some(&"models") {
        segments.remove(0);
    }
    let kinds = ["tree", "blob", "resolve"];
    let owner_len = match segments.as_slice() {
        [] => return Err(not_model()),
        ["datasets" | "spaces" | "api", ..] => return Err(not_model()),
        [_] => 1,
        [_, second, ..] if kinds.contains(second) => 1,
        _ => 2,
    };
    let repo = check_repo(&segments[..owner_len].join("/"))?;
    let tail = &segments[owner_len..];
    let (revision, file) = match tail {
        [] => (None, None),
        ["tree", rev, ..] => (Some(check_revision(&percent_decode(rev))?), None),
        ["blob" | "resolve", rev, file @ ..] if !file.is_empty() => (
            Some(check_revision(&percent_decode(rev))?),
            Some(check_path(&file.join("/"))?),
        ),
        _ => return Err(not_model()),
    };
    Ok(HubRef {
        repo,
        revision,
        file,
    })
}

/// `owner/name` (or a legacy single name): letters, digits, '-', '_', '.'; no "--" or "..";
/// neither part starts or ends with '-' or '.'.
pub fn check_repo(repo: &str) -> Result<String, HubError> {
    let bad = || HubError::BadRepoId(shown(repo));
    let parts: Vec<&str> = repo.split('/').collect();
    let part_ok = |p: &&str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && !p.starts_with(['-', '.'])
            && !p.ends_with(['-', '.'])
    };
    let ok = (1..=2).contains(&parts.len())
        && parts.iter().all(part_ok)
        && repo.len() <= MAX_REPO_CHARS
        && !repo.contains("--")
        && !repo.contains("..");
    ok.then(|| repo.to_string()).ok_or_else(bad)
}

/// A branch, tag or commit: letters, digits, '-', '_', '.', '/' (refs/pr/1), no "..".
pub fn check_revision(rev: &str) -> Result<String, HubError> {
    let ok = !rev.is_empty()
        && rev.len() <= MAX_REVISION_CHARS
        && rev
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        && !rev.contains("..")
        && !rev.starts_with('/')
        && !rev.ends_with('/');
    ok.then(|| rev.to_string())
        .ok_or_else(|| HubError::BadRevision(shown(rev)))
}

/// A file path inside a repository: plain segments, no "..".
pub fn check_path(path: &str) -> Result<String, HubError> {
    let ok = path.len() <= MAX_PATH_CHARS
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+".contains(c));
    ok.then(|| path.to_string())
        .ok_or_else(|| HubError::BadFilePath(shown(path)))
}

fn percent_decode(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(repo: &str, rev: Option<&str>, file: Option<&str>) -> HubRef {
        HubRef {
            repo: repo.into(),
            revision: rev.map(Into::into),
            file: file.map(Into::into),
        }
    }

    #[test]
    fn ids_and_hub_urls_name_the_same_repository() {
        let plain = id("Qwen/Qwen2.5-7B-Instruct", None, None);
        for text in [
            "Qwen/Qwen2.5-7B-Instruct",
            " https://huggingface.co/Qwen/Qwen2.5-7B-Instruct ",
            "https://hf-mirror.com/Qwen/Qwen2.5-7B-Instruct?library=transformers",
        ] {
            assert_eq!(parse_model_id(text).unwrap(), plain, "{text}");
        }
        assert_eq!(
            parse_model_id("Qwen/Qwen2.5-7B-Instruct@v1.0").unwrap(),
            id("Qwen/Qwen2.5-7B-Instruct", Some("v1.0"), None)
        );
        assert_eq!(
            parse_model_id("https://huggingface.co/org/m/tree/refs%2Fpr%2F3").unwrap(),
            id("org/m", Some("refs/pr/3"), None)
        );
        assert_eq!(
            parse_model_id("https://huggingface.co/org/m-GGUF/blob/main/m-Q4_K_M.gguf").unwrap(),
            id("org/m-GGUF", Some("main"), Some("m-Q4_K_M.gguf"))
        );
        assert_eq!(
            parse_model_id("https://huggingface.co/gpt2/resolve/abc123/config.json").unwrap(),
            id("gpt2", Some("abc123"), Some("config.json"))
        );
    }

    #[test]
    fn ids_that_could_leave_the_repository_are_refused() {
        for bad in ["a/../b", "-a/b", "a/b/c", "a--b/c", "a b/c", "a/b.", "/b"] {
            assert!(parse_model_id(bad).is_err(), "{bad}");
        }
        assert!(parse_model_id("a/b@../x").is_err());
        assert!(parse_model_id("https://huggingface.co/a/b/blob/main/../x").is_err());
        assert!(matches!(
            parse_model_id("https://huggingface.co/datasets/a/b"),
            Err(HubError::NotAModelUrl(_))
        ));
        assert_eq!(parse_model_id("  "), Err(HubError::EmptyId));
    }
}
