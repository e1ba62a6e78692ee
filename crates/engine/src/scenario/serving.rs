//! What a server is asked to run with: the engine and its version, CUDA graphs, speculative
//! decoding.

use crate::named::named_enum;

named_enum! {
    /// The serving engine, whose start-up arithmetic sizes the KV pool.
    pub enum Server {
        /// vLLM: `gpu_memory_utilization` × the driver's total, less everything it profiles.
        Vllm => ("vllm", "vLLM"),
        /// SGLang: `mem_fraction_static` of the memory free before loading holds the weights and
        /// the KV pool; activations and graphs live in the rest.
        Sglang => ("sglang", "SGLang"),
    }
}

named_enum! {
    /// Whether the server captures CUDA graphs for decoding (vLLM's default) or runs eagerly.
    pub enum CudaGraphs {
        /// vLLM's default: graphs for a list of batch sizes, captured at start-up.
        Captured => ("on", "captured (default)"),
        /// `--enforce-eager`: no graphs, no graph memory.
        Eager => ("eager", "off (--enforce-eager)"),
    }
}

named_enum! {
    /// Speculative decoding, as far as the method changes memory (vLLM `SpeculativeConfig`).
    pub enum SpecMethod {
        Off => ("off", "off"),
        /// Prompt-lookup n-grams: no weights, no KV; only the decode batches grow.
        Ngram => ("ngram", "n-gram (prompt lookup)"),
        /// An EAGLE head: one decoder layer and a fusing projection beside the target.
        Eagle => ("eagle", "EAGLE head"),
        /// The model's own multi-token-prediction layer (DeepSeek, Qwen3-Next, GLM).
        Mtp => ("mtp", "MTP layer"),
        /// A separate small draft model with its own weights and KV cache.
        Draft => ("draft", "draft model"),
    }
}

named_enum! {
    /// The vLLM engine whose start-up profile sizes the KV pool.
    pub enum VllmVersion {
        /// vLLM V0 (`vllm/worker/worker.py` `determine_num_available_blocks`): the non-torch memory
        /// (CUDA context, NCCL, cuBLAS) is measured and deducted; CUDA graphs are captured after
        /// the KV cache is sized, out of the remaining `1 - gpu_memory_utilization`.
        V0 => ("v0", "V0 (up to 0.10)"),
        /// vLLM V1 (`vllm/v1/worker/gpu_worker.py` `determine_available_memory`): the budget is
        /// gpu_memory_utilization × the total the driver reports, and what existed before the
        /// worker's first snapshot (the CUDA context) is not deducted again.
        V1 => ("v1", "V1 (0.8 to 0.20)"),
        /// vLLM V1 from 0.21 (`gpu_worker.py` `determine_available_memory`,
        /// `profile_cudagraph_memory`, on by default since v0.21.0): as V1, and the CUDA graphs'
        /// estimated memory is deducted from the KV budget before the pool is sized.
        V1Graphs => ("v1g", "V1 (0.21 and later)"),
    }
}

impl VllmVersion {
    /// Whether the engine measures from a snapshot taken after the CUDA context exists.
    pub fn is_v1(self) -> bool {
        self != VllmVersion::V0
    }

    /// Whether the KV budget makes room for the CUDA graphs (else they are captured after the
    /// pool is sized, out of what `gpu_memory_utilization` leaves).
    pub fn budgets_graphs(self) -> bool {
        self == VllmVersion::V1Graphs
    }
}
