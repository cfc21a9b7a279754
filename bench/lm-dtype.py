"""Seconds per LoRA training step of a real LM on the CPU in three precisions, in one run (ratios
printed against float32, the trainer's CPU default):

- fp32: float32 weights, float32 compute;
- autocast: float32 weights, matrix products under torch.autocast(bfloat16) (mixed precision);
- bf16: bfloat16 base weights (frozen), float32 LoRA adapters (peft's default cast).

  trainer/.venv/bin/python bench/lm-dtype.py --model GGUF_OR_DIR [--tokens 680] [--reply 21]
      [--steps 3] [--rounds 2] [--threads N]

Each step is one row of `--tokens` prompt tokens and `--reply` reply tokens (the start of the
repo's README.md: the time does not depend on the text, the fidelity figures do), logits for the
reply positions only (as the trainer computes them), cross-entropy, backward, AdamW at the lm
preset's LoRA rate. LoRA's rank and alpha are src/rl/options.json's, its dropout 0, so that every
setting computes the same function. The first step of each measurement is warm-up and left out. The
settings alternate `--rounds` times, so load from anything else on the machine falls on all of
them. Also prints each setting's loss on the same row against float32's, and the largest gap
between its next-token log-probabilities and float32's over the reply, before any update: how far
the cheaper precision moves what the model computes.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from contextlib import nullcontext

from step_clock import Clock, load_timed, readme_row, row_args, row_report

SETTINGS = ("fp32", "autocast", "bf16")


def main() -> None:
    p = argparse.ArgumentParser()
    row_args(p)
    a = p.parse_args()

    import torch
    import torch.nn.functional as F
    from peft import get_peft_model

    from rmsweb_trainer.options import defaults
    from rmsweb_trainer.sft import lora_config

    base, _tok, load_s = load_timed(p, a, "float32")
    lora = defaults("sft", loraDropout=0.0)

    def build(setting: str):
        torch.manual_seed(0)
        m = copy.deepcopy(base)
        if setting == "bf16":
            m = m.to(torch.bfloat16)
        m = get_peft_model(m, lora_config(m, lora))
        trainable = [q for q in m.parameters() if q.requires_grad]
        return m, torch.optim.AdamW(trainable, lr=2e-4)

    ids = readme_row(p, a, _tok)
    targets = ids[0, a.tokens :]

    def logprobs(m, setting: str):
        ctx = torch.autocast("cpu", dtype=torch.bfloat16) if setting == "autocast" else nullcontext()
        with ctx:
            logits = m(input_ids=ids, logits_to_keep=a.reply + 1).logits[0, :-1]
        return F.log_softmax(logits.float(), -1)

    def step(m, opt, setting: str) -> None:
        lp = logprobs(m, setting)
        (-lp.gather(1, targets[:, None]).mean()).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    models = {s: build(s) for s in SETTINGS}
    with torch.no_grad():
        ref = logprobs(models["fp32"][0], "fp32")
        fidelity = {}
        for s in SETTINGS:
            lp = logprobs(models[s][0], s)
            fidelity[s] = {
                "loss": round(float(-lp.gather(1, targets[:, None]).mean()), 4),
                "max_abs_logprob_gap_vs_fp32": round(float((lp - ref).abs().max()), 4),
                "same_argmax_vs_fp32": round(float((lp.argmax(-1) == ref.argmax(-1)).float().mean()), 4),
            }

    times: dict[str, list[float]] = {s: [] for s in SETTINGS}
    for r in range(a.rounds):
        for s in SETTINGS:
            m, opt = models[s]
            clock = Clock()
            for _ in range(a.steps):
                step(m, opt, s)
                clock()
            times[s].append(clock.steady())
            print(f"round {r + 1} {s}: {times[s][-1]:.2f} s a step (first {clock.first():.2f} s)", file=sys.stderr)

    mean = {s: sum(v) / len(v) for s, v in times.items()}
    print(
        json.dumps(
            {
                **row_report(a, load_s),
                "seconds_per_step": {s: round(v, 3) for s, v in mean.items()},
                "speedup_vs_fp32": {s: round(mean["fp32"] / v, 2) for s, v in mean.items()},
                "fidelity": fidelity,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
