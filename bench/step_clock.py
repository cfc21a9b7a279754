"""The step timer the Python benches share (a module, so both scripts import it from bench/)."""

from __future__ import annotations

import time
from typing import Any


class Clock:
    """Timestamps of each step's end (an on_metrics callback): steady-state seconds per step leave
    out the first step, which pays for warm-up (allocations, TRL's dataloader and optimizer)."""

    def __init__(self):
        self.start = time.perf_counter()
        self.ends: list[float] = []

    def __call__(self, _metrics: Any = None) -> None:
        self.ends.append(time.perf_counter())

    def first(self) -> float:
        return self.ends[0] - self.start

    def steady(self) -> float:
        return (self.ends[-1] - self.ends[0]) / (len(self.ends) - 1)
