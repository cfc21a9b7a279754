"""The tests the TS trainer has (src/rl/*.test.ts), on a tiny randomly initialized causal LM and TRL's
GRPOTrainer: the options table, gates and advantages on hand-made groups, full Salvage-DS runs (the
metrics log, the policy branch, a seeded run reproduces exactly, LoRA), GRPO and DAPO on TRL's own
loss types."""

import itertools
import json
import math

import pytest
import torch

from rmsweb_trainer.dapo import DAPO_DEFAULTS, train_dapo
from rmsweb_trainer.grpo import GRPO_DEFAULTS, train_grpo
from rmsweb_trainer.lm import METRIC_NAMES
from rmsweb_trainer.options import OPTIONS, _check_section, defaults, typed
from rmsweb_trainer.rl import grpo_config_fields, micro_split, save_rl
from rmsweb_trainer.rollouts import (
    competence_gate,
    competence_gate_t,
    contrast_gate,
    contrast_gate_t,
    group_advantages,
    group_advantages_t,
)
from rmsweb_trainer.salvage_ds import SALVAGE_DS_DEFAULTS, train_salvage_ds
from rmsweb_trainer.tiny import build_model

from .conftest import killed_at_step, weights

FAST = {"steps": 2, "batchSize": 2, "groupSize": 3, "maxNewTokens": 12}


# -------------------------------------------------------------------------------- options


def test_defaults_are_the_ts_defaults_and_the_lm_learning_rate_is_its_own():
    # both sides read src/rl/options.json; the values the TS trainer documents
    assert SALVAGE_DS_DEFAULTS["groupSize"] == 8 and SALVAGE_DS_DEFAULTS["betaBrake"] == 0.1
    assert SALVAGE_DS_DEFAULTS["contrastDelta"] == 0.5 and SALVAGE_DS_DEFAULTS["competenceTau"] == 0.5
    assert GRPO_DEFAULTS["beta"] == SALVAGE_DS_DEFAULTS["beta"] == 0.001
    assert (DAPO_DEFAULTS["clipLow"], DAPO_DEFAULTS["clipHigh"], DAPO_DEFAULTS["maxRefills"]) == (0.2, 0.28, 3)
    assert OPTIONS["salvage-ds"]["steps"] == 50
    # the tfjs student's lr stays in its section; the LM trainer's RL runs default to torch.rlLr
    assert OPTIONS["salvage-ds"]["lr"] == 1e-3 and OPTIONS["torch"]["rlLr"] == 1e-6
    assert SALVAGE_DS_DEFAULTS["lr"] == GRPO_DEFAULTS["lr"] == DAPO_DEFAULTS["lr"] == 1e-6
    assert defaults("grpo", lr=1e-5)["lr"] == 1e-5
    s, t = typed("salvage-ds", steps=3)
    assert s.steps == 3 and s.salvage is True and t.maxNewTokens == 256 and isinstance(t.loraAlpha, float)


def test_a_misspelt_or_mistyped_option_fails_at_once():
    row = {**OPTIONS["grpo"]}
    with pytest.raises(ValueError, match=r"x.json: unknown grpo option\(s\): betta"):
        _check_section("grpo", {**row, "betta": 0.1}, "x.json")
    del row["beta"]
    with pytest.raises(ValueError, match=r"x.json: grpo option\(s\) missing: beta"):
        _check_section("grpo", row, "x.json")
    with pytest.raises(ValueError, match="option grpo.steps must be int"):
        _check_section("grpo", {**OPTIONS["grpo"], "steps": 2.5}, "x.json")
    with pytest.raises(ValueError, match=r"unknown salvage-ds option\(s\): betaBreak"):
        defaults("salvage-ds", betaBreak=0.2)
    with pytest.raises(ValueError, match="option salvage must be bool"):
        defaults("salvage-ds", salvage="no")


