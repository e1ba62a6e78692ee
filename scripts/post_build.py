#!/usr/bin/env python3
"""Trunk post_build hook (one script: Trunk runs a stage's hooks at the same time).

1. Minifies wasm-bindgen's JS glue with esbuild (Trunk's own JS minifier fails on it) and puts the
   new file's sha384 into the integrity attribute Trunk wrote for it. esbuild keeps the module's
   exports and the property names the wasm imports by; it renames only local identifiers. A release
   build without esbuild is an error (the size budget counts on it); `make setup` installs it.
2. Allows exactly the inline scripts Trunk wrote, by their sha256, in the Content-Security-Policy:
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


def digest(algo, data):
    return base64.b64encode(hashlib.new(algo, data).digest()).decode()


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
        if old not in html:
            sys.exit("post_build.py: no integrity attribute for %s in index.html" % os.path.basename(path))
        html = html.replace(old, new)
        print("post_build.py: minified %s, %d -> %d B" % (os.path.basename(path), len(before), len(after)))

hashes = [
    "'sha256-%s'" % digest("sha256", m.group(1).encode("utf-8"))
    for m in re.finditer(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, re.S)
]
if "CSP_INLINE_SCRIPT_HASHES" not in html:
    sys.exit("post_build.py: no CSP_INLINE_SCRIPT_HASHES placeholder in index.html")
html = html.replace("CSP_INLINE_SCRIPT_HASHES", " ".join(hashes))
open(index, "w", encoding="utf-8").write(html)
print("post_build.py: allowed %d inline script(s)" % len(hashes))
