//! Errors, refused values and link notices as sentences.

use vram_engine::{
    json::JsonProblem, link::Ignored, link::Notice, llamacpp::PADDING_PER_TENSOR,
    scenario::Refusal, EngineError, Job, Repair, Scenario, Setting, SettingValue,
};

use crate::settings::{setting_label, setting_name};
use crate::{shown, Lang};

/// What went wrong, as a sentence a user can act on.
pub fn error(lang: Lang, e: &EngineError) -> String {
    use EngineError::*;
    let zh = lang == Lang::Zh;
    match e {
        ConfigTooLarge { bytes, limit } => match zh {
            false => format!("this is not a usable config.json: it is {} KiB; the limit is {} KiB", bytes / 1024, limit / 1024),
            true => format!("这不是可用的 config.json：它有 {} KiB，上限是 {} KiB", bytes / 1024, limit / 1024),
        },
        NotJson(j) => match zh {
            false => format!("this is not a usable config.json: not valid JSON ({} at line {} column {})", json_problem(lang, j.why), j.line, j.column),
            true => format!("这不是可用的 config.json：不是有效的 JSON（第 {} 行第 {} 列：{}）", j.line, j.column, json_problem(lang, j.why)),
        },
        NotAnObject => lang.pick("this is not a usable config.json: the top level is not a JSON object", "这不是可用的 config.json：顶层不是 JSON 对象").into(),
        MissingField(f) => match zh {
            false => format!("config.json has no \"{}\", which the estimate needs", shown(f)),
            true => format!("config.json 缺少估算所需的字段 \"{}\"", shown(f)),
        },
        NotAWholeNumber { field, shown: v } => match zh {
            false => format!("config.json field \"{}\" should be a whole number, not {}", shown(field), shown(v)),
            true => format!("config.json 字段 \"{}\" 应为整数，而不是 {}", shown(field), shown(v)),
        },
        ZeroField(f) => match zh {
            false => format!("config.json field \"{}\" is 0", shown(f)),
            true => format!("config.json 字段 \"{}\" 为 0", shown(f)),
        },
        OutOfRange { setting, value, min, max } => match zh {
            false => format!("{} must be between {min} and {max}, not {value}", setting_name(lang, setting)),
            true => format!("{} 必须在 {min} 到 {max} 之间，而不是 {value}", setting_name(lang, setting)),
        },
        HeadsNotShared { heads, kv_heads } => match zh {
            false => format!("the model's shape does not add up: {heads} attention heads cannot be shared evenly by {kv_heads} KV heads"),
            true => format!("模型结构不成立：{heads} 个注意力头无法被 {kv_heads} 个 KV 头平均分配"),
        },
        ExpertsPerToken { top_k, experts } => match zh {
            false => format!("the model's shape does not add up: {top_k} experts per token out of {experts} experts"),
            true => format!("模型结构不成立：每个 token 激活 {top_k} 个专家，但总共只有 {experts} 个"),
        },
        ZeroWindow => lang.pick("the model's shape does not add up: a sliding window of 0 tokens", "模型结构不成立：滑动窗口为 0 个 token").into(),
        TooManyParameters => lang.pick("the model's shape does not add up: more than 20 trillion parameters", "模型结构不成立：参数超过 20 万亿").into(),
        UnknownPreset(id) => match zh {
            false => format!("unknown model \"{}\" (see --list-models)", shown(id)),
            true => format!("未知模型 \"{}\"", shown(id)),
        },
        UnknownLoraTarget(t) => match zh {
            false => format!("unknown LoRA target \"{}\"", shown(t)),
            true => format!("未知的 LoRA 目标模块 \"{}\"", shown(t)),
        },
        NotAParamCount(v) => match zh {
            false => format!("the parameter count should look like 7B or 1.5B, not \"{}\"", shown(v)),
            true => format!("参数量应写成 7B 或 1.5B 这样的形式，而不是 \"{}\"", shown(v)),
        },
        BadArchField(f) => match zh {
            false => format!("unknown architecture field \"{}\"", shown(f)),
            true => format!("未知的结构字段 \"{}\"", shown(f)),
        },
        TpDoesNotDivide { gpus, tp } => match zh {
            false => format!("{gpus} GPUs cannot be split into tensor-parallel groups of {tp}"),
            true => format!("{gpus} 张 GPU 无法分成每组 {tp} 张的张量并行组"),
        },
        PpDoesNotDivide { gpus, tp, pp } => match zh {
            false => format!("{gpus} GPUs cannot be split into {pp} pipeline stages of {tp} tensor-parallel GPUs each"),
            true => format!("{gpus} 张 GPU 无法分成 {pp} 个流水线级、每级 {tp} 张张量并行卡"),
        },
        FormatNotForJob { .. } | PartFormatNotForJob { .. } | StepInBackwardAccumulates { .. } => {
            match conflict(lang, e) {
                (cause, Some(advice)) => format!("{cause}{}{advice}", lang.pick("; ", "；")),
                (cause, None) => cause,
            }
        }
        NoLoraTargets => lang.pick("LoRA needs at least one target module", "LoRA 至少需要一个目标模块").into(),
        LoraTargetsAbsent(t) => match zh {
            false => format!("none of the LoRA targets ({}) exists in this model, so nothing would train", t.key()),
            true => format!("这些 LoRA 目标模块（{}）在该模型中都不存在，没有可训练的参数", t.key()),
        },
        BeyondHardware => lang.pick("this job needs more than 1 EiB per GPU, beyond any hardware: check the sizes", "该任务每卡需要超过 1 EiB，超出任何硬件：请检查各项大小").into(),
    }
}

