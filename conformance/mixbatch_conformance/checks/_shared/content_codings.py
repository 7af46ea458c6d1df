"""Content codings the checks send and read (spec 10.1, MB-INTER-6).

`accepted_codings` reads an `Accept-Encoding` field as RFC 9110 §12.5.3 writes it: a list of
codings, each with an optional weight, where `q=0` names a coding as not acceptable.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable

from mixbatch_conformance.core.validator import list_members
from mixbatch_conformance.transport.http import Response

__all__ = ["ENCODERS", "UNKNOWN_CODING", "accepted_codings"]

#: A content coding no server supports (RFC 9110 §8.4.1: codings are registered tokens, and
#: this one is not).
UNKNOWN_CODING = "x-mb-suite-unknown-coding"
#: Content codings the suite makes with the standard library (RFC 9110 §8.4.1: gzip and
#: x-gzip are the gzip format, deflate the zlib format).
ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "x-gzip": gzip.compress,
    "deflate": zlib.compress,
}


def _weight(params: list[str]) -> float:
    """A member's `q` weight; 1 when it has none or one that is no number."""
    for p in params:
        name, _, value = p.partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value.strip())
            except ValueError:
                return 1.0
    return 1.0


def accepted_codings(resp: Response) -> list[str]:
    """The codings the response's Accept-Encoding names, lower-cased, in order, without those
    weighted q=0 (RFC 9110 §12.5.3)."""
    names: list[str] = []
    for member in list_members(resp.get_all("Accept-Encoding")):
        name, *params = (p.strip() for p in member.split(";"))
        if name and _weight(params) != 0:
            names.append(name.lower())
    return names
