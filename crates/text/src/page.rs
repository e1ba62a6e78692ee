//! The page's fixed texts (headings, buttons, notes), by key. They live here rather than in the
//! page so that the on-demand Chinese table (`zh.rs`) can hold their Chinese.

use crate::zh;
use crate::Lang;

/// The text for `key` in `lang`; "?" when the key is missing (caught by a test).
pub fn page_text(lang: Lang, key: &str) -> &'static str {
    crate::row(PAGE, key).map_or("?", |(_, en, zh)| lang.text(en, zh))
}

/// (key, English, Chinese).
pub(crate) const PAGE: &[crate::Row] = &[
    ("title", "vram-budget", zh!("vram-budget 显存预算")),
    ("tagline", "How much GPU memory an LLM job needs, and whether it fits.", zh!("大模型任务需要多少显存，放得下吗？")),
    ("model", "Model", zh!("模型")),
    ("preset", "Preset", zh!("预设模型")),
    ("search", "Search models", zh!("搜索模型")),
    ("source_preset", "Preset", zh!("预设模型")),
    ("source_params", "Parameter count", zh!("参数量")),
    ("source_config", "config.json", zh!("config.json")),
    ("params_slider", "Parameters", zh!("参数量")),
    ("approx_note", "Approximate dense shape from the count alone (params ≈ 12·h²·L); paste a config.json for the exact model.", zh!("仅凭参数量推出的近似稠密结构（参数量 ≈ 12·h²·L）；粘贴 config.json 可得到精确结构。")),
    ("paste_config", "Paste a config.json", zh!("粘贴 config.json")),
    ("use_config", "Use this config", zh!("使用此配置")),
    ("upload_config", "or upload a file", zh!("或上传文件")),
    ("config_name", "Name", zh!("名称")),
    ("job", "Job", zh!("任务")),
    ("weights", "Weights", zh!("权重格式")),
    ("kv_dtype", "KV cache dtype", zh!("KV Cache 精度")),
    ("batch", "Batch (per GPU)", zh!("批大小（每卡）")),
    ("seq", "Sequence length", zh!("序列长度")),
    ("allowed", "Allowed:", zh!("允许范围：")),
    ("params_range", "Between 1M and 10T parameters.", zh!("参数量须在 1M 到 10T 之间。")),
    ("prompt", "Prompt tokens", zh!("提示词 token 数")),
    ("source", "Source tokens (encoder)", zh!("源 token 数（编码器）")),
    ("gen", "Generated tokens", zh!("生成 token 数")),
    ("grad_accum", "Gradient accumulation", zh!("梯度累积步数")),
    ("lora_rank", "LoRA rank", zh!("LoRA 秩")),
    ("lora_targets", "LoRA target modules", zh!("LoRA 目标模块")),
    ("optimizer", "Optimizer", zh!("优化器")),
    ("ckpt", "Gradient checkpointing", zh!("梯度检查点")),
    ("attention", "Attention kernel", zh!("注意力实现")),
    ("loss", "Loss", zh!("损失计算")),
    ("gpus", "GPUs", zh!("GPU 数量")),
    ("zero", "ZeRO stage", zh!("ZeRO 阶段")),
    ("offload", "CPU offload", zh!("CPU 卸载")),
    ("tp", "Tensor parallel", zh!("张量并行")),
    ("gpu", "GPU", zh!("GPU 型号")),
    ("concurrency", "Concurrent requests", zh!("并发请求数")),
    ("avg_tokens", "Average request tokens", zh!("平均请求长度（token）")),
    ("gpu_util", "gpu_memory_utilization (%)", zh!("gpu_memory_utilization (%)")),
    ("block_size", "KV block size", zh!("KV 块大小")),
    ("max_model_len", "max_model_len", zh!("max_model_len")),
    ("batched_tokens", "max_num_batched_tokens", zh!("max_num_batched_tokens")),
    ("advanced", "Advanced: overheads and serving details", zh!("高级：固定开销与服务参数")),
    ("context_mib", "CUDA context & workspaces (MiB)", zh!("CUDA 上下文与工作区 (MiB)")),
    ("reserve_pct", "Allocator reserve (%)", zh!("分配器预留 (%)")),
    ("units", "Units", zh!("单位")),
    ("copy_link", "Copy link", zh!("复制链接")),
    ("copied", "Link copied", zh!("链接已复制")),
    ("copy_failed", "Copy the link from the box", zh!("请从输入框手动复制链接")),
    ("per_gpu", "per GPU", zh!("每卡")),
    ("needs", "Needs", zh!("需要")),
    ("fits", "fits", zh!("放得下")),
    ("does_not_fit", "does not fit", zh!("放不下")),
    ("headroom", "Headroom", zh!("余量")),
    ("short_by", "short by", zh!("还差")),
    ("chart_title", "Memory per GPU by component", zh!("每卡显存构成")),
    ("chart_note", "Bars: the same job spread over more GPUs (ZeRO-3 for training, tensor parallel for inference). Lines: GPU capacities; the selected GPU is highlighted.", zh!("柱：同一任务分摊到更多 GPU（训练用 ZeRO-3，推理用张量并行）。横线：常见显卡容量，所选 GPU 高亮。")),
    ("seq_view", "Total memory as sequence length grows", zh!("总显存随序列长度的变化")),
    ("request_view", "Total memory as the average request grows (at this concurrency)", zh!("总显存随平均请求长度的变化（按当前并发数）")),
    ("fit_table", "Every GPU", zh!("所有 GPU")),
    ("verdict", "Fits?", zh!("放得下？")),
    ("gpus_needed", "GPUs needed", zh!("所需 GPU 数")),
    ("yes", "yes", zh!("是")),
    ("no", "no", zh!("否")),
    ("solver", "On the selected GPU", zh!("在所选 GPU 上")),
    ("budget_capacity", "Budget / capacity", zh!("预算 / 容量")),
    ("serve_command", "Start the server", zh!("启动服务")),
    ("copy_command", "Copy the commands", zh!("复制命令")),
    ("remedies", "It fits with any one of these changes:", zh!("任选以下一项改动即可放下：")),
    ("no_remedy", "No single change makes it fit on this GPU: see how many GPUs it needs below, or combine changes.", zh!("单独任何一项改动都放不下：请看下方所需 GPU 数，或组合多项改动。")),
    ("explain", "How each number is computed", zh!("每一项是怎么算出来的")),
    ("total", "Total", zh!("合计")),
    ("tensors", "live tensors", zh!("张量")),
    ("peak_at", "peak at", zh!("峰值出现在")),
    ("not_at_peak", "not alive at the peak", zh!("峰值时刻不占用")),
    ("cpu_ram", "CPU memory for offload", zh!("CPU 卸载内存")),
    ("serving_fill", "vLLM reserves", zh!("vLLM 预留")),
    ("serving_fill_sglang", "SGLang's static share", zh!("SGLang 静态显存")),
    ("kv_pool", "KV pool", zh!("KV 缓存池")),
    ("blocks", "blocks", zh!("块")),
    ("requests_at_once", "requests at once", zh!("个请求同时运行")),
    ("too_small_for_max_len", "too small for one max_model_len request: vLLM would refuse to start", zh!("容纳不下一个 max_model_len 的请求：vLLM 将无法启动")),
    ("notice", "Some settings in the link were ignored:", zh!("链接中有设置被忽略：")),
    ("error", "Cannot estimate:", zh!("无法估算：")),
    ("architecture", "Shape", zh!("结构")),
    ("params", "params", zh!("参数")),
    ("active", "active", zh!("激活")),
    ("trainable", "trainable", zh!("可训练")),
    ("layers", "layers", zh!("层")),
    ("hidden", "hidden", zh!("隐藏维度")),
    ("heads", "heads", zh!("注意力头")),
    ("kv_heads", "KV heads", zh!("KV 头")),
    ("vocab", "vocab", zh!("词表")),
    ("experts", "experts", zh!("专家")),
    ("window", "sliding window", zh!("滑动窗口")),
    ("language", "中文", zh!("English")),
    ("panic", "Something went wrong inside the page. Reload it; if it happens again, the link in the address bar reproduces it.", zh!("页面内部出错。请刷新；如果再次出现，地址栏中的链接可以复现该问题。")),
    ("accum_note", "Gradient accumulation reuses one gradient buffer: it adds to memory nothing beyond one micro-batch.", zh!("梯度累积复用同一个梯度缓冲区：显存只按一个 micro-batch 计算，不会乘以累积步数。")),
    ("file_unreadable", "The file could not be read.", zh!("无法读取该文件。")),
    ("config_too_big", "This file is larger than 1 MiB; a config.json is a few KiB. It was not read.", zh!("文件超过 1 MiB；config.json 通常只有几 KiB。未读取。")),
    ("measured_h", "Your measurement", zh!("你的实测")),
    ("measured_help", "Paste what the job really used: a vLLM or llama.cpp log, torch.cuda.memory_stats() or memory_summary(), nvidia-smi, the measuring tool's JSON, or a size such as \"21.3 GiB allocated\". It is read here and never sent anywhere.", zh!("粘贴任务实际占用的显存：vLLM 或 llama.cpp 日志、torch.cuda.memory_stats() 或 memory_summary()、nvidia-smi、测量工具的 JSON，或 \"21.3 GiB allocated\" 这样的大小。内容只在本页读取，不会发送到任何地方。")),
    ("measured_apply", "Compare", zh!("比较")),
    ("reading", "Reading …", zh!("正在读取……")),
    ("source_hub", "Hugging Face id", zh!("Hugging Face ID")),
    ("hub_read_on", "read on", zh!("读取于")),
    ("local_loading", "Working out the llama.cpp run…", zh!("正在计算 llama.cpp 运行…")),
    ("local_failed", "the llama.cpp module could not be loaded; check the connection and reload", zh!("llama.cpp 模块未能加载；请检查网络后刷新")),
    ("readers_failed", "the reader could not be loaded; check the connection and try again", zh!("读取模块未能加载；请检查网络后重试")),
    ("report_copied", "Report copied", zh!("报告已复制")),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_text_in_both_languages() {
        for (k, en, zh) in PAGE {
            assert!(!en.is_empty() && !zh.is_empty(), "{k}");
        }
        let keys: Vec<&str> = PAGE.iter().map(|(k, _, _)| *k).collect();
        let mut dedup = keys.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(keys.len(), dedup.len(), "duplicate keys");
    }
}
