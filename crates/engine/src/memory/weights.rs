//! The model's weights in their stored format (and the moments they are briefly larger), and the
//! LoRA adapters that train beside them.

use super::{Budget, Component, Phase};
use crate::dtype::{Bits, WeightFormat};
use crate::formula::{Arg, Formula, Msg};
use crate::weight_parts::WeightPart;

use crate::model::{Architecture, Encoder};
use crate::scenario::{DpFramework, Job, Offload, Scenario, Zero};
use crate::units::{div_ceil, prod};

impl Budget<'_> {
    pub(super) fn weights(&mut self) {
        let all = self.weight_bytes();
        let formula = if self.explain {
            self.weights_formula()
        } else {
            Formula::new()
        };
        let z3 = self.zero() == Zero::Z3;
        let offload_params = z3 && self.scenario.offload == Offload::All;
        let per_gpu = if z3 { div_ceil(all, self.shards) } else { all };
        if offload_params {
            self.offload(per_gpu);
        }
        let streamed = self.streamed_from_cpu(per_gpu);
        self.offload(streamed);
        let gpu_bytes = if offload_params {
            0
        } else {
            per_gpu - streamed
        };
        self.push(Component::Weights, Phase::Always, gpu_bytes, |b| {
            let mut f = formula;
            if z3 {
                f.push(Msg::WeightsZero3, &[Arg::Int(b.shards)]);
            }
            if streamed > 0 {
                let args = [Arg::Int(b.scenario.cpu_offload_gib), Arg::Bytes(streamed)];
                f.push(Msg::WeightsStreamedFromCpu, &args);
            }
            if offload_params {
                f.and(Msg::WeightsOnCpu, &[Arg::Bytes(per_gpu)])
            } else {
                f.equals(gpu_bytes)
            }
        });
        self.kbit_upcast();
        if z3 && self.dp > 1 && self.scenario.dp_framework == DpFramework::DeepSpeed {
            self.deepspeed_live_parameters();
        } else if z3 && self.dp > 1 && self.fsdp_keeps_stage_gathered() {
            self.stage_kept_gathered();
        } else if z3 && self.dp > 1 {
            // ZeRO-3/FSDP gathers a layer at a time and prefetches the next one
            let layer = self.format.bits().bytes(self.arch.largest_layer_params());
            let gathered = 2 * div_ceil(layer, self.tp);
            self.push(Component::Weights, Phase::Compute, gathered, |b| {
                let layer = Arg::Count(b.arch.largest_layer_params());
                let bits = Arg::Bits(b.format.bits().as_f64());
                Formula::of(Msg::WeightsGathered, &[layer, bits]).equals(gathered)
            });
        }
        // bitsandbytes quantizes while loading: each matrix reaches the GPU in 16-bit first (a
        // server measures its KV pool after loading, so serving has no such moment); a
        // checkpoint saved already quantized loads as it is
        let prequantized = self.stored_bytes().is_some();
        let quantizes_on_load = self.format.quantizes_on_load()
            || (self.scenario.part_formats())
                .overridden()
                .any(|(_, f)| f.quantizes_on_load());
        if quantizes_on_load && self.scenario.job != Job::Serving && !prequantized {
            let (largest, copy) = self.largest_in_16_bit();
            self.push(Component::Weights, Phase::Load, copy, |_| {
                Formula::of(Msg::QuantizingOnLoad, &[Arg::Count(largest)]).equals(copy)
            });
            let whole_model_on_one_gpu = !z3 && self.tp == 1 && !self.stage.is_split();
            if whole_model_on_one_gpu && self.scenario.part_formats().is_empty() {
                if let Some(double_quant) = self.format.bnb_4bit_double_quant() {
                    let head = self.quantized_head().is_some();
                    self.load_reserved =
                        super::load_cache::reserved_after_4bit_load(self.arch, double_quant, head);
                }
            }
        }
    }

    /// What a server's `--cpu-offload-gb` keeps of each GPU's weights in pinned CPU memory, at most
    /// all of them. vLLM moves whole parameters of the decoder layers until the GiB asked for are
    /// moved (`maybe_offload_to_cpu`, vllm-project/vllm#6496, `vllm/model_executor/models/utils.py`
    /// at 82fbeae); the parameter that crosses the mark, at most one matrix, is not counted here.
    fn streamed_from_cpu(&self, per_gpu: u64) -> u64 {
        let s = self.scenario;
        if s.job != Job::Serving {
            return 0;
        }
        prod(&[s.cpu_offload_gib, crate::units::GIB]).min(per_gpu)
    }

    /// PEFT's `prepare_model_for_kbit_training` (peft 5d602fd `utils/other.py`): every 16-bit
    /// parameter that is not a bitsandbytes `Params4bit` (embeddings, an unquantized head, norms)
    /// is cast to fp32, two more bytes each.
    fn kbit_upcast(&mut self) {
        let s = self.scenario;
        if s.job != Job::Qlora || !s.kbit_upcast || self.format.bnb_4bit_double_quant().is_none() {
            return;
        }
        let p = &self.params;
        let head = p.head - p.head.min(self.quantized_head().unwrap_or(0));
        let n = p.embedding + head + p.small + p.extra;
        let bytes = div_ceil(prod(&[n, 2]), self.shard(3) * self.tp);
        self.push(Component::Weights, Phase::Always, bytes, |_| {
            Formula::of(Msg::KbitUpcast, &[Arg::Count(n)]).equals(bytes)
        });
    }

    /// Bytes of all model weights in their stored format, on one tensor-parallel rank.
    pub(super) fn weight_bytes(&self) -> u64 {
        if let Some(bytes) = self.stored_bytes() {
            return div_ceil(bytes, self.tp) - self.expert_parallel_saving();
        }
        if !self.scenario.part_formats().is_empty() {
            let sum = self.part_counts().iter().map(|c| c.bytes()).sum::<u64>();
            return div_ceil(sum, self.tp) - self.expert_parallel_saving();
        }
        let p = &self.params;
        let format = self.format;
        let embeddings = match self.quantized_head() {
            // the head takes the linear layers' format; a tied head becomes its own copy
            Some(head) => format
                .embedding_bits()
                .bytes(p.embedding + p.head - p.head.min(head))
                .saturating_add(format.bits().bytes(head)),
            None => format.embedding_bits().bytes(p.embedding + p.head),
        };
        let attn16 = self.attention_kept_16_bit() + self.layers_kept_16_bit();
        let linear = format
            .bits()
            .bytes(p.linear - attn16)
            .saturating_add(prod(&[attn16, 2]));
        let small = (p.small + p.extra) * format.compute_bytes();
        div_ceil(embeddings + linear + small, self.tp) - self.expert_parallel_saving()
    }

    /// The routed experts spread over every GPU, when expert parallelism does.
    fn expert_parallel_clause(&self, f: &mut Formula) {
        let ranks = self.scenario.attention_ranks();
        if ranks > 1 {
            let args = [
                Arg::Count(self.arch.routed_expert_params()),
                Arg::Int(self.tp * ranks),
            ];
            f.push(Msg::ExpertParallel, &args);
        }
    }

    /// What expert parallelism saves each GPU: the routed experts, which tensor parallelism alone
    /// splits over `tp`, spread over every GPU of the server (tp × the data-parallel ranks).
    fn expert_parallel_saving(&self) -> u64 {
        let ranks = self.scenario.attention_ranks();
        if ranks < 2 {
            return 0;
        }
        let experts = self
            .mlp_format_bits()
            .bytes(self.arch.routed_expert_params());
        div_ceil(experts, self.tp) - div_ceil(experts, self.tp * ranks)
    }

    /// The bits the MLP (and so the routed experts) is stored in.
    fn mlp_format_bits(&self) -> Bits {
        self.scenario
            .part_formats()
            .get(WeightPart::Mlp)
            .map(WeightFormat::bits)
            .unwrap_or(self.format.bits())
    }

    /// The checkpoint's exact bytes, when the budget keeps the format its files are stored in.
    pub(super) fn stored_bytes(&self) -> Option<u64> {
        self.arch
            .stored
            .filter(|st| st.format == self.format)
            .map(|st| st.bytes)
    }

    /// Each part's parameters and bits when the checkpoint mixes formats: embeddings, attention,
    /// MLP / experts (routers and shared experts with them), head, and the small tensors (16-bit).
    fn part_counts(&self) -> [PartCount; 5] {
        let p = &self.params;
        let parts = self.scenario.part_formats();
        let own = |part: WeightPart| parts.get(part).map(WeightFormat::bits);
        let format = self.format;
        let embedding_bits = own(WeightPart::Embeddings).unwrap_or(format.embedding_bits());
        let head_bits = own(WeightPart::Head).unwrap_or(match self.quantized_head() {
            Some(_) => format.bits(),
            None => format.embedding_bits(),
        });
        // a tied head stored in another format than the embeddings is its own copy
        let head = if p.head == 0 && self.stage.head && head_bits != embedding_bits {
            prod(&[self.arch.vocab, self.arch.hidden])
        } else {
            p.head
        };
        let attention =
            prod(&[self.arch.attention_layers(), self.arch.attention_params()]).min(p.linear);
        let attention_bits = own(WeightPart::Attention).unwrap_or(
            if self.scenario.attention_16bit && format.is_quantized() {
                Bits::new(16, 1)
            } else {
                format.bits()
            },
        );
        let mlp_bits = own(WeightPart::Mlp).unwrap_or(format.bits());
        let small_bits = Bits::new(8 * format.compute_bytes(), 1);
        // single layers' matrices the checkpoint keeps 16-bit leave the quantized MLP first,
        // then the attention, and count with the 16-bit small tensors
        let mlp = p.linear - attention;
        let kept = self.layers_kept_16_bit();
        let from_mlp = if mlp_bits.num < 16 * mlp_bits.den {
            kept.min(mlp)
        } else {
            0
        };
        let from_attention = if attention_bits.num < 16 * attention_bits.den {
            (kept - from_mlp).min(attention)
        } else {
            0
        };
        [
            PartCount::new(p.embedding, embedding_bits),
            PartCount::new(attention - from_attention, attention_bits),
            PartCount::new(mlp - from_mlp, mlp_bits),
            PartCount::new(head, head_bits),
            PartCount::new(p.small + p.extra + from_mlp + from_attention, small_bits),
        ]
    }

    /// The weights' formula up to the sharding: what each part counts and its bits.
    fn weights_formula(&self) -> Formula {
        if let Some(bytes) = self.stored_bytes() {
            let mut f = Formula::of(
                Msg::WeightsFromFiles,
                &[Arg::Bytes(bytes), Arg::Format(self.format)],
            );
            self.tensor_parallel_clause(&mut f);
            self.expert_parallel_clause(&mut f);
            return f;
        }
        if !self.scenario.part_formats().is_empty() {
            let args: Vec<Arg> = self
                .part_counts()
                .iter()
                .flat_map(|c| [Arg::Count(c.params), Arg::Bits(c.bits.as_f64())])
                .collect();
            let mut f = Formula::of(Msg::WeightsByPart, &args);
            self.stage_clause(&mut f);
            self.tensor_parallel_clause(&mut f);
            self.expert_parallel_clause(&mut f);
            return f;
        }
        let p = &self.params;
        let format = self.format;
        let bits = Arg::Bits(format.bits().as_f64());
        let embedding_bits = Arg::Bits(format.embedding_bits().as_f64());
        let small = Arg::Count(p.small + p.extra);
        let small_bytes = Arg::Int(format.compute_bytes());
        let mut f = if let Some(head) = self.quantized_head() {
            let msg = if self.arch.tied {
                Msg::WeightsTiedHeadQuantized
            } else {
                Msg::WeightsHeadQuantized
            };
            let embeddings = Arg::Count(p.embedding + p.head - p.head.min(head));
            let (linear, head) = (Arg::Count(p.linear), Arg::Count(head));
            let args = [
                linear,
                head,
                bits,
                embeddings,
                embedding_bits,
                small,
                small_bytes,
            ];
            Formula::of(msg, &args)
        } else if format.is_quantized() {
            let (linear, embeddings) = (Arg::Count(p.linear), Arg::Count(p.embedding + p.head));
            let args = [linear, bits, embeddings, embedding_bits, small, small_bytes];
            Formula::of(Msg::WeightsQuantized, &args)
        } else {
            let args = [
                Arg::Count(p.total()),
                Arg::Int(format.bits().num / 8),
                Arg::Format(format),
            ];
            Formula::of(Msg::WeightsPlain, &args)
        };
        let attn16 = self.attention_kept_16_bit();
        if attn16 > 0 {
            f.push(Msg::WeightsAttention16, &[Arg::Count(attn16), bits]);
        }
        let kept = self.layers_kept_16_bit();
        if kept > 0 {
            f.push(Msg::WeightsKept16, &[Arg::Count(kept), bits]);
        }
        self.stage_clause(&mut f);
        self.tensor_parallel_clause(&mut f);
        self.expert_parallel_clause(&mut f);
        f
    }

    /// The formula's note of which pipeline stage the weights are, when the layers are split.
    fn stage_clause(&self, f: &mut Formula) {
        let stage = self.stage;
        if !stage.is_split() {
            return;
        }
        let args = [
            Arg::Int(stage.index + 1),
            Arg::Int(stage.stages),
            Arg::Int(stage.layers),
        ];
        f.push(Msg::PipelineStage, &args);
        if stage.embeddings {
            f.push(Msg::StageEmbeddings, &[]);
        }
        if stage.head && !stage.embeddings && self.arch.tied {
            f.push(Msg::StageHeadCopy, &[]);
        } else if stage.head {
            f.push(Msg::StageHead, &[]);
        }
    }

    /// Parameters of single layers' linear matrices a quantized checkpoint keeps 16-bit, beside
    /// the attention kept 16-bit (within the linear parameters).
    fn layers_kept_16_bit(&self) -> u64 {
        if !self.format.is_quantized() || self.stage.is_split() {
            return 0;
        }
        let p = &self.params;
        self.scenario
            .kept_16bit
            .min(p.linear - self.attention_kept_16_bit())
    }

    /// Attention parameters kept 16-bit when only the MLP is quantized.
    fn attention_kept_16_bit(&self) -> u64 {
        if self.scenario.attention_16bit && self.format.is_quantized() {
            prod(&[self.arch.attention_layers(), self.arch.attention_params()])
        } else {
            0
        }
    }

    /// The largest quantized matrix (a layer's, or the head when it is quantized too) and its
    /// bytes in 16-bit on one rank: what bitsandbytes holds while it quantizes or dequantizes.
    pub(super) fn largest_in_16_bit(&self) -> (u64, u64) {
        let n = self
            .arch
            .largest_linear_matrix()
            .max(self.quantized_head().unwrap_or(0));
        (n, div_ceil(prod(&[n, 2]), self.tp))
    }

    /// Parameters of the output head when it is quantized with the linear layers.
    pub(super) fn quantized_head(&self) -> Option<u64> {
        (self.scenario.quantize_head
            && self.stage.head
            && self.format.is_quantized()
            && self.scenario.job != Job::Full)
            .then(|| prod(&[self.arch.vocab, self.arch.hidden]))
    }

    /// PEFT's trainable copies of the embeddings and head (modules_to_save), and the adapters.
    pub(super) fn adapters(&mut self) {
        if self.saved_copies > 0 {
            let elem = self.format.compute_bytes();
            let saved = self.saved_copies;
            let copies = div_ceil(prod(&[saved, elem]), self.shard(3) * self.tp);
            self.push(Component::Adapter, Phase::Always, copies, |_| {
                Formula::of(Msg::SavedCopies, &[Arg::Count(saved), Arg::Int(elem)]).equals(copies)
            });
        }
        if self.scenario.job.is_peft() {
            // adapters shard with the layers they adapt, like their gradients and states
            let n = self.trainable - self.saved_copies;
            let elem = self.trainable_bytes();
            let bytes = div_ceil(prod(&[n, elem]), self.shard(3) * self.tp);
            self.push(Component::Adapter, Phase::Always, bytes, |b| {
                let args = [
                    Arg::Count(n),
                    Arg::Int(b.scenario.lora_rank),
                    Arg::Targets(b.scenario.lora_targets),
                    Arg::Int(elem),
                ];
                Formula::of(Msg::LoraAdapters, &args).equals(bytes)
            });
        }
    }
}

