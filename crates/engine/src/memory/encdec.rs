//! Encoder–decoder models: the encoder runs once over the source, the decoder attends to it
//! through cross-attention whose K and V (source tokens × decoder layers) stay for the whole
//! generation. The decoder's own lines (self-attention KV, activations, logits) are the
//! decoder-only arithmetic over a view of the scenario whose `seq` is the decoder's length.

use std::borrow::Cow;

use super::activations::{kept_per_layer, layer_activation_bytes, prefill_activation_bytes};
use super::{Budget, Component, Phase};
use crate::formula::{Arg, Formula, Msg};
use crate::model::{Architecture, Encoder};
use crate::scenario::{Attention, Checkpointing, Job, Scenario};
use crate::units::prod;

/// The scenario as the decoder sees it, and the source tokens the encoder reads (0 for a
/// decoder-only model, whose scenario is returned as it is).
///
/// Inference: the decoder starts from one token (`decoder_start_token_id`) and generates `gen`,
/// within its learned positions (BART, Whisper: 448); training: it reads `target_len` tokens;
/// `seq` is the source. A server's requests are their decoders' lengths (within those positions),
/// each with its source.
pub(super) fn decoder_view<'a>(s: &'a Scenario, arch: &Architecture) -> (Cow<'a, Scenario>, u64) {
    let Some(e) = &arch.encoder else {
        return (Cow::Borrowed(s), 0);
    };
    let longest = if arch.positions > 0 {
        arch.max_context
    } else {
        u64::MAX
    };
    let mut view = s.clone();
    match s.job {
        Job::Inference => {
            view.seq = 1;
            view.gen = s.gen.min(longest.saturating_sub(1));
        }
        Job::Full | Job::Lora | Job::Qlora => view.seq = s.target_len.min(longest),
        Job::Serving => {
            view.avg_tokens = s.avg_tokens.min(longest);
            view.max_model_len = s.max_model_len.min(longest);
        }
        Job::Local => {}
    }
    let source = match s.job {
        Job::Serving => s.avg_tokens,
        _ => s.seq,
    };
    (Cow::Owned(view), e.source_tokens(source))
}

