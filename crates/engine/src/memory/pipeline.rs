//! Pipeline parallelism and layer splits: the decoder layers spread over `pp` GPUs in sequence,
//! each stage a smaller model. The first stage holds the embeddings, the last the final norm,
//! the head and the loss (Megatron-LM `megatron/core/models/gpt/gpt_model.py`: `pre_process` builds
//! the embedding, `post_process` the output layer; torch.distributed.pipelining splits a model the
//! same way). A tied head is a separate copy on the last training stage, its gradient all-reduced
//! with the first stage's embeddings (Megatron `setup_embeddings_and_output_layer`:
//! "the last stage ... will have a copy of the word embeddings"); accelerate's `device_map`
//! keeps tied weights on one device (`check_tied_parameters_on_same_device`), so a split
//! inference model computes a tied head on the first GPU, beside the embeddings.
//!
//! Under 1F1B (Megatron's default schedule, PipeDream-Flush; `Schedule1F1B` in
//! torch.distributed.pipelining) stage i of p runs p − i − 1 warm-up forwards before its first
//! backward, so it keeps the activations of up to p − i micro-batches (Narayanan et al. 2021,
//! "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", §2.2.1;
//! Megatron `forward_backward_pipelining_without_interleaving`: `num_warmup_microbatches =
//! pipeline_parallel_size - pipeline_parallel_rank - 1`). GPipe runs every forward first and
//! keeps all m. The micro-batches of one step are the gradient-accumulation steps.

use crate::model::{Architecture, ParamCounts};
use crate::scenario::{PipelineSchedule, Scenario};
use crate::units::prod;

/// Where one pipeline stage sits and what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineStage {
    /// The stage's place, from 0.
    pub index: u64,
    /// Stages in the pipeline (1: the whole model on each GPU).
    pub(crate) stages: u64,
    /// Decoder layers on the stage.
    pub layers: u64,
    /// Whether the stage holds the token (and position) embeddings.
    pub(crate) embeddings: bool,
    /// Whether the stage holds the output head and computes the logits and the loss.
    pub head: bool,
    /// Micro-batches whose activations the stage holds at once (interleaved: chunk-micro-batches,
    /// each over one of its `chunks`).
    pub(crate) in_flight: u64,
    /// Model chunks on the GPU: 1, or the virtual stages of the interleaved schedule.
    pub chunks: u64,
    /// Micro-batches whose logits the stage that computes the loss holds at once.
    pub loss_batches: u64,
}

impl PipelineStage {
    /// The whole model on one stage.
    pub fn whole(arch: &Architecture) -> PipelineStage {
        PipelineStage {
            index: 0,
            stages: 1,
            layers: arch.layers,
            embeddings: true,
            head: true,
            in_flight: 1,
            chunks: 1,
            loss_batches: 1,
        }
    }

    /// Layer-micro-batches of activations the stage holds when it keeps `layers` of its layers:
    /// in-flight micro-batches × layers, or chunk-micro-batches × the layers of one chunk.
    pub(crate) fn layers_in_flight(&self, layers: u64) -> u64 {
        prod(&[self.in_flight, layers]).div_ceil(self.chunks.max(1))
    }

    /// Stage `index` of the scenario's pipeline. The layers are split as evenly as they go, the
    /// first `layers mod stages` stages taking one more (torch.chunk / numpy.array_split).
    /// Under the interleaved schedule GPU i holds chunks i, i + p, … of p × chunks (PyTorch
    /// `ScheduleInterleaved1F1B`: `warmup_steps = (n_local_stages - 1) * pp_group_size + 2 *
    /// (pp_group_size - 1 - rank)`, plus the forward its first backward runs on).
    pub fn of(s: &Scenario, arch: &Architecture, index: u64) -> PipelineStage {
        let stages = s.pipeline_stages();
        let training = s.job.is_training();
        let chunks = if training && s.pipeline_schedule == PipelineSchedule::Interleaved {
            s.virtual_stages.max(1)
        } else {
            1
        };
        let layers = (0..chunks)
            .map(|k| layer_span(arch.layers, stages * chunks, index + k * stages).1)
            .sum();
        let last = index + 1 == stages;
        // accelerate keeps a tied head beside the embeddings; vLLM builds the head on the last
        // rank, with its own copy of tied embeddings (`LlamaModel`: embed_tokens on the first
        // rank, or on the last when tie_word_embeddings)
        let head_on_first = arch.tied && s.job == crate::scenario::Job::Inference;
        let micro_batches = if training { s.grad_accum.max(1) } else { 1 };
        let in_flight = match s.pipeline_schedule {
            _ if !training => 1,
            PipelineSchedule::OneFOneB => (stages - index).min(micro_batches),
            PipelineSchedule::GPipe => micro_batches,
            PipelineSchedule::Interleaved => {
                ((chunks - 1) * stages + 2 * (stages - 1 - index) + 1).min(micro_batches * chunks)
            }
        };
        let loss_batches = match s.pipeline_schedule {
            PipelineSchedule::GPipe if training => micro_batches,
            _ => 1,
        };
        PipelineStage {
            index,
            stages,
            layers,
            embeddings: index == 0,
            head: if head_on_first { index == 0 } else { last },
            in_flight,
            chunks,
            loss_batches,
        }
    }

