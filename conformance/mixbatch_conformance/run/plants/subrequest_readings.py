"""Planted violations of what a sub-request is made of: its credentials (MB-SUB-5), its method
and header fields (MB-PART-8), its authority (MB-PART-13), its target (MB-PART-5) and the
resource's own checks (MB-SUB-1), each broken only for some parts.

    options-parts-inherit-no-credentials    OPTIONS parts taken for CORS preflights and given
                                            neither the batch's Authorization nor its Cookie
    credentials-withheld-after-refusal      parts after one answered 401 run without the
                                            batch's credentials, as if the batch had lost them
    method-override-in-post-parts           a POST part's X-HTTP-Method-Override honoured, in
                                            batches only
    part-forwarded-host-as-authority        a part's own Forwarded host= (or X-Forwarded-Host)
                                            made its sub-request's authority
    part-forwarding-fields-dropped          a part's own Forwarded and X-Forwarded-* fields
                                            dropped before its resource, neither refused nor
                                            handed on (MB-PART-8)
    encoded-dot-segments-removed            segments of percent-encoded dots decoded and then
                                            removed as dot segments, in batches only, so a part
                                            reaches what the same request alone does not
    sandbox-size-checked-at-the-edge        the sandbox's bound on what it stores checked where
                                            standalone requests arrive, so a part stores what
                                            the resource refuses alone
    batch-return-minimal-empties-parts      the batch's Prefer: return=minimal applied to its
                                            parts, each 2xx part's content dropped (MB-RESP-4)
"""

from __future__ import annotations

import json
import re
from typing import Any

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    echo_doc,
    field_of,
    is_batch,
    map_answered_parts,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

CREDENTIALS = ("authorization", "cookie")
#: A segment of percent-encoded dots (one or two, in any mix of `.`, `%2e` and `%2E`) that
#: holds at least one escape.
ENCODED_DOTS = re.compile(r"(?<=/)(?=[^/]*%2[eE])(?:\.|%2[eE]){1,2}(?=/)")
#: The reference's sandbox stores books of up to 64 KiB.
SANDBOX_BOUND = 64 * 1024


def _echo_edit(body: bytes, fn: Any) -> bytes | None:
    """The echo description in `body` edited by `fn(doc)`, or None when it is no echo's."""
    doc = echo_doc(body)
    if doc is None or not isinstance(doc["headers"], list):
        return None
    fn(doc)
    return json.dumps(doc).encode()


def _with_body(fields: FieldList, body: bytes) -> Part:
    if field_of(fields, "Content-Length") is not None:
        fields = set_field(fields, "Content-Length", str(len(body)))
    return fields, body


def _drop_credentials(doc: dict[str, Any]) -> None:
    doc["headers"] = [h for h in doc["headers"] if str(h[0]).lower() not in CREDENTIALS]


def _own_credentials(fields: FieldList) -> bool:
    return any(n.lower() in CREDENTIALS for n, _ in fields)


def _options_without_credentials(sent: Part, answered: Part) -> Part:
    if (field_of(sent[0], "Http-Method") or "") != "OPTIONS" or _own_credentials(sent[0]):
        return answered
    body = _echo_edit(answered[1], _drop_credentials)
    return answered if body is None else _with_body(answered[0], body)


def _withheld_after_refusal(req: RelayRequest, resp: RelayResponse) -> None:
    refused = False

    def edit(sent: Part, answered: Part) -> Part:
        nonlocal refused
        got = answered
        if refused and not _own_credentials(sent[0]):
            body = _echo_edit(answered[1], _drop_credentials)
            got = answered if body is None else _with_body(answered[0], body)
        refused = refused or field_of(answered[0], "Http-Status-Code") == "401"
        return got

    map_answered_parts(edit)(req, resp)


def _override_methods(parts: list[Part]) -> list[Part]:
    out = []
    for fields, body in parts:
        wanted = field_of(fields, "X-HTTP-Method-Override")
        if field_of(fields, "Http-Method") == "POST" and wanted and wanted.isalpha():
            fields = set_field(fields, "Http-Method", wanted.upper())
        out.append((fields, body))
    return out


def _forwarded_host(fields: FieldList) -> str | None:
    forwarded = field_of(fields, "Forwarded") or ""
    found = re.search(r"(?i)(?:^|[;,\s])host=\"?([^;,\"\s]+)", forwarded)
    return found.group(1) if found else field_of(fields, "X-Forwarded-Host")


def _authority_from_part(sent: Part, answered: Part) -> Part:
    host = _forwarded_host(sent[0])
    if host is None:
        return answered
    body = _echo_edit(answered[1], lambda doc: doc.__setitem__("authority", host))
    return answered if body is None else _with_body(answered[0], body)


