"""Salvage-DS for causal LMs: offline group-relative RL on critical states, with two gates and a
salvage anchor. The PyTorch twin of src/rl/salvage-ds.ts, read the same way, top to bottom.

For each critical state, sample a group of G replies from the current policy, parse each into its
first action and score it against the ground-truth action (polarized reward by default). A group
passing both gates - contrast (max - min >= delta) and competence (max >= tau) - gets
group-normalized advantages and a PPO clipped surrogate on per-token ratios, plus a k3 KL to the
frozen starting policy. A group failing either gate is not thrown away: its state goes to the salvage
loss, cross-entropy on the ground-truth reply plus beta_brake times the exact per-token KL(current ||
frozen start) along that reply (teacher forcing: no sampling noise, exactly 0 with zero gradient at
the start). Every group weighs the same in the step's loss, whichever branch it took; each reply's
token terms are averaged within the reply (GRPO's 1/|o| sum_t), so a long reply does not outweigh a
short one.
"""

from __future__ import annotations

from typing import Any

import torch

from .data import RlExample
from .lm import Batch, all_mean, empty_metrics, exact_kl, finite, k3, seq_mean, token_logprobs
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

#: steps, batchSize (states per step), groupSize (G), temperature, lr (Adam), clipEps, beta (k3 KL
#: weight on policy-gradient groups), betaBrake (exact KL weight on salvage groups), contrastDelta,
#: competenceTau, salvage (False drops failing groups: the "no salvage" ablation), updateEpochs,
#: seed - all from src/rl/options.json, as the TS trainer reads them; plus the torch section
#: (maxNewTokens, maxPromptTokens, lora, loraRank, loraAlpha, loraDropout, microBatch).
SALVAGE_DS_DEFAULTS = defaults("salvage-ds")


# ============================================================================= loss of one step


def salvage_ds_loss(o: dict[str, Any]):
    """The per-micro-batch loss: each row carries its own weight (`coef`), so summing over micro-batches
    gives the step's loss: wPg * (policy + beta * k3) + wSalvage * (CE + betaBrake * KL)."""

    def loss(rows: list[Row], b: Batch, logits: torch.Tensor, ref_logits: torch.Tensor | None):
        lp = token_logprobs(logits, b)
        coef = torch.tensor([r.coef for r in rows], device=lp.device)
        is_pg = torch.tensor([r.kind == "pg" for r in rows], device=lp.device)
        zero = torch.zeros(len(rows), device=lp.device)
        parts = {"policy": 0.0, "salvage_ce": 0.0, "kl": 0.0, "clipped": 0.0, "pg_tokens": 0.0}

        # policy-gradient rows: clipped surrogate on per-token ratios + beta * k3 to the reference
        old = torch.zeros_like(lp)
        for i, r in enumerate(rows):
            if r.kind == "pg":
                old[i, : len(r.completion)] = r.old
        adv = torch.tensor([r.advantage for r in rows], device=lp.device)[:, None]
        ratio = torch.exp(lp - old)
        surrogate = torch.minimum(ratio * adv, ratio.clamp(1 - o["clipEps"], 1 + o["clipEps"]) * adv)
        policy = torch.where(is_pg, -seq_mean(surrogate, b.mask), zero)
        out_of_clip = ((ratio < 1 - o["clipEps"]) | (ratio > 1 + o["clipEps"])).float() * b.mask
        ref_lp = token_logprobs(ref_logits, b) if ref_logits is not None else lp.detach()
        pg_kl = torch.where(is_pg, seq_mean(k3(lp, ref_lp), b.mask), zero)

        # salvage rows: cross-entropy of the ground-truth reply + betaBrake * exact KL along it
        ce = torch.where(is_pg, zero, -seq_mean(lp, b.mask))
        brake = (
            torch.where(is_pg, zero, seq_mean(exact_kl(logits, ref_logits), b.mask))
            if ref_logits is not None and not bool(is_pg.all())
            else zero
        )

        kl = torch.where(is_pg, o["beta"] * pg_kl, o["betaBrake"] * brake)
        total = (coef * (policy + ce + kl)).sum()
        parts["policy"] = float((coef * policy).sum().detach())
        parts["salvage_ce"] = float((coef * ce).sum().detach())
        parts["kl"] = float((coef * kl).sum().detach())
        parts["clipped"] = float((out_of_clip * is_pg[:, None]).sum())
        parts["pg_tokens"] = float((b.mask * is_pg[:, None]).sum())
        return total, parts

    return loss


