"""A tiny randomly initialized Gemma 3 written straight to GGUF, which both transformers' GGUF loader
and llama.cpp (node-llama-cpp) load: the base model of the LoRA adapter round-trip test
(`export-gguf`, `serve-model --lora`) without downloading anything.

The shapes follow Gemma 3 270M's GGUF with smaller widths. The head width stays 256 on purpose:
llama.cpp scales attention by 1/sqrt(key_length) while transformers scales by
query_pre_attn_scalar**-0.5, whose default (256) is not in the GGUF; with any other head width the
two runtimes would compute different models from the same file."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np

#: Hidden width, layers, query heads, feed-forward width. Key/value heads: 1; head width: 256.
TINY_GEMMA3 = (64, 2, 2, 128)
HEAD_DIM = 256

#: SentencePiece token types (llama.cpp's llama_token_type / transformers' GGUF converter).
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6


def tiny_vocab() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and types of a small SentencePiece-style vocabulary: Gemma's four special
    tokens at Gemma's ids (pad 0, eos 1, bos 2, unk 3), the 256 byte fallbacks, the word-start marker
    and the printable ASCII characters with and without it."""
    tokens = ["<pad>", "<eos>", "<bos>", "<unk>"]
    types = [CONTROL, CONTROL, CONTROL, UNKNOWN]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [BYTE] * 256
    chars = [chr(c) for c in range(33, 127)]
    words = ["\u2581"] + chars + ["\u2581" + c for c in chars]
    tokens += words
    types += [NORMAL] * len(words)
    scores = [0.0] * 260 + [-float(i + 1) for i in range(len(words))]
    return tokens, scores, types


def write_tiny_gemma3(path: str | Path, seed: int = 0) -> dict[str, int]:
    """Writes a random tiny Gemma 3 as an F32 GGUF at `path`; returns its dimensions."""
    import gguf

    hidden, layers, heads, ffn = TINY_GEMMA3
    tokens, scores, types = tiny_vocab()
    rng = np.random.default_rng(seed)

    def w(*shape: int, scale: float = 0.08) -> np.ndarray:
        # numpy shape (out, in): GGUFWriter reverses it into ggml's ne = [in, out]
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def norm(n: int) -> np.ndarray:
        # GGUF keeps Gemma's RMSNorm weight as 1 + w (transformers subtracts the 1 on load)
        return (1.0 + rng.standard_normal(n) * 0.1).astype(np.float32)

    out = gguf.GGUFWriter(str(path), "gemma3")
    out.add_name("rmsweb tiny gemma3")
    out.add_context_length(512)
    out.add_embedding_length(hidden)
    out.add_block_count(layers)
    out.add_feed_forward_length(ffn)
    out.add_head_count(heads)
    out.add_head_count_kv(1)
    out.add_key_length(HEAD_DIM)
    out.add_value_length(HEAD_DIM)
    out.add_layer_norm_rms_eps(1e-6)
    out.add_rope_freq_base(1_000_000.0)
    out.add_sliding_window(512)
    out.add_file_type(gguf.LlamaFileType.ALL_F32)
    out.add_tokenizer_model("llama")
    out.add_tokenizer_pre("default")
    out.add_token_list(tokens)
    out.add_token_scores(scores)
    out.add_token_types(types)
    out.add_bos_token_id(2)
    out.add_eos_token_id(1)
    out.add_unk_token_id(3)
    out.add_pad_token_id(0)
    out.add_add_bos_token(True)
    out.add_add_eos_token(False)
    out.add_add_space_prefix(False)
    embd = w(len(tokens), hidden, scale=0.1)
    # the output head is the embedding (tied): small rows for the special and byte tokens keep a
    # random model's greedy text printable and free of EOS, so replies compare as whole strings
    embd[:260] *= 0.1
    out.add_tensor("token_embd.weight", embd)
    out.add_tensor("output_norm.weight", norm(hidden))
    for i in range(layers):
        b = f"blk.{i}."
        out.add_tensor(b + "attn_norm.weight", norm(hidden))
        out.add_tensor(b + "attn_q.weight", w(heads * HEAD_DIM, hidden))
        out.add_tensor(b + "attn_k.weight", w(HEAD_DIM, hidden))
        out.add_tensor(b + "attn_v.weight", w(HEAD_DIM, hidden))
        out.add_tensor(b + "attn_q_norm.weight", norm(HEAD_DIM))
        out.add_tensor(b + "attn_k_norm.weight", norm(HEAD_DIM))
        out.add_tensor(b + "attn_output.weight", w(hidden, heads * HEAD_DIM, scale=0.04))
        out.add_tensor(b + "post_attention_norm.weight", norm(hidden))
        out.add_tensor(b + "ffn_norm.weight", norm(hidden))
        out.add_tensor(b + "ffn_gate.weight", w(ffn, hidden))
        out.add_tensor(b + "ffn_up.weight", w(ffn, hidden))
        out.add_tensor(b + "ffn_down.weight", w(hidden, ffn))
        out.add_tensor(b + "post_ffw_norm.weight", norm(hidden))
    out.write_header_to_file()
    out.write_kv_data_to_file()
    out.write_tensors_to_file()
    out.close()
    return {"hidden": hidden, "layers": layers, "heads": heads, "ffn": ffn, "vocab": len(tokens)}


