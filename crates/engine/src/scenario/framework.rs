//! The fine-tuning framework: the program that runs a training job, and the defaults it applies.
//!
//! Choosing a framework sets the settings its defaults decide (the loss, checkpointing, where the
//! checkpoints wait, the adapters' dtype, how a batch is padded, how a 4-bit base is prepared);
//! each stays a setting of its own that the user sees and can change afterwards. Each default
//! below names the framework's source at the commit it was read from.

use crate::named::named_enum;
use crate::scenario::{Checkpointing, Job, Loss, Scenario};

named_enum! {
    /// The program that trains: its defaults decide several settings at once.
    pub enum Framework {
        /// Hugging Face TRL's `SFTTrainer`: the fine-tuning entry point of the Hugging Face stack
        /// (Unsloth and axolotl build on it); the default.
        Trl => ("trl", "TRL SFTTrainer"),
        /// transformers' plain `Trainer` with a PEFT model, as PEFT's guides write it.
        Transformers => ("transformers", "transformers Trainer + PEFT"),
        Unsloth => ("unsloth", "Unsloth"),
        /// torchtune's single-device LoRA / QLoRA recipes.
        Torchtune => ("torchtune", "torchtune"),
        Axolotl => ("axolotl", "axolotl"),
        LlamaFactory => ("llamafactory", "LLaMA-Factory"),
    }
}

named_enum! {
    /// How a batch's samples become the rows the model reads.
    pub enum Batching {
        /// Each row padded to the longest sample of its batch (`DataCollatorForLanguageModeling`,
        /// `DataCollatorForSeq2Seq`, torchtune's `padded_collate_sft`).
        Longest => ("longest", "padded to the longest in the batch"),
        /// Every row padded to the cap (`padding="max_length"`).
        MaxLength => ("max_length", "padded to the cap"),
        /// Samples concatenated into rows as long as the cap (TRL `packing`, axolotl
        /// `sample_packing`, torchtune `packed`).
        Packing => ("packing", "packed into rows of the cap"),
        /// A batch's samples flattened into one row without padding (TRL `padding_free`,
        /// `DataCollatorWithFlattening`): the tokens are the samples' own.
        PaddingFree => ("padding_free", "padding-free (samples flattened, no padding)"),
    }
}

/// Why the training step holds the tokens it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthReason {
    /// No sample length given: every row as long as the cap.
    Cap,
    /// Rows padded to the cap whatever the samples' length.
    PaddedToCap,
    /// Packed rows are filled to the cap.
    Packed,
    /// The longest batch holds samples of the stated length, each row that long.
    Samples,
    /// The longest batch's samples, flattened into one row.
    Flattened,
}

/// The tokens the largest training step holds, and why: the peak follows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepTokens {
    /// Rows of the step (the micro-batch; one for a flattened batch).
    pub rows: u64,
    /// Tokens of each row.
    pub row_len: u64,
    /// The micro-batch and the cap, as set.
    pub batch: u64,
    pub cap: u64,
    pub reason: LengthReason,
}

impl StepTokens {
    pub fn tokens(&self) -> u64 {
        self.rows.saturating_mul(self.row_len)
    }

    /// The length every row of the budget is computed at: the whole tokens spread over the
    /// micro-batch (a flattened batch attends within each sample, so its per-row physics is the
    /// samples').
    pub fn budget_len(&self) -> u64 {
        match self.reason {
            LengthReason::Flattened => self.row_len / self.batch.max(1),
            _ => self.row_len,
        }
    }
}

/// The longest training step the data can produce: a batch of samples of the stated length (0:
/// as long as the cap), batched as the scenario says.
pub fn step_tokens(s: &Scenario) -> StepTokens {
    let cap = s.seq;
    let sample = if s.sample_len == 0 {
        cap
    } else {
        s.sample_len.min(cap)
    };
    let (rows, row_len, reason) = match s.batching {
        Batching::MaxLength => (s.batch, cap, LengthReason::PaddedToCap),
        Batching::Packing => (s.batch, cap, LengthReason::Packed),
        _ if s.sample_len == 0 || sample == cap => (s.batch, cap, LengthReason::Cap),
        Batching::Longest => (s.batch, sample, LengthReason::Samples),
        Batching::PaddingFree => (1, s.batch.saturating_mul(sample), LengthReason::Flattened),
    };
    StepTokens {
        rows,
        row_len,
        batch: s.batch,
        cap,
        reason,
    }
}

