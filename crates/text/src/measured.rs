//! "Your measurement": why pasted text gives none, what each measured level counts, where a
//! measurement comes from, and how a unit was read, as sentences.

use vram_engine::{
    measured::Figure, measured::Level, measured::MeasureError, measured::Reading,
    measured::SourceKind,
};

use crate::errors::json_problem;
use crate::Lang;

/// Why a link's `ms=` gives no measurement.
pub fn bad_link(lang: Lang) -> &'static str {
    lang.pick(
        "the measurement in the link cannot be read; it was left out",
        "链接中的测量结果无法读取，已略去",
    )
}

/// Why pasted text (or a link's `ms=`) gives no measurement, as a sentence a user can act on.
pub fn measure_error(lang: Lang, e: &MeasureError) -> String {
    use MeasureError::*;
    let zh = lang == Lang::Zh;
    match *e {
        Empty => lang.pick("there is nothing to compare: paste a log, a number with a unit, or the measuring tool's JSON", "没有可比较的内容：请粘贴日志、带单位的数字或测量工具的 JSON").into(),
        TooLarge { bytes, limit } => match zh {
            false => format!("the text is {} KiB; measurements over {} KiB are refused (paste the lines with the memory figures)", bytes.div_ceil(1024), limit / 1024),
            true => format!("文本有 {} KiB，超过 {} KiB 的测量结果不予读取（请只粘贴含显存数字的几行）", bytes.div_ceil(1024), limit / 1024),
        },
        TooManyLines { lines, limit } => match zh {
            false => format!("the text has {lines} lines; measurements over {limit} lines are refused (paste the lines with the memory figures)"),
            true => format!("文本有 {lines} 行，超过 {limit} 行的测量结果不予读取（请只粘贴含显存数字的几行）"),
        },
        Unrecognized => lang.pick("no memory figure found: this is not a vLLM or llama.cpp log, torch.cuda.memory_stats() or memory_summary(), nvidia-smi, the measuring tool's JSON, or a size with a unit such as \"21.3 GiB allocated\"", "没有找到显存数字：这不是 vLLM 或 llama.cpp 日志、torch.cuda.memory_stats() 或 memory_summary()、nvidia-smi、测量工具的 JSON，也不是 \"21.3 GiB allocated\" 这样带单位的大小").into(),
        NoFigures { source } => match zh {
            false => format!("this looks like {}, but it holds no memory figure", source_name(lang, source)),
            true => format!("这看起来是{}，但其中没有显存数字", source_name(lang, source)),
        },
        BadNumber { line } => match zh {
            false => format!("the number on line {line} cannot be read: it has too many digits"),
            true => format!("第 {line} 行的数字无法读取：位数太多"),
        },
        OutOfRange { line } => match zh {
            false => format!("the figure on line {line} is larger than any device holds (over 16 PiB)"),
            true => format!("第 {line} 行的数字超过了任何设备的容量（大于 16 PiB）"),
        },
        BadJson { line, column, why } => match zh {
            false => format!("the measuring tool's JSON is malformed at line {line} column {column}: {}", json_problem(lang, why)),
            true => format!("测量工具的 JSON 在第 {line} 行第 {column} 列格式有误：{}", json_problem(lang, why)),
        },
        BadLink => bad_link(lang).into(),
    }
}

/// Where a measurement comes from, as a noun phrase.
pub fn source_name(lang: Lang, s: SourceKind) -> &'static str {
    use SourceKind::*;
    match s {
        MeasureTool => lang.pick("the measuring tool's JSON", "测量工具的 JSON"),
        Plain => lang.pick("a number with a unit", "一个带单位的数字"),
        TorchStats => lang.pick(
            "torch.cuda.memory_stats()",
            "torch.cuda.memory_stats() 的输出",
        ),
        TorchSummary => lang.pick(
            "torch.cuda.memory_summary()",
            "torch.cuda.memory_summary() 的输出",
        ),
        Vllm => lang.pick("a vLLM start-up log", "vLLM 启动日志"),
        LlamaCpp => lang.pick("a llama.cpp load log", "llama.cpp 加载日志"),
        NvidiaSmi => lang.pick("nvidia-smi", "nvidia-smi 的输出"),
    }
}

