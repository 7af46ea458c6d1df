"""Planted violations of a GET that carries content and of a collection retrieval that carries
Range (spec 4.2, 5.2).

    get-batch-content-run-as-batch     a GET to the batch endpoint whose content is
                                       multipart/mixed, framed by Content-Length, taken for a
                                       batch sent with the wrong method and run as the POST
                                       would be (MB-METHOD-3)
    get-chunked-batch-content-run      the same for a chunked one only, as by a content test
                                       that reads Content-Length alone (MB-METHOD-3)
    retrieval-batch-content-ignored    a collection retrieval whose content is multipart/mixed
                                       answered as if it had none, its content taken for a
                                       batch the collection does not run (MB-METHOD-3)
    get-line-end-content-ignored       a GET whose content is line ends or whitespace alone
                                       answered as one without content (MB-METHOD-3)
    collection-range-served            a collection retrieval served by generic code that
                                       answers Range with 206 and the octets asked for
                                       (MB-STATUS-7)
    collection-if-range-honoured       the same only when If-Range holds the current validator
                                       (MB-STATUS-7)
    collection-range-past-end-416      a Range past the retrieval's end refused 416 (Range Not
                                       Satisfiable) (MB-STATUS-7)
    collection-range-in-part-served    a collection retrieval sent as a part with Range
                                       answered 206 in the part (MB-STATUS-7)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    BATCH_PATH,
    Part,
    boundary_of,
    field_of,
    is_batch,
    map_parts,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_BYTES = re.compile(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*(?:,|$)", re.IGNORECASE)


def _on_batch_path(req: RelayRequest) -> bool:
    return req.target.split("?", 1)[0] == BATCH_PATH


def _multipart_content(req: RelayRequest) -> bool:
    typed = (req.get("Content-Type") or "").strip().lower().startswith("multipart/mixed")
    return req.method == "GET" and typed and bool(req.body)


def _get_batch_run(chunked: bool) -> Callable[[RelayRequest], None]:
    """A GET to the batch endpoint with multipart content run as a POST, for content framed
    by Content-Length (`chunked` False) or chunked (`chunked` True)."""

    def edit(req: RelayRequest) -> None:
        if _on_batch_path(req) and _multipart_content(req) and bool(req.chunks) == chunked:
            req.method = "POST"

    return edit


def _retrieval_batch_content_ignored(req: RelayRequest) -> None:
    """A collection that drops multipart/mixed content from a retrieval as a batch it does not
    run, and answers the GET as one without content."""
    if not _on_batch_path(req) and _multipart_content(req):
        req.body, req.chunks = b"", ()
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]


def _line_ends_dropped(req: RelayRequest) -> None:
    """A server that takes a GET's content of line ends or whitespace alone for the stray CRLF
    some clients send after a request, and answers the GET as one without content."""
    if req.method == "GET" and req.body and not req.body.strip(b"\r\n \t"):
        req.body, req.chunks = b"", ()


def _is_retrieval(req: RelayRequest) -> bool:
    accept = (req.get("Accept") or "").lower()
    return req.method in ("GET", "HEAD") and "multipart/mixed" in accept


def _first_range(value: str, length: int) -> tuple[int, int] | None:
    """The first byte range of a Range value over `length` octets, as (first, last); None when
    it is not a bytes range or not satisfiable."""
    found = _BYTES.match(value)
    if not found or not (found.group(1) or found.group(2)):
        return None
    first, last = found.group(1), found.group(2)
    if not first:
        start = max(0, length - int(last))
        return (start, length - 1) if length else None
    end = min(int(last), length - 1) if last else length - 1
    return (int(first), end) if int(first) < length and int(first) <= end else None


def _length(resp: RelayResponse) -> int:
    declared = resp.get("Content-Length") or ""
    return len(resp.body) if resp.body or not declared.isdigit() else int(declared)


def _serve_range(req: RelayRequest, resp: RelayResponse) -> None:
    """Answer 206 with the first range `req` asks for, when the retrieval has it."""
    length = _length(resp)
    got = _first_range(req.get("Range") or "", length)
    if got is None:
        return
    first, last = got
    resp.status = 206
    resp.set("Content-Range", f"bytes {first}-{last}/{length}")
    if req.method == "GET":
        resp.body = resp.body[first : last + 1]
    else:
        resp.set("Content-Length", str(last + 1 - first))


def _collection_range_served(req: RelayRequest, resp: RelayResponse) -> None:
    """A retrieval that answers Range as generic file-serving code does (when no If-Range
    asks otherwise)."""
    if _is_retrieval(req) and resp.status == 200 and req.get("Range") and not req.get("If-Range"):
        _serve_range(req, resp)


def _collection_if_range_honoured(req: RelayRequest, resp: RelayResponse) -> None:
    """A retrieval that serves Range only under an If-Range holding its current ETag or
    Last-Modified, the case RFC 9110 §13.1.5 calls safe."""
    condition = (req.get("If-Range") or "").strip()
    current = {(resp.get("ETag") or "").strip(), (resp.get("Last-Modified") or "").strip()}
    if _is_retrieval(req) and resp.status == 200 and condition and condition in current:
        _serve_range(req, resp)


def _collection_range_past_end_416(req: RelayRequest, resp: RelayResponse) -> None:
    """A retrieval that refuses a Range starting past its end with 416."""
    found = _BYTES.match(req.get("Range") or "")
    if not (_is_retrieval(req) and resp.status == 200 and found and found.group(1)):
        return
    length = _length(resp)
    if int(found.group(1)) >= length:
        resp.status = 416
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
        resp.set("Content-Range", f"bytes */{length}")
        resp.body = b""


def _ranged_retrieval_parts(req: RelayRequest) -> set[int]:
    """The indexes of the parts of batch `req` that are collection retrievals with Range."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b else None
    out: set[int] = set()
    for i, (fields, _) in enumerate(parts or []):
        method = (field_of(fields, "Http-Method") or "").strip()
        accept = (field_of(fields, "Accept") or "").lower()
        if method in ("GET", "HEAD") and "multipart/mixed" in accept and field_of(fields, "Range"):
            out.add(i)
    return out


