"""What the RL algorithms share about groups (src/rl/gates.ts, group-advantage.ts): the two gates and
group-relative advantages, on lists (one group) and on [groups, G] reward tensors (a step)."""

from __future__ import annotations

import math

import torch


def contrast_gate(rewards: list[float], delta: float) -> bool:
    """Reward contrast: max - min >= delta. An empty group fails."""
    return bool(rewards) and max(rewards) - min(rewards) >= delta


def competence_gate(rewards: list[float], tau: float) -> bool:
    """Competence: the best sample scores at least tau. An empty group fails."""
    return bool(rewards) and max(rewards) >= tau


def group_advantages(rewards: list[float], eps: float = 1e-6) -> list[float]:
    """(r - mean) / (std + eps) with the population std: all-equal rewards give all-zero advantages."""
    n = len(rewards)
    if n == 0:
        return []
    mean = sum(rewards) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / n)
    return [(r - mean) / (std + eps) for r in rewards]


def contrast_gate_t(groups: torch.Tensor, delta: float) -> torch.Tensor:
    """[groups, G] rewards -> [groups] bool: max - min >= delta (NaN rewards, unscorable, are ignored)."""
    hi = torch.nan_to_num(groups, nan=-torch.inf).max(1).values
    lo = torch.nan_to_num(groups, nan=torch.inf).min(1).values
    return torch.isfinite(hi) & (hi - lo >= delta)


def competence_gate_t(groups: torch.Tensor, tau: float) -> torch.Tensor:
    """[groups, G] rewards -> [groups] bool: the best sample scores at least tau."""
    return torch.nan_to_num(groups, nan=-torch.inf).max(1).values >= tau


def group_advantages_t(groups: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """[groups, G] -> [groups, G]: group_advantages row by row; NaN (unscorable) rewards get 0."""
    mean = torch.nanmean(groups, dim=1, keepdim=True)
    std = torch.nanmean((groups - mean) ** 2, dim=1, keepdim=True).sqrt()
    return torch.nan_to_num((groups - mean) / (std + eps), nan=0.0)
