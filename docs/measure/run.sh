#!/usr/bin/env bash
# Runs every configuration of runs.json on the CPU (measure.py, or switches.py where a run names it)
# and keeps its JSON under results/.
# From the repository root: docs/measure/run.sh  (needs .venv-measure with torch, transformers, peft)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-../../.venv-measure/bin/python}
MEASURE=${MEASURE:-/work/shared/tools/measure.py}
mkdir -p results
MEASURE="$MEASURE" "$PY" - "$MEASURE" <<'PYEOF'
import json, os, subprocess, sys
measure = sys.argv[1]
for run in json.load(open("runs.json")):
    out = f"results/{run['name']}.json"
    # scripts named in runs.json are relative to the repository root
    script = os.path.join("../..", run["script"]) if "script" in run else measure
    cmd = [sys.executable, script, "--config", run["config"], *run["args"]]
    print(" ".join(cmd), ">", out, flush=True)
    with open(out, "w") as f:
        subprocess.run(cmd, stdout=f, check=True, timeout=300)
PYEOF
