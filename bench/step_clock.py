"""The step timer the Python benches share (a module, so both scripts import it from bench/)."""

from __future__ import annotations

import time
from typing import Any


class Clock:
    """Timestamps of each step's end (an on_metrics callback): steady-state seconds per step leave
    out the first step, which pays for warm-up (allocations, TRL's dataloader and optimizer)."""

    def __init__(self):
        self.start = time.perf_counter()
        self.ends: list[float] = []

    def __call__(self, _metrics: Any = None) -> None:
        self.ends.append(time.perf_counter())

    def first(self) -> float:
        return self.ends[0] - self.start

    def steady(self) -> float:
        return (self.ends[-1] - self.ends[0]) / (len(self.ends) - 1)


def steps_arg(p: Any) -> None:
    """The `--steps` option of a timing bench: the first step is warm-up, so at least 2."""
    p.add_argument("--steps", type=int, default=3, help="steps per measurement (>= 2; the first is warm-up)")


def load_timed(p: Any, a: Any, dtype: str = "auto") -> tuple[Any, Any, float]:
    """(model, tokenizer, load seconds) of `--model` on the CPU with `--threads` torch threads, after
    refusing a `--steps` below 2 with argparse's usage error."""
    if a.steps < 2:
        p.error("--steps must be at least 2 (the first step is warm-up)")
    import torch

    from rmsweb_trainer.lm import load_model

    if a.threads:
        torch.set_num_threads(a.threads)
    t0 = time.perf_counter()
    model, tok = load_model(a.model, torch.device("cpu"), dtype)
    return model, tok, time.perf_counter() - t0


def row_args(p: Any) -> None:
    """The options of a bench that times one README row: `--model`, the row's `--tokens` and
    `--reply`, `--steps`, `--rounds` and `--threads`."""
    p.add_argument("--model", required=True)
    p.add_argument("--tokens", type=int, default=680)
    p.add_argument("--reply", type=int, default=21)
    steps_arg(p)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--threads", type=int)


def readme_row(p: Any, a: Any, tok: Any) -> Any:
    """The first `--tokens` + `--reply` tokens of the repo's README.md as a [1, n] tensor (real
    text, so fidelity figures compare peaked distributions, not noise)."""
    from pathlib import Path

    import torch

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    ids = torch.tensor([tok(text)["input_ids"][: a.tokens + a.reply]])
    if ids.shape[1] < a.tokens + a.reply:
        p.error(f"README.md has only {ids.shape[1]} tokens; lower --tokens")
    return ids


def row_report(a: Any, load_s: float) -> dict[str, Any]:
    """The fields every README-row bench's JSON starts with."""
    import torch

    return {
        "model": a.model,
        "load_s": round(load_s, 1),
        "tokens": a.tokens,
        "reply": a.reply,
        "threads": torch.get_num_threads(),
        "steps": a.steps,
        "rounds": a.rounds,
    }
