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
import json

from step_clock import rl_alternate, rl_args


def main() -> None:
    p = argparse.ArgumentParser()
    rl_args(p)
    a = p.parse_args()
    report = rl_alternate(p, a, {"off": {"gradientCheckpointing": False}, "on": {"gradientCheckpointing": True}})
    mean = report.pop("s_per_step")
    report |= {
        "off_s_per_step": mean["off"],
        "on_s_per_step": mean["on"],
        "off_vs_on": round(mean["on"] / mean["off"], 3),
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
