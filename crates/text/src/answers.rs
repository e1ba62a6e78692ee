//! The solver's questions and answers, and the serving summary, in both languages.

use vram_engine::{
    fit::Answer, fit::Question, fit::Reach, fit::StartRefusal, scenario::Zero, units::thousands,
    SettingValue, WeightFormat,
};

use crate::Lang;

/// What the solver answers, as a label.
pub fn question(lang: Lang, q: Question) -> &'static str {
    let (en, zh) = match q {
        Question::MicroBatch => ("Largest micro-batch per GPU", "每卡最大 micro-batch"),
        Question::Sequence => ("Longest sequence", "最长序列"),
        Question::GradAccum => (
            "Accumulation steps for the global batch",
            "达到全局批大小所需的累积步数",
        ),
        Question::FewestGpus => ("Fewest GPUs", "最少 GPU 数"),
        Question::Context => ("Longest prompt", "最长提示"),
        Question::Batch => ("Largest batch", "最大批大小"),
        Question::MaxModelLen => (
            "Longest max_model_len (one request)",
            "最长 max_model_len（单个请求）",
        ),
        Question::RequestsAtAverage => (
            "Concurrent requests at the average length",
            "平均长度下的并发请求数",
        ),
        Question::RequestsAtMax => (
            "Concurrent requests at max_model_len",
            "max_model_len 长度下的并发请求数",
        ),
        Question::FewestGpusForRequests => (
            "Fewest GPUs for the concurrent requests",
            "满足并发所需的最少 GPU 数",
        ),
        Question::Format => (
            "Highest-precision weights the job can use",
            "该任务可用的最高精度权重格式",
        ),
    };
    lang.pick(en, zh)
}

fn value(v: SettingValue) -> String {
    match v {
        SettingValue::Number(n) => thousands(n),
        SettingValue::Choice(k) => WeightFormat::from_key(k)
            .map(|f| f.label().to_string())
            .unwrap_or_else(|| k.to_string()),
        _ => String::new(),
    }
}

/// The answer's value, with the parallelism it holds: "8 (tp 4, ZeRO 3)", "nothing fits",
/// "anything up to 1,048,576 fits".
pub fn answer(lang: Lang, a: &Answer) -> String {
    match a.reach {
        Reach::Nothing => lang.pick("nothing fits", "都放不下").into(),
        Reach::UpToLimit(n) => match lang {
            Lang::En => format!("anything up to the limit {} fits", thousands(n)),
            Lang::Zh => format!("直到上限 {} 都放得下", thousands(n)),
        },
        Reach::Set(v) => {
            let held: Vec<String> = a
                .with
                .iter()
                .filter_map(|(key, v)| match (*key, v) {
                    ("tp", SettingValue::Number(n)) => Some(format!("tp {n}")),
                    ("pp", SettingValue::Number(n)) => Some(format!("pp {n}")),
                    ("z", SettingValue::Choice(k)) => {
                        Zero::from_key(k).map(|z| format!("ZeRO {}", z.stage()))
                    }
                    _ => None,
                })
                .collect();
            if held.is_empty() {
                value(v)
            } else {
                format!("{} ({})", value(v), held.join(", "))
            }
        }
    }
}

/// What vLLM prints at start-up: "Maximum concurrency for 8,192 tokens per request: 12.34x".
pub fn startup_concurrency(lang: Lang, max_model_len: u64, hundredths: u64) -> String {
    let x = format!("{}.{:02}x", hundredths / 100, hundredths % 100);
    match lang {
        Lang::En => format!(
            "vLLM's start-up maximum concurrency for {} tokens per request: {x}",
            thousands(max_model_len)
        ),
        Lang::Zh => format!(
            "vLLM 启动时报告的最大并发（每请求 {} token）：{x}",
            thousands(max_model_len)
        ),
    }
}

