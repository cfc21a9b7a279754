"""The three rewards of rmsweb (polarized, exact, text-similarity), ported from src/rl/reward and
src/core/action-equivalence.ts. Both implementations are held to one fixture table
(src/rl/reward/near-miss.json), so they cannot drift apart.

An action is the internal form, a dict ``{"type": ..., **params}``; an observation is a dict with
``url`` and ``elements`` (each with index, tag, role, name, text, attributes, nodeKey, parentIndex).
A sample that could not be parsed is ``None``.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import regex

from .options import OPTIONS

Action = dict[str, Any]
Observation = dict[str, Any]
RewardFn = Callable[[Action | None, Action, Observation], float]

# ------------------------------------------------------------------------------ action schema

# Parameter defaults of each action (src/core/action.ts ACTION_PARAMS); None = required.
ACTION_PARAMS: dict[str, dict[str, Any]] = {
    "navigate": {"url": None, "new_tab": False},
    "go_back": {},
    "wait": {"seconds": 1},
    "click": {"index": None},
    "input": {"index": None, "text": None, "clear": True},
    "select_dropdown": {"index": None, "text": None},
    "scroll": {"down": True, "pages": 1, "index": ...},  # ... = optional, no default
    "send_keys": {"keys": None},
    "switch_tab": {"tab_id": None},
    "close_tab": {"tab_id": None},
    "done": {"text": "", "success": True},
}

_TYPES: dict[str, Any] = {
    "url": str,
    "new_tab": bool,
    "seconds": (int, float),
    "index": int,
    "text": str,
    "clear": bool,
    "down": bool,
    "pages": (int, float),
    "keys": str,
    "tab_id": str,
    "success": bool,
}


def normalize_action(a: Any) -> Action | None:
    """An internal action with its defaults applied, or None when it is not a valid action."""
    if not isinstance(a, dict) or a.get("type") not in ACTION_PARAMS:
        return None
    spec = ACTION_PARAMS[a["type"]]
    out: Action = {"type": a["type"]}
    for key, default in spec.items():
        v = a.get(key)
        if v is None:
            if default is None and not (key == "index" and a["type"] == "scroll"):
                return None
            if default is not ...:
                out[key] = default
            elif key in a:
                out[key] = None
            continue
        want = _TYPES[key]
        if isinstance(v, bool) and want is not bool:
            return None
        if not isinstance(v, want):
            return None
        if key == "index" and (v < 0):
            return None
        if key in ("url", "keys", "tab_id") and v == "":
            return None
        out[key] = v
    if out["type"] == "wait" and not (0 <= out["seconds"] <= 30):
        return None
    if out["type"] == "scroll" and not (0.1 <= out["pages"] <= 10):
        return None
    return out


def from_browser_use(obj: Any) -> Action | None:
    """Browser Use's ``{"click": {"index": 3}}`` as an internal action, or None when invalid."""
    if not isinstance(obj, dict) or len(obj) != 1:
        return None
    name, params = next(iter(obj.items()))
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return None
    return normalize_action({**params, "type": name})


def to_browser_use(a: Action) -> dict[str, Any]:
    params = {k: v for k, v in a.items() if k != "type"}
    return {a["type"]: params}


def parse_completion(text: str) -> Action | None:
    """The first action of a generated AgentOutput (the JSON reply the prompt asks for), or None.

    Like LlmAgent, only the first action counts. A reply with text around the JSON object is accepted
    (the outermost {...} is parsed); anything else is a parse failure. A bare Browser Use action
    object (`{"click": {"index": 3}}`, the lm layout's reply) is that action.
    """
    start = text.find("{")
    end = text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        obj = json.loads(text[start : end + 1])
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    if "action" not in obj and len(obj) == 1:
        return from_browser_use(obj)
    actions = obj.get("action")
    if not isinstance(actions, list) or not actions:
        return None
    return from_browser_use(actions[0])


def parse_lm_completion(text: str) -> Action | None:
    """The lm layout's reply as LmAgent reads it (parseLmAction in src/agent/lm-prompt.ts): the first
    balanced JSON object in the text, as a Browser Use action (`{"click":{"index":3}}`); None when
    there is none or it is not a valid action. What follows the object is ignored, as at inference."""
    start = text.find("{")
    if start < 0:
        return None
    depth, in_string, i = 0, False, start
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                try:
                    obj = json.loads(text[start : i + 1])
                except (json.JSONDecodeError, RecursionError):
                    return None
                return from_browser_use(obj)
        i += 1
    return None


