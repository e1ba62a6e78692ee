//! Formulas as data: each line of a budget says how its bytes come about as a list of clauses,
//! each a message id and the numbers it shows. The engine writes no words: the shells hold the
//! sentences (in English and Chinese) and write the numbers in the scenario's unit.

use crate::dtype::WeightFormat;
use crate::job::LoraTargets;

/// A formula: clauses written one after another.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Formula {
    pub clauses: Vec<Clause>,
}

/// One clause of a formula: which sentence, and the values that fill its placeholders in order
/// (`{0}`, `{1}`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    pub msg: Msg,
    pub args: Vec<Arg>,
}

/// A value in a formula; the shell decides how it looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A count, written with thousands separators (6,738,415,616).
    Count(u64),
    /// A small integer written as is: bytes per element, GPUs, a setting's value.
    Int(u64),
    /// Bytes, written in the scenario's unit (14.96 GiB).
    Bytes(u64),
    /// Bits per weight of a format, written with three decimals.
    Bits(f64),
    /// A weight format, written by its key.
    Format(WeightFormat),
    /// LoRA target modules, written by their keys.
    Targets(LoraTargets),
}

impl Formula {
    pub fn new() -> Formula {
        Formula::default()
    }

    /// Whether the formula says nothing (the solvers skip formulas).
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty()
    }

    /// Appends a clause.
    pub fn push(&mut self, msg: Msg, args: &[Arg]) {
        self.clauses.push(Clause {
            msg,
            args: args.to_vec(),
        });
    }

    /// The formula with a clause appended.
    pub fn and(mut self, msg: Msg, args: &[Arg]) -> Formula {
        self.push(msg, args);
        self
    }

    /// The formula ending in its result: ` = bytes`.
    pub fn equals(self, bytes: u64) -> Formula {
        self.and(Msg::Equals, &[Arg::Bytes(bytes)])
    }

    /// A formula of one clause.
    pub fn of(msg: Msg, args: &[Arg]) -> Formula {
        Formula::new().and(msg, args)
    }

    /// Every value the formula shows, in order.
    pub fn args(&self) -> impl Iterator<Item = &Arg> {
        self.clauses.iter().flat_map(|c| c.args.iter())
    }
}

