#!/usr/bin/env python3
"""Trunk post_build hook (one script: Trunk runs a stage's hooks at the same time).

1. Minifies wasm-bindgen's JS glue with esbuild (Trunk's own JS minifier fails on it) and puts the
   new file's sha384 into the integrity attribute Trunk wrote for it. esbuild keeps the module's
   exports and the property names the wasm imports by; it renames only local identifiers. A release
   build without esbuild is an error (the size budget counts on it); `make setup` installs it.
   The on-demand readers module's glue has no integrity attribute (nothing in index.html loads it).
2. Names each on-demand module (crates/readers, crates/local-web, crates/zh; Trunk writes them unhashed, as
   it does any `data-type="worker"` build) by its content, e.g. `vram-readers-<sha256>.js` and its
   `..._bg.wasm`, and writes the name into its `<meta>` (`vram-readers`: the placeholder
   READERS_MODULE; `vram-local`: LOCAL_MODULE; `vram-zh`: ZH_MODULE), where src/modules.rs finds it. A new build gets a new name, so a browser never
   mixes a cached module with a new page.
3. Allows exactly the inline scripts Trunk wrote, by their sha256, in the Content-Security-Policy:
   replaces the placeholder CSP_INLINE_SCRIPT_HASHES in index.html.
"""
import base64
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

staging = os.environ.get("TRUNK_STAGING_DIR", "dist")
index = os.path.join(staging, "index.html")
html = open(index, encoding="utf-8").read()


# each on-demand module: its file name as Trunk writes it, and its placeholder in index.html
ON_DEMAND = {"vram-readers": "READERS_MODULE", "vram-local": "LOCAL_MODULE", "vram-zh": "ZH_MODULE"}


def digest(algo, data):
    return base64.b64encode(hashlib.new(algo, data).digest()).decode()


def short_hash(data):
    return hashlib.sha256(data).hexdigest()[:16]


def name_by_content(html, module, placeholder):
    """Renames an on-demand module's wasm and glue by their content; the page's html with its name."""
    js, wasm = os.path.join(staging, module + ".js"), os.path.join(staging, module + "_bg.wasm")
    if not (os.path.exists(js) and os.path.exists(wasm)):
        sys.exit("post_build.py: the on-demand module (%s.js, %s_bg.wasm) was not built" % (module, module))
    wasm_name = "%s-%s_bg.wasm" % (module, short_hash(open(wasm, "rb").read()))
    glue = open(js, "rb").read()
    if glue.count(b"%s_bg.wasm" % module.encode()) != 1:
        sys.exit("post_build.py: %s.js does not name its wasm exactly once" % module)
    glue = glue.replace(b"%s_bg.wasm" % module.encode(), wasm_name.encode())
    js_name = "%s-%s.js" % (module, short_hash(glue))
    os.replace(wasm, os.path.join(staging, wasm_name))
    open(os.path.join(staging, js_name), "wb").write(glue)
    os.remove(js)
    if placeholder not in html:
        sys.exit("post_build.py: no %s placeholder in index.html" % placeholder)
    print("post_build.py: on-demand module %s, %s" % (js_name, wasm_name))
    return html.replace(placeholder, js_name)


if os.environ.get("TRUNK_PROFILE", "release") == "release":
    esbuild = shutil.which("esbuild") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".tools", "node_modules", ".bin", "esbuild"
    )
    if not os.path.exists(esbuild):
        sys.exit("post_build.py: esbuild not found; run `make setup` (npm install --prefix .tools esbuild@0.24.0)")
    for path in glob.glob(os.path.join(staging, "*.js")):
        before = open(path, "rb").read()
        tmp = path + ".min"
        subprocess.run(
            [esbuild, path, "--minify", "--format=esm", "--log-level=warning", "--outfile=" + tmp],
            check=True,
        )
        os.replace(tmp, path)
        after = open(path, "rb").read()
        old, new = "sha384-" + digest("sha384", before), "sha384-" + digest("sha384", after)
        if os.path.basename(path) in [m + ".js" for m in ON_DEMAND]:
            print("post_build.py: minified %s, %d -> %d B" % (os.path.basename(path), len(before), len(after)))
            continue
        if old not in html:
            sys.exit("post_build.py: no integrity attribute for %s in index.html" % os.path.basename(path))
        html = html.replace(old, new)
        print("post_build.py: minified %s, %d -> %d B" % (os.path.basename(path), len(before), len(after)))

for module, placeholder in ON_DEMAND.items():
    html = name_by_content(html, module, placeholder)

hashes = [
    "'sha256-%s'" % digest("sha256", m.group(1).encode("utf-8"))
    for m in re.finditer(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, re.S)
]
if "CSP_INLINE_SCRIPT_HASHES" not in html:
    sys.exit("post_build.py: no CSP_INLINE_SCRIPT_HASHES placeholder in index.html")
html = html.replace("CSP_INLINE_SCRIPT_HASHES", " ".join(hashes))
open(index, "w", encoding="utf-8").write(html)
print("post_build.py: allowed %d inline script(s)" % len(hashes))