def test_options_map_onto_grpo_config_fields():
    from trl import GRPOConfig

    o = defaults("salvage-ds", batchSize=4, groupSize=6, microBatch=5, steps=7, updateEpochs=2)
    f = grpo_config_fields(o, "salvage-ds")
    # 24 rows: 4 forward passes of 6 (the largest divisor of 24 not above 5), one generation per step
    assert (f["per_device_train_batch_size"], f["gradient_accumulation_steps"], f["steps_per_generation"]) == (4, 6, 6)
    assert f["max_steps"] == 14 and f["num_iterations"] == 2 and f["num_generations"] == 6
    assert f["loss_type"] == "grpo" and f["beta"] == 0.001 and f["epsilon"] == 0.2 and f["epsilon_high"] is None
    d = grpo_config_fields(defaults("dapo"), "dapo")
    assert (d["loss_type"], d["beta"], d["epsilon"], d["epsilon_high"]) == ("dapo", 0.0, 0.2, 0.28)
    assert micro_split(24, 0) == (24, 1) and micro_split(7, 16) == (7, 1)
    with pytest.raises(ValueError, match="divisible by the number of processes"):
        grpo_config_fields(defaults("grpo", batchSize=3, groupSize=3), "grpo", world=2)
    assert set(f) <= {x.name for x in __import__("dataclasses").fields(GRPOConfig)}


# ------------------------------------------------------------------------ gates and advantages


def test_gates_on_hand_made_groups():
    assert contrast_gate([1, -1, -1], 0.5) and competence_gate([1, -1, -1], 0.5)
    assert not contrast_gate([-1, -1, -1], 0.5) and not competence_gate([-1, -1, -1], 0.5)
    assert not contrast_gate([1, 1, 1], 0.5) and competence_gate([1, 1, 1], 0.5)  # all right: no contrast
    assert contrast_gate([0.2, -0.4], 0.5) and not competence_gate([0.2, -0.4], 0.5)  # contrast, no success
    assert not contrast_gate([], 0.5) and not competence_gate([], 0.5)
    # the step's form: one row per group, the same answers; NaN (unscorable) samples are ignored
    g = torch.tensor([[1, -1, -1], [-1, -1, -1], [1, 1, 1], [0.2, -0.4, -0.4], [float("nan"), 1, -1]])
    assert contrast_gate_t(g, 0.5).tolist() == [True, False, False, True, True]
    assert competence_gate_t(g, 0.5).tolist() == [True, False, True, False, True]


def test_group_advantages_are_normalized_and_zero_without_variance():
    a = group_advantages([1, -1, -1, -1])
    assert sum(a) == pytest.approx(0, abs=1e-9)
    assert a[0] == pytest.approx(math.sqrt(3), rel=1e-5) and a[1] == pytest.approx(-1 / math.sqrt(3), rel=1e-5)
    assert group_advantages([1, 1, 1]) == [0, 0, 0]
    t = group_advantages_t(torch.tensor([[1.0, -1, -1, -1], [1, 1, 1, 1]]))
    torch.testing.assert_close(t[0], torch.tensor(a, dtype=torch.float32))
    assert t[1].tolist() == [0, 0, 0, 0]


# ------------------------------------------------------------------------------------- full runs


def test_salvage_ds_run_logs_every_metric_and_routes_untrained_groups_to_salvage(model, tokenizer, examples, tmp_path):
    log = tmp_path / "metrics.jsonl"
    trainer, metrics = train_salvage_ds(model, tokenizer, examples, metrics_path=str(log), lr=1e-3, **FAST)
    assert len(metrics) == 2
    # a random model writes no valid action: every group fails competence and is salvaged
    assert metrics[0]["charts/competence_gate_pass"] == 0 and metrics[0]["charts/salvage_share"] == 1
    assert metrics[0]["charts/kl_ref"] == 0.0 and metrics[1]["charts/kl_ref"] > 0
    assert metrics[0]["losses/salvage_ce"] > 0 and metrics[0]["losses/policy"] == 0
    assert metrics[0]["losses/total"] == pytest.approx(metrics[0]["losses/salvage_ce"] + metrics[0]["losses/kl"])
    assert metrics[1]["charts/rollouts_total"] == 12 and metrics[0]["charts/rollouts_sampled"] == 6
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["event"] for x in lines] == ["step", "step"] and [x["step"] for x in lines] == [1, 2]
    assert set(METRIC_NAMES) <= set(lines[0])
    assert trainer.model is model  # trained in place


