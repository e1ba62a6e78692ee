//! What the forward pass keeps for backward (or holds for a moment in inference), and the
//! loss's logits.

use super::weights::adapted_matrices;
use super::{Budget, Component, Phase};
use crate::dtype::WeightFormat;
use crate::formula::{Arg, Formula, Msg};
use crate::model::{Architecture, MlpKind};
use crate::scenario::{Attention, Checkpointing, Job, Loss, PipelineSchedule, Scenario};
use crate::units::{div_ceil, prod};

impl Budget<'_> {
    pub(super) fn training_activations(&mut self) {
        let s = self.scenario;
        let layers = self.arch.layers;
        let tokens = prod(&[s.batch, s.seq]);
        let layer = layer_activation_bytes(self.arch, s, self.act_bytes, self.tp);
        let scores = layer.scores_per_token;
        // the final norm sits before the head, on the stage that computes the loss
        let final_norm = if self.stage.head {
            div_ceil(
                (4 + 2 * self.act_bytes) * self.arch.hidden,
                sequence_split(s, self.tp),
            )
        } else {
            0
        };
        let (kept, working, how) =
            kept_per_layer(self.arch, s, self.act_bytes, self.tp, tokens, &layer);
        // a pipeline stage keeps the activations of every micro-batch it has in flight
        let stage = self.stage;
        let all_layers = prod(&[tokens, stage.layers_in_flight(layers), kept]);
        // offloaded: the kept tensors wait in CPU memory; the GPU holds the layer in use and the
        // next one, copied back ahead of time
        let on_gpu_layers = if s.offload_activations {
            layers.min(2)
        } else {
            layers
        };
        if s.offload_activations {
            self.offload(all_layers);
        }
        let bytes = prod(&[tokens, stage.layers_in_flight(on_gpu_layers), kept])
            .saturating_add(working)
            .saturating_add(prod(&[stage.loss_batches, tokens, final_norm]));
        self.push(Component::Activations, Phase::Compute, bytes, |b| {
            let args = [Arg::Count(tokens), Arg::Int(on_gpu_layers)];
            let mut f = Formula::of(Msg::ActivationsTokensLayers, &args);
            f.clauses.extend(how.clauses);
            b.in_flight_clause(&mut f);
            if final_norm > 0 {
                f.push(Msg::FinalNorm, &[Arg::Int(final_norm)]);
            }
            if scores > 0
                && matches!(
                    s.checkpointing,
                    Checkpointing::None | Checkpointing::Selective
                )
            {
                f.push(Msg::EagerScores, &[Arg::Count(scores)]);
            }
            if s.offload_activations {
                let args = [Arg::Int(layers), Arg::Bytes(all_layers)];
                f.push(Msg::ActivationsOffloaded, &args);
            }
            f.equals(bytes)
        });
        if s.job.is_peft() && s.dora {
            self.dora_norm();
        }
        if s.job == Job::Qlora && s.compute_fp32 && self.dequantizes_4bit() {
            // bnb_4bit_compute_dtype=float32: each matmul dequantizes its 4-bit matrix to fp32
            // (bitsandbytes 95f9af3 autograd/_functions.py: `dequantize_4bit(B).to(A.dtype)`)
            let n = self.arch.largest_linear_matrix();
            let bytes = div_ceil(prod(&[n, 4]), self.tp);
            self.push(Component::Activations, Phase::Compute, bytes, |_| {
                Formula::of(Msg::DequantizedFp32, &[Arg::Count(n)]).equals(bytes)
            });
        }
        if self.stage.head {
            self.logits(prod(&[stage.loss_batches, tokens]));
        }
    }

    /// The evaluation loop (`eb` sequences a step): transformers' `Trainer.prediction_step`
    /// runs the model under `torch.no_grad()`, so nothing is kept for backward; the peak is one
    /// layer's intermediates and the loss over the batch's logits (16-bit, upcast to fp32, fp32
    /// log-probs: c + 8 B per token and vocabulary entry; a chunked or fused loss as in training).
    /// Without `compute_metrics` the Trainer keeps no logits across steps (`evaluate` passes
    /// `prediction_loss_only=True`).
    pub(super) fn evaluation(&mut self) {
        let s = self.scenario;
        if s.eval_batch == 0 {
            return;
        }
        let (c, tp) = (self.act_bytes, self.tp);
        let forward = prefill_activation_bytes(self.arch, s, c, tp, s.eval_batch, s.seq);
        self.push(Component::Activations, Phase::Eval, forward, |_| {
            let args = [Arg::Int(s.eval_batch), Arg::Count(s.seq)];
            Formula::of(Msg::EvalForward, &args).equals(forward)
        });
        if !self.stage.head {
            return;
        }
        let tokens = prod(&[s.eval_batch, s.seq]);
        let (bytes, f) = match s.loss {
            Loss::Full => {
                let vocab = div_ceil(self.arch.vocab, tp);
                let bytes = prod(&[tokens, vocab, c + 8]);
                let args = [Arg::Count(tokens), Arg::Count(vocab), Arg::Int(c + 8)];
                (bytes, Formula::of(Msg::EvalLogits, &args))
            }
            _ => self.loss_bytes(tokens),
        };
        self.push(Component::Logits, Phase::Eval, bytes, |_| f.equals(bytes));
    }

    /// The formula's count of micro-batches a pipeline stage holds, when it holds several.
    fn in_flight_clause(&self, f: &mut Formula) {
        let stage = self.stage;
        if !stage.is_split() || stage.in_flight < 2 {
            return;
        }
        let msg = match self.scenario.pipeline_schedule {
            PipelineSchedule::OneFOneB => Msg::InFlight1F1B,
            PipelineSchedule::GPipe => Msg::InFlightGPipe,
            PipelineSchedule::Interleaved => Msg::InFlightInterleaved,
        };
        let args = [
            Arg::Int(stage.in_flight),
            Arg::Int(stage.index + 1),
            Arg::Int(stage.stages),
            Arg::Int(stage.chunks),
        ];
        f.push(msg, &args[..if stage.chunks > 1 { 4 } else { 3 }]);
    }

    /// DoRA's weight norm: each adapted layer builds B·A and W + B·A (in the adapters' dtype; a
    /// 4-bit base is dequantized first) to take the column norm, one layer at a time.
    fn dora_norm(&mut self) {
        let s = self.scenario;
        let n = adapted_matrices(self.arch, s)
            .iter()
            .map(|(_, i, o)| prod(&[*i, *o]))
            .max()
            .unwrap_or(0);
        let adapter = if s.master_weights { 4 } else { self.act_bytes };
        let dequant = if s.job == Job::Qlora {
            self.act_bytes
        } else {
            0
        };
        let bytes = div_ceil(prod(&[n, 2 * adapter + dequant]), self.tp);
        self.push(Component::Activations, Phase::Compute, bytes, |_| {
            let mut f = Formula::of(Msg::DoraNorm, &[Arg::Count(n), Arg::Int(adapter)]);
            if dequant > 0 {
                f.push(Msg::DoraDequantized, &[Arg::Int(dequant)]);
            }
            f.equals(bytes)
        });
    }

    /// The loss's logits over `tokens`, and a 4-bit head's dequantized weight.
    fn logits(&mut self, tokens: u64) {
        let (bytes, f) = self.loss_bytes(tokens);
        self.push(Component::Logits, Phase::Compute, bytes, |_| {
            f.equals(bytes)
        });
        // a 4-bit head (bitsandbytes) keeps its input for backward and dequantizes its whole
        // weight to 16-bit for each matmul, while the loss's logits are alive
        let Some(n) = self.quantized_head() else {
            return;
        };
        if !self.dequantizes_4bit() || self.scenario.loss == Loss::NoLmHead {
            return;
        }
        let (c, h) = (self.act_bytes, self.arch.hidden);
        let head = div_ceil(prod(&[n, 2]), self.tp).saturating_add(prod(&[tokens, h, c]));
        self.push(Component::Logits, Phase::Compute, head, |_| {
            let args = [Arg::Count(n), Arg::Count(tokens), Arg::Int(h), Arg::Int(c)];
            Formula::of(Msg::HeadDequantized, &args).equals(head)
        });
    }

    /// Bytes of the loss over `tokens` as the scenario computes it, and the formula.
    fn loss_bytes(&self, tokens: u64) -> (u64, Formula) {
        let vocab = div_ceil(self.arch.vocab, self.tp);
        let h = self.arch.hidden;
        let c = self.act_bytes;
        let chunk = div_ceil(tokens, 8);
        let (tokens_arg, vocab_arg, c_arg) = (Arg::Count(tokens), Arg::Count(vocab), Arg::Int(c));
        match self.scenario.loss {
            Loss::Full => (
                prod(&[tokens, vocab, 12]),
                Formula::of(Msg::LossFull, &[tokens_arg, vocab_arg]),
            ),
            Loss::Full16 => (
                prod(&[tokens, vocab, 3 * c]),
                Formula::of(Msg::LossFull16, &[tokens_arg, vocab_arg, Arg::Int(3 * c)]),
            ),
            Loss::Chunked => (
                prod(&[tokens, vocab, 4]).saturating_add(prod(&[chunk, vocab, 8])),
                Formula::of(
                    Msg::LossChunked,
                    &[tokens_arg, vocab_arg, Arg::Count(chunk)],
                ),
            ),
            Loss::ChunkedCompiled => (
                prod(&[tokens, vocab, c]).saturating_add(prod(&[chunk, vocab, c])),
                Formula::of(
                    Msg::LossChunkedCompiled,
                    &[tokens_arg, vocab_arg, c_arg, Arg::Count(chunk)],
                ),
            ),
            Loss::Fused => {
                let chunk = div_ceil(prod(&[tokens, h]), vocab.max(1)).max(1);
                (
                    prod(&[tokens, h, 2 * c]).saturating_add(prod(&[chunk, vocab, 8])),
                    Formula::of(
                        Msg::LossFused,
                        &[
                            tokens_arg,
                            Arg::Int(h),
                            Arg::Int(2 * c),
                            Arg::Count(chunk),
                            vocab_arg,
                        ],
                    ),
                )
            }
            Loss::Unsloth => {
                let chunks = self.unsloth_loss_chunks(prod(&[tokens, vocab, 4]));
                let chunk = div_ceil(tokens, chunks);
                (
                    prod(&[tokens, h, 2 * c]).saturating_add(prod(&[chunk, vocab, 8])),
                    Formula::of(
                        Msg::LossUnsloth,
                        &[
                            tokens_arg,
                            Arg::Int(h),
                            Arg::Int(2 * c),
                            Arg::Int(chunks),
                            Arg::Count(chunk),
                            vocab_arg,
                        ],
                    ),
                )
            }
            Loss::NoLmHead => (0, Formula::of(Msg::LossNoHead, &[])),
        }
    }

    /// The chunks Unsloth's fused loss splits `logits` bytes of fp32 logits into (unsloth_zoo
    /// ce232d6 `fused_losses/cross_entropy_loss.py`, `get_chunk_size`): one when they fit its
    /// target, half the free memory and at most 4 GiB, else a multiple of 4 that keeps every chunk
    /// within it. Free is the GPU's memory less the context and what is allocated before the loss.
    fn unsloth_loss_chunks(&self, logits: u64) -> u64 {
        let allocated = self
            .lines
            .iter()
            .filter(|l| matches!(l.phase, Phase::Always | Phase::Compute))
            .map(|l| l.bytes)
            .fold(0u64, u64::saturating_add)
            .saturating_add(self.scenario.context_mib * crate::units::MIB);
        let free = self.scenario.gpu.visible_bytes().saturating_sub(allocated);
        let target = (free / 2).clamp(crate::units::MIB, 4 * crate::units::GIB);
        if logits <= target {
            1
        } else {
            div_ceil(logits, 4 * target).max(1) * 4
        }
    }

    /// Whether matmuls with these weights dequantize a whole 4-bit matrix to 16-bit first
    /// (bitsandbytes NF4 or FP4 outside single-token decoding).
    pub(super) fn dequantizes_4bit(&self) -> bool {
        matches!(
            self.format,
            WeightFormat::Nf4 | WeightFormat::Nf4Dq | WeightFormat::Fp4 | WeightFormat::Fp4Dq
        )
    }
}

