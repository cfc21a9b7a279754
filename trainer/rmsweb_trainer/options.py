"""The options table shared with the TypeScript trainers: src/rl/options.json, read by
src/rl/options.ts too, so every default of the PyTorch trainer is the TS implementation's default."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

#: Where the table lives: the repository's src/rl/options.json (override with RMSWEB_OPTIONS).
OPTIONS_FILE = Path(
    os.environ.get("RMSWEB_OPTIONS") or Path(__file__).resolve().parents[2] / "src" / "rl" / "options.json"
)


def _load() -> dict[str, Any]:
    try:
        table = json.loads(OPTIONS_FILE.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise RuntimeError(
            f"rmsweb options table not found at {OPTIONS_FILE}; run the trainer from an rmsweb checkout "
            "or set RMSWEB_OPTIONS to src/rl/options.json"
        ) from e
    return {k: v for k, v in table.items() if not k.startswith("$")}


OPTIONS: dict[str, Any] = _load()


def defaults(section: str, **overrides: Any) -> dict[str, Any]:
    """A section's defaults (plus the torch-only ones) with the given overrides; None keeps a default."""
    base = {**OPTIONS["torch"], **OPTIONS[section]}
    unknown = set(overrides) - set(base)
    if unknown:
        raise ValueError(f"unknown {section} option(s): {', '.join(sorted(unknown))}")
    base.update({k: v for k, v in overrides.items() if v is not None})
    return base
