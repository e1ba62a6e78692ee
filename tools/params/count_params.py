"""Parameter counts of the hybrid config fixtures, as transformers builds each model.

Each `crates/engine/tests/fixtures/hybrid/*.json` (the published configs) and `variants/*.json`
(the same with flags turned: biases, norms, shared blocks, no experts) is loaded the way `from_pretrained` loads a
config.json (`AutoConfig.from_pretrained` on a folder holding it), the model is built with
`AutoModelForCausalLM.from_config` on PyTorch's meta device (shapes only, no memory, no weights),
and `sum(p.numel() for p in model.parameters())` is written per fixture: each parameter once, so
tied embeddings and Zamba2's shared blocks count once. The engine's test
`crates/engine/tests/params_transformers.rs` compares its own counts with the file this writes.

    .venv-measure/bin/python tools/params/count_params.py   # or: make params
"""

import json
import pathlib
import shutil
import sys
import tempfile

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "crates/engine/tests/fixtures/hybrid"
OUT = FIXTURES / "transformers_params.json"


def count(config_json: pathlib.Path) -> dict:
    """The model class and its parameter count for one config.json."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(config_json, pathlib.Path(folder) / "config.json")
        config = AutoConfig.from_pretrained(folder)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    return {
        "class": type(model).__name__,
        "params": sum(p.numel() for p in model.parameters()),
    }


def main() -> int:
    fixtures = sorted(FIXTURES.glob("*.json")) + sorted(FIXTURES.glob("variants/*.json"))
    counts = {}
    for path in fixtures:
        if path == OUT:
            continue
        name = path.relative_to(FIXTURES).with_suffix("").as_posix()
        counts[name] = count(path)
        print(f"{name}: {counts[name]['class']} {counts[name]['params']:,}", flush=True)
    record = {
        "how": "AutoModelForCausalLM.from_config on torch.device('meta'); each parameter once",
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "counts": counts,
    }
    OUT.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
