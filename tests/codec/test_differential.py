"""Differential tests: on random valid batches, our parser agrees with stdlib ``email``
(compat32 policy) and with requests-toolbelt's MultipartDecoder.

Both peers are lenient MIME parsers, so the generated bodies stay inside what every reading of
RFC 2046 agrees on: printable text and CRLF line breaks, never a trailing bare CR.
"""

from __future__ import annotations

import email
import email.policy
import string

from hypothesis import given, settings
from hypothesis import strategies as st
from requests_toolbelt.multipart.decoder import MultipartDecoder

from mixbatch.codec import BatchWriter

from .test_roundtrip import collect, parse

_LINE = st.text(string.ascii_letters + string.digits + " -=:;,.<>/", max_size=40)
BODIES = st.lists(_LINE, max_size=5).map(lambda lines: "\r\n".join(lines).encode())
FIELDS = st.lists(
    st.tuples(
        st.sampled_from(["Content-Type", "X-Trace", "If-Match", "Accept", "Prefer"]),
        st.text(string.ascii_letters + string.digits + "/;=-", min_size=1, max_size=20),
    ),
    max_size=3,
    unique_by=lambda field: field[0],  # toolbelt keeps headers in a dict
)
PARTS = st.lists(
    st.tuples(
        st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
        st.from_regex(r"[a-z]{1,6}(/[0-9]{1,3})?", fullmatch=True),
        FIELDS,
        BODIES,
    ),
    min_size=1,
    max_size=6,
)


def build(parts: list[tuple[str, str, list[tuple[str, str]], bytes]]) -> tuple[BatchWriter, bytes]:
    writer = BatchWriter()
    wire = b"".join(writer.request_part(m, t, f, b) for m, t, f, b in parts) + writer.close()
    return writer, wire


@settings(max_examples=150)
@given(PARTS)
def test_agrees_with_stdlib_email_compat32(
    parts: list[tuple[str, str, list[tuple[str, str]], bytes]],
) -> None:
    writer, wire = build(parts)
    ours = collect(parse(writer.boundary, wire, []))
    message = email.message_from_bytes(
        f"Content-Type: {writer.content_type}\r\n\r\n".encode() + wire, policy=email.policy.compat32
    )
    theirs = message.get_payload()
    assert isinstance(theirs, list)
    assert len(theirs) == len(ours)
    for (start, body), part in zip(ours, theirs, strict=True):
        headers = list(part.items())
        assert ("Http-Method", start.method) in headers  # type: ignore[attr-defined]
        assert ("Content-Id", f"<{start.target}>") in headers  # type: ignore[attr-defined]
        assert [h for h in headers if h[0] not in ("Http-Method", "Content-Id")] == list(
            start.fields
        )  # type: ignore[attr-defined]
        assert part.get_payload(decode=True) == body


@settings(max_examples=150)
@given(PARTS)
def test_agrees_with_requests_toolbelt(
    parts: list[tuple[str, str, list[tuple[str, str]], bytes]],
) -> None:
    writer, wire = build(parts)
    ours = collect(parse(writer.boundary, wire, []))
    theirs = MultipartDecoder(wire, writer.content_type).parts
    assert len(theirs) == len(ours)
    for (start, body), part in zip(ours, theirs, strict=True):
        assert part.content == body
        assert part.headers[b"Http-Method"].decode() == start.method  # type: ignore[attr-defined]
        for name, value in start.fields:  # type: ignore[attr-defined]
            assert part.headers[name.encode()].decode() == value