/// Per-token activation bytes of one decoder layer kept for backward, split as the layer computes them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerActivations {
    /// Inside the norms: the fp32 upcast, and the normalised input when the norm's weight trains.
    pub(crate) norms: u64,
    /// What attention itself keeps: q, k, v after RoPE, the kernel's output and log-sum-exp.
    pub attention: u64,
    /// What the MLP's nonlinearity keeps: gate and up outputs and act(gate) (gated), or the GELU input.
    pub mlp: u64,
    /// Inputs of the linear layers that keep them: trainable weights, or bitsandbytes 4-bit matmuls.
    pub linear_inputs: u64,
    /// LoRA: each adapter's input cast to the adapter dtype, and its r-wide middle.
    pub lora: u64,
    /// Eager attention's seq x seq scores, per token of the sequence.
    pub scores_per_token: u64,
}

impl LayerActivations {
    pub fn total(&self) -> u64 {
        self.norms
            + self.attention
            + self.mlp
            + self.linear_inputs
            + self.lora
            + self.scores_per_token
    }
}

/// What each layer keeps until its backward (bytes per token), what one layer needs on top
/// while it is recomputed (bytes for all `tokens`), and the formula of the first, for a layer of
/// `a` with `c`-byte activations.
pub(super) fn kept_per_layer(
    a: &Architecture,
    s: &Scenario,
    c: u64,
    tp: u64,
    tokens: u64,
    layer: &LayerActivations,
) -> (u64, u64, Formula) {
    let per_token = layer.total();
    let scores = layer.scores_per_token;
    match s.checkpointing {
        Checkpointing::None => (
            per_token,
            0,
            Formula::of(Msg::KeptAll, &[Arg::Count(per_token)]),
        ),
        Checkpointing::Selective => (
            per_token - scores,
            prod(&[tokens, scores]),
            Formula::of(
                if scores > 0 {
                    Msg::KeptSelectiveScores
                } else {
                    Msg::KeptSelective
                },
                &[Arg::Count(per_token - scores)],
            ),
        ),
        Checkpointing::Op => {
            let kept = op_checkpoint_bytes(a, s, c, tp);
            let args = [Arg::Count(kept), Arg::Count(tokens), Arg::Count(per_token)];
            (
                kept,
                prod(&[tokens, per_token]),
                Formula::of(Msg::KeptOpOutputs, &args),
            )
        }
        Checkpointing::Full => {
            let split = sequence_split(s, tp);
            let input = div_ceil(c * a.hidden, split);
            let args = [Arg::Int(input), Arg::Count(tokens), Arg::Count(per_token)];
            let mut f = Formula::of(Msg::KeptLayerInputs, &args);
            if split > 1 {
                f.push(Msg::SequenceParallel, &[Arg::Int(split)]);
            }
            (input, prod(&[tokens, per_token]), f)
        }
    }
}

