"""A tiny randomly initialized causal LM built from a config, with a byte-level BPE tokenizer trained
on the given texts: no download. Tests, benchmarks and the end-to-end demo train it; it is a real
transformer (Llama architecture), just small and untrained."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}"
    "{% if m['role'] == 'assistant' %}<|end|>{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
SPECIALS = ["<|pad|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>"]

#: The model sizes tests and benchmarks use: hidden width, layers, heads.
SIZES = {"tiny": (32, 2, 2), "small": (128, 4, 4), "base": (256, 6, 8)}


def build_tokenizer(texts: Iterable[str], vocab_size: int = 512) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    t.train_from_iterator(list(texts), trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=t, pad_token="<|pad|>", eos_token="<|end|>")
    tok.chat_template = CHAT_TEMPLATE
    return tok


def build_model(tok: Any, size: str = "tiny", seed: int = 0) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    hidden, layers, heads = SIZES[size]
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=hidden,
        intermediate_size=hidden * 2,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        max_position_embeddings=16384,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(cfg)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    return model


def make_tiny(out: str | Path, texts: Iterable[str], size: str = "tiny", seed: int = 0, vocab_size: int = 512) -> None:
    """Writes a random tiny LM and its tokenizer to `out` (a Hugging Face folder)."""
    tok = build_tokenizer(texts, vocab_size)
    model = build_model(tok, size, seed)
    Path(out).mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tok.save_pretrained(str(out))
