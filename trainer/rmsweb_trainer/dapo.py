"""DAPO (Yu et al. 2025) for causal LMs, the strongest GRPO-family baseline; the twin of
src/rl/dapo.ts, on TRL's own code: GRPOTrainer with
 - clip-higher: epsilon = clipLow (0.2), epsilon_high = clipHigh (0.28);
 - token-level loss: loss_type "dapo" (every token of the batch weighs the same);
 - no KL term (beta 0; the reference is kept for the charts/kl_ref diagnostic only).
Dynamic sampling (drop zero-variance groups and refill the batch, maxRefills rounds) is not in
TRL 1.16.0's GRPOTrainer: a zero-variance group gets zero advantage, so it adds no policy gradient but
its tokens still count in the token-level mean; charts/refill_rounds stays 0 and maxRefills is
unused. Overlong reward shaping is left out, as in the TS trainer (mask_truncated_completions off).
"""

from __future__ import annotations

from typing import Any

from .data import RlExample
from .options import defaults
from .rl import RmswebGRPOTrainer, train_rl

#: steps, batchSize, groupSize, temperature, lr, clipLow, clipHigh (clip-higher), maxRefills
#: (unused, see above), updateEpochs, seed.
DAPO_DEFAULTS = defaults("dapo")


class DAPOBaseline(RmswebGRPOTrainer):
    """TRL's GRPOTrainer with loss_type "dapo" and clip-higher, with rmsweb's options and metrics."""

    algo = "dapo"


def train_dapo(
    model: Any, tok: Any, examples: list[RlExample], **kw: Any
) -> tuple[DAPOBaseline, list[dict[str, float]]]:
    """Trains `model` in place with DAPO; returns (the trainer, per-step metrics)."""
    return train_rl(DAPOBaseline, model, tok, examples, **kw)
