"""Limit checks built from the limits the target publishes (spec 9.1).

Theory of operation: the limit vectors under spec/examples are written for small limits
(`max_parts` 3, `max_part_header_bytes` 128, ...) and replay only against a target that
publishes those same values. These checks write the same cases for the limits the target does
publish (in its target description, else its capabilities document): a batch exactly at each
limit, which must be processed, and one a single unit over it, which must be refused before any
part runs with the status spec 9.1 names. Spec 9.1 says what each limit counts, and the
builders below count the same way:

| Limit | Counts |
|---|---|
| `max_parts` | the request parts of one batch |
| `max_batch_bytes` | the octets of the batch request's content |
| `max_part_bytes` | the octets of one part body |
| `max_part_header_bytes` | each field line of one part header section with its CRLF, not the empty line |
| `max_part_fields` | the field lines of one part header section, `Http-Method` and `Content-Id` included |

"A value at the limit is within it: ... exactly `max_part_header_bytes` octets is accepted, and
one octet more is refused with 431". Each batch has exactly one fault (MB-STATUS-13 would let a
server answer any of several), and stays within every other published limit; a case that cannot
(the limits contradict each other) or that would send more than `MAX_SEND_BYTES` is N/A.
The cases over a limit, and the whole batch at its limit, are also sent with chunked content
(`_sent`; MB-INTER-5: "its limits count the content's octets whatever frames them"): a
server that reads chunked content through a window of exactly the limit sees it cut there, not
over it. The header limits are also judged with filler lines of one name
(lines as sent, not fields folded by name), `max_part_bytes` on a part without
`Content-Length` (octets, not the declared length), and `over-limit-batch-runs-nothing`
puts a sandbox write before a part over a limit and expects the write not to have run.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    FIRST_SECTION,
    MAX_PARTS_SENT,
    MAX_SEND_BYTES,
    header_section,
    register_cases,
)
from mixbatch_conformance.checks._shared.limit_cases import envelope as _envelope
from mixbatch_conformance.checks._shared.limit_cases import filled as _filled
from mixbatch_conformance.checks._shared.limit_cases import lengths_for as _lengths_for
from mixbatch_conformance.checks._shared.limit_cases import part as _part
from mixbatch_conformance.checks._shared.limit_cases import processed as _processed
from mixbatch_conformance.checks._shared.limit_cases import published_limit as _limit
from mixbatch_conformance.checks._shared.limit_cases import refused as _refused
from mixbatch_conformance.checks._shared.limit_cases import sent as _sent
from mixbatch_conformance.checks._shared.limit_cases import within as _within
from mixbatch_conformance.checks._shared.requests import sandbox_listing
from mixbatch_conformance.checks._shared.sandbox_marks import marked_post
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []


# -- the cases ---------------------------------------------------------------------------------
def _parts_at_limit(ctx: Context, judge: Judge) -> None:
    limit = _limit(ctx, judge, "max_parts")
    if limit > MAX_PARTS_SENT:
        judge.not_applicable(f"max_parts {limit} is more than the {MAX_PARTS_SENT} sent at most")
    ok = ctx.path(ctx.resource(judge, "ok"))
    body = _envelope([_part(header_section(ok, fields=2))] * limit)
    _within(ctx, judge, body, limit, 2)
    _processed(ctx, judge, body, [f"<{ok}>"] * limit)
    # The boundary's text inside a line of a body is no delimiter (RFC 2046 §5.1.1: a delimiter
    # line begins a line), so it opens no part: the same batch, its last part a POST whose body
    # quotes the dash-boundary and the close delimiter mid-line, is still at the limit.
    echo = ctx.path(ctx.resource(judge, "echo"))
    dash = f"--{BOUNDARY}"
    head = f"Http-Method: POST\r\nContent-Id: <{echo}>\r\nContent-Type: text/plain\r\n"
    text = f"a line quoting {dash} and {dash}--, twice: {dash} {dash}--\r\nend"
    quoting = _part(head.encode(), text.encode())
    body = _envelope([_part(header_section(ok, fields=2))] * (limit - 1) + [quoting])
    _within(ctx, judge, body, limit, 3)
    _processed(ctx, judge, body, [f"<{ok}>"] * (limit - 1) + [f"<{echo}>"])


def _header_bytes(
    over: int,
    ctx: Context,
    judge: Judge,
    chunked: bool = False,
    repeated: bool = False,
    later: bool = False,
) -> None:
    """A part header section of `limit + over` octets; with `later`, in a second part after
    a small one (a limit binds every part, and the problem places it in part 1)."""
    limit = _limit(ctx, judge, "max_part_header_bytes")
    ok = ctx.path(ctx.resource(judge, "ok"))
    try:
        section = header_section(ok, octets=limit + over, repeated=repeated)
    except ValueError as exc:
        judge.not_applicable(str(exc))
    first = [_part(header_section(ok, fields=2))] if later else []
    body = _envelope([*first, _part(section)])
    _within(ctx, judge, body, 1 + len(first))
    at = len(_envelope([*first, b""])) - len(f"\r\n--{BOUNDARY}--") if later else FIRST_SECTION
    if over:
        # MB-LIMIT-1 and spec 9.1: "one octet more is refused with 431".
        _refused(
            ctx,
            judge,
            body,
            431,
            "max_part_header_bytes",
            at=at,
            chunked=chunked,
            index=len(first),
        )
    else:
        _processed(ctx, judge, body, [f"<{ok}>"])


#: A header section's octets that a 16-bit counter wraps to 1: past every limit that fits in
#: 16 bits, yet read as one octet by a server that counts in them.
WRAPPED_SECTION_OCTETS = (1 << 16) + 1


def _header_bytes_wrapped(ctx: Context, judge: Judge) -> None:
    """A part header section of WRAPPED_SECTION_OCTETS octets, over a smaller published limit."""
    limit = _limit(ctx, judge, "max_part_header_bytes")
    if limit >= WRAPPED_SECTION_OCTETS:
        judge.not_applicable(f"max_part_header_bytes {limit} is not below 2^16 + 1")
    _header_bytes(WRAPPED_SECTION_OCTETS - limit, ctx, judge)


def _fields(
    over: int,
    ctx: Context,
    judge: Judge,
    chunked: bool = False,
    repeated: bool = False,
    value: str = " a",
) -> None:
    """A part of `limit + over` field lines, the filler lines' text after the colon `value`."""
    limit = _limit(ctx, judge, "max_part_fields")
    ok = ctx.path(ctx.resource(judge, "ok"))
    section = header_section(ok, fields=limit + over, repeated=repeated, value=value)
    header_limit = ctx.limit("max_part_header_bytes")
    if header_limit is not None and len(section) > header_limit:
        judge.not_applicable(
            f"{limit + over} field lines take {len(section)} octets, more than the published "
            f"max_part_header_bytes {header_limit}"
        )
    body = _envelope([_part(section)])
    _within(ctx, judge, body, 1, 0)
    if over:
        # MB-LIMIT-5: "answer a batch request with a part over it with 431 and a problem
        # document whose `limit` member is `max_part_fields`": a MUST, not MB-LIMIT-4's SHOULD.
        _refused(ctx, judge, body, 431, "max_part_fields", must_name="MB-LIMIT-5", chunked=chunked)
    else:
        _processed(ctx, judge, body, [f"<{ok}>"])


