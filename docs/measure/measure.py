#!/usr/bin/env python3
"""Measures the tensor memory of one LLM training step or one generation with PyTorch.

A causal LM is built from a transformers config.json with random weights (nothing is downloaded),
then one training step (full fine-tune or LoRA through PEFT) or one generation runs while a
counter watches every tensor storage that comes out of an operator. A storage is counted once,
however many views share it, from the moment it appears until its last reference dies: the figure
the CUDA caching allocator reports as `allocated` (torch.cuda.memory_allocated), without its
rounding. The largest total is the peak; the live storages at that moment are split into

    param      parameters and buffers
    grad       the .grad of parameters
    optimizer  the optimizer's state (AdamW's two moments and step counters, SGD's momentum)
    other      everything else: activations kept for backward, logits, the KV cache, temporaries

and printed as one JSON object (sizes in bytes):

    {"args": {...}, "params": N, "trainable_params": N, ["kv_cache_bytes_final": N,]
     "peak_bytes_total": N, "breakdown_near_peak": {"param": N, "grad": N, "optimizer": N, "other": N},
     ["cuda": {...}]}

The breakdown is taken at the peak itself, so its four parts add up to peak_bytes_total.

On the CPU (the default) the same tensors are made as on a GPU, so the figures are the GPU's
`allocated` bytes of the same step; what a CPU run cannot show is the CUDA context, the caching
allocator's rounding and reserved-but-free blocks, cuBLAS/cuDNN workspaces, and kernels that pick
other algorithms on a GPU (see README.md beside this file). With --device cuda the same counter runs
on the GPU and the result also holds PyTorch's own max_memory_allocated / max_memory_reserved.

Training runs --steps steps (default 2) and reports the last, so the optimizer state already
exists, as in any step after the first. Inference generates exactly --new-tokens tokens after a
prompt of --seq tokens, greedily, with the model's dynamic KV cache.

Set up once, from the repository root (pinned versions; `make measure` does it and runs them all):
    python3 -m venv .venv-measure && .venv-measure/bin/pip install -r docs/measure/requirements.txt

Examples, from the repository root:
    .venv-measure/bin/python docs/measure/measure.py --config docs/measure/llama-4l-512.json \\
        --mode full --batch 2 --seq 256
    .venv-measure/bin/python docs/measure/measure.py --config docs/measure/llama-4l-512.json \\
        --mode lora --lora-r 16 --lora-targets q_proj,k_proj,v_proj,o_proj --grad-ckpt
    .venv-measure/bin/python docs/measure/measure.py --config docs/measure/llama-4l-512.json \\
        --mode full --optimizer sgd-momentum --dtype fp32 --attn eager
    .venv-measure/bin/python docs/measure/measure.py --config docs/measure/llama-4l-512.json \\
        --mode infer --batch 2 --seq 128 --new-tokens 64
    .venv-measure/bin/python docs/measure/measure.py --config docs/measure/llama-4l-512.json \\
        --mode full --device cuda

Keep models small (hundreds of MB): every byte is really allocated, in RAM on the CPU.
"""
import argparse
import gc
import json
import sys
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
CATEGORIES = ("param", "grad", "optimizer", "other")


# ---------------------------------------------------------------------------------------------
# Command line