/// A level's short name, for a table's row.
pub fn level_name(lang: Lang, l: Level) -> &'static str {
    use Level::*;
    match l {
        Unstated => lang.pick("size (level not stated)", "大小（未注明口径）"),
        Allocated => lang.pick("PyTorch allocated (peak)", "PyTorch 已分配（峰值）"),
        Reserved => lang.pick("PyTorch reserved (peak)", "PyTorch 已预留（峰值）"),
        Active => lang.pick("PyTorch active (peak)", "PyTorch 活跃块（峰值）"),
        DeviceUsed => lang.pick("used on the device", "设备已用"),
        DeviceTotal => lang.pick("device capacity", "设备容量"),
        VllmBudget => lang.pick("vLLM budget", "vLLM 可用额度"),
        VllmWeights => lang.pick("vLLM weights", "vLLM 权重"),
        VllmActivationPeak => lang.pick("vLLM activation peak", "vLLM 激活峰值"),
        VllmTorchPeak => lang.pick("vLLM torch peak", "vLLM PyTorch 峰值"),
        VllmNonTorch => lang.pick("vLLM non-torch memory", "vLLM 非 PyTorch 显存"),
        VllmKvCache => lang.pick("vLLM KV cache", "vLLM KV 缓存"),
        VllmCudaGraph => lang.pick("vLLM CUDA graphs", "vLLM CUDA 图"),
        LlamaModel => lang.pick("llama.cpp model buffer", "llama.cpp 模型缓冲区"),
        LlamaKv => lang.pick("llama.cpp KV buffer", "llama.cpp KV 缓冲区"),
        LlamaCompute => lang.pick("llama.cpp compute buffer", "llama.cpp 计算缓冲区"),
        LlamaOutput => lang.pick("llama.cpp output buffer", "llama.cpp 输出缓冲区"),
        MetalWorkingSet => lang.pick("Metal working set", "Metal 工作集上限"),
        ToolPeak => lang.pick("measured peak of live tensors", "实测张量峰值"),
        ToolParam => lang.pick("measured parameters", "实测参数"),
        ToolGrad => lang.pick("measured gradients", "实测梯度"),
        ToolOptimizer => lang.pick("measured optimizer states", "实测优化器状态"),
        ToolOther => lang.pick("measured other tensors", "实测其他张量"),
        ToolKvCache => lang.pick("measured KV cache", "实测 KV 缓存"),
    }
}

