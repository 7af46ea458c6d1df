"""Planted violations of the media type and the boundary (spec 3.1.1: MB-WIRE-2 to MB-WIRE-5).

Each entry is one way a server breaks one requirement: a validation it lacks (it accepts
what it must refuse), a refusal of what it must accept, or a response boundary it chooses or
writes wrongly. The batch endpoint's answers to methods other than POST and to GET with
content (MB-METHOD-2, MB-METHOD-3) are planted here too, next to the envelope they stand in
for, and so are the batch request's own list fields (Batch-Mode, Accept) read from one field
line only, the first or the last: the server sees the other lines removed. Line terminators,
preamble, epilogue and the close delimiter are in plants.framing, part lengths and the limits
on the envelope in plants.lengths, the grammar of the part header section in
plants.part_grammar, and the problem documents in plants.problems.
"""

from __future__ import annotations

import itertools
import re
import secrets
import time
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Pred,
    RespEdit,
    accepts,
    boundary_of,
    header_has,
    is_batch,
    parts_of,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


#: The envelope cases' names for the token characters that are no bchars (RFC 9110 §5.6.2,
#: RFC 2046 §5.1.1): ! # $ % & * ^ ` | ~.
TCHARS_OUTSIDE_BCHARS = (
    *("bang", "hash", "dollar", "percent", "ampersand"),
    *("asterisk", "caret", "backtick", "pipe", "tilde"),
)


def _ctype(pattern: str) -> Pred:
    return header_has("Content-Type", pattern)


def _rebound(new: str, *, quote: bool = True) -> RespEdit:
    """A server whose response boundary is `new` (written on both the field and the body),
    quoted in Content-Type where a token cannot hold it, or never when `quote` is false."""
    return _rebound_each(lambda: new, quote=quote)


def _rebound_each(make: Callable[[], str], *, quote: bool = True) -> RespEdit:
    """A server whose response boundary is `make()`, called afresh for each batch response."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b else None
        if not b or parts is None or not is_batch(req):
            return
        new = make()
        special = re.search(r"[^A-Za-z0-9_\-'+.]", new)
        quoted = f'"{new}"' if quote and special else new
        resp.headers = [
            (n, f"multipart/mixed; boundary={quoted}" if n.lower() == "content-type" else v)
            for n, v in resp.headers
        ]
        resp.body = write_parts(parts, new)

    return edit


def _fixed_boundary(req: RelayRequest, resp: RelayResponse) -> None:
    _rebound("plant-one-boundary-for-every-response")(req, resp)


def _counter_boundary() -> str:
    """A boundary fresh for each message because it counts them: long, but predictable."""
    return f"plant-batch-response-{next(_COUNTER):06d}"


_COUNTER = itertools.count(1)


def _clock_boundary() -> str:
    """A boundary from the clock's nanoseconds: unique, but most of it the same each time."""
    return f"mixbatch-{time.time_ns()}"


def _short_random_tail() -> str:
    """A fixed prefix and 8 random characters: 26 characters, of which 8 vary."""
    return "plant-fixed-prefix-" + secrets.token_urlsafe(6)