/// What one decoder layer saves for backward per token (bytes), with `c`-byte activations.
///
/// A linear layer keeps its input only to compute its weight's gradient, so frozen layers keep
/// nothing (bitsandbytes' 4-bit matmul is the exception: it keeps its input anyway). Norms keep
/// their fp32 upcast; attention keeps q, k, v and its output; the MLP keeps what its
/// nonlinearity needs. MoE layers do this for the top_k experts each token is routed to.
pub(crate) fn layer_activation_bytes(
    a: &Architecture,
    s: &Scenario,
    c: u64,
    tp: u64,
) -> LayerActivations {
    let h = a.hidden;
    let full = s.job == Job::Full;
    // sequence parallelism splits the norms' tokens over the tensor-parallel ranks
    let norms = div_ceil(
        a.norms_per_layer.max(2) * (4 + if full { c } else { 0 }) * h,
        sequence_split(s, tp),
    );
    let mut attention = c * (a.q_dim() + 2 * a.kv_dim() + a.attn_out_dim())
        + 4 * a.heads
        + if a.dropout { h } else { 0 };
    if a.encoder.is_some() {
        // the decoder layer's cross-attention: its queries, output and log-sum-exp per target
        // token (its K and V are over the source, counted apart), and, when the weights train,
        // the inputs of q and o
        attention += c * (a.q_dim() + a.attn_out_dim()) + 4 * a.heads;
        if full {
            attention += c * (h + a.attn_out_dim());
        }
    }
    let mut scores = 0;
    if s.attention == Attention::Eager {
        // fp32 softmax output + the c-byte probabilities for the matmul with V, per head and key
        scores = prod(&[a.heads, s.seq, 4 + c]);
        if a.dropout {
            scores = scores.saturating_add(prod(&[a.heads, s.seq, 1 + c]));
        }
    }
    let mut mlp = mlp_activation_bytes(a, c);
    if a.dropout {
        mlp += h;
    }
    if let Some(r) = &a.recurrent {
        // a hybrid's layers differ: the average of attention and recurrent mixers, and the
        // feed-forward part only where a layer has one
        let layers = a.layers.max(1);
        attention = (a.attention_layers() * attention
            + a.recurrent_layers() * r.scan_activation_bytes(h, c))
            / layers;
        scores = scores * a.attention_layers() / layers;
        if a.moe.is_none() {
            // (the experts' average already runs over all layers)
            mlp = mlp * a.ffn_layers() / layers;
        }
    }
    let (linear_inputs, lora) = linear_and_lora_bytes(a, s, c);
    LayerActivations {
        norms,
        attention: div_ceil(attention, tp),
        mlp: div_ceil(mlp, tp),
        linear_inputs: div_ceil(linear_inputs, tp),
        lora,
        scores_per_token: div_ceil(scores, tp),
    }
}

