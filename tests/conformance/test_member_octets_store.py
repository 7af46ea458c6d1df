"""The octet store the member-octets and text-window plants build on keeps every octet:
through it, with no transformation, the checks those plants are for pass, so each plant is
caught for the transformation it adds and for nothing the store does."""

from __future__ import annotations

from mixbatch_conformance.checks.body_utf8_edges import bodies
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.member_octets import OctetStore
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import CHECKS

CHECK = "sandbox-member-octets-every-path"
#: The check of the JSON form's body member over whole bodies, whose bodies reach a part only
#: through a sandbox that keeps octets.
WHOLE_BODY = "multistatus-body-members-whole-body"


def _through_store(check: str) -> Mutation:
    store = OctetStore()
    return Mutation(
        "octet-store",
        "MB-TEST-4 nothing: the store alone",
        (check,),
        on_request=store.request,
        on_response=store.response,
    )


def test_check_passes_through_the_octet_store(relay: Relay, relayed: Context) -> None:
    relay.mutation = _through_store(CHECK)
    result = run_check(CHECKS[CHECK], relayed)
    assert result.verdict is Verdict.PASS, result.message
    # The store took every content the reference refuses alone, so every one was judged.
    refused = [n for n in result.judge.notes if "left out" in n]
    assert not refused, refused


def test_whole_body_check_judges_every_body_through_the_octet_store(
    relay: Relay, relayed: Context
) -> None:
    relay.mutation = _through_store(WHOLE_BODY)
    result = run_check(CHECKS[WHOLE_BODY], relayed)
    assert result.verdict is Verdict.PASS, result.message
    # The store kept the octets, so no body was left out and each was judged in the JSON form.
    assert not result.judge.notes, result.judge.notes
    members = [e for e in result.judge.expectations if e.what.endswith(" member")]
    assert len(members) == len(bodies()), len(members)
