#!/usr/bin/env python3
"""llama.cpp's own memory figures, measured on small random-weight GGUF models.

Writes a handful of tiny GGUF files with the `gguf` package (llama, qwen2, gemma2 with a sliding
window, a llama with experts; F16, Q8_0, Q4_0 and Q4_K weights), loads each with llama-cpp-python
on the CPU backend, creates contexts over a grid of settings and records the model, KV, output and
compute buffer sizes that llama.cpp prints in its load log. The log is captured at the
file-descriptor level (stderr), with llama-cpp-python's verbose logger on.

Outputs:
  tools/llamacpp/results.json                    every run: its inputs and the parsed figures
  crates/engine/tests/fixtures/gguf/*.gguf       each model's header (everything before the tensor
                                                 data), plus the one tiny model in full

Run it through `make llamacpp` (creates .venv-llamacpp first). See README.md beside this file.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import itertools
import json
import os
import platform
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tools" / "llamacpp" / "results.json"
FIXTURES = ROOT / "crates" / "engine" / "tests" / "fixtures" / "gguf"
MODELS_DIR = ROOT / "target" / "llamacpp-models"

# llama-cpp-python 0.3.36 vendors llama.cpp at this commit (vendor/llama.cpp in its sdist).
LLAMA_CPP_PYTHON = "0.3.36"
LLAMA_CPP_COMMIT = "0c1e57098bba43ac29e6e3b677cdceebdd22334f"

# llama-cpp-python's copy of ggml_type and llama_ftype numbers (ggml.h, llama.h)
GGML_TYPE = {"f32": 0, "f16": 1, "q4_0": 2, "q8_0": 8}
FTYPE = {Q.F32: 0, Q.F16: 1, Q.Q4_0: 2, Q.Q8_0: 7, Q.Q4_K: 15}  # LLAMA_FTYPE_MOSTLY_*


@dataclass
class Spec:
    """One generated model: its shape, weight type and the extras its architecture needs."""

    name: str
    arch: str
    weight_type: Q
    n_embd: int
    n_layer: int
    n_head: int
    n_head_kv: int
    n_ff: int
    n_vocab: int
    tied_output: bool = False
    qkv_bias: bool = False
    sliding_window: int = 0
    n_expert: int = 0
    n_expert_used: int = 0
    full_fixture: bool = False
    context_length: int = 4096

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head


MODELS = [
    Spec("tiny-llama-f16", "llama", Q.F16, 64, 2, 4, 2, 128, 288, tied_output=True, full_fixture=True),
    Spec("llama-f16", "llama", Q.F16, 256, 4, 8, 4, 512, 512),
    Spec("llama-q8_0", "llama", Q.Q8_0, 256, 4, 8, 4, 512, 512),
    Spec("llama-q4_0-tied", "llama", Q.Q4_0, 256, 4, 8, 2, 768, 512, tied_output=True),
    Spec("llama-q4_k", "llama", Q.Q4_K, 256, 4, 8, 4, 512, 512),
    Spec("qwen2-q8_0", "qwen2", Q.Q8_0, 256, 4, 8, 2, 512, 512, qkv_bias=True),
    Spec("gemma2-f16-swa", "gemma2", Q.F16, 256, 4, 8, 4, 512, 512, tied_output=True, sliding_window=128),
    Spec("llama-moe-q4_0", "llama", Q.Q4_0, 256, 4, 8, 4, 256, 512, n_expert=4, n_expert_used=2),
]


def tensor_shapes(s: Spec) -> list[tuple[str, list[int], bool]]:
    """(name, ne as ggml orders it, is_matrix) in the order converters write them."""
    q_dim, kv_dim = s.n_head * s.head_dim, s.n_head_kv * s.head_dim
    out = [("token_embd.weight", [s.n_embd, s.n_vocab], True)]
    for i in range(s.n_layer):
        b = f"blk.{i}."
        out += [(b + "attn_norm.weight", [s.n_embd], False)]
        out += [(b + "attn_q.weight", [s.n_embd, q_dim], True),
                (b + "attn_k.weight", [s.n_embd, kv_dim], True),
                (b + "attn_v.weight", [s.n_embd, kv_dim], True)]
        if s.qkv_bias:
            out += [(b + "attn_q.bias", [q_dim], False), (b + "attn_k.bias", [kv_dim], False),
                    (b + "attn_v.bias", [kv_dim], False)]
        out += [(b + "attn_output.weight", [q_dim, s.n_embd], True)]
        if s.arch == "gemma2":
            out += [(b + "post_attention_norm.weight", [s.n_embd], False)]
        out += [(b + "ffn_norm.weight", [s.n_embd], False)]
        if s.n_expert:
            out += [(b + "ffn_gate_inp.weight", [s.n_embd, s.n_expert], False),
                    (b + "ffn_gate_exps.weight", [s.n_embd, s.n_ff, s.n_expert], True),
                    (b + "ffn_down_exps.weight", [s.n_ff, s.n_embd, s.n_expert], True),
                    (b + "ffn_up_exps.weight", [s.n_embd, s.n_ff, s.n_expert], True)]
        else:
            out += [(b + "ffn_gate.weight", [s.n_embd, s.n_ff], True),
                    (b + "ffn_down.weight", [s.n_ff, s.n_embd], True),
                    (b + "ffn_up.weight", [s.n_embd, s.n_ff], True)]
        if s.arch == "gemma2":
            out += [(b + "post_ffw_norm.weight", [s.n_embd], False)]
    out += [("output_norm.weight", [s.n_embd], False)]
    if not s.tied_output:
        out += [("output.weight", [s.n_embd, s.n_vocab], True)]
    return out


def random_q4_k(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """Q4_K blocks of random nibbles whose two f16 scales (d, dmin) are small and finite."""
    block_bytes = gguf.GGML_QUANT_SIZES[Q.Q4_K][1]
    blocks = rng.integers(0, 256, size=(rows, cols // 256, block_bytes), dtype=np.uint8)
    scales = np.full((rows, cols // 256, 2), 0.01, dtype=np.float16).view(np.uint8)
    blocks[:, :, 0:4] = scales
    return blocks.reshape(rows, -1)


def tensor_data(rng: np.random.Generator, ne: list[int], qtype: Q) -> np.ndarray:
    shape = list(reversed(ne))
    values = (rng.standard_normal(shape) * 0.02).astype(np.float32)
    if qtype == Q.F32:
        return values
    if qtype == Q.F16:
        return values.astype(np.float16)
    if qtype == Q.Q4_K:
        rows = int(np.prod(shape[:-1]))
        return random_q4_k(rng, rows, shape[-1]).reshape(*shape[:-1], -1)
    return gguf.quants.quantize(values, qtype)


def add_vocab(w: gguf.GGUFWriter, n_vocab: int) -> None:
    """A SentencePiece-style vocabulary: <unk> <s> </s>, the 256 byte tokens, then plain pieces."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [2, 3, 3] + [6] * 256
    tokens += [f"\u2581t{i}" for i in range(n_vocab - len(tokens))]
    types += [1] * (n_vocab - len(types))
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * n_vocab)
    w.add_token_types(types)
    w.add_unk_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)