/// A conflict between settings as its cause and, apart, what to change (a repaired link says
/// what it changed instead); other errors as [`error`] words them.
fn conflict(lang: Lang, e: &EngineError) -> (String, Option<String>) {
    use EngineError::*;
    let zh = lang == Lang::Zh;
    let (cause, advice) = match e {
        FormatNotForJob { job: Job::Local, format } => match zh {
            false => (format!("llama.cpp runs GGUF files, and its quantizer does not write {}", format.label()), "choose f16 or a GGUF quant"),
            true => (format!("llama.cpp 运行 GGUF 文件，其量化工具不写 {}", format.label()), "请选择 f16 或一种 GGUF 量化"),
        },
        FormatNotForJob { job: Job::Full, format } => match zh {
            false => (format!("full fine-tuning updates every weight, so they cannot stay {}", format.label()), "choose fp32 or bf16, or QLoRA"),
            true => (format!("全量微调会更新每个权重，权重不能保持为 {}", format.label()), "请选择 fp32 或 bf16，或改用 QLoRA"),
        },
        FormatNotForJob { job: Job::Lora, format } => match zh {
            false => (format!("LoRA on a {} base is QLoRA", format.label()), "choose the QLoRA job"),
            true => (format!("在 {} 基座上做 LoRA 就是 QLoRA", format.label()), "请选择 QLoRA 任务"),
        },
        FormatNotForJob { job, format } => match zh {
            false => (format!("{} cannot use weights in {}", crate::names::job(lang, *job), format.label()), "choose another format"),
            true => (format!("{} 不能使用 {} 格式的权重", crate::names::job(lang, *job), format.label()), "请选择其他格式"),
        },
        PartFormatNotForJob { job: Job::Qlora, part, format } => match zh {
            false => (format!("QLoRA keeps a part of the model in a format of its own only unquantized or in bitsandbytes 4-bit (NF4, FP4), so \"{}\" cannot be {}", setting_name(lang, part.key()), format.label()), "let it follow the weights' format"),
            true => (format!("QLoRA 只能把模型的某一部分单独存为未量化格式或 bitsandbytes 4 位（NF4、FP4），因此“{}”不能是 {}", setting_name(lang, part.key()), format.label()), "请让它跟随权重格式"),
        },
        PartFormatNotForJob { job, part, format } => match zh {
            false => (format!("{} stores every part of the model alike, so \"{}\" cannot be {}", crate::names::job(lang, *job), setting_name(lang, part.key()), format.label()), "let it follow the weights' format"),
            true => (format!("{} 对模型各部分使用同一种格式，因此“{}”不能是 {}", crate::names::job(lang, *job), setting_name(lang, part.key()), format.label()), "请让它跟随权重格式"),
        },
        StepInBackwardAccumulates { steps } => match zh {
            false => (format!("with the optimizer step in backward each gradient is applied and freed as it is produced, so it cannot accumulate over {steps} micro-batches"), "set gradient accumulation to 1"),
            true => (format!("优化器在反向传播中更新时，每个梯度一产生就被应用并释放，无法在 {steps} 个 micro-batch 上累积"), "请把梯度累积设为 1"),
        },
        _ => return (error(lang, e), None),
    };
    (cause, Some(advice.to_string()))
}

