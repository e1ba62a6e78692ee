#!/usr/bin/env python3
"""Lists the engine's public items that only tests use from outside the engine.

An item of `crates/engine/src` declared plain `pub` (a `fn`, `const`, `static`, `struct`, `enum`,
`type`, `trait`, `mod`, a method in an `impl` block, or a named field) is "public only for tests"
when its name appears outside the engine's `src/` in test code and nowhere outside the engine's
`src/` in real code. Such an item should be `pub(crate)` (or private) with its tests beside it.

Real code: the page's `src/`, every other crate's `src/` (test-support's too: e2e and the
engine's `examples/validate.rs` build on it), all of `crates/e2e`, the engine-bench benchmarks and
the engine's `examples/`. Test code: the engine's `tests/`, other crates' `tests/`, and every
`#[cfg(test)]` item or file (a module declared under `#[cfg(test)]`).

Without `--check` it prints the count, then each item with its file and where tests name it; it
also counts the plain `pub` items that nothing outside the engine names at all (informational:
most sit in private modules, where `pub` already means the crate). `--check` prints the count
and the names and exits 1 when any item outside the allow-list is found.

The heuristic matches names, not paths, so it is an approximation:
- a name that another item or a variable also carries (`new`, `key`, `total`, a local `pool`)
  counts wherever that other one appears: in real code it hides the item (a missed item), in
  test code it makes an item look used by tests that never name it (a false one);
- a name used only inside the engine's `src/` counts as not used outside, whatever path it
  takes; `pub use` re-exports in the engine are the exposure, not uses;
- a field of a struct that real code outside builds or matches with `Name { … }` is public:
  a struct literal (with `..Default::default()` too) needs every field visible;
- a type named in the signature, field or variant of an item that stays public stays
  public with it (whatever the name-matching says of that item);
- macros, trait methods of `impl Trait for` blocks (their visibility is the trait's) and items
  inside `macro_rules!` are not parsed;
- comments and string literals are blanked before matching, so a name in a doc comment or
  a string does not count.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE_SRC = ROOT / "crates" / "engine" / "src"

# Public on purpose, though only tests name them outside the engine.
ALLOW = {
    "place": "Setting::place: the page builds each panel from it (its tests pin the layout)",
    "Panel": "the page's panels, named by the registry's settings (part of Setting::place)",
    "Look": "how a setting's control looks, part of Setting::place",
    "Place": "a setting's place on the page (panel, rank, look), returned by Setting::place",
    "estimate_stages": "memory per pipeline stage, for the property and pipeline tests",
    "MAX_DEPTH": "the JSON reader's nesting cap, which its public error (JsonProblem::TooDeep) names",
    "MAX_LISTING_BYTES": "the Hub listing's size cap, beside the public config and index caps",
    "q_lora_rank": "a field of Mla, public data a caller fills to describe an MLA model",
    "kv_lora_rank": "a field of Mla, public data a caller fills to describe an MLA model",
    "rope_dim": "a field of Mla, public data a caller fills to describe an MLA model",
    "nope_dim": "a field of Mla, public data a caller fills to describe an MLA model",
    "v_head_dim": "a field of Mla, public data a caller fills to describe an MLA model",
    "shared": "a field of a plan's public breakdown: the bytes a GPU buffer and the host count once",
    "DEFAULT_HOST_BANDWIDTH": "the host bandwidth a caller gives Machine::Gpus when it knows none",
}

ITEM = re.compile(
    r"^[ \t]*pub[ \t]+(?:(?:const|async|unsafe|extern[ \t]+\"C\")[ \t]+)*"
    r"(fn|const|static|struct|enum|type|trait|mod|union)[ \t]+(?:mut[ \t]+)?(\w+)",
    re.M,
)
FIELD = re.compile(r"^[ \t]*pub[ \t]+(\w+)[ \t]*:(?!:)", re.M)


def blank(text):
    """The text with comments, strings and char literals blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 8]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            j = n if end < 0 else end + 1 + len(hashes)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\(?:x..|u\{[0-9a-fA-F]*\}|.)|[^\\'])'", text[i:i + 12])
            if m:
                out.append("' '" + " " * (len(m.group(0)) - 3))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def item_end(code, start):
    """Where the item starting at `start` ends: its closing brace, or its `;`."""
    depth = 0
    for j in range(start, len(code)):
        ch = code[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        elif ch == ";" and depth == 0:
            return j + 1
    return len(code)


CFG_TEST = re.compile(r"#\[cfg\((?:test|all\(test\b[^\]]*)\)\]")


def split_tests(code):
    """(real code, test code, names of modules declared `#[cfg(test)] mod name;`)."""
    real, test, test_mods, pos = [], [], set(), 0
    for m in CFG_TEST.finditer(code):
        if m.start() < pos:
            continue
        end = item_end(code, m.end())
        real.append(code[pos:m.start()])
        item = code[m.start():end]
        test.append(item)
        decl = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", item[m.end() - m.start():])
        if decl:
            test_mods.add(decl.group(1))
        pos = end
    real.append(code[pos:])
    return "".join(real), "".join(test), test_mods


def rust_files(*dirs):
    for d in dirs:
        if d.is_dir():
            yield from sorted(d.rglob("*.rs"))


def test_module_files(files):
    """Files that are `#[cfg(test)] mod name;` of their parent, and everything under them."""
    marked = set()
    for f in files:
        _, _, mods = split_tests(blank(f.read_text()))
        base = f.parent if f.name in ("mod.rs", "lib.rs", "main.rs") else f.with_suffix("")
        for name in mods:
            marked.add(base / f"{name}.rs")
            marked.add(base / name)
    return {f for f in files if f in marked or any(p in marked for p in f.parents)}


def signature(code, start, kind):
    """The text that a `pub` item at `start` makes public: a signature, a field, an enum's variants."""
    if kind == "enum" or kind == "trait":
        return code[start:item_end(code, start)]
    if kind == "field":
        end = code.find("\n", start)
        return code[start:end if end >= 0 else len(code)]
    ends = [i for i in (code.find("{", start), code.find(";", start)) if i >= 0]
    return code[start:min(ends) if ends else len(code)]


def pub_items(code):
    """(kind, name, words of its signature, owning struct) of each plain `pub` item of a file,
    methods of inherent `impl` blocks and fields included."""
    impls = []
    for m in re.finditer(r"^[ \t]*impl\b[^{;]*\{", code, re.M):
        if not re.search(r"\bfor\b", m.group(0)):
            impls.append((m.end() - 1, item_end(code, m.end() - 1)))
    items = []
    for m in ITEM.finditer(code):
        inside = any(a < m.start() < b for a, b in impls)
        kind = "method" if inside and m.group(1) == "fn" else m.group(1)
        items.append((kind, m.group(2), m.start()))
    items += [("field", m.group(1), m.start()) for m in FIELD.finditer(code)]
    out = []
    for kind, name, start in items:
        sig = words(signature(code, start, kind)) - {name}
        owner = None
        if kind == "field":
            owners = re.findall(r"\bstruct\s+(\w+)", code[:start])
            owner = owners[-1] if owners else None
        out.append((kind, name, sig, owner))
    return out


def words(code):
    return set(re.findall(r"\b[A-Za-z_]\w*\b", code))


def gather():
    engine_files = list(rust_files(ENGINE_SRC))
    engine_test_files = test_module_files(engine_files)
    items = []
    for f in engine_files:
        if f in engine_test_files:
            continue
        real, _, _ = split_tests(blank(f.read_text()))
        items += [(f, kind, name, sig, owner) for kind, name, sig, owner in pub_items(real)]

    crates = ROOT / "crates"
    real_dirs = [ROOT / "src", crates / "e2e", crates / "engine-bench", crates / "engine" / "examples"]
    test_dirs = [crates / "engine" / "tests"]
    for c in sorted(crates.iterdir()):
        if c.name in ("engine", "e2e", "engine-bench"):
            continue
        real_dirs.append(c / "src")
        test_dirs.append(c / "tests")

    real_out, test_out, literals = {}, {}, set()
    for files, is_test in ((rust_files(*real_dirs), False), (rust_files(*test_dirs), True)):
        files = list(files)
        test_mod_files = set() if is_test else test_module_files(files)
        for f in files:
            real, test, _ = split_tests(blank(f.read_text()))
            if is_test or f in test_mod_files:
                real, test = "", real + test
            rel = str(f.relative_to(ROOT))
            for w in words(real):
                real_out.setdefault(w, set()).add(rel)
            literals |= set(re.findall(r"\b([A-Z]\w*)\s*\{", real))
            for w in words(test):
                test_out.setdefault(w, set()).add(rel)
    return items, real_out, test_out, literals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when an item outside the allow-list is found")
    args = ap.parse_args()
    items, real_out, test_out, literals = gather()
    found, unused, seen = [], [], set()
    for f, kind, name, _, owner in items:
        if name in real_out or owner in literals or (f, name) in seen:
            continue
        seen.add((f, name))
        if name in real_out:
            continue
        (found if name in test_out else unused).append((f, kind, name))
    # a type named in the signature of an item that stays public stays public with it
    found_names = {name for _, _, name in found}
    while True:
        exposed = set()
        for _, _, name, sig, _ in items:
            if name not in found_names:
                exposed |= sig & found_names
        if not exposed:
            break
        found_names -= exposed
    found = [x for x in found if x[2] in found_names]
    listed = [x for x in found if x[2] not in ALLOW]
    allowed = [x for x in found if x[2] in ALLOW]
    print(f"{len(listed)} engine items public only for tests ({len(allowed)} more kept public on purpose)")
    if args.check:
        for f, kind, name in listed:
            print(f"  {f.relative_to(ROOT)}: {kind} {name}")
        return 1 if listed else 0
    for f, kind, name in listed:
        users = sorted(test_out[name])
        more = f" (+{len(users) - 3} more)" if len(users) > 3 else ""
        print(f"  {f.relative_to(ROOT)}: {kind} {name}  <- {', '.join(users[:3])}{more}")
    for f, kind, name in allowed:
        print(f"  kept: {kind} {name}: {ALLOW[name]}")
    print(f"{len(unused)} plain pub items that nothing outside the engine names (informational)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
