"""Seconds per Salvage-DS step of a real LM with LoRA on every decoder layer (the lm preset's RL
until now) against LoRA on the top K layers (`loraLayers` K, as the preset's SFT has it), in one
run, on copies of the same weights (ratio printed).

  trainer/.venv/bin/python bench/lm-rl-lora-layers.py --model DIR_OR_GGUF --data RL_ROWS.jsonl
      [--top 6] [--steps 3] [--batch 1] [--group-size 2] [--max-new-tokens 16] [--threads N]
      [--rounds 1]

--model: a checkpoint the trainer loads (an lm preset's `models/lm-sft`, or the Gemma GGUF);
--data: lm RL rows (`runs/<name>/lm/rl-data.jsonl`). Each measurement is `--steps` Salvage-DS steps
of `--batch` states x `--group-size` sampled replies with a fresh LoRA adapter; the first step pays
for warm-up and is printed apart; the settings alternate `--rounds` times. With the top K layers
adapted, the backward pass stops at the lowest adapted layer: the frozen layers below need no
gradient. Sampling and the frozen reference's forward pass cost the same in both. Prints one JSON
object; `every_vs_top` > 1 means the top-K setting is faster.
"""

from __future__ import annotations

import argparse
import json

from step_clock import rl_alternate, rl_args


def main() -> None:
    p = argparse.ArgumentParser()
    rl_args(p)
    p.add_argument("--top", type=int, default=6, help="LoRA on the top N decoder layers")
    a = p.parse_args()
    a.lora = True
    if a.top < 1:
        p.error("--top must be at least 1")
    report = rl_alternate(p, a, {"every": {"loraLayers": 0}, f"top{a.top}": {"loraLayers": a.top}})
    mean = report.pop("s_per_step")
    top = mean[f"top{a.top}"]
    report |= {"top": a.top, "every_s_per_step": mean["every"], "top_s_per_step": top}
    report["every_vs_top"] = round(mean["every"] / top, 3)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
