"""Salvage-DS on TRL's GRPOTrainer, on a fixed batch: fixed completions (TRL's sampler replaced by a
table), fixed rewards, a tiny random causal LM. The loss and gradient equal a small reference
implementation of the formula (and, while it existed, the hand-written loop's); the gates route each
group to exactly one term; the KL brake is live with beta > 0."""

from __future__ import annotations

import copy
import itertools

import pytest
import torch
import torch.nn.functional as F

from rmsweb_trainer.rl import build_trainer
from rmsweb_trainer.salvage_ds import SalvageDSTrainer

G = 3
#: one group per state; in order: passes both gates; fails both; contrast without competence
REWARDS = {"pass": [1.0, -1.0, -1.0], "fail": [-1.0, -1.0, -1.0], "weak": [0.3, -0.5, -1.0]}
#: token ids of G completions per group (the last one ends with the tokenizer's end token, see _comps)
LENGTHS = [[3, 5, 2], [4, 1, 6], [2, 3, 4]]


def _comps(tok, group: int) -> list[list[int]]:
    gen = torch.Generator().manual_seed(100 + group)
    out = []
    for n in LENGTHS[group]:
        ids = torch.randint(10, len(tok), (n,), generator=gen).tolist()
        out.append(ids + [tok.eos_token_id])
    return out


