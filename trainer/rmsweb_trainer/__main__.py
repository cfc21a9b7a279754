"""`python -m rmsweb_trainer COMMAND`: what the rmsweb CLI runs (`rmsweb rl --backend torch`,
`rmsweb train sft --backend torch`, `--agent hf:DIR`), usable on its own and under torchrun or
accelerate launch for several GPUs.

  check                          the environment as JSON (exit 3 when a package is missing)
  tiny --out DIR --data FILE...  a tiny random LM whose tokenizer is trained on the data's text
  rl --algo A --model M --data F --out DIR [--metrics FILE] [options]
  sft --model M --data F --out DIR [--metrics FILE] [options]
  serve --model DIR              generations over stdin/stdout, one JSON object a line
  export-gguf --adapter DIR --out FILE [--base BASE.gguf]
                                 a --lora run's adapter as a llama.cpp LoRA adapter GGUF
  dequantize-gguf --gguf IN --out OUT [--type f32|f16]
                                 a quantized GGUF with every tensor dequantized (the base to serve
                                 a LoRA student over so that llama.cpp computes what torch trained)

Exit codes: 0 ok, 2 bad input (the message names file, line, field), 3 environment, 1 other.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

REQUIRED = ["torch", "transformers", "peft", "pyarrow", "safetensors", "tokenizers", "regex"]
OPTIONAL = ["accelerate", "gguf"]


#: accelerate's distributed_type values (accelerate.utils.DistributedType) a config may name.
DISTRIBUTED_TYPES = {"NO", "MULTI_CPU", "MULTI_GPU", "MULTI_NPU", "MULTI_XPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA", "MULTI_HPU", "MULTI_NEURON", "DEEPSPEED", "FSDP", "XLA", "MEGATRON_LM"}  # fmt: skip


def check_accelerate_config(path: str) -> dict[str, Any]:
    """An `accelerate launch --config_file` file, checked before anything is launched: it exists,
    parses as YAML (JSON is YAML) to a mapping, names a known distributed_type, and DeepSpeed's has
    a ZeRO stage and its package. Returns what the check report shows of it."""
    from pathlib import Path

    import yaml

    from .data import InputError

    def bad(msg: str) -> InputError:
        return InputError(f"{path}: {msg}", "--accelerate-config")

    p = Path(path)
    if not p.is_file():
        raise bad("no such file")
    try:
        cfg = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise bad(f"neither YAML nor JSON ({str(e).splitlines()[0]})") from None
    if not isinstance(cfg, dict):
        raise bad("must be a mapping of accelerate settings (accelerate config writes one)")
    kind = cfg.get("distributed_type", "NO")
    if kind not in DISTRIBUTED_TYPES:
        raise bad(f"field distributed_type: {kind!r} is not one of {', '.join(sorted(DISTRIBUTED_TYPES))}")
    out = {"file": str(p), "distributed_type": kind, "num_processes": cfg.get("num_processes", 1)}
    if kind == "DEEPSPEED":
        ds = cfg.get("deepspeed_config")
        stage = ds.get("zero_stage") if isinstance(ds, dict) else None
        if stage not in (0, 1, 2, 3):
            raise bad("field deepspeed_config.zero_stage must be 0, 1, 2 or 3")
        try:
            importlib.import_module("deepspeed")
        except ImportError:
            raise bad("distributed_type DEEPSPEED needs the deepspeed package in the trainer's venv") from None
        out["zero_stage"] = stage
    return out


def check(accelerate_config: str | None = None) -> int:
    info: dict[str, Any] = {"python": sys.version.split()[0], "packages": {}, "missing": []}
    for name in REQUIRED + OPTIONAL:
        try:
            info["packages"][name] = getattr(importlib.import_module(name), "__version__", "?")
        except ImportError:
            if name in REQUIRED:
                info["missing"].append(name)
    if "torch" in info["packages"]:
        import torch

        info["cuda"] = torch.cuda.is_available()
        info["gpus"] = torch.cuda.device_count()
    if accelerate_config:
        info["accelerate_config"] = check_accelerate_config(accelerate_config)
    print(json.dumps(info))
    return 3 if info["missing"] else 0


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _options(a: argparse.Namespace, keys: dict[str, str]) -> dict[str, Any]:
    o = {opt: getattr(a, attr) for attr, opt in keys.items() if getattr(a, attr, None) is not None}
    for kv in a.set or []:
        if "=" not in kv:
            raise ValueError(f"--set takes KEY=VALUE, got {kv!r}")
        k, v = kv.split("=", 1)
        o[k] = _value(v)
    if a.lora:
        o["lora"] = True
    return o


COMMON = {"lr": "lr", "seed": "seed", "micro_batch": "microBatch", "max_prompt_tokens": "maxPromptTokens", "lora_rank": "loraRank", "lora_layers": "loraLayers"}  # fmt: skip
RL_KEYS = {**COMMON, "steps": "steps", "batch": "batchSize", "group_size": "groupSize", "temperature": "temperature", "max_new_tokens": "maxNewTokens"}  # fmt: skip
SFT_KEYS = {**COMMON, "epochs": "epochs", "batch": "batchSize", "val_frac": "valFrac"}


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="Hugging Face folder or .gguf file to start from")
    p.add_argument("--data", required=True, help="the export to train on")
    p.add_argument("--out", required=True, help="folder for the trained Hugging Face checkpoint")
    p.add_argument("--metrics", help="append per-step metrics to this JSONL (what the rmsweb CLI reads)")
    p.add_argument("--device", default="auto", help="auto (a GPU when there is one), cpu or cuda")
    p.add_argument("--dtype", default="auto", help="auto (bf16 on GPUs, else fp32), float32, bfloat16")
    p.add_argument("--lr", type=float)
    p.add_argument("--seed", type=int)
    p.add_argument("--batch", type=int)
    p.add_argument("--micro-batch", type=int, help="rows per forward pass (gradient accumulated); 0 = all")
    p.add_argument("--max-prompt-tokens", type=int)
    p.add_argument("--lora", action="store_true", help="train LoRA adapters (merged into the saved checkpoint)")
    p.add_argument("--lora-rank", type=int)
    p.add_argument(
        "--lora-layers",
        type=int,
        help="LoRA on the top N decoder layers only (default 0: all); SFT computes the frozen layers below once per row",
    )
    p.add_argument("--threads", type=int, help="CPU threads for torch")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="any option of src/rl/options.json")


def _resumable(p: argparse.ArgumentParser, unit: str) -> None:
    p.add_argument(
        "--save-steps",
        type=int,
        default=0,
        help=f"keep a resumable checkpoint every N {unit}; the same command started again "
        "(same model, data and options) resumes from the latest one (default 0: none)",
    )
    p.add_argument(
        "--checkpoint-dir", help="where those checkpoints live (default: OUT/checkpoints; removed when done)"
    )


def _run(a: argparse.Namespace) -> int:
    import torch

    from . import data as d
    from .lm import setup_dist, teardown_dist

    if a.threads:
        torch.set_num_threads(a.threads)
    _check_paths(a)
    dist = setup_dist(a.device)
    started = time.time()
    if a.cmd == "rl":
        examples = d.load_rl(a.data)
        o = _options(a, RL_KEYS)
        if a.no_salvage:
            if a.algo != "salvage-ds":
                raise d.InputError(f"--no-salvage applies to salvage-ds only, not {a.algo}")
            o["salvage"] = False
        from .options import defaults
        from .rl import check_vllm

        try:  # a misspelt --set key or a value of the wrong type: refused before anything is loaded
            defaults(a.algo, **o)
        except ValueError as e:
            raise d.InputError(str(e), option="--set") from None
        check_vllm(a.vllm, dist.device)
    else:
        chats = d.load_sft(a.data)
        o = _options(a, SFT_KEYS)
    model, tok = _load(a.model, dist.device, a.dtype)
    meta: dict[str, Any] = {"command": a.cmd, "model": a.model, "data": a.data, "options": o}
    # `--agent lm:hf:DIR` reads the layout and its budget back, so the student is prompted as trained
    meta.update(d.layout_meta(a.data, a.model, examples if a.cmd == "rl" else chats))
    resume = _resume_options(a)
    if a.cmd == "rl":
        from .dapo import train_dapo
        from .grpo import train_grpo
        from .rl import save_rl
        from .salvage_ds import train_salvage_ds

        fn = {"salvage-ds": train_salvage_ds, "grpo": train_grpo, "dapo": train_dapo}[a.algo]
        meta.update(algo=a.algo, reward=a.reward, examples=len(examples), trainer="trl.GRPOTrainer", vllm=a.vllm)
        trainer, metrics = fn(
            model, tok, examples, reward=a.reward, metrics_path=a.metrics, vllm=a.vllm, dist=dist, **resume, **o
        )
        save_rl(trainer, tok, a.out, {**meta, "metrics": metrics, "seconds": round(time.time() - started, 2)})
    else:
        from .sft import save_sft, train_sft

        meta.update(algo="sft", examples=len(chats), trainer="trl.SFTTrainer")
        trainer, metrics = train_sft(model, tok, chats, metrics_path=a.metrics, dist=dist, **resume, **o)
        save_sft(trainer, tok, a.out, {**meta, "metrics": metrics, "seconds": round(time.time() - started, 2)})
    if resume and dist.main:  # the finished checkpoint is the run's; its resume points are spent
        shutil.rmtree(resume["checkpoint_dir"], ignore_errors=True)
    if a.metrics and dist.main:
        with open(a.metrics, "a", encoding="utf-8") as f:
            f.write(
                json.dumps(
                    {"event": "done", "out": a.out, "seconds": round(time.time() - started, 2), "steps": len(metrics)}
                )
                + "\n"
            )
    teardown_dist()  # on success only: after a failure the other processes may never reach the barrier
    return 0


def _resume_options(a: argparse.Namespace) -> dict[str, Any]:
    """The trainer keywords of `--save-steps` (none without it): where checkpoints live, how often,
    and what a checkpoint must have been made from to be resumed."""
    if not a.save_steps:
        return {}
    return dict(
        checkpoint_dir=a.checkpoint_dir or str(Path(a.out) / "checkpoints"),
        save_steps=a.save_steps,
        fingerprint={"model": a.model, "data": _digest(a.data), "dtype": a.dtype, "device": a.device},
    )


def _digest(path: str) -> str:
    """sha256 of a data file: a resumed run must train on the very rows it started on."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m rmsweb_trainer", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--accelerate-config", help="also check this `accelerate launch --config_file` file")
    t = sub.add_parser("tiny")
    t.add_argument("--out", required=True)
    t.add_argument("--data", action="append", required=True, help="SFT or RL export whose text trains the tokenizer")
    t.add_argument("--size", default="tiny", choices=["tiny", "small", "base"])
    t.add_argument("--vocab", type=int, default=512)
    t.add_argument("--seed", type=int, default=0)
    r = sub.add_parser("rl")
    _common(r)
    r.add_argument("--algo", default="salvage-ds", choices=["salvage-ds", "grpo", "dapo"])
    r.add_argument("--reward", default="polarized", choices=["polarized", "exact", "textsim"])
    r.add_argument("--steps", type=int)
    r.add_argument("--group-size", type=int)
    r.add_argument("--temperature", type=float)
    r.add_argument("--max-new-tokens", type=int)
    r.add_argument("--no-salvage", action="store_true")
    r.add_argument(
        "--vllm",
        choices=["colocate", "server"],
        help="generate with vLLM (TRL's use_vllm, vllm_mode); needs a CUDA GPU and the vllm package",
    )
    _resumable(r, "RL steps")
    s = sub.add_parser("sft")
    _common(s)
    s.add_argument("--epochs", type=int)
    s.add_argument("--val-frac", type=float)
    _resumable(s, "optimizer steps")
    v = sub.add_parser("serve")
    v.add_argument("--model", required=True)
    v.add_argument("--device", default="auto")
    v.add_argument("--dtype", default="auto")
    v.add_argument("--max-prompt-tokens", type=int)
    v.add_argument("--threads", type=int, help="CPU threads for torch (one per process when several share the cores)")
    g = sub.add_parser("export-gguf")
    g.add_argument("--adapter", required=True, help="a --lora checkpoint folder (or its adapter/ folder)")
    g.add_argument("--out", required=True, help="the adapter GGUF to write")
    g.add_argument("--base", help="the base GGUF (default: the one the run recorded); checked tensor by tensor")
    g.add_argument("--arch", help="the llama.cpp architecture when no base GGUF is at hand (gemma3)")
    q = sub.add_parser("dequantize-gguf")
    q.add_argument("--gguf", required=True, help="the quantized GGUF (the base a --lora run loaded)")
    q.add_argument("--out", required=True, help="the dequantized GGUF to write")
    q.add_argument("--type", default="f32", choices=["f32", "f16"], help="f32 (exact, default) or f16")
    a = p.parse_args(argv)

    from .data import InputError

    try:
        if a.cmd == "check":
            return check(a.accelerate_config)
        if a.cmd == "tiny":
            return _tiny(a)
        if a.cmd == "export-gguf":
            from .gguf_adapter import export_gguf

            print(json.dumps(export_gguf(a.adapter, a.out, a.base, a.arch)))
            return 0
        if a.cmd == "dequantize-gguf":
            from .gguf_base import dequantize_gguf

            print(json.dumps(dequantize_gguf(a.gguf, a.out, a.type)))
            return 0
        if a.cmd == "serve":
            from .data import check_model_path
            from .serve import serve

            check_model_path(a.model)
            if a.threads:
                import torch

                torch.set_num_threads(a.threads)
            return serve(a.model, a.device, a.dtype, a.max_prompt_tokens)
        return _run(a)
    except InputError as e:
        # one line; the rmsweb CLI reads the option back from it
        print(f"error: {e.option}: {e}" if e.option else f"error: {e}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _check_paths(a: argparse.Namespace) -> None:
    """--model, --data and --out, checked before anything is loaded or written."""
    from pathlib import Path

    from .data import InputError, check_model_path, sft_file

    check_model_path(a.model)
    data = sft_file(a.data) if a.cmd == "sft" else Path(a.data)
    if not data.is_file():
        raise InputError(f"{data}: no such file", "--data")
    out = Path(a.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder", "--out")


def _load(path: str, device: Any, dtype: str) -> tuple[Any, Any]:
    """load_model, its failures on a checked path reported as --model's (one line, no traceback)."""
    from .data import ModelError
    from .lm import load_model

    try:
        return load_model(path, device, dtype)
    except (OSError, ValueError, KeyError, TypeError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ModelError(f"{path}: transformers cannot load it ({type(e).__name__}: {first})") from None


def _tiny(a: argparse.Namespace) -> int:
    from .data import load_rl, load_sft
    from .tiny import make_tiny

    texts: list[str] = []
    for path in a.data:
        try:
            for c in load_sft(path):
                texts += [c.system, c.user, c.text or "", c.assistant or ""]
        except Exception:  # noqa: BLE001 - not SFT rows: read it as critical states
            for e in load_rl(path):
                texts += [e.chat.system, e.chat.user, e.chat.text or "", e.completion or "", e.truth_wire]
    texts.append('{"evaluation_previous_goal":"","memory":"","next_goal":"","action":[]}')
    make_tiny(a.out, texts, a.size, a.seed, a.vocab)
    print(json.dumps({"out": a.out, "size": a.size, "texts": len(texts)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
