"""GRPO (DeepSeekMath) for causal LMs, the baseline Salvage-DS builds on; the twin of src/rl/grpo.ts.

For each state, sample a group of G replies, score them, and use group-normalized rewards as
advantages in a PPO clipped surrogate on per-token ratios, with a k3 KL to the frozen starting
policy. No gates and no salvage: a group whose rewards are all equal gets zero advantages and
contributes no gradient, but still counts in the mean (so such groups dilute the step). Token terms
are averaged within each reply (1/|o| sum_t), then over replies.
"""

from __future__ import annotations

from typing import Any

import torch

from .data import RlExample
from .lm import Batch, all_mean, empty_metrics, finite, k3, seq_mean, token_logprobs
from .options import defaults
from .reward import RewardFn
from .rollouts import (
    ExampleStream,
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

#: steps, batchSize, groupSize, temperature, lr, clipEps, beta (0.001, the same as Salvage-DS's
#: policy-gradient branch so the comparison isolates gates and salvage), updateEpochs, seed.
GRPO_DEFAULTS = defaults("grpo")
_GATES = defaults("salvage-ds")


# ============================================================================= loss of one step


def grpo_loss(o: dict[str, Any]):
    """-mean(clipped surrogate) + beta * mean(k3), each reply's tokens averaged first; rows carry
    their 1/N weight in `coef`."""

    def loss(rows: list[Row], b: Batch, logits: torch.Tensor, ref_logits: torch.Tensor | None):
        lp = token_logprobs(logits, b)
        old = torch.zeros_like(lp)
        for i, r in enumerate(rows):
            old[i, : len(r.completion)] = r.old
        adv = torch.tensor([r.advantage for r in rows], device=lp.device)[:, None]
        coef = torch.tensor([r.coef for r in rows], device=lp.device)
        ratio = torch.exp(lp - old)
        surrogate = torch.minimum(ratio * adv, ratio.clamp(1 - o["clipEps"], 1 + o["clipEps"]) * adv)
        policy = -seq_mean(surrogate, b.mask)
        kl = o["beta"] * seq_mean(k3(lp, token_logprobs(ref_logits, b)), b.mask)
        clipped = ((ratio < 1 - o["clipEps"]) | (ratio > 1 + o["clipEps"])).float() * b.mask
        parts = {
            "policy": float((coef * policy).sum().detach()),
            "kl": float((coef * kl).sum().detach()),
            "clipped": float(clipped.sum()),
            "tokens": float(b.mask.sum()),
        }
        return (coef * (policy + kl)).sum(), parts

    return loss


# =============================================================================== training loop


def train_grpo(
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
    """Trains `model` in place with GRPO; returns (the run's session, per-step metrics)."""
    o = defaults("grpo", **options)
    s = Session(model, tok, o, reference=True, reward=reward, metrics_path=metrics_path, dist=dist)
    stream = ExampleStream(len(examples), o["seed"])
    metrics, rollouts_total = [], 0
    for step in range(1, o["steps"] + 1):
        picked = shard([examples[i] for i in stream.take(o["batchSize"])], s.dist)
        m = empty_metrics(step)
        groups = s.sampler.groups(picked)
        rollouts_total += len(picked) * o["groupSize"] * s.dist.world
        m["charts/rollouts_sampled"] = len(picked) * o["groupSize"] * s.dist.world
        m["charts/rollouts_total"] = rollouts_total
        m["charts/kl_ref"] = truth_kl(s.model, s.reference, groups, s.pad, s.device, s.micro)
        n = max(1, len(groups))
        m["charts/mean_reward"] = sum(r for g in groups for r in g.rewards) / max(1, n * o["groupSize"])
        # gates are not used by GRPO; logged so the ablation can compare what the groups looked like
        m["charts/contrast_gate_pass"] = sum(contrast_gate(g.rewards, _GATES["contrastDelta"]) for g in groups) / n
        m["charts/competence_gate_pass"] = sum(competence_gate(g.rewards, _GATES["competenceTau"]) for g in groups) / n
        m["charts/zero_variance_share"] = sum(group_stats(g.rewards)[1] == 0 for g in groups) / n
        m["charts/groups_trained"] = len(groups)

        rows = [
            Row(g.prompt, c, "pg", advantage=a, coef=1 / (n * len(g.completions)))
            for g in groups
            for c, a in zip(g.completions, group_advantages(g.rewards))
        ]
        fill_old_logprobs(s.model, rows, s.pad, s.device, s.micro)
        for _ in range(o["updateEpochs"]):
            total, parts = backward_rows(
                s.model, s.reference, rows, grpo_loss(o), pad=s.pad, device=s.device, micro=s.micro
            )
            s.step()
        m["losses/total"] = finite(total)
        m["losses/policy"] = parts["policy"]
        m["losses/kl"] = parts["kl"]
        m["charts/clip_fraction"] = parts["clipped"] / parts["tokens"] if parts["tokens"] else 0.0
        m = {k: (all_mean(v, s.dist) if k != "step" else v) for k, v in m.items()}
        metrics.append(m)
        s.log.write("step", **m)
        if on_metrics:
            on_metrics(m)
    s.log.close()
    return s, metrics
