#!/usr/bin/env bash
# Runs every measure.py configuration of runs.json on the CPU and keeps its JSON under results/.
# From the repository root: docs/measure/run.sh  (needs .venv-measure with torch, transformers, peft)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-../../.venv-measure/bin/python}
MEASURE=${MEASURE:-/work/shared/tools/measure.py}
mkdir -p results
"$PY" - "$MEASURE" <<'PYEOF'
import json, subprocess, sys
measure = sys.argv[1]
for run in json.load(open("runs.json")):
    out = f"results/{run['name']}.json"
    cmd = [sys.executable, measure, "--config", run["config"], *run["args"]]
    print(" ".join(cmd), ">", out, flush=True)
    with open(out, "w") as f:
        subprocess.run(cmd, stdout=f, check=True, timeout=300)
PYEOF
