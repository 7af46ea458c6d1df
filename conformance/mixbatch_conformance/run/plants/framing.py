"""Planted violations of the delimiter lines and what lies between them (spec 3.1.2, 3.1.3,
3.1.5: MB-WIRE-7 to MB-WIRE-11, MB-WIRE-13, MB-WIRE-18, MB-WIRE-19, MB-WIRE-21).

Each entry accepts a body the grammar refuses (a bare LF or CR as a line terminator, text after
a dash-boundary, no close delimiter, no part at all), refuses one it allows (a preamble, an
epilogue, transport padding, delimiter text that is no delimiter line, a part without a
body), or writes its own answer with a bare LF for a blank line or with an epilogue.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import accepts, body_has, boundary_of, is_batch, refuses
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _unframed(req: RelayRequest) -> bool:
    """A POST that came with neither Content-Length nor Transfer-Encoding."""
    names = {n.lower() for n, _ in req.headers}
    return req.method == "POST" and not names & {"content-length", "transfer-encoding"}


def _epilogue(req: RelayRequest, resp: RelayResponse) -> None:
    if boundary_of(resp) and is_batch(req):
        resp.body += b"\r\nplanted epilogue\r\n"


def _bare_lf_blank_line(req: RelayRequest, resp: RelayResponse) -> None:
    b = boundary_of(resp)
    if b and is_batch(req):
        resp.body = re.sub(rb"(Content-Length: [0-9]+)\r\n\r\n", rb"\1\r\n\n", resp.body)


def _ends_in_close_text(after: bytes) -> Callable[[RelayRequest], bool]:
    """Content ending in `after` (a pattern), the declared boundary and two hyphens, with no
    CRLF before that: a server that finds the close delimiter by the content's suffix takes
    it for one."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req)
        if not b or not is_batch(req):
            return False
        tail = re.compile(after + re.escape(b.encode("latin-1")) + rb"--\Z")
        m = tail.search(req.body)
        return m is not None and req.body[: m.start()][-2:] != b"\r\n"

    return pred