def _perturb(model, seed=1, scale=0.02):
    """Moves the policy off its reference, so every KL term (and its gradient) is non-zero."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(scale * torch.randn(p.shape, generator=gen))


def trl_step(model, tok, examples, kinds, micro=2, **options):
    """(loss, gradient, trainer, scored batch) of one Salvage-DS step of TRL's code path on the fixed
    groups `kinds` (keys of REWARDS), the i-th group on examples[i]."""
    rewards = iter([r for k in kinds for r in REWARDS[k]])
    trainer = build_trainer(
        SalvageDSTrainer,
        model,
        tok,
        examples[: len(kinds)],
        reward=lambda a, t, o: next(rewards),
        steps=1,
        batchSize=len(kinds),
        groupSize=G,
        microBatch=micro,
        maxNewTokens=8,
        **options,
    )
    comps = [c for g in range(len(kinds)) for c in _comps(tok, g)]
    trainer._generate_single_turn = lambda prompt_ids, images, fields, n: (comps[: len(prompt_ids)], None)
    _perturb(trainer.model)
    trainer.model.train()
    inputs = [trainer.train_dataset[i] for i in range(len(kinds)) for _ in range(G)]
    out = trainer._generate_and_score_completions(inputs)
    from trl.trainer.utils import split_tensor_dict

    accum = trainer.args.gradient_accumulation_steps
    trainer.current_gradient_accumulation_steps = accum
    trainer.model.zero_grad(set_to_none=True)
    total = 0.0
    for chunk in split_tensor_dict(out, accum):
        loss = trainer.compute_loss(trainer.model, chunk)
        loss.backward()
        total += float(loss.detach())
    grads = torch.cat([p.grad.flatten() for p in trainer.model.parameters() if p.grad is not None])
    return total, grads, trainer, out


# ------------------------------------------------------------------ the formula, written plainly


def _seq_logits(model, prompt, completion):
    ids = torch.tensor([prompt + completion])
    logits = model(input_ids=ids).logits[0].float()
    return logits[len(prompt) - 1 : len(prompt) - 1 + len(completion)]


def reference_loss(model, start, tok, prompts, golds, kinds, o) -> torch.Tensor:
    """Salvage-DS's step loss, one sequence at a time: n = groups trained; a passing group's G replies
    weigh 1/(nG) each with -mean_t(ratio A) + beta mean_t(k3); a failing group (salvage on) weighs 1/n
    with CE + betaBrake x exact KL along its gold reply; ratio = 1 in value (on-policy)."""
    passing = [max(REWARDS[k]) - min(REWARDS[k]) >= o["contrastDelta"] and max(REWARDS[k]) >= o["competenceTau"] for k in kinds]  # fmt: skip
    n = sum(passing) + (0 if not o["salvage"] else len(kinds) - sum(passing))
    total = torch.zeros(())
    for g, (kind, ok) in enumerate(zip(kinds, passing)):
        if ok:
            r = torch.tensor(REWARDS[kind])
            adv = (r - r.mean()) / (r.std(unbiased=False) + 1e-6)
            for a, c in zip(adv, _comps(tok, g)):
                tgt = torch.tensor(c)
                lp = F.log_softmax(_seq_logits(model, prompts[g], c), -1).gather(1, tgt[:, None]).squeeze(1)
                with torch.no_grad():
                    ref = F.log_softmax(_seq_logits(start, prompts[g], c), -1).gather(1, tgt[:, None]).squeeze(1)
                ratio = torch.exp(lp - lp.detach())
                k3 = torch.exp(ref - lp) - (ref - lp) - 1
                total = total + (-(ratio * a).mean() + o["beta"] * k3.mean()) / (n * G)
        elif o["salvage"]:
            logits = _seq_logits(model, prompts[g], golds[g])
            with torch.no_grad():
                ref_logits = _seq_logits(start, prompts[g], golds[g])
            lp_all, lq_all = F.log_softmax(logits, -1), F.log_softmax(ref_logits, -1)
            ce = -lp_all.gather(1, torch.tensor(golds[g])[:, None]).mean()
            kl = (lp_all.exp() * (lp_all - lq_all)).sum(-1).mean()
            total = total + (ce + o["betaBrake"] * kl) / n
    return total


def reference_step(model, tok, examples, kinds, out, **options):
    """(loss, gradient) of reference_loss on `model` (perturbed as trl_step perturbs it) against its
    unperturbed start, on the prompts TRL tokenized."""
    from rmsweb_trainer.options import defaults

    o = defaults("salvage-ds", **options)
    start = copy.deepcopy(model).eval()
    _perturb(model)
    prompts = [out["prompt_ids"][g * G][out["prompt_mask"][g * G].bool()].tolist() for g in range(len(kinds))]
    golds = [out["rmsweb_gold"][g * G][1] for g in range(len(kinds))]
    model.zero_grad(set_to_none=True)
    loss = reference_loss(model, start, tok, prompts, golds, kinds, o)
    loss.backward()
    return float(loss.detach()), torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])


KINDS = ["pass", "fail", "weak"]
OPTS = {"beta": 0.05, "betaBrake": 0.3}


def test_parity_with_the_formula_on_a_fixed_batch(tokenizer, examples):
    from rmsweb_trainer.tiny import build_model

    loss, grads, trainer, out = trl_step(build_model(tokenizer, seed=0), tokenizer, examples, KINDS, **OPTS)
    # the gates routed as designed: group 0 trains the policy, groups 1 and 2 are anchored
    assert out["rmsweb_policy"].tolist() == [1.0] * 3 + [0.0] * 6
    assert out["rmsweb_anchor"].tolist() == [0, 0, 0, 1, 0, 0, 1, 0, 0]
    ref_loss, ref_grads = reference_step(build_model(tokenizer, seed=0), tokenizer, examples, KINDS, out, **OPTS)
    assert loss == pytest.approx(ref_loss, abs=1e-5)
    torch.testing.assert_close(grads, ref_grads, rtol=1e-4, atol=1e-5)
    assert float(grads.abs().sum()) > 0


@pytest.mark.parametrize("micro", [1, 9])
def test_gradient_accumulation_does_not_change_the_step(tokenizer, examples, micro):
    from rmsweb_trainer.tiny import build_model

    loss2, grads2, _, _ = trl_step(build_model(tokenizer, seed=0), tokenizer, examples, KINDS, micro=2, **OPTS)
    loss, grads, trainer, _ = trl_step(build_model(tokenizer, seed=0), tokenizer, examples, KINDS, micro=micro, **OPTS)
    assert trainer.args.gradient_accumulation_steps == 9 // micro
    assert loss == pytest.approx(loss2, abs=1e-5)
    torch.testing.assert_close(grads, grads2, rtol=1e-4, atol=1e-6)


def _old_loop_step(model, tok, examples, kinds, out, **options):
    """The hand-written loop's loss (salvage_ds.salvage_ds_loss via rollouts.backward_rows)."""
    from rmsweb_trainer.lm import Reference
    from rmsweb_trainer.options import defaults
    from rmsweb_trainer.rollouts import Group, backward_rows, fill_old_logprobs
    from rmsweb_trainer.salvage_ds import build_rows, route, salvage_ds_loss

    o = defaults("salvage-ds", **options)
    ref = Reference(model, lora=False)  # a frozen copy of the start
    _perturb(model)
    groups = []
    for g, kind in enumerate(kinds):
        prompt = out["prompt_ids"][g * G][out["prompt_mask"][g * G].bool()].tolist()
        gold = out["rmsweb_gold"][g * G][1]
        groups.append(Group(examples[g], prompt, _comps(tok, g), [None] * G, REWARDS[kind], gold))
    _, _, passing, salvaged = route(groups, o)
    rows = build_rows(passing, salvaged)
    fill_old_logprobs(model, [r for r in rows if r.kind == "pg"], tok.pad_token_id, torch.device("cpu"), 4)
    model.zero_grad(set_to_none=True)
    total, _ = backward_rows(model, ref, rows, salvage_ds_loss(o), pad=tok.pad_token_id, device=torch.device("cpu"), micro=4)  # fmt: skip
    return total, torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])


def test_parity_with_the_hand_written_loop(tokenizer, examples):
    from rmsweb_trainer.tiny import build_model

    loss, grads, _, out = trl_step(build_model(tokenizer, seed=0), tokenizer, examples, KINDS, **OPTS)
    old_loss, old_grads = _old_loop_step(build_model(tokenizer, seed=0), tokenizer, examples, KINDS, out, **OPTS)
    print(f"PARITY loss trl={loss:.8f} old={old_loss:.8f} |diff|={abs(loss - old_loss):.2e} "
          f"grad max|diff|={float((grads - old_grads).abs().max()):.2e}")  # fmt: skip
    assert loss == pytest.approx(old_loss, abs=1e-5)
    torch.testing.assert_close(grads, old_grads, rtol=1e-4, atol=1e-5)


_ = itertools  # noqa: F841