/// What a level counts and what it leaves out, in one sentence.
pub fn level_note(lang: Lang, l: Level) -> &'static str {
    use Level::*;
    match l {
        Unstated => lang.pick(
            "A size with no word saying what it counts: it is compared with the whole total per GPU, the figure nvidia-smi and task managers show.",
            "这个数字没有说明统计口径：按每卡总量比较，也就是 nvidia-smi 和任务管理器显示的数字。",
        ),
        Allocated => lang.pick(
            "Live tensors at their peak (max_memory_allocated): no allocator cache, no CUDA context, and nothing allocated outside PyTorch's allocator, such as bitsandbytes' paged optimizer states.",
            "峰值时的活跃张量（max_memory_allocated）：不含分配器缓存和 CUDA 上下文，也看不到 PyTorch 分配器之外的内存，例如 bitsandbytes 的分页优化器状态。",
        ),
        Reserved => lang.pick(
            "Live tensors plus the caching allocator's spare blocks (max_memory_reserved): no CUDA context, and paged optimizer states (unified memory) stay invisible.",
            "活跃张量加上缓存分配器的空闲块（max_memory_reserved）：不含 CUDA 上下文，分页优化器状态（统一内存）同样看不到。",
        ),
        Active => lang.pick(
            "Live tensors plus freed blocks still waiting on a stream: compared with the live tensors.",
            "活跃张量加上已释放但仍在等待流的块：按张量总量比较。",
        ),
        DeviceUsed => lang.pick(
            "Everything on the card as nvidia-smi counts it: what PyTorch reserved, the CUDA context, NCCL buffers, anything outside PyTorch and other processes on the same card.",
            "nvidia-smi 统计的整卡占用：PyTorch 预留的显存、CUDA 上下文、NCCL 缓冲区、PyTorch 之外的一切，以及同一张卡上的其他进程。",
        ),
        DeviceTotal => lang.pick(
            "The card's capacity, not a use: nothing to compare.",
            "这是显卡的容量而不是用量，不作比较。",
        ),
        VllmBudget => lang.pick(
            "What vLLM may use: total memory × gpu_memory_utilization, all of it taken at start-up.",
            "vLLM 可以使用的显存：总显存 × gpu_memory_utilization，启动时全部占用。",
        ),
        VllmWeights => lang.pick(
            "The memory the model's weights took when vLLM loaded them.",
            "vLLM 加载模型时权重占用的显存。",
        ),
        VllmActivationPeak => lang.pick(
            "The activation peak of vLLM's profiling run of max_num_batched_tokens tokens.",
            "vLLM 以 max_num_batched_tokens 个 token 做剖析运行时的激活峰值。",
        ),
        VllmTorchPeak => lang.pick(
            "Weights plus the profiling run's activation peak, as vLLM 0.6.4 and 0.6.5 print it.",
            "权重加上剖析运行的激活峰值（vLLM 0.6.4 与 0.6.5 的输出）。",
        ),
        VllmNonTorch => lang.pick(
            "Memory outside PyTorch's allocator: the CUDA context, NCCL and cuBLAS workspaces.",
            "PyTorch 分配器之外的显存：CUDA 上下文、NCCL 与 cuBLAS 工作区。",
        ),
        VllmKvCache => lang.pick(
            "What was left of vLLM's budget for KV cache blocks after weights, activations and the rest.",
            "vLLM 的额度在扣除权重、激活等之后留给 KV 缓存块的部分。",
        ),
        VllmCudaGraph => lang.pick(
            "The memory CUDA graph capture took; the estimate does not model it.",
            "捕获 CUDA 图所占的显存；估算不包含这一项。",
        ),
        LlamaModel => lang.pick(
            "llama.cpp's model buffers: the weights placed on each device.",
            "llama.cpp 的模型缓冲区：放在各设备上的权重。",
        ),
        LlamaKv => lang.pick(
            "llama.cpp's KV cache buffers, sized for the whole context.",
            "llama.cpp 的 KV 缓存缓冲区，按完整上下文分配。",
        ),
        LlamaCompute => lang.pick(
            "llama.cpp's compute buffers: scratch for one batch's activations and logits.",
            "llama.cpp 的计算缓冲区：一个批次的激活和 logits 所用的临时空间。",
        ),
        LlamaOutput => lang.pick(
            "llama.cpp's output buffer in host memory; not compared.",
            "llama.cpp 放在主机内存中的输出缓冲区，不作比较。",
        ),
        MetalWorkingSet => lang.pick(
            "How much memory macOS lets the GPU use (recommendedMaxWorkingSetSize); a limit, not a use.",
            "macOS 允许 GPU 使用的显存上限（recommendedMaxWorkingSetSize），是上限而不是用量。",
        ),
        ToolPeak => lang.pick(
            "The measuring tool's peak of live tensors, at the allocator's level (like max_memory_allocated).",
            "测量工具记录的活跃张量峰值，按分配器口径（与 max_memory_allocated 相同）。",
        ),
        ToolParam => lang.pick(
            "The measuring tool's parameter tensors: compared with weights and adapter.",
            "测量工具统计的参数张量：与权重和适配器比较。",
        ),
        ToolGrad => lang.pick(
            "The measuring tool's gradient tensors.",
            "测量工具统计的梯度张量。",
        ),
        ToolOptimizer => lang.pick(
            "The measuring tool's optimizer states.",
            "测量工具统计的优化器状态。",
        ),
        ToolOther => lang.pick(
            "Every live tensor that is not a parameter, gradient or optimizer state: activations, logits and the KV cache.",
            "不属于参数、梯度或优化器状态的活跃张量：激活、logits 和 KV 缓存。",
        ),
        ToolKvCache => lang.pick(
            "The measuring tool's KV cache tensors.",
            "测量工具统计的 KV 缓存张量。",
        ),
    }
}

/// How a figure's unit became bytes, when a reader may want to know; None when the unit leaves
/// no doubt (B, KiB, MiB, GiB, TiB).
pub fn reading_note(lang: Lang, f: &Figure) -> Option<String> {
    let unit = f.unit.label();
    let binary = binary_unit(unit);
    let zh = lang == Lang::Zh;
    Some(match (f.reading, zh) {
        (Reading::Exact, _) => return None,
        (Reading::Decimal, false) => format!("{unit} was read as written, in powers of 1000; if the tool meant {binary}, the figure is {} larger", larger(f)),
        (Reading::Decimal, true) => format!("{unit} 按字面以 1000 进位读取；如果工具实际指的是 {binary}，该数字应大 {}", larger(f)),
        (Reading::Binary, false) => format!("{unit} was read as {binary}: this source divides by 1024"),
        (Reading::Binary, true) => format!("{unit} 按 {binary} 读取：该来源以 1024 进位"),
    })
}

/// "GiB" for "GB".
fn binary_unit(decimal: &str) -> String {
    let mut s = decimal.to_string();
    if s.len() == 2 {
        s.insert(1, 'i');
    }
    s
}

