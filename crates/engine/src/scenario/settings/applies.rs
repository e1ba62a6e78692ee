//! When each setting means something for a scenario (its job, its weights, its machine), and the
//! keys of the choice settings whose choices are not a named enum's.

use crate::dtype::WeightFormat;
use crate::llamacpp::{UmaKind, MAC_CHIPS};
use crate::model::presets;
use crate::scenario::{DpFramework, Job, LocalMachine, PipelineSchedule, Scenario, Zero};
use crate::scenario::{Server, SpecMethod};
use crate::weight_parts::PART_FOLLOWS;

pub(super) fn always(_: &Scenario) -> bool {
    true
}
pub(super) fn training(s: &Scenario) -> bool {
    s.job.is_training()
}
pub(super) fn peft(s: &Scenario) -> bool {
    s.job.is_peft()
}
/// QLoRA over a bitsandbytes 4-bit base.
pub(super) fn qlora_bnb(s: &Scenario) -> bool {
    s.job == Job::Qlora && s.effective_weights().bnb_4bit_double_quant().is_some()
}
/// Training on samples that may be shorter than the cap.
pub(super) fn training_samples(s: &Scenario) -> bool {
    s.job.is_training() && !s.model.is_encoder_decoder()
}
/// Training with an optimizer bitsandbytes can page.
pub(super) fn pageable(s: &Scenario) -> bool {
    s.job.is_training() && s.optimizer.can_page()
}
/// Training under a torch DDP wrapper.
pub(super) fn ddp(s: &Scenario) -> bool {
    s.job.is_training() && s.dp_framework == DpFramework::Ddp
}
/// Training whose states FSDP shards over several GPUs.
pub(super) fn fsdp_sharding(s: &Scenario) -> bool {
    sharding(s) && s.dp_framework.is_fsdp()
}
/// Training whose weights are sharded over several GPUs.
pub(super) fn sharded(s: &Scenario) -> bool {
    s.job.is_training() && s.zero == Zero::Z3 && s.gpus > 1
}
/// Training whose states are sharded over several GPUs.
pub(super) fn sharding(s: &Scenario) -> bool {
    s.job.is_training() && s.zero != Zero::Z0 && s.gpus > 1
}
/// Training under the interleaved pipeline schedule.
pub(super) fn interleaved_pipeline(s: &Scenario) -> bool {
    training_pipeline(s) && s.pipeline_schedule == PipelineSchedule::Interleaved
}
/// Training over tensor-parallel GPUs.
pub(super) fn tensor_parallel_training(s: &Scenario) -> bool {
    s.job.is_training() && s.tp > 1
}
/// Training whose layers are split over pipeline stages.
pub(super) fn training_pipeline(s: &Scenario) -> bool {
    s.job.is_training() && s.pp > 1
}
pub(super) fn inference(s: &Scenario) -> bool {
    s.job == Job::Inference
}
pub(super) fn serving(s: &Scenario) -> bool {
    s.job == Job::Serving
}
/// A vLLM server.
pub(super) fn vllm_serving(s: &Scenario) -> bool {
    s.job == Job::Serving && s.server == Server::Vllm
}
/// An SGLang server.
pub(super) fn sglang_serving(s: &Scenario) -> bool {
    s.job == Job::Serving && s.server == Server::Sglang
}
/// A server split over several GPUs with tensor parallelism.
pub(super) fn serving_split(s: &Scenario) -> bool {
    s.job == Job::Serving && s.tp > 1
}
/// A server that speculates.
pub(super) fn speculating(s: &Scenario) -> bool {
    s.job == Job::Serving && s.spec != SpecMethod::Off
}
/// A server that speculates with a separate draft model.
pub(super) fn drafting(s: &Scenario) -> bool {
    s.job == Job::Serving && s.spec == SpecMethod::Draft
}
/// A job whose layers may split over pipeline stages or GPUs (not a server, not llama.cpp's own split).
pub(super) fn splits_layers(s: &Scenario) -> bool {
    s.job != Job::Local
}
pub(super) fn generating(s: &Scenario) -> bool {
    matches!(s.job, Job::Inference | Job::Serving)
}
/// A quantized base that is not being fully trained: which parts stay 16-bit matters (a GGUF
/// file's per-tensor types already say it).
pub(super) fn quantized_base(s: &Scenario) -> bool {
    s.effective_weights().is_quantized() && !matches!(s.job, Job::Full | Job::Local)
}
/// A llama.cpp / Ollama run.
pub(super) fn local(s: &Scenario) -> bool {
    s.job == Job::Local
}
/// llama.cpp with a draft model (`-md`).
pub(super) fn local_drafting(s: &Scenario) -> bool {
    local(s) && s.llama_draft != "none"
}
pub(super) fn not_local(s: &Scenario) -> bool {
    s.job != Job::Local
}
/// The transformers / vLLM jobs' batch and sequence (not a server's, not llama.cpp's).
/// Training an encoder–decoder model: its target length apart from the source (`seq`).
pub(super) fn encoder_decoder_training(s: &Scenario) -> bool {
    s.job.is_training() && s.model.is_encoder_decoder()
}
pub(super) fn transformer_batch(s: &Scenario) -> bool {
    s.job != Job::Serving && s.job != Job::Local
}
/// A cache dtype for transformers and vLLM (llama.cpp has its own K and V types).
pub(super) fn transformer_kv(s: &Scenario) -> bool {
    !s.job.is_training() && s.job != Job::Local
}
/// The GPU model and count: every job but a llama.cpp run on a Mac or the CPU alone.
pub(super) fn on_gpus(s: &Scenario) -> bool {
    s.job != Job::Local || s.machine == LocalMachine::Gpu
}
/// The weight format, unless a GGUF file fixes every tensor's type.
pub(super) fn weights_chosen(s: &Scenario) -> bool {
    s.job != Job::Local || s.gguf.is_none()
}
/// A llama.cpp run on several GPUs.
pub(super) fn local_gpus_several(s: &Scenario) -> bool {
    local_gpus(s) && s.gpus > 1
}
/// Several GPUs that may be of two models: a llama.cpp split or a vLLM tensor-parallel group.
pub(super) fn mixable_gpus(s: &Scenario) -> bool {
    local_gpus_several(s) || (s.job == Job::Serving && s.tp > 1)
}
/// A llama.cpp run that loads a multimodal projector.
pub(super) fn local_projector(s: &Scenario) -> bool {
    s.job == Job::Local && s.mmproj.is_some()
}
/// A llama.cpp run on GPUs.
pub(super) fn local_gpus(s: &Scenario) -> bool {
    s.job == Job::Local && s.machine == LocalMachine::Gpu
}
pub(super) fn local_mac(s: &Scenario) -> bool {
    s.job == Job::Local && s.machine == LocalMachine::Mac
}
/// A llama.cpp run on a unified-memory PC (DGX Spark, Ryzen AI Max).
pub(super) fn local_uma(s: &Scenario) -> bool {
    s.job == Job::Local && s.machine == LocalMachine::Uma
}
/// The Ryzen AI Max's BIOS carve-out and GTT limit.
pub(super) fn local_ryzen_uma(s: &Scenario) -> bool {
    local_uma(s) && s.uma_kind == UmaKind::RyzenAiMax395
}
/// A host whose RAM is separate from the GPU's: GPUs beside CPU RAM, or the CPU alone.
pub(super) fn local_ram(s: &Scenario) -> bool {
    s.job == Job::Local && matches!(s.machine, LocalMachine::Gpu | LocalMachine::Cpu)
}
/// A job that can keep parts of the model in formats of their own (not a full fine-tune, not
/// LoRA over 16-bit weights, not a GGUF file's own per-tensor types).
pub(super) fn mixes_formats(s: &Scenario) -> bool {
    matches!(s.job, Job::Inference | Job::Serving | Job::Qlora)
}
/// A part's choices: follow the weights' format, or one of the formats.
pub(super) fn part_format_keys() -> Vec<&'static str> {
    std::iter::once(PART_FOLLOWS)
        .chain(WeightFormat::ALL.iter().map(|f| f.key()))
        .collect()
}
pub(super) fn mac_chip_keys() -> Vec<&'static str> {
    MAC_CHIPS.iter().map(|c| c.key).collect()
}
/// The presets' ids: a server's draft model.
pub(super) fn preset_ids() -> Vec<&'static str> {
    presets::all().iter().map(|p| p.id).collect()
}
/// llama.cpp's draft model: none, or a preset's id.
pub(super) fn draft_or_none() -> Vec<&'static str> {
    std::iter::once("none").chain(preset_ids()).collect()
}