/// Bytes per token one layer keeps under operator-level selective checkpointing (torchtitan's
/// `_save_list` policy in `torchtitan/models/llama3/infra/parallelize.py`: the outputs of `mm`
/// and of the SDPA kernels are saved, "except every second mm", counted from 1 within each
/// layer's forward). A Llama layer's matmuls run q, k, v, o, gate, up, down, so q, v, gate and
/// down are kept, k, o and up recomputed; with the layer's input (the checkpoint's) and the
/// attention kernel's output and fp32 log-sum-exp.
pub(super) fn op_checkpoint_bytes(a: &Architecture, s: &Scenario, c: u64, tp: u64) -> u64 {
    let (ffn, routed) = match &a.moe {
        None => (a.intermediate, 1),
        Some(m) => (m.expert_ffn, m.top_k),
    };
    let down = routed * a.hidden;
    // a gated MLP keeps gate (the 5th matmul), a plain one up (its 5th): both ffn wide
    let gate = routed * ffn;
    let saved_mm = a.q_dim() + a.kv_dim() + gate + down;
    let attention_out = c * a.q_dim() + 4 * a.heads;
    let input = div_ceil(c * a.hidden, sequence_split(s, tp));
    div_ceil(c * saved_mm + attention_out, tp) + input
}

/// Ranks the sequence is split over where tensor parallelism replicates (norms, layer inputs):
/// the tensor-parallel ranks under sequence parallelism (Korthikanti et al. 2022, "Reducing
/// Activation Recomputation in Large Transformer Models", §4.2.2: sbh(10 + 24/t) becomes
/// sbh·34/t), else 1.
pub(super) fn sequence_split(s: &Scenario, tp: u64) -> u64 {
    if s.sequence_parallel && s.job.is_training() {
        tp.max(1)
    } else {
        1
    }
}

