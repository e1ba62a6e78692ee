//! Reading a safetensors model from the Hub with the fewest bytes, in the engine's read order
//! (`vram_engine::hub::ModelRead`), each GET through a [`Fetch`].

use vram_engine::hub::{CheckpointRead, HubReadError, ModelRead, RepoRead, Step};
use vram_engine::{
    hub::gguf_entries, hub::FetchFailure, hub::GgufEntry, hub::HubEndpoint, hub::HubError,
    hub::HubSource, hub::IndexError, hub::SafetensorsError, EngineError,
};

use super::Fetch;

/// A safetensors model read from the Hub: the engine's read, where it came from included.
pub type HubRead = CheckpointRead;

/// Why the model was not read.
#[derive(Clone, Debug, PartialEq)]
pub enum HubProblem {
    Id(HubError),
    Fetch(FetchFailure),
    Config(EngineError),
    Index(IndexError),
    Shard(String, SafetensorsError),
    /// A GGUF file's header could not be read (the reader stopped answering, or asked for
    /// more than a header holds).
    GgufUnread(String),
    /// The llama.cpp module's reason a GGUF file gives no model, English then Chinese.
    GgufRefused([String; 2]),
    /// Neither safetensors nor GGUF files at this revision.
    NoWeights(String),
}

impl From<HubReadError> for HubProblem {
    fn from(e: HubReadError) -> Self {
        match e {
            HubReadError::Id(e) => HubProblem::Id(e),
            HubReadError::Fetch(f) => HubProblem::Fetch(f),
            HubReadError::Config(e) => HubProblem::Config(e),
            HubReadError::Index(e) => HubProblem::Index(e),
            HubReadError::Shard(file, e) => HubProblem::Shard(file, e),
            HubReadError::NoWeights(repo) => HubProblem::NoWeights(repo),
        }
    }
}

/// A GGUF repository: its model files to pick from, at the commit listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufRepo {
    pub source: HubSource,
    pub entries: Vec<GgufEntry>,
}

/// What a repository holds: a safetensors model read, or GGUF files to pick from.
#[derive(Clone, Debug, PartialEq)]
pub enum HubAnswer {
    Model(Box<HubRead>),
    Gguf(GgufRepo),
}

/// Reads the model `id` names from `endpoint`, or lists its GGUF files; `today` (`YYYY-MM-DD`)
/// dates the link.
pub async fn read_model<F: Fetch>(
    fetch: &F,
    endpoint: &HubEndpoint,
    id: &str,
    today: &str,
) -> Result<HubAnswer, HubProblem> {
    let read = ModelRead::new(endpoint.clone(), id, today);
    Ok(match drive(fetch, read).await? {
        RepoRead::Checkpoint(read) => HubAnswer::Model(read),
        RepoRead::Gguf(listed) => HubAnswer::Gguf(GgufRepo {
            source: listed.source,
            entries: gguf_entries(&listed.listing),
        }),
    })
}

/// Runs a read of the Hub to its answer, fetching each GET it asks for.
pub(super) async fn drive<F: Fetch, R: vram_engine::hub::HubRead>(
    fetch: &F,
    mut read: R,
) -> R::Answer {
    let mut step = read.start();
    loop {
        match step {
            Step::Get(get) => step = read.answer(fetch.get(&get.url, get.range, get.limit).await),
            Step::Done(answer) => return answer,
        }
    }
}
