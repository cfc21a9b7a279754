"""A tiny randomly initialized causal LM and hand-made critical states, shared by the tests."""

import json
from contextlib import contextmanager

import pytest
import torch

from rmsweb_trainer.data import Chat, RlExample
from rmsweb_trainer.tiny import build_model, build_tokenizer

torch.set_num_threads(1)  # the test machine is small and shared

OBS = {
    "url": "http://shop.test/search",
    "elements": [
        {"index": 0, "tag": "input", "name": "Destination", "nodeKey": "k0"},
        {"index": 1, "tag": "button", "name": "Search", "nodeKey": "k1"},
        {"index": 2, "tag": "a", "name": "Contact", "nodeKey": "k2"},
    ],
}
SYSTEM = 'Reply with JSON: {"evaluation_previous_goal": "", "memory": "", "next_goal": "", "action": [...]}'
STATES = [
    ("Search for hotels in Paris", {"input": {"index": 0, "text": "Paris", "clear": True}}),
    ("Press the search button", {"click": {"index": 1}}),
    ("Open the contact page", {"click": {"index": 2}}),
    ("Finish: the answer is 42", {"done": {"text": "42", "success": True}}),
]


def make_examples() -> list[RlExample]:
    from rmsweb_trainer.reward import from_browser_use

    out = []
    for i, (task, truth) in enumerate(STATES):
        page = "\n".join(f"[{e['index']}]<{e['tag']}>{e['name']} />" for e in OBS["elements"])
        chat = Chat(SYSTEM, f"<task>\n{task}\n</task>\n<page>\n{page}\n</page>")
        out.append(RlExample(chat, from_browser_use(truth), json.dumps(truth), OBS, id=f"cs{i}"))
    return out


@pytest.fixture(scope="session")
def tokenizer():
    texts = [SYSTEM] + [t for t, _ in STATES] + [json.dumps(a) for _, a in STATES] * 4
    texts += ['{"evaluation_previous_goal":"","memory":"","next_goal":"","action":[{"click":{"index":1}}]}'] * 4
    return build_tokenizer(texts, vocab_size=300)


@pytest.fixture()
def model(tokenizer):
    return build_model(tokenizer, "tiny", seed=0)


@pytest.fixture()
def examples():
    return make_examples()


class Killed(Exception):
    """Stands in for the process dying mid-run (Ctrl-C, a machine restart)."""


@contextmanager
def killed_at_step(monkeypatch, step: int):
    """The training run inside dies as it logs step `step` (so its checkpoints up to step - 1 stay)."""
    from rmsweb_trainer.lm import MetricsLog

    write = MetricsLog.write

    def dies(self, event, **fields):
        if event == "step" and fields["step"] == step:
            raise Killed
        write(self, event, **fields)

    monkeypatch.setattr(MetricsLog, "write", dies)
    try:
        with pytest.raises(Killed):
            yield
    finally:
        monkeypatch.setattr(MetricsLog, "write", write)


def weights(trainer) -> dict:
    """A copy of a trainer's model parameters by name."""
    return {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
