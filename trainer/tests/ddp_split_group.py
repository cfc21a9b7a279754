"""Run under `torchrun --nproc_per_node 2` by test_ddp.py: one group of 4 split over 2 processes. With
argv[2] "pass" its rewards pass the gates only when gathered (rank 0 scores [1, -1], rank 1 [-1, -1]);
with "fail" every sample scores -1, so only rank 0 (holding the group's first row) runs the anchor.
Writes each rank's scored batch and the step's metrics to the folder in argv[1]."""

import itertools
import json
import sys
from pathlib import Path

import torch

from rmsweb_trainer.lm import setup_dist, teardown_dist
from rmsweb_trainer.rl import build_trainer
from rmsweb_trainer.salvage_ds import SalvageDSTrainer
from rmsweb_trainer.tiny import build_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rmsweb_trainer.tiny import build_tokenizer  # noqa: E402
from tests.conftest import STATES, SYSTEM, make_examples  # noqa: E402

out = Path(sys.argv[1])
dist = setup_dist("cpu")
torch.set_num_threads(1)
tok = build_tokenizer([SYSTEM] + [t for t, _ in STATES] + [json.dumps(a) for _, a in STATES] * 4, vocab_size=300)
calls = itertools.cycle([1.0, -1.0] if dist.rank == 0 and sys.argv[2] == "pass" else [-1.0, -1.0])
trainer = build_trainer(
    SalvageDSTrainer,
    build_model(tok, seed=0),
    tok,
    make_examples()[:1],
    reward=lambda a, t, o: next(calls),
    steps=2,
    batchSize=1,
    groupSize=4,
    microBatch=1,
    maxNewTokens=4,
    lr=1e-3,
)
seen = {}
score = trainer._generate_and_score_completions


def spy(inputs):
    batch = score(inputs)
    seen.update({k: batch[k].tolist() for k in ("advantages", "rmsweb_policy", "rmsweb_anchor")})
    return batch


trainer._generate_and_score_completions = spy
trainer.train()
(out / f"rank{dist.rank}.json").write_text(json.dumps({"batch": seen, "metrics": trainer.rmsweb_metrics}))
teardown_dist()
