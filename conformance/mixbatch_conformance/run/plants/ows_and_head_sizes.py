"""Planted readings of whitespace inside the batch's Content-Type and Prefer (MB-WIRE-4,
MB-PROC-13), and an echo that loses the order of a long request head (MB-TEST-2):

    content-type-subtype-tab-refused    the OWS between the media type's subtype and the `;`
                                        of its parameters skipped as spaces only: a tab there
                                        leaves parameters that do not parse, refused 400
    prefer-tab-unread                   a Prefer reader that skips spaces only around `,`,
                                        `;` and `=`: a Prefer holding a tab is not read, and
                                        the batch runs as if it carried none
    echo-long-head-sorted               the echo of a request alone whose head is over 8 KiB
                                        reports its fields sorted by name, in canonical case
                                        and without Host, as a server does that recovers their
                                        order from the last 8 KiB read and otherwise falls
                                        back to its stack's field map

The reference server's echo is at /echo.
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, refuses
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The head of most servers' taste: a tap that keeps this many octets loses a longer head.
TAP_KEEP = 8 * 1024
_SUBTYPE = re.compile(r"[^/]*/[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def _subtype_tab(req: RelayRequest) -> bool:
    """After the subtype, spaces skipped and then no `;`: a tab stood before it."""
    value = req.get("Content-Type") or ""
    m = _SUBTYPE.match(value)
    rest = value[m.end() :].lstrip(" ") if m else ""
    return is_batch(req) and bool(rest) and not rest.startswith(";")


def _prefer_unread(req: RelayRequest) -> None:
    if any(n.lower() == "prefer" and "\t" in v for n, v in req.headers):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]


def _head_size(req: RelayRequest) -> int:
    line = len(f"{req.method} {req.target} HTTP/1.1\r\n")
    return line + sum(len(n) + len(v) + 4 for n, v in req.headers) + 2


def _echo_sorted(req: RelayRequest, resp: RelayResponse) -> None:
    if not req.target.startswith("/echo") or resp.status != 200 or _head_size(req) <= TAP_KEEP:
        return
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("headers"), list):
        return
    pairs = [
        ["-".join(w.capitalize() for w in str(n).split("-")), v]
        for n, v in doc["headers"]
        if str(n).lower() != "host"
    ]
    doc["headers"] = sorted(pairs, key=lambda p: p[0])
    resp.body = json.dumps(doc).encode()


PLANTS: tuple[Mutation, ...] = (
    # MB-WIRE-4: a server "MUST accept, as far as the boundary goes, every boundary that
    # MB-WIRE-3 allows"; RFC 9110 §5.6.6: `parameters = *( OWS ";" OWS [ parameter ] )`, OWS
    # = *( SP / HTAB ).
    Mutation(
        "content-type-subtype-tab-refused",
        "MB-WIRE-4 a tab between the media type's subtype and the ';' of its parameters "
        "taken for a parameter that does not parse, the batch refused 400",
        ("content-type-and-prefer-ows-every-kind",),
        on_response=refuses(_subtype_tab, 400, "MB-WIRE-4"),
    ),
    # MB-PROC-13: "A server MUST recognise the `batch-on-error` preference"; RFC 7240 §2 puts
    # OWS around ";" and BWS around "=", RFC 9110 §5.6.1 OWS around ",".
    Mutation(
        "prefer-tab-unread",
        "MB-PROC-13 a Prefer holding a tab in its OWS or BWS not read, the batch run as "
        "without the preference",
        ("content-type-and-prefer-ows-every-kind",),
        on_request=_prefer_unread,
    ),
    # MB-TEST-2: "`headers`, the request's header fields as an array of `[name, value]` pairs
    # in the order received".
    Mutation(
        "echo-long-head-sorted",
        "MB-TEST-2 the echo of a request alone whose head is over 8 KiB reports its fields "
        "sorted by name and canonicalised instead of in the order received",
        ("echo-field-order-every-head-size",),
        on_response=_echo_sorted,
    ),
)
