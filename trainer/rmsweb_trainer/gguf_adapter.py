"""`export-gguf`: a PEFT LoRA adapter (what `--lora` runs keep in DIR/adapter/) written as a llama.cpp
LoRA adapter GGUF, so `rmsweb serve-model --gguf BASE --lora FILE.gguf` serves the fine-tuned student
over the base GGUF it was trained from.

The format is the one llama.cpp's convert_lora_to_gguf.py writes and llama-adapter.cpp checks:
general.type "adapter", adapter.type "lora", adapter.lora.alpha (f32), general.architecture equal to
the base model's; per adapted weight W (ggml ne [in, out]) a pair `<W's name>.lora_a` (ne [in, rank])
and `.lora_b` (ne [rank, out]). GGUFWriter reverses numpy shapes into ne, so PEFT's own layouts,
lora_A (rank, in) and lora_B (out, rank), go in unchanged. llama.cpp applies scale * alpha / rank.

The tensor names map from transformers' module names. That is only right for architectures whose
GGUF conversion leaves the projections as transformers has them: llama.cpp permutes the rows of
Llama's q/k (and transformers' GGUF loader undoes it), so a Llama adapter's lora_B would need the
same permutation. Gemma 3's conversion changes only the RMSNorm weights (stored as 1 + w, which
transformers' Gemma2TensorProcessor undoes) and no projection, so ARCHITECTURES holds it alone until
another is checked the same way.
"""

from __future__ import annotations

import json
import math
import mmap
import re
import struct
from pathlib import Path
from typing import Any

from .data import InputError

#: Architectures whose projections llama.cpp stores as transformers has them (see the module doc).
ARCHITECTURES = {"gemma3"}

#: transformers' projection module -> llama.cpp's tensor name inside blk.N.
PROJECTIONS = {
    "q_proj": "attn_q",
    "k_proj": "attn_k",
    "v_proj": "attn_v",
    "o_proj": "attn_output",
    "gate_proj": "ffn_gate",
    "up_proj": "ffn_up",
    "down_proj": "ffn_down",
}

_KEY = re.compile(r"(?:^|\.)layers\.(\d+)\.(?:self_attn|mlp)\.(\w+)\.lora_([AB])\.weight$")

#: What rmsweb-trainer.json records of a LoRA run (lm.save_checkpoint writes it).
TRAINER_META = "rmsweb-trainer.json"


def resolve_adapter(path: str) -> tuple[Path, str | None]:
    """The PEFT adapter folder and the base model it was trained on: `path` is a checkpoint folder
    whose rmsweb-trainer.json names its adapter (a `--lora` run), or an adapter folder itself."""
    p = Path(path)
    if not p.is_dir():
        raise InputError(f"{path}: no such folder", "--adapter")
    meta_file = p / TRAINER_META
    if (p / "adapter_config.json").is_file():
        meta_file = p.parent / TRAINER_META
        meta = _read_meta(meta_file) if meta_file.is_file() else {}
        return p, (meta.get("adapter") or {}).get("base")
    if not meta_file.is_file():
        raise InputError(f"{path}: neither a PEFT adapter folder (no adapter_config.json) nor a checkpoint", "--adapter")  # fmt: skip
    adapter = _read_meta(meta_file).get("adapter")
    if not isinstance(adapter, dict) or not adapter.get("dir"):
        raise InputError(f"{meta_file}: field adapter is missing: the checkpoint was not trained with --lora (its weights are merged; there is no adapter to export)", "--adapter")  # fmt: skip
    folder = p / str(adapter["dir"])
    if not (folder / "adapter_config.json").is_file():
        raise InputError(f"{folder}: the adapter folder rmsweb-trainer.json names has no adapter_config.json", "--adapter")  # fmt: skip
    base = adapter.get("base")
    return folder, base if isinstance(base, str) else None


