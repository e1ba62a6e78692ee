#!/usr/bin/env bash
# vram-budget's benchmarks (make bench): the engine natively (criterion), the page's size, and the
# built page in headless Chromium (interaction, load, engine inside the wasm). Budgets and figures
# are in BENCHMARKS.md. Prints budgets met or not; fails only when a step cannot run.
#
#   bash scripts/bench.sh [all|engine|size|browser]     (default all)
#   BENCH_CHANGES=240 BENCH_LOADS=20 BENCH_STEPS=25       (browser benchmark: slider changes, page loads,
#                                                          key presses per slider for interaction to next paint)
#   BENCH_NO_BUILD=1                                      (size/browser: use dist/ as it is)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export PATH="$HOME/.cargo/bin:$ROOT/.tools/node_modules/.bin:$PATH"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
STEP=${1:-all}
CHANGES=${BENCH_CHANGES:-240}
LOADS=${BENCH_LOADS:-20}
STEPS=${BENCH_STEPS:-25}

say() { printf '\n==> %s\n' "$*"; }
die() { printf '\nvram-budget bench: %s\n' "$*" >&2; exit 1; }

machine() {
  say "machine"
  local cpu
  cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
  echo "  CPU: ${cpu:-unknown}, $(nproc) logical cores, $(free -g 2>/dev/null | awk '/^Mem:/{print $2}') GiB RAM"
  echo "  load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (other work on the machine shows up as noise)"
  echo "  $(rustc --version)"
  if command -v chromium >/dev/null; then echo "  $(chromium --version 2>/dev/null | head -1)"; fi
}

engine() {
  say "engine, natively (criterion; about 2 minutes; full output in $TARGET_DIR/bench-engine.txt)"
  local marker
  marker=$(mktemp)
  if ! cargo bench -p vram-engine-bench --bench engine >"$TARGET_DIR/bench-engine.txt" 2>&1; then
    tail -30 "$TARGET_DIR/bench-engine.txt" >&2
    rm -f "$marker"
    die "step 'engine' failed. To run it by hand: cargo bench -p vram-engine-bench --bench engine"
  fi
  python3 - "$TARGET_DIR/criterion" "$marker" <<'EOF'
import json, os, sys
root, marker = sys.argv[1], sys.argv[2]
since = os.path.getmtime(marker)
rows = {}   # (group/function) -> {scenario: ns}
for group in ("estimate", "fit", "page"):
    gdir = os.path.join(root, group)
    for dirpath, _, files in os.walk(gdir):
        if os.path.basename(dirpath) != "new" or "estimates.json" not in files:
            continue
        est = os.path.join(dirpath, "estimates.json")
        if os.path.getmtime(est) < since:
            continue
        meta = json.load(open(os.path.join(dirpath, "benchmark.json")))
        ns = json.load(open(est))["median"]["point_estimate"]
        rows.setdefault(f'{meta["group_id"]}/{meta["function_id"]}', {})[meta["value_str"]] = ns
if not rows:
    sys.exit("no criterion results were written")
scenarios = ["lora-8b", "full-70b-z3-64", "serve-70b-tp4", "deepseek-v3-infer", "qlora-qwen3-30b-a3b"]
# (row, label, budget in ns or None)
spec = [
    ("estimate/explain", "estimate, with formulas", 50_000),
    ("estimate/numbers", "estimate, numbers only", 50_000),
    ("fit/verdicts", "verdicts (17 GPUs)", None),
    ("fit/solve", "solver", 1_000_000),
    ("page/sweep27", "27-point sequence sweep", 8_000_000),
    ("page/memo", "whole page memo", 8_000_000),
]
def fmt(ns):
    return f"{ns/1000:.2f} us" if ns < 1e6 else f"{ns/1e6:.2f} ms"
print("  median time per call:")
print("  " + f'{"":<26}' + "".join(f"{s:>21}" for s in scenarios) + "   budget")
failed = []
for key, label, budget in spec:
    vals = rows.get(key, {})
    cells = "".join(f"{fmt(vals[s]) if s in vals else '-':>21}" for s in scenarios)
    if budget is None:
        verdict = ""
    else:
        worst = max(vals.values()) if vals else float("inf")
        ok = worst < budget
        verdict = f"< {fmt(budget)}: {'met' if ok else 'NOT MET'}"
        if not ok:
            failed.append(label)
    print(f"  {label:<26}{cells}   {verdict}")
print("  (scenarios: LoRA Llama 3.1 8B on an RTX 4090; full fine-tune Llama 3.1 70B, ZeRO-3, 64 H100;")
print("   vLLM serving Llama 3.1 70B, TP 4; DeepSeek-V3 fp8 inference, TP 8 on H200; QLoRA Qwen3-30B-A3B)")
print("  engine budgets: " + ("all met" if not failed else "NOT MET: " + ", ".join(failed)))
EOF
  rm -f "$marker"
}

build() {
  if [ "${BENCH_NO_BUILD:-}" = 1 ]; then
    [ -f dist/index.html ] || die "BENCH_NO_BUILD=1 but dist/ has no index.html"
    return
  fi
  say "building the page (bash scripts/dev.sh dist)"
  bash scripts/dev.sh dist
}

size() {
  # the on-demand gates as scripts/dev.sh's size_budget sets them (the Hub GGUF pick and encoder–decoder models raised both)
  say "size: what a first visit downloads, gzip -9 (budget 300000 B), the on-demand readers (156000 B), the llama.cpp job's module (146000 B) and the Chinese tables (28000 B); see BENCHMARKS.md"
  python3 scripts/size_budget.py dist 300000 156000 146000 28000 && echo "  size budget: met" || echo "  size budget: NOT MET"
  python3 scripts/first_load_guard.py target/wasm32-unknown-unknown/release/vram-budget-web.wasm || echo "  first-load guard: NOT MET"
}

browser() {
  command -v chromium >/dev/null && command -v chromedriver >/dev/null ||
    die "the browser benchmark needs chromium and chromedriver on PATH: bash scripts/dev.sh setup"
  say "building the page with the benchmark hook (--features bench) into dist-bench/"
  TRUNK_BUILD_FEATURES=bench trunk build --release --dist dist-bench ||
    die "step 'browser build' failed. To run it by hand: TRUNK_BUILD_FEATURES=bench trunk build --release --dist dist-bench"
  say "browser: $CHANGES slider changes, $LOADS page loads, $STEPS key presses per slider, the engine inside the wasm (headless Chromium)"
  VRAM_E2E_DIST="$ROOT/dist-bench" cargo run -q -p e2e --release --bin browser-bench -- "$CHANGES" "$LOADS" "$STEPS" ||
    die "step 'browser' failed. To run it by hand: cargo run -p e2e --release --bin browser-bench -- $CHANGES $LOADS $STEPS"
}

case "$STEP" in
  all) machine; engine; build; size; browser ;;
  engine) machine; engine ;;
  size) build; size ;;
  browser) machine; build; browser ;;
  *) echo "usage: scripts/bench.sh [all|engine|size|browser]"; exit 2 ;;
esac
