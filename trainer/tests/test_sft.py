"""SFT on TRL's SFTTrainer, on a tiny random LM: its loss equals the loop it replaced on the same
batch (and so does one optimizer step), only reply tokens carry loss, training lowers the loss, and
the checkpoint (LoRA merged) reloads as a plain Hugging Face folder with the metrics events the CLI reads."""

import json

import pytest
import torch

from rmsweb_trainer.data import Chat, truth_completion
from rmsweb_trainer.lm import completion_logits, load_model, make_batch, seq_mean, token_logprobs
from rmsweb_trainer.options import defaults
from rmsweb_trainer.sft import build_trainer, encode, micro_split, save_sft, train_sft
from rmsweb_trainer.tiny import build_model

from .conftest import killed_at_step, weights


def _chats(examples):
    return [Chat(e.chat.system, e.chat.user, truth_completion(e)) for e in examples]


def _old_loop_loss(model, pairs, pad):
    """The loss of the loop SFTTrainer replaced (sft.py before TRL): the mean over rows of each
    reply's mean token NLL, from the logits at the completion positions."""
    b = make_batch(pairs, pad, torch.device("cpu"))
    return (-seq_mean(token_logprobs(completion_logits(model, b), b), b.mask)).mean()


def _collated(trainer, n):
    return trainer.data_collator([trainer.train_dataset[i] for i in range(n)])


def test_micro_split_divides_the_batch():
    assert micro_split(32, 16) == (16, 2) and micro_split(6, 4) == (3, 2) and micro_split(4, 0) == (4, 1)
    assert micro_split(7, 3) == (1, 7) and micro_split(4, 16) == (4, 1)


def test_trl_loss_equals_the_old_loop_on_a_fixed_batch(model, tokenizer, examples, tmp_path):
    pairs = encode(tokenizer, _chats(examples), 4096)
    assert len({len(c) for _, c in pairs}) > 1  # replies of different lengths: the reduction matters
    o = defaults("sft", batchSize=len(pairs), microBatch=0)
    trainer = build_trainer(model, tokenizer, pairs, [], o, cpu=True, work_dir=str(tmp_path / "w"))
    batch = _collated(trainer, len(pairs))
    # the rows TRL trains on are the old loop's, reply tokens alone labelled
    for i, (p, c) in enumerate(pairs):
        assert batch["input_ids"][i, : len(p) + len(c)].tolist() == p + c
        assert (
            batch["labels"][i, : len(p)].eq(-100).all() and batch["labels"][i, len(p) : len(p) + len(c)].tolist() == c
        )
    with torch.no_grad():
        new = trainer.compute_loss(trainer.model, batch)
        old = _old_loop_loss(model, pairs, tokenizer.pad_token_id)
    print(f"SFT loss parity: TRL {float(new):.8f} old loop {float(old):.8f} |diff| {abs(float(new - old)):.2e}")
    assert abs(float(new) - float(old)) < 1e-5


@pytest.mark.parametrize("gc", [False, True], ids=["default", "gradient_checkpointing"])
def test_one_trl_step_equals_one_old_loop_step(tokenizer, examples, tmp_path, gc):
    pairs = encode(tokenizer, _chats(examples), 4096)
    old_model, new_model = build_model(tokenizer, "tiny", seed=0), build_model(tokenizer, "tiny", seed=0)
    # the old loop: Adam on the batch's loss, no clipping, constant lr
    opt = torch.optim.Adam(old_model.parameters(), lr=1e-3)
    _old_loop_loss(old_model, pairs, tokenizer.pad_token_id).backward()
    opt.step()
    # TRL: the same batch in two accumulated micro-batches of 2
    o = defaults("sft", batchSize=len(pairs), microBatch=2, lr=1e-3, epochs=1, gradientCheckpointing=gc or None)
    trainer = build_trainer(new_model, tokenizer, pairs, [], o, cpu=True, work_dir=str(tmp_path / "w"))
    assert trainer.args.gradient_checkpointing is gc  # off unless asked: memory for a second forward pass
    trainer.train()
    assert trainer.state.global_step == 1
    for (name, a), b in zip(old_model.named_parameters(), new_model.parameters()):
        torch.testing.assert_close(a, b, rtol=0, atol=2e-6, msg=name)


def test_sft_lowers_the_loss_logs_events_and_saves_a_plain_checkpoint(model, tokenizer, examples, tmp_path):
    metrics = tmp_path / "m.jsonl"
    chats = _chats(examples) * 2
    trainer, epochs = train_sft(
        model, tokenizer, chats, epochs=4, batchSize=4, lr=3e-3, valFrac=0.25, metrics_path=str(metrics)
    )
    assert [e["epoch"] for e in epochs] == [1, 2, 3, 4] and epochs[0]["train"] == 6 and epochs[0]["val"] == 2
    assert epochs[-1]["losses/train"] < epochs[0]["losses/train"]
    assert epochs[-1]["losses/val"] < epochs[0]["losses/val"]
    events = [json.loads(x) for x in metrics.read_text().splitlines()]
    assert [e["event"] for e in events] == ["step", "step", "epoch"] * 4
    assert events[0]["step"] == 1 and events[0]["tokens"] > 0 and events[0]["losses/sft"] > 0
    out = tmp_path / "ckpt"
    save_sft(trainer, tokenizer, str(out), {"algo": "sft"})
    for f in ("config.json", "model.safetensors", "tokenizer.json", "rmsweb-trainer.json"):
        assert (out / f).exists(), f
    again, _ = load_model(str(out), torch.device("cpu"))
    for a, b in zip(trainer.model.parameters(), again.parameters()):
        assert torch.equal(a.detach(), b.detach())


