//! Reading a model from the Hub in the engine's read order (`vram_engine::hub::ModelRead`): the
//! file list, then config.json, the index and each shard's header, or a GGUF file's header
//! (`gguf`).

use vram_engine::hub::HubSource;
use vram_engine::hub::{CheckpointRead, ModelRead, RepoRead};
use vram_text::{hub_read_error, Lang};

use super::gguf::{self, GgufRead};
use super::http::Client;

/// What the repository gave.
pub enum Model {
    Safetensors(Box<CheckpointRead>),
    Gguf(Box<GgufRead>),
}

/// Reads the model `id` names, and where it came from (read on `read_on`): a GGUF file when
/// `gguf_wanted` names one (or a quantization) in a GGUF repository, else the safetensors model.
pub fn model(
    client: &Client,
    id: &str,
    gguf_wanted: Option<&str>,
    read_on: &str,
) -> Result<(Model, HubSource), String> {
    let names_file = gguf_wanted.is_some_and(|w| w.to_ascii_lowercase().ends_with(".gguf"));
    let read = ModelRead::new(client.endpoint().clone(), id, read_on).wanting_gguf(names_file);
    match client.drive(read) {
        Ok(RepoRead::Checkpoint(c)) => {
            let source = c.source.clone();
            Ok((Model::Safetensors(c), source))
        }
        Ok(RepoRead::Gguf(listed)) => {
            let wanted = gguf_wanted.or(listed.pinned.file.as_deref());
            let read = gguf::read(client, &listed, wanted)?;
            Ok((Model::Gguf(Box::new(read)), listed.source))
        }
        Err(e) => Err(hub_read_error(Lang::En, &e)),
    }
}
