//! Each setting's label and help, by the registry's id.

use vram_engine::Setting;

use crate::Lang;

/// (id, English label, Chinese label): what the page and the CLI call each setting.
const LABELS: &[(&str, &str, &str)] = &[
    ("job", "Job", "任务"),
    ("weights", "Weights", "权重格式"),
    (
        "weights-embeddings",
        "Embeddings stored as",
        "嵌入层的存储格式",
    ),
    (
        "weights-attention",
        "Attention stored as",
        "注意力的存储格式",
    ),
    (
        "weights-mlp",
        "MLP / experts stored as",
        "MLP / 专家的存储格式",
    ),
    ("weights-head", "Output head stored as", "输出头的存储格式"),
    ("kv-dtype", "KV cache dtype", "KV Cache 精度"),
    ("optimizer", "Optimizer", "优化器"),
    ("ckpt", "Gradient checkpointing", "梯度检查点"),
    ("attention", "Attention kernel", "注意力实现"),
    ("loss", "Loss", "损失计算"),
    ("zero", "ZeRO stage", "ZeRO 阶段"),
    ("offload", "CPU offload", "CPU 卸载"),
    ("dp-framework", "Data-parallel framework", "数据并行框架"),
    ("weights-load", "Loading the weights", "权重加载方式"),
    ("shard-group", "Shard group (GPUs)", "分片组（卡数）"),
    (
        "switch-gbv",
        "DDP gradient_as_bucket_view",
        "DDP gradient_as_bucket_view",
    ),
    (
        "switch-fns",
        "FSDP no_sync while accumulating",
        "梯度累积时 FSDP no_sync",
    ),
    ("gpu", "GPU", "GPU 型号"),
    ("unit", "Units", "单位"),
    (
        "switch-mw",
        "fp32 master weights (LoRA: fp32 adapters)",
        "fp32 主权重 / fp32 适配器",
    ),
    (
        "switch-ld",
        "LoRA dropout (adapters keep their own input copy)",
        "LoRA dropout（每个适配器保存自己的输入副本）",
    ),
    (
        "switch-mts",
        "embeddings and head trained in full (modules_to_save)",
        "完整训练嵌入层和输出头 (modules_to_save)",
    ),
    (
        "switch-dora",
        "DoRA (magnitude + direction adapters)",
        "DoRA（幅度 + 方向分解的 LoRA）",
    ),
    (
        "switch-obw",
        "optimizer step fused into backward",
        "优化器在反向传播中逐参数更新 (optimizer_in_bwd)",
    ),
    (
        "switch-ao",
        "activations offloaded to CPU memory",
        "激活值卸载到 CPU 内存",
    ),
    (
        "switch-qh",
        "output head quantized too",
        "输出头也量化（litgpt 等）",
    ),
    (
        "switch-a16",
        "attention kept 16-bit (only the MLP quantized)",
        "注意力保持 16 位（只量化 MLP）",
    ),
    (
        "switch-ks",
        "KV cache preallocated for the max model length",
        "KV Cache 按最大长度预先分配（静态缓存）",
    ),
    (
        "switch-kvh",
        "KV cache keeps every attention head (GQA expanded)",
        "KV Cache 按全部注意力头存储（GQA 展开后）",
    ),
    (
        "switch-po",
        "paged optimizer (bitsandbytes, states in unified memory)",
        "分页优化器（bitsandbytes，状态放在统一内存）",
    ),
    ("lora-targets", "LoRA target modules", "LoRA 目标模块"),
    ("batch", "Batch (per GPU)", "批大小（每卡）"),
    ("seq", "Sequence length", "序列长度"),
    ("gen", "Generated tokens", "生成 token 数"),
    (
        "target-len",
        "Target tokens (decoder)",
        "目标 token 数（解码器）",
    ),
    ("grad-accum", "Gradient accumulation", "梯度累积步数"),
    (
        "global-batch",
        "Target global batch (0: none)",
        "目标全局批大小（0：不设）",
    ),
    ("lora-rank", "LoRA rank", "LoRA 秩"),
    ("gpus", "GPUs", "GPU 数量"),
    ("tp", "Tensor parallel", "张量并行"),
    ("pp", "Pipeline stages", "流水线级数"),
    ("switch-sqp", "Sequence parallel", "序列并行"),
    ("pipeline-schedule", "Pipeline schedule", "流水线调度"),
    (
        "virtual-stages",
        "Model chunks per GPU (interleaved)",
        "每卡模型分块数（交错调度）",
    ),
    (
        "gpu-util",
        "gpu_memory_utilization (%)",
        "gpu_memory_utilization (%)",
    ),
    ("block-size", "KV block size", "KV 块大小"),
    ("max-model-len", "max_model_len", "max_model_len"),
    (
        "avg-tokens",
        "Average request tokens",
        "平均请求长度（token）",
    ),
    ("concurrency", "Concurrent requests", "并发请求数"),
    (
        "batched-tokens",
        "max_num_batched_tokens",
        "max_num_batched_tokens",
    ),
    ("max-num-seqs", "max_num_seqs", "max_num_seqs"),
    ("vllm-version", "vLLM engine", "vLLM 引擎版本"),
    ("server", "Serving engine", "推理服务引擎"),
    (
        "mem-fraction-static",
        "SGLang mem_fraction_static (‰; 0: SGLang's default)",
        "SGLang 的 mem_fraction_static（‰；0：SGLang 默认值）",
    ),
    ("max-loras", "max_loras", "max_loras"),
    ("max-lora-rank", "max_lora_rank", "max_lora_rank"),
    ("shared-prefix", "Shared prefix tokens", "共享前缀 token"),
    ("cuda-graphs", "CUDA graphs", "CUDA 图"),
    (
        "comm-mib",
        "NCCL and all-reduce buffers per GPU (MiB; 0: from the interconnect)",
        "每卡 NCCL 与 all-reduce 缓冲区 (MiB；0：按互连推算)",
    ),
    ("speculative", "Speculative decoding", "投机解码"),
    (
        "spec-tokens",
        "num_speculative_tokens",
        "num_speculative_tokens",
    ),
    ("draft-model", "Draft model", "草稿模型"),
    (
        "context-mib",
        "CUDA context & workspaces (MiB)",
        "CUDA 上下文与工作区 (MiB)",
    ),
    ("reserve-pct", "Allocator reserve (%)", "分配器预留 (%)"),
    ("local-ngl", "GPU layers (-ngl)", "GPU 层数 (-ngl)"),
    (
        "local-ctx",
        "Context (-c, 0: the model's)",
        "上下文 (-c，0：模型自带)",
    ),
    ("local-parallel", "Parallel slots (-np)", "并行槽数 (-np)"),
    ("local-batch", "Batch (-b)", "批大小 (-b)"),
    ("local-ubatch", "Micro-batch (-ub)", "微批大小 (-ub)"),
    ("local-ctk", "K cache type", "K 缓存类型"),
    ("local-ctv", "V cache type", "V 缓存类型"),
    ("local-fa", "flash attention (-fa)", "flash attention (-fa)"),
    (
        "local-mmap",
        "mmap the file (off: --no-mmap)",
        "内存映射文件（关：--no-mmap）",
    ),
    (
        "local-ncmoe",
        "MoE experts kept in CPU RAM (--n-cpu-moe)",
        "留在 CPU 内存的 MoE 专家层 (--n-cpu-moe)",
    ),
    (
        "local-op-offload",
        "GPU runs big batches on host weights (off: --no-op-offload)",
        "GPU 代算主机权重上的大批次（关：--no-op-offload）",
    ),
    (
        "local-kv-unified",
        "One KV cache for all slots (--kv-unified)",
        "所有槽共用一个 KV 缓存 (--kv-unified)",
    ),
    (
        "local-swa-full",
        "Full-size sliding-window cache (--swa-full)",
        "滑动窗口层缓存完整上下文 (--swa-full)",
    ),
    ("local-machine", "Machine", "机器"),
    ("local-mac", "Mac chip", "Mac 芯片"),
    ("local-mac-memory", "Mac memory (GB)", "Mac 内存 (GB)"),
    (
        "local-wired",
        "iogpu.wired_limit_mb (0: macOS default)",
        "iogpu.wired_limit_mb（0：macOS 默认）",
    ),
    (
        "local-ram",
        "CPU RAM (GiB, 0: not checked)",
        "CPU 内存（GiB，0：不检查）",
    ),
    (
        "local-ram-bandwidth",
        "CPU RAM bandwidth (GB/s, 0: 89.6)",
        "CPU 内存带宽（GB/s，0：89.6）",
    ),
    (
        "local-split-mode",
        "Split over the GPUs (--split-mode)",
        "多 GPU 切分方式 (--split-mode)",
    ),
    (
        "local-mmproj-offload",
        "Vision projector on the first GPU (off: --no-mmproj-offload)",
        "视觉投影器放在第一块 GPU（关：--no-mmproj-offload）",
    ),
    (
        "local-tensor-split",
        "Layers per GPU (--tensor-split, e.g. 3,1)",
        "各 GPU 分得的层 (--tensor-split，如 3,1)",
    ),
];