def _forwarding_dropped(parts: list[Part]) -> list[Part]:
    """Each part's Forwarded and X-Forwarded-* fields left out of its sub-request."""
    return [
        ([(n, v) for n, v in fields if not re.match(r"(?i)(x-)?forwarded", n)], body)
        for fields, body in parts
    ]


#: The Content-Id each part of a batch was written with, before the encoded-dot plant rewrote
#: it, by the id of the request it went out in: the answer echoes what the client sent.
_SENT_IDS: dict[int, list[str | None]] = {}


def _decode_dot_segments(req: RelayRequest) -> None:
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if b is None or parts is None:
        return
    _SENT_IDS[id(req)] = [field_of(fields, "Content-Id") for fields, _ in parts]
    out = []
    for fields, body in parts:
        cid = field_of(fields, "Content-Id")
        if cid and ENCODED_DOTS.search(cid):
            decoded = ENCODED_DOTS.sub(
                lambda m: m.group(0).replace("%2e", ".").replace("%2E", "."), cid
            )
            fields = set_field(fields, "Content-Id", decoded)
        out.append((fields, body))
    req.body = write_parts(out, b)


def _echo_sent_ids(req: RelayRequest, resp: RelayResponse) -> None:
    sent = _SENT_IDS.pop(id(req), None)
    b = boundary_of(resp)
    answered = parts_of(resp.body, b) if b and sent is not None else None
    if b is None or sent is None or answered is None or len(answered) != len(sent):
        return
    out = []
    for cid, (fields, body) in zip(sent, answered, strict=True):
        if cid is not None and field_of(fields, "Content-Id") is not None:
            fields = set_field(fields, "Content-Id", cid)
        out.append((fields, body))
    resp.body = write_parts(out, b)


def _stored_in_part(sent: Part, answered: Part) -> Part:
    fields = answered[0]
    if (
        field_of(sent[0], "Http-Method") == "POST"
        and len(sent[1]) > SANDBOX_BOUND
        and field_of(fields, "Http-Status-Code") == "413"
    ):
        fields = [(n, v) for n, v in fields if n.lower() not in ("content-type", "content-length")]
        return [*set_field(fields, "Http-Status-Code", "201"), ("Content-Length", "0")], b""
    return answered


def _minimal_parts(req: RelayRequest, resp: RelayResponse) -> None:
    if "return=minimal" not in (req.get("Prefer") or "").replace(" ", ""):
        return

    def empty(sent: Part, answered: Part) -> Part:
        status = field_of(answered[0], "Http-Status-Code") or ""
        return _with_body(answered[0], b"") if status.startswith("2") else answered

    map_answered_parts(empty)(req, resp)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "options-parts-inherit-no-credentials",
        "MB-SUB-5 OPTIONS parts given neither the batch's Authorization nor its Cookie",
        ("credentials-inherited-every-method-and-after-refusals",),
        caught_by=("FAIL",),
        on_response=map_answered_parts(_options_without_credentials),
    ),
    Mutation(
        "credentials-withheld-after-refusal",
        "MB-SUB-5 parts after one answered 401 run without the batch's credentials",
        ("credentials-inherited-every-method-and-after-refusals",),
        caught_by=("FAIL",),
        on_response=_withheld_after_refusal,
    ),
    Mutation(
        "method-override-in-post-parts",
        "MB-PART-8 a POST part's X-HTTP-Method-Override honoured in batches only",
        ("part-field-kinds-reach-resource",),
        caught_by=("FAIL",),
        on_request_parts=_override_methods,
    ),
    Mutation(
        "part-forwarded-host-as-authority",
        "MB-PART-13 a part's own Forwarded host= made its sub-request's authority",
        ("part-forwarding-fields-keep-authority",),
        caught_by=("FAIL",),
        on_response=map_answered_parts(_authority_from_part),
    ),
    Mutation(
        "part-forwarding-fields-dropped",
        "MB-PART-8 a part's own forwarding fields dropped before its resource",
        ("part-forwarding-fields-keep-authority",),
        caught_by=("FAIL",),
        on_request_parts=_forwarding_dropped,
    ),
    Mutation(
        "encoded-dot-segments-removed",
        "MB-SUB-1 segments of percent-encoded dots removed as dot segments in batches only",
        ("target-path-octets-as-alone",),
        caught_by=("FAIL",),
        on_request=_decode_dot_segments,
        on_response=_echo_sent_ids,
    ),
    Mutation(
        "sandbox-size-checked-at-the-edge",
        "MB-SUB-1 a part stores what the sandbox refuses alone for its size",
        ("sandbox-write-sizes-as-alone",),
        caught_by=("FAIL",),
        on_response=map_answered_parts(_stored_in_part),
    ),
    Mutation(
        "batch-return-minimal-empties-parts",
        "MB-RESP-4 the batch's Prefer: return=minimal empties its 2xx parts' content",
        ("continue-whatever-other-preferences",),
        caught_by=("FAIL",),
        on_response=_minimal_parts,
    ),
)
