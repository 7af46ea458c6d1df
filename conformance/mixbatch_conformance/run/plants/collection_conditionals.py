"""Planted violations of conditional collection retrievals and conditional parts (spec 4.2,
5.2, 7.6, 8.4).

Each plant is a mistake a server makes on a path the plain retrieval does not take: a
collection that validates for caching only, so If-Match and If-Unmodified-Since never reach
it, or compares If-Match weakly (MB-STATUS-7); HEAD of an empty collection answered 200, an
empty collection answering 304 to any If-None-Match, or its 304 written without Vary
(MB-STATUS-11, MB-METHOD-4); a part asking for multipart/mixed refused as a nested batch, a
retrieval part's If-None-Match dropped, a multipart part's ETag left out of the JSON form
(MB-STATUS-1, MB-PROC-9, MB-RESP-4); and every part's preconditions evaluated against the
state the batch found, before the writes ahead of it ran (MB-PROC-9); a collection GET whose
content is refused only after its preconditions, so a deciding condition answers it 304 or 412
instead of 400 (MB-METHOD-3).
"""

from __future__ import annotations

from typing import Any

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    is_batch,
    map_json,
    problem,
)
from mixbatch_conformance.run.plants._preconditions import CONDITIONAL_FIELDS
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

P = Mutation
WRITES = frozenset({"PUT", "POST", "PATCH", "DELETE"})


def _retrieval(req: RelayRequest) -> bool:
    """A GET or HEAD sent alone whose Accept asks for multipart/mixed."""
    return (
        not is_batch(req)
        and req.method in ("GET", "HEAD")
        and "multipart" in (req.get("Accept") or "").lower()
    )


def _if_match_dropped(req: RelayRequest) -> None:
    """A collection that evaluates only the cache validators, If-None-Match and
    If-Modified-Since: If-Match and If-Unmodified-Since never decide its answer."""
    if _retrieval(req):
        req.headers = [
            (n, v) for n, v in req.headers if n.lower() not in ("if-match", "if-unmodified-since")
        ]


def _if_match_weak(req: RelayRequest) -> None:
    """A collection that compares If-Match by the weak comparison: the W/ form matches."""
    if _retrieval(req):
        req.headers = [
            (n, v.replace("W/", "") if n.lower() == "if-match" else v) for n, v in req.headers
        ]


