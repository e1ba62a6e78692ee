#!/usr/bin/env python3
"""Print the exact parameter count transformers reports for every preset.

Reads the preset configs straight out of crates/engine/src/presets.rs (the raw
JSON strings of its `CONFIGS` table, `("id", r#"…"#)`), builds each model on the meta device (no
memory is allocated, so even DeepSeek-V3 takes a second) and sums
`p.numel()` over `model.parameters()`, which is the number the engine's
`Architecture::params().total()` must equal.

Set up once (about 3 GB of packages), from the repository root:
    python3 -m venv .venv-measure && .venv-measure/bin/pip install torch transformers peft

Run from the repository root:
    .venv-measure/bin/python scripts/param_counts.py            # id and count, one a line
    .venv-measure/bin/python scripts/param_counts.py --rust     # rows for the test table in presets.rs
    .venv-measure/bin/python scripts/param_counts.py qwen3-8b   # only the ids named

A multimodal config (Gemma 3) is counted through its text_config, as the
engine reads it: the language model alone, without the vision tower.
"""
import argparse
import json
import pathlib
import re
import sys

PRESETS = pathlib.Path(__file__).resolve().parent.parent / "crates/engine/src/presets.rs"
ENTRY = re.compile(r'\(\s*"(?P<id>[^"]+)",\s*r#"(?P<config>.*?)"#,\s*\)', re.S)


def presets():
    """(id, config dict) for every preset, in the file's order."""
    return [(m["id"], json.loads(m["config"])) for m in ENTRY.finditer(PRESETS.read_text())]


def count(config):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    fields = dict(config.get("text_config", config))
    model_type = fields.pop("model_type")
    cfg = AutoConfig.for_model(model_type, **fields)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg)
    return sum(p.numel() for p in model.parameters())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ids", nargs="*", help="preset ids (default: all)")
    p.add_argument("--rust", action="store_true", help='print ("id", count) rows with digit separators')
    args = p.parse_args()
    import transformers

    print(f"# transformers {transformers.__version__}", file=sys.stderr)
    for pid, config in presets():
        if args.ids and pid not in args.ids:
            continue
        try:
            n = count(config)
        except Exception as e:  # a model this transformers cannot build
            print(f"{pid}: cannot build ({type(e).__name__}: {e})", file=sys.stderr)
            continue
        if args.rust:
            print(f'            ("{pid}", {n:_}),')
        else:
            print(f"{pid}\t{n}")


if __name__ == "__main__":
    main()