# ------------------------------------------------------------------------------------------ text

_TOKEN_RE = regex.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?|[\p{L}\p{N}]+")
_THOUSANDS_RE = regex.compile(r"^[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?$")


def _canonical_number(tok: str) -> list[str]:
    parts = [tok.replace(",", "")] if _THOUSANDS_RE.match(tok) else [p for p in tok.split(",") if p]
    out = []
    for p in parts:
        if "." not in p:
            out.append(p)
            continue
        trimmed = p.rstrip("0")
        if trimmed.endswith("."):
            trimmed = trimmed[:-1]
        out.append(trimmed if trimmed else "0")
    return out


def text_tokens(s: str) -> list[str]:
    lowered = unicodedata.normalize("NFKC", s).lower()
    lowered = regex.sub(r"['\u2019`]", "", lowered)
    out: list[str] = []
    for m in _TOKEN_RE.finditer(lowered):
        tok = m.group(0)
        if tok[0].isascii() and tok[0].isdigit():
            out.extend(_canonical_number(tok))
        else:
            out.append(tok)
    return out


def normalize_text(s: str) -> str:
    return " ".join(text_tokens(s))


def argument_similarity(a: str, b: str) -> float:
    """Token F1 of two text arguments on normalized text, in [0, 1]."""
    ta, tb = text_tokens(a), text_tokens(b)
    if not ta and not tb:
        return 1.0
    if not ta or not tb:
        return 0.0
    counts: dict[str, int] = {}
    for t in ta:
        counts[t] = counts.get(t, 0) + 1
    common = 0
    for t in tb:
        c = counts.get(t, 0)
        if c > 0:
            common += 1
            counts[t] = c - 1
    if common == 0:
        return 0.0
    precision = common / len(tb)
    recall = common / len(ta)
    return 2 * precision * recall / (precision + recall)


# ------------------------------------------------------------------------------------------- URLs

_TRACKING = regex.compile(r"^(utm_.*|fbclid|gclid|msclkid|mc_eid|ref_src|_ga)$", regex.I)


def normalize_url(url: str, base: str | None = None) -> str:
    raw = url.strip()
    if raw in ("", "#") or regex.match(r"^javascript:", raw, regex.I):
        return ""
    b = base if base and regex.match(r"^[a-z][a-z0-9+.-]*:", base, regex.I) else "http://relative.invalid/"
    try:
        u = urlsplit(urljoin(b, raw))
    except ValueError:
        return raw.lower()
    host = u.netloc.lower()
    if host.startswith("www."):
        host = host[4:]
    path = u.path.rstrip("/") or "/"
    params = [(k, v) for k, v in parse_qsl(u.query, keep_blank_values=True) if not _TRACKING.match(k)]
    params.sort()
    query = f"?{urlencode(params)}" if params else ""
    return f"{host}{path}{query}"


# --------------------------------------------------------------------------------------- elements

_TARGET_TAGS = {"a", "button", "input", "select", "textarea", "option", "summary"}
_TARGET_ROLES = {
    "link", "button", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "option", "switch", "combobox", "textbox", "searchbox", "treeitem",
}  # fmt: skip


def _el(e: dict[str, Any]) -> dict[str, Any]:
    """An element with its schema defaults (src/core/observation.ts)."""
    return {
        "role": "",
        "name": "",
        "text": "",
        "attributes": {},
        "parentIndex": None,
        **{k: v for k, v in e.items() if v is not None or k == "parentIndex"},
    }


def element_at(obs: Observation, index: int) -> dict[str, Any] | None:
    for e in obs.get("elements", []):
        if e.get("index") == index:
            return _el(e)
    return None


def is_click_target(e: dict[str, Any]) -> bool:
    return e["tag"].lower() in _TARGET_TAGS or e["role"].lower() in _TARGET_ROLES


def _ancestors(e: dict[str, Any], obs: Observation) -> list[dict[str, Any]]:
    out, seen, p = [], {e["index"]}, e["parentIndex"]
    while p is not None and p not in seen:
        parent = element_at(obs, p)
        if parent is None:
            break
        out.append(parent)
        seen.add(p)
        p = parent["parentIndex"]
    return out


def click_target(e: dict[str, Any], obs: Observation) -> dict[str, Any]:
    if is_click_target(e):
        return e
    for a in _ancestors(e, obs):
        if is_click_target(a):
            return a
    return e