pub(crate) fn json_problem(lang: Lang, p: JsonProblem) -> &'static str {
    use JsonProblem::*;
    match p {
        EndOfText => lang.pick("the text ends inside a value", "文本在一个值的中间结束"),
        Trailing => lang.pick(
            "trailing characters after the JSON value",
            "JSON 值之后还有多余字符",
        ),
        TooDeep => lang.pick("nested too deeply", "嵌套太深"),
        ExpectedValue => lang.pick("expected a value", "此处应为一个值"),
        ExpectedKey => lang.pick("expected a quoted key", "此处应为带引号的键"),
        ExpectedColon => lang.pick("expected `:`", "此处应为 `:`"),
        ExpectedCommaOrEnd => lang.pick(
            "expected `,` or the closing bracket",
            "此处应为 `,` 或右括号",
        ),
        BadEscape => lang.pick("bad escape in a string", "字符串中的转义无效"),
        TrailingComma => lang.pick(
            "a comma right before the closing bracket",
            "右括号前多了一个逗号",
        ),
        ControlCharacter => lang.pick("control character in a string", "字符串中有控制字符"),
        BadNumber => lang.pick(
            "a malformed number, or one too large",
            "数字格式错误或数值过大",
        ),
        NotANumber => lang.pick(
            "NaN or Infinity, which JSON does not have (write a number or null)",
            "NaN 或 Infinity，JSON 没有这样的数（请写数字或 null）",
        ),
        DuplicateKey => lang.pick(
            "a key that appears earlier in the same object",
            "同一对象中重复出现的键",
        ),
    }
}

/// Why a value was refused for a setting (the CLI's flags, the link's keys).
pub fn refusal(lang: Lang, setting: &Setting, r: &Refusal) -> String {
    let label = setting_label(lang, setting.id);
    match (lang, r) {
        (Lang::En, Refusal::OutOfRange { min, max }) => {
            format!("{label} must be a whole number from {min} to {max}")
        }
        (Lang::Zh, Refusal::OutOfRange { min, max }) => {
            format!("{label} 必须是 {min} 到 {max} 之间的整数")
        }
        (Lang::En, Refusal::NotAChoice) => format!(
            "not a known value for {label} (one of {})",
            setting.keys().join(", ")
        ),
        (Lang::Zh, Refusal::NotAChoice) => format!(
            "不是 {label} 的可选值（可选：{}）",
            setting.keys().join(", ")
        ),
        (Lang::En, Refusal::NotASwitch) => "should be 0 or 1".into(),
        (Lang::Zh, Refusal::NotASwitch) => "应为 0 或 1".into(),
        (Lang::En, Refusal::NotTargets) => "not a list of LoRA targets".into(),
        (Lang::Zh, Refusal::NotTargets) => "不是 LoRA 目标模块列表".into(),
        (Lang::En, Refusal::NotShares) => {
            "not a share per GPU (3,1 or 0.75,0.25, each at most 1000) or even".into()
        }
        (Lang::Zh, Refusal::NotShares) => {
            "不是每块 GPU 一个的比例（3,1 或 0.75,0.25，每个不超过 1000）或 even".into()
        }
    }
}

