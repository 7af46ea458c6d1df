"""Planted servers that take a batch for received before its content is whole (spec 7.1:
MB-PROC-1).

A server "MUST NOT run any part before it has received the whole batch request". Each plant
here reads the content as it arrives and takes the batch as ended at a point the multipart
syntax suggests, not where the message's framing (its Content-Length, or the chunked coding's
last-chunk and trailer section) ends it. The relay models it with its `run_early` behaviour:
once the content received so far reaches that point, the batch as read up to there is sent to
the reference server at once, while the client still holds back the rest, and its answer is
written once the whole request has arrived. Each is a mistake a competent implementer makes:

    batch-run-at-close-delimiter        a reader that stops at the close delimiter, since what
                                        follows it is the epilogue, which a receiver ignores
                                        (MB-WIRE-9): the octets after it (a CRLF, transport
                                        padding, the epilogue, and in chunked content the
                                        last-chunk and the trailer section) are not awaited
    batch-run-at-last-declared-length   a reader that frames each part by its Content-Length
                                        and takes the batch as ended once the body of the last
                                        part it has read is whole, the close delimiter not
                                        awaited (nor anything after it)
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest

__all__ = ["PLANTS"]

CRLF = b"\r\n"
#: The checks that hold a batch's content back at each point these readers take for its end.
CATCHERS = (
    "batch-runs-nothing-before-content-whole",
    "chunked-batch-runs-nothing-before-content-whole",
)


def _taken(req: RelayRequest, content: bytes) -> RelayRequest:
    """The batch request as the planted reader takes it: its head, and `content`."""
    return RelayRequest(req.method, req.target, list(req.headers), content, version=req.version)


def _dash(req: RelayRequest) -> bytes | None:
    """The batch's dash-boundary, or None for a request that is not a batch."""
    boundary = boundary_of(req) if is_batch(req) else None
    return b"--" + boundary.encode("latin-1") if boundary else None


def _at_close_delimiter(req: RelayRequest) -> RelayRequest | None:
    """The batch up to its close delimiter, once that has arrived."""
    dash = _dash(req)
    if dash is None:
        return None
    close = CRLF + dash + b"--"
    at = req.body.find(close)
    return _taken(req, req.body[: at + len(close)]) if at >= 0 else None


def _declared_length(section: bytes) -> int | None:
    """The Content-Length a part's header section declares (None without a valid one)."""
    for line in section.split(CRLF):
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"content-length" and value.strip().isdigit():
            return int(value.strip())
    return None


def _at_last_declared_length(req: RelayRequest) -> RelayRequest | None:
    """The batch up to the end of the last part read so far, once that part's declared
    Content-Length octets of body have arrived (or up to the close delimiter, once that has)."""
    dash = _dash(req)
    if dash is None:
        return None
    content = req.body
    end = len(content)
    while True:
        # The last delimiter line read whole (one still arriving may turn out to be either).
        last = content.rfind(CRLF + dash, 0, end)
        start = (
            last + len(CRLF + dash) if last >= 0 else len(dash) if content.startswith(dash) else -1
        )
        if start < 0:
            return None
        if content[start : start + 2] == b"--":
            return _taken(req, content[: start + 2])
        line_end = content.find(CRLF, start)
        if line_end >= 0:
            break
        if last < 0:
            return None
        end = last
    section_end = content.find(CRLF + CRLF, line_end)
    if section_end < 0:
        return None
    declared = _declared_length(content[line_end + 2 : section_end])
    body_start = section_end + 4
    if declared is None or len(content) - body_start < declared:
        return None
    return _taken(req, content[: body_start + declared] + CRLF + dash + b"--")


PLANTS: tuple[Mutation, ...] = (
    # MB-PROC-1: "MUST NOT run any part before it has received the whole batch request".
    Mutation(
        "batch-run-at-close-delimiter",
        "MB-PROC-1 a batch run once its close delimiter arrived, the rest of its content "
        "still to come",
        CATCHERS,
        behaviour=Behaviour(run_early=_at_close_delimiter),
    ),
    Mutation(
        "batch-run-at-last-declared-length",
        "MB-PROC-1 a batch run once its last part's declared body arrived, the close "
        "delimiter still to come",
        CATCHERS,
        behaviour=Behaviour(run_early=_at_last_declared_length),
    ),
)