def _bubbles_to(desc: dict[str, Any], anc: dict[str, Any], obs: Observation) -> bool:
    if is_click_target(desc):
        return False
    for a in _ancestors(desc, obs):
        if a["index"] == anc["index"]:
            return True
        if is_click_target(a):
            return False
    return False


def _href_of(e: dict[str, Any], obs: Observation) -> str:
    t = click_target(e, obs)
    href = t["attributes"].get("href") or e["attributes"].get("href") or ""
    return normalize_url(href, obs.get("url")) if href else ""


def elements_equivalent(a: dict[str, Any] | None, b: dict[str, Any] | None, obs: Observation) -> bool:
    """Equivalence of two elements of one observation (sameObservationEquivalent in TS)."""
    if a is None or b is None:
        return False
    if a["index"] == b["index"] or a["nodeKey"] == b["nodeKey"]:
        return True
    if _bubbles_to(a, b, obs) or _bubbles_to(b, a, obs):
        return True
    ta, tb = click_target(a, obs), click_target(b, obs)
    if ta["index"] == tb["index"] and is_click_target(ta):
        return True
    ha = _href_of(a, obs)
    return ha != "" and ha == _href_of(b, obs)


def _same_element(obs: Observation, i: int, j: int) -> bool:
    # Without elements (an export that carries no observation) only the index can tell.
    if not obs.get("elements"):
        return i == j
    return elements_equivalent(element_at(obs, i), element_at(obs, j), obs)


# ---------------------------------------------------------------------------------------- actions

_KEY_ALIASES = {"ctrl": "control", "cmd": "meta", "command": "meta", "return": "enter", "esc": "escape",
                "del": "delete", "option": "alt"}  # fmt: skip


def _normalize_keys(keys: str) -> str:
    return " ".join(
        "+".join(_KEY_ALIASES.get(k.strip().lower(), k.strip().lower()) for k in combo.split("+"))
        for combo in keys.split()
    )


def actions_equivalent(a: Action, b: Action, obs: Observation) -> bool:
    t = a["type"]
    if b["type"] != t:
        return False
    if t == "click":
        return _same_element(obs, a["index"], b["index"])
    if t in ("input", "select_dropdown"):
        return _same_element(obs, a["index"], b["index"]) and normalize_text(a["text"]) == normalize_text(b["text"])
    if t == "scroll":
        if a["down"] != b["down"]:
            return False
        ia, ib = a.get("index"), b.get("index")
        return ia is None or ib is None or _same_element(obs, ia, ib)
    if t == "navigate":
        return normalize_url(a["url"], obs.get("url")) == normalize_url(b["url"], obs.get("url"))
    if t in ("go_back", "wait"):
        return True
    if t == "send_keys":
        return _normalize_keys(a["keys"]) == _normalize_keys(b["keys"])
    if t in ("switch_tab", "close_tab"):
        return a["tab_id"] == b["tab_id"]
    if t == "done":
        return a["success"] == b["success"] and normalize_text(a["text"]) == normalize_text(b["text"])
    return False


# --------------------------------------------------------------------------------------- rewards


def polarize(s: float, power: float = OPTIONS["polarized"]["power"]) -> float:
    """r = sign(2s - 1) * |2s - 1|^p: partial credit pushed away from the middle."""
    x = 2 * min(1.0, max(0.0, s)) - 1
    return math.copysign(abs(x) ** power, x) if x != 0 else 0.0


def _text_argument(a: Action) -> str | None:
    t = a["type"]
    if t in ("input", "select_dropdown", "done"):
        return a["text"]
    if t == "navigate":
        return a["url"]
    if t == "send_keys":
        return a["keys"]
    return None


def _wrong_target(s: Action, t: Action, obs: Observation) -> bool:
    if s["type"] != t["type"]:
        return True
    if s["type"] == "scroll":
        if s["down"] != t["down"]:
            return True
        si, ti = s.get("index"), t.get("index")
        return si is not None and ti is not None and not _same_element(obs, si, ti)
    if s["type"] in ("click", "input", "select_dropdown"):
        return not _same_element(obs, s["index"], t["index"])
    if s["type"] in ("switch_tab", "close_tab"):
        return s["tab_id"] != t["tab_id"]
    if s["type"] == "done":
        return s["success"] != t["success"]
    return False


