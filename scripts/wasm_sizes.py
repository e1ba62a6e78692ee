#!/usr/bin/env python3
"""Where the page's bytes go: function body sizes from a wasm file's own name section.

    python3 scripts/wasm_sizes.py target/wasm32-unknown-unknown/release/vram-budget-web.wasm [N]

Reads the code section (each function body's size) and the "name" custom section (each
function's mangled name) of an unstripped wasm (cargo's output before wasm-bindgen and wasm-opt),
and prints the N largest functions and the totals per crate. Sizes are raw bytes before wasm-opt
and gzip: use them to compare builds, not as the shipped size (scripts/size_budget.py is that).

The shipped code with its names (the same bytes as dist/'s wasm, plus a name section):

    wasm-bindgen --target web --keep-debug --out-dir target/named target/wasm32-unknown-unknown/release/vram-budget-web.wasm
    .tools/node_modules/binaryen/bin/wasm-opt -g -Os --converge target/named/vram-budget-web_bg.wasm -o target/named/opt.wasm
    python3 scripts/wasm_sizes.py target/named/opt.wasm 40
"""
import gzip
import re
import sys
from collections import defaultdict


def gz(data):
    return len(gzip.compress(data, 9))


def leb(data, i):
    """An unsigned LEB128 number at data[i:], and the index after it."""
    result = shift = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result, i


def sections(data):
    """(id, name for custom sections, payload) of every section."""
    i = 8
    while i < len(data):
        sid = data[i]
        size, i = leb(data, i + 1)
        payload = data[i:i + size]
        name = None
        if sid == 0:
            n, j = leb(payload, 0)
            name = payload[j:j + n].decode("utf-8", "replace")
            payload = payload[j + n:]
        yield sid, name, payload
        i += size


def imported_functions(payload):
    """How many of the module's imports are functions (they come first in the index space)."""
    count, i = leb(payload, 0)
    funcs = 0
    for _ in range(count):
        for _ in range(2):
            n, i = leb(payload, i)
            i += n
        kind = payload[i]
        i += 1
        if kind == 0:
            _, i = leb(payload, i)
            funcs += 1
        elif kind == 1:
            i += 1
            flags, i = leb(payload, i)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 2:
            flags, i = leb(payload, i)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 3:
            i += 2
        else:
            _, i = leb(payload, i)
    return funcs


def bodies(payload):
    """Each function body's bytes, in order."""
    count, i = leb(payload, 0)
    out = []
    for _ in range(count):
        size, i = leb(payload, i)
        out.append(payload[i:i + size])
        i += size
    return out


def function_names(payload):
    names = {}
    i = 0
    while i < len(payload):
        sub = payload[i]
        size, i = leb(payload, i + 1)
        if sub == 1:
            count, j = leb(payload, i)
            for _ in range(count):
                idx, j = leb(payload, j)
                n, j = leb(payload, j)
                names[idx] = payload[j:j + n].decode("utf-8", "replace")
                j += n
        i += size
    return names


def crate_of(name):
    """The crate a mangled name belongs to: the first path's root (for `<T as a::B>`, a)."""
    if re.match(r"_ZN\d+_\$LT\$", name):
        m = re.search(r"([a-z_][a-z0-9_]*)\.\.", name)
        if m:
            return m.group(1)
    m = re.match(r"_ZN(\d+)([A-Za-z_][A-Za-z0-9_]*)", name)
    if m:
        return m.group(2)[: int(m.group(1))]
    m = re.search(r"Cs[0-9a-zA-Z]+_(\d+)([a-z_][a-z0-9_]*)", name)
    if name.startswith("_R") and m:
        return m.group(2)[: int(m.group(1))]
    # demangled, as wasm-bindgen --keep-debug and wasm-opt -g leave them (the shipped build's code)
    m = re.match(r"<[^<>]* as ([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::", name) or re.match(
        r"<*(?:&(?:mut )?)?([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::", name
    )
    if m:
        return m.group(1)
    return "(unnamed or C)"


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    data = open(path, "rb").read()
    imports, code, names, data_bytes = 0, [], {}, b""
    for sid, name, payload in sections(data):
        if sid == 11:
            data_bytes = payload
        elif sid == 2:
            imports = imported_functions(payload)
        elif sid == 10:
            code = bodies(payload)
        elif sid == 0 and name == "name":
            names = function_names(payload)
    if not names:
        sys.exit("no name section: use cargo's output before wasm-bindgen and wasm-opt")
    rows = [(len(body), names.get(imports + k, f"func{imports + k}")) for k, body in enumerate(code)]
    per_crate = defaultdict(list)
    for body, (_, name) in zip(code, rows):
        per_crate[crate_of(name)].append(body)
    total = sum(s for s, _ in rows)
    print(f"{len(rows)} functions, {total:,} B of code, {len(data_bytes):,} B of data (strings, tables); "
          f"gzip -9 of each on its own: {gz(b''.join(code)):,} B and {gz(data_bytes):,} B")
    print("\nper crate (gzip: the crate's code compressed on its own, so the column sums to more than the whole):")
    for crate, parts in sorted(per_crate.items(), key=lambda kv: -sum(map(len, kv[1])))[:top]:
        size = sum(map(len, parts))
        print(f"  {size:>9,} B  {size * 100 / total:5.1f} %  {gz(b''.join(parts)):>8,} B gzip  {crate}")
    print(f"\nthe {top} largest functions:")
    for size, name in sorted(rows, reverse=True)[:top]:
        print(f"  {size:>9,} B  {name[:140]}")


if __name__ == "__main__":
    main()
