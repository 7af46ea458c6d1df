"""Planted violations of the batch modes: atomic (spec 7.5) and references (spec 7.7).

An atomic plant marks no rollback, ignores the mode so that writes stay or show half-done, or
answers before the commit is visible; a references plant reads only the first mode of a
Batch-Mode list, resolves a reference to the wrong part or not at all, accepts a forward
reference, or answers an unresolved one as a failure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    accepts,
    all_of,
    body_has,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_json,
    map_parts,
    parts_of,
    refuses,
    set_field,
    stops_at_unresolved,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_ATOMIC = header_has("Batch-Mode", r"(?i)\batomic\b")
_REFERENCES = header_has("Batch-Mode", r"(?i)\breferences\b")


def _modes(fn: Callable[[list[str]], list[str]]) -> Callable[[RelayRequest], None]:
    """Rewrite the list of modes the server sees in Batch-Mode (empty: no field)."""

    def edit(req: RelayRequest) -> None:
        value = req.get("Batch-Mode")
        if value is None or not is_batch(req):
            return
        modes = fn([m.strip() for m in value.split(",") if m.strip()])
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "batch-mode"]
        if modes:
            req.headers.append(("Batch-Mode", ", ".join(modes)))

    return edit


def _unmarked(parts: list[Part]) -> list[Part]:
    return [
        (without_field(f, "Batch-Outcome"), b)
        if field_of(f, "Batch-Outcome") == "rolled-back"
        else (f, b)
        for f, b in parts
    ]


class _LateCommit:
    """A server that sends an atomic batch's answer before its writes are visible: GET of a
    member an atomic batch reported created answers 404 for the rest of the plant."""

    def __init__(self) -> None:
        self.pending: set[str] = set()

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if req.method == "GET" and req.target in self.pending:
            resp.status, resp.body = 404, b""
            resp.set("Content-Type", None)
            return
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b and _ATOMIC(req) and is_batch(req) else None
        for fields, _ in parts or []:
            location = field_of(fields, "Location")
            if location:
                self.pending.add(re.sub(r"^[a-z]+://[^/]+", "", location))


def _reference_shifted(req: RelayRequest) -> None:
    """A server that counts parts from 1 when it resolves $(N): $(1) names part 0."""
    if _REFERENCES(req):
        req.body = re.sub(rb"\$\(([0-9]+)", lambda m: b"$(%d" % max(0, int(m[1]) - 1), req.body)


def _unresolved_as_424(parts: list[Part]) -> list[Part]:
    out = []
    for f, b in parts:
        if field_of(f, "Batch-Outcome") == "skipped" and b"MB-PROC-20" in b:
            f = [*without_field(f, "Batch-Outcome"), ("Http-Status-Code", "424")]
        out.append((f, b))
    return out


def _reference_member_dropped(parts: list[Part]) -> list[Part]:
    out = []
    for f, b in parts:
        if b"MB-PROC-20" in b:
            doc = json.loads(b)
            doc.pop("reference", None)
            b = json.dumps(doc).encode()
            f = set_field(f, "Content-Length", str(len(b)))
        out.append((f, b))
    return out


def _asks_207(req: RelayRequest) -> bool:
    return bool(re.search(r"(?i)xml|json", req.get("Accept") or ""))


def _modes_unread_for_207(req: RelayRequest) -> None:
    """A server that checks Batch-Mode only on the way to a multipart/mixed answer: for a 207
    form it drops a mode it does not know and runs the parts."""
    if _asks_207(req):
        _modes(lambda ms: [m for m in ms if m in ("atomic", "references")])(req)


def _json_unmarked(doc: dict[str, Any]) -> None:
    """The JSON form of an atomic batch with its rolled-back entries left unmarked."""
    for entry in doc.get("responses") or []:
        if entry.get("outcome") == "rolled-back":
            entry["outcome"] = None


def _undo_order(parts: list[Part]) -> list[Part]:
    """The rolled-back parts written as they were undone, last first."""
    places = [i for i, (f, _) in enumerate(parts) if field_of(f, "Batch-Outcome") == "rolled-back"]
    out = list(parts)
    for i, j in zip(places, reversed(places), strict=True):
        out[i] = parts[j]
    return out


def _json_rolled_back_bare(doc: dict[str, Any]) -> None:
    """The JSON form with a rolled-back entry's header fields and body dropped."""
    for entry in doc.get("responses") or []:
        if entry.get("outcome") == "rolled-back":
            entry["headers"] = []
            entry.pop("body_base64", None)
            entry["body"] = ""


def _abort_names_part_0(parts: list[Part]) -> list[Part]:
    """The abort part's problem naming part 0: nothing of an atomic batch stands."""
    out = []
    for f, b in parts:
        if field_of(f, "Batch-Outcome") == "aborted":
            doc = json.loads(b)
            doc["part_index"] = 0
            b = json.dumps(doc).encode()
            f = set_field(f, "Content-Length", str(len(b)))
        out.append((f, b))
    return out


