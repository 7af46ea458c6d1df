"""Planted violations of the response requirements (MB-RESP-*, MB-STATUS-*).

A response plant writes the answer of a processed batch wrongly (a part too many, a status
field malformed, a field or the content lost), or gives a refused or stopped batch the wrong
status or problem document.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    accepts,
    body_has,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_parts,
    map_response,
    parts_of,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


PartsFn = Callable[[list[Part]], list[Part]]
RespFn = Callable[[RelayResponse], None]


def _sniffed_type_on_empty(parts: list[Part]) -> list[Part]:
    """A part that ran with no content and no Content-Type gets the type a sniffer gives an
    empty body, a field its sub-response does not have."""
    return [
        (set_field(f, "Content-Type", "text/plain; charset=utf-8"), b)
        if not b and field_of(f, "Http-Status-Code") and field_of(f, "Content-Type") is None
        else (f, b)
        for f, b in parts
    ]


def _status(value: str) -> PartsFn:
    return lambda parts: [(set_field(f, "Http-Status-Code", value), b) for f, b in parts]


def _double_status(parts: list[Part]) -> list[Part]:
    return [
        ([*f, ("Http-Status-Code", field_of(f, "Http-Status-Code") or "200")], b) for f, b in parts
    ]


def _duplicate_first(parts: list[Part]) -> list[Part]:
    return [parts[0], *parts] if parts else parts


def _cid_space(parts: list[Part]) -> list[Part]:
    return [
        (set_field(f, "Content-Id", (field_of(f, "Content-Id") or "<>")[:-1] + " >"), b)
        for f, b in parts
    ]


def _empty_bodies(parts: list[Part]) -> list[Part]:
    return [
        ([(n, "0" if n.lower() == "content-length" else v) for n, v in f], b"") for f, b in parts
    ]


def _hop_by_hop(parts: list[Part]) -> list[Part]:
    return [([*f, ("Connection", "close")], b) for f, b in parts]


def _accept_patch_dropped_from_415(parts: list[Part]) -> list[Part]:
    """A server that writes a 415 sub-response's hint field only on a standalone answer."""
    return [
        (without_field(f, "Accept-Patch") if field_of(f, "Http-Status-Code") == "415" else f, b)
        for f, b in parts
    ]


def _location_in_cid(parts: list[Part]) -> list[Part]:
    out = []
    for f, b in parts:
        loc = field_of(f, "Location")
        if loc:
            f = set_field(without_field(f, "Location"), "Content-Id", f"<{loc}>")
        out.append((f, b))
    return out


def _drop_location(parts: list[Part]) -> list[Part]:
    return [(without_field(f, "Location"), b) for f, b in parts]


def _skipped_with_status(parts: list[Part]) -> list[Part]:
    return [
        ([*f, ("Http-Status-Code", "424")] if ("Batch-Outcome", "skipped") in f else f, b)
        for f, b in parts
    ]


def _skipped_unmarked(parts: list[Part]) -> list[Part]:
    return [
        ([(n, v) for n, v in f if n != "Batch-Outcome"], b)
        if ("Batch-Outcome", "skipped") in f
        else (f, b)
        for f, b in parts
    ]


def _problem_edit(key: str, value: object) -> RespFn:
    def edit(resp: RelayResponse) -> None:
        if resp.status >= 400 and "problem+json" in (resp.get("Content-Type") or ""):
            doc = json.loads(resp.body)
            if value is None:
                doc.pop(key, None)
            else:
                doc[key] = value
            resp.body = json.dumps(doc).encode()

    return edit


def _status_map(src: set[int], dst: int) -> RespFn:
    def edit(resp: RelayResponse) -> None:
        if resp.status in src:
            resp.status = dst
            if "problem+json" in (resp.get("Content-Type") or ""):
                doc = json.loads(resp.body)
                doc["status"] = dst
                resp.body = json.dumps(doc).encode()

    return edit


