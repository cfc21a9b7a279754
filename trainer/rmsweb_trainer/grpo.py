"""GRPO (DeepSeekMath) for causal LMs, the baseline Salvage-DS builds on; the twin of src/rl/grpo.ts,
on TRL's own code: GRPOTrainer with loss_type "grpo" (each reply's tokens averaged, then the
replies), group-normalized rewards (scale_rewards "group") and beta x k3 KL to the frozen start.
No gates and no salvage: a group whose rewards are all equal gets zero advantages and contributes no
policy gradient, but still counts in the mean. With `reward="exact"` this is the exact-match baseline.

TRL's advantage uses the unbiased group std + 1e-4 (src/rl/group-advantage.ts: population std +
1e-6); the baseline is TRL's as it ships.
"""

from __future__ import annotations

from typing import Any

from .data import RlExample
from .options import defaults
from .rl import RmswebGRPOTrainer, train_rl

#: steps, batchSize, groupSize, temperature, lr, clipEps, beta (0.001, the same as Salvage-DS's
#: policy-gradient branch so the comparison isolates gates and salvage), updateEpochs, seed.
GRPO_DEFAULTS = defaults("grpo")


class GRPOBaseline(RmswebGRPOTrainer):
    """TRL's GRPOTrainer as it is, with rmsweb's options, reference and metrics."""

    algo = "grpo"


def train_grpo(
    model: Any, tok: Any, examples: list[RlExample], **kw: Any
) -> tuple[GRPOBaseline, list[dict[str, float]]]:
    """Trains `model` in place with GRPO; returns (the trainer, per-step metrics)."""
    return train_rl(GRPOBaseline, model, tok, examples, **kw)