def test_policy_gradient_branch_with_contrast_in_every_group(model, tokenizer, examples):
    cycle = itertools.cycle([1.0, -1.0, -1.0])
    _, metrics = train_salvage_ds(
        model, tokenizer, examples, reward=lambda a, t, o: next(cycle), updateEpochs=2, lr=1e-3, **FAST
    )
    m = metrics[0]
    assert len(metrics) == 2  # one event per step, after its last update epoch
    assert m["charts/contrast_gate_pass"] == 1 and m["charts/competence_gate_pass"] == 1
    assert m["charts/salvage_share"] == 0 and m["charts/groups_trained"] == 2
    # the second epoch's ratios are off 1, so the surrogate of zero-mean advantages moves off 0
    assert m["losses/salvage_ce"] == 0 and m["losses/policy"] != 0
    assert m["charts/mean_reward"] == pytest.approx(-1 / 3)


def test_a_seeded_run_reproduces_exactly(tokenizer, examples):
    from rmsweb_trainer.tiny import build_model

    runs = []
    for _ in range(2):
        t, metrics = train_salvage_ds(build_model(tokenizer, "tiny", seed=0), tokenizer, examples, seed=3, **FAST)
        runs.append(
            ([{k: v for k, v in m.items()} for m in metrics], [p.detach().clone() for p in t.model.parameters()])
        )
    assert runs[0][0] == runs[1][0]
    for a, b in zip(runs[0][1], runs[1][1]):
        assert torch.equal(a, b)


def test_gradient_checkpointing_is_off_by_default_and_changes_no_result(tokenizer, examples):
    from rmsweb_trainer.tiny import build_model

    runs = {}
    for gc in (False, True):
        t, metrics = train_salvage_ds(
            build_model(tokenizer, "tiny", seed=0), tokenizer, examples, seed=3, gradientCheckpointing=gc, **FAST
        )
        assert t.args.gradient_checkpointing is gc
        runs[gc] = (metrics, [p.detach().clone() for p in t.model.parameters()])
    # it recomputes the same forward pass in the backward one: memory for time, the same step
    assert [m["losses/total"] for m in runs[False][0]] == pytest.approx([m["losses/total"] for m in runs[True][0]])
    for a, b in zip(runs[False][1], runs[True][1]):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-7)
    assert defaults("salvage-ds")["gradientCheckpointing"] is False


def test_grpo_and_dapo_run_on_trls_own_loss_types(tokenizer, examples):
    from rmsweb_trainer.tiny import build_model

    cycle = itertools.cycle([1.0, -1.0, 0.0])
    g, gm = train_grpo(
        build_model(tokenizer), tokenizer, examples, reward=lambda a, t, o: next(cycle), updateEpochs=2, lr=1e-3, **FAST
    )
    assert (g.loss_type, g.beta, g.epsilon_low, g.epsilon_high) == ("grpo", 0.001, 0.2, 0.2)
    assert gm[0]["charts/groups_trained"] == 2 and gm[0]["losses/policy"] != 0
    assert gm[0]["losses/total"] == pytest.approx(gm[0]["losses/policy"] + gm[0]["losses/kl"])
    # DAPO: clip-higher, token-level loss, no KL; a random model scores -1 everywhere (zero variance)
    d, dm = train_dapo(build_model(tokenizer), tokenizer, examples, steps=1, batchSize=2, groupSize=2, maxNewTokens=8)
    assert (d.loss_type, d.beta, d.epsilon_low, d.epsilon_high) == ("dapo", 0.0, 0.2, 0.28)
    assert dm[0]["charts/zero_variance_share"] == 1 and dm[0]["charts/refill_rounds"] == 0
    assert dm[0]["charts/rollouts_sampled"] == 4 and dm[0]["losses/kl"] == 0


