#!/usr/bin/env python3
"""Measures the engine's framework switches on the CPU, with measure.py's own counter.

measure.py (beside this file) runs plain transformers/PEFT training and generation. The engine also
models behaviours that need a different loop; this script reuses measure.py's command line, model
builder, LiveStorageCounter and breakdown (imported, not copied) and adds them:

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
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the tracked files
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402  (measure.py beside this file)
import torch  # noqa: E402


def parse_args(argv=None):
    p = measure.build_parser()
    p.add_argument("--optimizer-in-backward", action="store_true",
                   help="one optimizer per parameter, stepped in a post-accumulate-grad hook")
    p.add_argument("--modules-to-save", default=None, help="PEFT modules_to_save, comma-separated")
    p.add_argument("--static-cache", type=int, default=None, help="generate into a StaticCache of N tokens")
    p.add_argument("--loss-check", action="store_true", help="bytes saved for backward by a chunked loss")
    p.add_argument("--dora", action="store_true", help="PEFT use_dora")
    return p.parse_args(argv)


def build(args):
    if not args.modules_to_save and not args.dora:
        return measure.build_model(args)
    if args.mode != "lora":
        sys.exit("switches.py: --dora and --modules-to-save are LoRA options; add --mode lora")
    return measure.build_model(
        args, use_dora=args.dora,
        modules_to_save=args.modules_to_save.split(",") if args.modules_to_save else None)


class PerParameter:
    """One optimizer per parameter, seen as one optimizer by measure.py's categorizer."""

    def __init__(self, args, params):
        self.by_param = {p: measure.make_optimizer(args, [p]) for p in params}

    @property
    def state(self):
        merged = {}
        for o in self.by_param.values():
            merged.update(o.state)
        return merged


def train_in_backward(args, cfg, model):
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = PerParameter(args, trainable)

    def hook(p):
        o = opt.by_param[p]
        o.step()
        o.zero_grad(set_to_none=True)

    for p in trainable:
        p.register_post_accumulate_grad_hook(hook)

    def step(model, _opt, ids):  # the optimizer already stepped inside backward
        model(input_ids=ids, labels=ids).loss.backward()

    return measure.measure_training(args, cfg, model, optimizer=opt, step=step)


def generate_static(args, cfg, model):
    from transformers import StaticCache

    return measure.measure_generation(
        args, cfg, model, make_cache=lambda: StaticCache(config=cfg, max_cache_len=args.static_cache))


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
    if args.loss_check:
        from transformers import AutoConfig

        cfg = AutoConfig.from_pretrained(args.config)
        measure.emit({"args": vars(args), "saved_for_backward": loss_check(args, cfg)})
        return
    cfg, model = build(args)
    if args.mode == "infer":
        if args.static_cache:
            counter, kv = generate_static(args, cfg, model)
        else:
            counter, kv = measure.measure_generation(args, cfg, model)
        measure.emit(measure.report(args, model, counter, kv_cache_bytes_final=kv))
    elif args.optimizer_in_backward:
        measure.emit(measure.report(args, model, train_in_backward(args, cfg, model)))
    else:
        measure.emit(measure.report(args, model, measure.measure_training(args, cfg, model)))


if __name__ == "__main__":
    main()
