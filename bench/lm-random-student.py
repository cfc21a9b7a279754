"""A stand-in LM student for checking the llama.cpp path before a real one is trained: the base GGUF
(Gemma 3 270M) loaded by transformers, a LoRA with random non-zero B on every attention and MLP
projection, saved exactly as a `--lora` run saves its checkpoint (merged weights for `lm:hf:DIR`,
the adapter in DIR/adapter/, the base recorded in rmsweb-trainer.json).

  trainer/.venv/bin/python bench/lm-random-student.py --base .local/models/gemma-3-270m-q4_k_m.gguf \\
      --out /tmp/student [--rank 16] [--alpha 32] [--scale 0.02] [--seed 0] [--threads N]

Then `rmsweb export gguf --model /tmp/student` and `npx tsx bench/lm-agreement.ts ...`. --scale is
the standard deviation of lora_B: 0.02 moves Gemma's replies without drowning the base model.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "trainer"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True, help="the base GGUF")
    p.add_argument("--out", required=True, help="the checkpoint folder to write")
    p.add_argument("--rank", type=int, default=16)
    p.add_argument("--alpha", type=float, default=32.0)
    p.add_argument("--scale", type=float, default=0.02)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int)
    p.add_argument("--prompt-tokens", type=int, default=768, help="the lm layout budget recorded for lm:hf:DIR")
    a = p.parse_args()

    import torch

    from rmsweb_trainer.gguf_tiny import random_lora
    from rmsweb_trainer.lm import load_model, save_checkpoint

    if a.threads:
        torch.set_num_threads(a.threads)
    t0 = time.time()
    model, tok = load_model(a.base, torch.device("cpu"), "float32")
    loaded = time.time() - t0
    peft_model = random_lora(model, rank=a.rank, alpha=a.alpha, seed=a.seed, scale=a.scale)
    meta = {"command": "random-lora", "model": a.base, "rank": a.rank, "alpha": a.alpha, "scale": a.scale, "seed": a.seed}  # fmt: skip
    # the lm layout's record, as an lm SFT run writes it, so `lm:hf:DIR` prompts it the same way
    meta.update(layout="lm", promptTokens=a.prompt_tokens)
    save_checkpoint(peft_model, tok, a.out, meta)
    print(json.dumps({"out": a.out, "load_s": round(loaded, 1), "total_s": round(time.time() - t0, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