/// One part's parameters and the bits each is stored in.
#[derive(Clone, Copy, Debug)]
struct PartCount {
    params: u64,
    bits: Bits,
}

impl PartCount {
    fn new(params: u64, bits: Bits) -> PartCount {
        PartCount { params, bits }
    }

    fn bytes(self) -> u64 {
        self.bits.bytes(self.params)
    }
}

/// Trainable LoRA parameters: r × (d_in + d_out) for each targeted matrix of each layer (each expert).
pub fn lora_params(a: &Architecture, s: &Scenario) -> u64 {
    let r = s.lora_rank;
    let targets = s.lora_targets;
    // DoRA adds a magnitude per output of each adapted matrix
    let magnitude = u64::from(s.dora);
    let sum = |ms: &[(&str, u64, u64)]| -> u64 {
        ms.iter()
            .filter(|(n, _, _)| targets.contains(n))
            .map(|(_, i, o)| r * (i + o) + magnitude * o)
            .sum()
    };
    let mut n = a.attention_layers() * sum(&a.attention_matrices());
    n += a.dense_layers() * sum(&a.mlp_matrices(a.intermediate));
    if let Some(m) = &a.moe {
        let per_layer = m.experts * sum(&a.mlp_matrices(m.expert_ffn))
            + if m.shared_ffn > 0 {
                sum(&a.mlp_matrices(m.shared_ffn))
            } else {
                0
            };
        n += a.moe_layers() * per_layer;
    }
    if let Some(e) = &a.encoder {
        // the encoder's layers and the decoder's cross-attention
        n += e.layers * sum(&e.layer_matrices(a)) + a.layers * sum(&Encoder::cross_matrices(a));
    }
    if targets.contains("embed") {
        n += r * (a.vocab + a.hidden);
    }
    if targets.contains("head") {
        n += r * (a.hidden + a.vocab);
    }
    n
}

