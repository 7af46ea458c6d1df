"""Planted faults of servers that read each request on a connection with a reader of its own.

A connection is one stream of octets; a server that buffers its reads must keep the buffer for
the connection, since a read may hold the end of one request and the start of the next. The
plant models one that makes a buffered reader anew for each request:

    pipelined-octets-lost-with-reader  the reader of each request is made after the answer
                                       before it, so octets of the requests pipelined behind
                                       one that came in the same read as its end are lost
                                       with the old reader: requests written in one write
                                       with the one before are never answered (MB-PIPE-1)
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.transport.relay import Behaviour

__all__ = ["PLANTS"]

PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "pipelined-octets-lost-with-reader",
        "MB-PIPE-1 requests that came in one read with the one before lost",
        ("pipelining-across-writes",),
        behaviour=Behaviour(reader_per_request=True),
    ),
)
