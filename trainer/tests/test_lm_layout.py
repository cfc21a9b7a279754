"""The plain "lm" layout of a pretrained base model without a chat template (src/agent/lm-prompt.ts):
`export sft --format lm` rows train with SFT (BOS + prompt | reply + EOS, loss on the reply only),
`export rl --format lm` rows with Salvage-DS, GRPO and DAPO (plain-string prompts, the anchor on the
SFT reply, rewards reading the reply as LmAgent does), and `serve` answers raw-prompt requests."""

import io
import json
import sys

import pytest
import torch

from rmsweb_trainer.__main__ import main
from rmsweb_trainer.dapo import train_dapo
from rmsweb_trainer.data import InputError, layout_meta, load_rl, load_sft, truth_completion
from rmsweb_trainer.grpo import train_grpo
from rmsweb_trainer.lm import completion_ids, lm_text_ids, prompt_ids
from rmsweb_trainer.reward import parse_completion, parse_lm_completion
from rmsweb_trainer.rl import reward_func
from rmsweb_trainer.salvage_ds import train_salvage_ds
from rmsweb_trainer.serve import generate
from rmsweb_trainer.sft import build_trainer, encode, reply_nll, reply_window, train_sft
from rmsweb_trainer.tiny import build_model, build_tokenizer

from .conftest import OBS, STATES

LM_SYSTEM = 'You operate a web browser. Reply with one action as JSON, one of:\n{"click": {"index": N}}'


def lm_prompt(task: str) -> str:
    """A prompt as lmPromptText writes it: system, the rendered step, then `Action: `."""
    page = "\n".join(f'[{e["index"]}] {e["tag"]} "{e["name"]}"' for e in OBS["elements"])
    return f"{LM_SYSTEM}\n\nTask: {task}\nURL: {OBS['url']}\nTitle: Shop\nDone so far: nothing\nElements:\n{page}\nAction: "


def lm_reply(action: dict) -> str:
    """The reply as lmReplyText writes it: the element's [N] (an action on one), then compact JSON,
    defaults left out, no line break at the end."""
    ((name, params),) = action.items()
    params = {k: v for k, v in params.items() if not (name == "input" and k == "clear" and v is True)}
    if name == "done" and params.get("success") is True:
        params = {k: v for k, v in params.items() if k != "success"}
    pointer = f"[{params['index']}] " if isinstance(params.get("index"), int) else ""
    return pointer + json.dumps({name: params}, separators=(",", ":"))


def sft_rows():
    return [{"prompt": lm_prompt(t), "completion": lm_reply(a), "id": f"t{i}:0"} for i, (t, a) in enumerate(STATES)]


def rl_rows(prompt_tokens=512):
    return [
        {
            "data_source": "rmsweb/world",
            "prompt": lm_prompt(t),
            "images": [],
            "ability": "web_navigation",
            "reward_model": {"style": "rule", "ground_truth": json.dumps(a)},
            "extra_info": {
                "critical_state_id": f"cs{i}",
                "observation": OBS,
                "layout": "lm",
                "lmPromptVersion": 1,
                "promptTokens": prompt_tokens,
                "completion": lm_reply(a),
            },
        }
        for i, (t, a) in enumerate(STATES)
    ]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def lm_tok():
    texts = [lm_prompt(t) for t, _ in STATES] * 2 + [lm_reply(a) for _, a in STATES] * 6
    return build_tokenizer(texts, vocab_size=320)


@pytest.fixture()
def lm_model(lm_tok):
    return build_model(lm_tok, "tiny", seed=0)


# ------------------------------------------------------------------------------------- reading


def test_sft_reads_lm_rows_from_the_file_or_its_export_folder(tmp_path):
    write_jsonl(tmp_path / "train.jsonl", sft_rows())
    (tmp_path / "export.json").write_text(json.dumps({"layout": "lm", "promptTokens": 640}))
    for where in (tmp_path, tmp_path / "train.jsonl"):
        chats = load_sft(where)
        assert len(chats) == 4 and all(c.is_lm for c in chats)
        assert chats[1].text == lm_prompt(STATES[1][0]) and chats[1].assistant == '[1] {"click":{"index":1}}'
    assert layout_meta(tmp_path, "model", load_sft(tmp_path)) == {"layout": "lm", "promptTokens": 640}


