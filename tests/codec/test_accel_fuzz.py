"""Deep tier: a long random differential run of the C fast path against the reference parser.

The seed batches of test_accel get one to six random edits each (a plant, a random octet, or a
copied slice), random limits and random chunk cuts; both parsers must give the same events or
the same error every time. Bounded by a case count, seeded, so a failure replays. It runs under
``make deep`` and, with the sanitizers, under ``make asan``.
"""

from __future__ import annotations

import random

import pytest

from mixbatch.codec import Limits

from .test_accel import _SEEDS, PLANTS, needs_accel, same_outcome

CASES = 200_000
SEED = 20261121


def _edit(rng: random.Random, wire: bytes) -> bytes:
    for _ in range(rng.randint(1, 6)):
        at = rng.randint(0, len(wire))
        kind = rng.random()
        if kind < 0.4:
            wire = wire[:at] + rng.choice(PLANTS) + wire[at + rng.randint(0, 3) :]
        elif kind < 0.7:
            wire = wire[:at] + bytes([rng.randrange(256)]) + wire[at + 1 :]
        else:
            a, b = sorted((rng.randint(0, len(wire)), rng.randint(0, len(wire))))
            wire = wire[:at] + wire[a:b] + wire[at:]
    return wire


def _limits(rng: random.Random) -> Limits:
    if rng.random() < 0.7:
        return Limits()
    return Limits(
        max_parts=rng.randint(1, 5),
        max_part_header_bytes=rng.randint(4, 200),
        max_part_fields=rng.randint(1, 6),
        max_part_bytes=rng.randint(1, 100),
    )


@needs_accel
@pytest.mark.deep
@pytest.mark.timeout(900)
def test_random_edits_give_the_same_outcome(mixbatch_tier: str) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("the deep tier runs with --mixbatch-tier deep (make deep)")
    rng = random.Random(SEED)
    seeds = list(_SEEDS.items())
    for _ in range(CASES):
        role, wire = rng.choice(seeds)
        wire = _edit(rng, wire)
        cuts = sorted(rng.randint(0, len(wire)) for _ in range(rng.randint(0, 4)))
        same_outcome(wire, "bb", role, _limits(rng), cuts)
