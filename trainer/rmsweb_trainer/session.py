"""One training run's plumbing, shared by every algorithm: seeds, the model (optionally LoRA, DDP
under torchrun), the frozen reference, Adam, the sampler and the metrics log."""

from __future__ import annotations

import random
from typing import Any

import torch

from .lm import Dist, MetricsLog, Reference, add_lora, save_checkpoint, setup_dist, stop_ids, unwrap
from .reward import RewardFn, reward_by_name
from .rollouts import Sampler


class Session:
    def __init__(
        self,
        model: Any,
        tok: Any,
        o: dict[str, Any],
        *,
        reference: bool,
        reward: RewardFn | str | None = None,
        metrics_path: str | None = None,
        dist: Dist | None = None,
    ):
        self.o = o
        self.dist = dist or Dist(device=next(model.parameters()).device)
        # Same seed, data and model give the same run: weights init (LoRA), data order and sampling
        # all draw from generators seeded here.
        torch.manual_seed(o["seed"])
        random.seed(o["seed"])
        if o["lora"]:
            model = add_lora(model, o["loraRank"], o["loraAlpha"], o["loraDropout"])
        model.train()
        self.reference = Reference(unwrap(model), o["lora"]) if reference else None
        if self.dist.world > 1:
            ids = [self.dist.device.index] if self.dist.device.type == "cuda" else None
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=ids)
        self.model, self.tok = model, tok
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam(params, lr=o["lr"])
        self.pad = tok.pad_token_id
        self.device = self.dist.device
        self.micro = o["microBatch"]
        self.log = MetricsLog(metrics_path, self.dist)
        if reward is not None:
            gen = torch.Generator().manual_seed(o["seed"] * 7919 + 1 + self.dist.rank)
            self.sampler = Sampler(
                model=model,
                tok=tok,
                reward=reward_by_name(reward) if isinstance(reward, str) else reward,
                group_size=o["groupSize"],
                temperature=o["temperature"],
                max_new_tokens=o["maxNewTokens"],
                max_prompt_tokens=o["maxPromptTokens"],
                stops=stop_ids(model, tok),
                generator=gen,
                device=self.device,
            )

    def step(self) -> None:
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)

    def save(self, out: str, meta: dict[str, Any]) -> None:
        if self.dist.main:
            save_checkpoint(self.model, self.tok, out, meta)
        if self.dist.world > 1:
            torch.distributed.barrier()


def setup(device: str | None = None) -> Dist:
    return setup_dist(device)
