"""Planted readings of the batch's origin, scope and connection (spec 4.1, 4.2, 8.2, 8.3, 10.1,
11, 12: MB-SUB-2, MB-SUB-6, MB-INTER-6, MB-PIPE-1, MB-METHOD-2, MB-METHOD-7, MB-SEC-2).

A same-origin test that normalises the host's percent-encoding (RFC 3986 §6.2.2.2) or reads the
port into 16 bits; a server that passes on, with the batch's Cookie, the anti-CSRF token that
goes with it, or the batch's media type to a part whose content names none; one that takes
chunked content to have had its content coding removed with its transfer coding; one that ends
the connection after a refusal of section 8, its content read whole; an endpoint that matches
its methods whatever their case; and a collection whose aggregate validator, kept up to date by
every write, survives an atomic rollback that restores the members; and a committed atomic
batch that points at the one resource it created from its header section.
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    accepts,
    body_has,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The port of an absolute Content-Id target.
_TARGET_PORT = re.compile(rb"(?im)^Content-Id:[ \t]*<https?://[^/>@]*:([0-9]+)[/>?]")
#: Anti-CSRF token fields a server passes on beside the batch's Cookie.
_CSRF_FIELDS = ("X-CSRF-Token", "X-XSRF-Token", "X-CSRFToken")
#: Section 8's refusals, by the requirement their problem document names.
_SECTION_8 = frozenset({"MB-SUB-2", "MB-SUB-3", "MB-SUB-4", "MB-SUB-8"})


def _port_over_16_bits(req: RelayRequest) -> bool:
    return req.method == "POST" and any(
        int(m.group(1)) > 0xFFFF for m in _TARGET_PORT.finditer(req.body)
    )


def _csrf_with_cookie(req: RelayRequest) -> None:
    """Give each part without them the batch's anti-CSRF fields, when the part inherits the
    batch's Cookie."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if parts is None or b is None or req.get("Cookie") is None:
        return
    out: list[Part] = []
    for fields, body in parts:
        if field_of(fields, "Cookie") is None:
            for name in _CSRF_FIELDS:
                value = req.get(name)
                if value is not None and field_of(fields, name) is None:
                    fields = set_field(fields, name, value)
        out.append((fields, body))
    req.body = write_parts(out, b)


def _batch_type_for_untyped_content(req: RelayRequest) -> None:
    """Give each part with content and no Content-Type the batch's media type, less its
    parameters."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if parts is None or b is None:
        return
    media = (req.get("Content-Type") or "").split(";")[0].strip()
    out: list[Part] = [
        (set_field(fields, "Content-Type", media), body)
        if body and field_of(fields, "Content-Type") is None
        else (fields, body)
        for fields, body in parts
    ]
    req.body = write_parts(out, b)


def _coding_dropped_when_chunked(req: RelayRequest) -> None:
    if is_batch(req) and req.chunks:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]


def _close_after_section_8(req: RelayRequest, resp: RelayResponse) -> None:
    if not is_batch(req) or resp.status != 400:
        return
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    if isinstance(doc, dict) and doc.get("requirement") in _SECTION_8:
        resp.close = True


def _method_case_folded(req: RelayRequest) -> None:
    if req.method != req.method.upper() and req.method.upper() in ("POST", "OPTIONS"):
        req.method = req.method.upper()


def _atomic_creation_at_top(req: RelayRequest, resp: RelayResponse) -> None:
    """A committed atomic batch that created one resource points at it from its header
    section."""
    if not is_batch(req) or (req.get("Batch-Mode") or "").strip() != "atomic":
        return
    b = boundary_of(resp)
    parts = (parts_of(resp.body, b) or []) if b else []
    created = [
        field_of(fields, "Location")
        for fields, _ in parts
        if (field_of(fields, "Http-Status-Code") or "").strip() == "201"
        and field_of(fields, "Batch-Outcome") is None
    ]
    if len(created) == 1 and created[0]:
        resp.headers.append(("Location", created[0]))


def _tag_kept_through_rollback() -> Mutation:
    """The aggregate ETag a rolled-back part's collection retrieval carried, kept for that
    collection and sent again on the retrievals after the rollback."""
    kept: dict[str, str] = {}

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req) and (req.get("Batch-Mode") or "").strip() == "atomic":
            b = boundary_of(resp)
            for fields, _ in (parts_of(resp.body, b) or []) if b else []:
                tag = field_of(fields, "ETag")
                media = (field_of(fields, "Content-Type") or "").lower()
                cid = (field_of(fields, "Content-Id") or "").strip()[1:-1]
                rolled = (field_of(fields, "Batch-Outcome") or "").strip() == "rolled-back"
                if rolled and tag and media.startswith("multipart/mixed") and cid:
                    kept[cid.split("?")[0]] = tag
            return
        path = req.target.split("?")[0]
        if req.method == "GET" and resp.status == 200 and path in kept:
            resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "etag"]
            resp.headers.append(("ETag", kept[path]))

    return Mutation(
        "aggregate-tag-kept-through-rollback",
        "MB-METHOD-7 an atomic rollback restores a collection's members but not the aggregate "
        "tag the undone write gave it",
        ("sandbox-collection-strong-etag-across-rollback",),
        on_response=edit,
    )


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "target-host-percent-decoded",
        "MB-SUB-2 a target's host compared once its percent-encoding is decoded",
        ("reject-target-host-percent-encoded",),
        on_response=accepts(body_has(rb"(?im)^Content-Id:[ \t]*<https?://[^/>@]*%[0-9A-Fa-f]{2}")),
    ),
    Mutation(
        "target-port-read-in-16-bits",
        "MB-SUB-2 a target's port read into 16 bits, so the batch's port plus 65536 is its own",
        ("reject-target-port-plus-2-16", "reject-target-port-plus-2-32"),
        on_response=accepts(_port_over_16_bits),
    ),
    Mutation(
        "csrf-token-inherited-with-cookie",
        "MB-SUB-6 the batch's anti-CSRF token given to every part that inherits its Cookie",
        ("credential-companion-fields-not-inherited",),
        on_request=_csrf_with_cookie,
    ),
    Mutation(
        "batch-media-type-given-to-untyped-content",
        "MB-SUB-6 a part with content and no Content-Type given the batch's media type",
        ("client-fields-not-inherited",),
        on_request=_batch_type_for_untyped_content,
    ),
    Mutation(
        "content-coding-ignored-when-chunked",
        "MB-INTER-6 a chunked batch taken to have had its content coding removed with the "
        "chunked transfer coding",
        ("content-coded-batch-runs-nothing",),
        on_request=_coding_dropped_when_chunked,
    ),
    Mutation(
        "section-8-refusal-closes-connection",
        "MB-PIPE-1 a batch refused by a rule of section 8, its content read whole, answered "
        "with Connection: close",
        ("pipelining-behind-every-answer",),
        on_response=_close_after_section_8,
    ),
    Mutation(
        "endpoint-method-case-folded",
        "MB-METHOD-2 the batch endpoint's POST and OPTIONS matched whatever their case",
        ("endpoint-methods-other-case-refused",),
        on_request=_method_case_folded,
    ),
    Mutation(
        "atomic-creation-location-at-top",
        "MB-SEC-2 a committed atomic batch that created one resource carries its Location in "
        "the batch response's header section",
        ("top-level-fields-without-created-resource",),
        on_response=_atomic_creation_at_top,
    ),
    _tag_kept_through_rollback(),
)
