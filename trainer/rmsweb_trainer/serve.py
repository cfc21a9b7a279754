"""A trained checkpoint as an agent's model: generations over stdin/stdout, one JSON object a line.

The rmsweb CLI (`--agent hf:DIR`) starts this process and sends the same system and user messages
LlmAgent sends any chat model - the prompt the exports were rendered with - so the student sees at
inference the prompt it learned from. Request: {"id", "messages", "max_tokens", "temperature",
"seed"}; reply: {"id", "text", "prompt_tokens", "completion_tokens", "finish_reason"} or
{"id", "error"}. The first line written is {"ready": true, ...}.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import torch

from .data import Chat, _text
from .lm import load_model, prompt_ids, sample, setup_dist, stop_ids


def _chat(messages: list[dict[str, Any]]) -> Chat:
    system = "\n".join(_text(m["content"]) for m in messages if m.get("role") == "system")
    user = "\n".join(_text(m["content"]) for m in messages if m.get("role") == "user")
    return Chat(system, user)


@torch.no_grad()
def generate(model: Any, tok: Any, req: dict[str, Any], max_prompt: int, stops: set[int], device) -> dict[str, Any]:
    p = prompt_ids(tok, _chat(req["messages"]), max_prompt)
    max_new = int(req.get("max_tokens") or 512)
    temp = float(req.get("temperature") or 0)
    if temp <= 0:
        # greedy: the most likely reply
        ids = torch.tensor([p], device=device)
        out: list[int] = []
        past = None
        step = ids
        for _ in range(max_new):
            r = model(input_ids=step, past_key_values=past, use_cache=True)
            past = r.past_key_values
            nxt = int(r.logits[0, -1].argmax())
            out.append(nxt)
            if nxt in stops:
                break
            step = torch.tensor([[nxt]], device=device)
    else:
        g = torch.Generator().manual_seed(int(req.get("seed") or 0))
        out = sample(model, p, 1, temperature=temp, max_new_tokens=max_new, stops=stops, generator=g, device=device)[0]
    finished = bool(out) and out[-1] in stops
    return {
        "id": req.get("id"),
        "text": tok.decode(out, skip_special_tokens=True),
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
    print(json.dumps({"ready": True, "model": path, "device": str(dist.device)}), flush=True)
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
