"""The origins behind the real intermediaries: reference servers, and their description.

``reference_origins(n)`` starts ``n`` embedded reference servers (one, or two for the
scale-out row) and yields their base URLs; a TLS row's own origin is started with the front
end's address as its public origin. ``reference_description(base_url)`` is the
target description of the reference server (``core.target.reference_target``) as the JSON
object ``--config`` reads, limited to the profiles its capabilities document publishes, so
that a run through a hop tests exactly what the direct run tests.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target, reference_target
from mixbatch_conformance.transport.embedded import default_command, embedded_server

__all__ = ["reference_description", "reference_origins"]


@contextlib.contextmanager
def reference_origins(count: int, public_origin: str | None = None) -> Iterator[list[str]]:
    """Start ``count`` reference servers; yield their base URLs; stop them all.

    ``public_origin`` ("https://127.0.0.1:PORT", the TLS front end's address) starts them with
    ``serve --public-origin``, so that the https:// part targets a client writes for the front
    end are same-origin behind it (MB-SUB-2).
    """
    command = None
    if public_origin is not None:
        command = [*default_command(), "--public-origin", public_origin]
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(embedded_server(command)) for _ in range(count)]


def _published_profiles(target: Target) -> list[str]:
    caps = Context(target).fetch_capabilities() or {}
    published = {p for p in caps.get("profiles", []) if p in target.profiles}
    return sorted((published or set(target.profiles)) | {"core"})


def reference_description(base_url: str) -> dict[str, Any]:
    """The reference server at ``base_url`` as a target description (target.schema.json)."""
    target = reference_target(base_url)
    sandbox = target.resources.get("sandbox_collection")
    doc: dict[str, Any] = {
        "base_url": target.base_url,
        "batch_endpoint": target.batch_endpoint,
        "resources": {k: v for k, v in target.resources.items() if k != "sandbox_collection"},
        "volatile_headers": list(target.volatile_headers),
        "profiles": _published_profiles(target),
        "disposable": target.disposable,
    }
    if sandbox:
        doc["sandbox"] = {"collection": sandbox, "reads_back": target.sandbox_reads_back}
        if target.sandbox_member is not None:
            doc["sandbox"]["member"] = target.sandbox_member
    if target.batch_timeout_ms is not None:
        doc["batch_timeout_ms"] = target.batch_timeout_ms
    return doc