def test_lora_run_merges_into_a_plain_checkpoint(model, tokenizer, examples, tmp_path):
    t, metrics = train_salvage_ds(
        model, tokenizer, examples, lora=True, loraRank=2, steps=1, batchSize=1, groupSize=2, maxNewTokens=6
    )
    assert metrics[0]["charts/kl_ref"] == 0.0 and t.ref_model is None  # the reference: adapters off
    trainable = [n for n, p in t.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora" in n for n in trainable)
    save_rl(t, tokenizer, str(tmp_path / "lora"), {"algo": "salvage-ds"})
    assert (tmp_path / "lora" / "config.json").exists() and (tmp_path / "lora" / "model.safetensors").exists()
    assert not (tmp_path / "lora" / "adapter_config.json").exists()
    assert json.loads((tmp_path / "lora" / "rmsweb-trainer.json").read_text())["algo"] == "salvage-ds"


def test_lora_on_the_top_layers_trains_only_those(tokenizer, examples, tmp_path):
    # peft refuses layers_to_transform beside target_modules="all-linear": RL names the projections
    model = build_model(tokenizer, "small", seed=0)  # 4 layers
    t, metrics = train_salvage_ds(
        model, tokenizer, examples, lora=True, loraRank=2, loraLayers=1, steps=1, batchSize=1, groupSize=2, maxNewTokens=6
    )  # fmt: skip
    assert metrics and t.ref_model is None
    adapted = {n.split(".layers.")[1].split(".")[0] for n, p in t.model.named_parameters() if p.requires_grad}
    assert adapted == {"3"}
    # every projection of that layer, as "all-linear" adapts them in every layer
    kinds = {n.split(".lora_A")[0].split(".")[-1] for n, _ in t.model.named_parameters() if "lora_A" in n}
    assert kinds == {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}
    save_rl(t, tokenizer, str(tmp_path / "top"), {"algo": "salvage-ds"})
    assert (tmp_path / "top" / "model.safetensors").exists()


def test_vllm_is_refused_on_the_cpu(model, tokenizer, examples):
    from rmsweb_trainer.data import InputError

    with pytest.raises(InputError, match="needs a CUDA GPU") as e:
        train_salvage_ds(model, tokenizer, examples, vllm="colocate", **FAST)
    assert e.value.option == "--vllm"


def test_fewer_states_than_a_batch_still_train(model, tokenizer, examples):
    _, metrics = train_salvage_ds(model, tokenizer, examples[:2], steps=1, batchSize=3, groupSize=2, maxNewTokens=4)
    assert len(metrics) == 1 and metrics[0]["charts/rollouts_sampled"] == 6


def test_cli_refuses_vllm_on_the_cpu_and_a_misspelt_set_before_writing(tmp_path, capsys):
    from rmsweb_trainer.__main__ import main

    from .test_cli_and_data import _rl_rows

    (tmp_path / "rl.jsonl").write_text("\n".join(json.dumps(r) for r in _rl_rows()) + "\n")
    tiny, out = tmp_path / "tiny", tmp_path / "out"
    assert main(["tiny", "--out", str(tiny), "--data", str(tmp_path / "rl.jsonl"), "--vocab", "300"]) == 0
    base = ["rl", "--model", str(tiny), "--data", str(tmp_path / "rl.jsonl"), "--out", str(out)]
    assert main([*base, "--metrics", str(tmp_path / "m.jsonl"), "--vllm", "colocate", "--device", "cpu"]) == 2
    assert "error: --vllm: vLLM generation needs a CUDA GPU" in capsys.readouterr().err
    assert main([*base, "--set", "betaBreak=0.2"]) == 2
    assert "error: --set: unknown salvage-ds option(s): betaBreak" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "m.jsonl").exists()