def _get_refused_400(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that answers every GET on the batch endpoint 400, as if it had content."""
    if req.method == "GET" and resp.status == 405:
        resp.status = 400


def _content_refused_400(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that makes its GET content check for every method: a PUT, PATCH or DELETE with
    content to the batch endpoint is answered 400 without Allow, not 405."""
    if req.method != "GET" and req.body and resp.status == 405:
        resp.status = 400
        resp.set("Allow", None)


def _allow_names_refused(req: RelayRequest, resp: RelayResponse) -> None:
    """A server whose 405 Allow is a fixed list that names the method it refused."""
    if resp.status == 405:
        resp.set("Allow", f"POST, OPTIONS, {req.method}")


def _allow_post_only(req: RelayRequest, resp: RelayResponse) -> None:
    """A server whose 405 names POST alone, leaving out the OPTIONS it answers."""
    if resp.status == 405:
        resp.set("Allow", "POST")


def _chunked_get_content_unseen(req: RelayRequest) -> None:
    """A server that sees content on a GET only through Content-Length."""
    if req.method == "GET" and req.get("Transfer-Encoding"):
        req.body = b""


def _get_content_run(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that answers a GET with content on the batch endpoint as if it had none, 200."""
    if req.method == "GET" and req.body and resp.status in (400, 405):
        resp.status = 200


def _one_line_of(name: str, keep: int) -> Callable[[RelayRequest], None]:
    """A server that reads field `name` from one of its field lines only (0 first, -1 last)."""

    def edit(req: RelayRequest) -> None:
        lines = [(n, v) for n, v in req.headers if n.lower() == name.lower()]
        if len(lines) > 1:
            req.headers = [(n, v) for n, v in req.headers if n.lower() != name.lower()]
            req.headers.append(lines[keep])

    return edit


def _boundary_has_capitals(req: RelayRequest) -> bool:
    """A batch whose boundary has capital letters: a server that lower-cases the whole
    Content-Type value finds no delimiter."""
    b = boundary_of(req)
    return is_batch(req) and b is not None and b != b.lower()


def _boundary_case_twin_in_body(req: RelayRequest) -> bool:
    """A batch holding a line that is the dash-boundary in another case: a server that
    matches delimiters ignoring case splits the body there."""
    b = boundary_of(req)
    if not b or not is_batch(req):
        return False
    dash = b"--" + b.encode("latin-1")
    twins = re.finditer(rb"(?i)\r\n" + re.escape(dash), req.body)
    return any(req.body[m.start() + 2 : m.end()] != dash for m in twins)


#: Accept-Post listing the batch representations a server answers in, not only the one it accepts.
REPRESENTATIONS = "multipart/mixed, application/vnd.mixbatch.multistatus+json, application/xml"


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-WIRE-2: 415 with Accept-Post for a media type other than multipart/mixed.
    P(
        "media-type-unchecked",
        "MB-WIRE-2 accepts text/plain",
        ("reject-media-type-text-plain",),
        on_response=accepts(_ctype(r"^text/plain")),
    ),
    P(
        "form-data-taken-for-mixed",
        "MB-WIRE-2 accepts multipart/form-data",
        ("reject-media-type-form-data",),
        on_response=accepts(_ctype(r"form-data")),
    ),
    P(
        "absent-media-type-answered-406",
        "MB-WIRE-2 no Content-Type, answered as a request that accepts no batch representation",
        ("reject-media-type-absent",),
        on_response=refuses(lambda r: r.method == "POST" and r.get("Content-Type") is None, 406),
    ),
    P(
        "accept-post-names-a-longer-type",
        "MB-WIRE-2 Accept-Post",
        ("reject-media-type-text-plain",),
        on_response=lambda q, r: (
            r.set("Accept-Post", "multipart/mixed-batch") if r.status == 415 else None
        ),
    ),
    P(
        "wrong-media-type-answered-400",
        "MB-WIRE-2 status",
        ("reject-media-type-text-plain",),
        on_response=refuses(_ctype(r"^text/plain"), 400),
    ),
    # MB-WIRE-4: "MUST NOT refuse a batch request for a boundary that MB-WIRE-3 allows,
    # whatever its length from 1 to 70, its bchars ... and its spelling as a token or a
    # quoted-string".
    P(
        "seventy-char-boundary-refused",
        "MB-WIRE-4 70 characters",
        ("accept-boundary-seventy-chars",),
        on_response=refuses(_ctype(r"boundary=[^;]{70}$")),
    ),
    P(
        "one-char-boundary-refused",
        "MB-WIRE-4 one character",
        ("accept-boundary-one-char",),
        on_response=refuses(_ctype(r"boundary=q$")),
    ),
    P(
        "quoted-boundary-refused",
        "MB-WIRE-4 quoted specials",
        ("accept-boundary-quoted-specials",),
        on_response=refuses(_ctype(r'boundary="[^"]*[()+,./:=?][^"]*"')),
    ),
    P(
        "boundary-recommended-alphabet-only",
        "MB-WIRE-4 bchars outside the recommended alphabet",
        (
            "accept-boundary-quoted-equals",
            "accept-boundary-quoted-colon",
            "accept-boundary-token-plus",
        ),
        on_response=refuses(_ctype(r'boundary="?[^";]*[^A-Za-z0-9_"; -]')),
    ),
    P(
        "boundary-inner-space-refused",
        "MB-WIRE-4 inner space",
        ("accept-boundary-quoted-space", "accept-boundary-leading-space"),
        on_response=refuses(_ctype(r'boundary="[^"]* [^"]*"')),
    ),
    P(
        "boundary-quoted-pair-kept",
        "MB-WIRE-4 quoted-pair not unescaped",
        ("accept-boundary-quoted-pair",),
        on_response=refuses(_ctype(r'boundary="[^"]*\\')),
    ),
    P(
        "boundary-escaped-dquote-accepted",
        "MB-WIRE-4 escaped double quote",
        ("reject-boundary-quoted-pair-dquote",),
        on_response=accepts(_ctype(r'boundary="[^"]*\\"')),
    ),
    P(
        "token-boundary-with-token-specials-refused",
        "MB-WIRE-4 token spelling",
        ("accept-boundary-token-apostrophe", "accept-boundary-token-period"),
        on_response=refuses(_ctype(r"boundary=[^\"; ]*['.]")),
    ),
    P(
        "response-boundary-over-long",
        "MB-WIRE-3 sender length",
        ("response-boundary-valid",),
        on_response=_rebound("b" * 75),
    ),
    P(
        "response-boundary-slash-unquoted",
        "MB-WIRE-3 sender quoting",
        ("response-boundary-valid",),
        on_response=_rebound("plant/unquoted/boundary0123", quote=False),
    ),
    # MB-WIRE-4: an invalid boundary parameter is 400.
    P(
        "missing-boundary-accepted",
        "MB-WIRE-4 missing",
        ("reject-boundary-missing",),
        on_response=accepts(_ctype(r"^multipart/mixed$")),
    ),
    P(
        "empty-boundary-accepted",
        "MB-WIRE-4 empty",
        ("reject-boundary-empty",),
        on_response=accepts(_ctype(r'boundary=""')),
    ),
    P(
        "long-boundary-accepted",
        "MB-WIRE-4 over-long",
        ("reject-boundary-seventy-one-chars",),
        on_response=accepts(_ctype(r"boundary=[^;]{71}")),
    ),
    P(
        "trailing-space-boundary-accepted",
        "MB-WIRE-4 trailing space",
        ("reject-boundary-trailing-space",),
        on_response=accepts(_ctype(r' "$')),
    ),
    P(
        "bad-char-boundary-accepted",
        "MB-WIRE-4 character outside bchars",
        ("reject-boundary-bad-char",),
        on_response=accepts(_ctype(r"@")),
    ),
    P(
        "token-char-boundary-accepted",
        "MB-WIRE-4 a token character outside bchars taken as valid",
        (
            *(f"reject-boundary-token-{n}" for n in TCHARS_OUTSIDE_BCHARS),
            "reject-boundary-quoted-bang",
            "reject-boundary-quoted-tilde",
        ),
        on_response=accepts(_ctype(r"boundary=\"?[^\";]*[!#$%&*^`|~]")),
    ),
    # MB-WIRE-5: a fresh boundary of 16+ safe characters for each response.
    P(
        "one-boundary-for-server-lifetime",
        "MB-WIRE-5 reuse",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_fixed_boundary,
    ),
    P(
        "short-response-boundary",
        "MB-WIRE-5 length",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_rebound("short"),
    ),
    P(
        "response-boundary-base64-alphabet",
        "MB-WIRE-5 alphabet",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_rebound("plant+base64/boundary0123", quote=False),
    ),
    P(
        "response-boundary-counter",
        "MB-WIRE-5 a counter, fresh but predictable",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_rebound_each(_counter_boundary),
    ),
    P(
        "response-boundary-clock",
        "MB-WIRE-5 the clock's nanoseconds, fresh but predictable",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_rebound_each(_clock_boundary),
    ),
    P(
        "response-boundary-short-random-tail",
        "MB-WIRE-5 a fixed prefix with 8 random characters",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_rebound_each(_short_random_tail),
    ),
    # MB-METHOD-2: every method the endpoint does not support is 405, with an Allow naming
    # POST and, when OPTIONS gives the capabilities document, OPTIONS.
    P(
        "get-without-content-answered-400",
        "MB-METHOD-2 GET",
        ("method-not-allowed",),
        on_response=_get_refused_400,
    ),
    P(
        "content-on-other-method-answered-400",
        "MB-METHOD-2 a method with content",
        ("method-not-allowed",),
        on_response=_content_refused_400,
    ),
    P(
        "allow-names-the-refused-method",
        "MB-METHOD-2 Allow naming an unsupported method",
        ("method-not-allowed",),
        on_response=_allow_names_refused,
    ),
    P(
        "allow-without-options",
        "MB-METHOD-2 OPTIONS in Allow",
        ("method-not-allowed",),
        on_response=_allow_post_only,
    ),
    # MB-METHOD-3: content on a GET is content however it is framed.
    P(
        "chunked-get-content-unseen",
        "MB-METHOD-3 chunked",
        ("collection-get-with-content",),
        on_request=_chunked_get_content_unseen,
    ),
    P(
        "batch-endpoint-get-content-answered",
        "MB-METHOD-3 batch endpoint",
        ("batch-endpoint-get-with-content",),
        on_response=_get_content_run,
    ),
    # MB-WIRE-2: media type and parameter names are case-insensitive; the type is exact.
    P(
        "media-type-case-sensitive",
        "MB-WIRE-2 case of the media type",
        ("accept-media-type-mixed-case", "accept-media-type-upper-case"),
        on_response=refuses(_ctype(r"^(?!multipart/mixed)(?i:multipart/mixed)"), 415, "MB-WIRE-2"),
    ),
    P(
        "media-type-prefix-match",
        "MB-WIRE-2 prefix of the media type",
        ("reject-media-type-mixed-prefix", "reject-media-type-mixed-suffix-subtype"),
        on_response=accepts(_ctype(r"^multipart/mixed[^;\s]")),
    ),
    P(
        "multipart-mixed-by-substring",
        "MB-WIRE-2 any multipart subtype containing mixed",
        ("reject-media-type-x-mixed-replace", "reject-media-type-x-mixed"),
        on_response=accepts(_ctype(r"^multipart/[^;\s]*mixed")),
    ),
    P(
        "any-multipart-taken",
        "MB-WIRE-2 any multipart subtype",
        (
            "reject-media-type-alternative",
            "reject-media-type-digest",
            "reject-media-type-parallel",
            "reject-media-type-related-type-mixed",
        ),
        on_response=accepts(_ctype(r"^multipart/(alternative|digest|parallel|related)")),
    ),
    P(
        "mixed-subtype-any-type",
        "MB-WIRE-2 subtype mixed under another type",
        ("reject-media-type-application-mixed",),
        on_response=accepts(_ctype(r"^application/mixed")),
    ),
    P(
        "boundary-parameter-name-case-sensitive",
        "MB-WIRE-2 case of the parameter name",
        ("accept-boundary-parameter-name-mixed-case", "accept-media-type-upper-case"),
        on_response=refuses(_ctype(r"(?-i:Boundary|BOUNDARY)=")),
    ),
    # MB-WIRE-4: exactly one boundary parameter, of bchars only.
    P(
        "repeated-boundary-first-wins",
        "MB-WIRE-4 repeated",
        (
            "reject-boundary-repeated",
            "reject-boundary-repeated-last-used",
            "reject-boundary-repeated-same-value",
            "reject-boundary-repeated-other-case",
            "reject-boundary-repeated-quoted",
        ),
        on_response=accepts(_ctype(r"(?i)boundary=.*;\s*boundary=")),
    ),
    P(
        "boundary-octets-unchecked",
        "MB-WIRE-4 HTAB or obs-text",
        ("reject-boundary-octet-htab", "reject-boundary-octet-obs-text"),
        on_response=accepts(_ctype(r'boundary="[^"]*[^\x20-\x7e"]')),
    ),
    # MB-PROC-17 / MB-MULTI-1: field lines of one name are one list (RFC 9110 5.3).
    P(
        "batch-mode-first-line-only",
        "MB-PROC-17 the first Batch-Mode line only",
        ("batch-mode-read-as-list",),
        on_request=_one_line_of("Batch-Mode", 0),
    ),
    P(
        "batch-mode-last-line-only",
        "MB-PROC-17 the last Batch-Mode line only",
        ("batch-mode-read-as-list",),
        on_request=_one_line_of("Batch-Mode", -1),
    ),
    P(
        "accept-first-line-only",
        "MB-MULTI-1 the first Accept line only",
        ("accept-quality-values",),
        on_request=_one_line_of("Accept", 0),
    ),
    P(
        "accept-last-line-only",
        "MB-MULTI-1 the last Accept line only",
        ("accept-quality-values",),
        on_request=_one_line_of("Accept", -1),
    ),
    # MB-WIRE-4: a boundary with capital letters is matched as sent.
    P(
        "boundary-lower-cased",
        "MB-WIRE-4 capital letters",
        (
            "accept-boundary-capitals-token",
            "accept-boundary-mixed-case-token",
            "accept-boundary-capitals-quoted",
            "accept-boundary-one-capital",
        ),
        on_response=refuses(_boundary_has_capitals, 400, "MB-WIRE-13"),
    ),
    P(
        "boundary-matched-ignoring-case",
        "MB-WIRE-4 delimiter in another case",
        ("accept-boundary-case-twin-in-body", "accept-boundary-case-twin-close-in-body"),
        on_response=refuses(_boundary_case_twin_in_body, 400, "MB-WIRE-17"),
    ),
    # MB-WIRE-2 and MB-LIMIT-2: Accept-Post names multipart/mixed alone.
    P(
        "accept-post-lists-representations",
        "MB-WIRE-2 Accept-Post lists the response forms",
        ("non-batch-media-types-name-multipart-only", "reject-media-type-text-plain"),
        on_response=lambda q, r: r.set("Accept-Post", REPRESENTATIONS) if r.status == 415 else None,
    ),
    P(
        "options-accept-post-lists-representations",
        "MB-LIMIT-2 Accept-Post lists the response forms",
        ("options-accept-post-names-multipart-only",),
        on_response=lambda q, r: (
            r.set("Accept-Post", REPRESENTATIONS) if q.method == "OPTIONS" else None
        ),
    ),
)
