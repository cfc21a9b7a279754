"""The trainer's command line on export files (what `rmsweb rl|train sft --backend torch` runs), data
loading errors, and the 2-step smoke run on the local Gemma 3 270M GGUF where that model is present."""

import json
import math
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rmsweb_trainer.__main__ import main
from rmsweb_trainer.data import InputError, load_rl, load_sft

from .conftest import OBS, STATES, SYSTEM


def _rl_rows():
    return [
        {
            "data_source": "rmsweb/world",
            "prompt": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"<task>{t}</task>\n<image>"},
            ],
            "images": [],
            "ability": "web_navigation",
            "reward_model": {"style": "rule", "ground_truth": json.dumps(a)},
            "extra_info": {"critical_state_id": f"cs{i}", "observation": OBS},
        }
        for i, (t, a) in enumerate(STATES)
    ]


def test_reads_rl_jsonl_and_verl_parquet(tmp_path):
    rows = _rl_rows()
    (tmp_path / "rl.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    a = load_rl(tmp_path / "rl.jsonl")
    assert len(a) == 4 and a[1].truth == {"type": "click", "index": 1} and a[0].observation["elements"]
    assert "<image>" not in a[0].chat.user  # text-only LMs drop the placeholder
    flat = [{**r, "extra_info": {"critical_state_id": r["extra_info"]["critical_state_id"]}} for r in rows]
    pq.write_table(pa.Table.from_pylist(flat), tmp_path / "rl.parquet")
    b = load_rl(tmp_path / "rl.parquet")
    assert [x.truth for x in b] == [x.truth for x in a] and b[0].observation == {}


def test_bad_input_names_file_line_and_field(tmp_path):
    bad = _rl_rows()[:1]
    bad[0]["reward_model"]["ground_truth"] = '{"fly": {}}'
    (tmp_path / "bad.jsonl").write_text(json.dumps(bad[0]) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl:1: field reward_model.ground_truth"):
        load_rl(tmp_path / "bad.jsonl")
    (tmp_path / "sft.jsonl").write_text('{"messages": [{"role": "user", "content": "hi"}]}\n')
    with pytest.raises(InputError, match="sft.jsonl:1: field messages has no assistant"):
        load_sft(tmp_path / "sft.jsonl")
    assert (
        main(["rl", "--model", str(tmp_path), "--data", str(tmp_path / "bad.jsonl"), "--out", str(tmp_path / "o")]) == 2
    )
    assert not (tmp_path / "o").exists()


def _refused(capsys, argv):
    """Runs the CLI expecting exit 2; returns its stderr, checked to be one line (no traceback)."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("cmd", ["sft", "rl"])
def test_a_bad_model_is_reported_as_model_and_leaves_no_out_folder(tmp_path, capsys, cmd):
    (tmp_path / "sft.jsonl").write_text(
        json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}) + "\n"
    )
    (tmp_path / "rl.jsonl").write_text("\n".join(json.dumps(r) for r in _rl_rows()) + "\n")
    data = str(tmp_path / ("sft.jsonl" if cmd == "sft" else "rl.jsonl"))
    garbage, empty, out = tmp_path / "garbage", tmp_path / "empty", tmp_path / "out"
    garbage.mkdir()
    empty.mkdir()
    (garbage / "config.json").write_text("{not json")
    (tmp_path / "model.gguf").write_text("not a gguf file")
    (tmp_path / "notes.txt").write_text("hello")
    cases = {
        garbage: f"error: --model: {garbage / 'config.json'}: not valid JSON",
        tmp_path / "missing": f"error: --model: {tmp_path / 'missing'}: no such file or folder",
        empty: f"error: --model: {empty}: not a Hugging Face model folder (no config.json)",
        tmp_path / "model.gguf": f"error: --model: {tmp_path / 'model.gguf'}: not a GGUF file",
        tmp_path / "notes.txt": f"error: --model: {tmp_path / 'notes.txt'}: not a GGUF file",
    }
    for model, message in cases.items():
        err = _refused(capsys, [cmd, "--model", str(model), "--data", data, "--out", str(out)])
        assert err.startswith(message), err
        assert not out.exists()


def test_a_config_transformers_cannot_load_is_one_line_about_model(tmp_path):
    # a separate process: what the rmsweb CLI sees (transformers logs warnings to stderr first)
    import subprocess
    import sys

    model, out = tmp_path / "m", tmp_path / "out"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "no-such-architecture"}')
    (tmp_path / "sft.jsonl").write_text(
        json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}) + "\n"
    )
    argv = ["sft", "--model", str(model), "--data", str(tmp_path / "sft.jsonl"), "--out", str(out)]
    r = subprocess.run(
        [sys.executable, "-m", "rmsweb_trainer", *argv], capture_output=True, text=True, cwd=REPO / "trainer"
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith(f"error: --model: {model}: transformers cannot load it")
    assert not out.exists()


def test_bad_data_is_refused_before_the_out_folder_exists(tmp_path, capsys):
    (tmp_path / "sft.jsonl").write_text('{"messages": [{"role": "user", "content": "hi"}]}\n')
    tiny, out = tmp_path / "tiny", tmp_path / "out"
    (tmp_path / "rl.jsonl").write_text("\n".join(json.dumps(r) for r in _rl_rows()) + "\n")
    assert main(["tiny", "--out", str(tiny), "--data", str(tmp_path / "rl.jsonl"), "--vocab", "300"]) == 0
    capsys.readouterr()
    err = _refused(capsys, ["sft", "--model", str(tiny), "--data", str(tmp_path / "sft.jsonl"), "--out", str(out)])
    assert "sft.jsonl:1: field messages has no assistant" in err and not out.exists()
    err = _refused(capsys, ["sft", "--model", str(tiny), "--data", str(tmp_path / "none.jsonl"), "--out", str(out)])
    assert err.startswith("error: --data:") and not out.exists()


def test_cli_tiny_then_rl_and_sft(tmp_path):
    (tmp_path / "rl.jsonl").write_text("\n".join(json.dumps(r) for r in _rl_rows()) + "\n")
    trl = [
        {"messages": [
            {"role": "system", "content": [{"type": "text", "text": SYSTEM}]},
            {"role": "user", "content": [{"type": "text", "text": t}, {"type": "image"}]},
            {"role": "assistant", "content": [{"type": "text", "text": json.dumps({"action": [a]})}]},
        ], "images": ["/x.jpg"]}
        for t, a in STATES
    ]  # fmt: skip
    (tmp_path / "sft.jsonl").write_text("\n".join(json.dumps(r) for r in trl) + "\n")
    tiny, out, metrics = tmp_path / "tiny", tmp_path / "rl-out", tmp_path / "m.jsonl"
    assert main(["tiny", "--out", str(tiny), "--data", str(tmp_path / "rl.jsonl"), "--vocab", "300"]) == 0
    args = ["--steps", "1", "--batch", "2", "--group-size", "2", "--max-new-tokens", "6", "--threads", "1"]
    assert (
        main(
            [
                "rl",
                "--model",
                str(tiny),
                "--data",
                str(tmp_path / "rl.jsonl"),
                "--out",
                str(out),
                "--metrics",
                str(metrics),
                "--save-steps",
                "1",
                *args,
            ]
        )
        == 0
    )
    events = [json.loads(x) for x in metrics.read_text().splitlines()]
    assert [e["event"] for e in events] == ["step", "done"] and "charts/salvage_share" in events[0]
    assert (out / "config.json").exists() and json.loads((out / "rmsweb-trainer.json").read_text())[
        "algo"
    ] == "salvage-ds"
    # the resume points of a finished run are spent: --save-steps leaves no checkpoint behind
    assert not (out / "checkpoints").exists()
    sft_out = tmp_path / "sft-out"
    assert (
        main(
            [
                "sft",
                "--model",
                str(out),
                "--data",
                str(tmp_path / "sft.jsonl"),
                "--out",
                str(sft_out),
                "--epochs",
                "1",
                "--batch",
                "2",
                "--threads",
                "1",
            ]
        )
        == 0
    )
    assert (sft_out / "model.safetensors").exists()


REPO = Path(__file__).resolve().parents[2]
#: The local Gemma 3 270M: RMSWEB_GGUF, RMSWEB_LOCAL_GGUF, else where scripts/get-local-model.sh puts it
#: (.local/models/), else a models/ folder at the repository root.
GGUF = (
    os.environ.get("RMSWEB_GGUF")
    or os.environ.get("RMSWEB_LOCAL_GGUF")
    or next(
        (str(p) for d in (REPO / ".local" / "models", REPO / "models") for p in sorted(d.glob("*gemma*270m*.gguf"))),
        None,
    )
)
#: Under CI the model is installed first (.ci/run), so its absence fails the test instead of skipping it.
MUST_RUN = bool(os.environ.get("CI")) and os.environ.get("RMSWEB_SKIP_REAL_MODEL") != "1"


needs_gemma = pytest.mark.skipif(
    not GGUF and not MUST_RUN,
    reason="no local Gemma 3 270M GGUF (bash scripts/get-local-model.sh, or set RMSWEB_GGUF)",
)


@pytest.fixture(scope="module")
def gemma():
    """Gemma 3 270M from its GGUF, loaded once (about 70 s) for both smoke runs; the RL run trains
    it first, which does not matter to a smoke run of SFT after it."""
    import torch

    from rmsweb_trainer.lm import load_model

    assert GGUF and Path(GGUF).exists(), "CI must install the local model first: bash scripts/get-local-model.sh"
    return load_model(GGUF, torch.device("cpu"))


@needs_gemma
def test_one_step_smoke_run_on_the_local_gemma_gguf(gemma):
    from rmsweb_trainer.salvage_ds import train_salvage_ds

    from .conftest import make_examples

    model, tok = gemma
    _, metrics = train_salvage_ds(
        model, tok, make_examples(), steps=1, batchSize=1, groupSize=2, maxNewTokens=8, lr=1e-6
    )
    # one step: a real model's sampling is most of a step's time (~50 s here); the tiny model's
    # tests step it more often
    assert len(metrics) == 1 and metrics[0]["charts/kl_ref"] == 0.0
    assert all(m["losses/total"] == m["losses/total"] for m in metrics)  # finite


@needs_gemma
def test_one_sft_step_on_the_local_gemma_gguf(gemma, tmp_path):
    from rmsweb_trainer.data import Chat, truth_completion
    from rmsweb_trainer.sft import encode, train_sft

    from .conftest import make_examples

    model, tok = gemma
    # two rows, one optimizer step: a step on the real model is the smoke test, more add only minutes
    chats = [Chat(e.chat.system, e.chat.user, truth_completion(e)) for e in make_examples()[:2]]
    assert max(len(p) + len(c) for p, c in encode(tok, chats, 4096)) < 200  # short: one step takes seconds
    metrics = tmp_path / "m.jsonl"
    _, epochs = train_sft(
        model, tok, chats, epochs=1, batchSize=2, microBatch=1, lr=1e-6, valFrac=0, metrics_path=str(metrics)
    )
    steps = [json.loads(x) for x in metrics.read_text().splitlines() if '"step"' in x]
    assert len(steps) == 1 and len(epochs) == 1
    # a pretrained LM already gives JSON replies some likelihood: a finite loss, far below uniform
    assert all(0 < s["losses/sft"] < 0.5 * math.log(len(tok)) for s in steps), steps
