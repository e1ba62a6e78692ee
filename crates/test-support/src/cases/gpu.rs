//! The catalog GPU a case names, read by the catalog's own names.

use serde_json::Value;
use vram_engine::Gpu;

use super::lower;

/// The catalog GPU a case names: the longest catalog name among the case's words (vendor words
/// such as NVIDIA, Tesla, GeForce and RTX dropped on both sides), then of the variants of that name
/// the one whose capacity the case states ("A100-SXM4-40GB"), else the largest. A case that names
/// no catalog GPU is read as an H100.
pub fn gpu(c: &Value) -> (Gpu, bool) {
    let words = gpu_words(&lower(c, "gpu"));
    let spans: Vec<String> = (0..words.len())
        .flat_map(|i| (i + 1..=(i + 3).min(words.len())).map(move |j| (i, j)))
        .map(|(i, j)| words[i..j].concat())
        .collect();
    let named: Vec<(Gpu, usize)> = Gpu::ALL
        .iter()
        .filter_map(|&g| {
            catalog_names(g)
                .into_iter()
                .filter(|n| spans.contains(n))
                .map(|n| n.len())
                .max()
                .map(|len| (g, len))
        })
        .collect();
    let Some(longest) = named.iter().map(|(_, len)| *len).max() else {
        return (Gpu::H100, false);
    };
    let variants: Vec<Gpu> = named
        .iter()
        .filter(|(_, len)| *len == longest)
        .map(|(g, _)| *g)
        .collect();
    let stated: Vec<u64> = words.iter().filter_map(|w| capacity_gb(w)).collect();
    let by_capacity = variants
        .iter()
        .copied()
        .find(|g| stated.contains(&label_capacity_gb(*g)));
    let largest = variants.iter().copied().max_by_key(|g| g.bytes());
    (by_capacity.or(largest).unwrap_or(Gpu::H100), true)
}

/// Words that name a vendor or a product line rather than the card.
const VENDOR_WORDS: &[&str] = &["nvidia", "tesla", "geforce", "rtx", "amd", "instinct"];

/// The words of a GPU's name, lower case, split at anything but letters and digits, vendor words
/// dropped.
fn gpu_words(text: &str) -> Vec<String> {
    text.split(|ch: char| !ch.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !VENDOR_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

/// The names a catalog GPU goes by: its label without the capacity, each alternative of "A10 /
/// A10G", its words joined ("rtx 4090 d" → "4090d").
fn catalog_names(g: Gpu) -> Vec<String> {
    let label = g.label().to_ascii_lowercase();
    label
        .split('/')
        .map(|alt| {
            gpu_words(alt)
                .into_iter()
                .filter(|w| capacity_gb(w).is_none())
                .collect::<String>()
        })
        .filter(|n| !n.is_empty())
        .collect()
}

/// A capacity word: "80gb", "80g", "24gib".
fn capacity_gb(word: &str) -> Option<u64> {
    let digits: String = word.chars().take_while(char::is_ascii_digit).collect();
    let rest = &word[digits.len()..];
    matches!(rest, "gb" | "g" | "gib")
        .then(|| digits.parse().ok())
        .flatten()
}

/// The capacity a catalog label states ("H100 80GB" → 80).
fn label_capacity_gb(g: Gpu) -> u64 {
    gpu_words(&g.label().to_ascii_lowercase())
        .iter()
        .find_map(|w| capacity_gb(w))
        .unwrap_or(0)
}
