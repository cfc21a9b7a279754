"""Seconds per LoRA SFT step of a real LM on the CPU with LoRA on every decoder layer (the lm preset
until now) against LoRA on the top K layers (`loraLayers` K), without and with the frozen layers
below cached per row (trainer/rmsweb_trainer/prefix_cache.py), in one run; ratios against every
layer.

  trainer/.venv/bin/python bench/lm-lora-layers.py --model GGUF_OR_DIR [--top 6] [--tokens 680]
      [--reply 21] [--steps 3] [--rounds 2] [--threads N] [--epochs 2]

Each step is one row of `--tokens` prompt tokens and `--reply` reply tokens (the start of the repo's
README.md), logits for the reply positions only (as the trainer computes them), cross-entropy,
backward, AdamW at the lm preset's LoRA rate; LoRA's rank and alpha are src/rl/options.json's, its
dropout 0. The cached setting's steps read the row from the cache (every epoch after the first);
filling it (the frozen layers' forward, once per row) is timed apart. The first step of each
measurement is warm-up and left out; the settings alternate `--rounds` times. The projection for
`--epochs` epochs is per row: every layer E x step, cached fill + E x cached step.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from contextlib import nullcontext

from step_clock import Clock, load_timed, readme_row, row_args, row_report


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--top", type=int, default=6, help="LoRA on the top N decoder layers")
    row_args(p)
    p.add_argument("--epochs", type=int, default=2, help="epochs of the per-row projection")
    a = p.parse_args()

    import torch
    import torch.nn.functional as F
    from peft import get_peft_model

    from rmsweb_trainer.options import defaults
    from rmsweb_trainer.prefix_cache import FrozenPrefix, layer_count
    from rmsweb_trainer.sft import lora_config

    base, tok, load_s = load_timed(p, a, "float32")
    n_layers = layer_count(base)
    if not 0 < a.top < n_layers:
        p.error(f"--top must be between 1 and {n_layers - 1} (the model has {n_layers} layers)")
    ids = readme_row(p, a, tok)
    mask = torch.ones_like(ids)
    targets = ids[0, a.tokens :]

    def build(top: int):
        torch.manual_seed(0)
        m = copy.deepcopy(base)
        m = get_peft_model(m, lora_config(m, defaults("sft", loraDropout=0.0, loraLayers=top)))
        m.train()
        return m, torch.optim.AdamW([q for q in m.parameters() if q.requires_grad], lr=2e-4)

    settings = {"every layer": build(0), f"top {a.top}": build(a.top), f"top {a.top}, cached": build(a.top)}
    cache_name = f"top {a.top}, cached"
    prefix = FrozenPrefix(settings[cache_name][0], n_layers - a.top)

    def step(name: str) -> None:
        m, opt = settings[name]
        ctx = prefix.active(mask) if name == cache_name else nullcontext()
        with ctx:
            logits = m(input_ids=ids, attention_mask=mask, use_cache=False, logits_to_keep=a.reply + 1).logits
        lp = F.log_softmax(logits[0, :-1].float(), -1)
        (-lp.gather(1, targets[:, None]).mean()).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    # the cache's one forward pass per row, timed on its own (what the first epoch adds)
    t0 = time.perf_counter()
    with prefix.active(mask):
        prefix.hidden(ids)
    fill_s = time.perf_counter() - t0

    times: dict[str, list[float]] = {s: [] for s in settings}
    for r in range(a.rounds):
        for s in settings:
            clock = Clock()
            for _ in range(a.steps):
                step(s)
                clock()
            times[s].append(clock.steady())
            print(f"round {r + 1} {s}: {times[s][-1]:.2f} s a step (first {clock.first():.2f} s)", file=sys.stderr)

    mean = {s: sum(v) / len(v) for s, v in times.items()}
    every = mean["every layer"]
    projected = {
        "every layer": a.epochs * every,
        f"top {a.top}": a.epochs * mean[f"top {a.top}"],
        cache_name: fill_s + a.epochs * mean[cache_name],
    }
    print(
        json.dumps(
            {
                **row_report(a, load_s),
                "layers": n_layers,
                "top": a.top,
                "seconds_per_step": {s: round(v, 3) for s, v in mean.items()},
                "speedup_vs_every_layer": {s: round(every / v, 2) for s, v in mean.items()},
                "cache_fill_s_per_row": round(fill_s, 3),
                "cache_hits": prefix.stats()["reused"],
                f"seconds_per_row_over_{a.epochs}_epochs": {s: round(v, 2) for s, v in projected.items()},
                f"speedup_over_{a.epochs}_epochs": {
                    s: round(projected["every layer"] / v, 2) for s, v in projected.items()
                },
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
