"""collection-get-empty (MB-STATUS-11): against the reference server's /collections/empty,
against a reference server whose /books was emptied, and through the relay with planted bugs.

The second server is the test's own, so it may delete the seeded members of /books and declare
/books as the target's ``empty_collection``: the check must hold for a collection that became
empty, not only for one that always was.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target, reference_target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.targets import with_published_profiles
from mixbatch_conformance.transport.embedded import embedded_server, server_only_command
from mixbatch_conformance.transport.http import build_request, exchange, split_url
from mixbatch_conformance.transport.relay import Relay, RelayRequest, RelayResponse

CHECK = {c.id: c for c in all_checks()}["collection-get-empty"]


def _empty_as_404(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "GET" and resp.status == 204:
        resp.status = 404
        resp.set("Content-Type", "text/plain")
        resp.body = b"no books here"


def _empty_as_200(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "GET" and resp.status == 204:
        resp.status = 200
        resp.set("Content-Type", "application/json")
        resp.body = b"[]"


#: Planted bugs: the thesis' "404 (nope, no books here)", and an empty list as 200.
PLANTED = (
    Mutation("empty-collection-404", "MB-STATUS-11", (CHECK.id,), on_response=_empty_as_404),
    Mutation("empty-collection-200", "MB-STATUS-11", (CHECK.id,), on_response=_empty_as_200),
)


@pytest.fixture(scope="module")
def emptied() -> Iterator[Target]:
    with embedded_server(server_only_command()) as url:
        host, port, _ = split_url(url)
        for n in (1, 2, 3):
            resp = exchange(host, port, build_request("DELETE", f"/books/{n}", f"{host}:{port}"))
            assert resp.response is not None
            assert resp.response.status == 204
        target = with_published_profiles(reference_target(url))
        yield replace(target, resources={**target.resources, "empty_collection": "/books"})


def test_check_is_not_applicable_without_an_empty_collection(reference: Target) -> None:
    resources = {k: v for k, v in reference.resources.items() if k != "empty_collection"}
    result = run_check(CHECK, Context(replace(reference, resources=resources)))
    assert result.verdict is Verdict.NA
    assert "empty_collection" in result.message


def test_check_passes_against_the_reference_servers_empty_collection(reference: Target) -> None:
    assert reference.resources["empty_collection"] == "/collections/empty"
    result = run_check(CHECK, Context(reference))
    assert result.verdict is Verdict.PASS, result.message


def test_check_passes_against_an_emptied_reference_server(emptied: Target) -> None:
    result = run_check(CHECK, Context(emptied))
    assert result.verdict is Verdict.PASS, result.message


@pytest.mark.parametrize("mutation", PLANTED, ids=[m.name for m in PLANTED])
def test_planted_bug_is_caught(mutation: Mutation, emptied: Target) -> None:
    relay = Relay(emptied.base_url)
    relay.start()
    try:
        ctx = Context(emptied.with_base_url(relay.url))
        assert run_check(CHECK, ctx).verdict is Verdict.PASS
        relay.mutation = mutation
        result = run_check(CHECK, ctx)
    finally:
        relay.stop()
    assert result.verdict.value in mutation.caught_by, result.message