/// What the MLP's nonlinearity keeps per token, averaged over dense and MoE layers.
fn mlp_activation_bytes(a: &Architecture, c: u64) -> u64 {
    let core = |f: u64| match a.mlp {
        MlpKind::Gated => 3 * f * c,
        MlpKind::Plain => f * c,
    };
    let dense = core(a.intermediate);
    match &a.moe {
        None => dense,
        Some(m) => {
            let moe_part = m.top_k * core(m.expert_ffn)
                + 4 * m.experts
                + if m.shared_ffn > 0 {
                    core(m.shared_ffn)
                } else {
                    0
                };
            (a.dense_layers() * dense + a.moe_layers() * moe_part) / a.layers.max(1)
        }
    }
}

/// Per token of one layer: the inputs linear layers keep for backward (before tensor
/// parallelism), and what the LoRA adapters keep.
fn linear_and_lora_bytes(a: &Architecture, s: &Scenario, c: u64) -> (u64, u64) {
    let h = a.hidden;
    // bitsandbytes' MatMul4Bit saves its input even though the weight is frozen
    let linears_keep_inputs = s.job == Job::Full
        || (s.job == Job::Qlora
            && matches!(
                s.effective_weights(),
                WeightFormat::Nf4 | WeightFormat::Nf4Dq | WeightFormat::Fp4 | WeightFormat::Fp4Dq
            ));
    // bitsandbytes' Linear4bit casts its input to bnb_4bit_compute_dtype (nn/modules.py)
    let fp32_compute = s.job == Job::Qlora && s.compute_fp32;
    let (ffn, routed) = match &a.moe {
        None => (a.intermediate, 1),
        Some(m) => (m.expert_ffn, m.top_k),
    };
    // input groups of the linear layers: (modules sharing one input, input width, tokens per token)
    let groups: [(&[&str], u64, u64); 4] = [
        (&["q", "k", "v"], h, 1),
        (&["o"], a.attn_out_dim(), 1),
        (&["gate", "up"], h, routed),
        (&["down"], ffn, routed),
    ];
    let adapter_bytes = if s.master_weights { 4 } else { c };
    // output width of each adaptable module, for DoRA's saved outputs
    let out_of = |name: &str| -> u64 {
        a.attention_matrices()
            .into_iter()
            .chain(a.mlp_matrices(ffn))
            // the last matrix of a name is the one whose output the layer uses (MLA's q_b)
            .rfind(|(n, _, _)| *n == name)
            .map_or(0, |(_, _, o)| o)
    };
    let mut linear_inputs = 0;
    let mut lora = 0;
    for (modules, width, times) in groups {
        let targeted: Vec<&&str> = modules
            .iter()
            .filter(|m| s.job.is_peft() && s.lora_targets.contains(m))
            // a plain (2-matrix) MLP has no gate to adapt
            .filter(|m| **m != "gate" || a.mlp == MlpKind::Gated)
            .collect();
        let shares_input = !targeted.is_empty() && adapter_bytes == c && !s.lora_dropout;
        if linears_keep_inputs && fp32_compute {
            // the 4-bit matmul keeps its input cast to fp32; the adapters read the 16-bit one
            linear_inputs += times * 4 * width + if shares_input { times * c * width } else { 0 };
        } else if linears_keep_inputs || shares_input {
            linear_inputs += times * c * width;
        }
        for m in &targeted {
            // PEFT casts the input to the adapter's dtype (a copy lora_A keeps); dropout makes each
            // adapter its own copy plus a 1-byte mask; lora_B keeps A's r outputs
            let input = if s.lora_dropout {
                (adapter_bytes + 1) * width
            } else if adapter_bytes != c {
                adapter_bytes * width
            } else {
                0
            };
            lora += times * (input + adapter_bytes * s.lora_rank);
            if s.dora {
                // DoRA scales the base output and the adapter's output by the trainable
                // magnitude: both are saved for its gradient
                lora += times * (c + adapter_bytes) * out_of(m);
            }
        }
    }
    (linear_inputs, lora)
}

