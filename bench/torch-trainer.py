"""Tokens per second of the PyTorch trainer's SFT and RL steps on this machine.

  trainer/.venv/bin/python bench/torch-trainer.py [--data RL_EXPORT.jsonl] [--size tiny|small|base]
      [--threads N] [--steps N]

Builds a random model of the given size (tiny: 32 wide x 2 layers, small: 128 x 4, base: 256 x 6)
with a tokenizer trained on the data, then times: a plain forward pass over the prompts (the
baseline), SFT steps (prompt + reply tokens per second), and Salvage-DS steps split into sampling
(generated tokens per second) and the update. Prints one JSON object.
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "trainer"))

import torch  # noqa: E402

from rmsweb_trainer.data import Chat, load_rl, truth_completion  # noqa: E402
from rmsweb_trainer.lm import completion_ids, completion_logits, make_batch, prompt_ids  # noqa: E402
from rmsweb_trainer.rollouts import Row, backward_rows  # noqa: E402
from rmsweb_trainer.salvage_ds import train_salvage_ds  # noqa: E402
from rmsweb_trainer.sft import sft_loss  # noqa: E402
from rmsweb_trainer.tiny import build_model, build_tokenizer  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", help="an `rmsweb export rl --format jsonl` file (default: synthetic prompts)")
    p.add_argument("--size", default="small", choices=["tiny", "small", "base"])
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--group-size", type=int, default=4)
    p.add_argument("--max-new-tokens", type=int, default=64)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    if a.data:
        examples = load_rl(a.data)
    else:
        from tests.conftest import make_examples  # type: ignore

        examples = make_examples()
    texts = [t for e in examples for t in (e.chat.system, e.chat.user, truth_completion(e))]
    tok = build_tokenizer(texts, 512)
    model = build_model(tok, a.size)
    params = sum(p.numel() for p in model.parameters())
    dev = torch.device("cpu")
    pairs = [(prompt_ids(tok, e.chat, 4096), completion_ids(tok, e.chat, truth_completion(e))) for e in examples]
    batch = pairs[:4]
    tokens = sum(len(p) + len(c) for p, c in batch)

    # baseline: forward only, no gradient
    t = time.perf_counter()
    with torch.no_grad():
        for _ in range(a.steps):
            completion_logits(model, make_batch(batch, tok.pad_token_id, dev))
    fwd = a.steps * tokens / (time.perf_counter() - t)

    # SFT: forward + backward + Adam over prompt + reply tokens
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    t = time.perf_counter()
    for _ in range(a.steps):
        rows = [Row(p, c, "sft", coef=1 / len(batch)) for p, c in batch]
        backward_rows(model, None, rows, sft_loss, pad=tok.pad_token_id, device=dev, micro=4)
        opt.step()
        opt.zero_grad()
    sft = a.steps * tokens / (time.perf_counter() - t)

    # RL: Salvage-DS steps of 2 states x G replies; time split into sampling and the rest
    import rmsweb_trainer.rollouts as ro

    spent = {"sample": 0.0, "generated": 0}
    orig = ro.sample

    def timed(*args, **kw):
        t0 = time.perf_counter()
        out = orig(*args, **kw)
        spent["sample"] += time.perf_counter() - t0
        spent["generated"] += sum(len(c) for c in out)
        return out

    ro.sample = timed
    t = time.perf_counter()
    _, metrics = train_salvage_ds(
        model, tok, examples, steps=a.steps, batchSize=2, groupSize=a.group_size, maxNewTokens=a.max_new_tokens
    )
    rl_total = time.perf_counter() - t
    ro.sample = orig
    prompt_tokens = sum(len(p) for p, _ in pairs[:2])
    print(json.dumps({
        "size": a.size, "params": params, "threads": a.threads, "examples": len(examples),
        "mean_prompt_tokens": round(sum(len(p) for p, _ in pairs) / len(pairs)),
        "forward_tokens_per_s": round(fwd), "sft_tokens_per_s": round(sft), "sft_vs_forward": round(sft / fwd, 3),
        "rl_sampled_tokens_per_s": round(spent["generated"] / spent["sample"], 1),
        "rl_step_seconds": round(rl_total / a.steps, 2), "rl_sampling_share": round(spent["sample"] / rl_total, 3),
        "rl_states_per_step": 2, "group_size": a.group_size, "prompt_tokens_per_state": round(prompt_tokens / 2),
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