/// (id, English help, Chinese help): one line on what each setting changes (the CLI's --help).
/// A table of its own, so that a shell that shows no help does not carry it.
const HELP: &[(&str, &str, &str)] = &[
    (
        "weights-embeddings",
        "a mixed checkpoint: the token embeddings' own format (auto: 16-bit, or the GGUF mix's)",
        "混合格式的检查点：词嵌入自己的格式（auto：16 位，或 GGUF 混合方案的格式）",
    ),
    (
        "weights-attention",
        "a mixed checkpoint: the attention projections' own format (auto: the weights' format)",
        "混合格式的检查点：注意力投影自己的格式（auto：与权重格式相同）",
    ),
    (
        "weights-mlp",
        "a mixed checkpoint: the MLP's or the experts' own format, routers included (gpt-oss: mxfp4)",
        "混合格式的检查点：MLP 或专家自己的格式，含路由器（gpt-oss：mxfp4）",
    ),
    (
        "weights-head",
        "a mixed checkpoint: the output head's own format (auto: 16-bit unless quantized with the layers)",
        "混合格式的检查点：输出头自己的格式（auto：16 位，除非与各层一起量化）",
    ),
    (
        "max-loras",
        "vLLM --max-loras: LoRA adapter slots allocated at start-up (0: off)",
        "vLLM 的 --max-loras：启动时分配的 LoRA 适配器槽数（0：关闭）",
    ),
    (
        "max-lora-rank",
        "vLLM --max-lora-rank: the rank each LoRA slot is allocated for",
        "vLLM 的 --max-lora-rank：每个 LoRA 槽按此秩分配",
    ),
    (
        "shared-prefix",
        "prompt tokens every request shares, cached once by prefix caching (0: off)",
        "所有请求共享的提示词 token，前缀缓存只存一份（0：关闭）",
    ),
    (
        "job",
        "what the GPU is asked to do",
        "GPU 要做的事：推理、服务、全量微调、LoRA 或 QLoRA",
    ),
    (
        "weights",
        "the format the weights are stored in",
        "权重的存储格式",
    ),
    ("kv-dtype", "KV-cache dtype", "KV Cache 的数据类型"),
    (
        "optimizer",
        "the optimizer and where its states live",
        "优化器及其状态的存放方式",
    ),
    ("ckpt", "gradient checkpointing", "梯度（激活）检查点"),
    (
        "attention",
        "the attention kernel: fused kernels never store the seq × seq scores",
        "注意力实现：融合内核不保存 seq × seq 得分矩阵",
    ),
    (
        "loss",
        "how the loss is computed over the vocabulary",
        "在词表上计算损失的方式",
    ),
    (
        "zero",
        "what ZeRO / FSDP shards over the GPUs",
        "ZeRO / FSDP 在各卡之间切分的内容",
    ),
    (
        "dp-framework",
        "whose buffers come with the sharding: DDP's gradient buckets, DeepSpeed's reduce bucket, the units FSDP keeps gathered",
        "分片之外还有哪个框架的缓冲区：DDP 的梯度桶、DeepSpeed 的归约桶、FSDP 保持聚合的单元",
    ),
    (
        "weights-load",
        "sharded: each rank builds only its shard; full: every rank holds the whole model before sharding; rank0: sync_module_states broadcasts unit by unit",
        "sharded：每张卡只构建自己的分片；full：每张卡先持有完整模型再切分；rank0：sync_module_states 逐单元广播",
    ),
    (
        "shard-group",
        "GPUs one shard spans (FSDP HYBRID_SHARD: one node), replicated across groups; 0: all GPUs",
        "一个分片跨越的卡数（FSDP HYBRID_SHARD：一台机器），组间复制；0：所有卡",
    ),
    (
        "switch-gbv",
        "gradients are views into DDP's buckets instead of a second gradient-sized copy",
        "梯度直接作为 DDP 梯度桶的视图，不再另存一份同样大小的副本",
    ),
    (
        "switch-fns",
        "the accumulating micro-batches skip the reduce-scatter (FSDP no_sync, Lightning Fabric's no_backward_sync): every rank keeps the unsharded gradients until the step",
        "累积中的微批次跳过 reduce-scatter（FSDP no_sync，Lightning Fabric 的 no_backward_sync）：每张卡保留未切分的梯度直到优化器步",
    ),
    (
        "offload",
        "what ZeRO-Offload moves to CPU memory",
        "ZeRO-Offload 移到 CPU 内存的内容",
    ),
    ("gpu", "the GPU model", "GPU 型号"),
    (
        "unit",
        "GiB (2^30 bytes) or GB (10^9 bytes)",
        "GiB（2^30 字节）或 GB（10^9 字节）",
    ),
    (
        "switch-mw",
        "fp32 master weights (for LoRA: fp32 adapters)",
        "fp32 主权重（LoRA：fp32 适配器）",
    ),
    (
        "switch-ld",
        "dropout on the adapters' input (each adapter keeps a copy and a mask)",
        "适配器输入上的 dropout（每个适配器保存一份输入副本和掩码）",
    ),
    (
        "switch-mts",
        "modules_to_save: train full copies of the embeddings and the head",
        "modules_to_save：训练嵌入层和输出头的完整副本",
    ),
    (
        "switch-dora",
        "DoRA: a magnitude per output; base and adapter outputs kept for it",
        "DoRA：每个输出一个幅度参数，并保留基座和适配器的输出",
    ),
    (
        "switch-obw",
        "step each parameter as its gradient arrives (no gradient buffer)",
        "梯度一产生就更新对应参数（没有梯度缓冲区）",
    ),
    (
        "switch-ao",
        "saved activations wait in CPU memory (two layers stay on the GPU)",
        "保存的激活值放在 CPU 内存（GPU 上只留两层）",
    ),
    (
        "switch-qh",
        "the output head is quantized with the layers (litgpt / Lightning)",
        "输出头与各层一起量化（litgpt / Lightning）",
    ),
    (
        "switch-a16",
        "only the MLP is quantized; attention projections stay 16-bit",
        "只量化 MLP，注意力投影保持 16 位",
    ),
    (
        "switch-ks",
        "inference cache allocated for --max-model-len tokens up front",
        "推理缓存预先按 --max-model-len 个 token 分配",
    ),
    (
        "switch-kvh",
        "the cache keeps every attention head (GQA expanded), not the KV heads",
        "缓存保存全部注意力头（GQA 展开），而不是 KV 头",
    ),
    (
        "switch-po",
        "PagedAdamW / paged_adamw_8bit: states of large tensors in CUDA unified memory, unseen by torch's allocator, paged to CPU memory under pressure",
        "PagedAdamW / paged_adamw_8bit：大张量的状态放在 CUDA 统一内存，PyTorch 分配器看不到，显存紧张时换出到 CPU 内存",
    ),
    (
        "lora-targets",
        "q,k,v,o,gate,up,down,embed,head or all",
        "q,k,v,o,gate,up,down,embed,head 或 all",
    ),
    (
        "batch",
        "micro-batch per GPU (concurrent sequences for inference)",
        "每卡 micro-batch（推理时为并发序列数）",
    ),
    (
        "seq",
        "tokens per sequence (the prompt for inference; for an encoder–decoder model, the source its encoder reads)",
        "每条序列的 token 数（推理时为提示词长度；编码器–解码器模型则为编码器读入的源序列）",
    ),
    (
        "gen",
        "generated tokens (inference)",
        "生成的 token 数（推理）",
    ),
    (
        "target-len",
        "encoder–decoder training: tokens the decoder reads and predicts per sequence; the sequence length is then the source the encoder reads (Whisper: always its 1,500 positions)",
        "编码器–解码器训练：每条序列中解码器读入并预测的 token 数；此时序列长度是编码器读入的源序列（Whisper：固定为 1,500 个位置）",
    ),
    (
        "grad-accum",
        "gradient accumulation steps (does not multiply gradient memory)",
        "梯度累积步数（不会使梯度显存成倍增加）",
    ),
    (
        "global-batch",
        "target global batch: the solver finds the accumulation that reaches it",
        "目标全局批大小：求解器给出达到它所需的梯度累积步数",
    ),
    ("lora-rank", "LoRA rank", "LoRA 秩"),
    ("gpus", "GPUs the job runs on", "任务使用的 GPU 数量"),
    (
        "tp",
        "tensor-parallel degree (divides the GPUs)",
        "张量并行度（须整除 GPU 数）",
    ),
    (
        "switch-sqp",
        "sequence parallelism beside tensor parallelism (Megatron --sequence-parallel): the norms and the layer inputs a checkpoint keeps are split over the tensor-parallel GPUs too",
        "与张量并行配合的序列并行（Megatron --sequence-parallel）：归一化层和检查点保留的层输入也按张量并行卡切分",
    ),
    (
        "pp",
        "pipeline stages: the layers split over GPUs in sequence, the embeddings on the first, the head and the loss on the last (inference: accelerate's device_map; serving: --pipeline-parallel-size, every stage's KV cache as many blocks as the tightest stage holds); the figure is the busiest GPU",
        "流水线级数：各层按顺序分到多张卡上，第一级放嵌入层，最后一级放输出头和损失（推理：accelerate 的 device_map；服务：--pipeline-parallel-size，每一级的 KV 缓存块数取最紧张那一级能容纳的块数）；显示的是最忙的那张卡",
    ),
    (
        "virtual-stages",
        "virtual pipeline stages: each GPU holds this many chunks of layers, GPU i the chunks i, i + p, …",
        "虚拟流水线级：每张卡持有这么多个层分块，第 i 张卡持有第 i、i + p、… 个分块",
    ),
    (
        "pipeline-schedule",
        "1F1B: stage i of p keeps up to p − i + 1 micro-batches of activations; GPipe: every micro-batch of the step; interleaved 1F1B: several model chunks per GPU (the micro-batches are the accumulation steps)",
        "1F1B：p 级中的第 i 级最多保留 p − i + 1 个微批次的激活；GPipe：保留一步中的所有微批次；交错 1F1B：每张卡持有多个模型分块（微批次即梯度累积步数）",
    ),
    (
        "gpu-util",
        "vLLM gpu_memory_utilization, in percent",
        "vLLM 的 gpu_memory_utilization（百分比）",
    ),
    (
        "block-size",
        "vLLM KV block size in tokens",
        "vLLM KV 块大小（token）",
    ),
    (
        "max-model-len",
        "vLLM max_model_len (and the static cache's length)",
        "vLLM 的 max_model_len（也是静态缓存的长度）",
    ),
    (
        "avg-tokens",
        "average tokens of a served request (prompt + output)",
        "服务请求的平均 token 数（提示词 + 输出）",
    ),
    (
        "concurrency",
        "concurrent requests to plan for (serving)",
        "需要支持的并发请求数（服务）",
    ),
    (
        "batched-tokens",
        "vLLM max_num_batched_tokens: tokens of one profiled batch",
        "vLLM 的 max_num_batched_tokens：一次预估批次的 token 数",
    ),
    (
        "max-num-seqs",
        "vLLM max_num_seqs: sequences of one batch; the start-up profile samples one token for each (256; V1 on 80 GB GPUs: 1024)",
        "vLLM 的 max_num_seqs：一个批次的序列数；启动预估为每条序列采样一个 token（默认 256；V1 在 80 GB 显卡上为 1024）",
    ),
    (
        "vllm-version",
        "v0: the KV budget deducts the CUDA context; v1: it is measured after the context exists and does not; v1g (0.21 and later): as v1, and the CUDA graphs come out of the budget too",
        "v0：KV 预算扣除 CUDA 上下文；v1：在上下文建立之后测量，不再扣除；v1g（0.21 及以后）：同 v1，并且 CUDA 图也从预算中扣除",
    ),
    (
        "server",
        "whose start-up arithmetic sizes the KV pool: vLLM (gpu_memory_utilization × the driver's total, less what it profiles) or SGLang (mem_fraction_static × what is free before loading holds the weights and the KV pool)",
        "由哪个引擎的启动算法确定 KV 池：vLLM（gpu_memory_utilization × 驱动报告的总显存，减去预估的占用）或 SGLang（加载前空闲显存 × mem_fraction_static 容纳权重与 KV 池）",
    ),
    (
        "mem-fraction-static",
        "SGLang --mem-fraction-static in thousandths (835 = 0.835); 0: SGLang's default for the GPU's memory and the tensor-parallel size (server_args.py)",
        "SGLang 的 --mem-fraction-static，以千分之一计（835 = 0.835）；0：按显卡显存和张量并行数取 SGLang 的默认值（server_args.py）",
    ),
    (
        "cuda-graphs",
        "on: vLLM captures decode graphs at start-up (memory per graph and layer); eager: --enforce-eager, none",
        "on：vLLM 启动时捕获解码用的 CUDA 图（按图和层计显存）；eager：--enforce-eager，不捕获",
    ),
    (
        "comm-mib",
        "memory outside PyTorch that NCCL and vLLM's custom all-reduce take on each GPU when tensor parallel; 0: from the interconnect (peer-to-peer 1833, vLLM PR #10511 on H100s; NVLink SHARP above 2 GPUs; none over PCIe without peer-to-peer)",
        "张量并行时 NCCL 与 vLLM 自定义 all-reduce 在每张卡上占用的 PyTorch 之外的显存；0：按互连推算（点对点 1833，vLLM PR #10511，H100；超过 2 张 GPU 时另加 NVLink SHARP；PCIe 无点对点时为 0）",
    ),
    (
        "speculative",
        "vLLM --speculative-config: n-gram adds nothing; an EAGLE head or MTP layer is one decoder layer with its KV; a draft model brings its weights and KV",
        "vLLM 的 --speculative-config：n-gram 不占显存；EAGLE 头或 MTP 层为一个解码层及其 KV；草稿模型带来自己的权重和 KV",
    ),
    (
        "spec-tokens",
        "tokens proposed per step; each decode step verifies 1 + this many tokens per request",
        "每步提议的 token 数；每个解码步骤为每个请求验证 1 + 该数量的 token",
    ),
    (
        "draft-model",
        "the draft model (a preset), loaded beside the target in 16-bit with its own KV cache",
        "草稿模型（预设之一），以 16 位与目标模型一同加载，并有自己的 KV Cache",
    ),
    (
        "context-mib",
        "CUDA context and workspaces, MiB",
        "CUDA 上下文与工作区（MiB）",
    ),
    (
        "reserve-pct",
        "allocator reserve, % of the tensor peak",
        "分配器预留，占张量峰值的百分比",
    ),
    (
        "local-ngl",
        "llama.cpp -ngl / Ollama num_gpu: layers on the GPUs, the output layer first (999: all)",
        "llama.cpp 的 -ngl / Ollama 的 num_gpu：放到 GPU 上的层数，输出层最先（999：全部）",
    ),
    (
        "local-ctx",
        "llama.cpp -c: context cells over all slots (0: the model's training context)",
        "llama.cpp 的 -c：所有槽共用的上下文长度（0：模型训练时的长度）",
    ),
    (
        "local-parallel",
        "llama.cpp -np / OLLAMA_NUM_PARALLEL: sequences served at once, each n_ctx / np cells",
        "llama.cpp 的 -np / OLLAMA_NUM_PARALLEL：同时处理的序列数，每个 n_ctx / np 个单元",
    ),
    (
        "local-batch",
        "llama.cpp -b: logical batch (tokens per decode call)",
        "llama.cpp 的 -b：逻辑批大小（每次调用的 token 数）",
    ),
    (
        "local-ubatch",
        "llama.cpp -ub: physical batch, which sizes the compute buffers",
        "llama.cpp 的 -ub：物理批大小，决定计算缓冲",
    ),
    (
        "local-ctk",
        "llama.cpp --cache-type-k (Ollama OLLAMA_KV_CACHE_TYPE)",
        "llama.cpp 的 --cache-type-k（Ollama 的 OLLAMA_KV_CACHE_TYPE）",
    ),
    (
        "local-ctv",
        "llama.cpp --cache-type-v; a quantized V cache needs flash attention",
        "llama.cpp 的 --cache-type-v；量化的 V 缓存需要 flash attention",
    ),
    (
        "local-fa",
        "llama.cpp -fa on|off (Ollama OLLAMA_FLASH_ATTENTION)",
        "llama.cpp 的 -fa on|off（Ollama 的 OLLAMA_FLASH_ATTENTION）",
    ),
    (
        "local-mmap",
        "host weights mapped from the file (page cache) rather than read into RAM",
        "主机上的权重由文件映射（页缓存），而不是读入内存",
    ),
    (
        "local-ncmoe",
        "llama.cpp --n-cpu-moe N: the experts of the first N layers stay in CPU RAM",
        "llama.cpp 的 --n-cpu-moe N：前 N 层的专家权重留在 CPU 内存",
    ),
    (
        "local-op-offload",
        "a GPU runs 32+ token micro-batches on host weights, copying one at a time into its compute buffer",
        "GPU 计算 32 个以上 token 的微批时逐个复制主机权重进计算缓冲区",
    ),
    (
        "local-kv-unified",
        "the slots share n_ctx cells; off, each has n_ctx / -np",
        "所有槽共享 n_ctx 个单元；关闭时每槽 n_ctx / -np 个",
    ),
    (
        "local-swa-full",
        "sliding-window layers cache the whole context, not their window",
        "滑动窗口层缓存整个上下文，而不只是窗口",
    ),
    (
        "local-machine",
        "GPUs beside CPU RAM, a Mac's unified memory, or the CPU alone",
        "GPU 加 CPU 内存、Mac 统一内存，或只用 CPU",
    ),
    (
        "local-mac",
        "Apple Silicon chip (bandwidth and memory options from Apple's specs)",
        "Apple Silicon 芯片（带宽和内存选项来自 Apple 规格）",
    ),
    (
        "local-mac-memory",
        "the Mac's unified memory; the GPU may wire 2/3 of it up to 36 GB, 3/4 above",
        "Mac 的统一内存；GPU 默认最多占用 36 GB 以下的 2/3，以上的 3/4",
    ),
    (
        "local-wired",
        "sudo sysctl iogpu.wired_limit_mb=N raises the GPU's working set (macOS 14+)",
        "sudo sysctl iogpu.wired_limit_mb=N 可调高 GPU 工作集（macOS 14 起）",
    ),
    (
        "local-ram",
        "the host's RAM, checked against what stays on the CPU",
        "主机内存，用来检查留在 CPU 上的部分",
    ),
    (
        "local-ram-bandwidth",
        "the host RAM's bandwidth for the decode-speed bound; 0 takes dual-channel DDR5-5600 (89.6 GB/s)",
        "解码速度上限所用的主机内存带宽；0 取双通道 DDR5-5600（89.6 GB/s）",
    ),
    (
        "local-split-mode",
        "layer: each GPU takes its share of the layers and their KV cache; none: all on the main GPU",
        "layer：每块 GPU 分得一部分层及其 KV 缓存；none：全部放在主 GPU",
    ),
    (
        "local-mmproj-offload",
        "llama.cpp loads an --mmproj projector on the first GPU, whatever -ngl; off keeps it in RAM",
        "llama.cpp 把 --mmproj 投影器放在第一块 GPU，与 -ngl 无关；关闭则留在内存",
    ),
    (
        "local-tensor-split",
        "each GPU's share of the layers, one number per GPU (3,1 or 0.75,0.25); even: the same share each",
        "每块 GPU 分得的层比例，每块 GPU 一个数（3,1 或 0.75,0.25）；even：平均分配",
    ),
];