def test_lm_rows_refuse_a_mixed_file_and_a_missing_reply(tmp_path):
    chat_row = {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}
    with pytest.raises(InputError, match=r"mixed.jsonl:2: row is in the conversational .* but row 1 is lm"):
        load_sft(write_jsonl(tmp_path / "mixed.jsonl", [sft_rows()[0], chat_row]))
    with pytest.raises(InputError, match=r"bad.jsonl:1: field completion must be a non-empty string"):
        load_sft(write_jsonl(tmp_path / "bad.jsonl", [{"prompt": "p", "completion": ""}]))
    rows = rl_rows()
    del rows[2]["extra_info"]["completion"]
    with pytest.raises(InputError, match=r"rl.jsonl:3: field extra_info.completion .* `rmsweb export rl --format lm`"):
        load_rl(write_jsonl(tmp_path / "rl.jsonl", rows))
    rows = rl_rows()
    rows[0]["extra_info"]["layout"] = "chat"
    with pytest.raises(InputError, match=r"rl.jsonl:1: field extra_info.layout must be \"lm\""):
        load_rl(write_jsonl(tmp_path / "rl.jsonl", rows))


def test_tokens_are_bos_prompt_then_reply_eos_tokenized_apart():
    # a tokenizer with a BOS, as Gemma's: the prompt gets it, the reply gets none and ends with EOS
    tok = build_tokenizer([lm_prompt("x"), lm_reply({"click": {"index": 1}})] * 3, vocab_size=300)
    tok.add_special_tokens({"bos_token": "<|bos|>"})
    tok._tokenizer.post_processor = __import__("tokenizers").processors.TemplateProcessing(
        single="<|bos|> $A", special_tokens=[("<|bos|>", tok.bos_token_id)]
    )
    [chat] = load_sft_rows([{"prompt": lm_prompt("Press it"), "completion": '{"click":{"index":1}}'}])
    p, c = prompt_ids(tok, chat, 4096), completion_ids(tok, chat, chat.assistant)
    assert p[0] == tok.bos_token_id and p[1:] == tok(chat.text, add_special_tokens=False)["input_ids"]
    assert c == tok('{"click":{"index":1}}', add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    assert tok.bos_token_id not in c and "\n" not in tok.decode(c)
    # over the limit the BOS stays and the text's head goes
    short = lm_text_ids(tok, chat.text, 10)
    assert len(short) == 10 and short[0] == tok.bos_token_id and short[1:] == p[-9:]


def load_sft_rows(rows):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        return load_sft(write_jsonl(Path(d) / "x.jsonl", rows))


def test_rl_lm_rows_anchor_on_the_sft_reply(tmp_path, lm_tok):
    examples = load_rl(write_jsonl(tmp_path / "rl.jsonl", rl_rows()))
    sft = load_sft(write_jsonl(tmp_path / "train.jsonl", sft_rows()))
    for ex, chat in zip(examples, sft, strict=True):
        assert ex.chat.is_lm and ex.chat.text == chat.text and ex.prompt_tokens == 512
        # the salvage anchor's target is exactly SFT's, tokens and all
        assert truth_completion(ex) == chat.assistant
        assert completion_ids(lm_tok, ex.chat, truth_completion(ex)) == encode(lm_tok, [chat], 4096)[0][1]
    assert layout_meta(tmp_path / "rl.jsonl", "m", examples) == {"layout": "lm", "promptTokens": 512}


# ------------------------------------------------------------------------------------- rewards


def test_a_single_action_object_parses_as_that_action():
    assert parse_completion('{"click":{"index":3}}') == {"type": "click", "index": 3}
    assert parse_completion('{"action":[{"click":{"index":3}}]}') == {"type": "click", "index": 3}
    assert parse_completion('{"memory":"x"}') is None
    # the lm parser reads the first balanced object, as parseLmAction does; junk after it is ignored
    assert parse_lm_completion('{"click":{"index":3}} }{') == {"type": "click", "index": 3}
    # the element's [N] written before the object (lmReplyText) is not read: the JSON's index is
    assert parse_lm_completion('[3] {"click":{"index":3}}') == {"type": "click", "index": 3}
    assert parse_lm_completion('[4] {"click":{"index":9}}') == {"type": "click", "index": 9}
    assert parse_lm_completion(' {"input":{"index":0,"text":"a}b"}}') == {
        "type": "input",
        "index": 0,
        "text": "a}b",
        "clear": True,
    }
    assert parse_lm_completion('{"click":{"index":') is None and parse_lm_completion("click 3") is None
    score = reward_func("exact")
    truth, obs = json.dumps({"type": "click", "index": 1}), json.dumps(OBS)
    assert score(['{"click":{"index":1}}}'], [truth], [obs], layout=["lm"]) == [1.0]
    assert score(['{"click":{"index":1}}}'], [truth], [obs]) == [0.0]  # the chat parser: outermost {...}


# ----------------------------------------------------------------------------------------- SFT


def test_sft_on_lm_rows_labels_only_the_reply_and_eos(lm_model, lm_tok, tmp_path):
    chats = load_sft(write_jsonl(tmp_path / "train.jsonl", sft_rows()))
    pairs = encode(lm_tok, chats, 4096)
    from rmsweb_trainer.options import defaults

    o = defaults("sft", batchSize=4, microBatch=0)
    trainer = build_trainer(lm_model, lm_tok, pairs, [], o, cpu=True, work_dir=str(tmp_path / "w"))
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(4)])
    for i, (p, c) in enumerate(pairs):
        assert p == lm_text_ids(lm_tok, chats[i].text, 4096) and c[-1] == lm_tok.eos_token_id
        labels = batch["labels"][i]
        assert labels[: len(p)].eq(-100).all() and labels[len(p) : len(p) + len(c)].tolist() == c
    # the loss reads logits only from the position before the earliest reply token: the same
    # loss and gradients as the logits of every position (padded rows included)
    start = reply_window(batch["labels"])
    assert start == min(len(p) for p, _ in pairs) - 1
    full = lm_model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], use_cache=False)
    want = reply_nll(full.logits, batch["labels"])[0].mean()
    got = trainer.compute_loss(lm_model, batch)
    assert torch.allclose(got, want, atol=1e-6)
    (g_want,) = torch.autograd.grad(want, lm_model.lm_head.weight)
    (g_got,) = torch.autograd.grad(trainer.compute_loss(lm_model, batch), lm_model.lm_head.weight)
    assert torch.allclose(g_got, g_want, atol=1e-6)
    _, epochs = train_sft(lm_model, lm_tok, chats * 2, epochs=2, batchSize=4, lr=3e-3, valFrac=0.0)
    assert len(epochs) == 2 and epochs[1]["losses/train"] < epochs[0]["losses/train"]


