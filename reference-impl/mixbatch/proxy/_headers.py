"""Header field rules at the proxy's two edges: what crosses a hop, Accept, Prefer, Via.

A proxy stands between two connections, so every field it copies must be end-to-end:
``end_to_end`` drops the hop-by-hop fields of RFC 9110 §7.6.1 (and any field Connection names)
plus the framing fields the proxy recomputes itself (MB-PROXY-4: "frame each forwarded request
itself"; MB-RESP-4: a part carries the sub-response's fields "less hop-by-hop and framing
fields"). ``accepts_multipart`` and ``batch_on_error`` read the two request fields that shape a
batch response, each through the shared HTTP layer's parser (``mixbatch._http.negotiation``),
which the reference server uses too, so that both agree. The proxy offers one representation,
multipart/mixed, so its Accept rule is a yes/no question.
"""

from __future__ import annotations

from collections.abc import Iterable

from mixbatch._http.negotiation import accepts_multipart, batch_on_error
from mixbatch.codec import HOP_BY_HOP_FIELDS as FRAMING_AND_HOP_FIELDS
from mixbatch.codec import PART_CONTROL_FIELDS
from mixbatch.codec import end_to_end as codec_end_to_end

__all__ = [
    "FRAMING_AND_HOP_FIELDS",
    "PART_CONTROL_FIELDS",
    "VIA_VALUE",
    "accepts_multipart",
    "batch_on_error",
    "end_to_end",
]

#: RFC 9110 §7.6.3: "An HTTP-to-HTTP gateway MUST send an appropriate Via header field in each
#: inbound request message". The pseudonym names the proxy, never an internal host.
VIA_VALUE = "1.1 mixbatch-proxy"

#: The one batch representation the proxy offers.
MULTIPART_MIXED = "multipart/mixed"


def end_to_end(
    pairs: Iterable[tuple[str, str]], *, drop: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """``pairs`` without hop-by-hop and framing fields, fields Connection names, and ``drop``."""
    return list(codec_end_to_end(pairs, drop=drop))
