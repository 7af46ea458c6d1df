"""Upstream faults behind the proxy: what one misbehaving origin answer may cost.

MB-PROXY-2 decides the faulty part: an upstream failure or timeout is a 502 or 504 part, never a
lost batch (the batch is 200, MB-STATUS-5). Every other part, in the same batch or another
client's, gets its own answer or a 502/504 of its own, and never an answer meant for another
request: an origin that sends more than was asked for (an extra answer, octets after a 204) must
not shift the answers on a pooled connection (RFC 9112 §9.3.2 pairs answers with requests by
order only, so a connection with unexpected octets cannot be reused).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CASES", "FAILURE_STATUSES", "UpstreamCase"]

#: What a part whose sub-request failed upstream may carry (MB-PROXY-2).
FAILURE_STATUSES = frozenset({502, 504})


@dataclass(frozen=True)
class UpstreamCase:
    id: str
    #: The first path segment the planted origin misbehaves on.
    fault: str
    #: Statuses the faulty part may carry.
    statuses: frozenset[int]
    cite: str
    #: The faulty part's answer, when it is a success, carries its own nonce.
    own_nonce: bool = False


CASES = [
    UpstreamCase(
        "stall", "stall", frozenset({504}), "MB-PROXY-2: an upstream timeout is a 504 part"
    ),
    UpstreamCase(
        "early-close",
        "early-close",
        FAILURE_STATUSES,
        "MB-PROXY-2: a connection closed before the answer is a 502 part",
    ),
    UpstreamCase(
        "garbage",
        "garbage",
        FAILURE_STATUSES,
        "MB-PROXY-2: an answer that is no HTTP is a 502 part",
    ),
    UpstreamCase(
        "short-body",
        "short-body",
        FAILURE_STATUSES,
        "MB-PROXY-2: an answer cut short of its Content-Length is a 502 part",
    ),
    UpstreamCase(
        "extra-answer-after-content-length",
        "extra",
        frozenset({200}) | FAILURE_STATUSES,
        "RFC 9112 §9.3.2: answers pair with requests by order; an extra answer is never "
        "handed to the next request",
        own_nonce=True,
    ),
    UpstreamCase(
        "body-after-204",
        "body-after-204",
        frozenset({204}) | FAILURE_STATUSES,
        "RFC 9110 §15.3.5: a 204 ends at its header section; the octets after it are no "
        "answer to the next request",
    ),
    UpstreamCase(
        "interim-before-final",
        "interim",
        frozenset({200}),
        "MB-RESP-9: interim (1xx) answers are discarded; the part carries the final one",
        own_nonce=True,
    ),
]
