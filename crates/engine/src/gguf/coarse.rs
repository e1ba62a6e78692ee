//! Coarser GGUF summaries for a link that would be too long: a file with many distinct tensors
//! (per-layer shapes, mixed quantization over layers) can write a summary of thousands of
//! characters, past the link's limit. The page coarsens a picked file's summary when it reads it
//! (the code runs in the llama.cpp job's module, not in the page's first load).
//!
//! Each step keeps exact bytes at a coarser grain. [`Detail::LayerBytes`]: each layer's tensors
//! become byte "lumps" (`blk.N.lumpK`, i8) that add up to the layer's exact bytes, the experts
//! apart (`blk.N.ffn_up_exps.lumpK`, so `--n-cpu-moe` still finds them); no lump is larger than
//! the layer's largest tensor, the largest weight op offload copies. [`Detail::ModelBytes`]: the
//! layers' bytes, experts apart, spread evenly over the layers; the model's total stays exact.
//! What is lost is each tensor's own padding on a GPU (CUDA pads quantized rows to 512 values
//! and every tensor to 128 bytes): at most [`PADDING_PER_TENSOR`] bytes per tensor.

use super::ggml_type::GgmlType;
use super::summary::{GgufSummary, TensorGroup};

/// How much a summary keeps of its file's tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// Every tensor's name, shape and type.
    Tensors,
    /// Each layer's bytes (experts apart), not its tensors.
    LayerBytes,
    /// The layers' total bytes (experts apart), spread evenly over the layers.
    ModelBytes,
}

/// The most a GPU backend pads one tensor beyond its bytes (CUDA: a quantized row of up to 511
/// values of at most 1 byte each, plus alignment to 128).
pub const PADDING_PER_TENSOR: u64 = 512 + 128;

const LUMP: &str = "lump";

/// One layer's bytes in one class (experts or the rest) and its largest tensor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ClassBytes {
    total: u64,
    largest: u64,
}

impl ClassBytes {
    fn add(&mut self, bytes: u64) {
        self.total = self.total.saturating_add(bytes);
        self.largest = self.largest.max(bytes);
    }
}

/// `ffn_{up,down,gate,gate_up}_{,ch}exps…`: a layer tensor that holds a MoE layer's experts.
fn is_expert_name(name: &str) -> bool {
    super::is_expert(&format!(".{name}"))
}

/// `…lumpK…`: a group written by the coarser summaries.
fn is_lump(name: &str) -> bool {
    name.split('.').any(|part| {
        part.strip_prefix(LUMP)
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
    })
}

fn group_bytes(g: &TensorGroup) -> u64 {
    let Some((&ne0, rest)) = g.dims.split_first() else {
        return 0;
    };
    let rows: u64 = rest.iter().fold(1u64, |a, &d| a.saturating_mul(d));
    g.ggml_type.bytes_for(ne0).unwrap_or(0).saturating_mul(rows)
}

impl GgufSummary {
    /// The most detailed of this summary, each layer's bytes, and the model's bytes whose text
    /// fits in `room` characters; this summary itself when none does.
    pub fn within(&self, room: usize) -> GgufSummary {
        let fits = |s: &GgufSummary| s.to_text().len() <= room;
        if fits(self) {
            return self.clone();
        }
        [self.by_layer_bytes(), self.by_model_bytes()]
            .into_iter()
            .find(fits)
            .unwrap_or_else(|| self.clone())
    }

    /// How much of its file's detail this summary keeps.
    pub fn detail(&self) -> Detail {
        let lumps = || self.groups.iter().filter(|g| is_lump(&g.name));
        if lumps().any(|g| g.name.ends_with(".even")) {
            Detail::ModelBytes
        } else if lumps().next().is_some() {
            Detail::LayerBytes
        } else {
            Detail::Tensors
        }
    }

    /// Layers 0..=the highest index any group lists.
    fn layer_count(&self) -> u32 {
        self.groups
            .iter()
            .flat_map(|g| g.layers.iter().map(|r| r.1.saturating_add(1)))
            .max()
            .unwrap_or(0)
    }

