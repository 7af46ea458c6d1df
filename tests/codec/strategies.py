"""Hypothesis strategies for valid batches, built bottom-up (never filtered).

Sub-requests are drawn from their parts: a method token, a relative target, a few header
fields and a body that may hold CRLF, "--" and any octet. The boundary is drawn last and
chosen so the body cannot contain the delimiter, so every example is valid by construction.
Examples shrink towards one GET part with an empty body and a short boundary.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from hypothesis import strategies as st

METHODS = st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "X-CUSTOM"])
_SEGMENT = st.text(string.ascii_letters + string.digits + "-._~", min_size=1, max_size=8)
TARGETS = st.builds(
    lambda segs, query, absolute: (
        ("/" if absolute else "") + "/".join(segs) + (f"?{query}" if query else "")
    ),
    st.lists(_SEGMENT, min_size=1, max_size=4),
    st.none() | st.text(string.ascii_letters + "=&", max_size=10),
    st.booleans(),
)
_NAME = st.text(string.ascii_letters + "-", min_size=1, max_size=12).filter(
    lambda n: (
        n.lower()
        not in {
            "http-method",
            "content-id",
            "content-length",
            "host",
            "connection",
            "keep-alive",
            "proxy-connection",
            "te",
            "transfer-encoding",
            "upgrade",
            "expect",
            "trailer",
            "content-transfer-encoding",
            "http-status-code",
            "batch-outcome",
        }
    )
)
_VALUE = st.text(string.ascii_letters + string.digits + " ;=,/\"'()", max_size=30).map(str.strip)
FIELDS = st.lists(st.tuples(_NAME, _VALUE), max_size=4)
BODIES = st.binary(max_size=300) | st.sampled_from(
    [b"", b"\r\n", b"--", b"\r\n--\r\n", b"--x--\r\n\r\n"]
)
BCHARS = string.ascii_letters + string.digits + "'()+_,-./:=?"


@dataclass(frozen=True)
class SubRequest:
    method: str
    target: str
    fields: tuple[tuple[str, str], ...]
    body: bytes


SUB_REQUESTS = st.builds(SubRequest, METHODS, TARGETS, FIELDS.map(tuple), BODIES)


@st.composite
def boundaries(draw: st.DrawFn, bodies: list[bytes]) -> str:
    """A boundary of 1-70 bchars (ending in no space) that occurs in none of ``bodies``."""
    core = draw(st.text(BCHARS, min_size=1, max_size=30))
    pad = draw(st.text(BCHARS + " ", max_size=39))
    boundary = (core + pad).rstrip() or core
    while any(b"--" + boundary.encode() in body for body in bodies):
        boundary += "Z"  # bodies are at most 300 octets, so this ends quickly
    return boundary[:70].rstrip()


def chunkings(size: int) -> st.SearchStrategy[list[int]]:
    """Sorted cut points splitting ``size`` octets into chunks."""
    return st.lists(st.integers(0, size), max_size=12).map(sorted)
