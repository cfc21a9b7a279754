"""export-gguf: a --lora checkpoint keeps its PEFT adapter, and the adapter becomes a llama.cpp LoRA
GGUF whose metadata, names, ggml shapes and values are what llama-adapter.cpp expects. (That
llama.cpp computes the same model from it is src/cli/serve-model/lora-roundtrip.test.ts's part.)"""

import json
import shutil

import numpy as np
import pytest
import torch

from rmsweb_trainer.__main__ import main
from rmsweb_trainer.data import InputError
from rmsweb_trainer.gguf_adapter import export_gguf
from rmsweb_trainer.gguf_tiny import random_lora, write_tiny_gemma3
from rmsweb_trainer.lm import load_model, save_checkpoint


@pytest.fixture(scope="module")
def lora_run(tmp_path_factory):
    """A tiny Gemma 3 GGUF and a random-LoRA checkpoint saved from it as a --lora run saves one."""
    d = tmp_path_factory.mktemp("gguf")
    base = d / "base.gguf"
    write_tiny_gemma3(base)
    model, tok = load_model(str(base), torch.device("cpu"), "float32")
    peft_model = random_lora(model, rank=4, alpha=8.0)
    save_checkpoint(peft_model, tok, str(d / "ckpt"), {"command": "sft", "model": str(base)})
    return d, peft_model


def test_a_lora_checkpoint_keeps_its_adapter_and_base(lora_run):
    d, _ = lora_run
    assert (d / "ckpt" / "config.json").is_file()  # the merged model, as before
    assert (d / "ckpt" / "adapter" / "adapter_config.json").is_file()
    assert (d / "ckpt" / "adapter" / "adapter_model.safetensors").is_file()
    meta = json.loads((d / "ckpt" / "rmsweb-trainer.json").read_text())
    assert meta["adapter"] == {"dir": "adapter", "base": str((d / "base.gguf").resolve())}


def test_export_writes_llama_cpp_adapter_layout(lora_run, tmp_path):
    from gguf import GGUFReader

    d, peft_model = lora_run
    out = tmp_path / "a.gguf"
    s = export_gguf(str(d / "ckpt"), str(out))
    assert s["base"] == str((d / "base.gguf").resolve()) and s["architecture"] == "gemma3"
    assert s["weights"] == 2 * 7 and s["ranks"] == [4] and s["alpha"] == 8.0
    r = GGUFReader(str(out))
    assert r.fields["general.architecture"].contents() == "gemma3"
    assert r.fields["general.type"].contents() == "adapter"
    assert r.fields["adapter.type"].contents() == "lora"
    assert r.fields["adapter.lora.alpha"].contents() == 8.0
    t = {x.name: x for x in r.tensors}
    assert len(t) == 28
    base = {x.name: x for x in GGUFReader(str(d / "base.gguf")).tensors}
    for name in ("blk.0.attn_q.weight", "blk.1.attn_output.weight", "blk.1.ffn_down.weight"):
        a, b, w = t[f"{name}.lora_a"], t[f"{name}.lora_b"], base[name]
        # llama-adapter.cpp's checks, in ggml's ne order: a [in, r], b [r, out], w [in, out]
        assert a.shape[0] == w.shape[0] and b.shape[1] == w.shape[1] and a.shape[1] == b.shape[0] == 4
    sd = peft_model.state_dict()
    q_a = next(v for k, v in sd.items() if "layers.1.self_attn.q_proj.lora_A" in k)
    q_b = next(v for k, v in sd.items() if "layers.1.self_attn.q_proj.lora_B" in k)
    np.testing.assert_array_equal(t["blk.1.attn_q.weight.lora_a"].data, q_a.numpy())
    np.testing.assert_array_equal(t["blk.1.attn_q.weight.lora_b"].data, q_b.numpy())


def test_rslora_alpha_is_rescaled_for_llama_cpp(lora_run, tmp_path):
    d, _ = lora_run
    folder = tmp_path / "rs"
    shutil.copytree(d / "ckpt" / "adapter", folder)
    cfg = json.loads((folder / "adapter_config.json").read_text())
    (folder / "adapter_config.json").write_text(json.dumps({**cfg, "use_rslora": True}))
    s = export_gguf(str(folder), str(tmp_path / "rs.gguf"), base=str(d / "base.gguf"))
    assert s["alpha"] == pytest.approx(8.0 * 2)  # alpha / sqrt(4) == 16 / 4