def polarized_reward(power: float = OPTIONS["polarized"]["power"]) -> RewardFn:
    """-1 for a wrong type/element/direction/tab/outcome or a parse failure, +1 for semantically equal
    actions, polarize(argument similarity) for the right target with partly right text."""
    if not (0 < power <= 1):
        raise ValueError(f"polarized reward power must be in (0, 1], got {power}")

    def reward(sampled: Action | None, truth: Action, obs: Observation) -> float:
        if sampled is None:
            return -1.0
        s, t = normalize_action(sampled), normalize_action(truth)
        if s is None or t is None:
            return -1.0
        if _wrong_target(s, t, obs):
            return -1.0
        if actions_equivalent(s, t, obs):
            return 1.0
        a, b = _text_argument(s), _text_argument(t)
        if a is None or b is None:
            return -1.0
        return polarize(argument_similarity(b, a), power)

    return reward


def _canonical(v: Any) -> str:
    if isinstance(v, dict):
        items = sorted(v.items())
        return "{" + ",".join(f"{json.dumps(k)}:{_canonical(x)}" for k, x in items) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_canonical(x) for x in v) + "]"
    return _js_json(v)


def _js_json(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _js_number(v)
    return json.dumps(v, ensure_ascii=False)


def _js_number(x: float) -> str:
    """A number as JavaScript prints it (1.0 -> "1", 0.5 -> "0.5")."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


def exact_reward(sampled: Action | None, truth: Action, obs: Observation) -> float:
    """1 when the sampled action is structurally identical to the truth (defaults applied), else 0."""
    if sampled is None:
        return 0.0
    s, t = normalize_action(sampled), normalize_action(truth)
    if s is None or t is None:
        return 0.0
    return 1.0 if _canonical(s) == _canonical(t) else 0.0


def format_action(a: Action) -> str:
    """The compact form of src/core/action.ts formatAction, e.g. ``click(12)``."""
    t, j = a["type"], lambda s: json.dumps(s, ensure_ascii=False)
    if t == "navigate":
        return f"navigate({j(a['url'])})"
    if t == "go_back":
        return "go_back()"
    if t == "wait":
        return f"wait({_js_number(a['seconds'])})"
    if t == "click":
        return f"click({a['index']})"
    if t == "input":
        return f"input({a['index']}, {j(a['text'])})"
    if t == "select_dropdown":
        return f"select_dropdown({a['index']}, {j(a['text'])})"
    if t == "scroll":
        return f"scroll({'down' if a['down'] else 'up'}, {_js_number(a['pages'])})"
    if t == "send_keys":
        return f"send_keys({j(a['keys'])})"
    if t in ("switch_tab", "close_tab"):
        return f"{t}({a['tab_id']})"
    return f"done({'true' if a['success'] else 'false'}, {j(a['text'])})"


def describe_action(a: Action, obs: Observation) -> str:
    base = format_action(a)
    if a.get("index") is None:
        return base
    el = element_at(obs, a["index"])
    if el is None:
        return base
    return f"{base} <{el['tag']}> {el['name'] or el['text']}".strip()


def _trigrams(s: str) -> dict[str, int]:
    t = " " + regex.sub(r"\s+", " ", s.lower()).strip() + " "
    out: dict[str, int] = {}
    for i in range(len(t) - 2):
        g = t[i : i + 3]
        out[g] = out.get(g, 0) + 1
    return out


def trigram_similarity(a: str, b: str) -> float:
    ta, tb = _trigrams(a), _trigrams(b)
    na, nb = sum(ta.values()), sum(tb.values())
    common = sum(min(c, tb.get(g, 0)) for g, c in ta.items())
    return 1.0 if na + nb == 0 else 2 * common / (na + nb)


def textsim_reward(sampled: Action | None, truth: Action, obs: Observation) -> float:
    """Trigram Dice similarity of the two described actions, in [0, 1]; 0 for a parse failure."""
    if sampled is None:
        return 0.0
    s, t = normalize_action(sampled), normalize_action(truth)
    if s is None or t is None:
        return 0.0
    return trigram_similarity(describe_action(s, obs), describe_action(t, obs))


REWARD_NAMES = ("polarized", "exact", "textsim")


def reward_by_name(name: str) -> RewardFn:
    if name == "polarized":
        return polarized_reward()
    if name == "exact":
        return exact_reward
    if name == "textsim":
        return textsim_reward
    raise ValueError(f'unknown reward "{name}"; expected one of {", ".join(REWARD_NAMES)}')
