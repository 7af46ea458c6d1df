"""The response-boundary-choice check tells a random boundary from one that is only fresh.

`varying_parts` is what the check judges: the characters that differ between boundaries. A
fixed prefix or suffix around random characters is allowed; a counter, a clock or a short
random tail leaves fewer than 16 varying characters. The plants of those three kinds are
caught through the relay.
"""

from __future__ import annotations

import secrets

import pytest

from mixbatch_conformance.checks.boundary_choice import MIN_VARYING, varying_parts
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import assert_caught_under_requirement

FRESH_NOT_RANDOM = ("response-boundary-counter", "response-boundary-clock")
SHORT_TAIL = "response-boundary-short-random-tail"


def test_a_shared_prefix_and_suffix_are_not_part_of_what_varies() -> None:
    got = varying_parts(["pre-abc-post", "pre-xyz-post", "pre-a9z-post"])
    assert got == ["abc", "xyz", "a9z"]


def test_a_clock_boundary_varies_in_its_last_digits_only() -> None:
    clock = [f"mixbatch-17953903367{n:08d}" for n in (41786448, 43764385, 45609724)]
    assert max(len(v) for v in varying_parts(clock)) < MIN_VARYING


def test_random_characters_behind_a_long_fixed_prefix_all_vary() -> None:
    drawn = ["a-fixed-prefix-of-the-server-" + secrets.token_urlsafe(12) for _ in range(8)]
    assert min(len(v) for v in varying_parts(drawn)) >= MIN_VARYING


def test_identical_boundaries_have_nothing_that_varies() -> None:
    assert varying_parts(["same", "same"]) == ["", ""]


@pytest.mark.slow
@pytest.mark.parametrize("name", [*FRESH_NOT_RANDOM, SHORT_TAIL])
def test_a_fresh_but_predictable_boundary_is_caught(
    name: str, relay: Relay, relayed: Context
) -> None:
    (plant,) = [p for p in PLANTS if p.name == name]
    assert_caught_under_requirement(plant, relay, relayed, each_catcher=False)