@pytest.mark.parametrize("lora", [False, True])
def test_a_killed_rl_run_resumes_from_its_checkpoint_to_the_same_weights(
    tokenizer, examples, tmp_path, monkeypatch, lora
):
    """An RL stage is most of an hour of Gemma on a CPU: a kill resumes from the last step saved,
    not from the start, and ends where an uninterrupted run ends, with the whole curve."""
    from rmsweb_trainer.tiny import build_model

    o = {**FAST, "steps": 4, "lr": 1e-3, "seed": 5, "lora": lora, "loraRank": 2}
    fp = {"data": "d1"}
    straight, straight_metrics = train_salvage_ds(build_model(tokenizer, "tiny", seed=0), tokenizer, examples, **o)
    want = weights(straight)

    ckpt = tmp_path / "ckpt"
    with killed_at_step(monkeypatch, 3):
        train_salvage_ds(build_model(tokenizer, "tiny", seed=0), tokenizer, examples, checkpoint_dir=str(ckpt), save_steps=1, fingerprint=fp, **o)  # fmt: skip
    assert (ckpt / "checkpoint-2").is_dir() and not (ckpt / "checkpoint-1").exists()

    log = tmp_path / "m.jsonl"
    resumed, metrics = train_salvage_ds(
        build_model(tokenizer, "tiny", seed=0),
        tokenizer,
        examples,
        checkpoint_dir=str(ckpt),
        save_steps=1,
        fingerprint=fp,
        metrics_path=str(log),
        **o,
    )
    logged = [json.loads(x)["step"] for x in log.read_text().splitlines() if '"step"' in x]
    assert logged == [3, 4]  # the two steps before the kill were not trained again
    # the curve covers the whole run, the steps before the kill as they were logged then
    assert [m["step"] for m in metrics] == [1, 2, 3, 4]
    for a, b in zip(metrics, straight_metrics, strict=True):
        assert a["charts/mean_reward"] == pytest.approx(b["charts/mean_reward"], abs=1e-6)
        assert a["losses/total"] == b["losses/total"]
        assert a["charts/rollouts_total"] == b["charts/rollouts_total"]  # counted from the run's start
    got = weights(resumed)
    assert got.keys() == want.keys()
    # bitwise: with 2 states a step is an epoch, so the steps after the kill need the sampler's
    # order replayed from the seed (EpochSampler), and LoRA's dropout the restored RNG
    for n in want:
        assert torch.equal(got[n], want[n]), n


def test_rl_checkpoints_of_other_options_are_discarded_not_resumed(tokenizer, examples, tmp_path, capsys):
    from rmsweb_trainer.tiny import build_model

    o = {**FAST, "lr": 1e-3, "seed": 0}
    ckpt = tmp_path / "ckpt"
    train_salvage_ds(build_model(tokenizer, "tiny", seed=0), tokenizer, examples, checkpoint_dir=str(ckpt), save_steps=1, fingerprint={"data": "a"}, **o)  # fmt: skip
    assert (ckpt / "checkpoint-2").is_dir()
    log = tmp_path / "m.jsonl"
    _, metrics = train_salvage_ds(build_model(tokenizer, "tiny", seed=0), tokenizer, examples, checkpoint_dir=str(ckpt), save_steps=1, fingerprint={"data": "a"}, metrics_path=str(log), **{**o, "lr": 2e-3})  # fmt: skip
    assert "starting over" in capsys.readouterr().err
    assert [json.loads(x)["step"] for x in log.read_text().splitlines() if '"step"' in x] == [1, 2]
    assert [m["step"] for m in metrics] == [1, 2]