/// The row of `table` for setting `id`.
fn find(
    table: &'static [(&'static str, &'static str, &'static str)],
    id: &str,
) -> Option<&'static (&'static str, &'static str, &'static str)> {
    table.iter().find(|w| w.0 == id)
}

/// The label of the setting with page id `id` ("?" for an id the table lacks: a test catches it).
pub fn setting_label(lang: Lang, id: &str) -> &'static str {
    find(LABELS, id).map_or("?", |w| lang.pick(w.1, w.2))
}

/// One line of help for the setting with page id `id`.
pub fn setting_help(lang: Lang, id: &str) -> &'static str {
    find(HELP, id).map_or("?", |w| lang.pick(w.1, w.2))
}

/// A name an error gives a value: a setting's link key becomes its label; a config.json field
/// keeps its name, except the few the engine names itself.
pub fn setting_name(lang: Lang, name: &str) -> String {
    if let Some(st) = Setting::by_key(name) {
        return setting_label(lang, st.id).to_string();
    }
    let own = match name {
        "p" => Some(("parameter count", "参数量")),
        "norms_per_layer" => Some(("norms per layer", "每层归一化层数")),
        "position_embeddings" => Some(("position embeddings", "位置嵌入")),
        "extra_params" => Some((
            "parameters outside the language model",
            "语言模型之外的参数",
        )),
        _ => None,
    };
    match own {
        Some((en, zh)) => lang.pick(en, zh).to_string(),
        None => crate::shown(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::SETTINGS;

    #[test]
    fn every_setting_has_a_label_and_help_in_both_languages() {
        for st in SETTINGS {
            for lang in [Lang::En, Lang::Zh] {
                assert_ne!(setting_label(lang, st.id), "?", "{}", st.id);
                assert_ne!(setting_help(lang, st.id), "?", "{}", st.id);
            }
        }
        assert_eq!(
            LABELS.len(),
            SETTINGS.len(),
            "a label for a setting that is gone"
        );
        assert_eq!(
            HELP.len(),
            SETTINGS.len(),
            "help for a setting that is gone"
        );
    }
}
