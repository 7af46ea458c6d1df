"""Planted faults of servers in how they read the requests on one connection.

A connection is one stream of octets; a server that buffers its reads must keep the buffer for
the connection, since a read may hold the end of one request and the start of the next, and it
reads a request line where one begins. The plants model one that makes a buffered reader anew
for each request, and one that reads an empty line as a request line:

    pipelined-octets-lost-with-reader  the reader of each request is made after the answer
                                       before it, so octets of the requests pipelined behind
                                       one that came in the same read as its end are lost
                                       with the old reader: requests written in one write
                                       with the one before are never answered (MB-PIPE-1)
    empty-line-read-as-request-line    the CRLF a client writes after a POST's content is
                                       taken for a malformed request line and refused 400,
                                       the request behind it left unanswered (MB-PIPE-4)
    empty-line-in-later-read-read-as-request-line
                                       the empty lines before a request line left out only
                                       when the read that ended the request before brought
                                       them: a CRLF that comes in a later read, with the
                                       request behind it, is refused 400 (MB-PIPE-4)
    empty-lines-bounded-per-connection four empty lines left out over a connection's whole
                                       life, the fifth taken for a request line: a client
                                       that writes a CRLF after each POST has its fifth
                                       batch's empty line refused 400 (MB-PIPE-4)
    chunk-end-peeked-in-read           the CRLF after a chunk's data looked for in what the
                                       read brought, not read from the connection: chunked
                                       content whose read ends right after a chunk's data is
                                       refused 400 (MB-INTER-5)
    chunked-content-kept-per-connection
                                       the buffer a chunked request's content is gathered in
                                       is the connection's and never emptied: each chunked
                                       batch after the first reads the ones before it first,
                                       and is refused (MB-INTER-5)
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest

__all__ = ["PLANTS"]

#: The empty lines a planted reader leaves out over one connection's life.
EMPTY_LINE_BUDGET = 4

#: Where a connection keeps the chunked content it gathered.
_GATHERED = "chunked-content-gathered"


def _chunked_content_kept(req: RelayRequest) -> None:
    if not (is_batch(req) and req.chunks):
        return
    kept = req.connection.get(_GATHERED, b"")
    gathered = (kept if isinstance(kept, bytes) else b"") + req.body
    req.connection[_GATHERED] = gathered
    req.body = gathered


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "pipelined-octets-lost-with-reader",
        "MB-PIPE-1 requests that came in one read with the one before lost",
        ("pipelining-across-writes",),
        behaviour=Behaviour(reader_per_request=True),
    ),
    Mutation(
        "empty-line-read-as-request-line",
        "MB-PIPE-4 an empty line after a POST's content read as a request line and refused 400",
        ("pipelined-request-after-empty-line",),
        caught_by=("WARN", "FAIL"),
        behaviour=Behaviour(reads_empty_lines=True),
    ),
    Mutation(
        "empty-line-in-later-read-read-as-request-line",
        "MB-PIPE-4 an empty line that a later read brings, with the request behind it, read as "
        "a request line",
        ("pipelined-request-after-empty-line",),
        caught_by=("WARN", "FAIL"),
        behaviour=Behaviour(skips_held_empty_lines_only=True),
    ),
    Mutation(
        "empty-lines-bounded-per-connection",
        "MB-PIPE-4 the empty lines left out before request lines bounded per connection",
        ("pipelined-request-after-empty-line",),
        caught_by=("WARN", "FAIL"),
        behaviour=Behaviour(empty_line_budget=EMPTY_LINE_BUDGET),
    ),
    Mutation(
        "chunk-end-peeked-in-read",
        "MB-INTER-5 chunked content whose read ends after a chunk's data refused 400",
        ("chunked-content-split-anywhere-accepted",),
        caught_by=("FAIL",),
        behaviour=Behaviour(peeks_chunk_ends=True),
    ),
    Mutation(
        "chunked-content-kept-per-connection",
        "MB-INTER-5 chunked content gathered per connection, never emptied between requests",
        ("chunked-content-split-anywhere-accepted",),
        caught_by=("FAIL",),
        on_request=_chunked_content_kept,
    ),
)