def _range_in_part_served(req: RelayRequest, resp: RelayResponse) -> None:
    """A batch whose collection retrievals with Range are answered 206 in their parts."""
    ranged = _ranged_retrieval_parts(req) if is_batch(req) else set()

    def edit(parts: list[Part]) -> list[Part]:
        return [
            (set_field(f, "Http-Status-Code", "206") if i in ranged else f, body)
            for i, (f, body) in enumerate(parts)
        ]

    if ranged:
        map_parts(edit)(req, resp)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "get-batch-content-run-as-batch",
        "MB-METHOD-3 a GET whose content is a batch run as one",
        ("get-with-any-content-refused",),
        on_request=_get_batch_run(chunked=False),
    ),
    Mutation(
        "get-chunked-batch-content-run",
        "MB-METHOD-3 a GET whose chunked content is a batch run as one",
        ("get-with-any-content-refused",),
        on_request=_get_batch_run(chunked=True),
    ),
    Mutation(
        "retrieval-batch-content-ignored",
        "MB-METHOD-3 a retrieval whose content is a batch answered as one without content",
        ("get-with-any-content-refused",),
        on_request=_retrieval_batch_content_ignored,
    ),
    Mutation(
        "get-line-end-content-ignored",
        "MB-METHOD-3 a GET whose content is line ends or whitespace alone answered as one "
        "without content",
        ("get-with-any-content-refused",),
        on_request=_line_ends_dropped,
    ),
    Mutation(
        "collection-range-served",
        "MB-STATUS-7 a retrieval with Range answered 206",
        ("collection-retrieval-ignores-range",),
        on_response=_collection_range_served,
    ),
    Mutation(
        "collection-if-range-honoured",
        "MB-STATUS-7 a retrieval with If-Range and Range answered 206",
        ("collection-retrieval-ignores-range",),
        on_response=_collection_if_range_honoured,
    ),
    Mutation(
        "collection-range-past-end-416",
        "MB-STATUS-7 a retrieval with a Range past its end answered 416",
        ("collection-retrieval-ignores-range",),
        on_response=_collection_range_past_end_416,
    ),
    Mutation(
        "collection-range-in-part-served",
        "MB-STATUS-7 a retrieval with Range in a part answered 206",
        ("collection-retrieval-ignores-range",),
        on_response=_range_in_part_served,
    ),
)