def _abort_part_index(delta: int) -> PartsFn:
    def edit(parts: list[Part]) -> list[Part]:
        out = []
        for f, b in parts:
            if field_of(f, "Batch-Outcome") == "aborted":
                doc = json.loads(b)
                doc["part_index"] = int(doc.get("part_index", 0)) + delta
                b = json.dumps(doc).encode()
                f = set_field(f, "Content-Length", str(len(b)))
            out.append((f, b))
        return out

    return edit


def _abort_status(parts: list[Part]) -> list[Part]:
    out = []
    for f, b in parts:
        if field_of(f, "Batch-Outcome") == "aborted":
            doc = json.loads(b)
            doc["status"] = 400
            b = json.dumps(doc).encode()
            f = set_field(f, "Content-Length", str(len(b)))
        out.append((f, b))
    return out


def _abort_as_text(parts: list[Part]) -> list[Part]:
    return [
        (set_field(f, "Content-Type", "text/plain"), b)
        if field_of(f, "Batch-Outcome") == "aborted"
        else (f, b)
        for f, b in parts
    ]


def _two_faults(req: RelayRequest) -> bool:
    """The several-faults check's request: a bare LF delimiter and an oversized header."""
    return is_batch(req) and req.body.count(b"\n") != 2 * req.body.count(b"\r\n")


def _other_fault(resp: RelayResponse) -> None:
    if resp.status >= 400 and "problem+json" in (resp.get("Content-Type") or ""):
        doc = json.loads(resp.body)
        doc["requirement"] = "MB-SUB-3" if doc.get("requirement") != "MB-SUB-3" else "MB-WIRE-8"
        resp.body = json.dumps(doc).encode()


def _cut_answers_at(cut: int) -> Callable[[list[Part]], list[Part]]:
    """A recorder that holds at most `cut` octets of a sub-response and drops the rest."""

    def edit(parts: list[Part]) -> list[Part]:
        return [
            (set_field(f, "Content-Length", str(min(len(b), cut))) if len(b) > cut else f, b[:cut])
            for f, b in parts
        ]

    return edit


def _content_on_no_content(parts: list[Part]) -> list[Part]:
    body = b"handler wrote this"
    return [
        (set_field(f, "Content-Length", str(len(body))), body)
        if field_of(f, "Http-Status-Code") in ("204", "304")
        else (f, b)
        for f, b in parts
    ]


