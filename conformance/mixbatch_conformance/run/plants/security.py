"""Planted violations of the security and intermediary requirements.

Covers MB-SEC-* and MB-INTER-4: a batch whose time budget is never spent, a sub-response field
copied to the top, a part field name that is not a token, and a batch response without
`Cache-Control: no-transform`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_json,
    map_parts,
    map_response,
    parts_of,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _never_aborts(doc: dict[str, Any]) -> None:
    """The JSON form of a batch that ran its slow part to the end: no abort entry."""
    for item in doc.get("responses", []):
        if item.get("outcome") == "aborted":
            item.update(href="/plant-waited", content_id="/plant-waited", status=200, outcome=None)
            item.update(headers=[], body="")
            item.pop("body_base64", None)


def _never_aborts_multipart(parts: list[Part]) -> list[Part]:
    """A multipart answer whose batch ran on past its budget: the abort part is answered as a
    part that ran."""
    out: list[Part] = []
    for f, b in parts:
        if field_of(f, "Batch-Outcome") == "aborted":
            f = [("Content-Id", "<plant-waited>"), ("Http-Status-Code", "200")]
            f, b = [*f, ("Content-Length", "0")], b""
        out.append((f, b))
    return out


def _runs_on_when(
    pred: Callable[[RelayRequest], bool],
) -> Callable[[RelayRequest, RelayResponse], None]:
    """A server that lets a batch whose request `pred` selects run past its time budget, as if
    a field the client sent set the bound: no abort part or abort entry in its answer."""
    parts = map_parts(_never_aborts_multipart, pred)
    document = map_json(_never_aborts, pred)

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        parts(req, resp)
        document(req, resp)

    return edit


def _asks_wait(req: RelayRequest) -> bool:
    return is_batch(req) and header_has("Prefer", r"(?i)\bwait\s*=")(req)


def _asks_async(req: RelayRequest) -> bool:
    return is_batch(req) and header_has("Prefer", r"(?i)\brespond-async\b")(req)


def _names_a_timeout(req: RelayRequest) -> bool:
    return is_batch(req) and (
        header_has("Keep-Alive", r"(?i)timeout")(req) or req.get("Timeout") is not None
    )


def _atomic_with_wait(req: RelayRequest) -> bool:
    return _asks_wait(req) and req.get("Batch-Mode") == "atomic"


def _bad_field_name(parts: list[Part]) -> list[Part]:
    return [([*f, ("X Plant", "space in name")], b) for f, b in parts]


def _copy_last_modified_up(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that lifts the first part's Last-Modified into the batch response's header."""
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b and is_batch(req) else None
    stamp = field_of(parts[0][0], "Last-Modified") if parts else None
    if stamp:
        resp.set("Last-Modified", stamp)


#: The caching fields a server might merge from its parts into a 207 answer's header section.
_MERGED = ("cache-control", "vary", "expires", "last-modified")


def _207_takes_part_cache_fields(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that gives a JSON 207 answer the caching fields of its parts, each list merged
    with its own value (the most restrictive Cache-Control, the union of Vary)."""
    if not is_batch(req) or resp.status != 207 or "json" not in (resp.get("Content-Type") or ""):
        return
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    for item in doc.get("responses", []) if isinstance(doc, dict) else []:
        for name, value in item.get("headers") or []:
            if name.lower() not in _MERGED:
                continue
            have = [m.strip() for m in (resp.get(name) or "").split(",") if m.strip()]
            if name.lower() in ("expires", "last-modified"):
                have = []
            merged = have + [m.strip() for m in value.split(",") if m.strip() not in have]
            resp.set(name, ", ".join(merged))


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-SEC-1: a batch over its time budget is aborted.
    P(
        "batch-time-unbounded",
        "MB-SEC-1",
        ("batch-abort-in-every-form",),
        caught_by=("WARN", "FAIL"),
        on_response=map_json(_never_aborts),
    ),
    P(
        "batch-time-per-part",
        "MB-SEC-1 in multipart",
        ("batch-budget-spans-every-part",),
        caught_by=("WARN", "FAIL"),
        on_response=map_parts(_never_aborts_multipart),
    ),
    P(
        "budget-lengthened-by-prefer-wait",
        "MB-SEC-1 the time budget lengthened to a client's Prefer: wait",
        ("batch-budget-not-raised-by-client-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=_runs_on_when(_asks_wait),
    ),
    P(
        "budget-lengthened-by-respond-async",
        "MB-SEC-1 a batch asking respond-async run without a time bound",
        ("batch-budget-not-raised-by-client-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=_runs_on_when(_asks_async),
    ),
    P(
        "budget-lengthened-by-timeout-fields",
        "MB-SEC-1 the time budget lengthened to a Keep-Alive or Timeout field's time",
        ("batch-budget-not-raised-by-client-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=_runs_on_when(_names_a_timeout),
    ),
    P(
        "budget-lengthened-by-wait-in-atomic",
        "MB-SEC-1 an atomic batch's time budget lengthened to a client's Prefer: wait",
        ("batch-budget-not-raised-by-client-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=_runs_on_when(_atomic_with_wait),
    ),
    # MB-SEC-2: no sub-response field at the top.
    P(
        "last-modified-copied-up",
        "MB-SEC-2 Last-Modified",
        ("top-level-fields",),
        on_response=_copy_last_modified_up,
    ),
    P(
        "207-takes-part-cache-fields",
        "MB-SEC-2 caching fields of the parts merged into a 207 answer",
        ("top-level-fields-independent-of-parts",),
        on_response=_207_takes_part_cache_fields,
    ),
    # MB-SEC-3: part field names are tokens.
    P(
        "field-name-with-space-written",
        "MB-SEC-3",
        ("response-framing-strict",),
        on_response_parts=_bad_field_name,
    ),
    # MB-INTER-4: Cache-Control: no-transform.
    P(
        "no-transform-dropped",
        "MB-INTER-4",
        ("top-level-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(is_batch, lambda r: r.set("Cache-Control", None)),
    ),
    P(
        "no-transform-misspelled",
        "MB-INTER-4 directive name",
        ("top-level-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(is_batch, lambda r: r.set("Cache-Control", "no-transforms")),
    ),
    P(
        "no-transform-multipart-only",
        "MB-INTER-4 207 forms",
        ("top-level-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(
            is_batch, lambda r: r.set("Cache-Control", None) if r.status == 207 else None
        ),
    ),
)
