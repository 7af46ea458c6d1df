"""Which target a run tests: the embedded reference server, a described target, or a
discovered one, and whether it answers at all.

Theory of operation: with no URL and no config the embedded reference server is started as a
subprocess and described by `reference_target`, with the profiles its capabilities document
publishes; a config file is read and validated; a bare URL is discovered first (a draft the
operator should review). `check_reachable` sends one OPTIONS so that a dead target is a
harness error before any check runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import (
    ALL_PROFILES,
    Target,
    load_target,
    reference_target,
    target_from_dict,
)
from mixbatch_conformance.run.discover import discover
from mixbatch_conformance.transport.embedded import embedded_server
from mixbatch_conformance.transport.http import build_request, exchange, split_url

__all__ = ["REACHABILITY_TIMEOUT_S", "check_reachable", "resolve_target", "with_published_profiles"]

#: Seconds the first OPTIONS may take before the target counts as unreachable.
REACHABILITY_TIMEOUT_S = 10.0


def check_reachable(target: Target) -> None:
    """Send one OPTIONS to the batch endpoint; raises TargetUnreachable or OSError."""
    host, port, _ = split_url(target.base_url)
    request = build_request("OPTIONS", target.batch_endpoint, f"{host}:{port}")
    exchange(host, port, request, REACHABILITY_TIMEOUT_S)


def with_published_profiles(target: Target) -> Target:
    """The target with the profiles its capabilities document publishes (embedded server)."""
    ctx = Context(target)
    caps = ctx.fetch_capabilities()
    if not caps:
        return target
    profiles = frozenset(p for p in caps.get("profiles", []) if p in ALL_PROFILES) | {"core"}
    return replace(target, profiles=profiles)


@contextlib.contextmanager
def resolve_target(url: str | None, config: Path | None) -> Iterator[Target]:
    """The target to test; starts (and later stops) the embedded server when both are None."""
    if url is None and config is None:
        with embedded_server() as base:
            yield with_published_profiles(reference_target(base))
        return
    if config is not None:
        yield load_target(config, url)
        return
    assert url is not None
    yield target_from_dict(discover(url))