/// Declares the message ids with `ALL`, so the shells can check they have a sentence for each.
macro_rules! messages {
    ($($(#[$meta:meta])* $id:ident),+ $(,)?) => {
        /// A sentence or clause of a formula; the shells hold its words. The comment after each
        /// id gives its arguments in order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Msg { $($(#[$meta])* $id),+ }

        impl Msg {
            /// Every message id.
            pub const ALL: &'static [Msg] = &[$(Msg::$id),+];
        }
    };
}

messages! {
    /// bytes
    Equals,
    /// tensor-parallel ranks
    TensorParallel,
    /// routed-expert parameters, expert-parallel ranks
    ExpertParallel,
    /// data-parallel GPUs, ZeRO stage
    ZeroShards,
    /// GPUs of a shard
    FsdpFullShard,
    /// GPUs of a shard
    FsdpShardGradOp,
    /// GPUs of a shard group, replica groups
    FsdpHybridShard,
    /// params of the embeddings and head, bits
    FsdpRootUnit,
    /// trainable params of one unit, bytes per gradient
    FsdpReduceScatter,
    /// stage (from 1), stages
    FsdpStageGathered,
    /// trainable, bytes per gradient
    FsdpUnshardedGradients,
    /// params of the layers (frozen weights with their adapters)
    FsdpWholeUnitGradients,
    /// trainable, bytes per gradient
    DdpBuckets,
    /// bucket elements, bytes per element
    DeepSpeedReduceBucket,
    /// params of the largest layer, prefetch bucket, max live, bits
    DeepSpeedLiveParams,
    /// bytes of the full weights, bytes that persist
    LoadedWholeOnEveryRank,
    /// params of the largest layer, bits
    LoadedUnitByUnit,
    /// bytes
    OffloadedToCpu,
    /// stage (from 1), stages, decoder layers on the stage
    PipelineStage,
    /// (no arguments)
    StageEmbeddings,
    /// (no arguments)
    StageHead,
    /// (no arguments)
    StageHeadCopy,
    /// micro-batches in flight, stage (from 1), stages
    InFlight1F1B,
    /// micro-batches in flight, stage (from 1), stages
    InFlightGPipe,
    /// chunk-micro-batches in flight, stage (from 1), stages, chunks per GPU
    InFlightInterleaved,
    /// params, bytes per param, format
    WeightsPlain,
    /// The checkpoint's files, read tensor by tensor: {0} bytes in {1}.
    WeightsFromFiles,
    /// linear, bits, embedding and head, their bits, norms and biases, their bytes
    WeightsQuantized,
    /// linear, head, bits, embeddings, their bits, norms and biases, their bytes
    WeightsHeadQuantized,
    /// linear, head, bits, embeddings, their bits, norms and biases, their bytes
    WeightsTiedHeadQuantized,
    /// attention params, bits of the others
    WeightsAttention16,
    /// per part (embeddings, attention, MLP / experts, head, norms and biases): params, bits
    WeightsByPart,
    /// data-parallel GPUs
    WeightsZero3,
    /// bytes
    WeightsOnCpu,
    /// GiB asked for, bytes kept in CPU memory
    WeightsStreamedFromCpu,
    /// params of the largest layer, bits
    WeightsGathered,
    /// params of the largest matrix
    QuantizingOnLoad,
    /// params, bytes per param
    SavedCopies,
    /// trainable, rank, targets, bytes per param
    LoraAdapters,
    /// trainable
    MasterFp32Weights,
    /// trainable
    MasterWeights,
    /// (no arguments) the prefix of the embedding and head copies' lines
    SavedCopiesGroup,
    /// largest params, bytes per gradient
    GradientsInBackward,
    /// bytes, trainable, bytes per gradient
    NotTheWholeBuffer,
    /// trainable, bytes per gradient
    Gradients,
    /// bytes
    GradientsStreamedToCpu,
    /// micro-batches
    GradientsAccumulated,
    /// (no arguments)
    GradientsFreedAfterStep,
    /// trainable, bytes per state
    AdamStates,
    /// trainable
    Adam8bitStates,
    /// trainable, bytes per state
    MomentumStates,
    /// (no arguments)
    SgdStates,
    /// values
    AdafactorStates,
    /// (no arguments)
    PagedStates,
    /// (no arguments)
    UnpagedStates,
    /// params, bytes per state
    StepTemporary,
    /// params, bytes per state
    StepTemporaryInBackward,
    /// tokens, layers on the GPU
    ActivationsTokensLayers,
    /// bytes per token and layer
    KeptAll,
    /// bytes per token and layer
    KeptSelective,
    /// bytes per token and layer
    KeptSelectiveScores,
    /// bytes per token and layer, tokens, bytes per token of one layer
    KeptLayerInputs,
    /// bytes per token and layer, tokens, bytes per token of one layer
    KeptOpOutputs,
    /// tensor-parallel ranks
    SequenceParallel,
    /// bytes per token
    FinalNorm,
    /// bytes per token
    EagerScores,
    /// layers, bytes
    ActivationsOffloaded,
    /// params of the largest adapted matrix, bytes per element
    DoraNorm,
    /// bytes per element
    DoraDequantized,
    /// params of the largest 4-bit matrix
    DequantizedFp32,
    /// params kept 16-bit in single layers, bits of the others
    WeightsKept16,
    /// evaluation sequences, tokens each
    EvalForward,
    /// tokens, vocab per rank, bytes per token and vocabulary entry
    EvalLogits,
    /// params upcast
    KbitUpcast,
    /// tokens, vocab per rank
    LossFull,
    /// tokens, vocab per rank, bytes per element
    LossFull16,
    /// tokens, vocab per rank, chunk tokens
    LossChunked,
    /// tokens, vocab per rank, bytes per element, chunk tokens
    LossChunkedCompiled,
    /// tokens, hidden, bytes per element, chunk tokens, vocab per rank
    LossFused,
    /// tokens, hidden, bytes per element, chunks, chunk tokens, vocab per rank
    LossUnsloth,
    /// (no arguments)
    LossNoHead,
    /// head params, tokens, hidden, bytes per element
    HeadDequantized,
    /// batched tokens
    ServingForward,
    /// sequences, vocab, bytes per element
    ServingLogits,
    /// requests, tokens, block size, bytes per token
    ServingKv,
    /// shared prefix tokens
    SharedPrefix,
    /// LoRA slots, params per slot, max LoRA rank, bytes per element
    LoraSlots,
    /// mixed-batch graphs, decode graphs, layers, KiB per graph and layer
    CudaGraphs,
    /// (no arguments)
    GraphsOutsideBudget,
    /// MiB, tensor-parallel ranks
    CommBuffers,
    /// MiB (peer-to-peer transport and custom all-reduce, measured)
    CommPeerToPeer,
    /// NVLS channels, MiB of buffer, MiB of credits, tensor-parallel ranks
    CommNvls,
    /// (no arguments)
    CommThroughHost,
    /// proposer params, bits per param
    ProposerWeights,
    /// pooled tokens, proposer bytes per token
    ProposerKv,
    /// params of the largest matrix
    PrefillDequantized,
    /// tokens
    PrefillActivations,
    /// (no arguments)
    PrefillEagerScores,
    /// sequences, vocab, bytes per element
    GenerationLogits,
    /// sequences, tokens, bytes per token
    StaticKv,
    /// sequences, tokens, bytes per token
    StaticKvPastMaxLength,
    /// attention heads, KV heads
    AllHeadsCached,
    /// sequences, prompt tokens, bytes per token
    PromptKv,
    /// (no arguments)
    AtThePrefill,
    /// sequences, tokens, bytes per token
    GeneratedKv,
    /// sliding layers, layers, window
    SlidingLayers,
    /// sequences, recurrent layers, bytes per layer and sequence, convolution steps kept
    RecurrentState,
    /// the state's own bytes, before padding to the attention page
    StatePadded,
    /// sequences, source tokens, decoder layers, bytes per source token and layer
    CrossKv,
    /// source tokens (all sequences)
    EncoderForward,
    /// source tokens (all sequences), hidden, bytes per element
    EncoderOutput,
    /// the window's source positions
    FixedSource,
    /// source tokens (all sequences), encoder layers
    EncoderActivations,
    /// source tokens (all sequences), decoder layers, bytes per source token and layer
    CrossSource,
    /// target tokens (all sequences)
    CrossScores,
    /// MiB
    Context,
    /// (no arguments)
    ContextBeforeSnapshot,
    /// percent, bytes of live tensors
    Reserve,
}
