//! The page's Hub client: a model id in, the exact model out. The order of fetches is the
//! engine's (`vram_engine::hub`: the file list, the index, config.json, two Range reads per
//! shard header; a GGUF file's header in growing ranges), shared with the CLI, and driven here
//! over a [`Fetch`], so the native tests drive it with a stand-in and the page with the
//! browser's `fetch` (`browser.rs`).

#[cfg(target_arch = "wasm32")]
pub mod browser;
mod gguf;
pub mod panel;
mod read;
mod reply;

pub use gguf::{read_gguf_file, GgufRead, PartsReader};
pub use read::{read_model, GgufRepo, HubAnswer, HubProblem, HubRead};
pub use reply::{gguf_reply, hub_reply, HubReply};

use vram_engine::hub::FetchFailure;
pub use vram_engine::hub::Got;

/// A GET, with a `Range` of `(start, len)` when given; redirects are the fetcher's to follow.
/// A body over `limit` bytes is refused (`TooLarge`) before it is read whole where the answer's
/// length says so; network failures and timeouts come back as the engine's [`FetchFailure`].
#[allow(async_fn_in_trait)]
pub trait Fetch {
    async fn get(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
        limit: u64,
    ) -> Result<Got, FetchFailure>;
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_gguf;
