"""LoRA on the top layers only (`loraLayers`) with the frozen layers below cached per row: the
cached forward gives the whole model's logits and gradients, on padded batches too, and a cached
SFT run ends at the weights an uncached one reaches, computing each row's frozen layers once."""

import pytest
import torch
from peft import get_peft_model

from rmsweb_trainer import sft as sft_module
from rmsweb_trainer.data import Chat, truth_completion
from rmsweb_trainer.options import defaults
from rmsweb_trainer.prefix_cache import FrozenPrefix, lora_layer_indices, prefix_unsupported
from rmsweb_trainer.sft import lora_config, train_sft
from rmsweb_trainer.tiny import build_model

from .conftest import weights


def _chats(examples):
    return [Chat(e.chat.system, e.chat.user, truth_completion(e)) for e in examples]


def _peft(tokenizer, top):
    model = build_model(tokenizer, "small", seed=0)  # 4 layers
    peft = get_peft_model(model, lora_config(model, defaults("sft", lora=True, loraRank=2, loraLayers=top, loraDropout=0.0)))  # fmt: skip
    torch.manual_seed(1)
    for n, p in peft.named_parameters():
        if "lora_B" in n:  # peft starts B at zero; a non-zero B makes the adapters act
            p.data.normal_(0, 0.1)
    return peft


def test_lora_adapts_only_the_top_layers(tokenizer):
    peft = _peft(tokenizer, 1)
    adapted = {n.split(".layers.")[1].split(".")[0] for n, _ in peft.named_parameters() if "lora_A" in n}
    assert adapted == {"3"}
    assert lora_layer_indices(peft, 0) is None and lora_layer_indices(peft, 4) is None
    assert lora_layer_indices(peft, 3) == [1, 2, 3]


def test_cached_forward_gives_the_whole_models_loss_and_gradients(tokenizer):
    peft = _peft(tokenizer, 2)
    peft.train()
    ids = torch.tensor([[5, 9, 12, 40, 7, 3], [8, 22, 31, 4, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]])  # the second row right-padded

    def loss_and_grads(prefix):
        peft.zero_grad()
        if prefix is None:
            logits = peft(input_ids=ids, attention_mask=mask, use_cache=False).logits
        else:
            with prefix.active(mask):
                logits = peft(input_ids=ids, attention_mask=mask, use_cache=False).logits
        loss = (logits.log_softmax(-1)[..., 1] * mask).sum()
        loss.backward()
        grads = {n: p.grad.clone() for n, p in peft.named_parameters() if p.requires_grad}
        return logits.detach(), grads

    want_logits, want = loss_and_grads(None)
    prefix = FrozenPrefix(peft, 2)
    for _ in range(2):  # the first pass computes the rows, the second reads them back
        got_logits, got = loss_and_grads(prefix)
        keep = mask.bool()
        assert torch.allclose(got_logits[keep], want_logits[keep], atol=1e-5)
        assert got.keys() == want.keys() and len(got) > 0
        for n in want:
            assert torch.allclose(got[n], want[n], atol=1e-5), n
    assert prefix.stats()["computed"] == 2 and prefix.stats()["reused"] == 2
    # the model is whole again outside active(): its own forward gives the same logits
    again = peft(input_ids=ids, attention_mask=mask, use_cache=False).logits.detach()
    assert torch.allclose(again, want_logits, atol=1e-6)


def test_cached_sft_reaches_the_uncached_runs_weights(tokenizer, examples, monkeypatch, capsys):
    chats = _chats(examples) * 2  # 8 rows, batch 2: 4 steps an epoch
    o = dict(epochs=3, batchSize=2, lr=3e-3, valFrac=0, seed=3, lora=True, loraRank=2, loraLayers=2, loraDropout=0.0)
    cached, _ = train_sft(build_model(tokenizer, "small", seed=0), tokenizer, chats, **o)
    assert isinstance(cached.prefix, FrozenPrefix)
    st = cached.prefix.stats()
    assert st["rows"] == 4 and st["computed"] == 4 and st["reused"] == 3 * 8 - 4
    assert "layers 0-1 computed once per row" in capsys.readouterr().err

    monkeypatch.setattr(sft_module, "frozen_prefix", lambda *a, **k: None)
    plain, _ = train_sft(build_model(tokenizer, "small", seed=0), tokenizer, chats, **o)
    assert plain.prefix is None
    want, got = weights(plain), weights(cached)
    assert got.keys() == want.keys()
    for n in want:
        assert torch.allclose(got[n], want[n], atol=1e-5), n


@pytest.mark.parametrize(("top", "reason"), [(0, "every layer"), (4, "every layer")])
def test_the_cache_is_refused_where_it_would_not_be_exact(tokenizer, top, reason):
    model = build_model(tokenizer, "small", seed=0)
    assert reason in (prefix_unsupported(model, top) or "")
    assert prefix_unsupported(model, 2) is None
    model.config.attention_dropout = 0.1
    assert "dropout" in (prefix_unsupported(model, 2) or "")
