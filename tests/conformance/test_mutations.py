"""Proof that the suite can fail: planted bugs, each caught by a check that cites what it breaks.

The relay (mixbatch_conformance.transport.relay) fronts the reference server; each plant in
run.plants breaks one server requirement in one way and names the checks that must flag it.
Before planting anything, the relay must be transparent: every catcher passes through it.
`make test` plants one bug per requirement (the quick subset); the deep tier plants them all.
The mutation score (caught/planted) is printed.
"""

from __future__ import annotations

import socket

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants import PLANTS, behaviour
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.selftest import (
    MutationOutcome,
    judge_mutation,
    one_per_requirement,
)
from mixbatch_conformance.transport.relay import Relay, RelayRequest, RelayResponse
from tests.conformance.test_reference_server import KNOWN_SERVER_BUGS

CHECKS = {c.id: c for c in all_checks()}
QUICK = one_per_requirement()
CATCHERS = sorted({c for m in (*QUICK, *behaviour.PLANTS) for c in m.catchers})
ALL_CATCHERS = sorted({c for m in PLANTS for c in m.catchers})


def _missed(outcome: MutationOutcome) -> dict[str, str]:
    m = outcome.mutation
    missed = {
        c: f"{r.verdict.value}: {r.message}"
        for c, r in outcome.results.items()
        if r.verdict.value not in m.caught_by
    }
    if not missed and not outcome.cited:
        missed["(citation)"] = f"no catcher cites {m.breaks.split()[0]}"
    return missed


def test_every_plant_names_existing_catchers() -> None:
    missing = {(m.name, c) for m in PLANTS for c in m.catchers if c not in CHECKS}
    assert not missing


def test_plant_names_are_unique() -> None:
    names = [m.name for m in PLANTS]
    assert sorted({n for n in names if names.count(n) > 1}) == []


@pytest.fixture(scope="module")
def unplanted(relay: Relay, reference: Target) -> dict[str, Verdict]:
    """Each quick catcher's verdict through the relay with nothing planted."""
    relay.mutation = None
    ctx = Context(reference.with_base_url(relay.url))
    return {c: run_check(CHECKS[c], ctx).verdict for c in CATCHERS}


@pytest.mark.slow
def test_relay_without_mutation_is_transparent(unplanted: dict[str, Verdict]) -> None:
    # A check the reference server fails for a server bug of its own is listed there; a check
    # for a profile the reference does not offer is N/A until a plant withdraws the profile.
    failing = {c: v for c, v in unplanted.items() if v not in (Verdict.PASS, Verdict.NA)}
    assert {c: v for c, v in failing.items() if c not in KNOWN_SERVER_BUGS} == {}


@pytest.mark.slow
@pytest.mark.parametrize("mutation", QUICK, ids=[m.name for m in QUICK])
def test_planted_bug_is_caught_by_a_check_citing_it(
    mutation: Mutation, relay: Relay, relayed: Context, unplanted: dict[str, Verdict]
) -> None:
    failing = [c for c in mutation.catchers if unplanted[c].value in mutation.caught_by]
    if failing:
        pytest.skip(f"{failing} fail on the reference server with nothing planted (a server bug)")
    missed = _missed(judge_mutation(relay, relayed, mutation))
    assert missed == {}, f"{mutation.name} ({mutation.breaks}) slipped past {missed}"


@pytest.mark.slow
@pytest.mark.parametrize("mutation", behaviour.PLANTS, ids=[m.name for m in behaviour.PLANTS])
def test_bug_in_time_or_order_is_caught(
    mutation: Mutation, relay: Relay, relayed: Context, unplanted: dict[str, Verdict]
) -> None:
    # Every plant that changes how the relay moves messages, not only the quick one of its
    # requirement: each is a different way to break streaming, pipelining or the budget.
    assert {c: unplanted[c] for c in mutation.catchers} == dict.fromkeys(
        mutation.catchers, Verdict.PASS
    )
    missed = _missed(judge_mutation(relay, relayed, mutation))
    assert missed == {}, f"{mutation.name} ({mutation.breaks}) slipped past {missed}"


@pytest.mark.deep
def test_relay_is_transparent_for_every_catcher(relayed: Context, mixbatch_tier: str) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("every plant runs with --mixbatch-tier deep (make deep)")
    verdicts = {c: run_check(CHECKS[c], relayed).verdict for c in ALL_CATCHERS}
    failing = {c: v for c, v in verdicts.items() if v not in (Verdict.PASS, Verdict.NA)}
    assert {c: v for c, v in failing.items() if c not in KNOWN_SERVER_BUGS} == {}


@pytest.mark.deep
def test_every_planted_bug_is_caught(
    relay: Relay, reference: Target, capsys: pytest.CaptureFixture[str], mixbatch_tier: str
) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("every plant runs with --mixbatch-tier deep (make deep)")
    ctx = Context(reference.with_base_url(relay.url))
    outcomes = [judge_mutation(relay, ctx, m) for m in PLANTS]
    missed = {o.mutation.name: _missed(o) for o in outcomes if _missed(o)}
    with capsys.disabled():
        print(f"\nmutation score: {len(PLANTS) - len(missed)}/{len(PLANTS)} planted bugs caught")
    assert missed == {}


def test_relay_writes_obs_text_a_plant_puts_in_a_field(relay: Relay, reference_url: str) -> None:
    """A plant's field value holding obs-text (RFC 9110 §5.5) leaves the relay as those octets,
    not as a closed connection a check would read as the fault planted."""

    def answer(_req: RelayRequest, resp: RelayResponse) -> None:
        resp.headers.append(("X-Planted", 'text/plain; title="caf\xe9"'))

    relay.mutation = Mutation("obs-text-field", "MB-RESP-4", (), on_response=answer)
    try:
        host, port = relay.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(f"GET /ok HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(4096)
                assert chunk, "the relay closed the connection"
                head += chunk
    finally:
        relay.mutation = None
    assert b'\r\nX-Planted: text/plain; title="caf\xe9"\r\n' in head
