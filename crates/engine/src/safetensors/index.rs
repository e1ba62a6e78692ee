//! `model.safetensors.index.json`: which shard holds each tensor, and the total data size the
//! exporter wrote (`metadata.total_size`, transformers' sum of tensor bytes).

use super::error::{IndexError, SafetensorsLimit};
use serde::Deserialize;

use crate::json::{self, Lenient, Map, Value, Whole};

/// The largest index accepted, in bytes (DeepSeek-V3's, with 91,000 names, is about 9 MB).
pub const MAX_INDEX_BYTES: usize = 32 << 20;

/// A parsed index: the shards in name order, and what it says of itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SafetensorsIndex {
    shards: Vec<String>,
    tensors: u64,
    total_size: Option<u64>,
}

impl SafetensorsIndex {
    /// Shard file names, each once, sorted.
    pub fn shards(&self) -> &[String] {
        &self.shards
    }

    /// Tensor names in `weight_map`.
    pub fn tensors(&self) -> u64 {
        self.tensors
    }

    /// `metadata.total_size` when present: bytes of tensor data in all shards.
    pub(crate) fn total_size(&self) -> Option<u64> {
        self.total_size
    }
}

/// The fields of model.safetensors.index.json a budget reads.
#[derive(Default, Deserialize)]
struct IndexFile {
    #[serde(default)]
    weight_map: Lenient<Map<String, Value>>,
    #[serde(default)]
    metadata: Lenient<IndexMetadata>,
}

#[derive(Deserialize)]
struct IndexMetadata {
    #[serde(default)]
    total_size: Lenient<Whole>,
}

/// Reads an index's text.
pub fn read_index(text: &str) -> Result<SafetensorsIndex, IndexError> {
    if text.len() > MAX_INDEX_BYTES {
        return Err(IndexError::TooLarge {
            bytes: text.len() as u64,
            limit: MAX_INDEX_BYTES as u64,
        });
    }
    let value = json::parse(text).map_err(IndexError::NotJson)?;
    let index: IndexFile = json::typed(&value).unwrap_or_default();
    let map = index.weight_map.0.ok_or(IndexError::NoWeightMap)?;
    let over = |limit: SafetensorsLimit, n: usize| {
        (n as u64 > limit.max()).then_some(IndexError::OverLimit {
            limit,
            value: n as u64,
        })
    };
    if let Some(e) = over(SafetensorsLimit::Tensors, map.len()) {
        return Err(e);
    }
    let mut shards: Vec<String> = Vec::new();
    for (_, file) in map.iter() {
        let file = file
            .as_str()
            .filter(|f| is_shard_name(f))
            .ok_or_else(|| IndexError::BadShard(json::brief(file).chars().take(80).collect()))?;
        shards.push(file.to_string());
    }
    shards.sort();
    shards.dedup();
    if let Some(e) = over(SafetensorsLimit::Shards, shards.len()) {
        return Err(e);
    }
    let total_size = index.metadata.0.and_then(|m| m.total_size.0).map(|w| w.0);
    Ok(SafetensorsIndex {
        shards,
        tensors: map.len() as u64,
        total_size,
    })
}

/// A relative file name in the repository that ends in `.safetensors`: no `..`, no leading '/',
/// nothing a URL would read as another place.
pub(crate) fn is_shard_name(f: &str) -> bool {
    f.ends_with(".safetensors")
        && f.len() <= 255
        && !f.starts_with('/')
        && f.split('/').all(|part| !part.is_empty() && part != "..")
        && f.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_lists_each_shard_once_in_order_with_its_total() {
        let text = r#"{"metadata":{"total_size":16060522496},"weight_map":{"lm_head.weight":"model-00004-of-00004.safetensors","model.embed_tokens.weight":"model-00001-of-00004.safetensors","model.norm.weight":"model-00004-of-00004.safetensors"}}"#;
        let index = read_index(text).unwrap();
        assert_eq!(
            index.shards(),
            [
                "model-00001-of-00004.safetensors",
                "model-00004-of-00004.safetensors"
            ]
        );
        assert_eq!(index.tensors(), 3);
        assert_eq!(index.total_size(), Some(16_060_522_496));
    }

    #[test]
    fn a_shard_name_that_leaves_the_repository_is_refused() {
        for bad in [
            "../x.safetensors",
            "/etc/x.safetensors",
            "a?b.safetensors",
            "x.bin",
        ] {
            let text = format!(r#"{{"weight_map":{{"a":"{bad}"}}}}"#);
            assert!(
                matches!(read_index(&text), Err(IndexError::BadShard(_))),
                "{bad}"
            );
        }
        assert_eq!(read_index("{}"), Err(IndexError::NoWeightMap));
    }
}
