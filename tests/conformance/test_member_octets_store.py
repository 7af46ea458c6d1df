"""The octet store the member-octets plants build on keeps every octet: through it, with no
transformation, the check those plants are for passes, so each plant is caught for the
transformation it adds and for nothing the store does."""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.member_octets import OctetStore
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import CHECKS

CHECK = "sandbox-member-octets-every-path"


def test_check_passes_through_the_octet_store(relay: Relay, relayed: Context) -> None:
    store = OctetStore()
    relay.mutation = Mutation(
        "octet-store",
        "MB-TEST-4 nothing: the store alone",
        (CHECK,),
        on_request=store.request,
        on_response=store.response,
    )
    result = run_check(CHECKS[CHECK], relayed)
    assert result.verdict is Verdict.PASS, result.message
    # The store took every content the reference refuses alone, so every one was judged.
    refused = [n for n in result.judge.notes if "left out" in n]
    assert not refused, refused
