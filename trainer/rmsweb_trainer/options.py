"""The options table shared with the TypeScript trainers: src/rl/options.json, read by
src/rl/options.ts too, so every default of the PyTorch trainer is the TS implementation's default.

Each section has a typed dataclass below. At import the JSON table is checked against them, both
ways: a key the JSON has and the dataclass lacks (a misspelling), a key the dataclass wants and the
JSON lacks, or a value of the wrong type fails at once, naming the file, section and key. Overrides
(`defaults(section, **kw)`, the CLI's `--set KEY=VALUE`) are checked the same way.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_type_hints

#: Where the table lives: the repository's src/rl/options.json (override with RMSWEB_OPTIONS).
OPTIONS_FILE = Path(
    os.environ.get("RMSWEB_OPTIONS") or Path(__file__).resolve().parents[2] / "src" / "rl" / "options.json"
)


@dataclass(frozen=True)
class SalvageDSOptions:
    steps: int
    batchSize: int
    groupSize: int
    temperature: float
    lr: float
    clipEps: float
    beta: float
    betaBrake: float
    contrastDelta: float
    competenceTau: float
    salvage: bool
    updateEpochs: int
    seed: int


@dataclass(frozen=True)
class GRPOOptions:
    steps: int
    batchSize: int
    groupSize: int
    temperature: float
    lr: float
    clipEps: float
    beta: float
    updateEpochs: int
    seed: int


@dataclass(frozen=True)
class DAPOOptions:
    steps: int
    batchSize: int
    groupSize: int
    temperature: float
    lr: float
    clipLow: float
    clipHigh: float
    maxRefills: int
    updateEpochs: int
    seed: int


@dataclass(frozen=True)
class SFTOptions:
    epochs: int
    batchSize: int
    lr: float
    seed: int
    valFrac: float


@dataclass(frozen=True)
class PolarizedOptions:
    power: float


@dataclass(frozen=True)
class TorchOptions:
    """What only the LM trainer has. `rlLr` is the RL learning rate of a causal LM (full fine-tuning):
    the RL sections' `lr` (1e-3) is the tfjs student's, far too large for a pretrained LM, where Adam
    moves every weight by about lr per step; GRPO (DeepSeekMath) and DAPO train at 1e-6.
    `gradientCheckpointing` trades a second forward pass for activation memory: off by default (TRL's
    GRPOConfig has it on), as a small model on a CPU has memory to spare and no time to spare."""

    maxNewTokens: int
    maxPromptTokens: int
    lora: bool
    loraRank: int
    loraAlpha: float
    loraDropout: float
    loraLayers: int
    microBatch: int
    rlLr: float
    maxGradNorm: float
    gradientCheckpointing: bool


SECTIONS: dict[str, type] = {
    "salvage-ds": SalvageDSOptions,
    "grpo": GRPOOptions,
    "dapo": DAPOOptions,
    "sft": SFTOptions,
    "polarized": PolarizedOptions,
    "torch": TorchOptions,
}
#: The sections the RL trainers read (each merged with the torch section).
RL_SECTIONS = ("salvage-ds", "grpo", "dapo")


def _check_value(where: str, key: str, value: Any, want: Any) -> Any:
    """The value, if its JSON type fits the field's (an int is accepted for a float)."""
    want = {"int": int, "float": float, "bool": bool}.get(want, want)
    ok = (
        isinstance(value, bool)
        if want is bool
        else isinstance(value, int) and not isinstance(value, bool)
        if want is int
        else isinstance(value, (int, float)) and not isinstance(value, bool)
    )
    if not ok:
        raise ValueError(f"{where}: option {key} must be {want.__name__}, got {value!r}")
    return float(value) if want is float else value


def _check_section(name: str, values: dict[str, Any], where: str) -> dict[str, Any]:
    cls = SECTIONS[name]
    hints = get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ValueError(f"{where}: unknown {name} option(s): {', '.join(unknown)} (known: {', '.join(fields)})")
    missing = [f for f in fields if f not in values]
    if missing:
        raise ValueError(f"{where}: {name} option(s) missing: {', '.join(missing)}")
    return {k: _check_value(where, f"{name}.{k}", values[k], hints[k]) for k in fields}


def _load() -> dict[str, Any]:
    try:
        table = json.loads(OPTIONS_FILE.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise RuntimeError(
            f"rmsweb options table not found at {OPTIONS_FILE}; run the trainer from an rmsweb checkout "
            "or set RMSWEB_OPTIONS to src/rl/options.json"
        ) from e
    table = {k: v for k, v in table.items() if not k.startswith("$")}
    unknown = sorted(set(table) - set(SECTIONS))
    if unknown:
        raise ValueError(f"{OPTIONS_FILE}: unknown section(s) {', '.join(unknown)}")
    return {name: _check_section(name, table.get(name, {}), str(OPTIONS_FILE)) for name in SECTIONS}


#: The checked table: {section: {key: value}}.
OPTIONS: dict[str, Any] = _load()


def defaults(section: str, **overrides: Any) -> dict[str, Any]:
    """A section's defaults plus the torch-only ones, with the given overrides (None keeps a default).
    An unknown key or a value of the wrong type raises ValueError naming it. For the RL sections the
    learning rate defaults to torch.rlLr (see TorchOptions), not the tfjs student's lr."""
    base = {**OPTIONS["torch"], **OPTIONS[section]}
    if section in RL_SECTIONS:
        base["lr"] = OPTIONS["torch"]["rlLr"]
    unknown = sorted(set(overrides) - set(base))
    if unknown:
        raise ValueError(f"unknown {section} option(s): {', '.join(unknown)}")
    hints = {**get_type_hints(TorchOptions), **get_type_hints(SECTIONS[section])}
    for k, v in overrides.items():
        if v is not None:
            base[k] = _check_value("option", k, v, hints[k])
    return base


def typed(section: str, **overrides: Any) -> tuple[Any, TorchOptions]:
    """The section's options and the torch options as dataclasses (defaults + overrides)."""
    o = defaults(section, **overrides)
    cls = SECTIONS[section]
    mine = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: o[k] for k in mine}), TorchOptions(**{k: o[k] for k in o if k not in mine})
