"""A trained checkpoint as an agent's model: generations over stdin/stdout, one JSON object a line.

The rmsweb CLI (`--agent hf:DIR`) starts this process and sends the same system and user messages
LlmAgent sends any chat model - the prompt the exports were rendered with - so the student sees at
inference the prompt it learned from. Request: {"id", "messages", "max_tokens", "temperature",
"seed"}; reply: {"id", "text", "prompt_tokens", "completion_tokens", "finish_reason"} or
{"id", "error"}. The first line written is {"ready": true, ...}.

`--agent lm:hf:DIR` (LmAgent, the plain lm layout of a base model without a chat template) sends a
raw prompt instead: {"id", "prompt", "max_tokens", "temperature", "stop"}. The prompt is tokenized as
the trainer tokenizes the layout's prompts (BOS + text, `lm_text_ids`) and continued - greedily at
temperature 0 - until EOS or the first stop string, which the reply's text leaves out (as an
OpenAI-compatible `/completions` endpoint does).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import torch

from .data import Chat, _text
from .lm import lm_text_ids, load_model, prompt_ids, sample, setup_dist, stop_ids


def _chat(messages: list[dict[str, Any]]) -> Chat:
    system = "\n".join(_text(m["content"]) for m in messages if m.get("role") == "system")
    user = "\n".join(_text(m["content"]) for m in messages if m.get("role") == "user")
    return Chat(system, user)


def _stop_strings(req: dict[str, Any]) -> list[str]:
    stop = req.get("stop") or []
    if isinstance(stop, str):
        stop = [stop]
    if not isinstance(stop, list) or not all(isinstance(x, str) for x in stop):
        raise ValueError("field stop must be a string or a list of strings")
    return [x for x in stop if x]


def _cut(text: str, stop: list[str]) -> tuple[str, bool]:
    """The text before the first stop string, and whether one was found."""
    at = min((i for i in (text.find(s) for s in stop) if i >= 0), default=-1)
    return (text[:at], True) if at >= 0 else (text, False)


@torch.no_grad()
def generate(model: Any, tok: Any, req: dict[str, Any], max_prompt: int, stops: set[int], device) -> dict[str, Any]:
    raw = "prompt" in req
    if raw and not isinstance(req["prompt"], str):
        raise ValueError("field prompt must be a string")
    p = lm_text_ids(tok, req["prompt"], max_prompt) if raw else prompt_ids(tok, _chat(req["messages"]), max_prompt)
    stop = _stop_strings(req) if raw else []
    max_new = int(req.get("max_tokens") or 512)
    temp = float(req.get("temperature") or 0)
    hit = False
    if temp <= 0:
        # greedy: the most likely reply
        ids = torch.tensor([p], device=device)
        out: list[int] = []
        past = None
        step = ids
        for _ in range(max_new):
            # logits_to_keep=1: the prompt pass needs the last position only (262k-token vocabulary)
            r = model(input_ids=step, past_key_values=past, use_cache=True, logits_to_keep=1)
            past = r.past_key_values
            nxt = int(r.logits[0, -1].argmax())
            out.append(nxt)
            if nxt in stops:
                break
            # a stop string may span tokens: the decoded text so far is checked (replies are short)
            if stop and _cut(tok.decode(out, skip_special_tokens=True), stop)[1]:
                hit = True
                break
            step = torch.tensor([[nxt]], device=device)
    else:
        g = torch.Generator().manual_seed(int(req.get("seed") or 0))
        out = sample(model, p, 1, temperature=temp, max_new_tokens=max_new, stops=stops, generator=g, device=device)[0]
    text, found = _cut(tok.decode(out, skip_special_tokens=True), stop)
    finished = hit or found or (bool(out) and out[-1] in stops)
    return {
        "id": req.get("id"),
        "text": text,
        "prompt_tokens": len(p),
        "completion_tokens": len(out),
        "finish_reason": "stop" if finished else "length",
    }


def serve(path: str, device: str = "auto", dtype: str = "auto", max_prompt: int | None = None) -> int:
    from .options import OPTIONS

    dist = setup_dist(device)
    model, tok = load_model(path, dist.device, dtype)
    model.eval()
    stops = stop_ids(model, tok)
    limit = max_prompt or OPTIONS["torch"]["maxPromptTokens"]
    ready = {"ready": True, "model": path, "device": str(dist.device), "threads": torch.get_num_threads()}
    print(json.dumps(ready), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        req: dict[str, Any] = {}
        try:
            req = json.loads(line)
            reply = generate(model, tok, req, limit, stops, dist.device)
        except Exception as e:  # noqa: BLE001 - one bad request must not end the agent
            reply = {"id": req.get("id"), "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)
    return 0
