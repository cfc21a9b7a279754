"""Tokens per second of the PyTorch trainer's SFT and Salvage-DS steps: the loops it had before TRL
against TRL's trainers, on the same model, batch and machine, in one run (ratios printed).

  trainer/.venv/bin/python bench/torch-trainer.py [--data RL_EXPORT.jsonl] [--size tiny|small|base]
      [--threads N] [--steps N] [--group-size G] [--max-new-tokens N] [--old-commit SHA]

Builds a random model of the given size (tiny: 32 wide x 2 layers, small: 128 x 4, base: 256 x 6)
with a tokenizer trained on the data, then times on copies of the same initial weights:

  sft  one optimizer step on 4 rows: the old loop (lm.make_batch, the per-reply mean NLL, Adam)
       against TRL's SFTTrainer (rmsweb_trainer.sft); tokens/s counts prompt + reply tokens;
  rl   Salvage-DS steps of 2 states x G sampled replies: the old loop against the GRPOTrainer
       subclass (rmsweb_trainer.rl + salvage_ds); tokens/s counts the prompt tokens of every
       rollout plus the tokens sampled, over the whole step (sampling, reward, update).

Throughput is steady-state: the first step of each run pays for warm-up (allocations, TRL's
dataloader and optimizer) and is printed apart (`*_first_step_s`).

The old loops are the trainer package at --old-commit (default 96939c4, the last one before TRL),
read from git into a scratch folder and imported under another name, so both run in this process.
Prints one JSON object; `*_trl_vs_old` > 1 means TRL is faster.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_clock import Clock  # noqa: E402

OLD_COMMIT = "96939c4"


def legacy_package(commit: str) -> Any:
    """The trainer package as it was at `commit`, importable as `legacy_trainer`."""
    root = Path(tempfile.mkdtemp(prefix="rmsweb-legacy-"))
    tar = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "trainer/rmsweb_trainer"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=tar, check=True)
    (root / "trainer" / "rmsweb_trainer").rename(root / "legacy_trainer")
    os.environ.setdefault("RMSWEB_OPTIONS", str(REPO / "src" / "rl" / "options.json"))
    sys.path.insert(0, str(root))
    return importlib.import_module("legacy_trainer")


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", help="an `rmsweb export rl --format jsonl` file (default: synthetic prompts)")
    p.add_argument("--size", default="small", choices=["tiny", "small", "base"])
    p.add_argument("--threads", type=int)
    p.add_argument("--steps", type=int, default=4, help="steps per measurement (>= 2; the first is warm-up)")
    p.add_argument("--group-size", type=int, default=4)
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--old-commit", default=OLD_COMMIT)
    a = p.parse_args()
    if a.steps < 2:
        p.error("--steps must be at least 2 (the first step is warm-up)")

    sys.path.insert(0, str(REPO / "trainer"))
    import torch

    legacy_package(a.old_commit)
    from legacy_trainer import rollouts as old_rollouts
    from legacy_trainer.salvage_ds import train_salvage_ds as old_salvage_ds
    from legacy_trainer.sft import sft_loss as old_sft_loss

    from rmsweb_trainer.data import Chat, load_rl, truth_completion
    from rmsweb_trainer.lm import completion_ids, completion_logits, make_batch, prompt_ids
    from rmsweb_trainer.rl import train_rl
    from rmsweb_trainer.salvage_ds import SalvageDSTrainer
    from rmsweb_trainer.sft import train_sft
    from rmsweb_trainer.tiny import build_model, build_tokenizer

    threads = a.threads or torch.get_num_threads()
    if a.data:
        examples = load_rl(a.data)
    else:
        from tests.conftest import make_examples  # (it sets one thread for the test machine)

        examples = make_examples()
    torch.set_num_threads(threads)
    texts = [t for e in examples for t in (e.chat.system, e.chat.user, truth_completion(e))]
    tok = build_tokenizer(texts, 512)
    base = build_model(tok, a.size)
    dev = torch.device("cpu")
    pairs = [(prompt_ids(tok, e.chat, 4096), completion_ids(tok, e.chat, truth_completion(e))) for e in examples]
    batch = pairs[:4]
    tokens = sum(len(p) + len(c) for p, c in batch)
    r: dict[str, Any] = {
        "size": a.size,
        "params": sum(x.numel() for x in base.parameters()),
        "threads": torch.get_num_threads(),
        "examples": len(examples),
        "mean_prompt_tokens": round(sum(len(p) for p, _ in pairs) / len(pairs)),
        "old_commit": a.old_commit,
    }

    # baseline: forward only, no gradient
    with torch.no_grad():
        s = timed(lambda: [completion_logits(base, make_batch(batch, tok.pad_token_id, dev)) for _ in range(a.steps)])
    r["forward_tokens_per_s"] = round(a.steps * tokens / s)

    # SFT, the old loop: forward + backward + Adam over the batch's prompt + reply tokens
    model = copy.deepcopy(base)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    clock = Clock()
    for _ in range(a.steps):
        rows = [old_rollouts.Row(p, c, "sft", coef=1 / len(batch)) for p, c in batch]
        old_rollouts.backward_rows(model, None, rows, old_sft_loss, pad=tok.pad_token_id, device=dev, micro=4)
        opt.step()
        opt.zero_grad()
        clock()
    r["sft_old_tokens_per_s"] = round(tokens / clock.steady())
    r["sft_old_first_step_s"] = round(clock.first(), 3)

    # SFT on TRL: the same rows, one optimizer step an epoch
    chats = [Chat(e.chat.system, e.chat.user, truth_completion(e)) for e in examples[:4]]
    clock = Clock()
    o = {"batchSize": len(batch), "microBatch": 4, "lr": 1e-3, "epochs": a.steps, "valFrac": 0}
    train_sft(copy.deepcopy(base), tok, chats, on_metrics=clock, **o)
    r["sft_trl_tokens_per_s"] = round(tokens / clock.steady())
    r["sft_trl_first_step_s"] = round(clock.first(), 3)
    r["sft_trl_vs_old"] = round(r["sft_trl_tokens_per_s"] / r["sft_old_tokens_per_s"], 3)

    # Salvage-DS, the old loop: sampled tokens counted where it samples
    seen = {"generated": 0, "rollouts": 0}
    orig = old_rollouts.sample

    def counting(*args, **kw):
        out = orig(*args, **kw)
        seen["generated"] += sum(len(c) for c in out)
        seen["rollouts"] += len(out)
        return out

    old_rollouts.sample = counting
    rl = {"steps": a.steps, "batchSize": 2, "groupSize": a.group_size, "maxNewTokens": a.max_new_tokens}
    clock = Clock()
    old_salvage_ds(copy.deepcopy(base), tok, examples, on_metrics=clock, **rl)
    old_rollouts.sample = orig
    prompt_per_state = sum(len(p) for p, _ in pairs) / len(pairs)
    old_tokens = (seen["rollouts"] * prompt_per_state + seen["generated"]) / a.steps
    r["rl_old_tokens_per_s"] = round(old_tokens / clock.steady())
    r["rl_old_step_s"] = round(clock.steady(), 3)
    r["rl_old_first_step_s"] = round(clock.first(), 3)
    old_rollout_count = seen["rollouts"]

    # Salvage-DS on TRL's GRPOTrainer: sampled tokens counted at generate()
    model = copy.deepcopy(base)
    seen = {"generated": 0, "rollouts": 0}
    gen = model.generate

    def generate(*args, **kw):
        out = gen(*args, **kw)
        ids = kw.get("input_ids", args[0] if args else None)
        new = out[:, ids.shape[1] :] if ids is not None else out
        seen["generated"] += int((new != tok.pad_token_id).sum())
        seen["rollouts"] += out.shape[0]
        return out

    model.generate = generate
    clock = Clock()
    with tempfile.TemporaryDirectory() as work:
        train_rl(SalvageDSTrainer, model, tok, examples, work_dir=work, on_metrics=clock, **rl)
    new_tokens = (seen["rollouts"] * prompt_per_state + seen["generated"]) / a.steps
    r["rl_trl_tokens_per_s"] = round(new_tokens / clock.steady())
    r["rl_trl_step_s"] = round(clock.steady(), 3)
    r["rl_trl_first_step_s"] = round(clock.first(), 3)
    r["rl_trl_vs_old"] = round(r["rl_trl_tokens_per_s"] / r["rl_old_tokens_per_s"], 3)
    r["rl_rollouts"] = {"old": old_rollout_count, "trl": seen["rollouts"]}
    r["rl_states_per_step"], r["group_size"] = 2, a.group_size
    print(json.dumps(r, indent=1))


if __name__ == "__main__":
    main()
