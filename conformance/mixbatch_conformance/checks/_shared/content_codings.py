"""Content codings the checks send and read (spec 10.1, MB-INTER-6).

`accepted_codings` reads an `Accept-Encoding` field as RFC 9110 §12.5.3 writes it: a list of
codings, each with an optional weight, where `q=0` names a coding as not acceptable.
"""

from __future__ import annotations

import gzip
import re
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


#: RFC 9110 §12.5.3: Accept-Encoding = #( codings [ weight ] ), codings = content-coding /
#: "identity" / "*"; §12.4.2: weight = OWS ";" OWS "q=" qvalue, qvalue = ( "0" [ "." 0*3DIGIT ] )
#: / ( "1" [ "." 0*3("0") ] ). A member with anything else after its coding names no coding.
MEMBER = re.compile(
    r"([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?:[ \t]*;[ \t]*[qQ]=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?"
)


def accepted_codings(resp: Response) -> list[str]:
    """The codings the response's Accept-Encoding names, lower-cased, in order, without those
    weighted q=0 (RFC 9110 §12.5.3) and without members that break the field's grammar."""
    names: list[str] = []
    for member in list_members(resp.get_all("Accept-Encoding")):
        m = MEMBER.fullmatch(member)
        if m is not None and (m.group(2) is None or float(m.group(2)) != 0):
            names.append(m.group(1).lower())
    return names
