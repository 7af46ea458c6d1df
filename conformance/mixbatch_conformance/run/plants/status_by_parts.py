"""Planted top-level statuses chosen from the parts (MB-STATUS-5) where a batch mode or a form
makes the server decide its status late.

- an atomic batch that a part's server error rolled back answered 500 with its response parts,
  the batch as one operation taken to have failed on the server's side;
- the same in a 207 form: the multistatus document answered 500.
"""

from __future__ import annotations

import json

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, header_has, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_ATOMIC = header_has("Batch-Mode", r"(?i)\batomic\b")


def _server_error_in_parts(req: RelayRequest, resp: RelayResponse) -> None:
    if not _ATOMIC(req) or resp.status != 200:
        return
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if parts and any((field_of(f, "Http-Status-Code") or "").startswith("5") for f, _ in parts):
        resp.status = 500


def _server_error_in_document(req: RelayRequest, resp: RelayResponse) -> None:
    if not _ATOMIC(req) or resp.status != 207:
        return
    ctype = resp.get("Content-Type") or ""
    if "json" in ctype:
        try:
            doc = json.loads(resp.body)
        except ValueError:
            return
        entries = doc.get("responses") if isinstance(doc, dict) else None
        failed = any(
            isinstance(e, dict) and str(e.get("status", "")).startswith("5") for e in entries or []
        )
    else:
        failed = b"HTTP/1.1 5" in resp.body
    if failed:
        resp.status = 500


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "atomic-server-error-batch-answered-500",
        "MB-STATUS-5",
        ("atomic-failing-edges", "status-codes-reported-exactly"),
        on_response=_server_error_in_parts,
    ),
    Mutation(
        "atomic-server-error-document-answered-500",
        "MB-STATUS-5",
        ("atomic-failing-edges",),
        on_response=_server_error_in_document,
    ),
)
