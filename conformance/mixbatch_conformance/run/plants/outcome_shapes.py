"""Planted violations of a stopped or rolled-back answer's shape at the ends of a batch, and of
the connection after a limit refusal or a rolled-back answer (spec 3.3.1, 3.3.4, 7.4, 7.5, 11).

    atomic-failing-last-part-rolled-back   a failing last part of an atomic batch marked
                                           rolled-back with the parts before it (MB-PROC-8)
    atomic-first-failure-commits-rest      a failure at part 0 of an atomic batch read as "no
                                           failure yet": the parts after it run (MB-PROC-8)
    stop-first-failure-runs-on             the same under batch-on-error=stop (MB-PROC-6)
    rolled-back-status-written-twice       a rolled-back part carries its Http-Status-Code
                                           line twice, once from the part and once from the
                                           outcome writer (MB-RESP-2)
    limit-refusal-content-read-as-next-request
                                           a 413 or 431 sent before the rest of the batch was
                                           read, the unread octets then read as the next
                                           request on the connection, answered 400 (MB-PIPE-1)
    rolled-back-answer-closes-connection   the connection ended after an answer with
                                           rolled-back parts (MB-PIPE-1)
    atomic-field-limit-named-as-header-bytes
                                           an atomic batch's part over max_part_fields
                                           refused naming max_part_header_bytes (MB-LIMIT-5)
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    header_has,
    is_batch,
    map_parts,
    unread_as_next_request,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_ATOMIC = header_has("Batch-Mode", r"(?i)\batomic\b")
_STOP = header_has("Prefer", r"(?i)batch-on-error\s*=\s*\"?stop")
_SHAPES = ("outcome-shapes-at-every-position",)


def _failing(fields: FieldList) -> bool:
    code = field_of(fields, "Http-Status-Code") or ""
    return code.isdigit() and int(code) >= 400 and field_of(fields, "Batch-Outcome") is None


def _last_rolled_back(parts: list[Part]) -> list[Part]:
    """Nothing left to skip: every part up to the end is marked rolled-back."""
    skipped = any(field_of(f, "Batch-Outcome") == "skipped" for f, _ in parts)
    if parts and not skipped and _failing(parts[-1][0]):
        fields, body = parts[-1]
        return [*parts[:-1], ([*fields, ("Batch-Outcome", "rolled-back")], body)]
    return parts


def _first_failure_ignored(parts: list[Part]) -> list[Part]:
    """A failure at index 0 taken for "none yet": the parts after it answered as run."""
    if not parts or not _failing(parts[0][0]):
        return parts
    out = [parts[0]]
    for fields, body in parts[1:]:
        if field_of(fields, "Batch-Outcome") == "skipped":
            kept = [(n, v) for n, v in fields if n.lower() != "batch-outcome"]
            fields = [("Http-Status-Code", "200"), *kept]
        out.append((fields, body))
    return out


def _status_twice(parts: list[Part]) -> list[Part]:
    out = []
    for fields, body in parts:
        code = field_of(fields, "Http-Status-Code")
        if field_of(fields, "Batch-Outcome") == "rolled-back" and code is not None:
            fields = [("Http-Status-Code", code), *fields]
        out.append((fields, body))
    return out


def _limit_refusal(req: RelayRequest, resp: RelayResponse) -> bool:
    """A limit refusal of a batch: 413 or 431."""
    return is_batch(req) and resp.status in (413, 431)


_ROLLED_BACK = re.compile(rb"(?im)^batch-outcome:[ \t]*rolled-back[ \t]*\r?$")


def _field_limit_misnamed(req: RelayRequest, resp: RelayResponse) -> None:
    """The atomic path's section reader names one limit for both of its header limits."""
    if not (_ATOMIC(req) and resp.status == 431):
        return
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    if isinstance(doc, dict) and doc.get("limit") == "max_part_fields":
        doc["limit"] = "max_part_header_bytes"
        doc.pop("value", None)
        resp.body = json.dumps(doc).encode()


def _close_after_rolled_back(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and _ROLLED_BACK.search(resp.body):
        resp.close = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "atomic-failing-last-part-rolled-back",
        "MB-PROC-8 a failing last part marked rolled-back",
        _SHAPES,
        on_response=map_parts(_last_rolled_back, _ATOMIC),
    ),
    Mutation(
        "atomic-first-failure-commits-rest",
        "MB-PROC-8 a failure at part 0 not stopping the batch",
        _SHAPES,
        on_response=map_parts(_first_failure_ignored, _ATOMIC),
    ),
    Mutation(
        "stop-first-failure-runs-on",
        "MB-PROC-6 a failure at part 0 not stopping the batch",
        _SHAPES,
        on_response=map_parts(_first_failure_ignored, _STOP),
    ),
    Mutation(
        "rolled-back-status-written-twice",
        "MB-RESP-2 a rolled-back part's Http-Status-Code written twice",
        _SHAPES,
        on_response=map_parts(_status_twice, _ATOMIC),
    ),
    Mutation(
        "limit-refusal-content-read-as-next-request",
        "MB-PIPE-1 a limit refusal's unread content read as the next request",
        ("pipelining-behind-limit-refusals",),
        on_response=unread_as_next_request(_limit_refusal),
    ),
    Mutation(
        "rolled-back-answer-closes-connection",
        "MB-PIPE-1 closed after rolled-back parts",
        ("pipelining-behind-every-answer",),
        on_response=_close_after_rolled_back,
    ),
    Mutation(
        "atomic-field-limit-named-as-header-bytes",
        "MB-LIMIT-5 an atomic batch's field-line refusal naming another limit",
        ("refusal-documents-valid-in-every-form",),
        on_response=_field_limit_misnamed,
    ),
)
