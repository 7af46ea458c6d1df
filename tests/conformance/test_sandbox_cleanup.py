"""A run leaves the target's sandbox as it found it, and writes nowhere without one."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import run_checks
from mixbatch_conformance.run.selection import plan
from mixbatch_conformance.run.suite import run_suite
from mixbatch_conformance.transport.http import build_request, exchange, split_url
from tests.conformance import _outside


def _members(target: Target) -> list[object]:
    host, port, _ = split_url(target.base_url)
    request = build_request("GET", "/books", f"{host}:{port}", [("Accept", "application/json")])
    resp = exchange(host, port, request).response
    assert resp is not None
    assert resp.status == 200
    doc = json.loads(resp.body)
    assert isinstance(doc, list)
    return doc


@pytest.fixture
def sandboxed(reference: Target) -> Target:
    """The reference server as an operator would describe it: a sandbox, not disposable."""
    return replace(reference, disposable=False)


def _standard_runs(target: Target, runs: int, *, writing_only: bool) -> None:
    checks, _ = plan("standard", None)
    if writing_only:
        checks = [c for c in checks if c.state is not State.READ_ONLY]
    for seed in range(runs):
        settings = RunSettings(tier="standard", seed=seed, replays=0)
        # Whatever the verdicts, what the run created is gone when it ends.
        run_suite(target, settings, checks=checks, progress=False, quiet=True)


@pytest.mark.slow
# About 45 s, most of it the writing checks' own waits (members dated a second apart, clients
# that leave mid-answer, delay parts); the deep tier runs every check three times.
@pytest.mark.timeout(300)
def test_a_run_of_the_writing_checks_leaves_the_collection_as_it_was(
    sandboxed: Target,
) -> None:
    before = _members(sandboxed)
    _standard_runs(sandboxed, 1, writing_only=True)
    assert _members(sandboxed) == before


@pytest.mark.deep
def test_three_full_standard_runs_leave_the_collection_as_it_was(
    sandboxed: Target, mixbatch_tier: str
) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("three full standard runs take about a minute: make deep")
    before = _members(sandboxed)
    _standard_runs(sandboxed, 3, writing_only=False)
    assert _members(sandboxed) == before


def test_created_members_are_recorded_and_deleted(sandboxed: Target) -> None:
    before = _members(sandboxed)
    ctx = Context(sandboxed, RunSettings(tier="smoke", replays=0))
    judge = Judge("MB-TEST-3")
    doc = json.dumps(sandboxed.sandbox_member).encode()
    made = ctx.send(
        judge,
        ctx.raw_request("POST", "/books", [("Content-Type", "application/json")], doc),
    )
    batch = ctx.batch(
        judge, [SubRequest("POST", "/books", (("Content-Type", "application/json"),), doc)]
    )
    assert (made.status, batch.status) == (201, 200)
    assert len(ctx.created) == 2
    assert all(path.startswith("/books/") for path in ctx.created)
    assert len(_members(sandboxed)) == len(before) + 2
    assert ctx.clean_up() == []
    assert _members(sandboxed) == before


def test_checks_that_write_are_na_without_a_sandbox(reference: Target) -> None:
    resources = {k: v for k, v in reference.resources.items() if k != "sandbox_collection"}
    bare = replace(reference, resources=resources, disposable=False)
    before = _members(bare)
    checks = [c for c in plan("smoke", None)[0] if c.state is not State.READ_ONLY]
    ctx = Context(bare, RunSettings(tier="smoke", replays=0))
    results = run_checks(checks, ctx)
    assert checks
    assert all(r.verdict.value == "N/A" for r in results)
    assert any("the target declares none" in r.message for r in results)
    assert _members(bare) == before


def test_a_member_a_put_part_created_without_location_is_recorded() -> None:
    body = (
        b"--b\r\nContent-Id: <notes/fresh>\r\nHttp-Status-Code: 201\r\n\r\n"
        b"\r\n--b\r\nContent-Id: </elsewhere/1>\r\nHttp-Status-Code: 201\r\n\r\n\r\n--b--"
    )
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: multipart/mixed; boundary=b\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    with _outside.answering(answer) as url:
        target = Target(url, resources={"sandbox_collection": "/notes"})
        ctx = Context(target, RunSettings(replays=0))
        ctx.batch(Judge("MB-TEST-3"), [SubRequest("PUT", "notes/fresh")])
    # The part outside the sandbox is not the suite's to delete.
    assert ctx.created == ["/notes/fresh"]