/// How much larger a decimal unit's binary reading is: 2.4 % for KB, 7.4 % for GB.
fn larger(f: &Figure) -> String {
    let ratio = f.unit.bytes(Reading::Binary) as f64 / f.unit.bytes(Reading::Decimal) as f64;
    format!(
        "{} %",
        vram_engine::units::decimal((ratio - 1.0) * 100.0, 1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{json::JsonProblem, measured::SizeUnit};

    /// Latin words in a Chinese sentence beyond names that stay as they are (tools, functions,
    /// options, units).
    fn english_words(text: &str) -> Vec<String> {
        const KEEP: &[&str] = &[
            "vLLM",
            "llama",
            "cpp",
            "torch",
            "cuda",
            "memory_stats",
            "memory_summary",
            "nvidia",
            "smi",
            "JSON",
            "KiB",
            "PiB",
            "GiB",
            "MiB",
            "GB",
            "MB",
            "KB",
            "TB",
            "TiB",
            "allocated",
            "PyTorch",
            "CUDA",
            "NCCL",
            "cuBLAS",
            "KV",
            "max_memory_allocated",
            "max_memory_reserved",
            "gpu_memory_utilization",
            "max_num_batched_tokens",
            "bitsandbytes",
            "token",
            "logits",
            "macOS",
            "GPU",
            "Metal",
            "recommendedMaxWorkingSetSize",
        ];
        text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| {
                w.chars().filter(char::is_ascii_alphabetic).count() > 1 && !KEEP.contains(w)
            })
            .map(String::from)
            .collect()
    }

    fn every_error() -> Vec<MeasureError> {
        use MeasureError::*;
        let mut v = vec![
            Empty,
            TooLarge {
                bytes: 300_000,
                limit: 262_144,
            },
            TooManyLines {
                lines: 40_000,
                limit: 32_768,
            },
            Unrecognized,
            BadNumber { line: 3 },
            OutOfRange { line: 4 },
            BadJson {
                line: 1,
                column: 9,
                why: JsonProblem::DuplicateKey,
            },
            BadLink,
        ];
        v.extend(SourceKind::ALL.iter().map(|&source| NoFigures { source }));
        v
    }

    #[track_caller]
    fn both_languages(en: &str, zh: &str) {
        for t in [en, zh] {
            assert!(
                !t.is_empty() && !t.chars().any(char::is_control) && t.len() < 500,
                "{t:?}"
            );
        }
        assert_ne!(en, zh);
        assert!(
            english_words(zh).is_empty(),
            "{zh}: {:?}",
            english_words(zh)
        );
    }

    #[test]
    fn every_measurement_error_is_a_sentence_in_both_languages_with_no_english_left_in_the_chinese()
    {
        for e in every_error() {
            both_languages(&measure_error(Lang::En, &e), &measure_error(Lang::Zh, &e));
        }
        assert!(measure_error(Lang::En, &MeasureError::BadNumber { line: 3 }).contains("line 3"));
    }

    #[test]
    fn every_level_has_a_name_and_a_note_in_both_languages() {
        for &l in Level::ALL {
            both_languages(level_name(Lang::En, l), level_name(Lang::Zh, l));
            both_languages(level_note(Lang::En, l), level_note(Lang::Zh, l));
        }
        assert!(level_note(Lang::En, Level::Allocated).contains("paged optimizer"));
        assert!(level_note(Lang::Zh, Level::Reserved).contains("分页优化器"));
    }

    #[test]
    fn every_source_has_a_name_in_both_languages() {
        for &s in SourceKind::ALL {
            both_languages(source_name(Lang::En, s), source_name(Lang::Zh, s));
        }
    }

    #[test]
    fn a_decimal_gb_warns_that_gib_may_have_been_meant_and_exact_units_say_nothing() {
        let figure = |unit, reading| Figure {
            level: Level::Unstated,
            bytes: 18_500_000_000,
            unit,
            reading,
            device: None,
        };
        let gb = figure(SizeUnit::Gb, Reading::Decimal);
        assert_eq!(
            reading_note(Lang::En, &gb).unwrap(),
            "GB was read as written, in powers of 1000; if the tool meant GiB, the figure is 7.4 % larger"
        );
        let mb = figure(SizeUnit::Mb, Reading::Binary);
        both_languages(
            &reading_note(Lang::En, &mb).unwrap(),
            &reading_note(Lang::Zh, &mb).unwrap(),
        );
        both_languages(
            &reading_note(Lang::En, &gb).unwrap(),
            &reading_note(Lang::Zh, &gb).unwrap(),
        );
        assert_eq!(
            reading_note(Lang::En, &figure(SizeUnit::Gib, Reading::Exact)),
            None
        );
    }
}