/// What a link held that was not used as written, as a sentence.
pub fn notice(lang: Lang, n: &Notice) -> String {
    let zh = lang == Lang::Zh;
    match n {
        Notice::TooLong { max } => match zh {
            false => format!(
                "the link is longer than {max} characters and was not read; defaults are shown"
            ),
            true => format!("链接超过 {max} 个字符，未读取；显示的是默认设置"),
        },
        Notice::Ignored { key, value, why } => {
            let why = match why {
                Ignored::Refused(r) => match Setting::by_key(key) {
                    Some(st) => refusal(lang, st, r),
                    None => String::new(),
                },
                Ignored::OtherVersion => lang
                    .pick(
                        "this page reads version 1 links; settings were read as version 1",
                        "本页读取第 1 版链接；设置按第 1 版读取",
                    )
                    .into(),
                Ignored::NoSuchPreset => {
                    lang.pick("no such preset model", "没有这个预设模型").into()
                }
                Ignored::NotAParamCount => lang
                    .pick(
                        "not a parameter count between 1M and 10T",
                        "不是 1M 到 10T 之间的参数量",
                    )
                    .into(),
                Ignored::OtherLanguage => lang
                    .pick("the page speaks en and zh", "本页支持 en 和 zh")
                    .into(),
                Ignored::HubWithoutArchitecture => lang
                    .pick(
                        "a Hub id travels only with the architecture read from it (cfg=)",
                        "Hub 模型 ID 只与从中读取的结构（cfg=）一起使用",
                    )
                    .into(),
                Ignored::BadHubSource => lang
                    .pick(
                        "not owner/name@revision with a YYYY-MM-DD date (hfd=)",
                        "不是 owner/name@revision 加 YYYY-MM-DD 日期（hfd=）的形式",
                    )
                    .into(),
                Ignored::NotAGgufSummary => lang
                    .pick(
                        "not a GGUF model summary this page writes; pick the .gguf file again",
                        "不是本页写出的 GGUF 模型摘要；请重新选择 .gguf 文件",
                    )
                    .into(),
                Ignored::BadHubEndpoint => lang
                    .pick(
                        "not a Hub endpoint http(s)://host[:port][/path]; huggingface.co is used",
                        "不是 Hub 端点 http(s)://host[:port][/path]；改用 huggingface.co",
                    )
                    .into(),
                Ignored::NotAProjector => lang
                    .pick(
                        "not a vision projector this page writes; pick the mmproj file again",
                        "不是本页写出的视觉投影器；请重新选择 mmproj 文件",
                    )
                    .into(),
            };
            match zh {
                false => format!("ignored {}={}: {why}", shown(key), crate::quoted(value)),
                true => format!("已忽略 {}={}：{why}", shown(key), crate::quoted(value)),
            }
        }
        Notice::UnknownKey(k) => match zh {
            false => format!("ignored unknown setting {}", crate::quoted(k)),
            true => format!("已忽略未知设置 {}", crate::quoted(k)),
        },
        Notice::BadArchitecture(e) => match zh {
            false => format!("ignored the custom architecture: {}", error(lang, e)),
            true => format!("已忽略自定义结构：{}", error(lang, e)),
        },
        Notice::Normalized(r) => repair(lang, r),
        // a link's measurement fails only as BadLink (`Measurement::from_link`); naming it here
        // keeps the other reading errors' sentences out of the page's first load
        Notice::BadMeasurement(_) => crate::measured::bad_link(lang).into(),
        Notice::GgufDetail(detail) => gguf_detail(lang, *detail),
        Notice::GgufLeftOut(name) => match zh {
            false => format!(
                "the GGUF file {} did not fit in the link; pick it again",
                shown(name)
            ),
            true => format!("GGUF 文件 {} 放不进链接；请重新选择", shown(name)),
        },
    }
}