def build_parser():
    """The command line; docs/measure/switches.py adds its own options to it."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", required=True, help="a transformers config.json (a causal LM)")
    p.add_argument("--mode", choices=["full", "lora", "infer"], default="full",
                   help="full fine-tune, LoRA (PEFT) or generation")
    p.add_argument("--dtype", choices=list(DTYPES), default="bf16",
                   help="dtype of the weights and of the compute (no mixed precision)")
    p.add_argument("--batch", type=int, default=1, help="sequences per step")
    p.add_argument("--seq", type=int, default=256, help="tokens per sequence (the prompt for infer)")
    p.add_argument("--new-tokens", type=int, default=32, help="tokens to generate (infer)")
    p.add_argument("--optimizer", choices=["adamw", "sgd", "sgd-momentum"], default="adamw")
    p.add_argument("--foreach", choices=["auto", "on", "off"], default="auto",
                   help="the optimizer's multi-tensor (foreach) path: auto is PyTorch's own choice, the "
                        "per-tensor loop on the CPU and foreach on CUDA; 'on' makes a CPU run hold the "
                        "step's temporaries for all parameters at once, as CUDA does")
    p.add_argument("--grad-ckpt", action="store_true",
                   help="gradient checkpointing on every decoder layer (non-reentrant)")
    p.add_argument("--attn", choices=["sdpa", "eager"], default="sdpa", help="attention implementation")
    p.add_argument("--lora-r", type=int, default=8, help="LoRA rank (alpha is twice the rank, no dropout)")
    p.add_argument("--lora-targets", default="q_proj,v_proj", help="comma-separated module names for LoRA")
    p.add_argument("--steps", type=int, default=2, help="training steps; the last one is measured")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    return p


def parse_args(argv=None):
    return build_parser().parse_args(argv)


# ---------------------------------------------------------------------------------------------
# The counter


def _storage(t):
    """The untyped storage behind a dense tensor, or None for what holds no bytes of its own
    (meta, sparse and wrapper tensors)."""
    if not isinstance(t, torch.Tensor) or t.device.type == "meta" or t.layout != torch.strided:
        return None
    try:
        return t.untyped_storage()
    except (RuntimeError, NotImplementedError):
        return None


class LiveStorageCounter(TorchDispatchMode):
    """Counts the bytes of every live tensor storage, each once, and keeps the largest total with
    its breakdown by category at that moment.

    Inside `with counter:` every operator's outputs are looked at; a storage not seen before joins
    the count and a weakref finalizer takes it out when it dies. PyTorch keeps one Python object per
    storage for as long as the storage lives (views share it), so the object's identity names the
    storage, and its finalizer runs exactly when the storage is freed. A storage that an operator
    resizes in place is counted at its new size. Storages made before the counter starts (weights,
    optimizer state, inputs) are added with `track`.

    `categorize()` returns {id(storage): category} for the storages that are not "other"; it is asked
    at every new peak, so the breakdown is the one at the peak itself.
    """

    def __init__(self, categorize):
        super().__init__()
        self.categorize = categorize
        self.live = {}  # id(storage) -> bytes
        self.current = 0
        self.peak = 0
        self.peak_breakdown = dict.fromkeys(CATEGORIES, 0)

    def track(self, t):
        st = _storage(t)
        if st is None:
            return
        key, n = id(st), st.nbytes()
        old = self.live.get(key)
        if old is None:
            if n == 0:
                return
            self.live[key] = n
            weakref.finalize(st, self._forget, key)
        elif old != n:  # resized in place
            self.live[key] = n
        else:
            return
        self.current += n - (old or 0)
        if self.current > self.peak:
            self._new_peak()

    def _forget(self, key):
        # may run on another thread (CUDA backward) or inside track(); each step stays consistent
        self.current -= self.live.pop(key, 0)

    def _new_peak(self):
        self.peak = self.current
        owners = self.categorize()
        out = dict.fromkeys(CATEGORIES, 0)
        for key, n in list(self.live.items()):
            out[owners.get(key, "other")] += n
        self.peak_breakdown = out

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            self.track(t)
        return out


def _ids(tensors):
    return {id(st) for st in map(_storage, tensors) if st is not None}


def categorizer(model, optimizer=None):
    """A `categorize` for LiveStorageCounter: parameters and buffers (fixed for the run), the
    gradients present now, and the optimizer's state (looked up on each call, since an optimizer
    makes its state lazily)."""
    params = _ids(list(model.parameters()) + list(model.buffers()))
    trainable = [p for p in model.parameters() if p.requires_grad]

    def categorize():
        owners = {}
        if optimizer is not None:
            for state in list(optimizer.state.values()):
                for key in _ids(v for v in state.values() if isinstance(v, torch.Tensor)):
                    owners[key] = "optimizer"
        for key in _ids(p.grad for p in trainable if p.grad is not None):
            owners[key] = "grad"
        for key in params:
            owners[key] = "param"
        return owners

    return categorize


def start_counter(model, optimizer=None, inputs=()):
    """A counter that already holds everything alive before the measured work: parameters,
    buffers, existing gradients and optimizer state, and the inputs."""
    gc.collect()
    counter = LiveStorageCounter(categorizer(model, optimizer))
    tensors = list(model.parameters()) + list(model.buffers()) + list(inputs)
    tensors += [p.grad for p in model.parameters() if p.grad is not None]
    if optimizer is not None:
        for state in optimizer.state.values():
            tensors += [v for v in state.values() if isinstance(v, torch.Tensor)]
    for t in tensors:
        counter.track(t)
    return counter


# ---------------------------------------------------------------------------------------------
# Model, optimizer, the measured work


def build_model(args, **lora_options):
    """(config, model) for the run: random weights in args.dtype on args.device, LoRA adapters
    for --mode lora (extra LoraConfig fields in lora_options, e.g. use_dora=True), gradient
    checkpointing for --grad-ckpt."""
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = AutoConfig.from_pretrained(args.config)
    cfg._attn_implementation = args.attn
    torch.manual_seed(0)
    with torch.device(args.device):
        model = AutoModelForCausalLM.from_config(cfg, dtype=DTYPES[args.dtype])
    model.config.use_cache = args.mode == "infer"
    if args.mode == "lora":
        from peft import LoraConfig, get_peft_model

        lora = LoraConfig(r=args.lora_r, lora_alpha=2 * args.lora_r, lora_dropout=0.0,
                          target_modules=args.lora_targets.split(","), task_type="CAUSAL_LM", **lora_options)
        model = get_peft_model(model, lora)
    if args.grad_ckpt and args.mode != "infer":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if args.mode == "lora":
            # the frozen embedding's output needs a grad for checkpointed layers to backpropagate
            model.enable_input_require_grads()
    return cfg, model


def make_optimizer(args, params):
    foreach = {"auto": None, "on": True, "off": False}[getattr(args, "foreach", "auto")]
    if args.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=1e-4, foreach=foreach)
    momentum = 0.9 if args.optimizer == "sgd-momentum" else 0.0
    return torch.optim.SGD(params, lr=1e-4, momentum=momentum, foreach=foreach)


def input_ids(args, cfg):
    return torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device=args.device)


def standard_step(model, optimizer, ids):
    """Forward with the model's own loss, backward, optimizer step, gradients freed."""
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def measure_training(args, cfg, model, optimizer=None, step=standard_step):
    """Runs args.steps training steps and returns the counter of the last. `optimizer` defaults to
    make_optimizer over the trainable parameters; `step(model, optimizer, ids)` does one step."""
    model.train()
    if optimizer is None:
        optimizer = make_optimizer(args, [p for p in model.parameters() if p.requires_grad])
    ids = input_ids(args, cfg)
    for _ in range(args.steps - 1):
        step(model, optimizer, ids)
    counter = start_counter(model, optimizer, [ids])
    reset_cuda_peak(args)
    with counter:
        step(model, optimizer, ids)
    return counter