/// The largest transient of an inference forward over `seqs` × `len` tokens: one layer's
/// intermediates (no autograd keeps anything), eager scores when the kernel materialises them.
pub fn prefill_activation_bytes(
    a: &Architecture,
    s: &Scenario,
    c: u64,
    tp: u64,
    seqs: u64,
    len: u64,
) -> u64 {
    let tokens = prod(&[seqs, len]);
    let h = a.hidden;
    let ffn = |f: u64| match a.mlp {
        MlpKind::Gated => 3 * f,
        MlpKind::Plain => 2 * f,
    };
    let mlp = match &a.moe {
        None => ffn(a.intermediate),
        Some(m) => (m.top_k * ffn(m.expert_ffn)
            + if m.shared_ffn > 0 {
                ffn(m.shared_ffn)
            } else {
                0
            })
        .max(ffn(a.intermediate)),
    };
    let attn = a.q_dim() + 2 * a.kv_dim() + a.attn_out_dim();
    let per_token = c * (div_ceil(mlp.max(attn), tp) + 4 * h);
    let mut bytes = prod(&[tokens, per_token]);
    if s.attention == Attention::Eager {
        bytes = bytes.saturating_add(prod(&[seqs, div_ceil(a.heads, tp), len, len, 4 + 3 * c]));
    }
    bytes
}