    /// Every stage of the scenario's pipeline, first to last.
    pub fn all(s: &Scenario, arch: &Architecture) -> Vec<PipelineStage> {
        (0..s.pipeline_stages())
            .map(|i| PipelineStage::of(s, arch, i))
            .collect()
    }

    /// The stages that can be the busiest: the first (embeddings, most micro-batches in
    /// flight), the second (the most layers and in-flight micro-batches of the middle ones) and
    /// the last (the head and the loss). Middle stages never hold more than the second.
    pub fn candidates(s: &Scenario, arch: &Architecture) -> Vec<PipelineStage> {
        let stages = s.pipeline_stages();
        let mut picked = vec![0, 1.min(stages - 1), stages - 1];
        picked.dedup();
        picked
            .into_iter()
            .map(|i| PipelineStage::of(s, arch, i))
            .collect()
    }

    /// Whether the model is split at all.
    pub fn is_split(&self) -> bool {
        self.stages > 1
    }

    /// The stage as a model of its own: its layers, with the dense/MoE and sliding/full layer
    /// mix of the range it covers.
    pub fn architecture(&self, arch: &Architecture) -> Architecture {
        let mut a = arch.clone();
        if !self.is_split() {
            return a;
        }
        let (first, _) = layer_span(arch.layers, self.stages * self.chunks, self.index);
        let layers = self.layers;
        a.layers = layers;
        if let Some(m) = a.moe.as_mut() {
            // the dense layers come first (first_k_dense_replace)
            m.dense_layers = m.dense_layers.saturating_sub(first).min(layers);
        }
        // sliding layers interleave with full ones: the stage takes its share
        a.sliding_layers = (arch.sliding_layers * layers)
            .div_ceil(arch.layers.max(1))
            .min(layers);
        // so do a hybrid's recurrent, attention and feed-forward layers
        if let Some(r) = a.recurrent.as_mut() {
            let share = |n: u64| (n * layers).div_ceil(arch.layers.max(1)).min(layers);
            r.layers = share(r.layers).max(1);
            r.attention_layers = share(r.attention_layers);
            r.ffn_layers = share(r.ffn_layers);
        }
        // an encoder–decoder's encoder runs on the first stage; the others keep their decoder
        // layers' cross-attention and receive the encoder's output
        if let (false, Some(e)) = (self.embeddings, a.encoder.as_mut()) {
            e.layers = 0;
            e.positions = 0;
            e.mel_bins = 0;
        }
        a
    }

    /// The stage's parameters: its layers, the embeddings on the first, the final norm on the
    /// last, the head on the stage that computes the logits (a tied head there is its own copy unless the embeddings are
    /// on the same stage), what is outside the language model on the first.
    pub fn params(&self, stage_arch: &Architecture) -> ParamCounts {
        let mut p = stage_arch.params();
        if !self.is_split() {
            return p;
        }
        let head_copy = prod(&[stage_arch.vocab, stage_arch.hidden])
            + if stage_arch.head_bias {
                stage_arch.vocab
            } else {
                0
            };
        if self.index + 1 < self.stages {
            // the final norm follows the last decoder layer
            p.small -= stage_arch.norm_params();
        }
        if !self.embeddings {
            p.embedding = 0;
            p.extra = 0;
        }
        p.head = match (self.head, stage_arch.tied && !self.embeddings) {
            (false, _) => 0,
            (true, true) => head_copy,
            (true, false) => p.head,
        };
        p
    }
}

/// The first layer and the number of layers of stage `index` of `stages`.
fn layer_span(layers: u64, stages: u64, index: u64) -> (u64, u64) {
    let base = layers / stages;
    let extra = layers % stages;
    let count = base + u64::from(index < extra);
    let first = index * base + index.min(extra);
    (first, count)
}

#[cfg(test)]
mod tests {
    use super::layer_span;

    #[test]
    fn layers_split_evenly_with_the_remainder_on_the_first_stages() {
        let spans: Vec<(u64, u64)> = (0..4).map(|i| layer_span(30, 4, i)).collect();
        assert_eq!(spans, vec![(0, 8), (8, 8), (16, 7), (23, 7)]);
        assert_eq!(spans.iter().map(|s| s.1).sum::<u64>(), 30);
    }
}
