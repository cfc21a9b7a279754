"""The tests the TS trainer has (src/rl/*.test.ts), on a tiny randomly initialized causal LM:
gates and advantages on hand-made groups, salvage = SFT with betaBrake 0, KL 0 at the start, a
seeded run reproduces exactly; plus GRPO, DAPO and SFT runs and the metrics log."""

import itertools
import json
import math

import pytest
import torch

from rmsweb_trainer.dapo import DAPO_DEFAULTS, train_dapo
from rmsweb_trainer.data import truth_completion
from rmsweb_trainer.grpo import GRPO_DEFAULTS, train_grpo
from rmsweb_trainer.lm import (
    METRIC_NAMES,
    Reference,
    completion_ids,
    completion_logits,
    exact_kl,
    make_batch,
    prompt_ids,
)
from rmsweb_trainer.options import OPTIONS
from rmsweb_trainer.rollouts import (
    Group,
    Row,
    backward_rows,
    competence_gate,
    contrast_gate,
    group_advantages,
    truth_kl,
)
from rmsweb_trainer.salvage_ds import SALVAGE_DS_DEFAULTS, build_rows, route, salvage_ds_loss, train_salvage_ds
from rmsweb_trainer.sft import sft_loss

FAST = {"steps": 2, "batchSize": 2, "groupSize": 3, "maxNewTokens": 12}


def test_defaults_are_the_ts_defaults():
    # both sides read src/rl/options.json; the values the TS trainer documents
    assert SALVAGE_DS_DEFAULTS["groupSize"] == 8 and SALVAGE_DS_DEFAULTS["betaBrake"] == 0.1
    assert SALVAGE_DS_DEFAULTS["contrastDelta"] == 0.5 and SALVAGE_DS_DEFAULTS["competenceTau"] == 0.5
    assert GRPO_DEFAULTS["beta"] == SALVAGE_DS_DEFAULTS["beta"] == 0.001
    assert (DAPO_DEFAULTS["clipLow"], DAPO_DEFAULTS["clipHigh"], DAPO_DEFAULTS["maxRefills"]) == (0.2, 0.28, 3)
    assert OPTIONS["salvage-ds"]["steps"] == 50


# ------------------------------------------------------------------------ gates and advantages


def test_gates_on_hand_made_groups():
    assert contrast_gate([1, -1, -1], 0.5) and competence_gate([1, -1, -1], 0.5)
    assert not contrast_gate([-1, -1, -1], 0.5) and not competence_gate([-1, -1, -1], 0.5)
    assert not contrast_gate([1, 1, 1], 0.5) and competence_gate([1, 1, 1], 0.5)  # all right: no contrast
    assert contrast_gate([0.2, -0.4], 0.5) and not competence_gate([0.2, -0.4], 0.5)  # contrast, no success
    assert not contrast_gate([], 0.5) and not competence_gate([], 0.5)


def test_group_advantages_are_normalized_and_zero_without_variance():
    a = group_advantages([1, -1, -1, -1])
    assert sum(a) == pytest.approx(0, abs=1e-9)
    assert a[0] == pytest.approx(math.sqrt(3), rel=1e-5) and a[1] == pytest.approx(-1 / math.sqrt(3), rel=1e-5)
    assert group_advantages([1, 1, 1]) == [0, 0, 0]


def _group(ex, rewards):
    return Group(ex, [1, 2, 3], [[4, 5]] * len(rewards), [None] * len(rewards), rewards, [6, 7])


def test_routing_and_row_weights(examples):
    o = {**SALVAGE_DS_DEFAULTS}
    groups = [
        _group(examples[0], [1, -1, -1]),  # passes both gates
        _group(examples[1], [-1, -1, -1]),  # fails both: salvaged
        _group(examples[2], [0.3, -0.5, -1]),  # contrast but no competence: salvaged
        _group(examples[3], [1, 1, 1]),  # competence but no contrast: salvaged
    ]
    contrast, competence, passing, salvaged = route(groups, o)
    assert contrast == [True, False, True, False] and competence == [True, False, False, True]
    assert passing == groups[:1] and salvaged == groups[1:]
    rows = build_rows(passing, salvaged)
    # every group weighs 1/n whichever branch it took: a passing group through its G samples
    assert [r.kind for r in rows] == ["pg"] * 3 + ["salvage"] * 3
    assert sum(r.coef for r in rows[:3]) == pytest.approx(1 / 4) and rows[3].coef == pytest.approx(1 / 4)
    assert rows[3].completion == [6, 7]  # the ground-truth reply
    assert route(groups, {**o, "salvage": False})[3] == []  # the "no salvage" ablation drops them


# ------------------------------------------------------------------------- salvage = SFT, KL 0


def _grads(model):
    return [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]


def test_salvage_gradient_equals_the_sft_gradient_with_beta_brake_zero(model, tokenizer, examples):
    pairs = [
        (prompt_ids(tokenizer, e.chat, 4096), completion_ids(tokenizer, e.chat, truth_completion(e))) for e in examples
    ]
    ref = Reference(model, lora=False)
    o = {**SALVAGE_DS_DEFAULTS, "betaBrake": 0.0}
    rows = [Row(p, c, "salvage", coef=1 / len(pairs)) for p, c in pairs]
    backward_rows(model, ref, rows, salvage_ds_loss(o), pad=tokenizer.pad_token_id, device=torch.device("cpu"), micro=3)
    g_salvage = _grads(model)
    model.zero_grad(set_to_none=True)
    rows = [Row(p, c, "sft", coef=1 / len(pairs)) for p, c in pairs]
    backward_rows(model, None, rows, sft_loss, pad=tokenizer.pad_token_id, device=torch.device("cpu"), micro=0)
    g_sft = _grads(model)
    assert len(g_salvage) == len(g_sft) > 0
    for a, b in zip(g_salvage, g_sft):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-7)
    assert any(float(g.abs().sum()) > 0 for g in g_sft)