/// Tensors of at least this many elements get paged optimizer states (bitsandbytes'
/// `get_state_buffer`: `p.numel() < 1e5` stays a plain tensor).
const PAGED_MIN_ELEMENTS: u64 = 100_000;

/// LoRA parameters in adapter matrices large enough for a paged optimizer to page their states:
/// A (r × in) and B (out × r) counted separately against [`PAGED_MIN_ELEMENTS`].
pub(super) fn lora_paged_params(a: &Architecture, s: &Scenario) -> u64 {
    let r = s.lora_rank;
    let big = |n: u64| if n >= PAGED_MIN_ELEMENTS { n } else { 0 };
    let sum = |ms: &[(&str, u64, u64)]| -> u64 {
        ms.iter()
            .filter(|(n, _, _)| s.lora_targets.contains(n))
            .map(|(_, i, o)| big(r * i) + big(r * o))
            .sum()
    };
    let mut n = a.attention_layers() * sum(&a.attention_matrices());
    n += a.dense_layers() * sum(&a.mlp_matrices(a.intermediate));
    if let Some(m) = &a.moe {
        let mut per_layer = m.experts * sum(&a.mlp_matrices(m.expert_ffn));
        if m.shared_ffn > 0 {
            per_layer += sum(&a.mlp_matrices(m.shared_ffn));
        }
        n += a.moe_layers() * per_layer;
    }
    if let Some(e) = &a.encoder {
        n += e.layers * sum(&e.layer_matrices(a)) + a.layers * sum(&Encoder::cross_matrices(a));
    }
    for module in ["embed", "head"] {
        if s.lora_targets.contains(module) {
            n += big(r * a.vocab) + big(r * a.hidden);
        }
    }
    n
}

/// The matrices LoRA adapts in one layer (and one expert), as (name, in, out).
pub(super) fn adapted_matrices(a: &Architecture, s: &Scenario) -> Vec<(&'static str, u64, u64)> {
    let mut ms = a.attention_matrices();
    ms.extend(a.mlp_matrices(a.intermediate));
    if let Some(m) = &a.moe {
        ms.extend(a.mlp_matrices(m.expert_ffn));
    }
    ms.retain(|(n, _, _)| s.lora_targets.contains(n));
    ms
}

/// Parameters of the largest LoRA matrix: r × the widest dimension among the targeted modules.
pub(super) fn lora_largest_matrix(a: &Architecture, s: &Scenario) -> u64 {
    let targets = s.lora_targets;
    let mut widest = adapted_matrices(a, s)
        .iter()
        .map(|(_, i, o)| *i.max(o))
        .max()
        .unwrap_or(0);
    if targets.contains("embed") || targets.contains("head") {
        widest = widest.max(a.vocab);
    }
    prod(&[s.lora_rank, widest])
}