impl Budget<'_> {
    /// The encoder's side of a generation: its forward over the source (the largest transient of
    /// the prefill), its output kept for the decoder, and the cross-attention cache.
    pub(super) fn encoder_inference(&mut self) {
        let Some(e) = self.arch.encoder.clone() else {
            return;
        };
        let s = self.scenario;
        let seqs = if s.job == Job::Serving {
            s.concurrency
        } else {
            s.batch
        };
        self.cross_kv(&e, seqs);
        if s.job == Job::Serving {
            return;
        }
        self.encoder_output(Phase::Always);
        // a later pipeline stage receives the encoder's output without running the encoder
        if e.layers == 0 {
            return;
        }
        let stack = e.stack(self.arch);
        let source = self.source;
        let forward = prefill_activation_bytes(&stack, s, self.act_bytes, self.tp, s.batch, source);
        self.push(Component::Activations, Phase::Compute, forward, |b| {
            let mut f = Formula::of(Msg::EncoderForward, &[Arg::Count(s.batch * source)]);
            b.fixed_source_clause(&e, &mut f);
            if s.attention == Attention::Eager {
                f.push(Msg::PrefillEagerScores, &[]);
            }
            f.equals(forward)
        });
        if self.dequantizes_4bit() && s.batch == 1 && source > 1 {
            // the decoder's single start token does not dequantize; the encoder's source does
            let (n, dq) = self.largest_in_16_bit();
            self.push(Component::Weights, Phase::Compute, dq, |_| {
                Formula::of(Msg::PrefillDequantized, &[Arg::Count(n)]).equals(dq)
            });
        }
    }

    /// The encoder's output over the source, which every decoder layer's cross-attention reads.
    fn encoder_output(&mut self, phase: Phase) {
        let s = self.scenario;
        let (h, c) = (self.arch.hidden, self.act_bytes);
        let bytes = prod(&[s.batch, self.source, h, c]);
        self.push(Component::Activations, phase, bytes, |b| {
            let args = [Arg::Count(s.batch * b.source), Arg::Int(h), Arg::Int(c)];
            Formula::of(Msg::EncoderOutput, &args).equals(bytes)
        });
    }

    /// Cross-attention cache bytes of `seqs` sequences on one rank (0 without an encoder).
    pub(super) fn cross_kv_bytes(&self, seqs: u64) -> u64 {
        if self.arch.encoder.is_none() {
            return 0;
        }
        let bits = self.scenario.kv_dtype.bits();
        Encoder::cross_kv_bytes(self.arch, bits, self.tp, seqs, self.source)
    }

    /// The cross-attention cache of `seqs` sequences: alive from the first decoder step to the end.
    fn cross_kv(&mut self, e: &Encoder, seqs: u64) {
        let bits = self.scenario.kv_dtype.bits();
        let source = self.source;
        let bytes = self.cross_kv_bytes(seqs);
        self.push(Component::KvCache, Phase::Always, bytes, |b| {
            let per = Encoder::cross_kv_bytes(b.arch, bits, b.tp, 1, 1) / b.arch.layers.max(1);
            let args = [
                Arg::Int(seqs),
                Arg::Count(source),
                Arg::Int(b.arch.layers),
                Arg::Count(per),
            ];
            let mut f = Formula::of(Msg::CrossKv, &args);
            b.fixed_source_clause(e, &mut f);
            f.equals(bytes)
        });
    }

    /// Whisper's fixed window, when the source is padded to it.
    fn fixed_source_clause(&self, e: &Encoder, f: &mut Formula) {
        if let (true, Some(max)) = (e.fixed_source, e.max_source) {
            f.push(Msg::FixedSource, &[Arg::Count(max)]);
        }
    }

    /// Training: the encoder's layers over the source (kept for backward as the checkpointing
    /// says), its output, and the decoder's cross-attention K and V over the source.
    pub(super) fn encoder_training(&mut self) {
        let Some(e) = self.arch.encoder.clone() else {
            return;
        };
        self.encoder_output(Phase::Compute);
        self.cross_attention_source();
        // a later pipeline stage receives the encoder's output without running the encoder
        if e.layers == 0 {
            return;
        }
        let stack = e.stack(self.arch);
        let mut source_view = self.scenario.clone();
        source_view.seq = self.source;
        let tokens = prod(&[source_view.batch, self.source]);
        let layer = layer_activation_bytes(&stack, &source_view, self.act_bytes, self.tp);
        let (kept, working, how) = kept_per_layer(
            &stack,
            &source_view,
            self.act_bytes,
            self.tp,
            tokens,
            &layer,
        );
        let bytes = prod(&[tokens, e.layers, kept]).saturating_add(working);
        self.push(Component::Activations, Phase::Compute, bytes, |b| {
            let mut f = Formula::of(
                Msg::EncoderActivations,
                &[Arg::Count(tokens), Arg::Int(e.layers)],
            );
            f.clauses.extend(how.clauses);
            b.fixed_source_clause(&e, &mut f);
            f.equals(bytes)
        });
    }

    /// What each decoder layer's cross-attention keeps over the source for backward: K and V
    /// (attention saves them; k and v are one of op-level checkpointing's every-other matmuls;
    /// full checkpointing recomputes them), and eager attention's target × source scores.
    fn cross_attention_source(&mut self) {
        let s = self.scenario;
        let a = self.arch;
        let c = self.act_bytes;
        let kv_width = a.heads.div_ceil(self.tp) * a.head_dim;
        let per_source_token = match s.checkpointing {
            Checkpointing::None | Checkpointing::Selective => 2 * kv_width * c,
            Checkpointing::Op => kv_width * c,
            Checkpointing::Full => 0,
        };
        let mut bytes = prod(&[s.batch, self.source, a.layers, per_source_token]);
        let eager = s.attention == Attention::Eager && s.checkpointing == Checkpointing::None;
        let scores = if eager {
            // fp32 softmax and the c-byte probabilities, per head, target and source token
            prod(&[
                s.batch,
                s.seq,
                self.source,
                a.layers,
                a.heads.div_ceil(self.tp),
                4 + c,
            ])
        } else {
            0
        };
        bytes = bytes.saturating_add(scores);
        if bytes == 0 {
            return;
        }
        self.push(Component::Activations, Phase::Compute, bytes, |b| {
            let args = [
                Arg::Count(s.batch * b.source),
                Arg::Int(a.layers),
                Arg::Int(per_source_token),
            ];
            let mut f = Formula::of(Msg::CrossSource, &args);
            if scores > 0 {
                f.push(Msg::CrossScores, &[Arg::Count(s.batch * s.seq)]);
            }
            f.equals(bytes)
        });
    }
}