/// A conflict between settings and what was done about it: the setting put back to its default
/// (and that default), or that nothing could be.
pub fn repair(lang: Lang, r: &Repair) -> String {
    let zh = lang == Lang::Zh;
    match r {
        Repair::Reset { cause: EngineError::LoraTargetsAbsent(t), .. } => match zh {
            false => format!("none of the LoRA targets ({}) exists in this model; the default targets were used", t.key()),
            true => format!("这些 LoRA 目标模块（{}）在该模型中都不存在；已改用默认目标模块", t.key()),
        },
        Repair::Reset { cause, setting } => {
            let (name, default) = (setting_name(lang, setting), default_shown(lang, setting));
            match zh {
                false => format!("{}; \"{name}\" was reset to its default ({default})", conflict(lang, cause).0),
                true => format!("{}；已将“{name}”恢复为默认值（{default}）", conflict(lang, cause).0),
            }
        }
        Repair::Unrepaired(cause) => match zh {
            false => format!("{}; no setting could be reset to repair this, so there is no estimate until it is changed", error(lang, cause)),
            true => format!("{}；无法通过重置某个设置来修复，修改之前无法估算", error(lang, cause)),
        },
    }
}

/// A setting's default as a link writes it (a switch: off or on).
fn default_shown(lang: Lang, key: &str) -> String {
    let Some(st) = Setting::by_key(key) else {
        return String::new();
    };
    match st.get(&Scenario::default()) {
        SettingValue::On(on) => lang
            .pick(if on { "on" } else { "off" }, if on { "开" } else { "关" })
            .into(),
        _ => st.text(&Scenario::default()),
    }
}