def _read_meta(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not valid JSON ({e})", "--adapter") from None
    if not isinstance(meta, dict):
        raise InputError(f"{path}: must be a JSON object", "--adapter")
    return meta


def read_peft_config(folder: Path) -> dict[str, Any]:
    """adapter_config.json of a PEFT folder."""
    cfg_file = folder / "adapter_config.json"
    try:
        cfg = json.loads(cfg_file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{cfg_file}: not valid JSON ({e})", "--adapter") from None
    if not isinstance(cfg, dict):
        raise InputError(f"{cfg_file}: must be a JSON object", "--adapter")
    return cfg


def read_peft_tensors(folder: Path) -> dict[str, Any]:
    """The adapter's tensors (adapter_model.safetensors) of a PEFT folder."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    weights = folder / "adapter_model.safetensors"
    if not weights.is_file():
        raise InputError(f"{weights}: missing (PEFT's save_pretrained writes it)", "--adapter")
    try:
        return load_file(str(weights))
    except SafetensorError as e:
        raise InputError(f"{weights}: not a safetensors file ({e})", "--adapter") from None


def check_config(cfg: dict[str, Any], where: str) -> float:
    """The alpha llama.cpp must be given so that its alpha / rank is PEFT's scaling; refuses what a
    llama.cpp LoRA cannot express."""

    def bad(field: str, why: str) -> InputError:
        return InputError(f"{where}: field {field}: {why}", "--adapter")

    if cfg.get("peft_type", "LORA") != "LORA":
        raise bad("peft_type", f"{cfg.get('peft_type')!r}: only LORA adapters have a llama.cpp form")
    if cfg.get("use_dora"):
        raise bad("use_dora", "DoRA adapters are not supported by llama.cpp")
    if cfg.get("lora_bias"):
        raise bad("lora_bias", "LoRA biases are not supported by llama.cpp")
    if cfg.get("modules_to_save"):
        raise bad("modules_to_save", "fully trained modules cannot go into a LoRA adapter GGUF")
    for f in ("rank_pattern", "alpha_pattern"):
        if cfg.get(f):
            raise bad(f, "per-module ranks or alphas are not supported (one alpha for all, as llama.cpp has)")
    r, alpha = cfg.get("r"), cfg.get("lora_alpha")
    if not isinstance(r, int) or r < 1 or not isinstance(alpha, (int, float)):
        raise bad("r/lora_alpha", f"need a positive integer r and a number lora_alpha, got {r!r}, {alpha!r}")
    # rsLoRA scales by alpha / sqrt(r); llama.cpp by alpha' / r: alpha' = alpha * sqrt(r)
    return float(alpha) * math.sqrt(r) if cfg.get("use_rslora") else float(alpha)


def adapter_tensors(tensors: dict[str, Any], where: str) -> dict[str, tuple[Any, Any]]:
    """PEFT's lora_A/lora_B weights by llama.cpp base tensor name (blk.N.attn_q.weight, ...)."""
    pairs: dict[str, dict[str, Any]] = {}
    for key, t in tensors.items():
        m = _KEY.search(key)
        if not m or m.group(2) not in PROJECTIONS:
            raise InputError(f"{where}: tensor {key} is not a LoRA weight of an attention or MLP projection (only those have a llama.cpp form)", "--adapter")  # fmt: skip
        name = f"blk.{m.group(1)}.{PROJECTIONS[m.group(2)]}.weight"
        pairs.setdefault(name, {})[m.group(3)] = t
    out: dict[str, tuple[Any, Any]] = {}
    for name, ab in sorted(pairs.items(), key=lambda kv: _order(kv[0])):
        if set(ab) != {"A", "B"}:
            raise InputError(f"{where}: {name} has lora_{''.join(ab)} but not its pair", "--adapter")
        a, b = ab["A"], ab["B"]
        if a.dim() != 2 or b.dim() != 2 or a.shape[0] != b.shape[1]:
            raise InputError(f"{where}: {name}: lora_A {tuple(a.shape)} and lora_B {tuple(b.shape)} do not make a rank-r pair", "--adapter")  # fmt: skip
        out[name] = (a, b)
    if not out:
        raise InputError(f"{where}: no LoRA tensors", "--adapter")
    return out


def _order(name: str) -> tuple[int, str]:
    return int(name.split(".")[1]), name


#: Byte sizes of GGUF's scalar metadata types (gguf's GGUFValueType numbering).
_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


def gguf_tensor_shapes(path: str) -> tuple[str, dict[str, tuple[int, ...]]]:
    """A GGUF file's general.architecture and its tensors' ggml shapes (ne: [in, out] for a weight),
    read from the header alone. gguf's GGUFReader would do, but it builds an object per element of
    every metadata array: tens of seconds for Gemma's 262,144-token vocabulary."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        if m[:4] != b"GGUF":
            raise ValueError("no GGUF magic")
        version, n_tensors, n_kv = struct.unpack_from("<IQQ", m, 4)
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old")
        pos = 24

        def string() -> str:
            nonlocal pos
            (n,) = struct.unpack_from("<Q", m, pos)
            pos += 8 + n
            return m[pos - n : pos].decode("utf-8", errors="replace")

        def skip(kind: int) -> None:
            nonlocal pos
            if kind in _SCALAR:
                pos += _SCALAR[kind]
            elif kind == _STRING:
                string()
            elif kind == _ARRAY:
                item, count = struct.unpack_from("<IQ", m, pos)
                pos += 12
                if item in _SCALAR:
                    pos += _SCALAR[item] * count
                else:
                    for _ in range(count):
                        skip(item)
            else:
                raise ValueError(f"unknown metadata type {kind}")

        arch = None
        for _ in range(n_kv):
            key = string()
            (kind,) = struct.unpack_from("<I", m, pos)
            pos += 4
            if key == "general.architecture" and kind == _STRING:
                arch = string()
            else:
                skip(kind)
        shapes: dict[str, tuple[int, ...]] = {}
        for _ in range(n_tensors):
            name = string()
            (dims,) = struct.unpack_from("<I", m, pos)
            shapes[name] = struct.unpack_from(f"<{dims}Q", m, pos + 4)
            pos += 4 + 8 * dims + 4 + 8  # the dims, then the type and the data offset
    if arch is None:
        raise ValueError("no general.architecture in its metadata")
    return arch, shapes


def base_tensors(base: str) -> tuple[str, dict[str, tuple[int, ...]]]:
    """gguf_tensor_shapes of the base GGUF, its failures reported as --base's."""
    try:
        return gguf_tensor_shapes(base)
    except (OSError, ValueError, struct.error) as e:
        raise InputError(f"{base}: not a readable GGUF file ({type(e).__name__}: {e})", "--base") from None


def recorded_base(recorded: str, depth: int = 8) -> tuple[str | None, list[str]]:
    """The GGUF a run's recorded base comes from, and the LoRA checkpoints in between, the earliest
    first: a run started from a merged --lora checkpoint (Salvage-DS on a LoRA SFT student) recorded
    that folder, whose own record names its base in turn. llama.cpp serves such a student as those
    checkpoints' adapters, then this one, over that GGUF. (None, []) when the chain ends elsewhere: a
    missing file, or a fully fine-tuned folder, which has no adapter."""
    under: list[str] = []
    current: str | None = recorded
    for _ in range(depth):
        if current is None:
            break
        p = Path(current)
        if p.suffix == ".gguf" and p.is_file():
            return current, under
        meta_file = p / TRAINER_META
        if not p.is_dir() or not meta_file.is_file():
            break
        adapter = _read_meta(meta_file).get("adapter")
        if not isinstance(adapter, dict) or not isinstance(adapter.get("base"), str):
            break
        under.insert(0, str(p))
        current = adapter["base"]
    return None, []


def export_gguf(adapter: str, out: str, base: str | None = None, arch: str | None = None) -> dict[str, Any]:
    """Writes the LoRA adapter at `adapter` (checkpoint or PEFT folder) to `out` as a llama.cpp
    adapter GGUF. The base GGUF (`base`, else the one the run recorded, when it is there, through the
    LoRA checkpoints it started from: recorded_base) gives the architecture and is checked tensor by
    tensor, so a mismatch is refused here, not when llama.cpp loads it. Returns a summary; `under`
    lists the checkpoints whose adapters go first when it is served."""
    import gguf
    import numpy as np

    folder, recorded = resolve_adapter(adapter)
    under: list[str] = []
    if base is None and recorded:
        found, under = recorded_base(recorded)
        base = found
    alpha = check_config(read_peft_config(folder), str(folder / "adapter_config.json"))
    pairs = adapter_tensors(read_peft_tensors(folder), str(folder / "adapter_model.safetensors"))
    shapes: dict[str, tuple[int, ...]] | None = None
    if base is not None:
        base_arch, shapes = base_tensors(base)
        if arch is not None and arch != base_arch:
            raise InputError(f"--arch {arch} but {base} is a {base_arch} model", "--arch")
        arch = base_arch
    if arch is None:
        raise InputError(f"the architecture is unknown: give --base BASE.gguf (the model the adapter was trained on; the run recorded {recorded or 'none'}) or --arch", "--base")  # fmt: skip
    if arch not in ARCHITECTURES:
        raise InputError(f"architecture {arch}: not supported (only {', '.join(sorted(ARCHITECTURES))}: llama.cpp may store other models' projections permuted)", "--base")  # fmt: skip
    if shapes is not None:
        for name, (a, b) in pairs.items():
            want = (int(a.shape[1]), int(b.shape[0]))
            if name not in shapes:
                raise InputError(f"{base} has no tensor {name}: not the model the adapter was trained on", "--base")
            if shapes[name][:2] != want:
                raise InputError(f"{base}: {name} has ggml shape {list(shapes[name])}, the adapter expects {list(want)} ([in, out]): not the model it was trained on", "--base")  # fmt: skip
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    w = gguf.GGUFWriter(out, arch)
    w.add_type(gguf.GGUFType.ADAPTER)
    w.add_string(gguf.Keys.Adapter.TYPE, "lora")
    w.add_float32(gguf.Keys.Adapter.LORA_ALPHA, alpha)
    w.add_name(f"rmsweb LoRA adapter ({folder})")
    ranks = set()
    for name, (a, b) in pairs.items():
        ranks.add(int(a.shape[0]))
        # f32: the adapter is small next to the base, and no rounding separates it from the torch student
        w.add_tensor(f"{name}.lora_a", a.detach().float().cpu().numpy().astype(np.float32))
        w.add_tensor(f"{name}.lora_b", b.detach().float().cpu().numpy().astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return {
        "out": out,
        "adapter": str(folder),
        "base": base,
        "under": under,
        "architecture": arch,
        "alpha": alpha,
        "ranks": sorted(ranks),
        "weights": len(pairs),
        "bytes": Path(out).stat().st_size,
    }
