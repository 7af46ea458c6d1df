"""Checks that a refused batch ran nothing judge a sandbox without a multipart listing.

The reference server answers a collection retrieval of its sandbox, so through the relay the
checks read that. Here the relay also drops `Accept: multipart/mixed` from every GET of the
sandbox, as a server that answers GET of a collection with one JSON document does: the checks
must then read that answer (learnt first from a POST alone), pass with nothing planted, and
still catch a server that runs the parts before a rejected target.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.transport.relay import Relay, RelayRequest
from tests.conformance._plants import CHECKS

CHECK = "late-fault-batch-runs-nothing"
RUNS_EARLY = next(p for p in PLANTS if p.name == "parts-run-until-a-dispatch-fault")


def _with_plain_listing(plant: Mutation | None, sandbox: str) -> Mutation:
    """`plant` (or nothing planted) behind a relay that drops Accept from a GET of `sandbox`."""

    def request(req: RelayRequest) -> None:
        if req.method == "GET" and req.target.split("?")[0] == sandbox:
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        if plant is not None:
            plant.request(req)

    base = plant or Mutation("plain-listing", "none", (CHECK,))
    return replace(
        base, name=f"{base.name}+plain-listing", on_request=request, on_request_parts=None
    )


@pytest.mark.parametrize(("planted", "verdict"), [(None, Verdict.PASS), (RUNS_EARLY, Verdict.FAIL)])
def test_the_check_reads_a_plain_listing(
    planted: Mutation | None, verdict: Verdict, relay: Relay, relayed: Context
) -> None:
    sandbox = relayed.path(relayed.target.resource("sandbox_collection") or "")
    relay.mutation = _with_plain_listing(planted, sandbox)
    result = run_check(CHECKS[CHECK], relayed)
    assert result.verdict is verdict, result.message
