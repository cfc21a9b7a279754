"""The frozen lower layers of a LoRA student, computed once per row instead of once per epoch.

With LoRA on the top K of a decoder's N layers (`loraLayers` K), the N - K layers below hold no
trainable weight: a row's hidden state entering layer N - K is the same in every epoch (their
attention dropout is 0), and no gradient flows below it. SFT then spends most of a step in layers
that only repeat last epoch's arithmetic. `FrozenPrefix` keeps that hidden state per row (keyed by
its token ids and attention mask) and, while a forward pass is `active`, feeds it to layer N - K
in place of the embeddings and skips the layers below, so an epoch after the first costs the top K
layers' forward and backward only. The logits are those of the whole model (the tests check it).

It works on decoders laid out as Llama's and Gemma's are in transformers (a stack with
`embed_tokens`, `layers` and `norm`, whose forward masks and positions from the inputs' shape);
`prefix_unsupported` says why another model is left uncached.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import nn


class _Skip(nn.Module):
    """A decoder layer that passes its hidden state through (the stack's loop still calls it)."""

    def forward(self, hidden_states: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return hidden_states


class _Lookup(nn.Module):
    """Stands in for `embed_tokens` while the cache is active: the cached input of the first
    trained layer, for each row of the batch."""

    def __init__(self, cache: FrozenPrefix):
        super().__init__()
        self.cache = [cache]  # a list, so the cache is not registered as a submodule

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.cache[0].hidden(input_ids)


def decoder_stack(model: Any) -> Any | None:
    """The module holding `embed_tokens`, `layers` and `norm` (through peft's wrappers), or None."""
    for m in model.modules():
        layers = getattr(m, "layers", None)
        if isinstance(layers, nn.ModuleList) and isinstance(getattr(m, "embed_tokens", None), nn.Embedding):
            if isinstance(getattr(m, "norm", None), nn.Module):
                return m
    return None


def layer_count(model: Any) -> int:
    """The decoder's layer count (config.num_hidden_layers, or the stack's)."""
    n = getattr(getattr(model, "config", None), "num_hidden_layers", None)
    if isinstance(n, int):
        return n
    stack = decoder_stack(model)
    if stack is None:
        raise ValueError("loraLayers: cannot tell how many decoder layers this model has")
    return len(stack.layers)


def lora_layer_indices(model: Any, top: int) -> list[int] | None:
    """The layers LoRA adapts with `loraLayers` = `top`: the top `top` ones (None: all of them)."""
    n = layer_count(model)
    if top <= 0 or top >= n:
        return None
    return list(range(n - top, n))


#: The attention and MLP projections `--lora` adapts, by the names decoder families give them.
LORA_PROJECTIONS = frozenset({"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "c_attn", "c_proj", "c_fc"})  # fmt: skip


def lora_targets(model: Any) -> list[str] | None:
    """The names of the model's linear layers among LORA_PROJECTIONS (None: none of them)."""
    import torch

    names = {n.split(".")[-1] for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    return sorted(names & LORA_PROJECTIONS) or None


def lora_layer_fields(model: Any, top: int) -> dict[str, Any]:
    """LoraConfig's fields for `loraLayers` = `top` (none when LoRA adapts every layer)."""
    layers = lora_layer_indices(model, top)
    return {"layers_to_transform": layers, "layers_pattern": "layers"} if layers else {}


def prefix_unsupported(model: Any, top: int) -> str | None:
    """Why the frozen prefix cannot be cached for this model with LoRA on its top `top` layers
    (None: it can)."""
    stack = decoder_stack(model)
    if stack is None:
        return "the model has no embed_tokens/layers/norm decoder stack"
    if top <= 0 or top >= len(stack.layers):
        return "LoRA adapts every layer (loraLayers 0)"
    dropout = float(getattr(getattr(stack, "config", None), "attention_dropout", 0.0) or 0.0)
    if dropout > 0:
        return f"attention dropout {dropout} makes the frozen layers' output differ between epochs"
    return None


class FrozenPrefix:
    """Per-row hidden states entering layer `start` of `model`'s decoder (see the module doc)."""

    def __init__(self, model: Any, start: int):
        stack = decoder_stack(model)
        if stack is None:
            raise ValueError("FrozenPrefix: the model has no embed_tokens/layers/norm decoder stack")
        self.stack = stack
        self.start = start
        self.rows: dict[bytes, torch.Tensor] = {}
        self.mask: torch.Tensor | None = None
        self.original: tuple[nn.Module, list[nn.Module], nn.Module] | None = None
        self.computed = 0
        self.reused = 0

    @contextmanager
    def _swapped(self, embed: nn.Module, layers: list[nn.Module], norm: nn.Module) -> Iterator[None]:
        s = self.stack
        saved = (s.embed_tokens, list(s.layers), s.norm)
        s.embed_tokens, s.norm = embed, norm
        for i, layer in enumerate(layers):
            s.layers[i] = layer
        try:
            yield
        finally:
            s.embed_tokens, s.norm = saved[0], saved[2]
            for i, layer in enumerate(saved[1]):
                s.layers[i] = layer

    def _prefix(self, ids: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """The lower layers' output for `ids` (no graph): the stack run with the layers from
        `start` up and the final norm skipped."""
        if self.original is None:
            raise RuntimeError("FrozenPrefix: a lookup outside active()")
        embed, layers, _ = self.original
        upper = [_Skip() for _ in layers[self.start :]]
        with self._swapped(embed, layers[: self.start] + upper, nn.Identity()), torch.no_grad():
            return self.stack(input_ids=ids, attention_mask=mask, use_cache=False).last_hidden_state

    def _length(self, i: int, width: int) -> int | None:
        """Row i's real tokens: its mask's ones when they lead the row (right padding, as TRL's
        collator pads), so a row padded to another batch's width finds its own entry; None when
        the mask has another shape (the whole row is then the key, mask included)."""
        if self.mask is None:
            return width
        m = self.mask[i]
        n = int(m.sum())
        return n if bool(m[:n].all()) else None

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        """The cached input of layer `start` for each row of `ids`, computing the missing ones."""
        width = ids.shape[1]
        lengths = []
        keys = []
        for i in range(ids.shape[0]):
            n = self._length(i, width)
            key = ids[i, : n or width].cpu().numpy().tobytes()
            if n is None and self.mask is not None:
                key += b"mask" + self.mask[i].cpu().numpy().tobytes()
            keys.append(key)
            lengths.append(n or width)
        missing = {k: i for i, k in enumerate(keys) if k not in self.rows}
        if missing:
            rows = list(missing.values())
            h = self._prefix(ids[rows], None if self.mask is None else self.mask[rows])
            for j, i in enumerate(rows):
                # a copy, so a stored row does not keep its batch's padding alive
                self.rows[keys[i]] = h[j, : lengths[i]].detach().clone()
            self.computed += len(rows)
        self.reused += ids.shape[0] - len(missing)
        out = None
        for i, k in enumerate(keys):
            h = self.rows[k]
            if out is None:
                out = h.new_zeros((ids.shape[0], width, h.shape[-1]))
            # a padded position's state is never read by a real token (causal, right padding)
            out[i, : h.shape[0]] = h
        assert out is not None
        return out

    @contextmanager
    def active(self, attention_mask: torch.Tensor | None) -> Iterator[None]:
        """Within it, the model's forward reads the cache instead of running the frozen layers."""
        s = self.stack
        self.original = (s.embed_tokens, list(s.layers), s.norm)
        self.mask = attention_mask
        lower = [_Skip() for _ in range(self.start)]
        try:
            with self._swapped(_Lookup(self), lower + list(s.layers)[self.start :], s.norm):
                yield
        finally:
            self.original, self.mask = None, None

    def stats(self) -> dict[str, Any]:
        """Rows computed and rows served from the cache, and the cache's size."""
        size = sum(t.numel() * t.element_size() for t in self.rows.values())
        return {"rows": len(self.rows), "computed": self.computed, "reused": self.reused, "bytes": size}
