#!/usr/bin/env python3
"""Measures the engine's framework switches on the CPU, with measure.py's own counter.

measure.py (../shared/tools) runs plain transformers/PEFT training and generation. The engine also
models behaviours that need a different loop; this script reuses measure.py's LiveBytes counter,
classifier and model builder (imported, not copied) and adds them:

  --optimizer-in-backward   one AdamW per parameter, stepped from a post-accumulate-grad hook and
                            the gradient freed there (torchtune's optimizer_in_bwd)
  --modules-to-save M,...   PEFT modules_to_save (full trainable copies), e.g. embed_tokens,lm_head
  --dora                    PEFT use_dora (LoRA mode)
  --static-cache N          generation into a StaticCache allocated for N tokens up front
  --loss-check              bytes autograd saves for a chunked cross-entropy, eager and under
                            torch.compile (what the loss keeps alive until backward)

Prints one JSON object like measure.py's (sizes in bytes). Run from the repository root:
    .venv-measure/bin/python docs/measure/switches.py --config docs/measure/llama-4l-512.json \\
        --mode full --batch 2 --seq 256 --optimizer-in-backward
"""
import json
import os
import sys

MEASURE = os.environ.get("MEASURE", "/work/shared/tools/measure.py")
sys.path.insert(0, os.path.dirname(os.path.abspath(MEASURE)))
import measure  # noqa: E402  (the shared tool, imported)
import torch  # noqa: E402


def parse_args():
    extra = {"--optimizer-in-backward": False, "--modules-to-save": None, "--static-cache": None,
             "--loss-check": False, "--dora": False}
    argv, rest = sys.argv[1:], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--optimizer-in-backward", "--loss-check", "--dora"):
            extra[a] = True
        elif a in ("--modules-to-save", "--static-cache"):
            extra[a] = argv[i + 1]
            i += 1
        else:
            rest.append(a)
        i += 1
    sys.argv = [sys.argv[0]] + rest
    args = measure.parse_args()
    args.optimizer_in_backward = extra["--optimizer-in-backward"]
    args.modules_to_save = extra["--modules-to-save"]
    args.static_cache = int(extra["--static-cache"]) if extra["--static-cache"] else None
    args.loss_check = extra["--loss-check"]
    args.dora = extra["--dora"]
    return args


def build(args):
    if not args.modules_to_save and not args.dora:
        return measure.build_model(args)
    from peft import LoraConfig, get_peft_model
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = AutoConfig.from_pretrained(args.config)
    cfg._attn_implementation = args.attn
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg, dtype=measure.DTYPES[args.dtype])
    model.config.use_cache = False
    lcfg = LoraConfig(r=args.lora_r, lora_alpha=2 * args.lora_r, lora_dropout=0.0,
                      target_modules=args.lora_targets.split(","), task_type="CAUSAL_LM",
                      use_dora=args.dora,
                      modules_to_save=args.modules_to_save.split(",") if args.modules_to_save else None)
    model = get_peft_model(model, lcfg)
    if args.grad_ckpt:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.enable_input_require_grads()
    return cfg, model


class PerParameter:
    """One optimizer per parameter, looked like one optimizer by measure.py's classifier."""

    def __init__(self, args, params):
        self.by_param = {p: measure.make_optimizer(args, [p]) for p in params}

    @property
    def state(self):
        merged = {}
        for o in self.by_param.values():
            merged.update(o.state)
        return merged


def train_in_backward(args, cfg, model):
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = PerParameter(args, trainable)

    def hook(p):
        o = opt.by_param[p]
        o.step()
        o.zero_grad(set_to_none=True)

    for p in trainable:
        p.register_post_accumulate_grad_hook(hook)
    ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq))
    tracker = None
    for step in range(args.steps):
        last = step == args.steps - 1
        if last:
            tracker = measure.LiveBytes(measure.classifier(model, opt))
            for t in list(model.parameters()) + list(model.buffers()):
                tracker.add(t)
            for st in opt.state.values():
                for v in st.values():
                    tracker.add(v)
        with tracker if last else measure._nothing():
            model(input_ids=ids, labels=ids).loss.backward()
    return tracker


def generate_static(args, cfg, model):
    from transformers import StaticCache

    model.eval()
    ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq))
    tracker = measure.LiveBytes(measure.classifier(model, None))
    for t in list(model.parameters()) + list(model.buffers()):
        tracker.add(t)
    with tracker, torch.no_grad():
        cache = StaticCache(config=cfg, max_cache_len=args.static_cache)
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), past_key_values=cache,
                             max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens,
                             do_sample=False, return_dict_in_generate=True, use_cache=True)
        kv = sum(t.numel() * t.element_size() for t in measure._tensors(out.past_key_values))
    return tracker, kv


def loss_check(args, cfg):
    """A torchtune-style chunked loss (8 chunks, each upcast to fp32) over 16-bit logits: what
    autograd keeps for backward over all chunks, split into the logits themselves (which stay
    alive only if the loss saves them) and everything else."""
    tokens, vocab = args.batch * args.seq, cfg.vocab_size
    torch.manual_seed(0)
    labels = torch.randint(0, vocab, (tokens,))

    def ce(chunk, target):
        return torch.nn.functional.cross_entropy(chunk.float(), target, reduction="sum")

    compiled = torch.compile(ce, dynamic=False)
    result = {}
    for name, f in (("eager", ce), ("compiled", compiled)):
        logits = torch.randn(tokens, vocab, dtype=measure.DTYPES[args.dtype], requires_grad=True)
        f(logits[: tokens // 8], labels[: tokens // 8]).backward()  # compile outside the count
        base = logits.untyped_storage().data_ptr()
        seen, keeps_logits = {}, False

        def pack(t):
            nonlocal keeps_logits
            st = t.untyped_storage()
            if st.data_ptr() == base:
                keeps_logits = True
            else:
                seen[st.data_ptr()] = st.nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            losses = [f(c, t) for c, t in zip(logits.chunk(8), labels.chunk(8))]
        del losses
        result[name] = {"keeps_16bit_logits": keeps_logits, "other_saved_bytes": sum(seen.values())}
    result["logits_16bit_bytes"] = tokens * vocab * measure.DTYPES[args.dtype].itemsize
    return result


def main():
    args = parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    if args.loss_check:
        from transformers import AutoConfig

        cfg = AutoConfig.from_pretrained(args.config)
        result = {"args": vars(args), "saved_for_backward": loss_check(args, cfg)}
        json.dump(result, sys.stdout, indent=2)
        print()
        return
    cfg, model = build(args)
    result = {"args": vars(args), "params": sum(p.numel() for p in model.parameters()),
              "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad)}
    if args.mode == "infer":
        tracker, kv = generate_static(args, cfg, model) if args.static_cache else measure.measure_inference(args, cfg, model)
        result["kv_cache_bytes_final"] = kv
    elif args.optimizer_in_backward:
        tracker = train_in_backward(args, cfg, model)
    else:
        tracker = measure.measure_training(args, cfg, model)
    result["peak_bytes_total"] = tracker.peak
    result["breakdown_near_peak"] = {k: v for k, v in tracker.peak_breakdown.items() if not k.startswith("_")}
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
