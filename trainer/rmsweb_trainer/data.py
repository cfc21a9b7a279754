"""Reading rmsweb's exports: SFT JSONL in TRL form (`rmsweb export sft --format trl`) and critical
states as verl parquet or JSONL (`rmsweb export rl`). Text-only causal LMs read the text of each
message; image parts and `<image>` placeholders are dropped (a VLM trainer would keep them).

Both also come in the plain "lm" layout of a pretrained base model without a chat template
(src/agent/lm-prompt.ts): `export sft --format lm` rows are TRL's standard prompt-completion rows
(`prompt` and `completion` strings), `export rl --format lm` rows carry the prompt as one string and
the gold reply as `extra_info.completion`. A `Chat` with `text` set is such a prompt."""

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
    """A prompt (system + user text) and, for SFT, the assistant's reply. In the lm layout `text` is
    the whole prompt as one plain string (system and user are then unused): it is tokenized as is,
    after the tokenizer's BOS, with no chat template, exactly as the student is prompted."""

    system: str
    user: str
    assistant: str | None = None
    text: str | None = None

    @property
    def is_lm(self) -> bool:
        """Whether this is a plain-text prompt of the lm layout (no chat template)."""
        return self.text is not None


@dataclass
class RlExample:
    """One critical state: its prompt, the ground-truth action, and the observation the reward
    resolves element indices in (empty when the export carries none: then only indices compare)."""

    chat: Chat
    truth: Action
    truth_wire: str
    observation: Observation = field(default_factory=dict)
    id: str = ""
    #: lm layout: the gold reply exactly as `export sft --format lm` writes it (`lmActionText`)
    completion: str | None = None
    #: lm layout: the renderer's budget the prompt was written with (`--prompt-tokens`)
    prompt_tokens: int | None = None


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


def _layout_guard(p: Path) -> Any:
    """Checks that a file keeps one layout: returns check(is_lm, where), which raises InputError on
    the first row whose layout differs from the file's first row (one student, one prompt format)."""
    first: list[tuple[bool, int | str]] = []

    def check(is_lm: bool, where: int | str) -> None:
        if not first:
            first.append((is_lm, where))
        elif first[0][0] != is_lm:
            names = {True: "lm (plain prompt text)", False: "conversational (chat messages)"}
            raise InputError(
                f"{p}:{where}: row is in the {names[is_lm]} layout but row {first[0][1]} is "
                f"{names[first[0][0]]}: one file holds one layout"
            )

    return check


def _lm_sft(row: dict[str, Any], where: str) -> Chat:
    prompt, completion = row.get("prompt"), row.get("completion")
    if not prompt:
        raise InputError(f"{where}: field prompt must be a non-empty string")
    if not isinstance(completion, str) or not completion:
        raise InputError(f"{where}: field completion must be a non-empty string (the reply to train on)")
    return Chat("", "", completion, text=prompt)


def sft_file(path: str | Path) -> Path:
    """The JSONL an SFT `--data` names: the file itself, or an export folder's train.jsonl."""
    p = Path(path)
    return p / "train.jsonl" if p.is_dir() else p


def load_sft(path: str | Path) -> list[Chat]:
    """TRL conversational rows (system, user and assistant messages; the assistant is the target), or
    TRL's standard prompt-completion rows of the lm layout (`export sft --format lm`: `prompt` and
    `completion` strings). `path` may be the export folder (its train.jsonl is read)."""
    p = sft_file(path)
    out = []
    check = _layout_guard(p)
    for n, row in _jsonl(p):
        if isinstance(row.get("prompt"), str):
            chat = _lm_sft(row, f"{p}:{n}")
        else:
            chat = _chat(row.get("messages"), f"{p}:{n}")
            if not chat.assistant:
                raise InputError(f"{p}:{n}: field messages has no assistant reply to train on")
        check(chat.is_lm, n)
        out.append(chat)
    if not out:
        raise InputError(f"{p}: no SFT rows")
    return out