def measure_generation(args, cfg, model, make_cache=None):
    """Generates exactly args.new_tokens tokens greedily after an args.seq-token prompt and returns
    (counter, bytes of the KV cache at the end). `make_cache()`, called inside the count, may supply
    the cache object (e.g. a StaticCache); by default generate makes its dynamic cache."""
    model.eval()
    ids = input_ids(args, cfg)
    mask = torch.ones_like(ids)
    counter = start_counter(model, None, [ids, mask])
    reset_cuda_peak(args)
    with counter, torch.no_grad():
        extra = {"past_key_values": make_cache()} if make_cache else {}
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=args.new_tokens,
                             min_new_tokens=args.new_tokens, do_sample=False, use_cache=True,
                             return_dict_in_generate=True, **extra)
        kv = sum(t.numel() * t.element_size() for t in cache_tensors(out.past_key_values))
    return counter, kv


def cache_tensors(cache):
    """The key and value tensors of a transformers cache object (or of nested tuples of tensors)."""
    if isinstance(cache, torch.Tensor):
        yield cache
    elif isinstance(cache, (list, tuple)):
        for c in cache:
            yield from cache_tensors(c)
    elif hasattr(cache, "layers"):  # Cache made of per-layer objects (transformers >= 4.56)
        for layer in cache.layers:
            for name in ("keys", "values"):
                t = getattr(layer, name, None)
                if isinstance(t, torch.Tensor):
                    yield t
    elif hasattr(cache, "key_cache"):  # older Cache classes
        yield from cache_tensors(list(cache.key_cache) + list(cache.value_cache))


def reset_cuda_peak(args):
    if args.device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def cuda_stats():
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    return {"max_memory_allocated": torch.cuda.max_memory_allocated(),
            "max_memory_reserved": torch.cuda.max_memory_reserved(),
            "device_used_now": total - free, "device_total": total,
            "name": torch.cuda.get_device_name()}


# ---------------------------------------------------------------------------------------------
# Report


def report(args, model, counter, **extra):
    """The JSON object a run prints: its arguments, parameter counts, `extra` fields, the peak and
    its breakdown, and on CUDA PyTorch's own allocator figures."""
    result = {"args": vars(args), "params": sum(p.numel() for p in model.parameters()),
              "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad)}
    result.update(extra)
    result["peak_bytes_total"] = counter.peak
    result["breakdown_near_peak"] = dict(counter.peak_breakdown)
    if args.device == "cuda":
        result["cuda"] = cuda_stats()
    return result


def emit(result):
    json.dump(result, sys.stdout, indent=2)
    print()


def main():
    args = parse_args()
    cfg, model = build_model(args)
    if args.mode == "infer":
        counter, kv = measure_generation(args, cfg, model)
        emit(report(args, model, counter, kv_cache_bytes_final=kv))
    else:
        emit(report(args, model, measure_training(args, cfg, model)))


if __name__ == "__main__":
    main()
