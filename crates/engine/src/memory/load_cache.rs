//! What `torch.cuda.max_memory_reserved` holds after bitsandbytes quantizes a model while loading
//! it: each matrix reaches the GPU in 16-bit, is quantized, and its 16-bit block is freed, but the
//! caching allocator keeps the block, and the small quantized tensors carved out of the freed
//! blocks leave gaps the next 16-bit matrix does not fit, so the reserved memory grows by more
//! than the one matrix held at a time.
//!
//! The allocator is replayed here because no crate models PyTorch's: the rules are
//! `c10/cuda/CUDACachingAllocator.cpp` (sizes rounded to 512 B; blocks up to 1 MiB from a pool of
//! 2 MiB segments, larger ones from segments of 20 MiB below 10 MiB and rounded to 2 MiB above;
//! the smallest free block that fits, split when more than 1 MiB (small pool: 512 B) is left;
//! free neighbours merged). The load order and the tensors follow bitsandbytes 95f9af3
//! `nn/modules.py` `Params4bit._quantize` and `functional.py` `quantize_4bit`.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use crate::model::Architecture;

const MIB: u64 = 1 << 20;
const SMALL: u64 = MIB;

#[derive(Clone, Copy)]
struct Block {
    id: u64,
    size: u64,
    free: bool,
}

struct Segment {
    small: bool,
    blocks: Vec<Block>,
}

/// The caching allocator's segments and blocks, with its free blocks indexed by size (small pool,
/// size, id) for the best fit, and each block's segment by id.
#[derive(Default)]
struct Cache {
    segments: Vec<Segment>,
    free_blocks: BTreeSet<(bool, u64, u64)>,
    segment_of: HashMap<u64, usize>,
    reserved: u64,
    /// Growth counted for repetitions not replayed (see [`Cache::repeat`]).
    extrapolated: u64,
    next_id: u64,
}

impl Cache {
    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Allocates `bytes` and returns the block's id.
    fn malloc(&mut self, bytes: u64) -> u64 {
        let size = bytes.max(1).div_ceil(512) * 512;
        let small = size <= SMALL;
        let found = self
            .free_blocks
            .range((small, size, 0)..=(small, u64::MAX, u64::MAX))
            .next()
            .copied();
        let (si, free_id) = match found {
            Some(key) => {
                self.free_blocks.remove(&key);
                (self.segment_of[&key.2], key.2)
            }
            None => {
                let segment = if small {
                    2 * MIB
                } else if size < 10 * MIB {
                    20 * MIB
                } else {
                    size.div_ceil(2 * MIB) * 2 * MIB
                };
                self.reserved += segment;
                let id = self.new_id();
                self.segments.push(Segment {
                    small,
                    blocks: vec![Block {
                        id,
                        size: segment,
                        free: true,
                    }],
                });
                self.segment_of.insert(id, self.segments.len() - 1);
                (self.segments.len() - 1, id)
            }
        };
        let id = self.new_id();
        let tail_id = self.new_id();
        let segment = &mut self.segments[si];
        let bi = segment
            .blocks
            .iter()
            .position(|b| b.id == free_id)
            .expect("a free block");
        let rest = segment.blocks[bi].size - size;
        let splits = if segment.small {
            rest >= 512
        } else {
            rest > SMALL
        };
        if splits {
            segment.blocks[bi].size = size;
            let tail = Block {
                id: tail_id,
                size: rest,
                free: true,
            };
            segment.blocks.insert(bi + 1, tail);
            self.free_blocks.insert((small, rest, tail_id));
            self.segment_of.insert(tail_id, si);
        }
        segment.blocks[bi].free = false;
        segment.blocks[bi].id = id;
        self.segment_of.remove(&free_id);
        self.segment_of.insert(id, si);
        id
    }

    /// Frees block `id`, merging it with free neighbours.
    fn free(&mut self, id: u64) {
        let Some(&si) = self.segment_of.get(&id) else {
            return;
        };
        let segment = &mut self.segments[si];
        let small = segment.small;
        let Some(mut i) = segment.blocks.iter().position(|b| b.id == id) else {
            return;
        };
        segment.blocks[i].free = true;
        if i + 1 < segment.blocks.len() && segment.blocks[i + 1].free {
            let next = segment.blocks.remove(i + 1);
            self.free_blocks.remove(&(small, next.size, next.id));
            self.segment_of.remove(&next.id);
            segment.blocks[i].size += next.size;
        }
        if i > 0 && segment.blocks[i - 1].free {
            let this = segment.blocks.remove(i);
            self.segment_of.remove(&this.id);
            i -= 1;
            let prev = segment.blocks[i];
            self.free_blocks.remove(&(small, prev.size, prev.id));
            segment.blocks[i].size += this.size;
        }
        let merged = segment.blocks[i];
        self.free_blocks.insert((small, merged.size, merged.id));
    }

