#!/usr/bin/env python3
"""Serve a built dist/ on 127.0.0.1 (static files only, correct types for .wasm)."""
import functools
import http.server
import sys

directory, port = sys.argv[1], int(sys.argv[2])
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=directory)
handler.extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".js": "text/javascript"}
with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as httpd:
    print(f"vram-budget on http://127.0.0.1:{port}/", flush=True)
    httpd.serve_forever()
