"""The conformance suite passes against the batching proxy in front of two origins that know
nothing of batching: a plain ASGI app under uvicorn, and the reference server used as a plain
origin: the proxy is held to the same spec as a batch server."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace

import pytest

from mixbatch.codec import Limits
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import reference_target, target_from_dict
from mixbatch_conformance.run.runner import CheckResult
from mixbatch_conformance.run.suite import run_suite

from ._harness import RunningProxy, RunningReference

#: The plain origin of tests/proxy/_origin.py, described for the suite.
ORIGIN_TARGET = {
    "name": "batching proxy in front of a plain uvicorn app",
    "batch_endpoint": "/batch",
    "resources": {
        "ok": "/items/1",
        "not_found": "/nothing/here",
        "collection": "/items",  # no collection-get profile is claimed, so never retrieved
        "sandbox_collection": "/items",
        "etag_resource": "/etag",
    },
    "volatile_headers": ["Date", "Server", "Via"],
    "credentials": {"headers": []},
    "profiles": ["core", "error-policy", "limits"],
}


#: The whole-batch size limit of the proxy the standard tier runs against: 17 MiB in place of the
#: default 64 MiB. Every check still runs (the part-size checks need one 16 MiB part and a few
#: hundred octets of framing inside it; the verdicts are the same as at 64 MiB), and the dozen
#: batches sent at and past the limit move a quarter of the octets through two parsers that share
#: the test's process with the suite.
PROXY_MAX_BATCH_BYTES = 17 * 1024 * 1024
#: Seconds the standard tier through the proxy may take: about 80 s alone, up to twice that
#: beside the other workers of make test.
STANDARD_TIMEOUT_S = 300


#: Octets of one check's account a failure message keeps (its end, where the cause is).
TOLD_OCTETS = 4000


def _told(result: CheckResult) -> str:
    """A check that did not pass, as CI's log needs it: its message, every broken expectation
    and its notes (which case, what came back), since the run's report is gone with it."""
    lines = [
        f"{e.what}: expected {e.allowed}, got {e.actual} ({e.requirement})"
        for e in result.failed_expectations
    ]
    told = "\n".join([result.message, *lines, *result.judge.notes])
    return f"{result.check.id} ({result.verdict.value}): {told[-TOLD_OCTETS:]}"


def _failures(url: str, target_dict: dict[str, object] | None, tier: str) -> list[str]:
    if target_dict is None:
        target = reference_target(url)
        target = replace(
            target,
            profiles=frozenset({"core", "error-policy", "limits", "conditional"}),
            batch_timeout_ms=None,  # the embedded server's limit, not the proxy's
        )
    else:
        target = target_from_dict({**target_dict, "base_url": url})
    settings = RunSettings(
        tier=tier, seed=secrets.randbits(32), replays=1, request_variants="mixed"
    )
    code, results = run_suite(target, settings, progress=False, quiet=True)
    bad = [
        _told(r)
        for r in results
        if r.verdict in (Verdict.FAIL, Verdict.HARNESS_ERROR, Verdict.SETUP_ERROR)
    ]
    assert results, "the suite ran no check"
    assert sum(r.verdict is Verdict.PASS for r in results) > 100
    assert (code == 0) == (not bad)
    return bad


@pytest.mark.timeout(STANDARD_TIMEOUT_S)
def test_suite_passes_against_the_proxy_in_front_of_the_reference_server(
    reference: RunningReference, make_proxy: Callable[..., RunningProxy]
) -> None:
    proxy = make_proxy(reference.url, limits=Limits(max_batch_bytes=PROXY_MAX_BATCH_BYTES))
    assert _failures(proxy.url, None, "standard") == []


def test_suite_passes_against_the_proxy_in_front_of_a_plain_uvicorn_app(
    proxy: RunningProxy,
) -> None:
    assert _failures(proxy.url, ORIGIN_TARGET, "smoke") == []
