"""Salvage-DS for causal LMs: offline group-relative RL on critical states, with two gates and a
salvage anchor. The PyTorch twin of src/rl/salvage-ds.ts, as a subclass of TRL's GRPOTrainer.

For each critical state TRL samples a group of G replies from the current policy; each is parsed into
its first action and scored against the ground-truth action (polarized reward by default). A group
passing both gates - contrast (max - min >= delta) and competence (max >= tau) - gets
group-normalized advantages and TRL's PPO clipped surrogate on per-token ratios ("grpo" loss: each
reply's tokens averaged, 1/|o| sum_t), plus beta x k3 KL to the frozen starting policy. A group
failing either gate is not thrown away: its state goes to the salvage anchor, cross-entropy on the
ground-truth reply plus betaBrake times the exact per-token KL(current || frozen start) along that
reply (teacher forcing: no sampling noise, exactly 0 with zero gradient at the start). Every group
weighs the same in the step's loss, whichever branch it took. With salvage off, failing groups
contribute nothing (the "no salvage" ablation).
"""

from __future__ import annotations

from typing import Any

import torch

from .data import RlExample
from .lm import completion_logits, exact_kl, make_batch, seq_mean, token_logprobs
from .options import defaults
from .rl import RmswebGRPOTrainer, train_rl
from .rollouts import competence_gate_t, contrast_gate_t, group_advantages_t

#: steps, batchSize (states per step), groupSize (G), temperature, lr, clipEps, beta (k3 KL weight on
#: policy-gradient groups), betaBrake (exact KL weight on salvaged groups), contrastDelta,
#: competenceTau, salvage, updateEpochs, seed - from src/rl/options.json, as the TS trainer reads
#: them, with the torch section (lr defaults to torch.rlLr; maxNewTokens, lora, microBatch, ...).
SALVAGE_DS_DEFAULTS = defaults("salvage-ds")


class SalvageDSTrainer(RmswebGRPOTrainer):
    """TRL's GRPOTrainer (loss_type "grpo", beta the k3 brake) with Salvage-DS's gates and anchor.

    After TRL has sampled and scored the step's groups, each group is gated on the rewards of all
    its samples, gathered from every process (as TRL gathers them for the advantages): a group
    passing both gates keeps its group-normalized advantages (population std, as
    src/rl/group-advantage.ts); a failing group gets zero advantage and is masked out of TRL's loss
    (its samples carry no k3 term either), and, unless salvage is off, is anchored to its gold reply:
    cross-entropy + betaBrake x the exact KL to the reference along that reply. Every trained group
    weighs 1/n in the step's loss, n = groups trained, whichever branch it took.
    """

    algo = "salvage-ds"

    def _route(self, inputs, out, groups):
        o, g = self.o, self.num_generations
        passing = contrast_gate_t(groups, o["contrastDelta"]) & competence_gate_t(groups, o["competenceTau"])
        n_groups, n_fail = groups.shape[0], int((~passing).sum())
        trained = int(passing.sum()) + (n_fail if o["salvage"] else 0)
        local = len(inputs)
        rows = slice(self.accelerator.process_index * local, (self.accelerator.process_index + 1) * local)
        adv = (group_advantages_t(groups) * passing[:, None]).flatten()[rows]
        row_pass = passing.repeat_interleave(g)[rows]
        anchor = torch.zeros(local, device=adv.device)
        if o["salvage"]:
            for i in self._group_heads(local):
                anchor[i] = float(not row_pass[i])
        out["advantages"] = adv.to(out["advantages"].dtype)
        out["rmsweb_policy"] = row_pass.float()
        out["rmsweb_anchor"] = anchor
        # TRL's "grpo" loss averages replies over every row of a micro-batch, then the micro-batches
        # and processes: 1/(N G) per reply for N groups. Rescaled to 1/(n G): the n trained groups
        # share the step's unit weight. An anchor's term is summed over micro-batches (TRL's loss is
        # already scaled for accumulation) and averaged over processes: world/n each gives 1/n.
        out["rmsweb_pg_scale"] = torch.full((local,), n_groups / trained if trained else 0.0, device=adv.device)
        out["rmsweb_anchor_weight"] = torch.full(
            (local,), self.accelerator.num_processes / trained if trained else 0.0, device=adv.device
        )
        out["rmsweb_gold"] = self._gold_rows(inputs, out, list(range(local)))
        self._charts["charts/salvage_share"] = (n_fail if o["salvage"] else 0) / max(1, n_groups)
        self._charts["charts/groups_trained"] = float(trained)
        return out

    def _anchor(self, model, inputs) -> tuple[torch.Tensor, torch.Tensor]:
        """(weighted cross-entropy, weighted betaBrake x exact KL) of the micro-batch's anchor rows:
        teacher-forced on the gold reply, each reply's tokens averaged (1/|o| sum_t)."""
        rows = inputs["rmsweb_anchor"].nonzero().flatten().tolist()
        if not rows:
            zero = inputs["advantages"].new_zeros(())
            return zero, zero
        w = inputs["rmsweb_anchor_weight"][rows]
        b = make_batch([inputs["rmsweb_gold"][i] for i in rows], self.processing_class.pad_token_id, w.device)
        # the module itself, not its DDP wrapper: a wrapper's forward syncs buffers across processes,
        # and only the processes holding an anchor row run this pass (the gradient still reaches
        # DDP's hooks, which sit on the parameters)
        logits = completion_logits(self.accelerator.unwrap_model(model), b)
        ce = -seq_mean(token_logprobs(logits, b), b.mask)
        brake = torch.zeros_like(ce)
        if self.o["betaBrake"]:
            with torch.no_grad(), self.reference() as ref:
                ref_logits = completion_logits(ref, b)
            brake = self.o["betaBrake"] * seq_mean(exact_kl(logits, ref_logits), b.mask)
        return (w * ce).sum(), (w * brake).sum()

    def _compute_loss(self, model, inputs):
        policy_rows = inputs["rmsweb_policy"][:, None].to(inputs["completion_mask"].dtype)
        pg_inputs = {**inputs, "tool_mask": policy_rows * inputs.get("tool_mask", 1)}
        scale = float(inputs["rmsweb_pg_scale"][0])
        pg = super(RmswebGRPOTrainer, self)._compute_loss(model, pg_inputs) * scale
        kl = self._policy_parts(pg_inputs, scale)
        ce, brake = self._anchor(model, inputs)
        loss = pg + ce + brake
        self._add_losses(
            **{
                "losses/total": float(loss.detach()),
                "losses/policy": float(pg.detach()) - kl,
                "losses/salvage_ce": float(ce.detach()),
                "losses/kl": kl + float(brake.detach()),
            }
        )
        return loss


def train_salvage_ds(
    model: Any, tok: Any, examples: list[RlExample], **kw: Any
) -> tuple[SalvageDSTrainer, list[dict[str, float]]]:
    """Trains `model` in place with Salvage-DS; returns (the trainer, per-step metrics). Keywords:
    reward, metrics_path, on_metrics, vllm, work_dir and any salvage-ds or torch option."""
    return train_rl(SalvageDSTrainer, model, tok, examples, **kw)
