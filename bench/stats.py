"""Repetition and summary: every figure is a median over repetitions, with its min and max.

Methods are interleaved within each repetition (serial, pipelined, batch, serial, ...), and a
ratio between two methods is taken *per repetition* before summarising, so a slow spell on the
shared machine moves both sides of a ratio together instead of skewing one method's median.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from typing import TypedDict

__all__ = ["Summary", "log", "paired_ratio", "summarize"]


class Summary(TypedDict):
    median: float
    min: float
    max: float
    n: int
    values: list[float]


def summarize(values: Sequence[float]) -> Summary:
    """Median, min, max and the raw values (rounded for a readable JSON file)."""
    if not values:
        raise ValueError("summarize() needs at least one value")
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
        "values": [round(v, 9) for v in values],
    }


def paired_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> Summary:
    """Summary of numerator[i] / denominator[i] over paired repetitions."""
    if len(numerators) != len(denominators):
        raise ValueError(
            f"paired_ratio() needs equal lengths, got {len(numerators)} and {len(denominators)}"
        )
    return summarize([a / b for a, b in zip(numerators, denominators, strict=True)])


def log(message: str) -> None:
    """Progress on stderr, so stdout stays free for the final summary."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)