#: Prompts of the round-trip check.
PROMPTS = ["Hello", 'Action: {"click":{"index":3}}', "Search for hotels in Paris"]


def random_lora(model: Any, rank: int = 4, alpha: float = 8.0, seed: int = 0, scale: float = 0.3) -> Any:
    """`model` wrapped in a PEFT LoRA on every attention and MLP projection, with random non-zero
    lora_B (PEFT starts B at zero, which would make any export look right)."""
    import torch
    from peft import LoraConfig, get_peft_model

    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    peft_model = get_peft_model(model, LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=0.0, target_modules=targets))
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=g) * scale)
    return peft_model.eval()


def random_adapter(base: str | Path, out: str | Path, rank: int = 8, alpha: float = 16.0, seed: int = 0, scale: float = 0.05) -> Path:  # fmt: skip
    """A random PEFT LoRA adapter folder for the GGUF model `base`, made from its tensor shapes alone
    (no transformers load: seconds for Gemma 3 270M, where loading it takes a minute): lora_A and
    lora_B normal with std 1/sqrt(in) and `scale`, keyed as PEFT keys a Gemma 3 adapter."""
    from safetensors.numpy import save_file

    from .gguf_adapter import gguf_tensor_shapes

    names = {v: k for k, v in {"q_proj": "attn_q", "k_proj": "attn_k", "v_proj": "attn_v", "o_proj": "attn_output"}.items()}  # fmt: skip
    names.update({"ffn_gate": "gate_proj", "ffn_up": "up_proj", "ffn_down": "down_proj"})
    rng = np.random.default_rng(seed)
    tensors: dict[str, np.ndarray] = {}
    for name, shape in gguf_tensor_shapes(str(base))[1].items():
        parts = name.split(".")
        if len(parts) != 4 or parts[0] != "blk" or parts[2] not in names:
            continue
        n_in, n_out = shape[0], shape[1]  # ggml ne: [in, out]
        group = "self_attn" if parts[2].startswith("attn") else "mlp"
        key = f"base_model.model.model.layers.{parts[1]}.{group}.{names[parts[2]]}"
        tensors[f"{key}.lora_A.weight"] = (rng.standard_normal((rank, n_in)) / np.sqrt(n_in)).astype(np.float32)
        tensors[f"{key}.lora_B.weight"] = (rng.standard_normal((n_out, rank)) * scale).astype(np.float32)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(out / "adapter_model.safetensors"))
    cfg = {"peft_type": "LORA", "r": rank, "lora_alpha": alpha, "target_modules": sorted(set(names.values()))}
    (out / "adapter_config.json").write_text(json.dumps(cfg) + "\n")
    return out


#: A greedy step whose top two logits are closer than this is a near tie: another float order
#: (llama.cpp's SIMD kernels, another CPU) may pick the second, and the replies part there.
NEAR_TIE = 0.02