def write_model(s: Spec, path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(str(path), s.arch)
    w.add_name(s.name)
    w.add_file_type(FTYPE[s.weight_type])
    w.add_context_length(s.context_length)
    w.add_embedding_length(s.n_embd)
    w.add_block_count(s.n_layer)
    w.add_feed_forward_length(s.n_ff)
    w.add_head_count(s.n_head)
    w.add_head_count_kv(s.n_head_kv)
    w.add_key_length(s.head_dim)
    w.add_value_length(s.head_dim)
    w.add_rope_dimension_count(s.head_dim)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    if s.sliding_window:
        w.add_sliding_window(s.sliding_window)
        w.add_attn_logit_softcapping(50.0)
        w.add_final_logit_softcapping(30.0)
    if s.n_expert:
        w.add_expert_count(s.n_expert)
        w.add_expert_used_count(s.n_expert_used)
    add_vocab(w, s.n_vocab)
    for name, ne, is_matrix in tensor_shapes(s):
        qtype = s.weight_type if is_matrix else Q.F32
        data = tensor_data(rng, ne, qtype)
        w.add_tensor(name, data, raw_dtype=None if qtype in (Q.F32, Q.F16) else qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_fixture(s: Spec, path: Path) -> dict:
    """Copies the header (or, for the tiny model, the whole file) into the engine's fixtures."""
    reader = gguf.GGUFReader(str(path))
    data_offset = int(reader.data_offset)
    raw = path.read_bytes()
    FIXTURES.mkdir(parents=True, exist_ok=True)
    kept = raw if s.full_fixture else raw[:data_offset]
    fixture = FIXTURES / (f"{s.name}.gguf" if s.full_fixture else f"{s.name}.header.gguf")
    fixture.write_bytes(kept)
    return {
        "fixture": str(fixture.relative_to(ROOT)),
        "fixture_is_whole_file": s.full_fixture,
        "file_size": len(raw),
        "data_offset": data_offset,
    }


# ---- llama.cpp runs ---------------------------------------------------------------------------

@contextlib.contextmanager
def captured_stderr():
    """Sends file descriptor 2 (where llama.cpp and its Python logger write) to a temporary file."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        box: dict[str, str] = {}
        try:
            yield box
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            box["text"] = tmp.read().decode("utf-8", "replace")


BUFFER = re.compile(r"^(\w+):\s+(\S+)\s+(model|KV|output|compute|RS) buffer size =\s+([\d.]+) MiB")
KV_SIZE = re.compile(
    r"^llama_kv_cache: size =\s+([\d.]+) MiB \(\s*(\d+) cells,\s+(\d+) layers,\s+(\d+)/(\d+) seqs\), "
    r"K \((\w+)\):\s+([\d.]+) MiB, V \((\w+)\):\s+([\d.]+) MiB"
)
CTX_FIELD = re.compile(r"^llama_context: (\w+)\s+= (.+)$")


KV_LAYER = re.compile(r"^llama_kv_cache: layer\s+(\d+): (dev = \S+|filtered|does not have KV cache)")
CONTEXT_KEYS = ("n_ctx", "n_ctx_seq", "n_batch", "n_ubatch", "n_seq_max", "flash_attn", "n_outputs_max")


def parse_log(text: str) -> dict:
    """The buffer lines, each KV cache's summary with the layers it holds, the context's settings."""
    out: dict = {"buffers": [], "kv_caches": [], "context": {}}
    layers: list[int] = []
    for line in text.splitlines():
        line = line.rstrip()
        if m := BUFFER.match(line):
            out["buffers"].append({"from": m[1], "buffer": m[2], "kind": m[3], "mib": m[4]})
        elif m := KV_LAYER.match(line):
            if m[2].startswith("dev"):
                layers.append(int(m[1]))
        elif m := KV_SIZE.match(line):
            out["kv_caches"].append({
                "mib": m[1], "cells_per_stream": int(m[2]), "layers": int(m[3]),
                "n_seq_max": int(m[4]), "streams": int(m[5]), "type_k": m[6], "k_mib": m[7], "type_v": m[8], "v_mib": m[9],
                "layer_indices": layers,
            })
            layers = []
        elif (m := CTX_FIELD.match(line)) and m[1] in CONTEXT_KEYS:
            out["context"][m[1]] = m[2].strip()
    return out


def by_kind(parsed: dict, kind: str) -> dict[str, str]:
    """{buffer name: MiB as printed}; a name printed twice (two KV caches) is listed as name#2."""
    found: dict[str, str] = {}
    for b in parsed["buffers"]:
        if b["kind"] != kind:
            continue
        key, n = b["buffer"], 2
        while key in found:
            key, n = f"{b['buffer']}#{n}", n + 1
        found[key] = b["mib"]
    return found


class LlamaCpp:
    def __init__(self, threads: int):
        import llama_cpp
        from llama_cpp import _logger

        _logger.set_verbose(True)
        self.ll = llama_cpp
        self.threads = threads
        llama_cpp.llama_backend_init()

    def load(self, path: Path, use_mmap: bool, extra_bufts: bool):
        p = self.ll.llama_model_default_params()
        set_fields(p, n_gpu_layers=0, use_extra_bufts=extra_bufts,
                   load_mode=self.ll.LLAMA_LOAD_MODE_MMAP if use_mmap else self.ll.LLAMA_LOAD_MODE_NONE)
        with captured_stderr() as log:
            model = self.ll.llama_model_load_from_file(str(path).encode(), p)
        if not model:
            raise RuntimeError(f"llama.cpp could not load {path}:\n{log['text'][-3000:]}")
        return model, log["text"]

    def context(self, model, run: dict) -> str:
        c = self.ll.llama_context_default_params()
        set_fields(c, n_ctx=run["n_ctx"], n_batch=run["n_batch"], n_ubatch=run["n_ubatch"],
                   n_seq_max=run["n_seq_max"], kv_unified=run["kv_unified"], swa_full=run["swa_full"],
                   type_k=GGML_TYPE[run["type_k"]], type_v=GGML_TYPE[run["type_v"]],
                   flash_attn_type=1 if run["flash_attn"] else 0,
                   n_threads=self.threads, n_threads_batch=self.threads)
        with captured_stderr() as log:
            ctx = self.ll.llama_init_from_model(model, c)
            if ctx:
                self.ll.llama_free(ctx)
        if not ctx:
            errors = [line for line in log["text"].splitlines() if line.startswith("llama_init_from_model")]
            raise ContextRefused(errors[-1] if errors else log["text"][-500:])
        return log["text"]


class ContextRefused(Exception):
    """llama.cpp declined the settings (e.g. a quantized cache whose block does not divide a head)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason.strip()


def set_fields(params, **values) -> None:
    """Sets ctypes struct fields, refusing names the struct lacks (ctypes would accept them silently)."""
    names = {f[0] for f in type(params)._fields_}
    for name, value in values.items():
        if name not in names:
            raise AttributeError(f"{type(params).__name__} has no field {name} in this llama-cpp-python")
        setattr(params, name, value)


def grid(s: Spec) -> list[dict]:
    """About 50 context settings per model: each axis varied from one base, plus a few crossings."""
    base = dict(n_ctx=1024, n_batch=512, n_ubatch=512, n_seq_max=1, kv_unified=False,
                swa_full=False, type_k="f16", type_v="f16", flash_attn=False)
    runs = []
    for n_ctx, fa in itertools.product([256, 512, 1024, 2048, 4096], [False, True]):
        runs.append({**base, "n_ctx": n_ctx, "flash_attn": fa})
    for n_ubatch, fa in itertools.product([32, 64, 128, 256], [False, True]):
        runs.append({**base, "n_ubatch": n_ubatch, "flash_attn": fa})
    for n_batch, n_ubatch in [(2048, 512), (2048, 2048), (4096, 1024)]:
        runs.append({**base, "n_ctx": 4096, "n_batch": n_batch, "n_ubatch": n_ubatch})
    for n_seq, unified, fa in itertools.product([2, 4, 8], [False, True], [False, True]):
        runs.append({**base, "n_ctx": 2048, "n_seq_max": n_seq, "kv_unified": unified, "flash_attn": fa})
    caches = ["f16", "q8_0", "q4_0"]
    for (k, v), n_ctx in itertools.product(itertools.product(caches, caches), [1024, 4096]):
        runs.append({**base, "n_ctx": n_ctx, "type_k": k, "type_v": v, "flash_attn": True})
    for k in ["q8_0", "q4_0"]:  # a quantized K without flash attention; V stays f16
        runs.append({**base, "type_k": k})
    if s.sliding_window:
        for n_seq, swa_full, fa in itertools.product([1, 4], [False, True], [False, True]):
            runs.append({**base, "n_ctx": 4096, "n_seq_max": n_seq, "swa_full": swa_full, "flash_attn": fa})
    unique = []
    for r in runs:
        if r not in unique:
            unique.append(r)
    return unique


def measure(specs: list[Spec], threads: int, limit_runs: int | None) -> tuple[list, list]:
    llama = LlamaCpp(threads)
    models, runs = [], []
    MODELS_DIR.mkdir(parents=True, exist_ok=True)
    for seed, s in enumerate(specs):
        path = MODELS_DIR / f"{s.name}.gguf"
        write_model(s, path, seed)
        info = {"name": s.name, **asdict_spec(s), **write_fixture(s, path)}
        # the model each run uses: no mmap, no repacking, so every tensor sits in one CPU buffer
        model, load_log = llama.load(path, use_mmap=False, extra_bufts=False)
        info["llama_model_size"] = int(llama.ll.llama_model_size(model))
        info["llama_model_n_params"] = int(llama.ll.llama_model_n_params(model))
        info["load"] = {"use_mmap": False, "use_extra_bufts": False,
                        "model_buffers_mib": by_kind(parse_log(load_log), "model")}
        # the default a user gets: mmap, and repacked buffers for the weights the CPU can repack
        other, other_log = llama.load(path, use_mmap=True, extra_bufts=True)
        info["load_default"] = {"use_mmap": True, "use_extra_bufts": True,
                                "model_buffers_mib": by_kind(parse_log(other_log), "model")}
        llama.ll.llama_model_free(other)
        for r in grid(s)[:limit_runs]:
            try:
                parsed = parse_log(llama.context(model, r))
            except ContextRefused as refused:
                runs.append({"model": s.name, "inputs": r, "refused": refused.reason})
                print(f"{s.name:18} {short(r):58} refused: {refused.reason}", flush=True)
                continue
            runs.append({
                "model": s.name, "inputs": r,
                "kv_buffers_mib": by_kind(parsed, "KV"),
                "kv_caches": parsed["kv_caches"],
                "output_buffers_mib": by_kind(parsed, "output"),
                "compute_buffers_mib": by_kind(parsed, "compute"),
                "context": parsed["context"],
            })
            print(f"{s.name:18} {short(r):58} KV {runs[-1]['kv_buffers_mib']} "
                  f"compute {runs[-1]['compute_buffers_mib']}", flush=True)
        llama.ll.llama_model_free(model)
        models.append(info)
    return models, runs


def asdict_spec(s: Spec) -> dict:
    d = asdict(s)
    d["weight_type"] = s.weight_type.name
    d.pop("name")
    return d


def short(r: dict) -> str:
    return (f"ctx {r['n_ctx']} b {r['n_batch']}/{r['n_ubatch']} seq {r['n_seq_max']}"
            f"{'u' if r['kv_unified'] else ''} {r['type_k']}/{r['type_v']} fa {int(r['flash_attn'])}"
            f"{' swa_full' if r['swa_full'] else ''}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", help="comma-separated model names (default: all)")
    ap.add_argument("--limit-runs", type=int, help="at most this many context runs per model")
    ap.add_argument("--fixtures-only", action="store_true", help="write models and fixtures, load nothing")
    args = ap.parse_args()
    specs = [s for s in MODELS if not args.only or s.name in args.only.split(",")]
    t0 = time.monotonic()
    if args.fixtures_only:
        MODELS_DIR.mkdir(parents=True, exist_ok=True)
        for seed, s in enumerate(specs):
            path = MODELS_DIR / f"{s.name}.gguf"
            write_model(s, path, seed)
            print(s.name, write_fixture(s, path))
        return
    import llama_cpp

    models, runs = measure(specs, args.threads, args.limit_runs)
    write_results({
        "what": "buffer sizes llama.cpp prints while loading small random-weight GGUF models on its "
                "CPU backend; figures are MiB strings exactly as printed (%.2f)",
        **provenance(llama_cpp),
        "threads": args.threads,
        "grid_seconds": round(time.monotonic() - t0, 1),
        "models": models,
        "runs": runs,
    })
    print(f"wrote {RESULTS.relative_to(ROOT)}: {len(models)} models, {len(runs)} runs "
          f"in {time.monotonic() - t0:.0f} s")


def write_results(results: dict, path: Path = RESULTS, lists: tuple = ("models", "runs")) -> None:
    """JSON with one item of each of `lists` per line, so a diff shows which figures moved."""
    head = {k: v for k, v in results.items() if k not in lists}
    lines = json.dumps(head, indent=1)[:-2].splitlines()
    for key in lists:
        items = [" " * 2 + json.dumps(item) for item in results[key]]
        lines[-1] += ","
        lines += [f' "{key}": [', ",\n".join(items), " ]"]
    path.write_text("\n".join(lines) + "\n}\n")
    json.loads(path.read_text())  # still one valid JSON document


def provenance(llama_cpp) -> dict:
    """Which llama.cpp measured, and on what: the fields every results file starts with."""
    return {
        "llama_cpp_python": llama_cpp.__version__,
        "llama_cpp_commit": LLAMA_CPP_COMMIT if llama_cpp.__version__ == LLAMA_CPP_PYTHON else "unknown",
        "gguf_python": package_version("gguf"),
        "machine": {"system": platform.system(), "machine": platform.machine(),
                    "cpu_features": llama_cpp.llama_print_system_info().decode().strip()},
    }


def package_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


if __name__ == "__main__":
    main()
