"""Header field rules at the proxy's two edges: what crosses a hop, Accept, Prefer, Via.

A proxy stands between two connections, so every field it copies must be end-to-end:
``end_to_end`` drops the hop-by-hop fields of RFC 9110 §7.6.1 (and any field Connection names)
plus the framing fields the proxy recomputes itself (MB-PROXY-4: "frame each forwarded request
itself"; MB-RESP-4: a part carries the sub-response's fields "less hop-by-hop and framing
fields"). ``accepts_multipart`` and ``batch_on_error`` read the two request fields that shape a
batch response. The proxy offers one representation, multipart/mixed, so its Accept rule is a
yes/no question rather than a ranking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_RANGE = re.compile(rf"\s*({_TOKEN})/({_TOKEN})\s*((?:;[^,]*)?)$")


def end_to_end(
    pairs: Iterable[tuple[str, str]], *, drop: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """``pairs`` without hop-by-hop and framing fields, fields Connection names, and ``drop``."""
    return list(codec_end_to_end(pairs, drop=drop))


def accepts_multipart(values: list[str]) -> bool:
    """True when Accept is absent or admits multipart/mixed with a quality above zero.

    RFC 9110 §12.5.1: a member that does not parse is ignored. The most specific matching range
    decides (multipart/mixed over multipart/* over */*).
    """
    if not values:
        return True
    best: tuple[int, float] | None = None
    for member in ",".join(values).split(","):
        match = _RANGE.match(member)
        if match is None:
            continue
        kind, sub = match.group(1).lower(), match.group(2).lower()
        if (kind, sub) == ("multipart", "mixed"):
            rank = 3
        elif (kind, sub) == ("multipart", "*"):
            rank = 2
        elif (kind, sub) == ("*", "*"):
            rank = 1
        else:
            continue
        quality = 1.0
        for param in match.group(3).split(";")[1:]:
            name, _, raw = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(raw.strip())
                except ValueError:
                    quality = 1.0
        if best is None or rank > best[0]:
            best = (rank, quality)
    return best is not None and best[1] > 0


def batch_on_error(values: list[str]) -> str | None:
    """The batch-on-error preference (RFC 7240) when its value is one the spec defines.

    MB-PROC-11: "A batch-on-error preference with an unrecognised value is treated as absent".
    """
    for member in ",".join(values).split(","):
        head = member.split(";", 1)[0]
        name, _, value = head.partition("=")
        if name.strip().lower() == "batch-on-error":
            value = value.strip().strip('"').lower()
            return value if value in ("continue", "stop") else None
    return None