def test_lora_sft_trains_adapters_and_merges_them(model, tokenizer, examples, tmp_path):
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    trainer, _ = train_sft(model, tokenizer, _chats(examples), epochs=1, batchSize=4, lr=1e-2, valFrac=0, lora=True, loraRank=2)  # fmt: skip
    trainable = [n for n, p in trainer.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora" in n for n in trainable)
    save_sft(trainer, tokenizer, str(tmp_path / "lora"), {})
    assert not (tmp_path / "lora" / "adapter_config.json").exists()
    merged, _ = load_model(str(tmp_path / "lora"), torch.device("cpu"))
    changed = [n for n, p in merged.named_parameters() if not torch.equal(p, before[n])]
    assert changed and all("proj" in n for n in changed)


@pytest.mark.parametrize("reply", ['{"action":[]}'])
def test_prompt_is_left_truncated_so_the_reply_survives(tokenizer, reply):
    chat = Chat("s " * 300, "u " * 300, reply)
    [(p, c)] = encode(tokenizer, [chat], 64)
    assert len(p) == 64 and tokenizer.decode(c).startswith(reply)


def test_completion_logits_read_only_the_window_and_equal_every_positions_logits(model, tokenizer, examples):
    pairs = encode(tokenizer, _chats(examples), 4096)
    b = make_batch(pairs, tokenizer.pad_token_id, torch.device("cpu"))
    assert len(set(b.starts)) > 1  # prompts of different lengths: the window starts at the shortest
    full = model(input_ids=b.input_ids, attention_mask=b.attention).logits
    lc = b.targets.shape[1]
    idx = (torch.tensor(b.starts)[:, None] - 1 + torch.arange(lc)[None]).clamp(0, full.shape[1] - 1)
    want = torch.gather(full, 1, idx[:, :, None].expand(-1, -1, full.shape[-1])).float()
    assert torch.allclose(completion_logits(model, b), want, atol=1e-5)


@pytest.mark.parametrize("lora", [False, True])
def test_a_killed_sft_run_resumes_from_its_checkpoint_to_the_same_weights(
    tokenizer, examples, tmp_path, monkeypatch, lora
):
    chats = _chats(examples) * 2  # 8 rows, batch 2: 4 steps an epoch, 8 in all
    o = dict(epochs=2, batchSize=2, lr=3e-3, valFrac=0, seed=3, lora=lora, loraRank=2)
    fp = {"data": "d1"}
    straight, straight_epochs = train_sft(build_model(tokenizer, "tiny", seed=0), tokenizer, chats, **o)
    want = weights(straight)

    ckpt = tmp_path / "ckpt"
    with killed_at_step(monkeypatch, 6):
        train_sft(build_model(tokenizer, "tiny", seed=0), tokenizer, chats, checkpoint_dir=str(ckpt), save_steps=1, fingerprint=fp, **o)  # fmt: skip
    assert (ckpt / "checkpoint-5").is_dir()

    metrics = tmp_path / "m.jsonl"
    resumed, epochs = train_sft(
        build_model(tokenizer, "tiny", seed=0),
        tokenizer,
        chats,
        checkpoint_dir=str(ckpt),
        save_steps=1,
        fingerprint=fp,
        metrics_path=str(metrics),
        **o,
    )
    steps = [json.loads(x)["step"] for x in metrics.read_text().splitlines() if '"step"' in x]
    assert steps == [6, 7, 8]  # the five steps before the kill were not trained again
    got = weights(resumed)
    assert got.keys() == want.keys()
    for n in want:
        assert torch.allclose(got[n], want[n], atol=1e-6), n
    # the epoch losses cover the steps before the kill too
    assert [e["epoch"] for e in epochs] == [1, 2]
    for a, b in zip(epochs, straight_epochs, strict=True):
        assert a["losses/train"] == pytest.approx(b["losses/train"], rel=1e-5)


def test_checkpoints_of_other_data_are_discarded_not_resumed(tokenizer, examples, tmp_path, capsys):
    chats = _chats(examples)
    o = dict(epochs=1, batchSize=2, lr=3e-3, valFrac=0, seed=0)
    ckpt = tmp_path / "ckpt"
    train_sft(build_model(tokenizer, "tiny", seed=0), tokenizer, chats, checkpoint_dir=str(ckpt), save_steps=1, fingerprint={"data": "a"}, **o)  # fmt: skip
    assert (ckpt / "checkpoint-2").is_dir()
    metrics = tmp_path / "m.jsonl"
    train_sft(build_model(tokenizer, "tiny", seed=0), tokenizer, chats, checkpoint_dir=str(ckpt), save_steps=1, fingerprint={"data": "b"}, metrics_path=str(metrics), **o)  # fmt: skip
    assert "starting over" in capsys.readouterr().err
    assert [json.loads(x)["step"] for x in metrics.read_text().splitlines() if '"step"' in x] == [1, 2]
