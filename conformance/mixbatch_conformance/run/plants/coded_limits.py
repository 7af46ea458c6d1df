"""Planted servers that decode a content-coded batch and hold its limits, or place its faults,
otherwise than in the decoded content (spec 9.1, 5.3, MB-STATUS-3, MB-LIMIT-5, MB-STATUS-4).

The reference server decodes no coding. Each plant turns it into a server that decodes gzip
(and x-gzip) and deflate: the relay removes the coding, forwards the decoded content, and names
the codings in the `Accept-Encoding` of the 415 for any other coding. Its decoder stops one
octet past the reference server's `max_batch_bytes`, which the reference server then refuses.
Each plant adds one bug to that server:

    coded-batch-held-to-coded-octets    max_batch_bytes held against the octets received: the
                                        decoded content is read up to the limit and the rest,
                                        which lies in the epilogue, goes uncounted, so content
                                        decoding past the limit is processed (MB-STATUS-3)
    coded-part-fields-unheld            the field lines of a part past max_part_fields go
                                        uncounted in decoded content, and the part runs
                                        (MB-LIMIT-5)
    coded-part-bytes-unheld             a part body past max_part_bytes in decoded content is
                                        read to the limit and run (MB-STATUS-3)
    coded-offsets-counted-coded         a problem's byte_offset counts the coded octets the
                                        decoder had read when it reached the fault (MB-STATUS-4)
    coded-offsets-dropped               a problem's byte_offset left out when the batch came
                                        in a content coding (MB-STATUS-4)
    coded-cap-overflow-refused-malformed
                                        content decoding past the decoder's cap is refused 400
                                        as a malformed coding, not 413 (MB-STATUS-3)
    coded-gzip-members-bounded-alone    each gzip member held to max_batch_bytes on its own, not
                                        the content they make together: content of two
                                        members, each under the limit, that decodes past it is
                                        processed, the decoder keeping what fits (MB-STATUS-3)
    coded-decoded-whole-dies-past-2-gib content is decoded whole before it is counted, into an
                                        array that ends at 2 GiB: content decoding past that
                                        closes the connection without an answer (MB-STATUS-3)
"""

from __future__ import annotations

import contextlib
import json
import re
import zlib
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, edit_problem, is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference server's limits the plants count against.
REFERENCE_MAX_BATCH_BYTES = 64 * 1024 * 1024
REFERENCE_MAX_PART_BYTES = 16 * 1024 * 1024
REFERENCE_MAX_PART_FIELDS = 100
#: zlib's wbits for the codings the planted server decodes.
_WBITS = {"gzip": 31, "x-gzip": 31, "deflate": 15}
#: Where the relay keeps the coded content and its coding, for the answer's edit.
_CODED = "coded-limits:coded"
#: The planted server's Accept-Encoding on a 415.
_DECODES = "identity, gzip, x-gzip, deflate"


def _coding(req: RelayRequest) -> str | None:
    """The one coding of a batch in a coding the planted server decodes, else None."""
    if not is_batch(req):
        return None
    lines = [v for n, v in req.headers if n.lower() == "content-encoding"]
    members = [m.strip(" \t").lower() for line in lines for m in line.split(",")]
    members = [m for m in members if m and m != "identity"]
    return members[0] if len(members) == 1 and members[0] in _WBITS else None


def _decoder(
    limit: int, edit: Callable[[bytes, bytes], bytes] | None = None
) -> Callable[[RelayRequest], None]:
    """A decoder of the codings in _WBITS that stops at `limit` decoded octets, the decoded
    content edited by `edit` (given it and the boundary) before the reference server reads it."""

    def decode(req: RelayRequest) -> None:
        coding = _coding(req)
        req.connection.pop(_CODED, None)
        if coding is None:
            return
        d = zlib.decompressobj(_WBITS[coding])
        try:
            decoded = d.decompress(req.body, limit)
        except zlib.error:
            return  # left coded: the reference server refuses it 415
        req.connection[_CODED] = (coding, req.body)
        b = boundary_of(req)
        if edit is not None and b:
            decoded = edit(decoded, b.encode("latin-1"))
        req.body = decoded
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]

    return decode


def _members_bounded_alone(req: RelayRequest) -> None:
    """Each gzip member decoded up to the limit on its own; content of members that are each
    within it but together past it is cut to the limit at its first delimiter line, its
    preamble given up, and forwarded as what the batch said. Anything else is decoded as the
    plain planted decoder does."""
    plain = _decoder(REFERENCE_MAX_BATCH_BYTES + 1)
    if _coding(req) not in ("gzip", "x-gzip"):
        plain(req)
        return
    rest, out = req.body, bytearray()
    while rest:
        d = zlib.decompressobj(31)
        try:
            piece = d.decompress(rest, REFERENCE_MAX_BATCH_BYTES + 1)
        except zlib.error:
            plain(req)
            return
        if len(piece) > REFERENCE_MAX_BATCH_BYTES or not d.eof:
            plain(req)  # one member past the limit: refused as the plain decoder refuses it
            return
        out += piece
        rest = d.unused_data
    b = boundary_of(req)
    if len(out) > REFERENCE_MAX_BATCH_BYTES and b:
        start = out.find(b"\r\n--" + b.encode("latin-1"))
        del out[: start + 2 if start >= 0 else 0]
    req.connection.pop(_CODED, None)
    req.body = bytes(out)
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]