impl Framework {
    /// Sets the settings this framework's defaults decide, for the scenario's job.
    pub fn apply(self, s: &mut Scenario) {
        s.framework = self;
        let qlora = s.job == Job::Qlora;
        // PEFT's upcast and bitsandbytes' compute dtype concern a bitsandbytes 4-bit base (PEFT
        // leaves GPTQ, AWQ and the like as they are)
        let bnb_4bit = qlora && s.effective_weights().bnb_4bit_double_quant().is_some();
        match self {
            Framework::Trl => {
                // trl f2cd577 trl/trainer/sft_config.py: gradient_checkpointing defaults to True;
                // loss_type "chunked_nll" (the lm_head and the cross-entropy run on 256-token
                // chunks under checkpoint, sft_trainer.py `_chunked_cross_entropy_loss`);
                // packing and padding_free False, rows padded to the longest in the batch;
                // activation_offloading False. sft_trainer.py casts a quantized model's adapters
                // to bf16; over 16-bit weights PEFT's autocast_adapter_dtype keeps them fp32.
                s.checkpointing = Checkpointing::Full;
                s.offload_activations = false;
                s.loss = Loss::Fused;
                s.master_weights = !qlora;
                s.batching = Batching::Longest;
                s.kbit_upcast = false;
                s.compute_fp32 = false;
            }
            Framework::Transformers => {
                // transformers' TrainingArguments: gradient_checkpointing False; the causal-LM
                // loss (loss/loss_utils.py ForCausalLMLoss) upcasts the full logits to fp32.
                // PEFT 5d602fd utils/other.py prepare_model_for_kbit_training, which PEFT's QLoRA
                // guide calls, casts every 16-bit parameter but the 4-bit ones to fp32 and turns
                // gradient checkpointing on; BitsAndBytesConfig's bnb_4bit_compute_dtype defaults
                // to float32. PEFT's autocast_adapter_dtype keeps the adapters fp32.
                s.checkpointing = if qlora {
                    Checkpointing::Full
                } else {
                    Checkpointing::None
                };
                s.offload_activations = false;
                s.loss = Loss::Full;
                s.master_weights = true;
                s.batching = Batching::Longest;
                s.kbit_upcast = bnb_4bit;
                s.compute_fp32 = bnb_4bit;
            }
            Framework::Unsloth => {
                // unsloth 015bdef unsloth/models/loader.py: use_gradient_checkpointing="unsloth",
                // each layer's input kept in CPU memory (Unsloth_Offloaded_Gradient_Checkpointer);
                // models/llama.py computes the loss with unsloth_zoo's unsloth_fused_ce_loss
                // (fp32 logits chunk by chunk); trainer.py turns padding_free on when the
                // config leaves it unset; kernels/fast_lora.py keeps the 16-bit inputs, no fp32
                // copies for the adapters.
                s.checkpointing = Checkpointing::Full;
                s.offload_activations = true;
                s.loss = Loss::Unsloth;
                s.master_weights = false;
                s.batching = Batching::PaddingFree;
                s.kbit_upcast = false;
                s.compute_fp32 = false;
            }
            Framework::Torchtune => {
                // torchtune bd2a0fc recipes/configs/llama3_1/8B_lora_single_device.yaml:
                // dtype bf16 (adapters too), enable_activation_checkpointing True, offloading
                // False, packed False, loss LinearCrossEntropyLoss (8 chunks, each upcast to fp32).
                s.checkpointing = Checkpointing::Full;
                s.offload_activations = false;
                s.loss = Loss::Chunked;
                s.master_weights = false;
                s.batching = Batching::Longest;
                s.kbit_upcast = false;
                s.compute_fp32 = false;
            }
            Framework::Axolotl => {
                // axolotl 067b021 utils/schemas/config.py: gradient_checkpointing False,
                // sample_packing unset (off); loaders/model.py calls PEFT's
                // prepare_model_for_kbit_training for a 4-bit base (every 16-bit parameter to
                // fp32 unless embeddings_skip_upcast).
                s.checkpointing = Checkpointing::None;
                s.offload_activations = false;
                s.loss = Loss::Full;
                s.master_weights = true;
                s.batching = Batching::Longest;
                s.kbit_upcast = bnb_4bit;
                s.compute_fp32 = false;
            }
            Framework::LlamaFactory => {
                // LLaMA-Factory ff6d4d1 hparams/model_args.py: disable_gradient_checkpointing
                // False, upcast_lmhead_output False; data_args.py packing off for SFT;
                // model/adapter.py casts trainable parameters to fp32.
                s.checkpointing = Checkpointing::Full;
                s.offload_activations = false;
                s.loss = Loss::Full;
                s.master_weights = true;
                s.batching = Batching::Longest;
                s.kbit_upcast = false;
                s.compute_fp32 = false;
            }
        }
    }
}
