#!/usr/bin/env python3
"""Trunk post_build hook: allow exactly the inline scripts Trunk wrote, by their sha256, in the CSP.

Reads $TRUNK_STAGING_DIR/index.html, hashes the text of every inline <script> and replaces the
placeholder CSP_INLINE_SCRIPT_HASHES in the Content-Security-Policy meta tag.
"""
import base64
import hashlib
import os
import re
import sys

path = os.path.join(os.environ.get("TRUNK_STAGING_DIR", "dist"), "index.html")
html = open(path, encoding="utf-8").read()
hashes = []
for m in re.finditer(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, re.S):
    digest = hashlib.sha256(m.group(1).encode("utf-8")).digest()
    hashes.append("'sha256-%s'" % base64.b64encode(digest).decode())
if "CSP_INLINE_SCRIPT_HASHES" not in html:
    sys.exit("csp_hash.py: no CSP_INLINE_SCRIPT_HASHES placeholder in index.html")
html = html.replace("CSP_INLINE_SCRIPT_HASHES", " ".join(hashes))
open(path, "w", encoding="utf-8").write(html)
print("csp_hash.py: allowed %d inline script(s)" % len(hashes))