    /// Per layer: (experts, the rest).
    fn class_bytes(&self) -> Vec<(ClassBytes, ClassBytes)> {
        let mut layers =
            vec![(ClassBytes::default(), ClassBytes::default()); self.layer_count() as usize];
        for g in &self.groups {
            let bytes = group_bytes(g);
            let expert = is_expert_name(&g.name);
            for &(first, last) in &g.layers {
                for il in first..=last {
                    let (experts, rest) = &mut layers[il as usize];
                    match expert {
                        true => experts.add(bytes),
                        false => rest.add(bytes),
                    }
                }
            }
        }
        layers
    }

    fn outside_layers(&self) -> Vec<TensorGroup> {
        self.groups
            .iter()
            .filter(|g| g.layers.is_empty())
            .cloned()
            .collect()
    }

    /// Each layer's tensors as lumps of its exact bytes, experts apart.
    pub(crate) fn by_layer_bytes(&self) -> GgufSummary {
        let mut groups = self.outside_layers();
        for (il, (experts, rest)) in self.class_bytes().iter().enumerate() {
            push_lumps(&mut groups, il as u32, il as u32, "", *rest);
            push_lumps(&mut groups, il as u32, il as u32, "ffn_up_exps.", *experts);
        }
        GgufSummary {
            arch: self.arch.clone(),
            fields: self.fields.clone(),
            groups: coalesce(groups),
        }
    }

    /// The layers' total bytes, experts apart, spread evenly over the layers (the remainder on
    /// the last); lumps no larger than the largest tensor of their class.
    pub fn by_model_bytes(&self) -> GgufSummary {
        let layers = self.class_bytes();
        let n = layers.len() as u64;
        let mut groups = self.outside_layers();
        if n == 0 {
            return self.clone();
        }
        let sum = |pick: fn(&(ClassBytes, ClassBytes)) -> ClassBytes| {
            layers
                .iter()
                .map(pick)
                .fold(ClassBytes::default(), |mut acc, c| {
                    acc.total = acc.total.saturating_add(c.total);
                    acc.largest = acc.largest.max(c.largest);
                    acc
                })
        };
        for (class, prefix) in [(sum(|l| l.1), ""), (sum(|l| l.0), "ffn_up_exps.")] {
            let each = class.total / n;
            let last = class.total - each * (n - 1);
            let even = |total| ClassBytes {
                total,
                largest: class.largest,
            };
            let marked = format!("{prefix}even.");
            if n > 1 {
                push_lumps(&mut groups, 0, (n - 2) as u32, &marked, even(each));
            }
            push_lumps(
                &mut groups,
                (n - 1) as u32,
                (n - 1) as u32,
                &marked,
                even(last),
            );
        }
        GgufSummary {
            arch: self.arch.clone(),
            fields: self.fields.clone(),
            groups: coalesce(groups),
        }
    }
}

/// The lumps of `class` for layers first..=last: as many of its largest tensor's size as fit,
/// then the remainder.
fn push_lumps(
    groups: &mut Vec<TensorGroup>,
    first: u32,
    last: u32,
    prefix: &str,
    class: ClassBytes,
) {
    if class.total == 0 || class.largest == 0 {
        return;
    }
    let whole = class.total / class.largest;
    let remainder = class.total % class.largest;
    let sizes = std::iter::repeat_n(class.largest, whole as usize)
        .chain((remainder > 0).then_some(remainder));
    for (k, bytes) in sizes.enumerate() {
        let name = match prefix.strip_suffix("even.") {
            Some(p) => format!("{p}{LUMP}{k}.even"),
            None => format!("{prefix}{LUMP}{k}"),
        };
        groups.push(TensorGroup {
            name,
            dims: vec![bytes],
            ggml_type: GgmlType::I8,
            layers: vec![(first, last)],
        });
    }
}

/// Merges groups of the same name, dims and type, joining their layer ranges.
fn coalesce(groups: Vec<TensorGroup>) -> Vec<TensorGroup> {
    let mut out: Vec<TensorGroup> = Vec::new();
    for g in groups {
        let same = out.iter_mut().find(|o| {
            o.name == g.name
                && o.dims == g.dims
                && o.ggml_type == g.ggml_type
                && !o.layers.is_empty()
                && !g.layers.is_empty()
        });
        match same {
            Some(o) => {
                for (a, b) in g.layers {
                    match o.layers.last_mut() {
                        Some((_, last)) if last.checked_add(1) == Some(a) => *last = b,
                        _ => o.layers.push((a, b)),
                    }
                }
            }
            None => out.push(g),
        }
    }
    out
}
