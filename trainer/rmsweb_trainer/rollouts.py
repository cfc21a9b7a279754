"""What the RL algorithms share (src/rl/rollouts.ts, gates.ts, group-advantage.ts): the seeded
stream of states, groups of G sampled completions scored against the ground truth, the two gates,
group-relative advantages, and the micro-batched update that every algorithm's loss plugs into."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .data import RlExample, truth_completion
from .lm import Batch, Dist, Reference, completion_ids, make_batch, maybe_no_sync, prompt_ids, sample
from .reward import Action, RewardFn, parse_completion

# ------------------------------------------------------------------------------- gates, advantages


def contrast_gate(rewards: list[float], delta: float) -> bool:
    """Reward contrast: max - min >= delta. An empty group fails."""
    return bool(rewards) and max(rewards) - min(rewards) >= delta


def competence_gate(rewards: list[float], tau: float) -> bool:
    """Competence: the best sample scores at least tau. An empty group fails."""
    return bool(rewards) and max(rewards) >= tau


def contrast_gate_t(groups: torch.Tensor, delta: float) -> torch.Tensor:
    """[groups, G] rewards -> [groups] bool: max - min >= delta (NaN rewards, unscorable, are ignored)."""
    hi = torch.nan_to_num(groups, nan=-torch.inf).max(1).values
    lo = torch.nan_to_num(groups, nan=torch.inf).min(1).values
    return torch.isfinite(hi) & (hi - lo >= delta)


def competence_gate_t(groups: torch.Tensor, tau: float) -> torch.Tensor:
    """[groups, G] rewards -> [groups] bool: the best sample scores at least tau."""
    return torch.nan_to_num(groups, nan=-torch.inf).max(1).values >= tau


def group_advantages_t(groups: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """[groups, G] -> [groups, G]: (r - mean) / (std + eps) with the population std (src/rl/
    group-advantage.ts), so all-equal rewards give zero advantages; NaN (unscorable) rewards get 0."""
    mean = torch.nanmean(groups, dim=1, keepdim=True)
    std = torch.nanmean((groups - mean) ** 2, dim=1, keepdim=True).sqrt()
    return torch.nan_to_num((groups - mean) / (std + eps), nan=0.0)


def group_stats(rewards: list[float]) -> tuple[float, float]:
    """Mean and population standard deviation."""
    n = len(rewards)
    if n == 0:
        return 0.0, 0.0
    mean = sum(rewards) / n
    return mean, math.sqrt(sum((r - mean) ** 2 for r in rewards) / n)


def group_advantages(rewards: list[float], eps: float = 1e-6) -> list[float]:
    """(r - mean) / (std + eps) with the population std: all-equal rewards give all-zero advantages."""
    mean, std = group_stats(rewards)
    return [(r - mean) / (std + eps) for r in rewards]


# ------------------------------------------------------------------------------------ sampling


class ExampleStream:
    """Example indices in seeded random order, reshuffled every pass (every example once per epoch)."""

    def __init__(self, size: int, seed: int):
        if size <= 0:
            raise ValueError("ExampleStream needs at least one example")
        self.size, self.rng, self.order, self.pos = size, random.Random(seed), [], 0

    def take(self, k: int) -> list[int]:
        out = []
        while len(out) < k:
            if self.pos >= len(self.order):
                self.order = list(range(self.size))
                self.rng.shuffle(self.order)
                self.pos = 0
            out.append(self.order[self.pos])
            self.pos += 1
        return out


@dataclass
class Group:
    """G completions of one state, each parsed into an action (None: unparseable) and scored."""

    example: RlExample
    prompt: list[int]
    completions: list[list[int]]
    actions: list[Action | None]
    rewards: list[float]
    truth_ids: list[int] = field(default_factory=list)


@dataclass
class Sampler:
    """Everything sampling needs, built once per run."""

    model: Any
    tok: Any
    reward: RewardFn
    group_size: int
    temperature: float
    max_new_tokens: int
    max_prompt_tokens: int
    stops: set[int]
    generator: torch.Generator
    device: torch.device

    def groups(self, examples: list[RlExample]) -> list[Group]:
        out = []
        for ex in examples:
            p = prompt_ids(self.tok, ex.chat, self.max_prompt_tokens)
            comps = sample(
                self.model,
                p,
                self.group_size,
                temperature=self.temperature,
                max_new_tokens=self.max_new_tokens,
                stops=self.stops,
                generator=self.generator,
                device=self.device,
            )
            texts = self.tok.batch_decode(comps, skip_special_tokens=True)
            actions = [parse_completion(t) for t in texts]
            rewards = [float(self.reward(a, ex.truth, ex.observation)) for a in actions]
            truth = completion_ids(self.tok, ex.chat, truth_completion(ex))
            out.append(Group(ex, p, comps, actions, rewards, truth))
        return out


def shard(items: list[Any], dist: Dist) -> list[Any]:
    """This rank's share of a step's states (all of them on a single process)."""
    return items[dist.rank :: dist.world]


# -------------------------------------------------------------------------------------- update


@dataclass
class Row:
    """One training sequence of a step: a prompt and a completion, with what its loss term needs."""

    prompt: list[int]
    completion: list[int]
    kind: str  # "pg" (a sampled completion) or "salvage" (the ground truth)
    advantage: float = 0.0
    coef: float = 0.0  # the row's weight in the step's loss
    old: torch.Tensor | None = None  # [Lc] sampling-time per-token log-probs


#: A loss over a micro-batch: (rows, batch, policy logits [B, Lc, V], reference logits or None)
#: -> (summed weighted loss, {metric: summed weighted value}).
RowLoss = Callable[[list[Row], Batch, torch.Tensor, torch.Tensor | None], tuple[torch.Tensor, dict[str, float]]]


def micro_batches(rows: list[Row], size: int) -> list[list[Row]]:
    size = size if size > 0 else max(1, len(rows))
    return [rows[i : i + size] for i in range(0, len(rows), size)]


@torch.no_grad()
def fill_old_logprobs(model: Any, rows: list[Row], pad: int, device: torch.device, micro: int) -> None:
    """The policy's per-token log-probs of each row before the update (the ratio's denominator)."""
    from .lm import completion_logits, token_logprobs, unwrap

    m = unwrap(model)
    was = m.training
    m.eval()
    for chunk in micro_batches(rows, micro):
        b = make_batch([(r.prompt, r.completion) for r in chunk], pad, device)
        lp = token_logprobs(completion_logits(m, b), b)
        for i, r in enumerate(chunk):
            r.old = lp[i, : len(r.completion)].detach()
    m.train(was)


def backward_rows(
    model: Any,
    reference: Reference | None,
    rows: list[Row],
    loss: RowLoss,
    *,
    pad: int,
    device: torch.device,
    micro: int,
    need_ref: Callable[[list[Row]], bool] = lambda rows: True,
) -> tuple[float, dict[str, float]]:
    """Accumulates the gradient of sum(row losses) over micro-batches (exactly the full-batch
    gradient); returns the loss and its parts, summed. DDP all-reduces on the last micro-batch."""
    from .lm import completion_logits

    total, parts = 0.0, {}
    chunks = micro_batches(rows, micro)
    for i, chunk in enumerate(chunks):
        b = make_batch([(r.prompt, r.completion) for r in chunk], pad, device)
        ref_logits = None
        if reference is not None and need_ref(chunk):
            with torch.no_grad(), reference.active() as ref:
                ref_logits = completion_logits(ref, b)
        with maybe_no_sync(model, i == len(chunks) - 1):
            logits = completion_logits(model, b)
            value, p = loss(chunk, b, logits, ref_logits)
            value.backward()
        total += float(value.detach())
        for k, v in p.items():
            parts[k] = parts.get(k, 0.0) + v
    return total, parts


@torch.no_grad()
def truth_kl(
    model: Any, reference: Reference, groups: list[Group], pad: int, device: torch.device, micro: int
) -> float:
    """charts/kl_ref: the exact teacher-forced KL(current || start) on the ground-truth replies, per
    token, averaged over states (before the step's update)."""
    from .lm import completion_logits, exact_kl, seq_mean, unwrap

    if not groups:
        return 0.0
    m = unwrap(model)
    was = m.training
    m.eval()
    acc = 0.0
    rows = [(g.prompt, g.truth_ids) for g in groups]
    for i in range(0, len(rows), max(1, micro)):
        b = make_batch(rows[i : i + max(1, micro)], pad, device)
        cur = completion_logits(m, b)
        with reference.active() as ref:
            refl = completion_logits(ref, b)
        acc += float(seq_mean(exact_kl(cur, refl), b.mask).sum())
    m.train(was)
    return acc / len(rows)