def route(groups: list[Group], o: dict[str, Any]):
    """The two gates: (contrast passes, competence passes, groups passing both, groups salvaged).
    A failing group goes to the salvage loss, or nowhere when o["salvage"] is off (the ablation)."""
    contrast = [contrast_gate(g.rewards, o["contrastDelta"]) for g in groups]
    competence = [competence_gate(g.rewards, o["competenceTau"]) for g in groups]
    passing = [g for g, c, k in zip(groups, contrast, competence) if c and k]
    failing = [g for g, c, k in zip(groups, contrast, competence) if not (c and k)]
    return contrast, competence, passing, failing if o["salvage"] else []


def build_rows(passing: list[Group], salvaged: list[Group]) -> list[Row]:
    """The step's rows: every sample of each passing group (weight 1/(n*G): the group's samples share
    its 1/n), and the ground truth of each salvaged group (weight 1/n), n = groups trained."""
    n = len(passing) + len(salvaged)
    rows = []
    for g in passing:
        for comp, a in zip(g.completions, group_advantages(g.rewards)):
            rows.append(Row(g.prompt, comp, "pg", advantage=a, coef=1 / (n * len(g.completions))))
    for g in salvaged:
        rows.append(Row(g.prompt, g.truth_ids, "salvage", coef=1 / n))
    return rows


# =============================================================================== training loop


def train_salvage_ds(
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
    """Trains `model` in place with Salvage-DS; returns (the run's session, per-step metrics)."""
    o = defaults("salvage-ds", **options)
    s = Session(model, tok, o, reference=True, reward=reward, metrics_path=metrics_path, dist=dist)
    stream = ExampleStream(len(examples), o["seed"])
    metrics, rollouts_total = [], 0

    for step in range(1, o["steps"] + 1):
        picked = shard([examples[i] for i in stream.take(o["batchSize"])], s.dist)
        m = empty_metrics(step)

        # ---- rollouts: G replies per state, parsed and scored against the ground truth
        groups = s.sampler.groups(picked)
        rollouts_total += len(picked) * o["groupSize"] * s.dist.world
        m["charts/rollouts_sampled"] = len(picked) * o["groupSize"] * s.dist.world
        m["charts/rollouts_total"] = rollouts_total
        m["charts/kl_ref"] = truth_kl(s.model, s.reference, groups, s.pad, s.device, s.micro)

        # ---- the two gates
        contrast, competence, passing, salvaged = route(groups, o)
        n = max(1, len(groups))
        m["charts/mean_reward"] = sum(r for g in groups for r in g.rewards) / max(
            1, sum(len(g.rewards) for g in groups)
        )
        m["charts/contrast_gate_pass"] = sum(contrast) / n
        m["charts/competence_gate_pass"] = sum(competence) / n
        m["charts/salvage_share"] = len(salvaged) / n
        m["charts/groups_trained"] = len(passing) + len(salvaged)
        m["charts/zero_variance_share"] = sum(group_stats(g.rewards)[1] == 0 for g in groups) / n

        # ---- the update: clipped surrogate on passing groups, salvage loss on failing ones
        rows = build_rows(passing, salvaged)
        if rows:
            fill_old_logprobs(s.model, [r for r in rows if r.kind == "pg"], s.pad, s.device, s.micro)
            for _ in range(o["updateEpochs"]):
                total, parts = backward_rows(
                    s.model, s.reference, rows, salvage_ds_loss(o), pad=s.pad, device=s.device, micro=s.micro
                )
                s.step()
            m["losses/total"] = finite(total)
            m["losses/policy"] = parts["policy"]
            m["losses/salvage_ce"] = parts["salvage_ce"]
            m["losses/kl"] = parts["kl"]
            m["charts/clip_fraction"] = parts["clipped"] / parts["pg_tokens"] if parts["pg_tokens"] else 0.0

        m = {k: (all_mean(v, s.dist) if k != "step" else v) for k, v in m.items()}
        metrics.append(m)
        s.log.write("step", **m)
        if on_metrics:
            on_metrics(m)
    s.log.close()
    return s, metrics


# ======================================================================== Salvage-DS on TRL (new)

from .lm import completion_logits, make_batch  # noqa: E402
from .rl import RmswebGRPOTrainer, train_rl  # noqa: E402
from .rollouts import competence_gate_t, contrast_gate_t, group_advantages_t  # noqa: E402


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
        logits = completion_logits(model, b)
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


def train_salvage_ds_trl(model, tok, examples, **kw):
    """Trains `model` in place with Salvage-DS on TRL; returns (the trainer, per-step metrics)."""
    return train_rl(SalvageDSTrainer, model, tok, examples, **kw)
