"""Octet limits judged with content of more than one octet per character (spec 9.1).

Theory of operation: spec 9.1 counts `max_part_header_bytes`, `max_part_bytes` and
`max_batch_bytes` in octets ("the octets of one part header section", "the octets of one part
body", "the octets of the batch request's content"). The cases in `checks/limits.py` fill their
sections and bodies with ASCII, where an octet and a character are the same count, so a server
that counts characters (UTF-8 code points, runes, a decoded string's length) passes them. These
cases write the same edges with `FILLER`, a character UTF-8 encodes in two octets: a section
or body of exactly the limit in octets is processed, and one of a single octet more is refused
before any part runs, with 431 or 413 naming the limit. A server counting characters counts
about half and processes it.

In a part header section the filler sits in a field value as obs-text (octets 0x80 to 0xFF):
MB-PART-11 makes a part header line a `field-line` "with `field-name` and `field-value` of RFC
9110 §5", and RFC 9110 §5.5 lets a field value carry obs-text. In a part body the filler is
plain UTF-8 text. An odd number of octets is made up with one ASCII octet. The cases over a
limit are also sent chunked, as in `checks/limits.py` (MB-INTER-5).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    FIRST_SECTION,
    MAX_SEND_BYTES,
    envelope,
    lengths_for,
    part,
    processed,
    published_limit,
    refused,
    register_cases,
    within,
)
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge

__all__ = ["multi_octet"]

#: "é" (U+00E9): two octets in UTF-8, 0xC3 0xA9, both obs-text in a field value.
FILLER = "\u00e9".encode()
#: The text media type of the bodies, so the octets are plainly UTF-8 characters.
TEXT_FIELDS = (("Content-Type", "text/plain; charset=utf-8"),)


def multi_octet(octets: int) -> bytes:
    """Exactly `octets` octets of `FILLER`, with one ASCII octet when `octets` is odd."""
    return FILLER * (octets // len(FILLER)) + b"b" * (octets % len(FILLER))


def _section(target: str, octets: int) -> bytes:
    """A GET part's header section of exactly `octets` octets (field lines with their CRLFs),
    its filler line's value written in `FILLER`; ValueError when it cannot be done."""
    head = f"Http-Method: GET\r\nContent-Id: <{target}>\r\n".encode("latin-1")
    # The filler value starts with a visible ASCII octet: RFC 9110 §5.5 field-value starts
    # with field-vchar, which obs-text is too, but a plain first octet keeps the case to
    # the unit under test.
    room = octets - len(head) - len(b"X-Fill: a\r\n")
    if room < len(FILLER):
        raise ValueError(f"{octets} octets cannot hold Http-Method, Content-Id and the filler")
    return head + b"X-Fill: a" + multi_octet(room) + b"\r\n"


def _header_bytes(over: int, ctx: Context, judge: Judge, chunked: bool = False) -> None:
    limit = published_limit(ctx, judge, "max_part_header_bytes")
    ok = ctx.path(ctx.resource(judge, "ok"))
    try:
        section = _section(ok, limit + over)
    except ValueError as exc:
        judge.not_applicable(str(exc))
    body = envelope([part(section)])
    within(ctx, judge, body, 1)
    if over:
        # MB-STATUS-3: "431 (Request Header Fields Too Large) when a part header section
        # exceeds `max_part_header_bytes`"; spec 9.1 counts "the octets of one part header
        # section", so two-octet characters count two each.
        refused(ctx, judge, body, 431, "max_part_header_bytes", at=FIRST_SECTION, chunked=chunked)
    else:
        # Spec 9.1: "A value at the limit is within it".
        processed(ctx, judge, body, [f"<{ok}>"])


def _part_bytes(
    over: int, ctx: Context, judge: Judge, chunked: bool = False, declared: bool = True
) -> None:
    limit = published_limit(ctx, judge, "max_part_bytes")
    echo = ctx.path(ctx.resource(judge, "echo"))
    sub = SubRequest("PUT", echo, TEXT_FIELDS, multi_octet(limit + over), content_length=declared)
    body = compose_batch([sub], BOUNDARY)
    within(ctx, judge, body, 1, 4)
    if over:
        # MB-STATUS-3: "413 (Content Too Large)" for a batch over a limit; spec 9.1 counts
        # "the octets of one part body".
        refused(ctx, judge, body, 413, "max_part_bytes", chunked=chunked)
    else:
        processed(ctx, judge, body, [sub.content_id])