    /// One matrix of `n` parameters quantized to 4 bits on the GPU: the 16-bit copy, the packed
    /// output and its fp32 block scales (64 per block), with double quantization the scales'
    /// offset copy, their 8-bit codes and one fp32 scale per 256 of them; the 16-bit copy and
    /// the temporaries are freed.
    fn quantize_4bit(&mut self, n: u64, double_quant: bool) {
        let w = self.malloc(2 * n);
        self.malloc(n.div_ceil(2));
        let blocks = n.div_ceil(64);
        let absmax = self.malloc(4 * blocks);
        if double_quant {
            let offset = self.malloc(4 * blocks);
            self.malloc(blocks);
            self.malloc(4 * blocks.div_ceil(256));
            self.free(offset);
            self.free(absmax);
        }
        self.free(w);
    }
}

/// Repetitions of a unit (a layer, an expert) replayed before the rest are taken to grow the
/// reserve as the replayed ones did: the units are alike, and their growth settles into a steady
/// or periodic pattern (a new 20 MiB segment every few units' small tensors).
const REPLAYED: u64 = 16;

impl Cache {
    /// Replays `times` repetitions of `unit`; past [`REPLAYED`], or once two in a row grew the
    /// reserve alike, the rest are counted as growing it by the replayed ones' mean after the
    /// first.
    fn repeat(&mut self, times: u64, unit: &mut dyn FnMut(&mut Cache)) {
        let total = |c: &Cache| c.reserved + c.extrapolated;
        let (mut growth, mut steady, mut after_first) = (u64::MAX, 0, 0);
        for i in 0..times {
            if i >= 2 && (steady >= 2 || i >= REPLAYED) {
                let mean = (total(self) - after_first) / (i - 1);
                self.extrapolated += (times - i) * mean;
                return;
            }
            let before = total(self);
            unit(self);
            let grew = total(self) - before;
            steady = if grew == growth { steady + 1 } else { 0 };
            growth = grew;
            if i == 0 {
                after_first = total(self);
            }
        }
    }
}

/// The allocator's reserved bytes once a model is loaded with its linear layers quantized to 4
/// bits one matrix at a time (and `head` quantized too when set); the embeddings, norms and an
/// unquantized head arrive in 16-bit. Checkpoint order: the head (`lm_head` sorts first), the
/// embeddings, then each layer's MLP (or experts) and attention matrices.
pub(super) fn reserved_after_4bit_load(a: &Architecture, double_quant: bool, head: bool) -> u64 {
    LAST_LOADS.with_borrow_mut(|kept| {
        let asked = |(at, _): &(LoadAsked, u64)| at.0 == *a && at.1 == double_quant && at.2 == head;
        let answer = match kept.iter().position(asked) {
            Some(i) => kept.remove(i).1,
            None => replayed_load(a, double_quant, head),
        };
        kept.truncate(KEPT_LOADS - 1);
        kept.insert(0, ((a.clone(), double_quant, head), answer));
        answer
    })
}

/// A load replay's arguments: the model, double quantization, a quantized head.
type LoadAsked = (Architecture, bool, bool);

/// How many load replays are kept: the solver tries a few formats of one model in turn.
const KEPT_LOADS: usize = 4;

thread_local! {
    /// The last loads replayed, the latest first. A step on the page, every point of its
    /// sequence sweep and the solver's tries ask for the same few models, and replaying an MoE
    /// model's load is thousands of allocations (a few milliseconds); an answer depends on its
    /// arguments only, so the last ones are kept.
    static LAST_LOADS: RefCell<Vec<(LoadAsked, u64)>> = const { RefCell::new(Vec::new()) };
}

