"""Supervised fine-tuning, the baseline every RL run starts from: cross-entropy of the assistant
reply of each TRL row (`rmsweb export sft --format trl`), given its system and user messages.

The loss of a batch is the mean over its rows of each reply's mean token NLL - the same reduction
as Salvage-DS's salvage term, so with betaBrake 0 a salvaged state pulls on the weights exactly as
SFT on its ground truth would.
"""

from __future__ import annotations

import random
from typing import Any

import torch

from .data import Chat
from .lm import Batch, completion_ids, completion_logits, finite, make_batch, prompt_ids, seq_mean, token_logprobs
from .options import defaults
from .rollouts import Row, backward_rows, micro_batches
from .session import Session

# ================================================================================== options

#: epochs, batchSize, lr, seed, valFrac from src/rl/options.json (the tfjs student's `train sft`
#: defaults); plus the torch section (maxPromptTokens, lora, ..., microBatch).
SFT_DEFAULTS = defaults("sft")


# ================================================================================== the loss


def sft_loss(rows: list[Row], b: Batch, logits: torch.Tensor, _ref: torch.Tensor | None):
    """sum over rows of coef * mean token NLL of the reply (coef = 1 / batch rows)."""
    coef = torch.tensor([r.coef for r in rows], device=logits.device)
    nll = -seq_mean(token_logprobs(logits, b), b.mask)
    value = (coef * nll).sum()
    return value, {"nll": float(value.detach())}


def encode(tok: Any, chats: list[Chat], max_prompt_tokens: int) -> list[tuple[list[int], list[int]]]:
    return [(prompt_ids(tok, c, max_prompt_tokens), completion_ids(tok, c, c.assistant or "")) for c in chats]


@torch.no_grad()
def mean_nll(model: Any, rows: list[tuple[list[int], list[int]]], pad: int, device, micro: int) -> float:
    if not rows:
        return float("nan")
    total = 0.0
    for chunk in micro_batches(rows, micro):  # type: ignore[arg-type]
        b = make_batch(chunk, pad, device)
        total += float((-seq_mean(token_logprobs(completion_logits(model, b), b), b.mask)).sum())
    return total / len(rows)


# =============================================================================== training loop


def train_sft(
    model: Any,
    tok: Any,
    chats: list[Chat],
    *,
    metrics_path: str | None = None,
    on_metrics=None,
    dist=None,
    **options: Any,
) -> tuple[Session, list[dict[str, float]]]:
    """Trains `model` in place; logs {"event": "step"} per optimizer step and {"event": "epoch"}
    with the validation loss per epoch. Returns (the run's session, per-epoch metrics)."""
    o = defaults("sft", **options)
    s = Session(model, tok, o, reference=False, metrics_path=metrics_path, dist=dist)
    rows = encode(tok, chats, o["maxPromptTokens"])
    order = list(range(len(rows)))
    random.Random(o["seed"]).shuffle(order)
    n_val = int(len(rows) * o["valFrac"]) if len(rows) > 1 else 0
    val = [rows[i] for i in order[:n_val]]
    train = [rows[i] for i in order[n_val:]]
    rng = random.Random(o["seed"] + 1)
    epochs, step = [], 0
    for epoch in range(1, o["epochs"] + 1):
        rng.shuffle(train)
        mine = train[s.dist.rank :: s.dist.world]
        losses = []
        for i in range(0, len(mine), o["batchSize"]):
            chunk = mine[i : i + o["batchSize"]]
            batch = [Row(p, c, "sft", coef=1 / len(chunk)) for p, c in chunk]
            total, _ = backward_rows(s.model, None, batch, sft_loss, pad=s.pad, device=s.device, micro=s.micro)
            s.step()
            step += 1
            losses.append(finite(total))
            tokens = sum(len(p) + len(c) for p, c in chunk)
            s.log.write("step", step=step, epoch=epoch, **{"losses/sft": total}, tokens=tokens)
        m = {
            "epoch": epoch,
            "losses/train": sum(losses) / max(1, len(losses)),
            "losses/val": mean_nll(s.model, val, s.pad, s.device, s.micro) if val else None,
            "train": len(train),
            "val": len(val),
        }
        epochs.append(m)
        s.log.write("epoch", **m)
        if on_metrics:
            on_metrics(m)
    s.log.close()
    return s, epochs