def _names_decoded(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status == 415:
        resp.set("Accept-Encoding", _DECODES)


def _edit_parts(edit: Callable[[bytes, bytes], bytes]) -> Callable[[bytes, bytes], bytes]:
    """An edit of the content that applies `edit` to each part's header section and body
    (given the section without its empty line, and the body), the envelope kept as it is."""

    def apply(content: bytes, boundary: bytes) -> bytes:
        dash = b"--" + boundary
        start = 0 if content.startswith(dash) else content.find(b"\r\n" + dash) + 2
        if start == 1:  # no delimiter line
            return content
        pieces = (b"\r\n" + content[start:]).split(b"\r\n" + dash)
        for i, piece in enumerate(pieces[1:], 1):
            end = piece.find(b"\r\n\r\n", 2)
            if piece.startswith(b"\r\n") and end >= 0:
                pieces[i] = b"\r\n" + edit(piece[2:end], piece[end + 4 :])
        return content[:start] + (b"\r\n" + dash).join(pieces)[2:]

    return apply


def _fields_cut(section: bytes, body: bytes) -> bytes:
    """The field lines past max_part_fields left out: a part over the limit runs."""
    lines = section.split(b"\r\n")[:REFERENCE_MAX_PART_FIELDS]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def _body_cut(section: bytes, body: bytes) -> bytes:
    """A body past max_part_bytes read to the limit, its Content-Length said to match."""
    if len(body) <= REFERENCE_MAX_PART_BYTES:
        return section + b"\r\n\r\n" + body
    kept = str(REFERENCE_MAX_PART_BYTES).encode()
    section = re.sub(rb"(?im)^(content-length:[ \t]*)[0-9]+", lambda m: m.group(1) + kept, section)
    return section + b"\r\n\r\n" + body[:REFERENCE_MAX_PART_BYTES]


def _coded_offset(coding: str, coded: bytes, offset: int) -> int:
    """The coded octets a decoder has read when its output first reaches `offset` octets."""
    d = zlib.decompressobj(_WBITS[coding])
    made = 0
    for read in range(16, len(coded) + 16, 16):
        made += len(d.decompress(coded[read - 16 : read]))
        if made >= offset:
            return min(read, len(coded))
    return len(coded)


def _offsets_coded(req: RelayRequest, resp: RelayResponse) -> None:
    _names_decoded(req, resp)
    kept = req.connection.get(_CODED)
    if not isinstance(kept, tuple):
        return
    coding, coded = kept

    def edit(doc: dict[str, Any]) -> None:
        at = doc.get("byte_offset")
        if isinstance(at, int) and not isinstance(at, bool):
            doc["byte_offset"] = _coded_offset(coding, coded, at)

    edit_problem(resp, edit)


def _offset_dropped_when_coded(req: RelayRequest, resp: RelayResponse) -> None:
    """The problem of a content-coded batch without its byte_offset, as a server that counts
    offsets in the octets it received gives up on them when they were coded."""
    _names_decoded(req, resp)
    if isinstance(req.connection.get(_CODED), tuple):
        edit_problem(resp, lambda doc: doc.pop("byte_offset", None))


#: The planted server's decoder: one octet past max_batch_bytes, which the reference refuses.
_DECODE = _decoder(REFERENCE_MAX_BATCH_BYTES + 1)
#: Where the relay marks a batch whose decoding its decoder's cap stopped.
_CAPPED = "coded-limits:capped"


def _cap_marked(req: RelayRequest) -> None:
    """The planted decoder, marking a batch whose decoded content runs past its cap."""
    req.connection.pop(_CAPPED, None)
    coding = _coding(req)
    if coding is not None:
        d = zlib.decompressobj(_WBITS[coding])
        with contextlib.suppress(zlib.error):
            d.decompress(req.body, REFERENCE_MAX_BATCH_BYTES + 1)
            if d.unconsumed_tail:
                req.connection[_CAPPED] = True
    _DECODE(req)


def _capped_as_malformed(req: RelayRequest, resp: RelayResponse) -> None:
    """A decoder that stops at its cap taken for one that failed: the batch is refused 400 as
    malformed coded content, where the count of the content one octet over the limit is 413."""
    _names_decoded(req, resp)
    if req.connection.get(_CAPPED):
        doc = {"type": "about:blank", "title": "malformed content coding", "status": 400}
        resp.status = 400
        resp.headers = [("Content-Type", "application/problem+json")]
        resp.body = json.dumps(doc).encode()


#: The most octets the whole-decoding planted server holds: a Java array's reach.
ARRAY_REACH = 2**31 - 1
#: Where the relay marks a batch whose whole decoding ran past ARRAY_REACH.
_PAST_REACH = "coded-limits:past-reach"
#: Decoded octets the relay counts at a time (never holding more).
_COUNT_STEP = 16 * 1024 * 1024


def _decodes_past(coding: str, coded: bytes, reach: int) -> bool:
    """Whether `coded` decodes to more than `reach` octets, counted a step at a time."""
    d = zlib.decompressobj(_WBITS[coding])
    try:
        total = len(d.decompress(coded, _COUNT_STEP))
        while d.unconsumed_tail and total <= reach:
            total += len(d.decompress(d.unconsumed_tail, _COUNT_STEP))
    except zlib.error:
        return False
    return total > reach


def _decoded_whole(req: RelayRequest) -> None:
    """The planted decoder, marking a batch whose whole decoding runs past ARRAY_REACH."""
    req.connection.pop(_PAST_REACH, None)
    coding = _coding(req)
    if coding is not None and _decodes_past(coding, req.body, ARRAY_REACH):
        req.connection[_PAST_REACH] = True
    _DECODE(req)


def _dies_past_reach(req: RelayRequest, resp: RelayResponse) -> None:
    """A batch whose decoding ran past the array's reach ends the connection unanswered, as an
    OutOfMemoryError no handler catches does."""
    _names_decoded(req, resp)
    if req.connection.get(_PAST_REACH):
        resp.close_unmarked = True
        resp.wire = lambda _octets: b""


PLANTS: tuple[Mutation, ...] = (
    # Spec 9.1: `max_batch_bytes` counts "the octets of the batch request's content after any
    # content coding is removed"; MB-STATUS-3: a batch over a limit is answered 413.
    Mutation(
        "coded-batch-held-to-coded-octets",
        "MB-STATUS-3 content decoding past max_batch_bytes, its coded octets within it, processed",
        ("coded-batch-bytes-counted-decoded",),
        on_request=_decoder(REFERENCE_MAX_BATCH_BYTES),
        on_response=_names_decoded,
    ),
    # MB-STATUS-3: "answer a batch request that exceeds one of its limits with 413".
    Mutation(
        "coded-cap-overflow-refused-malformed",
        "MB-STATUS-3 content decoding far past max_batch_bytes refused 400 as malformed coding",
        ("coded-batch-bytes-counted-decoded",),
        on_request=_cap_marked,
        on_response=_capped_as_malformed,
    ),
    # Spec 9.1: max_batch_bytes counts the content "after any content coding is removed", and a
    # gzip coding's content is every member (RFC 1952 §2.2).
    Mutation(
        "coded-gzip-members-bounded-alone",
        "MB-STATUS-3 two gzip members, each within max_batch_bytes, decoding past it processed",
        ("coded-batch-bytes-counted-decoded",),
        on_request=_members_bounded_alone,
        on_response=_names_decoded,
    ),
    # Spec 9.1: "a server stops decoding once the decoded octets pass `max_batch_bytes` rather
    # than decode without bound"; MB-STATUS-3: a batch over a limit is answered 413.
    Mutation(
        "coded-decoded-whole-dies-past-2-gib",
        "MB-STATUS-3 content decoding past 2 GiB decoded whole first: no answer at all",
        ("coded-batch-decoding-bounded",),
        on_request=_decoded_whole,
        on_response=_dies_past_reach,
    ),
    # MB-LIMIT-5: "answer a batch request with a part over it with 431".
    Mutation(
        "coded-part-fields-unheld",
        "MB-LIMIT-5 a decoded part over max_part_fields run",
        ("coded-part-limits-counted-decoded",),
        on_request=_decoder(REFERENCE_MAX_BATCH_BYTES + 1, _edit_parts(_fields_cut)),
        on_response=_names_decoded,
    ),
    # Spec 9.1: `max_part_bytes` counts "the octets of one part body"; MB-STATUS-3.
    Mutation(
        "coded-part-bytes-unheld",
        "MB-STATUS-3 a decoded part body over max_part_bytes run",
        ("coded-part-limits-counted-decoded",),
        on_request=_decoder(REFERENCE_MAX_BATCH_BYTES + 1, _edit_parts(_body_cut)),
        on_response=_names_decoded,
    ),
    # Spec 5.3: "Offsets count octets of the content as the multipart parser sees it, that is,
    # after any content coding has been removed".
    Mutation(
        "coded-offsets-counted-coded",
        "MB-STATUS-4 byte_offset counted in the coded octets of a content-coded batch",
        ("coded-fault-offsets-decoded",),
        on_request=_DECODE,
        on_response=_offsets_coded,
    ),
    Mutation(
        "coded-offsets-dropped",
        "MB-STATUS-4 byte_offset left out of the problem of a content-coded batch",
        ("coded-fault-offsets-decoded",),
        on_request=_DECODE,
        on_response=_offset_dropped_when_coded,
    ),
)
