"""--strict: a broken SHOULD fails the run; without it the run passes with WARN, counted.

A server that omits Vary or reuses one boundary for its whole lifetime breaks a SHOULD
(MB-MULTI-10, MB-WIRE-5): planted through the relay, the run exits 0 with the warnings counted
on the summary line, and 1 under --strict with each broken requirement named.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation, by_name
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.run.suite import EXIT_CONFORMANT, EXIT_NONCONFORMANT, run_suite
from mixbatch_conformance.transport.relay import Relay

SHOULD_PLANTS = {
    "vary-dropped-on-batch": ["top-level-fields", "vary-in-every-form"],
    "one-boundary-for-server-lifetime": ["response-boundary-choice"],
}


def _plant(name: str) -> Mutation:
    return next(p for p in PLANTS if p.name == name)


@pytest.mark.parametrize("plant", sorted(SHOULD_PLANTS))
def test_a_broken_should_fails_only_under_strict(
    plant: str, relay: Relay, reference: Target, capsys: pytest.CaptureFixture[str]
) -> None:
    relay.mutation = _plant(plant)
    try:
        target = reference.with_base_url(relay.url)
        only = SHOULD_PLANTS[plant]
        lenient, _ = run_suite(
            target, RunSettings(tier="smoke", replays=0), only=only, progress=False, quiet=True
        )
        out = capsys.readouterr()
        strict, _ = run_suite(
            target,
            RunSettings(tier="smoke", replays=0, strict=True),
            only=only,
            progress=False,
            quiet=True,
        )
        err = capsys.readouterr().err
    finally:
        relay.mutation = None
    assert lenient == EXIT_CONFORMANT
    assert " warned" in out.out
    assert " 0 warned" not in out.out
    assert strict == EXIT_NONCONFORMANT
    assert "--strict: MB-" in err


def test_a_clean_run_passes_under_strict(relay: Relay, reference: Target) -> None:
    code, _ = run_suite(
        reference.with_base_url(relay.url),
        RunSettings(tier="smoke", replays=0, strict=True),
        only=["top-level-fields", "response-boundary-choice", "vary-in-every-form"],
        progress=False,
        quiet=True,
    )
    assert code == EXIT_CONFORMANT


def test_by_name_finds_the_hand_written_plants() -> None:
    assert by_name("vary-dropped").breaks.startswith("MB-METHOD-4")