def test_refusals_name_the_problem(lora_run, tmp_path):
    d, _ = lora_run
    merged = tmp_path / "merged"
    merged.mkdir()
    (merged / "rmsweb-trainer.json").write_text('{"command": "sft", "model": "x"}')
    with pytest.raises(InputError, match="not trained with --lora"):
        export_gguf(str(merged), str(tmp_path / "x.gguf"))
    with pytest.raises(InputError, match="no such folder"):
        export_gguf(str(tmp_path / "nope"), str(tmp_path / "x.gguf"))
    with pytest.raises(InputError, match="--arch llama but .*base.gguf is a gemma3 model"):
        export_gguf(str(d / "ckpt" / "adapter"), str(tmp_path / "x.gguf"), arch="llama")
    alone = tmp_path / "alone"  # an adapter folder with no run record beside it
    shutil.copytree(d / "ckpt" / "adapter", alone)
    with pytest.raises(InputError, match="architecture llama: not supported"):
        export_gguf(str(alone), str(tmp_path / "x.gguf"), arch="llama")
    with pytest.raises(InputError, match="architecture is unknown"):
        export_gguf(str(alone), str(tmp_path / "x.gguf"))
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF not really")
    with pytest.raises(InputError, match="not a readable GGUF"):
        export_gguf(str(d / "ckpt"), str(tmp_path / "x.gguf"), base=str(other))
    export_gguf(str(d / "ckpt"), str(tmp_path / "adapter.gguf"))
    with pytest.raises(InputError, match="has no tensor blk.0.attn_k.weight: not the model"):
        export_gguf(str(d / "ckpt"), str(tmp_path / "x.gguf"), base=str(tmp_path / "adapter.gguf"))
    cfg = json.loads((d / "ckpt" / "adapter" / "adapter_config.json").read_text())
    dora = tmp_path / "dora"
    dora.mkdir()
    (dora / "adapter_config.json").write_text(json.dumps({**cfg, "use_dora": True}))
    (dora / "adapter_model.safetensors").write_bytes(b"")
    with pytest.raises(InputError, match="use_dora"):
        export_gguf(str(dora), str(tmp_path / "x.gguf"), arch="gemma3")
    (dora / "adapter_config.json").write_text(json.dumps(cfg))
    with pytest.raises(InputError, match="adapter_model.safetensors: not a safetensors file"):
        export_gguf(str(dora), str(tmp_path / "x.gguf"), arch="gemma3")


def test_cli_prints_the_summary_and_exits_2_on_bad_input(lora_run, tmp_path, capsys):
    d, _ = lora_run
    assert main(["export-gguf", "--adapter", str(d / "ckpt"), "--out", str(tmp_path / "c.gguf")]) == 0
    assert json.loads(capsys.readouterr().out)["weights"] == 14
    assert main(["export-gguf", "--adapter", str(tmp_path), "--out", str(tmp_path / "c.gguf")]) == 2
    assert "error: --adapter:" in capsys.readouterr().err


def test_header_shapes_match_gguf_reader(lora_run):
    from gguf import GGUFReader

    from rmsweb_trainer.gguf_adapter import gguf_tensor_shapes

    d, _ = lora_run
    arch, shapes = gguf_tensor_shapes(str(d / "base.gguf"))
    r = GGUFReader(str(d / "base.gguf"))
    assert arch == "gemma3"
    assert shapes == {t.name: tuple(int(x) for x in t.shape) for t in r.tensors}


def test_a_random_adapter_from_gguf_shapes_exports(lora_run, tmp_path):
    from rmsweb_trainer.gguf_tiny import random_adapter

    d, _ = lora_run
    folder = random_adapter(d / "base.gguf", tmp_path / "rand", rank=2)
    s = export_gguf(str(folder), str(tmp_path / "rand.gguf"), base=str(d / "base.gguf"))
    assert s["weights"] == 14 and s["ranks"] == [2]


def test_a_run_from_a_lora_checkpoint_finds_its_gguf_base_through_it(lora_run, tmp_path):
    import copy

    from transformers import AutoTokenizer

    d, peft_model = lora_run
    second = random_lora(copy.deepcopy(peft_model).merge_and_unload(), rank=2, seed=1)
    tok = AutoTokenizer.from_pretrained(str(d / "ckpt"))
    save_checkpoint(second, tok, str(tmp_path / "rl"), {"command": "rl", "model": str(d / "ckpt")})
    s = export_gguf(str(tmp_path / "rl"), str(tmp_path / "rl.gguf"))
    assert s["base"] == str((d / "base.gguf").resolve())
    assert s["under"] == [str((d / "ckpt").resolve())]
    # a chain that ends in a folder with no adapter (full fine-tuning) has no GGUF base to serve over
    full = tmp_path / "full"
    full.mkdir()
    (full / "rmsweb-trainer.json").write_text('{"command": "sft", "model": "x.gguf"}')
    save_checkpoint(second, tok, str(tmp_path / "rl2"), {"command": "rl", "model": str(full)})
    with pytest.raises(InputError, match="architecture is unknown"):
        export_gguf(str(tmp_path / "rl2"), str(tmp_path / "rl2.gguf"))
