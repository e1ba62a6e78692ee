#!/usr/bin/env bash
# Runs every configuration of runs.json on the CPU and keeps its JSON under results/.
# A run is docs/measure/measure.py unless it names another script (relative to the repository root).
# From the repository root: docs/measure/run.sh [NAME...]   (only the named runs; all without names)
# Needs .venv-measure with docs/measure/requirements.txt; `make measure` creates it and runs this.
# PY overrides the interpreter, RESULTS the output folder (relative to docs/measure), and EXTRA_ARGS
# are added to every run: EXTRA_ARGS="--device cuda" RESULTS=results-cuda docs/measure/run.sh
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-../../.venv-measure/bin/python}
export RESULTS=${RESULTS:-results} EXTRA_ARGS=${EXTRA_ARGS:-}
mkdir -p "$RESULTS"
"$PY" - "$@" <<'PYEOF'
import json, os, shlex, subprocess, sys, time
only = set(sys.argv[1:])
results, extra = os.environ["RESULTS"], shlex.split(os.environ["EXTRA_ARGS"])
runs = json.load(open("runs.json"))
unknown = only - {r["name"] for r in runs}
if unknown:
    sys.exit(f"run.sh: no run named {', '.join(sorted(unknown))} in runs.json")
for run in runs:
    if only and run["name"] not in only:
        continue
    out = os.path.join(results, f"{run['name']}.json")
    script = os.path.join("../..", run.get("script", "docs/measure/measure.py"))
    cmd = [sys.executable, script, "--config", run["config"], *run["args"], *extra]
    print(" ".join([os.path.relpath(sys.executable), *cmd[1:]]), ">", out, flush=True)
    t0 = time.time()
    # written to a temporary file first, so a failed run leaves the previous result in place
    try:
        with open(out + ".tmp", "w") as f:
            subprocess.run(cmd, stdout=f, check=True, timeout=600)
    except BaseException:
        os.remove(out + ".tmp")
        raise
    os.replace(out + ".tmp", out)
    print(f"    {time.time() - t0:.0f} s", flush=True)
PYEOF