def _content_checked_after_preconditions(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection GET whose content is refused only where its representation is written,
    after the preconditions: a condition that decides the answer wins over the 400."""
    if not (_retrieval(req) and req.method == "GET" and resp.status == 400):
        return
    fields = {n.lower(): v for n, v in req.headers}
    if "if-none-match" in fields or "if-modified-since" in fields:
        resp.status, resp.body = 304, b""
        resp.set("Content-Type", None)
    elif "if-match" in fields or "if-unmodified-since" in fields:
        resp.status = 412


def _head_empty_200(req: RelayRequest, resp: RelayResponse) -> None:
    """HEAD answered by a generic handler: 200 with no content, whatever GET would give."""
    if _retrieval(req) and req.method == "HEAD" and resp.status == 204:
        resp.status = 200


def _empty_304_for_any_tag(req: RelayRequest, resp: RelayResponse) -> None:
    """An empty collection that reads any If-None-Match as 'nothing changed': 304."""
    if _retrieval(req) and resp.status == 204 and req.get("If-None-Match"):
        resp.status = 304


def _empty_304_without_vary(req: RelayRequest, resp: RelayResponse) -> None:
    """A 304 of a collection without members (so without Last-Modified) written without the
    Vary its 204 carries."""
    if _retrieval(req) and resp.status == 304 and resp.get("Last-Modified") is None:
        resp.set("Vary", None)


def _refused_as_nested(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that takes a part asking for multipart/mixed for a nested batch and refuses
    the batch with 400."""
    body = req.body.lower()
    if is_batch(req) and b"\naccept: multipart/mixed" in body:
        problem(resp, 400, "MB-SUB-4")


def _retrieval_inm_dropped(parts: list[Part]) -> list[Part]:
    """Parts asking for multipart/mixed built without their conditional fields."""
    out: list[Part] = []
    for fields, body in parts:
        if "multipart" in (field_of(fields, "Accept") or "").lower():
            fields = [(n, v) for n, v in fields if n.lower() != "if-none-match"]
        out.append((fields, body))
    return out


def _json_multipart_etag_dropped(doc: dict[str, Any]) -> None:
    """The JSON form leaves out the validators of a part whose content is multipart."""
    for entry in doc.get("responses") or doc.get("entries") or []:
        headers = entry.get("headers") if isinstance(entry, dict) else None
        if not isinstance(headers, list):
            continue
        if any(h[0].lower() == "content-type" and "multipart" in h[1] for h in headers):
            entry["headers"] = [h for h in headers if h[0].lower() != "etag"]


def _preconditions_up_front(parts: list[Part]) -> list[Part]:
    """Preconditions evaluated while the envelope is validated, against the state the batch
    found: a part whose target an earlier part writes runs unconditionally."""
    written: set[str] = set()
    out: list[Part] = []
    for fields, body in parts:
        target = field_of(fields, "Content-Id") or ""
        kept: FieldList = fields
        if target in written:
            kept = [(n, v) for n, v in fields if n.lower() not in CONDITIONAL_FIELDS]
        if (field_of(fields, "Http-Method") or "").upper() in WRITES:
            written.add(target)
        out.append((kept, body))
    return out


PLANTS: tuple[Mutation, ...] = (
    P(
        "collection-content-checked-after-preconditions",
        "MB-METHOD-3 a collection GET with content answered by its preconditions, not 400",
        ("collection-get-with-content",),
        on_response=_content_checked_after_preconditions,
    ),
    # MB-STATUS-7: the status "describes the collection as a whole, as for any GET": a false
    # If-Match or If-Unmodified-Since is 412 (RFC 9110 §13.1.1, §13.1.4).
    P(
        "collection-ignores-if-match",
        "MB-STATUS-7 If-Match and If-Unmodified-Since on a retrieval",
        ("collection-get-conditional",),
        on_request=_if_match_dropped,
    ),
    P(
        "collection-if-match-weak",
        "MB-STATUS-7 If-Match compared weakly on a retrieval",
        ("collection-get-conditional",),
        on_request=_if_match_weak,
    ),
    # MB-STATUS-11: an existing collection without members is 204, HEAD as GET.
    P(
        "head-empty-collection-200",
        "MB-STATUS-11 HEAD of an empty collection",
        ("collection-head-and-empty-conditional",),
        on_response=_head_empty_200,
    ),
    P(
        "empty-collection-304-for-any-tag",
        "MB-STATUS-11 a foreign If-None-Match on an empty collection",
        ("collection-head-and-empty-conditional",),
        on_response=_empty_304_for_any_tag,
    ),
    # Spec 4.2: a 304 carries the aggregate ETag and Vary: Accept the 200 would have carried.
    P(
        "empty-collection-304-without-vary",
        "MB-METHOD-4 an empty collection's 304 without Vary",
        ("collection-head-and-empty-conditional",),
        on_response=_empty_304_without_vary,
    ),
    # Spec 8.4: "A part may still retrieve a collection with Accept: multipart/mixed".
    P(
        "part-retrieval-refused-as-nested",
        "MB-STATUS-1 a part asking for multipart/mixed refused as a nested batch",
        ("collection-retrieval-in-part",),
        on_response=_refused_as_nested,
    ),
    # MB-PROC-9: a retrieval part's If-None-Match evaluated as alone.
    P(
        "part-retrieval-if-none-match-dropped",
        "MB-PROC-9 a retrieval part's If-None-Match",
        ("collection-retrieval-in-part",),
        on_request_parts=_retrieval_inm_dropped,
    ),
    # MB-RESP-4: the sub-response's header fields go in the part, in every form (MB-MULTI-5).
    P(
        "json-multipart-part-etag-dropped",
        "MB-RESP-4 a retrieval part's ETag in the JSON form",
        ("collection-retrieval-in-part",),
        on_response=map_json(_json_multipart_etag_dropped),
    ),
    # MB-PROC-9 with MB-PROC-2: a part's precondition is evaluated when it runs.
    P(
        "preconditions-evaluated-before-parts-run",
        "MB-PROC-9 preconditions evaluated against the state before the batch",
        ("conditional-parts-after-writes",),
        on_request_parts=_preconditions_up_front,
    ),
)
