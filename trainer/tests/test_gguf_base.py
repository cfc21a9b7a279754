"""dequantize-gguf: a quantized GGUF rewritten dequantized, metadata kept, values as gguf dequantizes them."""

import numpy as np
import pytest
from gguf import GGMLQuantizationType, GGUFReader, GGUFWriter
from gguf.quants import dequantize, quantize

from rmsweb_trainer.data import InputError
from rmsweb_trainer.gguf_base import dequantize_gguf


@pytest.fixture()
def quantized(tmp_path):
    """A small gemma3-tagged GGUF with a Q8_0 weight, an F32 norm and some metadata."""
    rng = np.random.default_rng(0)
    path = tmp_path / "q.gguf"
    w = GGUFWriter(str(path), "gemma3")
    w.add_block_count(1)
    w.add_token_list(["<pad>", "<eos>", "a"])
    w.add_token_scores([0.0, 0.0, -1.0])
    weight = rng.standard_normal((8, 64)).astype(np.float32)
    w.add_tensor("blk.0.attn_q.weight", quantize(weight, GGMLQuantizationType.Q8_0), raw_dtype=GGMLQuantizationType.Q8_0)  # fmt: skip
    w.add_tensor("blk.0.attn_norm.weight", np.ones(64, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.parametrize("kind", ["f32", "f16"])
def test_every_tensor_dequantized_metadata_kept(quantized, tmp_path, kind):
    out = tmp_path / f"{kind}.gguf"
    s = dequantize_gguf(str(quantized), str(out), kind)
    assert s["tensors"] == 2 and s["type"] == kind
    src, dst = GGUFReader(str(quantized)), GGUFReader(str(out))
    assert dst.fields["general.architecture"].contents() == "gemma3"
    assert dst.fields["gemma3.block_count"].contents() == 1
    assert dst.fields["tokenizer.ggml.tokens"].contents() == ["<pad>", "<eos>", "a"]
    t = {x.name: x for x in dst.tensors}
    q = next(x for x in src.tensors if x.name == "blk.0.attn_q.weight")
    want = dequantize(q.data, q.tensor_type)
    got = t["blk.0.attn_q.weight"]
    assert got.tensor_type == (GGMLQuantizationType.F32 if kind == "f32" else GGMLQuantizationType.F16)
    assert list(got.shape) == list(q.shape)
    np.testing.assert_allclose(np.asarray(got.data, np.float32), want, rtol=0 if kind == "f32" else 1e-3, atol=1e-3 if kind == "f16" else 0)  # fmt: skip
    assert t["blk.0.attn_norm.weight"].tensor_type == GGMLQuantizationType.F32  # norms stay F32


def test_refusals(quantized, tmp_path):
    with pytest.raises(InputError, match="is the input file"):
        dequantize_gguf(str(quantized), str(quantized))
    with pytest.raises(InputError, match="no such file"):
        dequantize_gguf(str(tmp_path / "none.gguf"), str(tmp_path / "o.gguf"))
    with pytest.raises(InputError, match="not one of f32, f16"):
        dequantize_gguf(str(quantized), str(tmp_path / "o.gguf"), "q8")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF nope")
    with pytest.raises(InputError, match="not a readable GGUF"):
        dequantize_gguf(str(bad), str(tmp_path / "o.gguf"))