def _part_bytes(
    over: int, ctx: Context, judge: Judge, chunked: bool = False, declared: bool = True
) -> None:
    """A PUT part of `limit + over` octets, with a Content-Length field unless not `declared`:
    spec 9.1 counts "the octets of one part body", whatever frames it, so a part without
    Content-Length, its body ending at the next delimiter, counts the same."""
    limit = _limit(ctx, judge, "max_part_bytes")
    echo = ctx.path(ctx.resource(judge, "echo"))
    sub = SubRequest(
        "PUT",
        echo,
        (("Content-Type", "application/octet-stream"),),
        b"b" * (limit + over),
        content_length=declared,
    )
    body = compose_batch([sub], BOUNDARY)
    _within(ctx, judge, body, 1, 4)
    if over:
        _refused(ctx, judge, body, 413, "max_part_bytes", chunked=chunked)
    else:
        _processed(ctx, judge, body, [sub.content_id])


def _batch_bytes(over: int, ctx: Context, judge: Judge, chunked: bool = False) -> None:
    limit = _limit(ctx, judge, "max_batch_bytes")
    if limit + over > MAX_SEND_BYTES:
        judge.not_applicable(f"max_batch_bytes {limit} is more than the suite sends at most")
    echo = ctx.path(ctx.resource(judge, "echo"))
    lengths = _lengths_for(echo, limit + over, ctx.limit("max_part_bytes") or limit)
    if lengths is None:
        judge.not_applicable(f"no batch of exactly {limit + over} octets could be written")
    subs = [_filled(echo, n) for n in lengths]
    body = compose_batch(subs, BOUNDARY)
    _within(ctx, judge, body[: len(body) - over], len(subs), 4)
    if over:
        # MB-STATUS-3: a batch over a limit is 413, chunked content as much as content with a
        # Content-Length: content cut at the limit is not the batch the client sent.
        _refused(ctx, judge, body, 413, "max_batch_bytes", at=None, chunked=chunked)
    else:
        # Spec 9.1: "A value at the limit is within it".
        _processed(ctx, judge, body, [sub.content_id for sub in subs], chunked)


