"""`dequantize-gguf`: a quantized GGUF model rewritten with every tensor dequantized (F32, or F16),
metadata unchanged: the base to serve a LoRA student over when its replies must match the torch
student's.

Why: the trainer loads a quantized GGUF through transformers, which dequantizes it, so the student
is trained on the dequantized weights in float32. llama.cpp, serving the quantized file, multiplies
those weights with activations it quantizes too (8-bit blocks for the k-quant kernels), which moves
Gemma 3 270M's next-token probabilities by up to 0.1-0.2 on 800-token lm prompts: greedy replies part
ways. Over the F32 copy, llama.cpp + the adapter matches transformers + PEFT to about 1e-3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .data import InputError

#: Output types: F32 keeps the dequantized values exactly; F16 halves the file and rounds them.
TYPES = ("f32", "f16")


def dequantize_gguf(src: str, out: str, kind: str = "f32") -> dict[str, Any]:
    """Writes `src` to `out` with every tensor dequantized to `kind`; returns a summary."""
    import gguf
    import numpy as np
    from gguf.quants import dequantize

    if kind not in TYPES:
        raise InputError(f"{kind}: not one of {', '.join(TYPES)}", "--type")
    if not Path(src).is_file():
        raise InputError(f"{src}: no such file", "--gguf")
    if Path(out).resolve() == Path(src).resolve():
        raise InputError(f"{out}: is the input file", "--out")
    try:
        r = gguf.GGUFReader(src)
    except Exception as e:  # noqa: BLE001 - gguf raises ValueError, struct.error, ... on a bad file
        raise InputError(f"{src}: not a readable GGUF file ({type(e).__name__}: {e})", "--gguf") from None
    arch_field = r.fields.get("general.architecture")
    if arch_field is None:
        raise InputError(f"{src}: no general.architecture in its metadata", "--gguf")
    dtype = np.float32 if kind == "f32" else np.float16
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    w = gguf.GGUFWriter(out, str(arch_field.contents()))
    # the writer sets the architecture itself; the file type and quantization version change
    skip = {"general.architecture", "general.file_type", "general.quantization_version"}
    for key, f in r.fields.items():
        if key.startswith("GGUF.") or key in skip:
            continue
        if f.types[0] == gguf.GGUFValueType.ARRAY:
            w.add_key_value(key, f.contents(), f.types[0], sub_type=f.types[-1])
        else:
            w.add_key_value(key, f.contents(), f.types[0])
    w.add_file_type(gguf.LlamaFileType.ALL_F32 if kind == "f32" else gguf.LlamaFileType.MOSTLY_F16)
    for t in r.tensors:
        data = dequantize(t.data, t.tensor_type)
        # norms and other 1-D tensors stay F32, as llama.cpp's own F16 conversion keeps them
        data = data.astype(np.float32 if len(t.shape) == 1 else dtype)
        w.add_tensor(t.name, data.reshape(tuple(int(x) for x in reversed(t.shape))))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return {"out": out, "gguf": src, "type": kind, "tensors": len(r.tensors), "bytes": Path(out).stat().st_size}