/// Why the server will not start on these GPUs; `size` writes bytes in the page's unit.
pub fn start_refusal(lang: Lang, r: &StartRefusal, size: impl Fn(u64) -> String) -> String {
    match (lang, r) {
        (Lang::En, StartRefusal::FreeBelowRequested { free, requested }) => format!(
            "vLLM will not start: other processes leave {} free, less than the {} gpu_memory_utilization asks for (\"Free memory on device … is less than desired GPU memory utilization\"); lower --gpu-memory-utilization or free the GPU",
            size(*free),
            size(*requested)
        ),
        (Lang::Zh, StartRefusal::FreeBelowRequested { free, requested }) => format!(
            "vLLM 无法启动：其他进程占用后只剩 {} 空闲，少于 gpu_memory_utilization 要求的 {}（\"Free memory on device … is less than desired GPU memory utilization\"）；请调低 --gpu-memory-utilization 或释放显存",
            size(*free),
            size(*requested)
        ),
        (Lang::En, StartRefusal::MixedTensorParallel { gpu, other }) => format!(
            "vLLM does not run a tensor-parallel group of different GPUs ({} and {}): it shards the model evenly, and the smaller card would bound every rank. Use GPUs of one model, or llama.cpp, which splits by each GPU's free memory",
            gpu.label(),
            other.label()
        ),
        (Lang::Zh, StartRefusal::MixedTensorParallel { gpu, other }) => format!(
            "vLLM 不支持由不同 GPU 组成的张量并行组（{} 与 {}）：它把模型平均切分，较小的显卡会限制每个 rank。请使用同一型号的 GPU，或使用按每块 GPU 空闲显存切分的 llama.cpp",
            gpu.label(),
            other.label()
        ),
    }
}

/// What a verdict's budget is: the total the CUDA driver reports to a process (below
/// nvidia-smi's `capacity`), or for a server gpu_memory_utilization × that total (`visible`).
pub fn budget_equation(
    lang: Lang,
    server_util_pct: Option<u64>,
    budget: &str,
    visible: &str,
    capacity: &str,
) -> String {
    match (lang, server_util_pct) {
        (Lang::En, None) => format!(
            "budget {budget} = the total the CUDA driver reports to a process (cudaMemGetInfo; nvidia-smi shows {capacity})"
        ),
        (Lang::Zh, None) => format!(
            "预算 {budget} = CUDA 驱动报告给进程的总显存（cudaMemGetInfo；nvidia-smi 显示 {capacity}）"
        ),
        (Lang::En, Some(u)) => format!(
            "budget {budget} = {u}% × {visible} (gpu_memory_utilization × the total the CUDA driver reports; nvidia-smi shows {capacity})"
        ),
        (Lang::Zh, Some(u)) => format!(
            "预算 {budget} = {u}% × {visible}（gpu_memory_utilization × CUDA 驱动报告的总显存；nvidia-smi 显示 {capacity}）"
        ),
    }
}

/// SGLang's budget: `mem_fraction_static` × what is free before the weights load (the driver's
/// total less the CUDA context and the communicators); `permille` is the fraction in thousandths.
pub fn sglang_budget_equation(lang: Lang, permille: u64, budget: &str, free: &str) -> String {
    let fraction = format!("{}.{:03}", permille / 1_000, permille % 1_000);
    match lang {
        Lang::En => format!(
            "budget {budget} = {fraction} × {free} (mem_fraction_static × what is free before the weights load: the total the CUDA driver reports less the CUDA context and the communicators)"
        ),
        Lang::Zh => format!(
            "预算 {budget} = {fraction} × {free}（mem_fraction_static × 加载权重前的空闲显存：CUDA 驱动报告的总显存减去 CUDA 上下文与通信器）"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_equation_names_the_driver_total_in_both_languages_and_multiplies_for_a_server() {
        for lang in [Lang::En, Lang::Zh] {
            let job = budget_equation(lang, None, "23.55 GiB", "23.55 GiB", "23.99 GiB");
            assert!(
                job.contains("23.55 GiB") && job.contains("cudaMemGetInfo"),
                "{job}"
            );
            assert!(
                job.contains("nvidia-smi") && job.contains("23.99 GiB"),
                "{job}"
            );
            let server = budget_equation(lang, Some(90), "21.20 GiB", "23.55 GiB", "23.99 GiB");
            assert!(server.contains("21.20 GiB = 90% × 23.55 GiB"), "{server}");
            assert!(server.contains("gpu_memory_utilization"), "{server}");
            let sglang = sglang_budget_equation(lang, 835, "65.31 GiB", "78.22 GiB");
            assert!(sglang.contains("65.31 GiB = 0.835 × 78.22 GiB"), "{sglang}");
            assert!(sglang.contains("mem_fraction_static"), "{sglang}");
        }
    }
}
