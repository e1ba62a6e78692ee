//! The label of every choice of every choice setting (`SETTINGS`), by the setting's link key and
//! the choice's key: what the page's selects show. Names that read the same in both languages
//! (formats, GPUs, chips, models, llama.cpp's cache types) are the engine's; the rest come from
//! `names.rs`.

use vram_engine::{
    llamacpp::UmaKind, llamacpp::CACHE_TYPES, llamacpp::MAC_CHIPS, model::KvDtype,
    model::PART_FOLLOWS, scenario::Attention, scenario::Batching, scenario::Checkpointing,
    scenario::CudaGraphs, scenario::DpFramework, scenario::Framework, scenario::LocalMachine,
    scenario::Loss, scenario::Offload, scenario::Optimizer, scenario::PipelineSchedule,
    scenario::Server, scenario::SpecMethod, scenario::SplitMode, scenario::VllmVersion,
    scenario::WeightsLoad, scenario::Zero, units::decimal, Gpu, Job, Unit, WeightFormat,
};

use crate::names::*;
use crate::Lang;

/// The label of choice `key` of the setting with link key `setting`; `None` when the setting has
/// no such choice.
pub fn choice_label(lang: Lang, setting: &str, key: &str) -> Option<String> {
    fn named<T>(from: Option<T>, f: impl Fn(T) -> &'static str) -> Option<String> {
        from.map(|v| f(v).to_string())
    }
    let format = |f: WeightFormat| format!("{} · {} bit", f.label(), decimal(f.bits().as_f64(), 2));
    match setting {
        "j" => named(Job::from_key(key), |j| job(lang, j)),
        "w" => WeightFormat::from_key(key).map(format),
        "we" | "wa" | "wx" | "wh" if key == PART_FOLLOWS => Some(
            lang.pick("auto (the weights' format)", "auto（与权重格式相同）")
                .to_string(),
        ),
        "we" | "wa" | "wx" | "wh" => WeightFormat::from_key(key).map(format),
        "kv" => named(KvDtype::from_key(key), KvDtype::label),
        "o" => named(Optimizer::from_key(key), |o| optimizer(lang, o)),
        "gc" => named(Checkpointing::from_key(key), |c| ckpt(lang, c)),
        "at" => named(Attention::from_key(key), |a| attention(lang, a)),
        "ls" => named(Loss::from_key(key), |l| loss(lang, l)),
        "ft" => named(Framework::from_key(key), |f| framework(lang, f)),
        "pad" => named(Batching::from_key(key), |b| batching(lang, b)),
        "z" => named(Zero::from_key(key), |z| zero(lang, z)),
        "off" => named(Offload::from_key(key), |o| offload(lang, o)),
        "dpf" => named(DpFramework::from_key(key), |d| dp_framework(lang, d)),
        "wl" => named(WeightsLoad::from_key(key), |w| weights_load(lang, w)),
        "gpu" => Gpu::from_key(key).map(|g| format!("{} · {} MiB", g.label(), g.mib())),
        // the last GPU of a mixed box: "same" is every GPU alike
        "g2" if key == "same" => Some(
            lang.pick("same as the others", "与其他 GPU 相同")
                .to_string(),
        ),
        "g2" => Gpu::from_key(key).map(|g| format!("{} · {} MiB", g.label(), g.mib())),
        "vv" => named(VllmVersion::from_key(key), |v| vllm_version(lang, v)),
        "srv" => named(Server::from_key(key), Server::label),
        "unit" => named(Unit::from_key(key), Unit::label),
        "pps" => named(PipelineSchedule::from_key(key), |p| {
            pipeline_schedule(lang, p)
        }),
        "cg" => named(CudaGraphs::from_key(key), |g| cuda_graphs(lang, g)),
        "sd" => named(SpecMethod::from_key(key), |m| spec_method(lang, m)),
        // a draft model by its Hugging Face repository
        "dm" => vram_engine::model::presets::find(key).map(|p| p.name.to_string()),
        // llama.cpp's draft model (`-md`): none, or a preset by its Hugging Face repository
        "md" if key == "none" => Some(lang.pick("none", "不用草稿模型").to_string()),
        "md" => vram_engine::model::presets::find(key).map(|p| p.name.to_string()),
        // llama.cpp's own names, as `--cache-type-k` takes them
        "ctk" | "ctv" => CACHE_TYPES
            .iter()
            .find(|t| t.name() == key)
            .map(|t| t.name().to_string()),
        "sm" => named(SplitMode::from_key(key), |m| split_mode(lang, m)),
        "mch" => named(LocalMachine::from_key(key), |m| machine(lang, m)),
        // product names, the same in both languages
        "ub" => named(UmaKind::from_key(key), UmaKind::label),
        "mac" => MAC_CHIPS
            .iter()
            .find(|c| c.key == key)
            .map(|c| c.label.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{SettingKind, SETTINGS};

    #[test]
    fn every_choice_of_every_choice_setting_has_a_label_in_both_languages() {
        let mut missing = Vec::new();
        let mut choices = 0;
        for setting in SETTINGS.iter().filter(|s| s.kind == SettingKind::Choice) {
            for key in setting.keys() {
                choices += 1;
                for lang in [Lang::En, Lang::Zh] {
                    match choice_label(lang, setting.key, key) {
                        Some(label) if !label.is_empty() => {}
                        _ => missing.push(format!("{} {key} {lang:?}", setting.key)),
                    }
                }
            }
        }
        assert!(missing.is_empty(), "no label: {missing:?}");
        // 33 choice settings with more than 300 choices today: the walk reaches them all
        assert!(choices > 200, "{choices}");
    }

    #[test]
    fn the_seven_settings_that_showed_their_keys_show_words_in_both_languages() {
        let label = |lang, s, k| choice_label(lang, s, k).unwrap();
        assert_eq!(label(Lang::En, "dpf", "fsdp2"), "FSDP2 (fully_shard)");
        assert_eq!(label(Lang::Zh, "dpf", "none"), "只算模型状态");
        assert_eq!(
            label(Lang::En, "wl", "rank0"),
            "rank 0 + sync_module_states"
        );
        assert_eq!(label(Lang::Zh, "vv", "v1g"), "V1（0.21 及以后）");
        assert_eq!(label(Lang::En, "srv", "sglang"), "SGLang");
        assert_eq!(label(Lang::Zh, "pps", "interleaved"), "交错式 1F1B");
        assert_eq!(label(Lang::Zh, "cg", "eager"), "关闭（--enforce-eager）");
        assert_eq!(label(Lang::En, "sd", "ngram"), "n-gram (prompt lookup)");
        assert_eq!(choice_label(Lang::En, "sd", "nope"), None);
        assert_eq!(label(Lang::Zh, "g2", "same"), "与其他 GPU 相同");
        assert_eq!(label(Lang::En, "ft", "trl"), "TRL SFTTrainer");
        assert_eq!(label(Lang::Zh, "md", "none"), "不用草稿模型");
        assert_eq!(
            label(Lang::En, "md", "llama-3.2-1b"),
            label(Lang::En, "dm", "llama-3.2-1b")
        );
        assert_eq!(label(Lang::Zh, "pad", "packing"), "打包成上限长度的行");
        assert_eq!(
            label(Lang::Zh, "ls", "unsloth"),
            "fp32 分块融合交叉熵，每块最多 4 GiB（Unsloth）"
        );
        assert_eq!(
            label(Lang::En, "g2", "h100"),
            label(Lang::En, "gpu", "h100")
        );
        assert_eq!(label(Lang::Zh, "ub", "spark"), "NVIDIA DGX Spark (GB10)");
        assert_eq!(
            label(Lang::Zh, "mch", "uma"),
            "DGX Spark / Ryzen AI Max（统一内存）"
        );
        assert_eq!(choice_label(Lang::En, "zzz", "off"), None);
    }
}
