"""Reading rmsweb's exports: SFT JSONL in TRL form (`rmsweb export sft --format trl`) and critical
states as verl parquet or JSONL (`rmsweb export rl`). Text-only causal LMs read the text of each
message; image parts and `<image>` placeholders are dropped (a VLM trainer would keep them)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .reward import Action, Observation, from_browser_use


class InputError(ValueError):
    """Bad input data: the message names the file, line and field. The CLI exits 2 on it, printing
    `error: OPTION: MESSAGE` when the error belongs to a command-line option (the rmsweb CLI reads
    the option back from that line), else `error: MESSAGE`."""

    option: str | None = None

    def __init__(self, message: str, option: str | None = None):
        super().__init__(message)
        if option is not None:
            self.option = option


class ModelError(InputError):
    """`--model` is not a model this trainer can load: the message names the file and why."""

    option = "--model"


def check_model_path(path: str | Path) -> Path:
    """Checks `--model` before anything is read or written: a Hugging Face folder whose config.json
    is a JSON object naming a model_type, or a .gguf file (its first bytes are GGUF's magic)."""
    p = Path(path)
    if not p.exists():
        raise ModelError(f"{p}: no such file or folder")
    if p.is_dir():
        cfg = p / "config.json"
        if not cfg.is_file():
            raise ModelError(f"{p}: not a Hugging Face model folder (no config.json) nor a .gguf file")
        try:
            conf = json.loads(cfg.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ModelError(f"{cfg}: not valid JSON ({getattr(e, 'msg', e)})") from None
        if not isinstance(conf, dict) or not isinstance(conf.get("model_type"), str):
            raise ModelError(f"{cfg}: field model_type is missing (not a transformers model config)")
        return p
    with p.open("rb") as f:
        magic = f.read(4)
    if magic != b"GGUF":
        raise ModelError(f"{p}: not a GGUF file (it does not start with GGUF) nor a Hugging Face model folder")
    return p


@dataclass
class Chat:
    """A prompt (system + user text) and, for SFT, the assistant's reply."""

    system: str
    user: str
    assistant: str | None = None


@dataclass
class RlExample:
    """One critical state: its prompt, the ground-truth action, and the observation the reward
    resolves element indices in (empty when the export carries none: then only indices compare)."""

    chat: Chat
    truth: Action
    truth_wire: str
    observation: Observation = field(default_factory=dict)
    id: str = ""


IMAGE_PLACEHOLDER = "<image>"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.replace(f"\n{IMAGE_PLACEHOLDER}", "").replace(IMAGE_PLACEHOLDER, "")
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    raise TypeError("content must be a string or a list of parts")


def _chat(messages: Any, where: str) -> Chat:
    if not isinstance(messages, list) or not messages:
        raise InputError(f"{where}: field messages/prompt must be a non-empty list")
    by_role: dict[str, str] = {}
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant"):
            raise InputError(f"{where}: field messages[{i}].role must be system, user or assistant")
        try:
            by_role[m["role"]] = _text(m.get("content"))
        except TypeError as e:
            raise InputError(f"{where}: field messages[{i}].content: {e}") from None
    if "user" not in by_role:
        raise InputError(f"{where}: no user message")
    return Chat(system=by_role.get("system", ""), user=by_role["user"], assistant=by_role.get("assistant"))


def _jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if not path.exists():
        raise InputError(f"{path}: no such file")
    rows = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{n}: invalid JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise InputError(f"{path}:{n}: a row must be a JSON object")
            rows.append((n, row))
    return rows


def load_sft(path: str | Path) -> list[Chat]:
    """TRL conversational rows: system, user and assistant messages (the assistant is the target)."""
    p = Path(path)
    out = []
    for n, row in _jsonl(p):
        chat = _chat(row.get("messages"), f"{p}:{n}")
        if not chat.assistant:
            raise InputError(f"{p}:{n}: field messages has no assistant reply to train on")
        out.append(chat)
    if not out:
        raise InputError(f"{p}: no SFT rows")
    return out


def _rl_example(row: dict[str, Any], where: str) -> RlExample:
    chat = _chat(row.get("prompt"), where)
    rm = row.get("reward_model")
    gt = rm.get("ground_truth") if isinstance(rm, dict) else None
    if not isinstance(gt, str):
        raise InputError(f"{where}: field reward_model.ground_truth must be a JSON string")
    try:
        truth = from_browser_use(json.loads(gt))
    except json.JSONDecodeError:
        truth = None
    if truth is None:
        raise InputError(f"{where}: field reward_model.ground_truth is not a valid Browser Use action: {gt}")
    extra = row.get("extra_info") if isinstance(row.get("extra_info"), dict) else {}
    obs = extra.get("observation") if isinstance(extra.get("observation"), dict) else {}
    if isinstance(obs.get("elements"), str):  # parquet stores the nested observation as JSON text
        obs = {**obs, "elements": json.loads(obs["elements"])}
    return RlExample(chat=chat, truth=truth, truth_wire=gt, observation=obs, id=str(extra.get("critical_state_id", "")))


def load_rl(path: str | Path) -> list[RlExample]:
    """Critical states from `rmsweb export rl`: verl parquet (.parquet) or JSONL (anything else)."""
    p = Path(path)
    if p.suffix == ".parquet":
        if not p.exists():
            raise InputError(f"{p}: no such file")
        import pyarrow.parquet as pq

        rows = pq.read_table(p).to_pylist()
        out = [_rl_example(r, f"{p}:row {i + 1}") for i, r in enumerate(rows)]
    else:
        out = [_rl_example(r, f"{p}:{n}") for n, r in _jsonl(p)]
    if not out:
        raise InputError(f"{p}: no critical states")
    return out


def truth_completion(example: RlExample) -> str:
    """The assistant reply the salvage loss trains on: an AgentOutput whose only content is the
    ground-truth action, serialized as the SFT export serializes replies (compact JSON, same keys)."""
    return (
        '{"evaluation_previous_goal":"","memory":"","next_goal":"","action":['
        + json.dumps(json.loads(example.truth_wire), separators=(",", ":"), ensure_ascii=False)
        + "]}"
    )
