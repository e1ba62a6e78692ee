#!/usr/bin/env python3
"""Fail when what the page downloads (html + js + wasm + css + icons), gzip -9, exceeds the budget."""
import gzip
import os
import sys

dist, budget = sys.argv[1], int(sys.argv[2])
total = 0
rows = []
for name in sorted(os.listdir(dist)):
    path = os.path.join(dist, name)
    if not os.path.isfile(path):
        continue
    raw = open(path, "rb").read()
    gz = len(gzip.compress(raw, 9))
    total += gz
    rows.append((name, len(raw), gz))
for name, raw, gz in rows:
    print(f"  {name:<48} {raw:>9} B raw {gz:>8} B gzip")
print(f"  {'total':<48} {sum(r[1] for r in rows):>9} B raw {total:>8} B gzip (budget {budget} B)")
if total > budget:
    sys.exit(f"size budget exceeded: {total} B gzip > {budget} B")