def _marked_post(ctx: Context, judge: Judge, coll: str) -> tuple[str, bytes]:
    """A fresh marker and the POST part (as written in a batch) that writes it."""
    marker, sub = marked_post(ctx, judge, coll)
    head = "".join(f"{n}: {v}\r\n" for n, v in sub.headers)
    section = f"Http-Method: POST\r\nContent-Id: <{coll}>\r\n{head}".encode()
    return marker, _part(section, sub.body)


def _later_parts_over(ctx: Context, judge: Judge) -> list[tuple[str, list[bytes], int]]:
    """Part lists whose last part is one unit over a published part limit, with the status
    spec 9.1 gives it; the limits the target does not publish, or that a bounded batch
    cannot exceed, are left out."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    out: list[tuple[str, list[bytes], int]] = []
    header_limit = ctx.limit("max_part_header_bytes")
    if header_limit is not None and header_limit <= 1_000_000:
        out.append(
            ("max_part_header_bytes", [_part(header_section(ok, octets=header_limit + 1))], 431)
        )
    fields = ctx.limit("max_part_fields")
    if fields is not None and fields <= 10_000:
        section = header_section(ok, fields=fields + 1)
        if header_limit is None or len(section) <= header_limit:
            out.append(("max_part_fields", [_part(section)], 431))
    parts = ctx.limit("max_parts")
    if parts is not None and 2 <= parts <= MAX_PARTS_SENT:
        # The POST is the first of max_parts + 1 parts.
        out.append(("max_parts", [_part(header_section(ok, fields=2))] * parts, 413))
    return out


@checker(
    "over-limit-batch-runs-nothing",
    ("MB-STATUS-3", "MB-PROC-1"),
    "A batch whose first part writes in the sandbox and whose later part is over a published part limit (header octets, field lines, part count) is refused and its first part has not run.",
    state=State.WRITES_IN_SANDBOX,
)
def over_limit_batch_runs_nothing(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    cases = _later_parts_over(ctx, judge)
    if not cases:
        judge.not_applicable("the target publishes no part limit a bounded batch can exceed")
    before = sandbox_listing(ctx, judge, coll)
    markers: list[tuple[str, str]] = []
    for name, later, status in cases:
        marker, post = _marked_post(ctx, judge, coll)
        if marker.encode() in before:
            judge.setup_error("the marker is already in the sandbox listing")
        body = _envelope([post, *later])
        _within(ctx, judge, body, 1 + len(later) if name != "max_parts" else 0, 0)
        judge.note(f"a POST, then {len(later)} part(s) over {name}")
        # MB-STATUS-3: "answer a batch request that exceeds one of its limits with 413 ...,
        # or with 431 ... before any part runs, so that no part runs".
        expect_rejected(judge, _sent(ctx, judge, body, False), {status}, "MB-STATUS-3")
        markers.append((name, marker))
    after = sandbox_listing(ctx, judge, coll)
    for name, marker in markers:
        ran = marker.encode() in after
        # MB-STATUS-3: "... so that no part runs and no part is dropped to fit".
        judge.expect_true(
            f"the POST before a part over {name}",
            not ran,
            "the POST part ran" if ran else "not created",
            "the POST part did not run",
            "MB-STATUS-3",
        )


#: Sends megabytes (the part and batch octet limits): in the standard tier, not in smoke.
LARGE = frozenset(
    {
        "limit-part-bytes-at-limit",
        "limit-part-bytes-one-over",
        "limit-part-bytes-one-over-chunked",
        "limit-part-bytes-at-limit-undeclared",
        "limit-part-bytes-one-over-undeclared",
        "limit-batch-bytes-at-limit",
        "limit-batch-bytes-at-limit-chunked",
        "limit-batch-bytes-one-over",
        "limit-batch-bytes-one-over-chunked",
    }
)

CASES: tuple[tuple[str, tuple[str, ...], str, Callable[[Context, Judge], None]], ...] = (
    (
        "limit-parts-at-limit",
        ("MB-LIMIT-1", "MB-RESP-1"),
        "A batch of exactly the published max_parts parts is processed, and so is one whose last part's body quotes the boundary mid-line.",
        _parts_at_limit,
    ),
    (
        "limit-part-header-bytes-at-limit",
        ("MB-LIMIT-1", "MB-PART-12"),
        "A part header section of exactly the published max_part_header_bytes octets is accepted.",
        partial(_header_bytes, 0),
    ),
    (
        "limit-part-header-bytes-one-over",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "A part header section one octet over the published max_part_header_bytes is answered 431.",
        partial(_header_bytes, 1),
    ),
    (
        "limit-part-header-bytes-past-2-16",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "A part header section of 2^16 + 1 octets, over the published max_part_header_bytes, is answered 431, as a counter of 16 bits would not.",
        _header_bytes_wrapped,
    ),
    # The same limits with the filler lines under one name: field lines are counted, not
    # distinct field names, and their octets as sent, not as a folded field.
    (
        "limit-part-header-bytes-one-over-repeated-name",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "A part header section one octet over the published max_part_header_bytes, made up with two field lines of one name, is answered 431.",
        partial(_header_bytes, 1, repeated=True),
    ),
    (
        "limit-part-header-bytes-one-over-second-part",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-STATUS-4"),
        "A second part whose header section is one octet over the published max_part_header_bytes is answered 431, the problem placing it in part 1.",
        partial(_header_bytes, 1, later=True),
    ),
    (
        "limit-part-fields-one-over-repeated-name",
        ("MB-LIMIT-5", "MB-STATUS-3"),
        "A part with one field line more than the published max_part_fields, the extra lines all of one name, is answered 431.",
        partial(_fields, 1, repeated=True),
    ),
    # Field lines count whatever their value (spec 9.1: "the field lines of one part header
    # section"): a line with an empty value, or whitespace alone, is a line all the same.
    (
        "limit-part-fields-one-over-empty-values",
        ("MB-LIMIT-5", "MB-STATUS-3"),
        "A part with one field line more than the published max_part_fields, the extra lines with empty values ('X-F0:'), is answered 431.",
        partial(_fields, 1, value=""),
    ),
    (
        "limit-part-fields-one-over-blank-values",
        ("MB-LIMIT-5", "MB-STATUS-3"),
        "A part with one field line more than the published max_part_fields, the extra lines with values of whitespace alone, is answered 431.",
        partial(_fields, 1, value=" \t "),
    ),
    (
        "limit-part-fields-one-over-empty-repeated-name",
        ("MB-LIMIT-5", "MB-STATUS-3"),
        "A part with one field line more than the published max_part_fields, the extra lines all of one name with empty values, is answered 431.",
        partial(_fields, 1, repeated=True, value=""),
    ),
    (
        "limit-part-fields-at-limit",
        ("MB-LIMIT-5",),
        "A part with exactly the published max_part_fields field lines is accepted.",
        partial(_fields, 0),
    ),
    (
        "limit-part-fields-one-over",
        ("MB-LIMIT-5", "MB-STATUS-3"),
        "A part with one field line more than the published max_part_fields is answered 431.",
        partial(_fields, 1),
    ),
    (
        "limit-part-bytes-at-limit",
        ("MB-LIMIT-1", "MB-PART-8"),
        "A part body of exactly the published max_part_bytes octets is accepted.",
        partial(_part_bytes, 0),
    ),
    (
        "limit-part-bytes-one-over",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "A part body one octet over the published max_part_bytes is answered 413.",
        partial(_part_bytes, 1),
    ),
    # A part body without Content-Length: the limit counts the octets up to the delimiter,
    # not a length the part declares.
    (
        "limit-part-bytes-at-limit-undeclared",
        ("MB-LIMIT-1", "MB-PART-8"),
        "A part body of exactly the published max_part_bytes octets, with no Content-Length field, is accepted.",
        partial(_part_bytes, 0, declared=False),
    ),
    (
        "limit-part-bytes-one-over-undeclared",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "A part body one octet over the published max_part_bytes, with no Content-Length field, is answered 413.",
        partial(_part_bytes, 1, declared=False),
    ),
    (
        "limit-batch-bytes-one-over",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "Batch content one octet over the published max_batch_bytes is answered 413.",
        partial(_batch_bytes, 1),
    ),
    # The same limits with the content sent chunked: a limit counts content octets whatever
    # frames them, and chunked content has no Content-Length to refuse it by in advance.
    (
        "limit-batch-bytes-one-over-chunked",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4", "MB-INTER-5"),
        "Chunked batch content one octet over the published max_batch_bytes is answered 413, not cut at the limit and refused as malformed.",
        partial(_batch_bytes, 1, chunked=True),
    ),
    (
        "limit-batch-bytes-at-limit",
        ("MB-LIMIT-1",),
        "Batch content of exactly the published max_batch_bytes octets is processed.",
        partial(_batch_bytes, 0),
    ),
    (
        "limit-batch-bytes-at-limit-chunked",
        ("MB-LIMIT-1", "MB-INTER-5"),
        "Chunked batch content of exactly the published max_batch_bytes octets is processed.",
        partial(_batch_bytes, 0, chunked=True),
    ),
    (
        "limit-part-bytes-one-over-chunked",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4", "MB-INTER-5"),
        "A part body one octet over the published max_part_bytes, the batch sent chunked, is answered 413.",
        partial(_part_bytes, 1, chunked=True),
    ),
    (
        "limit-part-header-bytes-one-over-chunked",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4", "MB-INTER-5"),
        "A part header section one octet over the published max_part_header_bytes, the batch sent chunked, is answered 431.",
        partial(_header_bytes, 1, chunked=True),
    ),
    (
        "limit-part-fields-one-over-chunked",
        ("MB-LIMIT-5", "MB-STATUS-3", "MB-INTER-5"),
        "A part with one field line more than the published max_part_fields, the batch sent chunked, is answered 431.",
        partial(_fields, 1, chunked=True),
    ),
)


register_cases(CASES, LARGE)