def _etag_copied_up_in_207(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that lifts the first entry's ETag into the header of a 207 form."""
    if not is_batch(req) or resp.status != 207:
        return
    found = re.search(rb'<[A-Za-z0-9_:-]*header name="ETag">([^<]*)<', resp.body)
    if found is not None:
        resp.set("ETag", found[1].decode("latin-1"))
        return
    if "json" in (resp.get("Content-Type") or ""):
        doc = json.loads(resp.body)
        entries = doc.get("responses") if isinstance(doc, dict) else None
        first = entries[0].get("headers", []) if isinstance(entries, list) and entries else []
        for name, value in first:
            if name.lower() == "etag":
                resp.set("ETag", value)


#: Fields of a response part that say what the part is, not what the sub-response was.
_PART_OWN = {"content-id", "http-status-code", "content-length", "content-type"}


def _part_fields_copied_up(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that adds the last part's fields (Cache-Control, Set-Cookie, ...) to the batch
    response's header section where that section has no field of the name."""
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b and is_batch(req) else None
    if not parts:
        return
    top = {n.lower() for n, _ in resp.headers}
    for n, v in parts[-1][0]:
        if n.lower() not in _PART_OWN and n.lower() not in top:
            resp.headers.append((n, v))


def _empty_parts_unframed(parts: list[Part]) -> list[Part]:
    """A writer that gives Content-Length only to parts with content."""
    return [(f if b else without_field(f, "Content-Length"), b) for f, b in parts]


def _abort_part_unframed(parts: list[Part]) -> list[Part]:
    """An abort part written by hand outside the part writer, without Content-Length."""
    return [
        (without_field(f, "Content-Length") if field_of(f, "Batch-Outcome") == "aborted" else f, b)
        for f, b in parts
    ]


def _unresolved_part_unframed(parts: list[Part]) -> list[Part]:
    """A part skipped for an unresolved reference written without Content-Length."""
    return [(without_field(f, "Content-Length") if b"MB-PROC-20" in b else f, b) for f, b in parts]


def _skipped_reversed(parts: list[Part]) -> list[Part]:
    """The skipped parts written last first, as a writer draining a stack of the parts left."""
    places = [i for i, (f, _) in enumerate(parts) if field_of(f, "Batch-Outcome") == "skipped"]
    out = list(parts)
    for i, j in zip(places, reversed(places), strict=True):
        out[i] = parts[j]
    return out


def _aggregate_tag_of_ids(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection retrieval whose aggregate ETag hashes its members' Content-Ids only, so a
    member's new content leaves it unchanged."""
    b = boundary_of(resp)
    if req.method != "GET" or not b or not resp.get("ETag"):
        return
    parts = parts_of(resp.body, b)
    if parts is None:
        return
    ids = "\x00".join(field_of(f, "Content-Id") or "" for f, _ in parts)
    resp.set("ETag", f'"ids-{hashlib.sha256(ids.encode()).hexdigest()[:24]}"')


def _folded_after(width: int) -> PartsFn:
    """A writer that folds each field value at its first space past `width` octets."""

    def fold(value: str) -> str:
        cut = value.find(" ", width)
        return value if cut < 0 else value[:cut] + "\r\n " + value[cut + 1 :]

    return lambda parts: [([(n, fold(v)) for n, v in f], b) for f, b in parts]


def _failing_part_first(parts: list[Part]) -> list[Part]:
    """In a failed atomic batch, write the failing part (the one that ran unmarked among
    rolled-back and skipped ones) before the others."""
    outcomes = [field_of(f, "Batch-Outcome") for f, _ in parts]
    if "rolled-back" not in outcomes or None not in outcomes:
        return parts
    at = outcomes.index(None)
    return [parts[at], *parts[:at], *parts[at + 1 :]]


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-RESP-1: one part per request part, in order.
    P(
        "extra-part-written",
        "MB-RESP-1 count over",
        ("response-framing-strict",),
        on_response_parts=_duplicate_first,
    ),
    # MB-RESP-2: exactly one three-digit Http-Status-Code.
    P(
        "status-code-two-digits",
        "MB-RESP-2 digits",
        ("response-framing-strict",),
        on_response_parts=_status("20"),
    ),
    P(
        "status-code-repeated",
        "MB-RESP-2 repeated",
        ("response-framing-strict",),
        on_response_parts=_double_status,
    ),
    P(
        "status-reason-phrase-added",
        "MB-RESP-2 reason phrase",
        ("response-framing-strict",),
        on_response_parts=lambda p: [
            (set_field(f, "Http-Status-Code", (field_of(f, "Http-Status-Code") or "") + " OK"), b)
            for f, b in p
        ],
    ),
    # MB-RESP-3: Content-Id echoed octet for octet.
    P(
        "content-id-respaced",
        "MB-RESP-3 whitespace",
        ("content-id-forms-echoed",),
        on_response_parts=_cid_space,
    ),
    # MB-RESP-4: the sub-response's fields and content.
    P(
        "part-content-dropped-in-answer",
        "MB-RESP-4 content",
        ("batch-equals-alone",),
        on_response_parts=_empty_bodies,
    ),
    P(
        "allow-dropped-from-parts",
        "MB-RESP-4 Allow",
        ("batch-equals-alone",),
        on_response_parts=lambda parts: [(without_field(f, "Allow"), b) for f, b in parts],
    ),
    P(
        "accept-patch-dropped-from-415-parts",
        "MB-RESP-4 Accept-Patch of a refused PATCH",
        ("refused-patch-as-alone",),
        on_response_parts=_accept_patch_dropped_from_415,
    ),
    P(
        "hop-by-hop-field-kept",
        "MB-RESP-4 hop-by-hop",
        ("response-parts-without-framing-fields",),
        on_response_parts=_hop_by_hop,
    ),
    P(
        "response-body-cut-at-64k",
        "MB-RESP-4 content over 64 KiB",
        ("bodies-across-sizes",),
        on_response_parts=_cut_answers_at(65_536),
    ),
    P(
        "response-body-cut-at-1mib",
        "MB-RESP-4 content over 1 MiB",
        ("bodies-across-sizes",),
        on_response_parts=_cut_answers_at(1_048_576),
    ),
    P(
        "content-written-on-204",
        "MB-RESP-4 content on 204 and 304",
        ("no-content-on-204-304",),
        on_response_parts=_content_on_no_content,
    ),
    # MB-RESP-5: a skipped part carries Batch-Outcome: skipped and no status.
    P(
        "skipped-part-with-status",
        "MB-RESP-5 status on skipped",
        ("error-policy-stop",),
        on_response_parts=_skipped_with_status,
    ),
    P(
        "skipped-part-unmarked",
        "MB-RESP-5 no outcome",
        ("error-policy-stop",),
        on_response_parts=_skipped_unmarked,
    ),
    # MB-RESP-7: Location, not Content-Id, names a created resource.
    P(
        "created-uri-in-content-id",
        "MB-RESP-7 in Content-Id",
        ("created-location",),
        on_response_parts=_location_in_cid,
    ),
    P(
        "created-location-dropped",
        "MB-RESP-7 no Location",
        ("created-location",),
        on_response_parts=_drop_location,
    ),
    # MB-RESP-9: no interim status in a part.
    P(
        "interim-100-in-part",
        "MB-RESP-9 100",
        ("response-framing-strict",),
        on_response_parts=_status("100"),
    ),
    # MB-STATUS-1: a processed batch is 200.
    P(
        "processed-batch-answered-202",
        "MB-STATUS-1 202",
        ("accept-failing-part-in-processed-batch",),
        on_response=map_response(is_batch, _status_map({200}, 202)),
    ),
    P(
        "failed-part-batch-answered-207",
        "MB-STATUS-1 207 multipart",
        ("accept-failing-part-in-processed-batch",),
        on_response=lambda q, r: (
            setattr(r, "status", 207)
            if is_batch(q) and r.status == 200 and b"404" in r.body
            else None
        ),
    ),
    # MB-STATUS-2: a malformed envelope is 400 before any part runs.
    P(
        "second-part-malformed-accepted",
        "MB-STATUS-2 later part",
        ("reject-second-part-malformed",),
        on_response=accepts(
            body_has(rb"\r\n--[^\r\n]*\r\nContent-Id: <[^>]*>\r\n\r\n\r\n--[^\r\n]*--$")
        ),
    ),
    P(
        "malformed-answered-422",
        "MB-STATUS-2 status",
        ("reject-missing-close-delimiter",),
        on_response=map_response(is_batch, _status_map({400}, 422)),
    ),
    # MB-STATUS-3: over a limit is 413 (431 for a header section).
    P(
        "too-many-parts-answered-400",
        "MB-STATUS-3 parts status",
        ("reject-too-many-parts",),
        on_response=map_response(is_batch, _status_map({413}, 400)),
    ),
    P(
        "oversized-header-answered-413",
        "MB-STATUS-3 header status",
        ("reject-oversized-part-header",),
        on_response=map_response(is_batch, _status_map({431}, 413)),
    ),
    P(
        "oversized-part-answered-400",
        "MB-STATUS-3 part octets status",
        ("limit-part-bytes-one-over",),
        on_response=map_response(is_batch, _status_map({413}, 400)),
    ),
    # MB-STATUS-4: problem+json with status and requirement.
    P(
        "problem-status-member-wrong",
        "MB-STATUS-4 status member",
        ("reject-missing-close-delimiter",),
        on_response=map_response(is_batch, _problem_edit("status", 500)),
    ),
    P(
        "problem-requirement-missing",
        "MB-STATUS-4 requirement member",
        ("problem-document",),
        on_response=map_response(is_batch, _problem_edit("requirement", None)),
    ),
    P(
        "problem-requirement-invented",
        "MB-STATUS-4 unknown ID",
        ("problem-document",),
        on_response=map_response(is_batch, _problem_edit("requirement", "planted-unknown-id")),
    ),
    # MB-STATUS-6: the abort part and the close delimiter.
    P(
        "aborted-part-as-text",
        "MB-STATUS-6 media type",
        ("batch-abort-after-timeout",),
        on_response_parts=_abort_as_text,
    ),
    # MB-STATUS-13: the problem describes a fault the request has.
    P(
        "problem-names-absent-fault",
        "MB-STATUS-13",
        ("several-faults-any-status",),
        on_response=map_response(lambda r: r.method == "POST", _other_fault),
    ),
    # MB-STATUS-14: the abort problem's 5xx status and part_index.
    P(
        "abort-part-index-off-by-one",
        "MB-STATUS-14 part_index",
        ("batch-abort-after-timeout",),
        on_response_parts=_abort_part_index(1),
    ),
    P(
        "abort-problem-4xx",
        "MB-STATUS-14 status",
        ("batch-abort-after-timeout",),
        on_response_parts=_abort_status,
    ),
    # MB-STATUS-4: a fault found in a part is reported with that part's index.
    P(
        "problem-part-index-dropped",
        "MB-STATUS-4 part_index",
        ("problem-names-part",),
        on_response=map_response(is_batch, _problem_edit("part_index", None)),
    ),
    # MB-SEC-2 in the 207 forms, whose header section is written after the parts ran.
    P(
        "etag-copied-up-in-207",
        "MB-SEC-2 207 forms",
        ("top-level-fields",),
        on_response=_etag_copied_up_in_207,
    ),
    # MB-SEC-2 in the multipart form, from a part other than the first and beyond ETag.
    P(
        "part-fields-copied-up",
        "MB-SEC-2 any part field",
        ("sub-response-fields-not-at-top",),
        on_response=_part_fields_copied_up,
    ),
    # MB-WIRE-15: a part without content carries its Content-Length too.
    P(
        "empty-parts-unframed",
        "MB-WIRE-15 empty parts",
        ("every-part-kind-content-length",),
        on_response_parts=_empty_parts_unframed,
        caught_by=("WARN", "FAIL"),
    ),
    P(
        "unresolved-part-unframed",
        "MB-WIRE-15 a part skipped for an unresolved reference",
        ("every-part-kind-content-length",),
        on_response_parts=_unresolved_part_unframed,
        caught_by=("WARN", "FAIL"),
    ),
    # MB-RESP-1: the parts skipped under stop in request order.
    P(
        "skipped-parts-reversed",
        "MB-RESP-1 skipped parts reversed",
        ("error-policy-stop",),
        on_response=map_parts(_skipped_reversed, header_has("Prefer", r"(?i)batch-on-error=stop")),
    ),
    P(
        "abort-part-unframed",
        "MB-WIRE-15 the abort part",
        ("batch-abort-after-timeout",),
        on_response_parts=_abort_part_unframed,
        caught_by=("WARN", "FAIL"),
    ),
    # MB-METHOD-7: the aggregate tag changes with the members' content.
    P(
        "aggregate-etag-of-member-ids",
        "MB-METHOD-7 member content",
        ("aggregate-etag-follows-members",),
        on_response=_aggregate_tag_of_ids,
    ),
    # MB-PART-7: no part field is folded, whatever its length.
    P(
        "field-values-folded",
        "MB-PART-7 long values",
        ("long-field-values-unfolded",),
        on_response_parts=_folded_after(12),
    ),
    P(
        "vary-dropped-from-parts",
        "MB-RESP-4 Vary",
        ("batch-equals-alone",),
        on_response_parts=lambda parts: [
            ([(n, v) for n, v in f if n.lower() != "vary"], b) for f, b in parts
        ],
    ),
    P(
        "failing-part-written-first",
        "MB-RESP-1 order",
        ("atomic-failing-edges", "atomic-failure-outcomes"),
        on_response_parts=_failing_part_first,
    ),
    # MB-RESP-4: the sub-response's fields, none made up for an empty body.
    P(
        "sniffed-type-on-empty-part",
        "MB-RESP-4 a Content-Type added to a part with no content",
        ("no-content-parts-as-alone",),
        on_response_parts=_sniffed_type_on_empty,
    ),
)