def test_kl_is_zero_at_the_start_with_zero_gradient(model, tokenizer, examples):
    ref = Reference(model, lora=False)
    groups = [_group(e, [-1, -1]) for e in examples]
    for g, e in zip(groups, examples):
        g.prompt = prompt_ids(tokenizer, e.chat, 4096)
        g.truth_ids = completion_ids(tokenizer, e.chat, truth_completion(e))
    assert truth_kl(model, ref, groups, tokenizer.pad_token_id, torch.device("cpu"), 4) == 0.0
    b = make_batch([(g.prompt, g.truth_ids) for g in groups], tokenizer.pad_token_id, torch.device("cpu"))
    kl = exact_kl(completion_logits(model, b), completion_logits(ref.model, b).detach())
    assert float(kl.detach().abs().max()) < 1e-6
    (kl * b.mask).sum().backward()
    assert max(float(p.grad.abs().max()) for p in model.parameters() if p.grad is not None) < 1e-6


# ------------------------------------------------------------------------------------- full runs


def test_salvage_ds_run_logs_every_metric_and_routes_untrained_groups_to_salvage(model, tokenizer, examples, tmp_path):
    log = tmp_path / "metrics.jsonl"
    _, metrics = train_salvage_ds(model, tokenizer, examples, metrics_path=str(log), **FAST)
    assert len(metrics) == 2
    # a random model writes no valid action: every group fails competence and is salvaged
    assert metrics[0]["charts/competence_gate_pass"] == 0 and metrics[0]["charts/salvage_share"] == 1
    assert metrics[0]["charts/kl_ref"] == 0.0 and metrics[1]["charts/kl_ref"] > 0
    assert metrics[0]["losses/salvage_ce"] > 0 and metrics[0]["losses/policy"] == 0
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["event"] for x in lines] == ["step", "step"]
    assert set(METRIC_NAMES) <= set(lines[0])


def test_policy_gradient_branch_with_contrast_in_every_group(model, tokenizer, examples):
    cycle = itertools.cycle([1.0, -1.0, -1.0])
    _, metrics = train_salvage_ds(
        model, tokenizer, examples, reward=lambda a, t, o: next(cycle), updateEpochs=2, **FAST
    )
    m = metrics[0]
    assert m["charts/contrast_gate_pass"] == 1 and m["charts/competence_gate_pass"] == 1
    assert m["charts/salvage_share"] == 0 and m["charts/groups_trained"] == 2
    assert m["losses/salvage_ce"] == 0 and m["losses/policy"] != 0
    assert m["charts/mean_reward"] == pytest.approx(-1 / 3)


def test_a_seeded_run_reproduces_exactly(tokenizer, examples):
    from rmsweb_trainer.tiny import build_model

    runs = []
    for _ in range(2):
        s, metrics = train_salvage_ds(build_model(tokenizer, "tiny", seed=0), tokenizer, examples, seed=3, **FAST)
        runs.append((metrics, [p.detach().clone() for p in s.model.parameters()]))
    assert runs[0][0] == runs[1][0]
    for a, b in zip(runs[0][1], runs[1][1]):
        assert torch.equal(a, b)


def test_grpo_and_dapo_run(tokenizer, examples):
    from rmsweb_trainer.tiny import build_model

    cycle = itertools.cycle([1.0, -1.0, 0.0])
    _, g = train_grpo(
        build_model(tokenizer), tokenizer, examples, reward=lambda a, t, o: next(cycle), updateEpochs=2, **FAST
    )
    # at ratio 1 the surrogate of zero-mean advantages is 0; the second epoch moves off it
    assert g[0]["charts/groups_trained"] == 2 and g[0]["losses/policy"] != 0
    # DAPO drops zero-variance groups (a random model scores -1 everywhere) and refills up to maxRefills
    _, d = train_dapo(
        build_model(tokenizer), tokenizer, examples, steps=1, batchSize=2, groupSize=2, maxNewTokens=8, maxRefills=1
    )
    assert d[0]["charts/groups_trained"] == 0 and d[0]["charts/refill_rounds"] == 1
    assert d[0]["charts/rollouts_sampled"] == 8 and d[0]["charts/zero_variance_share"] == 1


def test_lora_run_merges_into_a_plain_checkpoint(model, tokenizer, examples, tmp_path):
    s, metrics = train_salvage_ds(
        model, tokenizer, examples, lora=True, loraRank=2, steps=1, batchSize=1, groupSize=2, maxNewTokens=6
    )
    assert metrics[0]["charts/kl_ref"] == 0.0
    trainable = [n for n, p in s.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora" in n for n in trainable)
    s.save(str(tmp_path / "lora"), {})
    assert (tmp_path / "lora" / "config.json").exists() and not (tmp_path / "lora" / "adapter_config.json").exists()
