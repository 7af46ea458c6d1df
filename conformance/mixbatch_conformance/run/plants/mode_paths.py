"""Planted violations of rules a server keeps on one path of a batch and breaks on another: the
plain batch right and the batch under stop, the atomic batch, the chunked batch or the batch
after it on the same connection wrong.

    stop-policy-kept-for-connection     the stop a batch asked for stored on its connection, so
                                        the next batch there without Prefer stops (MB-PROC-5)
    atomic-mode-kept-for-connection     the atomic mode stored on the connection, so the next
                                        batch there without Batch-Mode is atomic (MB-PROC-5)

Each edits what the reference server receives, or answers for it, on batch requests only.
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_STOP = re.compile(r"(?i)batch-on-error\s*=\s*\"?stop")


def _fields(req: RelayRequest, name: str) -> str:
    return ",".join(v for n, v in req.headers if n.lower() == name.lower())


def _stop_for_connection(req: RelayRequest) -> None:
    """A batch asking for no error policy gets the stop an earlier batch on its connection
    asked for: the server keeps the policy it read on the connection object."""
    if (
        is_batch(req)
        and req.connection.get("stop")
        and "batch-on-error" not in _fields(req, "Prefer").lower()
    ):
        req.headers.append(("Prefer", "batch-on-error=stop"))


def _note_stop(req: RelayRequest, resp: RelayResponse) -> None:
    applied = ",".join(v for n, v in resp.headers if n.lower() == "preference-applied")
    if is_batch(req) and _STOP.search(applied):
        req.connection["stop"] = True


def _atomic_for_connection(req: RelayRequest) -> None:
    """A batch without Batch-Mode runs in the mode an earlier batch on its connection asked for."""
    if not is_batch(req):
        return
    modes = [m.strip() for m in _fields(req, "Batch-Mode").split(",") if m.strip()]
    if "atomic" in modes:
        req.connection["atomic"] = True
    elif not modes and req.connection.get("atomic"):
        req.headers.append(("Batch-Mode", "atomic"))


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "stop-policy-kept-for-connection",
        "MB-PROC-5 the stop of an earlier batch on the connection",
        ("policy-and-mode-not-kept-for-later-batches",),
        on_request=_stop_for_connection,
        on_response=_note_stop,
    ),
    Mutation(
        "atomic-mode-kept-for-connection",
        "MB-PROC-5 the atomic mode of an earlier batch on the connection",
        ("policy-and-mode-not-kept-for-later-batches",),
        on_request=_atomic_for_connection,
    ),
)