def greedy(model: Any, prompt: list[int], n: int) -> dict[str, Any]:
    """n greedy next tokens after `prompt` (no EOS stop: the comparison wants a fixed length), with
    `sure`: how many of them come before the first near tie, the part another engine must repeat."""
    import torch

    ids = list(prompt)
    sure = None
    with torch.no_grad():
        for k in range(n):
            top = model(torch.tensor([ids])).logits[0, -1].topk(2)
            if sure is None and float(top.values[0] - top.values[1]) < NEAR_TIE:
                sure = k
            ids.append(int(top.indices[0]))
    return {"ids": ids[len(prompt) :], "sure": n if sure is None else sure}


def greedy_ref(tok: Any, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The reference.json entry of greedy replies: ids, texts, and the text of each sure part."""
    return {
        "ids": [r["ids"] for r in runs],
        "texts": [tok.decode(r["ids"]) for r in runs],
        "sureTexts": [tok.decode(r["ids"][: r["sure"]]) for r in runs],
    }


def top_probs(model: Any, prompt: list[int], k: int = 3) -> list[list[float]]:
    """The k likeliest next tokens after `prompt` as [id, probability] (softmax over the vocabulary)."""
    import torch

    with torch.no_grad():
        p = model(torch.tensor([prompt])).logits[0, -1].softmax(-1)
    v, i = p.topk(k)
    return [[int(t), float(q)] for t, q in zip(i, v, strict=True)]


def roundtrip_fixture(out: str | Path, n: int = 8) -> dict[str, Any]:
    """The round-trip check's Python half, in `out`: base.gguf (a tiny random Gemma 3), ckpt/ (a
    random LoRA saved as a --lora run saves it), adapter.gguf (export_gguf of it), ckpt2/ and
    adapter2.gguf (a second random LoRA over ckpt/'s merged weights, exported over base.gguf), and
    reference.json: per prompt, its token ids, the greedy tokens and text of transformers with and
    without the adapter and with both (and the text before the first near tie), and the base, adapted
    and stacked models' three likeliest first tokens with their probabilities."""
    import torch

    from .gguf_adapter import export_gguf
    from .lm import load_model, save_checkpoint

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    base = out / "base.gguf"
    write_tiny_gemma3(base)
    model, tok = load_model(str(base), torch.device("cpu"), "float32")
    ids = [list(tok(p).input_ids) for p in PROMPTS]
    plain = [greedy(model, p, n) for p in ids]
    # before random_lora, which injects its layers into `model` itself
    base_top = [top_probs(model, p) for p in ids]
    peft_model = random_lora(model)
    lora = [greedy(peft_model, p, n) for p in ids]
    save_checkpoint(peft_model, tok, str(out / "ckpt"), {"command": "sft", "model": str(base)})
    summary = export_gguf(str(out / "ckpt"), str(out / "adapter.gguf"))
    # a second LoRA trained from the first one's merged checkpoint (RL on a LoRA SFT student):
    # llama.cpp serves it as both adapters stacked over the first base
    second = random_lora(copy.deepcopy(peft_model).merge_and_unload(), seed=1)
    stacked = [greedy(second, p, n) for p in ids]
    save_checkpoint(second, tok, str(out / "ckpt2"), {"command": "rl", "model": str(out / "ckpt")})
    export_gguf(str(out / "ckpt2"), str(out / "adapter2.gguf"), base=str(base))
    ref = {
        "prompts": PROMPTS,
        "promptIds": ids,
        "base": greedy_ref(tok, plain),
        "baseTop": base_top,
        "lora": greedy_ref(tok, lora),
        "loraTop": [top_probs(peft_model, p) for p in ids],
        "stacked": greedy_ref(tok, stacked),
        "stackedTop": [top_probs(second, p) for p in ids],
        "export": summary,
    }
    (out / "reference.json").write_text(json.dumps(ref) + "\n")
    return ref


if __name__ == "__main__":
    import sys

    print(json.dumps(roundtrip_fixture(sys.argv[1])))
