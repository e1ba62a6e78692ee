#!/usr/bin/env python3
"""llama.cpp's own memory figures for multimodal projectors (mmproj), on small random-weight files.

Writes a few small vision-tower GGUF files ("mmproj", general.architecture = "clip") with the
`gguf` package, laid out as llama.cpp's converters write them (Gemma 3's SigLIP tower with its
`gemma3` projector, as conversion/gemma.py writes it, and a LLaVA-1.5 CLIP tower with the `mlp`
projector, as tools/mtmd/legacy-models/convert_image_encoder_to_gguf.py writes it). For each one it
writes a tiny llama text model whose n_embd equals the projector's output width (mtmd refuses a
mismatch), loads that with llama-cpp-python on the CPU backend, then creates an mtmd context from
the projector (clip.cpp inside libmtmd) with flash attention off, on and auto, and records what
clip.cpp prints on file descriptor 2: the projector's hyper-parameters, `model size`, every
tensor's exact byte size (clip.cpp's default logger prints its debug lines too), the warmup image
size, the compute buffer and whether flash attention ended up enabled.

Outputs:
  tools/llamacpp/mmproj_results.json                     each projector and each mtmd run
  crates/engine/tests/fixtures/mmproj/mmproj-*.header.gguf each projector's header (everything
                                                           before the tensor data; apart from the
                                                           language models' fixtures in gguf/)

Run: .venv-llamacpp/bin/python tools/llamacpp/measure_mmproj.py   (a few seconds; see README.md
beside this file for building .venv-llamacpp). Deterministic: fixed seeds, so the fixtures are
rewritten byte for byte unless the `gguf` package or this script changes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure_llamacpp import (  # noqa: E402  (the sibling script; importing it runs nothing)
    MODELS_DIR, ROOT, Spec, captured_stderr, provenance, set_fields, write_model, write_results,
)

RESULTS = ROOT / "tools" / "llamacpp" / "mmproj_results.json"
FIXTURES = ROOT / "crates" / "engine" / "tests" / "fixtures" / "mmproj"

# llama.h: enum llama_flash_attn_type (mtmd_context_params.flash_attn_type takes the same values)
FLASH_ATTN = {"off": 0, "on": 1, "auto": -1}

CLIP_MEAN, CLIP_STD = [0.48145466, 0.4578275, 0.40821073], [0.26862954, 0.26130258, 0.27577711]


@dataclass
class Tower:
    """One generated projector file: the vision tower's shape and the projector on top of it."""

    name: str
    projector_type: str  # clip.projector_type: "gemma3" or "mlp"
    image_size: int
    patch_size: int
    embedding_length: int  # the tower's width (clip.vision.embedding_length)
    feed_forward_length: int
    block_count: int
    head_count: int
    projection_dim: int  # the text model's n_embd: the projector's output width
    layer_norm_epsilon: float
    use_gelu: bool
    image_mean: list
    image_std: list

    @property
    def n_patches(self) -> int:
        return (self.image_size // self.patch_size) ** 2


TOWERS = [
    # Gemma 3 (SigLIP): 16 x 16 patches, average-pooled 4 x 4 into 16 image tokens
    Tower("gemma3-224-e128", "gemma3", 224, 14, 128, 512, 2, 4, 256, 1e-6, True, [0.5] * 3, [0.5] * 3),
    # 32 x 32 patches -> 64 tokens; 6 heads of 32
    Tower("gemma3-448-e192", "gemma3", 448, 14, 192, 768, 3, 6, 384, 1e-6, True, [0.5] * 3, [0.5] * 3),
    # Gemma 3's real input: 896 / 14 = 64 x 64 = 4096 patches -> 256 tokens
    Tower("gemma3-896-e256", "gemma3", 896, 14, 256, 1024, 2, 4, 512, 1e-6, True, [0.5] * 3, [0.5] * 3),
    # LLaVA-1.5 (CLIP ViT-L/14-336 layout): 24 x 24 patches + a class token, quick-GELU, 2-layer MLP
    Tower("llava-mlp-336-e256", "mlp", 336, 14, 256, 1024, 4, 8, 512, 1e-5, False, CLIP_MEAN, CLIP_STD),
]


def tower_tensors(t: Tower) -> list[tuple[str, list[int], Q]]:
    """(name, ne as ggml orders it, type) in the order the converters write them.

    Types follow the converters for an f16 file: 2-D weights f16, 1-D tensors f32; for gemma3 the
    SigLIP embeddings (patch and position) are forced to f32 and `input_projection` to f16
    (Gemma3VisionModel.tensor_force_quant); the legacy LLaVA converter stores the 4-D patch kernel
    as f16 and the class embedding as f32.
    """
    e, ff, p = t.embedding_length, t.feed_forward_length, t.patch_size
    gemma3 = t.projector_type == "gemma3"
    embd_type = Q.F32 if gemma3 else Q.F16
    n_pos = t.n_patches + (0 if gemma3 else 1)  # CLIP has a class token, SigLIP has none
    out: list[tuple[str, list[int], Q]] = []
    if not gemma3:
        out += [("v.class_embd", [e], Q.F32)]
    out += [("v.patch_embd.weight", [p, p, 3, e], embd_type),
            ("v.patch_embd.bias", [e], Q.F32),
            ("v.position_embd.weight", [e, n_pos], embd_type)]
    if not gemma3:
        out += [("v.pre_ln.weight", [e], Q.F32), ("v.pre_ln.bias", [e], Q.F32)]
    for i in range(t.block_count):
        b = f"v.blk.{i}."
        for proj in ("attn_k", "attn_v", "attn_q", "attn_out"):
            out += [(b + proj + ".weight", [e, e], Q.F16), (b + proj + ".bias", [e], Q.F32)]
        out += [(b + "ln1.weight", [e], Q.F32), (b + "ln1.bias", [e], Q.F32),
                (b + "ffn_up.weight", [e, ff], Q.F16), (b + "ffn_up.bias", [ff], Q.F32),
                (b + "ffn_down.weight", [ff, e], Q.F16), (b + "ffn_down.bias", [e], Q.F32),
                (b + "ln2.weight", [e], Q.F32), (b + "ln2.bias", [e], Q.F32)]
    if gemma3:
        out += [("v.post_ln.weight", [e], Q.F32), ("v.post_ln.bias", [e], Q.F32),
                # ne[0] is the text width: clip_n_mmproj_embd reads mm_input_proj_w->ne[0]
                ("mm.input_projection.weight", [t.projection_dim, e], Q.F16),
                ("mm.soft_emb_norm.weight", [e], Q.F32)]
    else:
        # LLaVA skips CLIP's post_layernorm (it takes the penultimate layer's output)
        d = t.projection_dim
        out += [("mm.0.weight", [e, d], Q.F16), ("mm.0.bias", [d], Q.F32),
                ("mm.2.weight", [d, d], Q.F16), ("mm.2.bias", [d], Q.F32)]
    return out


def write_tower(t: Tower, path: Path, seed: int) -> dict:
    """Writes the projector file; returns the tensor-byte sum the gguf writer holds, per tensor too."""
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(str(path), "clip")
    w.add_type(gguf.GGUFType.MMPROJ)
    w.add_name(t.name)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_clip_has_vision_encoder(True)
    if t.projector_type == "mlp":  # keys the legacy LLaVA converter writes
        w.add_bool("clip.has_text_encoder", False)
        w.add_bool("clip.has_llava_projector", True)
        w.add_description("image encoder for LLaVA")
    w.add_clip_projector_type(t.projector_type)
    w.add_vision_projection_dim(t.projection_dim)
    w.add_vision_image_size(t.image_size)
    w.add_vision_patch_size(t.patch_size)
    w.add_vision_embedding_length(t.embedding_length)
    w.add_vision_feed_forward_length(t.feed_forward_length)
    w.add_vision_block_count(t.block_count)
    w.add_vision_head_count(t.head_count)
    w.add_vision_image_mean(t.image_mean)
    w.add_vision_image_std(t.image_std)
    w.add_vision_attention_layernorm_eps(t.layer_norm_epsilon)
    w.add_vision_use_gelu(t.use_gelu)
    for name, ne, qtype in tower_tensors(t):
        values = (rng.standard_normal(list(reversed(ne))) * 0.02).astype(np.float32)
        if name.endswith(("ln1.weight", "ln2.weight", "post_ln.weight", "pre_ln.weight", "soft_emb_norm.weight")):
            values += 1.0  # norm scales near one
        w.add_tensor(name, values.astype(np.float16) if qtype == Q.F16 else values)
    infos = {name: ti for shard in w.tensors for name, ti in shard.items()}
    per_tensor = {name: int(ti.nbytes) for name, ti in infos.items()}
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return {"n_tensors": len(per_tensor), "tensor_bytes": sum(per_tensor.values()),
            "tensor_bytes_padded_32": sum(-(-n // 32) * 32 for n in per_tensor.values()),
            "per_tensor_bytes": per_tensor}


def write_header_fixture(t: Tower, path: Path) -> dict:
    reader = gguf.GGUFReader(str(path))
    data_offset = int(reader.data_offset)
    # the reader's own view of the tensors, as a cross-check of the writer's byte count
    reader_bytes = sum(int(rt.n_bytes) for rt in reader.tensors)
    raw = path.read_bytes()
    FIXTURES.mkdir(parents=True, exist_ok=True)
    fixture = FIXTURES / f"mmproj-{t.name}.header.gguf"
    fixture.write_bytes(raw[:data_offset])
    return {"fixture": str(fixture.relative_to(ROOT)), "file_size": len(raw),
            "data_offset": data_offset, "reader_tensor_bytes": reader_bytes}


def text_spec(t: Tower) -> Spec:
    """A one-layer llama whose n_embd is the projector's output width."""
    return Spec(f"text-for-{t.name}", "llama", Q.F16, t.projection_dim, 1, 4, 4, 256, 288)


# ---- clip.cpp's log -----------------------------------------------------------------------------

TENSOR_LINE = re.compile(r"^clip_model_loader: tensor\[(\d+)\]: n_dims = (\d+), name = (\S+), "
                         r"tensor_size=(\d+), offset=(\d+), shape:\[([\d, ]+)\], type = (\w+)")
HPARAM = re.compile(r"^load_hparams: (projector|n_embd|n_head|n_ff|n_layer|ffn_op|projection_dim|image_size|"
                    r"patch_size|has_llava_proj|minicpmv_version|n_merge|n_wa_pattern):\s+(\S.*)$")
MODEL_SIZE = re.compile(r"^load_hparams: model size:\s+([\d.]+) MiB")
META_SIZE = re.compile(r"^load_hparams: metadata size:\s+([\d.]+) MiB")
WARMUP = re.compile(r"^(\w+): warmup with image size = (\d+) x (\d+)")
COMPUTE = re.compile(r"^(\w+):\s+(\S+) compute buffer size =\s+([\d.]+) MiB")
FLASH = re.compile(r"^(\w+): flash attention is (enabled|disabled)")
SPLITS = re.compile(r"^(\w+): graph splits = (\d+), nodes = (\d+)")
BACKEND = re.compile(r"^clip_ctx: CLIP using (\S+) backend")


def parse_clip_log(text: str) -> dict:
    out: dict = {"lines": [], "tensors": [], "hparams": {}, "compute_buffers_mib": [], "graphs": []}
    for line in text.splitlines():
        line = line.rstrip()
        if not line.strip():
            continue
        if m := TENSOR_LINE.match(line):
            out["tensors"].append({"name": m[3], "bytes": int(m[4]), "offset": int(m[5]), "type": m[7],
                                   "ne": [int(x) for x in m[6].split(",")]})
            continue  # one line per tensor: kept parsed, not verbatim
        out["lines"].append(line)
        if m := HPARAM.match(line):
            out["hparams"][m[1]] = m[2].strip()
        elif m := MODEL_SIZE.match(line):
            out["model_size_mib"] = m[1]
        elif m := META_SIZE.match(line):
            out["metadata_size_mib"] = m[1]
        elif m := WARMUP.match(line):
            out["warmup_image_size"] = [int(m[2]), int(m[3])]
        elif m := COMPUTE.match(line):
            out["compute_buffers_mib"].append({"from": m[1], "buffer": m[2], "mib": m[3]})
        elif m := FLASH.match(line):
            out["flash_attention"] = m[2]
        elif m := SPLITS.match(line):
            out["graphs"].append({"splits": int(m[2]), "nodes": int(m[3])})
        elif m := BACKEND.match(line):
            out["backend"] = m[1]
    return out


class Runner:
    def __init__(self, threads: int):
        import llama_cpp
        from llama_cpp import _logger, mtmd_cpp

        _logger.set_verbose(True)
        self.ll, self.mtmd, self.threads = llama_cpp, mtmd_cpp, threads
        llama_cpp.llama_backend_init()

    def load_text(self, path: Path):
        p = self.ll.llama_model_default_params()
        set_fields(p, n_gpu_layers=0, use_extra_bufts=False, load_mode=self.ll.LLAMA_LOAD_MODE_NONE)
        with captured_stderr() as log:
            model = self.ll.llama_model_load_from_file(str(path).encode(), p)
        if not model:
            raise RuntimeError(f"llama.cpp could not load {path}:\n{log['text'][-3000:]}")
        return model

    def mtmd_run(self, mmproj: Path, model, fa: str) -> tuple[bool, str]:
        params = self.mtmd.mtmd_context_params_default()
        set_fields(params, use_gpu=False, flash_attn_type=FLASH_ATTN[fa], warmup=True,
                   print_timings=False, n_threads=self.threads)
        with captured_stderr() as log:
            ctx = self.mtmd.mtmd_init_from_file(str(mmproj).encode(), model, params)
            if ctx:
                self.mtmd.mtmd_free(ctx)
        return bool(ctx), log["text"]


def measure(towers: list[Tower], threads: int) -> tuple[list, list]:
    runner = Runner(threads)
    projectors, runs = [], []
    MODELS_DIR.mkdir(parents=True, exist_ok=True)
    for i, t in enumerate(towers):
        path = MODELS_DIR / f"mmproj-{t.name}.gguf"
        written = write_tower(t, path, seed=100 + i)
        info = {"name": t.name, **asdict(t), "n_patches": t.n_patches, **write_header_fixture(t, path),
                **{k: v for k, v in written.items() if k != "per_tensor_bytes"}}
        info["tensor_mib"] = f"{written['tensor_bytes'] / 1024 / 1024:.2f}"
        spec = text_spec(t)
        text_path = MODELS_DIR / f"{spec.name}.gguf"
        write_model(spec, text_path, seed=200 + i)
        info["text_model"] = {"name": spec.name, "arch": spec.arch, "n_embd": spec.n_embd,
                              "n_layer": spec.n_layer, "n_head": spec.n_head, "n_vocab": spec.n_vocab}
        model = runner.load_text(text_path)
        for fa in ("off", "on", "auto"):
            ok, text = runner.mtmd_run(path, model, fa)
            parsed = parse_clip_log(text)
            if not ok:
                raise RuntimeError(f"mtmd refused {path.name} (flash attention {fa}):\n" + "\n".join(parsed["lines"][-40:]))
            printed = {tt["name"]: tt["bytes"] for tt in parsed["tensors"]}
            if "printed_tensor_bytes" not in info:
                info["printed_tensor_bytes"] = sum(printed.values())
                info["printed_tensors_match_writer"] = printed == written["per_tensor_bytes"]
                info["model_size_mib_printed"] = parsed.get("model_size_mib")
                info["hparams_printed"] = parsed["hparams"]
                # clip.cpp's debug line per tensor (load order): name, type, ne, bytes
                info["tensors_printed"] = [[tt["name"], tt["type"], tt["ne"], tt["bytes"]] for tt in parsed["tensors"]]
            run = {"projector": t.name, "flash_attn_requested": fa,
                   "flash_attention": parsed.get("flash_attention"),
                   "backend": parsed.get("backend"),
                   "model_size_mib": parsed.get("model_size_mib"),
                   "metadata_size_mib": parsed.get("metadata_size_mib"),
                   "warmup_image_size": parsed.get("warmup_image_size"),
                   "compute_buffers_mib": parsed["compute_buffers_mib"],
                   "graphs": parsed["graphs"],
                   # verbatim, except the checkout's absolute path (load_tensors names the file)
                   "lines": [line.replace(f"{ROOT}/", "") for line in parsed["lines"]]}
            runs.append(run)
            cb = ", ".join(f"{c['buffer']} {c['mib']}" for c in run["compute_buffers_mib"])
            print(f"{t.name:20} fa {fa:4} -> {run['flash_attention']:8} model {run['model_size_mib']} MiB "
                  f"(writer {info['tensor_mib']}) compute {cb} MiB", flush=True)
        runner.ll.llama_model_free(model)
        projectors.append(info)
    return projectors, runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", help="comma-separated projector names (default: all)")
    ap.add_argument("--fixtures-only", action="store_true", help="write projectors and header fixtures, load nothing")
    args = ap.parse_args()
    towers = [t for t in TOWERS if not args.only or t.name in args.only.split(",")]
    t0 = time.monotonic()
    if args.fixtures_only:
        MODELS_DIR.mkdir(parents=True, exist_ok=True)
        for i, t in enumerate(towers):
            path = MODELS_DIR / f"mmproj-{t.name}.gguf"
            written = write_tower(t, path, seed=100 + i)
            print(t.name, written["tensor_bytes"], write_header_fixture(t, path))
        return
    import llama_cpp

    projectors, runs = measure(towers, args.threads)
    write_results(path=RESULTS, lists=("projectors", "runs"), results={
        "what": "what clip.cpp (llama.cpp's tools/mtmd, via libmtmd) prints while creating an mtmd context "
                "from small random-weight mmproj files on the CPU backend (use_gpu = false, warmup on); "
                "MiB are strings exactly as printed (%.2f); tensor_bytes is the sum of the gguf writer's "
                "tensor sizes, printed_tensor_bytes the sum of clip.cpp's per-tensor debug lines",
        **provenance(llama_cpp),
        "threads": args.threads,
        "seconds": round(time.monotonic() - t0, 1),
        "projectors": projectors,
        "runs": runs,
    })
    print(f"wrote {RESULTS.relative_to(ROOT)}: {len(projectors)} projectors, {len(runs)} runs "
          f"in {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    main()