/// [`reserved_after_4bit_load`], replayed.
fn replayed_load(a: &Architecture, double_quant: bool, head: bool) -> u64 {
    let mut cache = Cache::default();
    let vocab_matrix = a.vocab * a.hidden;
    let head_params = if a.tied { 0 } else { vocab_matrix };
    if head && head_params > 0 {
        cache.quantize_4bit(head_params, double_quant);
    } else if head_params > 0 {
        cache.malloc(2 * head_params);
    }
    cache.malloc(2 * vocab_matrix);
    let matrices = |ms: Vec<(&str, u64, u64)>| ms.iter().map(|(_, i, o)| i * o).collect::<Vec<_>>();
    let attention = matrices(a.attention_matrices());
    let norms = 2 * a.hidden * a.norms_per_layer.max(2);
    let quantize_all = |c: &mut Cache, ms: &[u64]| {
        for n in ms {
            c.quantize_4bit(*n, double_quant);
        }
    };
    let dense = matrices(a.mlp_matrices(a.intermediate));
    cache.repeat(a.dense_layers(), &mut |c| {
        quantize_all(c, &dense);
        quantize_all(c, &attention);
        c.malloc(norms);
    });
    if let Some(m) = &a.moe {
        let expert = matrices(a.mlp_matrices(m.expert_ffn));
        let shared = matrices(a.mlp_matrices(m.shared_ffn));
        cache.repeat(a.moe_layers(), &mut |c| {
            c.repeat(m.experts, &mut |c| quantize_all(c, &expert));
            if m.shared_ffn > 0 {
                quantize_all(c, &shared);
            }
            quantize_all(c, &attention);
            c.malloc(norms);
        });
    }
    cache.reserved + cache.extrapolated
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reserved(c: &Cache) -> u64 {
        c.reserved
    }

    #[test]
    fn a_freed_block_is_reused_whole_by_the_next_request_of_its_size() {
        let mut c = Cache::default();
        // 112 MiB: a segment of 112 MiB; freed and asked again, the same block serves
        let a = c.malloc(112 * MIB);
        c.free(a);
        c.malloc(112 * MIB);
        assert_eq!(reserved(&c), 112 * MIB);
    }

    #[test]
    fn a_small_tensor_carved_from_a_freed_block_makes_the_next_one_of_its_size_a_new_segment() {
        let mut c = Cache::default();
        let w = c.malloc(112 * MIB);
        c.free(w);
        // 28 MiB carved out of the free 112 MiB block leaves 84 MiB: 112 MiB no longer fits
        c.malloc(28 * MIB);
        c.malloc(112 * MIB);
        assert_eq!(reserved(&c), 224 * MIB);
    }

    #[test]
    fn loading_llama_3_1_8b_in_nf4_leaves_about_one_16_bit_mlp_matrix_cached_beside_the_weights() {
        let a = crate::model::presets::find("llama-3.1-8b")
            .unwrap()
            .architecture();
        // what stays allocated, each request rounded to 512 B: the 16-bit head, embeddings and
        // norms, and per 4-bit matrix n/2 B packed, n/64 B of 8-bit scales and 4 B per 256 scales
        let round = |b: u64| b.div_ceil(512) * 512;
        let quantized = |n: u64| round(n / 2) + round(n / 64) + round(4 * (n / 64).div_ceil(256));
        let layer: u64 = a
            .mlp_matrices(a.intermediate)
            .iter()
            .chain(a.attention_matrices().iter())
            .map(|(_, i, o)| quantized(i * o))
            .sum::<u64>()
            + round(2 * 2 * a.hidden);
        let kept = 2 * round(2 * a.vocab * a.hidden) + a.layers * layer;
        let reserved = reserved_with_double_quant(&a);
        // the 14,336 × 4,096 MLP matrices are 112 MiB in 16-bit: the cache keeps one of them and
        // the partly used segments around the small tensors, not one per layer
        let cached = reserved - kept;
        assert!(
            (112 * MIB..2 * 112 * MIB).contains(&cached),
            "{cached} B cached"
        );
    }

    fn reserved_with_double_quant(a: &Architecture) -> u64 {
        reserved_after_4bit_load(a, true, false)
    }

    #[test]
    fn the_kept_answer_is_the_replay_of_the_model_asked_and_never_of_the_one_before() {
        let model = |id| crate::model::presets::find(id).unwrap().architecture();
        let (dense, moe) = (model("llama-3.1-8b"), model("qwen3-30b-a3b"));
        for (a, dq, head) in [
            (&dense, true, false),
            (&moe, true, false),
            (&moe, false, false),
            (&moe, false, true),
            (&dense, true, false),
        ] {
            assert_eq!(
                reserved_after_4bit_load(a, dq, head),
                replayed_load(a, dq, head)
            );
        }
        assert_ne!(
            reserved_after_4bit_load(&dense, true, false),
            reserved_after_4bit_load(&moe, true, false)
        );
    }

    #[test]
    fn requests_under_10_mib_take_a_20_mib_segment_and_under_1_mib_a_2_mib_one() {
        let mut c = Cache::default();
        c.malloc(3 * MIB);
        assert_eq!(reserved(&c), 20 * MIB);
        c.malloc(1000);
        assert_eq!(reserved(&c), 22 * MIB);
    }
}
