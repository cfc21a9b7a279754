"""The step timer the Python benches share (a module, so both scripts import it from bench/)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

# The trainer package, for the benches that import this module (Python puts a script's own
# folder, bench/, first on sys.path, so they find this one without help).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "trainer"))


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


def rl_args(p: Any) -> None:
    """The options of a bench that times Salvage-DS steps of a real LM under two settings:
    `--model`, `--data` (lm RL rows), `--steps`, `--batch`, `--group-size`, `--max-new-tokens`,
    `--threads`, `--lora` and `--rounds`."""
    p.add_argument("--model", required=True)
    p.add_argument("--data", required=True)
    steps_arg(p)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--group-size", type=int, default=2)
    p.add_argument("--max-new-tokens", type=int, default=16)
    p.add_argument("--threads", type=int)
    p.add_argument("--lora", action="store_true")
    p.add_argument("--rounds", type=int, default=1)


def rl_alternate(p: Any, a: Any, settings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Salvage-DS steps of `--model` on `--data` under each of `settings` (trainer options by
    name), on copies of the same weights, the settings alternating `--rounds` times so load from
    anything else on the machine falls on all of them. Returns the report: the shared options, each
    run's first and steady seconds per step, and each setting's mean steady seconds per step."""
    import copy

    import torch

    from rmsweb_trainer.data import load_rl
    from rmsweb_trainer.salvage_ds import train_salvage_ds

    base, tok, load_s = load_timed(p, a)
    examples = load_rl(a.data)
    opts = dict(
        steps=a.steps,
        batchSize=a.batch,
        groupSize=a.group_size,
        maxNewTokens=a.max_new_tokens,
        microBatch=1,
        lr=1e-5,
        seed=0,
        lora=a.lora or None,
    )
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in settings}
    for _ in range(a.rounds):
        for name, setting in settings.items():
            clock = Clock()
            train_salvage_ds(
                copy.deepcopy(base), tok, examples, reward="polarized", on_metrics=clock, **opts, **setting
            )
            runs[name].append({"first_step_s": round(clock.first(), 2), "s_per_step": round(clock.steady(), 2)})
            print(f"{name}: {runs[name][-1]}", file=sys.stderr, flush=True)
    return {
        "model": a.model,
        "data": a.data,
        "load_s": round(load_s, 1),
        "threads": torch.get_num_threads(),
        "options": opts,
        "runs": runs,
        "s_per_step": {k: round(sum(r["s_per_step"] for r in v) / len(v), 2) for k, v in runs.items()},
    }
