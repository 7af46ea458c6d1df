"""Planted violations of where a list element ends and where the content's first delimiter is
(spec 7.5, 7.7, 3.1.3).

Two readings a server can get wrong in the same way wherever it meets them. A list field is
split by commas, with OWS only around each comma (RFC 9110 §5.6.1), so whitespace inside an
element separates nothing: a server that splits `Batch-Mode` at whitespace as well reads
`atomic atomic`, which names no mode, as atomic twice and runs it where MB-PROC-12 answers
501, and one that splits `Content-Encoding` so reads `identity identity`, no coding token, as
no coding at all (MB-INTER-6). And the first delimiter line begins only at the start of the
content or after a CRLF, so whatever comes before a dash-boundary on the content's first line
makes that line preamble: a server that drops a byte order mark, or whitespace, NUL or a bare
CR, from the start of the content, or that takes the first dash-boundary wherever it lies,
reads a part written in the preamble and runs it (MB-WIRE-9). A line that begins with the
dash-boundary and goes on with a boundary character is a delimiter line carrying text, which
a server that compares whole boundary tokens takes for preamble instead (MB-WIRE-19).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

#: A UTF-8 byte order mark.
BOM = b"\xef\xbb\xbf"
#: What a lenient reader skips at the start of the content: SP, HTAB, VT, FF, CR, NUL and a
#: UTF-8 no-break space.
LEADING = re.compile(rb"\A(?:[ \t\x0b\x0c\r\x00]|\xc2\xa0)+")


def _split_at_whitespace(name: str) -> Callable[[RelayRequest], None]:
    """A server that splits the list field `name` at commas and at the whitespace inside an
    element: the server is shown each word as an element of its own."""

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        out: list[tuple[str, str]] = []
        for n, v in req.headers:
            if n.lower() == name.lower():
                words = [w for w in re.split(r"[,\s]+", v) if w]
                if words:
                    v = ", ".join(words)
            out.append((n, v))
        req.headers = out

    return edit


def _content_start_skipped(pattern: re.Pattern[bytes]) -> Callable[[RelayRequest], None]:
    """A server that drops what `pattern` matches at the start of the content before it looks
    for the first delimiter."""

    def edit(req: RelayRequest) -> None:
        if is_batch(req):
            req.body = pattern.sub(b"", req.body, count=1)

    return edit


def _first_dash_boundary_anywhere(req: RelayRequest) -> None:
    """A server that takes the first dash-boundary in the content for the first delimiter
    wherever it lies: the preamble before it, whole lines or not, is dropped."""
    b = boundary_of(req)
    if not b or not is_batch(req):
        return
    at = req.body.find(b"--" + b.encode("latin-1"))
    if at > 0:
        req.body = req.body[at:]


def _longer_boundary_lines_skipped(req: RelayRequest) -> None:
    """A server that compares a line's whole boundary token with the boundary, so a line of
    the dash-boundary and more boundary characters before the first delimiter is preamble to
    it: the server is shown the content without those lines."""
    b = boundary_of(req)
    if not b or not is_batch(req):
        return
    dash = re.escape(b"--" + b.encode("latin-1"))
    first = re.search(rb"(?:\A|\r\n)" + dash + rb"[ \t]*\r\n", req.body)
    end = first.start() if first else len(req.body)
    line = rb"(?m)^" + dash + rb"[0-9A-Za-z'()+_,./:=?][^\r\n]*(?:\r\n|\Z)"
    head = re.sub(line, b"", req.body[:end])
    req.body = head + req.body[end:]


#: The envelope cases whose content begins with an octet a lenient reader skips.
LEADING_CASES = (
    "accept-space-then-dash-boundary-in-preamble",
    "accept-tab-then-dash-boundary-in-preamble",
    "accept-nul-then-dash-boundary-in-preamble",
    "accept-vertical-tab-then-dash-boundary-in-preamble",
    "accept-form-feed-then-dash-boundary-in-preamble",
    "accept-utf8-nbsp-then-dash-boundary-in-preamble",
    "accept-bare-cr-then-dash-boundary-at-content-start",
)

PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "batch-mode-split-at-whitespace",
        "MB-PROC-12 a Batch-Mode list split at whitespace as well as commas, so atomic atomic runs as atomic",
        ("mode-lookalike-values-refused",),
        on_request=_split_at_whitespace("Batch-Mode"),
    ),
    Mutation(
        "content-coding-split-at-whitespace",
        "MB-INTER-6 a Content-Encoding list split at whitespace as well as commas, so identity identity is no coding",
        ("content-coding-lookalikes-refused",),
        on_request=_split_at_whitespace("Content-Encoding"),
    ),
    Mutation(
        "byte-order-mark-skipped",
        "MB-WIRE-9 a UTF-8 byte order mark at the start of the content dropped, so a preamble line becomes the first delimiter",
        ("accept-byte-order-mark-then-dash-boundary-in-preamble",),
        on_request=_content_start_skipped(re.compile(re.escape(BOM))),
    ),
    Mutation(
        "content-leading-whitespace-skipped",
        "MB-WIRE-9 whitespace, NUL or a bare CR at the start of the content dropped, so a preamble line becomes the first delimiter",
        LEADING_CASES,
        on_request=_content_start_skipped(LEADING),
    ),
    Mutation(
        "first-dash-boundary-anywhere",
        "MB-WIRE-9 the first dash-boundary in the content taken for the first delimiter wherever it lies",
        (
            "accept-hyphen-then-dash-boundary-in-preamble",
            "accept-utf16-byte-order-mark-then-dash-boundary-in-preamble",
        ),
        on_request=_first_dash_boundary_anywhere,
    ),
    Mutation(
        "longer-boundary-line-taken-for-preamble",
        "MB-WIRE-19 a line of the dash-boundary and more boundary characters before the first delimiter read as preamble",
        (
            "reject-first-line-dash-boundary-then-bchar",
            "reject-preamble-line-dash-boundary-then-bchar",
        ),
        on_request=_longer_boundary_lines_skipped,
    ),
)