/// What a coarsened GGUF summary in a link keeps (every tensor: nothing to say).
fn gguf_detail(lang: Lang, detail: vram_engine::llamacpp::Detail) -> String {
    let pad = PADDING_PER_TENSOR;
    match (detail, lang == Lang::Zh) {
        (vram_engine::llamacpp::Detail::Tensors, _) => String::new(),
        (vram_engine::llamacpp::Detail::LayerBytes, false) => format!(
            "the link keeps each layer's bytes of the GGUF file, not its tensors: up to {pad} B a tensor off"
        ),
        (vram_engine::llamacpp::Detail::LayerBytes, true) => {
            format!("链接只保存 GGUF 文件每层的字节数，而非各张量：每个张量至多差 {pad} B")
        }
        (vram_engine::llamacpp::Detail::ModelBytes, false) => {
            "the link keeps the GGUF file's layers as one even total: approximate at partial offload".into()
        }
        (vram_engine::llamacpp::Detail::ModelBytes, true) => "链接只保存 GGUF 文件各层的总字节数并平均分配：部分卸载时为近似值".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{
        json::JsonError, model::WeightPart, scenario::LoraTargets, Job, WeightFormat,
    };

    fn every_error() -> Vec<EngineError> {
        use EngineError::*;
        vec![
            ConfigTooLarge {
                bytes: 2 << 20,
                limit: 1 << 20,
            },
            NotJson(JsonError {
                line: 2,
                column: 8,
                why: JsonProblem::ExpectedValue,
            }),
            NotJson(JsonError {
                line: 3,
                column: 17,
                why: JsonProblem::DuplicateKey,
            }),
            NotJson(JsonError {
                line: 1,
                column: 15,
                why: JsonProblem::NotANumber,
            }),
            NotJson(JsonError {
                line: 1,
                column: 65,
                why: JsonProblem::TooDeep,
            }),
            NotAnObject,
            MissingField("hidden_size".into()),
            NotAWholeNumber {
                field: "hidden_size".into(),
                shown: "\"big\"".into(),
            },
            ZeroField("num_attention_heads".into()),
            OutOfRange {
                setting: "b".into(),
                value: 0,
                min: 1,
                max: 1 << 20,
            },
            OutOfRange {
                setting: "kv_lora_rank".into(),
                value: 0,
                min: 1,
                max: 65_536,
            },
            HeadsNotShared {
                heads: 32,
                kv_heads: 5,
            },
            ExpertsPerToken {
                top_k: 9,
                experts: 8,
            },
            ZeroWindow,
            TooManyParameters,
            UnknownPreset("nope".into()),
            UnknownLoraTarget("xyz".into()),
            NotAParamCount("lots".into()),
            BadArchField("\n\u{1b}[".into()),
            TpDoesNotDivide { gpus: 6, tp: 4 },
            PpDoesNotDivide {
                gpus: 8,
                tp: 2,
                pp: 3,
            },
            FormatNotForJob {
                job: Job::Full,
                format: WeightFormat::Nf4,
            },
            FormatNotForJob {
                job: Job::Lora,
                format: WeightFormat::Nf4,
            },
            FormatNotForJob {
                job: Job::Qlora,
                format: WeightFormat::Int8,
            },
            FormatNotForJob {
                job: Job::Local,
                format: WeightFormat::Nf4,
            },
            PartFormatNotForJob {
                job: Job::Qlora,
                part: WeightPart::Attention,
                format: WeightFormat::Int8,
            },
            PartFormatNotForJob {
                job: Job::Full,
                part: WeightPart::Mlp,
                format: WeightFormat::Nf4,
            },
            StepInBackwardAccumulates { steps: 4 },
            NoLoraTargets,
            LoraTargetsAbsent(LoraTargets::parse("gate").unwrap()),
            BeyondHardware,
        ]
    }

    /// Latin words in a Chinese sentence beyond names that stay as they are (config fields,
    /// format names, units, flags).
    fn english_words(text: &str) -> Vec<String> {
        const KEEP: &[&str] = &[
            "config",
            "big",
            "bitsandbytes",
            "token",
            "json",
            "JSON",
            "KV",
            "LoRA",
            "QLoRA",
            "GPU",
            "EiB",
            "KiB",
            "NaN",
            "Infinity",
            "null",
            "fp32",
            "bf16",
            "NF4",
            "FP4",
            "int8",
            "LLM",
            "f16",
            "GGUF",
            "llama",
            "cpp",
            "MLP",
            "micro",
            "batch",
            "hidden_size",
            "num_attention_heads",
            "kv_lora_rank",
            "en",
            "zh",
            "nope",
            "xyz",
            "lots",
            "gate",
            "M",
            "T",
            "B",
        ];
        text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| {
                w.chars().filter(char::is_ascii_alphabetic).count() > 1 && !KEEP.contains(w)
            })
            .map(String::from)
            .collect()
    }

    #[test]
    fn every_error_reads_as_one_line_in_both_languages_and_the_chinese_has_no_english_left() {
        for e in every_error() {
            let en = error(Lang::En, &e);
            let zh = error(Lang::Zh, &e);
            for t in [&en, &zh] {
                assert!(!t.chars().any(char::is_control) && t.len() < 400, "{t:?}");
            }
            assert_ne!(en, zh);
            assert!(
                english_words(&zh).is_empty(),
                "{zh}: {:?}",
                english_words(&zh)
            );
        }
    }

    #[test]
    fn a_config_with_a_repeated_key_or_nan_is_refused_with_its_place_in_both_languages() {
        let repeated = "{\"hidden_size\": 4096,\n \"hidden_size\": 8}";
        let e = vram_engine::hub::parse_config(repeated).unwrap_err();
        let (en, zh) = (error(Lang::En, &e), error(Lang::Zh, &e));
        assert!(
            en.contains("a key that appears earlier in the same object at line 2"),
            "{en}"
        );
        assert!(
            zh.contains("第 2 行") && zh.contains("重复出现的键"),
            "{zh}"
        );
        let e = vram_engine::hub::parse_config(r#"{"rope_theta": NaN}"#).unwrap_err();
        assert!(error(Lang::En, &e).contains("NaN or Infinity"));
        assert!(error(Lang::Zh, &e).contains("JSON 没有这样的数"));
    }

    #[test]
    fn link_notices_are_sentences_in_both_languages() {
        let d = vram_engine::link::decode(
            "v=2&b=0&zzz=1&m=nope&p=lots&lang=fr&j=full&w=nf4&ks=2&t=q,x&cfg=%0A",
        );
        assert_eq!(d.notices.len(), 10, "{:?}", d.notices);
        for n in &d.notices {
            let en = notice(Lang::En, n);
            let zh = notice(Lang::Zh, n);
            assert!(
                !en.chars().any(char::is_control) && !zh.chars().any(char::is_control),
                "{en:?}"
            );
            assert_ne!(en, zh);
        }
        assert_eq!(
            notice(Lang::En, &d.notices[1]),
            "ignored b=\"0\": Batch (per GPU) must be a whole number from 1 to 1048576"
        );
        assert_eq!(
            notice(Lang::Zh, &d.notices[1]),
            "已忽略 b=\"0\"：批大小（每卡） 必须是 1 到 1048576 之间的整数"
        );
    }

    #[test]
    fn every_repair_says_its_cause_then_the_setting_put_back_and_its_default() {
        use EngineError::*;
        let resets = [
            (TpDoesNotDivide { gpus: 6, tp: 4 }, "tp"),
            (
                PartFormatNotForJob {
                    job: Job::Qlora,
                    part: WeightPart::Attention,
                    format: WeightFormat::Int8,
                },
                "wa",
            ),
            (StepInBackwardAccumulates { steps: 2 }, "obw"),
            (
                FormatNotForJob {
                    job: Job::Full,
                    format: WeightFormat::Nf4,
                },
                "w",
            ),
        ];
        for (cause, setting) in resets {
            let r = Repair::Reset {
                cause: cause.clone(),
                setting,
            };
            for lang in [Lang::En, Lang::Zh] {
                let words = repair(lang, &r);
                assert!(words.starts_with(&conflict(lang, &cause).0), "{words}");
                assert!(words.contains(&setting_name(lang, setting)), "{words}");
            }
        }
        // a repair does not repeat the advice it took another way (here: gradient accumulation 1)
        let r = Repair::Reset {
            cause: StepInBackwardAccumulates { steps: 2 },
            setting: "obw",
        };
        assert_eq!(
            repair(Lang::En, &r),
            "with the optimizer step in backward each gradient is applied and freed as it is \
             produced, so it cannot accumulate over 2 micro-batches; \"optimizer step fused into \
             backward\" was reset to its default (off)"
        );
        assert_eq!(
            repair(Lang::Zh, &r),
            "优化器在反向传播中更新时，每个梯度一产生就被应用并释放，无法在 2 个 micro-batch 上累积；\
             已将“优化器在反向传播中逐参数更新 (optimizer_in_bwd)”恢复为默认值（关）"
        );
        assert_eq!(
            repair(Lang::En, &Repair::Unrepaired(NoLoraTargets)),
            "LoRA needs at least one target module; no setting could be reset to repair this, so \
             there is no estimate until it is changed"
        );
        assert!(repair(Lang::Zh, &Repair::Unrepaired(NoLoraTargets)).contains("无法通过重置"));
    }

    #[test]
    fn a_qlora_user_is_never_told_to_choose_the_qlora_job() {
        for format in WeightFormat::ALL {
            let errors = [
                EngineError::FormatNotForJob {
                    job: Job::Qlora,
                    format: *format,
                },
                EngineError::PartFormatNotForJob {
                    job: Job::Qlora,
                    part: WeightPart::Attention,
                    format: *format,
                },
            ];
            for e in errors {
                for lang in [Lang::En, Lang::Zh] {
                    let words = error(lang, &e);
                    assert!(
                        !words.contains(lang.pick("QLoRA job", "QLoRA 任务")),
                        "{words}"
                    );
                }
            }
        }
    }
}
