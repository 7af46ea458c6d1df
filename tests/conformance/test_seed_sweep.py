"""The standard tier at twenty seeds against each reference implementation (`make deep`).

A check whose expectation comes from one server's habits rather than from the spec fails some
seeds and not others, or fails one implementation and not another. This sweep runs the whole
standard tier at seeds 1 to 20 against the reference server, the ASGI middleware (the Starlette
test app under uvicorn) and the batching proxy in front of the reference server, and expects no
failing verdict at any seed. A check an implementation fails because the implementation is wrong
is listed with the reason (KNOWN_SERVER_BUGS for the reference server, ASGI_KNOWN, PROXY_KNOWN)
and left out for that implementation, so the sweep stays strict about everything else.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from mixbatch_conformance.checks import select
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target, reference_target, target_from_dict
from mixbatch_conformance.run.runner import run_checks
from mixbatch_conformance.run.targets import with_published_profiles
from mixbatch_conformance.transport.embedded import embedded_server

from .test_reference_server import KNOWN_SERVER_BUGS

SEEDS = range(1, 21)
#: Verdicts that count as a failure of the sweep.
FAILING = {
    Verdict.FAIL,
    Verdict.FLAKY,
    Verdict.HARNESS_ERROR,
    Verdict.SETUP_ERROR,
    Verdict.TIMEOUT,
}
ASGI_TARGET = Path(__file__).resolve().parents[1] / "asgi" / "target.json"


@contextlib.contextmanager
def _reference() -> Iterator[Target]:
    with embedded_server() as url:
        yield with_published_profiles(reference_target(url))


@contextlib.contextmanager
def _asgi() -> Iterator[Target]:
    from ..asgi.app import make_batched_app
    from ..client.servers import uvicorn_server

    with uvicorn_server(make_batched_app()) as url:
        described = json.loads(ASGI_TARGET.read_text(encoding="utf-8"))
        yield target_from_dict({**described, "base_url": url})


@contextlib.contextmanager
def _proxy() -> Iterator[Target]:
    from ..proxy._harness import LoopThread, RunningProxy, RunningReference

    loop = LoopThread()
    origin = RunningReference(loop)
    proxy = RunningProxy(loop, origin.url)
    try:
        yield replace(
            reference_target(proxy.url),
            profiles=frozenset({"core", "error-policy", "limits", "conditional"}),
            # The origin's whole-batch limit is not the proxy's.
            batch_timeout_ms=None,
        )
    finally:
        proxy.stop()
        origin.stop()
        loop.close()


TARGETS = {"reference-server": _reference, "asgi-middleware": _asgi, "batching-proxy": _proxy}
#: check id -> why the ASGI middleware or its Starlette test app (tests/asgi/app.py) fails it
#: (none at present).
ASGI_KNOWN: dict[str, str] = {}
#: check id -> why the batching proxy fails it (none at present).
PROXY_KNOWN: dict[str, str] = {}
#: Check ids left out per target: bugs of the implementation, reported and tracked there, so
#: that the sweep stays strict about every other check.
KNOWN = {
    "reference-server": set(KNOWN_SERVER_BUGS),
    "asgi-middleware": set(ASGI_KNOWN),
    "batching-proxy": set(PROXY_KNOWN),
}


@pytest.mark.deep
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_standard_tier_passes_at_twenty_seeds(name: str, mixbatch_tier: str) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("the seed sweep runs with --mixbatch-tier deep (make deep)")
    failures: dict[str, list[int]] = {}
    checks = [c for c in select("standard") if c.id not in KNOWN.get(name, set())]
    with TARGETS[name]() as target:
        for seed in SEEDS:
            ctx = Context(target, RunSettings(tier="standard", seed=seed))
            for result in run_checks(checks, ctx, replays=1):
                if result.verdict in FAILING:
                    key = f"{result.check.id}: {result.verdict.value}: {result.message[:300]}"
                    failures.setdefault(key, []).append(seed)
    assert failures == {}