# ------------------------------------------------------------------------------------------ RL

FAST = {"steps": 2, "batchSize": 2, "groupSize": 3, "maxNewTokens": 10, "lr": 1e-3}


@pytest.mark.parametrize("algo", ["salvage-ds", "grpo", "dapo"])
def test_two_rl_steps_on_lm_rows(algo, lm_tok, tmp_path):
    examples = load_rl(write_jsonl(tmp_path / "rl.jsonl", rl_rows()))
    fn = {"salvage-ds": train_salvage_ds, "grpo": train_grpo, "dapo": train_dapo}[algo]
    trainer, metrics = fn(build_model(lm_tok, "tiny", seed=0), lm_tok, examples, reward="polarized", **FAST)
    assert len(metrics) == 2 and all(m["charts/rollouts_sampled"] == 6 for m in metrics)
    # generated tokens of the step's 6 rollouts: at least one each (EOS), at most max_completion_length
    cap = trainer.args.max_completion_length
    assert all(6 <= m["charts/completion_tokens"] <= 6 * cap for m in metrics)
    ds = trainer.train_dataset
    assert ds[0]["layout"] == "lm" and isinstance(ds[0]["prompt"], str)
    # TRL tokenizes the plain prompt as SFT does, and the anchor's target is the SFT reply + EOS
    ids, _, _ = trainer._tokenize_prompts([ds[0]["prompt"]])
    assert ids[0] == lm_text_ids(lm_tok, ds[0]["prompt"], 4096)
    assert ds[0]["gold_ids"] == lm_tok(lm_reply(STATES[0][1]), add_special_tokens=False)["input_ids"] + [
        lm_tok.eos_token_id
    ]
    if algo == "salvage-ds":
        # a random model writes no valid action: every group is salvaged on the gold reply
        assert metrics[0]["charts/salvage_share"] == 1 and metrics[0]["losses/salvage_ce"] > 0
        assert metrics[1]["charts/kl_ref"] > 0


