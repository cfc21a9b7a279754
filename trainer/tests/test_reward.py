"""The Python rewards against the fixture table the TypeScript tests read (src/rl/reward/near-miss.json)."""

import json
from pathlib import Path

import pytest

from rmsweb_trainer.reward import (
    exact_reward,
    parse_completion,
    polarize,
    polarized_reward,
    reward_by_name,
    textsim_reward,
)

FIXTURE = json.loads((Path(__file__).resolve().parents[2] / "src/rl/reward/near-miss.json").read_text())
OBS = FIXTURE["observation"]
POLARIZED = polarized_reward()


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=[c["name"] for c in FIXTURE["cases"]])
def test_rewards_agree_with_the_fixture(case):
    s, t = case["sampled"], case["truth"]
    assert POLARIZED(s, t, OBS) == pytest.approx(case["polarized"], abs=1e-9)
    assert exact_reward(s, t, OBS) == case["exact"]
    assert textsim_reward(s, t, OBS) == pytest.approx(case["textsim"], abs=1e-9)


@pytest.mark.parametrize("q", FIXTURE["polarize"], ids=[f"{q['s']}^{q['power']}" for q in FIXTURE["polarize"]])
def test_polarize(q):
    assert polarize(q["s"], q["power"]) == pytest.approx(q["value"], abs=1e-9)


def test_power_range_and_names():
    with pytest.raises(ValueError):
        polarized_reward(0)
    for name in ("polarized", "exact", "textsim"):
        assert callable(reward_by_name(name))
    with pytest.raises(ValueError, match='unknown reward "bleu"'):
        reward_by_name("bleu")


def test_parse_completion_takes_the_first_action_of_the_reply():
    reply = 'ok {"memory": "", "next_goal": "x", "action": [{"click": {"index": 3}}, {"go_back": {}}]} '
    assert parse_completion(reply) == {"type": "click", "index": 3}
    assert parse_completion('{"action": [{"input": {"index": 1, "text": "a"}}]}') == {
        "type": "input", "index": 1, "text": "a", "clear": True,
    }  # fmt: skip
    assert parse_completion("click 3") is None
    assert parse_completion('{"action": [{"fly": {}}]}') is None
    assert parse_completion('{"action": [{"click": {"index": "3"}}]}') is None