def _batch_bytes(over: int, ctx: Context, judge: Judge, chunked: bool = False) -> None:
    limit = published_limit(ctx, judge, "max_batch_bytes")
    if limit + over > MAX_SEND_BYTES:
        judge.not_applicable(f"max_batch_bytes {limit} is more than the suite sends at most")
    echo = ctx.path(ctx.resource(judge, "echo"))
    lengths = lengths_for(echo, limit + over, ctx.limit("max_part_bytes") or limit)
    if lengths is None:
        judge.not_applicable(f"no batch of exactly {limit + over} octets could be written")
    # The same skeleton `lengths_for` measured (text/plain, a declared Content-Length), each
    # body of that many octets written in `FILLER`.
    subs = [
        SubRequest(
            "PUT",
            echo,
            (("Content-Type", "text/plain"), ("Content-Length", str(n))),
            multi_octet(n),
            content_length=False,
        )
        for n in lengths
    ]
    body = compose_batch(subs, BOUNDARY)
    if len(body) != limit + over:
        judge.setup_error(f"the batch written is {len(body)} octets, not {limit + over}")
    within(ctx, judge, body[: len(body) - over], len(subs), 4)
    if over:
        # MB-STATUS-3: a batch over a limit is 413; spec 9.1 counts "the octets of the batch
        # request's content".
        refused(ctx, judge, body, 413, "max_batch_bytes", at=None, chunked=chunked)
    else:
        processed(ctx, judge, body, [sub.content_id for sub in subs], chunked)


#: Sends megabytes (the part and batch octet limits): in the standard tier, not in smoke.
LARGE = frozenset(
    {
        "limit-part-bytes-at-limit-multi-octet",
        "limit-part-bytes-one-over-multi-octet",
        "limit-part-bytes-one-over-multi-octet-undeclared",
        "limit-batch-bytes-at-limit-multi-octet",
        "limit-batch-bytes-one-over-multi-octet",
        "limit-batch-bytes-one-over-multi-octet-chunked",
    }
)

CASES: tuple[tuple[str, tuple[str, ...], str, Callable[[Context, Judge], None]], ...] = (
    (
        "limit-part-header-bytes-at-limit-multi-octet",
        # The section is one long field line (MB-PART-12: "any length within its
        # part-header-section limit") besides Http-Method and Content-Id.
        ("MB-LIMIT-1", "MB-PART-11", "MB-PART-12"),
        "A part header section of exactly the published max_part_header_bytes octets, its filler value written in two-octet UTF-8 characters, is accepted.",
        partial(_header_bytes, 0),
    ),
    (
        "limit-part-header-bytes-one-over-multi-octet",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "A part header section one octet over the published max_part_header_bytes, its filler value written in two-octet UTF-8 characters, is answered 431.",
        partial(_header_bytes, 1),
    ),
    (
        "limit-part-header-bytes-one-over-multi-octet-chunked",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4", "MB-INTER-5"),
        "A part header section one octet over the published max_part_header_bytes, written in two-octet UTF-8 characters and sent chunked, is answered 431.",
        partial(_header_bytes, 1, chunked=True),
    ),
    (
        "limit-part-bytes-at-limit-multi-octet",
        ("MB-LIMIT-1", "MB-PART-8"),
        "A part body of exactly the published max_part_bytes octets of two-octet UTF-8 characters is accepted.",
        partial(_part_bytes, 0),
    ),
    (
        "limit-part-bytes-one-over-multi-octet",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "A part body one octet over the published max_part_bytes, of two-octet UTF-8 characters, is answered 413.",
        partial(_part_bytes, 1),
    ),
    (
        "limit-part-bytes-one-over-multi-octet-undeclared",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "A part body one octet over the published max_part_bytes, of two-octet UTF-8 characters and with no Content-Length field, is answered 413.",
        partial(_part_bytes, 1, declared=False),
    ),
    (
        "limit-batch-bytes-at-limit-multi-octet",
        ("MB-LIMIT-1",),
        "Batch content of exactly the published max_batch_bytes octets, its bodies of two-octet UTF-8 characters, is processed.",
        partial(_batch_bytes, 0),
    ),
    (
        "limit-batch-bytes-one-over-multi-octet",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "Batch content one octet over the published max_batch_bytes, its bodies of two-octet UTF-8 characters, is answered 413.",
        partial(_batch_bytes, 1),
    ),
    (
        "limit-batch-bytes-one-over-multi-octet-chunked",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4", "MB-INTER-5"),
        "Chunked batch content one octet over the published max_batch_bytes, its bodies of two-octet UTF-8 characters, is answered 413.",
        partial(_batch_bytes, 1, chunked=True),
    ),
)


register_cases(CASES, LARGE)