def _padding_with(octets: bytes) -> Callable[[RelayRequest], bool]:
    """A delimiter line whose dash-boundary (or close delimiter) is followed by padding and
    then one of `octets` (a pattern): a server whose padding test is a general white-space
    test skips them."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req)
        if not b or not is_batch(req):
            return False
        line = (
            rb"(?:\A|\r\n)--"
            + re.escape(b.encode("latin-1"))
            + rb"(?:--)?[ \t]*(?:"
            + octets
            + rb")"
        )
        return re.search(line, req.body) is not None

    return pred


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-WIRE-7: CRLF everywhere the sender writes a line.
    P(
        "bare-lf-blank-line-in-output",
        "MB-WIRE-7 blank line",
        ("response-framing-strict",),
        on_response=_bare_lf_blank_line,
    ),
    # MB-WIRE-8: bare LF or CR as a line terminator is rejected.
    P(
        "bare-lf-after-delimiter-accepted",
        "MB-WIRE-8 after delimiter",
        ("reject-bare-lf-after-delimiter", "reject-bare-lf-after-padding"),
        on_response=accepts(body_has(rb"^--[^\r\n]*\n")),
    ),
    P(
        "bare-lf-in-part-header-accepted",
        "MB-WIRE-8 part header",
        ("reject-bare-lf-in-part-header",),
        on_response=accepts(body_has(rb"GET\nContent-Id")),
    ),
    P(
        "bare-lf-blank-line-accepted",
        "MB-WIRE-8 blank line",
        ("reject-bare-lf-blank-line",),
        on_response=accepts(body_has(rb">\r\n\n")),
    ),
    P(
        "bare-cr-accepted",
        "MB-WIRE-8 bare CR",
        ("reject-bare-cr-in-part-header",),
        on_response=accepts(body_has(rb"GET\rContent-Id")),
    ),
    P(
        "stray-cr-before-delimiter-crlf-accepted",
        "MB-WIRE-8 CR CR LF after a dash-boundary",
        ("reject-cr-cr-lf-after-delimiter", "reject-cr-cr-lf-after-padding"),
        on_response=accepts(body_has(rb"^--[^\r\n]*\r\r\n")),
    ),
    P(
        "bare-cr-after-delimiter-accepted",
        "MB-WIRE-8 bare CR ending a delimiter line",
        ("reject-bare-cr-after-delimiter", "reject-bare-cr-inside-padding"),
        on_response=accepts(body_has(rb"^--[^\r\n]*\r[^\n]")),
    ),
    P(
        "stray-cr-in-part-header-accepted",
        "MB-WIRE-8 CR CR LF in a part header section",
        (
            "reject-cr-cr-lf-ending-part-header-line",
            "reject-cr-cr-lf-blank-line",
            "reject-bare-cr-blank-line",
        ),
        on_response=accepts(body_has(rb"(?:GET|>\r\n)\r(?:\r\n|\r\n--|--)")),
    ),
    P(
        "close-delimiter-line-ending-lax",
        "MB-WIRE-8 the close delimiter line",
        (
            "reject-cr-cr-lf-after-close-delimiter",
            "reject-bare-lf-after-close-delimiter",
            "reject-bare-cr-after-close-delimiter",
            "reject-cr-cr-lf-after-close-padding",
        ),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]+?--[ \t]*(?:\r\r\n|\n|\r)\Z")),
    ),
    P(
        "later-delimiter-line-ending-lax",
        "MB-WIRE-8 a delimiter line between parts",
        ("reject-cr-cr-lf-after-second-delimiter", "reject-bare-lf-after-second-delimiter"),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]+?(?:\r\r\n|\n)Http")),
    ),
    P(
        "lf-only-message-accepted",
        "MB-WIRE-8 LF throughout",
        ("reject-lf-only-message",),
        on_response=accepts(body_has(rb"\n\n\n--")),
    ),
    # MB-WIRE-13: content that ends with the close delimiter itself has one.
    P(
        "close-delimiter-at-content-end-refused",
        "MB-WIRE-13 content ending with the close delimiter and no CRLF",
        ("accept-close-delimiter-ending-content",),
        on_response=refuses(body_has(rb"\r\n--[^\r\n]+--\Z"), 400, "MB-WIRE-13"),
    ),
    P(
        "bare-lf-in-body-refused",
        "MB-WIRE-8 body data",
        ("accept-body-with-bare-lf",),
        on_response=refuses(body_has(rb"a\nb\nc\n")),
    ),
    # MB-WIRE-9: preamble and epilogue are ignored.
    P(
        "preamble-refused",
        "MB-WIRE-9 preamble",
        ("accept-preamble-and-epilogue",),
        on_response=refuses(body_has(rb"^This preamble")),
    ),
    P(
        "epilogue-refused",
        "MB-WIRE-9 epilogue",
        ("accept-preamble-and-epilogue",),
        on_response=refuses(body_has(rb"This epilogue is ignored")),
    ),
    # MB-WIRE-10: no preamble or epilogue in output.
    P(
        "epilogue-sent",
        "MB-WIRE-10 epilogue",
        ("response-framing-strict",),
        caught_by=("WARN", "FAIL"),
        on_response=_epilogue,
    ),
    # MB-WIRE-11: transport padding accepted.
    P(
        "transport-padding-refused",
        "MB-WIRE-11",
        ("accept-transport-padding",),
        on_response=refuses(body_has(rb"^--[^\r\n]*[ \t]\r\n")),
    ),
    # MB-WIRE-13: no close delimiter is 400.
    P(
        "unclosed-body-accepted",
        "MB-WIRE-13",
        (
            "reject-missing-close-delimiter",
            "reject-unclosed-after-dash-boundary",
            "reject-unclosed-after-one-hyphen",
            "reject-unclosed-after-transport-padding",
            "reject-unclosed-after-delimiter-line",
            "reject-unclosed-inside-part-header",
            "reject-unclosed-inside-part-body",
        ),
        on_response=accepts(lambda r: is_batch(r) and not r.body.rstrip().endswith(b"--")),
    ),
    P(
        "dash-boundary-at-end-taken-as-close",
        "MB-WIRE-13 after a dash-boundary",
        ("reject-unclosed-after-dash-boundary", "reject-unclosed-after-transport-padding"),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]*[^\r\n \t-][ \t]*\Z")),
    ),
    P(
        # A check of the octet after a CR that reads past the end of the content (or takes the
        # cut line for a whole one) answers content ending in a CR as if it were closed.
        "content-ending-in-cr-taken-as-close",
        "MB-WIRE-13 content cut after a CR",
        (
            "reject-unclosed-after-dash-boundary-cr",
            "reject-unclosed-after-padding-cr",
            "reject-unclosed-after-one-hyphen-cr",
            "reject-unclosed-after-delimiter-line-cr",
            "reject-unclosed-in-body-ending-cr",
            "reject-first-delimiter-line-cut-after-cr",
        ),
        on_response=accepts(lambda r: is_batch(r) and r.body.endswith(b"\r")),
    ),
    P(
        "one-hyphen-taken-as-close",
        "MB-WIRE-13 after one hyphen",
        ("reject-unclosed-after-one-hyphen",),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]*[^-]-\Z")),
    ),
    P(
        "delimiter-line-at-end-taken-as-close",
        "MB-WIRE-13 after a delimiter line",
        ("reject-unclosed-after-delimiter-line",),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]*[^-\r\n]\r\n\Z")),
    ),
    P(
        "cut-short-part-dropped",
        "MB-WIRE-13 inside a part",
        ("reject-unclosed-inside-part-header", "reject-unclosed-inside-part-body"),
        on_response=accepts(body_has(rb"\n[^-\r\n][^\r\n]*\Z")),
    ),
    # MB-WIRE-18: at least one part.
    P(
        "empty-batch-after-preamble-accepted",
        "MB-WIRE-18 close delimiter after a preamble",
        ("reject-empty-batch-after-preamble", "reject-empty-batch-padded-close"),
        on_response=accepts(
            lambda r: (
                is_batch(r)
                and re.fullmatch(rb"(?s)[^-]?.*?--[^\r\n]*--[ \t]*\r\n", r.body) is not None
                and r.body.count(b"--") == 2
            )
        ),
    ),
    P(
        "empty-batch-accepted",
        "MB-WIRE-18 close delimiter only",
        ("reject-empty-batch",),
        on_response=accepts(
            lambda r: is_batch(r) and r.body.startswith(b"--") and r.body.count(b"--") == 2
        ),
    ),
    P(
        "unframed-batch-length-required",
        "MB-WIRE-18 a batch without Content-Length or Transfer-Encoding answered 411",
        ("reject-empty-content-unframed",),
        on_response=refuses(_unframed, 411, "MB-WIRE-18"),
    ),
    P(
        "unframed-http10-batch-read-to-close",
        "MB-WIRE-18 an HTTP/1.0 batch without framing fields read until the client closes",
        ("unframed-batch-over-http10-answered-400",),
        behaviour=Behaviour(stall=lambda r: r.version == "1.0" and _unframed(r)),
    ),
    P(
        "empty-content-accepted",
        "MB-WIRE-18 no content",
        ("reject-empty-content",),
        on_response=accepts(lambda r: r.method == "POST" and not r.body),
    ),
    # MB-WIRE-19: text after the dash-boundary is rejected.
    P(
        "text-after-first-boundary-accepted",
        "MB-WIRE-19 first delimiter",
        ("reject-text-after-boundary",),
        on_response=accepts(body_has(rb"trailing-text")),
    ),
    P(
        "text-after-later-boundary-accepted",
        "MB-WIRE-19 later delimiter",
        ("reject-text-after-later-boundary",),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]*X\r\n")),
    ),
    # MB-WIRE-21: a header section followed directly by the next delimiter.
    P(
        "bodyless-part-refused",
        "MB-WIRE-21",
        ("accept-part-without-blank-body-line",),
        on_response=refuses(body_has(rb">\r\n\r\n--")),
    ),
    # MB-WIRE-9: delimiter text that is not a delimiter line is preamble or epilogue.
    P(
        "boundary-in-preamble-refused",
        "MB-WIRE-9 dash-boundary mid-line in the preamble",
        (
            "accept-dash-boundary-mid-line-in-preamble",
            "accept-close-delimiter-mid-line-in-preamble",
            "accept-dash-boundary-after-bare-cr-in-preamble",
        ),
        on_response=refuses(body_has(rb"\A[^\r\n-][^\n]*--")),
    ),
    P(
        "epilogue-read-for-parts",
        "MB-WIRE-9 delimiter text in the epilogue",
        ("accept-delimiter-lines-in-epilogue", "accept-dash-boundary-mid-line-in-epilogue"),
        on_response=refuses(body_has(rb"[^-]--\r\n[^\r\n]*--[!-~]")),
    ),
    # MB-WIRE-13: a close delimiter found where there is none.
    P(
        "close-delimiter-found-by-suffix",
        "MB-WIRE-13 close delimiter text at the end, no CRLF before it",
        (
            "reject-close-text-after-text-at-end",
            "reject-close-text-on-last-body-line",
            "reject-close-text-after-bare-cr-at-end",
            "reject-close-text-in-later-part-body",
        ),
        on_response=accepts(_ends_in_close_text(b"--")),
    ),
    P(
        "close-delimiter-of-a-longer-boundary",
        "MB-WIRE-13 close delimiter matched by the boundary's suffix",
        ("reject-close-text-of-longer-boundary",),
        on_response=accepts(_ends_in_close_text(rb"\r\n--[^\r\n]+")),
    ),
    # MB-WIRE-19: only SP and HTAB are transport padding.
    P(
        "padding-any-octet-white-space",
        "MB-WIRE-19 VT, FF, 0x85 or 0xA0 taken for padding",
        (
            "reject-first-delimiter-then-vertical-tab",
            "reject-later-delimiter-then-form-feed",
            "reject-close-delimiter-then-octet-85",
            "reject-close-delimiter-ending-octet-a0",
        ),
        on_response=accepts(_padding_with(rb"[\x0b\x0c\x85\xa0]")),
    ),
    P(
        "padding-unicode-white-space",
        "MB-WIRE-19 Unicode white space taken for padding",
        (
            "reject-first-delimiter-then-utf8-nbsp",
            "reject-later-delimiter-then-utf8-ideographic-space",
            "reject-close-delimiter-then-utf8-line-separator",
            "reject-close-delimiter-ending-utf8-en-space",
            "reject-first-delimiter-then-unit-separator",
            "reject-later-delimiter-then-file-separator",
        ),
        on_response=accepts(
            _padding_with(rb"\xc2\xa0|\xe2\x80[\x80-\x8a\xa8\xa9]|\xe3\x80\x80|[\x1c-\x1f]")
        ),
    ),
    P(
        "padding-ends-at-nul",
        "MB-WIRE-19 a NUL ends the delimiter line",
        (
            "reject-first-delimiter-then-nul",
            "reject-later-delimiter-then-nul",
            "reject-close-delimiter-then-nul",
            "reject-close-delimiter-ending-nul",
        ),
        on_response=accepts(_padding_with(rb"\x00")),
    ),
)
