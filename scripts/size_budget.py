#!/usr/bin/env python3
"""Fail when what a first visit downloads, or an on-demand module, exceeds its budget (gzip -9).

    python3 scripts/size_budget.py DIST FIRST_LOAD_BUDGET [READERS_BUDGET [LOCAL_BUDGET [ZH_BUDGET]]]

First load: every file under DIST (html, js, wasm, css, icon, wasm-bindgen snippets) except the
on-demand modules. On-demand modules, each reported and gated on its own (default 80000 B): the
files named `vram-readers-*` (crates/readers, imported by the page the first time a user pastes a
measurement) and `vram-local-*` (crates/local-web, the llama.cpp / Ollama job, imported the first
time a local run is shown) and `vram-zh-*` (crates/zh, the Chinese of the largest tables, imported
the first time the page is shown in Chinese).
"""
import gzip
import os
import sys

ON_DEMAND = {"readers": "vram-readers-", "local": "vram-local-", "zh": "vram-zh-"}

dist, budget = sys.argv[1], int(sys.argv[2])
module_budgets = [int(b) for b in sys.argv[3:]]
on_demand_budgets = {m: (module_budgets[i] if i < len(module_budgets) else 80000) for i, m in enumerate(ON_DEMAND)}


def files(root):
    for folder, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            path = os.path.join(folder, name)
            yield os.path.relpath(path, root), open(path, "rb").read()


def module_of(name):
    return next((m for m, prefix in ON_DEMAND.items() if os.path.basename(name).startswith(prefix)), None)


def table(title, rows, limit):
    print(f"  {title}")
    for name, raw, gz in rows:
        print(f"    {name:<52} {raw:>9} B raw {gz:>8} B gzip")
    raw, gz = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"    {'total':<52} {raw:>9} B raw {gz:>8} B gzip (budget {limit} B)")
    return gz


first, modules = [], {m: [] for m in ON_DEMAND}
for name, data in files(dist):
    row = (name, len(data), len(gzip.compress(data, 9)))
    module = module_of(name)
    (modules[module] if module else first).append(row)

failures = []
total = table("first load: what the page downloads before its first result", first, budget)
if total > budget:
    failures.append(f"first load {total} B gzip > {budget} B")
for module, rows in modules.items():
    if not rows:
        failures.append(f"on-demand module {module}: no files (was it built?)")
        continue
    limit = on_demand_budgets[module]
    gz = table(f"on demand, {module}: loaded the first time a user needs it", rows, limit)
    if gz > limit:
        failures.append(f"on-demand module {module} {gz} B gzip > {limit} B")
if failures:
    sys.exit("size budget exceeded: " + "; ".join(failures))
