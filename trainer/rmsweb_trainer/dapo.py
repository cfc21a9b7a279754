"""DAPO (Yu et al. 2025) for causal LMs, the strongest GRPO-family baseline; the twin of src/rl/dapo.ts.

 - clip-higher: asymmetric clip range [1 - 0.2, 1 + 0.28], so unlikely-but-good replies can grow;
 - dynamic sampling: groups whose rewards are all equal (zero variance, no signal) are dropped and
   the batch is refilled by sampling more states, up to a number of refill rounds;
 - token-level loss: the surrogate is averaged over every token of every reply in the batch, not
   per reply first;
 - no KL term (the reference is kept for the charts/kl_ref diagnostic only).
Overlong reward shaping is left out, as in the TS trainer: replies are capped by maxNewTokens and an
over-long reply that does not parse already scores -1.
"""

from __future__ import annotations

from typing import Any

import torch

from .data import RlExample
from .lm import Batch, all_mean, empty_metrics, finite, token_logprobs
from .options import defaults
from .reward import RewardFn
from .rollouts import (
    ExampleStream,
    Group,
    Row,
    backward_rows,
    competence_gate,
    contrast_gate,
    fill_old_logprobs,
    group_advantages,
    group_stats,
    shard,
    truth_kl,
)
from .session import Session

# ================================================================================== options

#: steps, batchSize (groups with signal wanted per step), groupSize, temperature, lr, clipLow,
#: clipHigh (clip-higher), maxRefills, updateEpochs, seed.
DAPO_DEFAULTS = defaults("dapo")
_GATES = defaults("salvage-ds")


# ============================================================================= loss of one step


def dapo_loss(o: dict[str, Any], total_tokens: int):
    """-sum over every token of the clipped surrogate / total tokens of the step (token level)."""

    def loss(rows: list[Row], b: Batch, logits: torch.Tensor, ref_logits: torch.Tensor | None):
        lp = token_logprobs(logits, b)
        old = torch.zeros_like(lp)
        for i, r in enumerate(rows):
            old[i, : len(r.completion)] = r.old
        adv = torch.tensor([r.advantage for r in rows], device=lp.device)[:, None]
        ratio = torch.exp(lp - old)
        surrogate = torch.minimum(ratio * adv, ratio.clamp(1 - o["clipLow"], 1 + o["clipHigh"]) * adv)
        value = -(surrogate * b.mask).sum() / max(1, total_tokens)
        clipped = ((ratio < 1 - o["clipLow"]) | (ratio > 1 + o["clipHigh"])).float() * b.mask
        return value, {"policy": float(value.detach()), "clipped": float(clipped.sum()), "tokens": float(b.mask.sum())}

    return loss


# =============================================================================== training loop


def train_dapo(
    model: Any,
    tok: Any,
    examples: list[RlExample],
    *,
    reward: RewardFn | str = "polarized",
    metrics_path: str | None = None,
    on_metrics=None,
    dist=None,
    **options: Any,
) -> tuple[Session, list[dict[str, float]]]:
    """Trains `model` in place with DAPO; returns (the run's session, per-step metrics)."""
    o = defaults("dapo", **options)
    s = Session(model, tok, o, reference=True, reward=reward, metrics_path=metrics_path, dist=dist)
    stream = ExampleStream(len(examples), o["seed"])
    metrics, rollouts_total = [], 0
    want = len(shard(list(range(o["batchSize"])), s.dist))
    for step in range(1, o["steps"] + 1):
        m = empty_metrics(step)

        # ---- dynamic sampling: keep groups with reward variance, refill from further states
        kept: list[Group] = []
        seen: list[Group] = []
        refills = 0
        for rnd in range(o["maxRefills"] + 1):
            if len(kept) >= want:
                break
            picked = [examples[i] for i in stream.take(want - len(kept))]
            groups = s.sampler.groups(picked)
            seen += groups
            kept += [g for g in groups if group_stats(g.rewards)[1] > 0]
            refills = rnd
        sampled = len(seen) * o["groupSize"]
        rollouts_total += sampled * s.dist.world
        n = max(1, len(seen))
        m["charts/rollouts_sampled"] = sampled * s.dist.world
        m["charts/rollouts_total"] = rollouts_total
        m["charts/refill_rounds"] = refills
        m["charts/groups_trained"] = len(kept)
        m["charts/mean_reward"] = sum(r for g in seen for r in g.rewards) / max(1, sampled)
        m["charts/zero_variance_share"] = sum(group_stats(g.rewards)[1] == 0 for g in seen) / n
        m["charts/contrast_gate_pass"] = sum(contrast_gate(g.rewards, _GATES["contrastDelta"]) for g in seen) / n
        m["charts/competence_gate_pass"] = sum(competence_gate(g.rewards, _GATES["competenceTau"]) for g in seen) / n
        m["charts/kl_ref"] = truth_kl(s.model, s.reference, seen, s.pad, s.device, s.micro)

        # ---- the update: token-level clipped surrogate with clip-higher, no KL
        if kept:
            rows = [
                Row(g.prompt, c, "pg", advantage=a)
                for g in kept
                for c, a in zip(g.completions, group_advantages(g.rewards))
            ]
            fill_old_logprobs(s.model, rows, s.pad, s.device, s.micro)
            tokens = sum(len(r.completion) for r in rows)
            for _ in range(o["updateEpochs"]):
                total, parts = backward_rows(
                    s.model, None, rows, dapo_loss(o, tokens), pad=s.pad, device=s.device, micro=s.micro
                )
                s.step()
            m["losses/total"] = finite(total)
            m["losses/policy"] = parts["policy"]
            m["charts/clip_fraction"] = parts["clipped"] / parts["tokens"] if parts["tokens"] else 0.0
        m = {k: (all_mean(v, s.dist) if k != "step" else v) for k, v in m.items()}
        metrics.append(m)
        s.log.write("step", **m)
        if on_metrics:
            on_metrics(m)
    s.log.close()
    return s, metrics
