#!/usr/bin/env python3
"""Fail when the page's first-load wasm links code it does not need.

    python3 scripts/first_load_guard.py target/wasm32-unknown-unknown/release/vram-budget-web.wasm

Reads the function names of cargo's unstripped output (as scripts/wasm_sizes.py does) and names
each function that matches a pattern below, with what brings it in and what to do instead. Each
came in by a one-line change (a `parse::<f64>()`, an `expect` on an engine result, a boxed
plotters error, a font named by a string) and cost the first load the gzip bytes said beside it.
Also fails when the wasm holds the Chinese of the tables that load on demand (crates/zh): one
sentence of each table, looked for in the wasm's bytes.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wasm_sizes import function_names, imported_functions, sections  # noqa: E402

CUT = [
    ("dec2flt", "core's float parser and its table of powers of five (14.7 KB gzip): read integers "
     "(`parse::<u64>`), or parse floats in an on-demand module"),
    ("EngineError$u20$as$u20$core..fmt..Debug", "the engine error's Debug (0.9 KB gzip with the "
     "Hub's): an `expect`/`unwrap` on an engine `Result`, or `{e}` of an engine error, on a path "
     "the page runs; write the value out, or leave the error out of the message"),
    ("HubError$u20$as$u20$core..fmt..Debug", "the Hub error's Debug: as for EngineError"),
    ("unicode_data5cased", "Unicode's case tables (8.5 KB gzip): `str::to_lowercase` or "
     "`to_uppercase` on a path the page runs; plotters calls it on a font given by its name, so "
     "name fonts `FontFamily::SansSerif`, and compare keys with `to_ascii_lowercase`"),
    ("flt2dec", "core's float printing, Grisu and Dragon4 (8.4 KB gzip: one `f64::clamp` "
     "brought it back): `{}`, `{:.1}` or `{:?}` of an `f64`/`f32` on a path the page runs, "
     "an `f64::clamp` (its panic prints both bounds) or plotters' own SVG backend; write numbers "
     "with `vram_engine::decimal`, clamp with `max`/`min`, draw with `vram_svg::Svg`"),
    ("io..error..Error$u20$as$u20$core..fmt", "std::io::Error's formatting and messages (1.5 KB "
     "gzip): a plotters error boxed as `dyn Error`; drop it (`chart::NotDrawn`)"),
]

# one Chinese sentence of each on-demand table (crates/text/src/zh.rs): in the first load only if
# the page's wasm was built without vram-text's `zh-on-demand` feature (the root Cargo.toml)
ON_DEMAND_CHINESE = [
    ("the page's texts (crates/text/src/page.rs)", "每一项是怎么算出来的"),
    ("the settings' help (crates/text/src/settings.rs)", "草稿模型（预设之一）"),
    ("the formulas' sentences (crates/text/src/formulas/sentences.rs)", "CUDA 上下文、cuBLAS/NCCL 工作区"),
]


def main():
    data = open(sys.argv[1], "rb").read()
    imports, names = 0, {}
    for sid, name, payload in sections(data):
        if sid == 2:
            imports = imported_functions(payload)
        elif sid == 0 and name == "name":
            names = function_names(payload)
    if not names:
        sys.exit("no name section: use cargo's output before wasm-bindgen and wasm-opt")
    found = [(pattern, why, n) for pattern, why in CUT for i, n in names.items() if i >= imports and pattern in n]
    for pattern, why, n in found:
        print(f"  first load links {n[:120]}\n    {why}")
    chinese = [table for table, sentence in ON_DEMAND_CHINESE if sentence.encode() in data]
    for table in chinese:
        print(f"  first load holds the Chinese of {table}, which loads on demand: build the page with "
              "vram-text's `zh-on-demand` feature and write the table's Chinese `zh!(\"…\")`")
    if found or chinese:
        sys.exit(f"first-load guard: {len(found)} function(s) and {len(chinese)} table(s) the first "
                 "load was cut free of")
    print(f"  first-load guard: none of {len(CUT)} cut families linked, none of "
          f"{len(ON_DEMAND_CHINESE)} on-demand tables' Chinese held")


if __name__ == "__main__":
    main()
