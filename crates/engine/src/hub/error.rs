//! What is wrong with a model id, an endpoint or the Hub's file listing, as data.

use crate::json::JsonError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HubError {
    /// Nothing was typed.
    EmptyId,
    /// Not `owner/name` with letters, digits, '-', '_' and '.' (its first characters).
    BadRepoId(String),
    /// A revision with characters a branch, tag or commit cannot have.
    BadRevision(String),
    /// A file path in the repository that is not plain (`..`, a query, odd characters).
    BadFilePath(String),
    /// A URL that does not point at a model (a dataset, a Space, another site's page).
    NotAModelUrl(String),
    /// An endpoint that is not `http(s)://host[:port][/path]`.
    BadEndpoint(String),
    /// A listing or other Hub answer over the size read.
    TooLarge {
        bytes: u64,
        limit: u64,
    },
    NotJson(JsonError),
    /// The listing has no `siblings` array of files.
    NoFileList,
    /// A date outside 1970..9999 or not `YYYY-MM-DD`.
    BadDate(String),
}

impl std::fmt::Display for HubError {
    /// The error's kind and numbers, for logs and tests; users see the shells' sentences.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for HubError {}
