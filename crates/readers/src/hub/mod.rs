//! The page's Hub client: a model id in, the exact model out. The order of fetches is the CLI's
//! (the file list, config.json, the index, two Range reads per shard header) and is written once
//! here over a [`Fetch`], so the native tests drive it with a stand-in and the page with the
//! browser's `fetch` (`browser.rs`).

#[cfg(target_arch = "wasm32")]
pub mod browser;
mod gguf;
pub mod panel;
mod read;
mod reply;

pub use gguf::{read_gguf_file, GgufRead, PartsAnswer, PartsReader};
pub use read::{read_model, GgufRepo, HubAnswer, HubProblem, HubRead};
pub use reply::{gguf_reply, hub_reply};

use vram_engine::FetchFailure;

/// What one GET gave: its status, body (at most the limit asked for), the file's whole length
/// when a `Content-Range` said it, and `Retry-After` on a 429.
pub struct Got {
    pub status: u16,
    pub bytes: Vec<u8>,
    pub total: Option<u64>,
    pub retry_after: Option<String>,
}

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