def test_cli_tiny_sft_and_rl_on_lm_exports(tmp_path):
    sft_dir = tmp_path / "sft"
    sft_dir.mkdir()
    write_jsonl(sft_dir / "train.jsonl", sft_rows())
    (sft_dir / "export.json").write_text(json.dumps({"layout": "lm", "promptTokens": 600}))
    rl = write_jsonl(tmp_path / "rl.jsonl", rl_rows(600))
    tiny = tmp_path / "tiny"
    assert main(["tiny", "--out", str(tiny), "--data", str(sft_dir), "--data", str(rl), "--vocab", "300"]) == 0
    out = tmp_path / "sft-out"
    assert main(["sft", "--model", str(tiny), "--data", str(sft_dir), "--out", str(out), "--epochs", "1",
                 "--batch", "4", "--threads", "1"]) == 0  # fmt: skip
    meta = json.loads((out / "rmsweb-trainer.json").read_text())
    assert meta["layout"] == "lm" and meta["promptTokens"] == 600 and meta["examples"] == 4
    rl_out = tmp_path / "rl-out"
    assert main(["rl", "--model", str(out), "--data", str(rl), "--out", str(rl_out), "--steps", "1", "--batch", "2",
                 "--group-size", "2", "--max-new-tokens", "6", "--threads", "1"]) == 0  # fmt: skip
    meta = json.loads((rl_out / "rmsweb-trainer.json").read_text())
    assert meta["layout"] == "lm" and meta["promptTokens"] == 600


# --------------------------------------------------------------------------------------- serve


def test_serve_continues_a_raw_prompt_and_stops_at_the_stop_string(lm_model, lm_tok, monkeypatch):
    stops = {lm_tok.eos_token_id}
    prompt = lm_prompt("Press the search button")
    r = generate(lm_model, lm_tok, {"id": 7, "prompt": prompt, "max_tokens": 12, "temperature": 0}, 4096, stops, "cpu")
    assert r["id"] == 7 and r["prompt_tokens"] == len(lm_text_ids(lm_tok, prompt, 4096))
    # greedy: the most likely tokens, continuing BOS + prompt
    ids = torch.tensor([lm_text_ids(lm_tok, prompt, 4096)])
    expected = []
    with torch.no_grad():
        for _ in range(r["completion_tokens"]):
            nxt = int(lm_model(input_ids=ids).logits[0, -1].argmax())
            expected.append(nxt)
            ids = torch.cat([ids, torch.tensor([[nxt]])], 1)
    full = lm_tok.decode(expected, skip_special_tokens=True)
    assert full.startswith(r["text"])
    # a stop string present in the greedy text cuts it there
    if len(full) > 2:
        cut = full[2:4] or full[2]
        r2 = generate(
            lm_model, lm_tok, {"id": 8, "prompt": prompt, "max_tokens": 12, "stop": [cut]}, 4096, stops, "cpu"
        )
        assert r2["text"] == full[: full.find(cut)] and r2["finish_reason"] == "stop"
    # the process: one JSON line in, one out
    from rmsweb_trainer import serve as serve_mod

    monkeypatch.setattr(serve_mod, "load_model", lambda *a, **k: (lm_model, lm_tok))
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"id": 1, "prompt": prompt, "max_tokens": 3}) + "\n"))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert serve_mod.serve("unused", device="cpu") == 0
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert lines[0]["ready"] is True and lines[1]["id"] == 1 and lines[1]["completion_tokens"] <= 3
    assert "error" not in lines[1]
