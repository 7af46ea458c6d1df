"""The pattern bodies are their defining sequences, cut from one precomputed period."""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks._shared.octet_patterns import filler, pattern


def _pattern_by_definition(n: int) -> bytes:
    return bytes((i * 7 + i // 251) % 256 for i in range(n))


def _filler_by_definition(n: int, start: int) -> bytes:
    return bytes(0x21 + ((i * 7 + i // 89) % 94) for i in range(start, start + n))


@pytest.mark.parametrize("n", [0, 1, 250, 251, 252, 32_127, 32_128, 32_129, 100_000])
def test_pattern_is_its_sequence(n: int) -> None:
    assert pattern(n) == _pattern_by_definition(n)


@pytest.mark.parametrize(
    ("n", "start"), [(0, 0), (1, 0), (5, 4_180), (10_000, 3), (9_000, 4_183), (50_000, 12_345)]
)
def test_filler_is_its_sequence_from_start(n: int, start: int) -> None:
    assert filler(n, start) == _filler_by_definition(n, start)


def test_pattern_holds_every_octet_and_no_short_period() -> None:
    body = pattern(65_536)
    assert set(body) == set(range(256))
    assert all(body[k:] != body[:-k] for k in (1, 2, 7, 251, 256, 4_096))
