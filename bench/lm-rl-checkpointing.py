"""Seconds per Salvage-DS step of a real LM with gradient checkpointing off (rmsweb's default) and on
(TRL's GRPOConfig default), in one run, on copies of the same weights (ratio printed).

  trainer/.venv/bin/python bench/lm-rl-checkpointing.py --model DIR_OR_GGUF --data RL_ROWS.jsonl
      [--steps 3] [--batch 1] [--group-size 2] [--max-new-tokens 16] [--threads N] [--lora]
      [--rounds 1]

--model: a checkpoint the trainer loads (an lm preset's `models/lm-sft`, or the Gemma GGUF);
--data: the RL rows the lm preset trains on (`runs/<name>/lm/rl-data.jsonl`). Each measurement is
`--steps` Salvage-DS steps of `--batch` states x `--group-size` sampled replies, LoRA adapters with
`--lora` (the lm preset's mode); the first step pays for warm-up and is printed apart. The two
settings alternate, `--rounds` times each, so load from anything else running on the machine falls
on both. Gradient checkpointing recomputes each micro-batch's forward pass during the backward one:
it saves activation memory and costs time. Prints one JSON object; `off_vs_on` > 1 means the
default (off) is faster.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "trainer"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_clock import Clock, load_timed, steps_arg  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--data", required=True)
    steps_arg(p)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--group-size", type=int, default=2)
    p.add_argument("--max-new-tokens", type=int, default=16)
    p.add_argument("--threads", type=int)
    p.add_argument("--lora", action="store_true")
    p.add_argument("--rounds", type=int, default=1)
    a = p.parse_args()

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
    runs: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
    for _ in range(a.rounds):
        for name in ("off", "on"):
            clock = Clock()
            train_salvage_ds(
                copy.deepcopy(base),
                tok,
                examples,
                reward="polarized",
                on_metrics=clock,
                gradientCheckpointing=name == "on",
                **opts,
            )
            runs[name].append({"first_step_s": round(clock.first(), 2), "s_per_step": round(clock.steady(), 2)})
            print(f"{name}: {runs[name][-1]}", file=sys.stderr, flush=True)
    mean = {k: sum(r["s_per_step"] for r in v) / len(v) for k, v in runs.items()}
    print(
        json.dumps(
            {
                "model": a.model,
                "data": a.data,
                "load_s": round(load_s, 1),
                "threads": torch.get_num_threads(),
                "options": opts,
                "runs": runs,
                "off_s_per_step": round(mean["off"], 2),
                "on_s_per_step": round(mean["on"], 2),
                "off_vs_on": round(mean["on"] / mean["off"], 3),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