def _rl_example(row: dict[str, Any], where: str) -> RlExample:
    prompt = row.get("prompt")
    extra = row.get("extra_info") if isinstance(row.get("extra_info"), dict) else {}
    completion = None
    if isinstance(prompt, str):
        # the lm layout: the prompt is the student's plain text, the anchor target its SFT reply
        if not prompt:
            raise InputError(f"{where}: field prompt must be a non-empty string")
        if extra.get("layout") != "lm":
            raise InputError(f'{where}: field extra_info.layout must be "lm" for a plain-text prompt')
        completion = extra.get("completion")
        if not isinstance(completion, str) or not completion:
            raise InputError(
                f"{where}: field extra_info.completion (the gold reply in the lm layout) must be a non-empty "
                "string; export the rows with `rmsweb export rl --format lm`"
            )
        chat = Chat("", "", text=prompt)
    else:
        chat = _chat(prompt, where)
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
    obs = extra.get("observation") if isinstance(extra.get("observation"), dict) else {}
    if isinstance(obs.get("elements"), str):  # parquet stores the nested observation as JSON text
        obs = {**obs, "elements": json.loads(obs["elements"])}
    return RlExample(
        chat=chat,
        truth=truth,
        truth_wire=gt,
        observation=obs,
        id=str(extra.get("critical_state_id", "")),
        completion=completion,
        prompt_tokens=extra.get("promptTokens") if isinstance(extra.get("promptTokens"), int) else None,
    )


def load_rl(path: str | Path) -> list[RlExample]:
    """Critical states from `rmsweb export rl`: verl parquet (.parquet) or JSONL (anything else)."""
    p = Path(path)
    if p.suffix == ".parquet":
        if not p.exists():
            raise InputError(f"{p}: no such file")
        import pyarrow.parquet as pq

        rows = [(f"row {i + 1}", r) for i, r in enumerate(pq.read_table(p).to_pylist())]
    else:
        rows = list(_jsonl(p))
    out = []
    check = _layout_guard(p)
    for n, r in rows:
        ex = _rl_example(r, f"{p}:{n}")
        check(ex.chat.is_lm, n)
        out.append(ex)
    if not out:
        raise InputError(f"{p}: no critical states")
    return out


def truth_completion(example: RlExample) -> str:
    """The assistant reply the salvage loss trains on: an AgentOutput whose only content is the
    ground-truth action, serialized as the SFT export serializes replies (compact JSON, same keys).
    In the lm layout it is the row's own gold reply, written by the TS exporter with the very
    function `export sft --format lm` writes completions with, so the anchor is SFT's target."""
    if example.chat.is_lm:
        assert example.completion is not None  # load_rl refuses an lm row without it
        return example.completion
    return (
        '{"evaluation_previous_goal":"","memory":"","next_goal":"","action":['
        + json.dumps(json.loads(example.truth_wire), separators=(",", ":"), ensure_ascii=False)
        + "]}"
    )


def layout_meta(data: str | Path, model: str | Path, rows: list[Chat] | list[RlExample]) -> dict[str, Any]:
    """What a checkpoint's rmsweb-trainer.json says of its prompt layout: {} for chat rows; for the lm
    layout {"layout": "lm", "promptTokens": N}, N read from the rows (RL), the SFT export's
    export.json beside its train.jsonl, or else the starting checkpoint's own record (RL from SFT)."""
    first = rows[0] if rows else None
    chat = first.chat if isinstance(first, RlExample) else first
    if chat is None or not chat.is_lm:
        return {}
    tokens = first.prompt_tokens if isinstance(first, RlExample) else None
    for record, key in (
        (sft_file(data).parent / "export.json", "promptTokens"),
        (Path(model) / "rmsweb-trainer.json", "promptTokens"),
    ):
        if tokens is None and record.is_file():
            try:
                v = json.loads(record.read_text(encoding="utf-8")).get(key)
            except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
                v = None
            tokens = v if isinstance(v, int) else None
    return {"layout": "lm", **({"promptTokens": tokens} if tokens is not None else {})}