def _rolled_back_validators_dropped(parts: list[Part]) -> list[Part]:
    """Rolled-back parts without the ETag and Last-Modified their sub-responses gave."""
    out = []
    for f, b in parts:
        if field_of(f, "Batch-Outcome") == "rolled-back":
            f = without_field(without_field(f, "ETag"), "Last-Modified")
        out.append((f, b))
    return out


#: The modes the reference server implements; any other token is one it must refuse.
_IMPLEMENTED = ("atomic", "references")


def _unknown_modes_dropped_when_unused(req: RelayRequest) -> None:
    """A server that refuses a mode only when the content would use it: with no reference in
    the content, the modes it does not implement are dropped and the batch runs."""
    if b"$(" not in req.body:
        _modes(lambda ms: [m for m in ms if m in _IMPLEMENTED])(req)


def _moded_batch_answered_multipart(req: RelayRequest) -> None:
    """A server that answers a batch in any mode in multipart/mixed, whatever Accept says."""
    if is_batch(req) and req.get("Batch-Mode") is not None:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]


def _part_accept_taken_for_batch(req: RelayRequest) -> None:
    """A batch without Accept answered in the form a part's own Accept asks for."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) and req.get("Accept") is None else None
    for fields, _ in parts or []:
        accept = field_of(fields, "Accept")
        if accept is not None:
            req.headers.append(("Accept", accept))
            return


_late = _LateCommit()
P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-PROC-8: rolled-back parts with their real status, the failing part unmarked.
    P(
        "rolled-back-unmarked",
        "MB-PROC-8 outcomes",
        ("atomic-failure-outcomes",),
        on_response=map_parts(_unmarked, _ATOMIC),
    ),
    P(
        "atomic-failure-keeps-writes",
        "MB-PROC-8 undo",
        ("atomic-failure-undoes-writes",),
        on_request=_modes(lambda ms: [m for m in ms if m.lower() != "atomic"]),
    ),
    # MB-PROC-10: a rolled-back part still passes its sub-response's validators through.
    P(
        "rolled-back-validators-dropped",
        "MB-PROC-10 on a rolled-back part",
        ("rolled-back-validators-kept",),
        on_response=map_parts(_rolled_back_validators_dropped, _ATOMIC),
    ),
    # MB-PROC-14: an atomic batch stopped before it commits is rolled back.
    P(
        "atomic-abort-unmarked",
        "MB-PROC-14",
        ("atomic-abort-rolls-back",),
        on_response=map_parts(_unmarked, _ATOMIC),
    ),
    P(
        "json-atomic-abort-unmarked",
        "MB-PROC-14 JSON form",
        ("atomic-abort-rolls-back",),
        on_response=map_json(_json_unmarked, _ATOMIC),
    ),
    # MB-RESP-1: rolled-back parts in request order, not in the order they were undone.
    P(
        "rolled-back-parts-in-undo-order",
        "MB-RESP-1 rolled-back parts reversed",
        ("atomic-failing-edges",),
        on_response=map_parts(_undo_order, _ATOMIC),
    ),
    # MB-MULTI-5: a rolled-back part keeps its fields and body in every form.
    P(
        "json-rolled-back-fields-dropped",
        "MB-MULTI-5 rolled-back fields and body in the JSON form",
        ("atomic-failing-edges", "atomic-failure-outcomes"),
        on_response=map_json(_json_rolled_back_bare, _ATOMIC),
    ),
    # MB-STATUS-14: the abort names the first part not answered, in an atomic batch too.
    P(
        "atomic-abort-names-part-0",
        "MB-STATUS-14 an atomic abort naming part 0",
        ("atomic-abort-rolls-back",),
        on_response=map_parts(_abort_names_part_0, _ATOMIC),
    ),
    # MB-PROC-15: no reader sees half an atomic batch.
    P(
        "atomic-writes-visible-as-they-run",
        "MB-PROC-15",
        ("atomic-no-partial-state",),
        on_request=_modes(lambda ms: [m for m in ms if m.lower() != "atomic"]),
    ),
    # MB-PROC-16: committed before the first response part is sent.
    P(
        "atomic-answered-before-commit",
        "MB-PROC-16",
        ("atomic-commit-visible",),
        on_response=_late.response,
    ),
    # MB-PROC-12: Batch-Mode values are compared case-sensitively.
    P(
        "batch-mode-case-insensitive",
        "MB-PROC-12 case",
        ("batch-mode-case-sensitive",),
        on_request=_modes(lambda ms: [m.lower() for m in ms]),
    ),
    P(
        "batch-mode-unread-for-207",
        "MB-PROC-12 in the 207 forms",
        ("batch-mode-case-sensitive",),
        on_request=_modes_unread_for_207,
    ),
    # MB-PROC-8: a part fails at 400 and above, in an atomic batch as under stop.
    P(
        "atomic-fails-only-above-400",
        "MB-PROC-8 a 400 not failing",
        ("atomic-failing-edges",),
        on_request=lambda req: (
            _modes(lambda ms: [m for m in ms if m.lower() != "atomic"])(req)
            if re.search(rb"/status/400\b", req.body)
            else None
        ),
    ),
    # MB-PROC-17: Batch-Mode is a list; any unknown mode is 501.
    P(
        "batch-mode-first-listed-only",
        "MB-PROC-17",
        ("batch-mode-list",),
        on_request=_modes(lambda ms: ms[:1]),
    ),
    # MB-PROC-18: $(N) replaced by part N's Location before the part runs.
    P(
        "references-mode-ignored",
        "MB-PROC-18 not resolved",
        ("references-location",),
        on_request=_modes(lambda ms: [m for m in ms if m.lower() != "references"]),
    ),
    P(
        "reference-counts-from-one",
        "MB-PROC-18 wrong part",
        ("references-location",),
        on_request=_reference_shifted,
    ),
    P(
        "reference-syntax-refused-without-mode",
        "MB-PROC-18 syntax outside the mode",
        ("reference-syntax-plain-without-mode",),
        on_response=refuses(
            all_of(lambda req: not _REFERENCES(req), body_has(rb"\r\nContent-Id: <[^>\r\n]*\$\(")),
            requirement="MB-PART-4",
        ),
    ),
    # MB-PROC-19: a forward reference is 400 before any part runs.
    P(
        "forward-reference-accepted",
        "MB-PROC-19",
        ("references-forward-refused",),
        on_response=accepts(
            all_of(
                _REFERENCES, body_has(rb"\A--[^\r\n]*\r\nHttp-Method: GET\r\nContent-Id: <\$\(1\)>")
            )
        ),
    ),
    P(
        "self-reference-accepted",
        "MB-PROC-19 a part naming itself",
        ("references-forward-refused",),
        on_response=accepts(
            all_of(
                _REFERENCES,
                body_has(rb"\r\n\r\n--[^\r\n]*\r\nHttp-Method: GET\r\nContent-Id: <\$\(1\)>"),
            )
        ),
    ),
    P(
        "missing-part-reference-accepted",
        "MB-PROC-19 a part that does not exist",
        ("references-forward-refused",),
        on_response=accepts(all_of(_REFERENCES, body_has(rb"Content-Id: <\$\(2\)>"))),
    ),
    P(
        "field-reference-in-content-id-accepted",
        "MB-PROC-19 a field name in a Content-Id reference",
        ("references-forward-refused",),
        on_response=accepts(all_of(_REFERENCES, body_has(rb"Content-Id: <[^>\r\n]*\$\(0:"))),
    ),
    P(
        "forward-reference-in-field-accepted",
        "MB-PROC-19 a later part named in a field value",
        ("references-forward-refused",),
        on_response=accepts(all_of(_REFERENCES, body_has(rb"(?i)if-none-match: \$\(1:"))),
    ),
    # MB-PROC-20: an unresolved part is skipped with a problem naming the reference.
    P(
        "unresolved-reference-answered-424",
        "MB-PROC-20 status",
        ("references-unresolved-skipped",),
        on_response_parts=_unresolved_as_424,
    ),
    P(
        "unresolved-reference-as-failing",
        "MB-PROC-20 an unresolved part taken as failing",
        ("references-unresolved-skipped",),
        on_response=map_parts(
            stops_at_unresolved, all_of(_REFERENCES, header_has("Prefer", r"(?i)stop"))
        ),
    ),
    P(
        "unresolved-problem-without-reference",
        "MB-PROC-20 problem",
        ("references-unresolved-skipped",),
        on_response_parts=_reference_member_dropped,
    ),
    # MB-PROC-21: an atomic batch with an unresolved reference rolls back.
    P(
        "atomic-unresolved-not-rolled-back",
        "MB-PROC-21",
        ("references-atomic-unresolved",),
        on_response=map_parts(_unmarked, all_of(_ATOMIC, _REFERENCES)),
    ),
    P(
        "unknown-mode-dropped-when-unused",
        "MB-PROC-17 a mode refused only when the content uses it",
        ("unimplemented-mode-refused-unused",),
        on_request=_unknown_modes_dropped_when_unused,
    ),
    # MB-MULTI-1: Accept chooses the form whatever the mode.
    P(
        "moded-batch-always-multipart",
        "MB-MULTI-1 Accept ignored in a Batch-Mode batch",
        ("form-chosen-in-every-mode",),
        on_request=_moded_batch_answered_multipart,
    ),
    P(
        "part-accept-taken-for-batch",
        "MB-MULTI-1 a part's Accept taken for the batch's",
        ("part-fields-leave-batch-form",),
        on_request=_part_accept_taken_for_batch,
    ),
)
