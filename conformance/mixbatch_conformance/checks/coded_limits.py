"""The published limits and the problem's offsets count a content-coded batch as decoded
(spec 9.1, 5.3, 10.1).

Theory of operation: spec 9.1 counts `max_batch_bytes` as "the octets of the batch request's
content after any content coding is removed", and the part limits count the parts the multipart
parser reads, which are in the decoded content; spec 5.3 has offsets "count octets of the
content as the multipart parser sees it, that is, after any content coding has been removed".
The limit cases of `checks/limits.py` send content without a coding, so a server that holds a
limit against the octets it received, or that decodes without holding the part limits, passes
them. The checks here send the same cases in each content coding the server decodes:

- the codings are learnt as `registered-codings-decoded-or-refused` learns them: a batch in a
  coding no server supports is answered 415, whose `Accept-Encoding` names "the codings it does
  decode" (MB-INTER-6). A named coding the suite writes (gzip, x-gzip and deflate, and br and
  zstd where the environment writes them, at any size, made as they are read; compress only for
  small content, which the suite writes whole) is tried if a small valid batch in it is
  processed; one that is not is judged by that check.
  A server whose 415 names no coding the suite writes, or that does not answer 415, is N/A.
- `coded-batch-bytes-counted-decoded`: content decoding to exactly `max_batch_bytes` octets (one
  GET, the rest padding lines in the preamble and the epilogue, which MB-WIRE-9 has a receiver
  ignore) is processed; content decoding to one octet more, and to `FAR_OVER` more (past a
  decoder capped at the limit plus one), is refused 413 naming `max_batch_bytes`, before any
  part runs; in gzip and x-gzip the one-octet-over content is also sent as two gzip members
  (RFC 1952 §2.2), each decoding to less than the limit: the limit counts the content, not a
  member. The coded content of the second is at most a few
  hundred kilobytes: a server that holds the limit against the octets received runs it, and one that
  decodes it whole before counting has decoded past its limit (spec 9.1 lets it refuse by the
  coded length too, which none of these reaches).
- `coded-batch-decoding-bounded`: in gzip, x-gzip and deflate, content decoding to 4 GiB and
  1 MiB (`PAST_ANY_BUFFER`, some six megabytes coded, written by `_shared.repeated_codings`
  without making the decoded octets): spec 9.1 has a server stop decoding once it passes the
  limit, so it too is refused 413, where a server that decodes without bound runs past a 2 GiB
  array or a decoded length counted in 32 bits. The same content decoding to 1 MiB past the
  limit goes first: a server that bounds its decoding does the same work on both, so when that
  one is answered and the far one gets no answer within the wait, the far one's decoding ran on
  past the limit (MB-STATUS-3), not a TIMEOUT.
- `coded-part-limits-counted-decoded`: a part body of exactly `max_part_bytes` octets, a part
  header section of exactly `max_part_header_bytes` octets, one of exactly `max_part_fields`
  field lines and a batch of exactly `max_parts` parts, each processed, and each one unit over,
  refused with the status spec 9.1 names, the problem placing the fault in decoded octets.
- `coded-fault-offsets-decoded`: after a preamble of 64 KiB of padding lines (a few hundred
  coded octets), a second part whose header section is one octet over
  `max_part_header_bytes`, and content ending without its close delimiter: the `byte_offset`
  is the section's first octet, and the content's decoded length, counted in decoded octets.
  The unclosed content is also sent uncoded: a location member the server gives there it knows
  for the coded content too (the octets it parses are the same), so leaving it out there breaks
  MB-STATUS-4.

- `coded-batch-part-bodies-decoded`: in each coding the 415 names, a batch whose parts send a
  text body and every octet value to the echo: the echo receives each body as it was written
  before the batch was coded (MB-PART-8), not cut from the coded octets.

The coded content is written as it is made, from repeated blocks, so no case holds its decoded
octets; the decoded size is bounded by `MAX_DECODED` (a case over it is N/A). Every batch only
reads `ok` or writes to `echo`, which keeps nothing, so a server that runs one changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.alone import readable_echoes
from mixbatch_conformance.checks._shared.content_codings import (
    ENCODERS,
    UNKNOWN_CODING,
    accepted_codings,
    encoded_as_read,
)
from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    FIRST_SECTION,
    MAX_PARTS_SENT,
    envelope,
    filled,
    header_section,
    part,
    processed,
    published_limit,
    refused,
    sent,
)
from mixbatch_conformance.checks._shared.repeated_codings import (
    REPEATABLE_CODINGS,
    repeated_coded,
)
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch, problem_of
from mixbatch_conformance.core.judge import Judge, StopCheck
from mixbatch_conformance.core.outcomes import (
    LOCATION_MEMBERS,
    expect_located,
    expect_processed,
    expect_rejected,
)
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: The most octets a coded case decodes to: 256 MiB, a few hundred kilobytes coded.
MAX_DECODED = 256 * 1024 * 1024
#: The most octets a case decodes to in a coding the suite writes only whole.
WHOLE_DECODED = 1024 * 1024
#: The decoded octets written at a time.
BLOCK = 1024 * 1024
#: Octets over max_batch_bytes of the far-over case: a decoder capped at the limit plus one
#: octet stops at the cap on this content, where content one octet over never reaches it, so
#: the cap's own error path (often apart from the count's) is taken.
FAR_OVER = 1024 * 1024
#: Octets the far-past case decodes to: past 2^32 (a decoded length counted in 32 bits wraps
#: to a megabyte) and past the 2^31 octets of a Java array, a few megabytes coded.
PAST_ANY_BUFFER = 2**32 + 2**20
#: The far-past case's padding: long preamble lines, 1 MiB at a time, about 1,400 octets coded.
LONG_LINES = (b"x" * 4094 + b"\r\n") * 256
#: The codings whose content may be a series of gzip members (RFC 1952 §2.2).
GZIP_CODINGS = ("gzip", "x-gzip")
#: One padding line: text that is not a delimiter line, ended by CRLF.
LINE = b"preamble and epilogue text a receiver ignores, counted after decoding\r\n"
#: The preamble of the offset cases: far more octets decoded than coded.
PREAMBLE_OCTETS = 64 * 1024

#: Decoded content as (octets, times) pieces, written in order, never joined.
Pieces = list[tuple[bytes, int]]


def _length(pieces: Pieces) -> int:
    return sum(len(b) * n for b, n in pieces)


def _octets(pieces: Pieces) -> Iterator[bytes]:
    for b, n in pieces:
        for _ in range(n):
            yield b


def _repeated(unit: bytes, octets: int) -> Pieces:
    """Exactly `octets` octets of `unit` repeated, in blocks of about BLOCK octets."""
    block = unit * max(1, BLOCK // len(unit))
    whole, rest = divmod(octets, len(block))
    return [(block, whole), ((unit * (rest // len(unit) + 1))[:rest], 1)]


def _padding(octets: int) -> Pieces:
    """Exactly `octets` octets of padding lines, the last one cut short where they do not
    divide (never between its CR and its LF)."""
    pieces = _repeated(LINE, octets)
    tail = pieces[-1][0]
    if tail.endswith(b"\r"):
        pieces[-1] = (tail[:-1] + b"x", 1)
    return pieces


def _encoded(coding: str, pieces: Pieces) -> bytes:
    """The content `pieces` decode to, in `coding`: written piece by piece where the suite can,
    else whole (`_writable` keeps that content small)."""
    coded = encoded_as_read(coding, _octets(pieces))
    return ENCODERS[coding](b"".join(_octets(pieces))) if coded is None else coded


def _writable(coding: str, decoded: int) -> bool:
    """Whether the suite writes `decoded` octets in `coding` without holding more than
    WHOLE_DECODED of them at once."""
    if encoded_as_read(coding, ()) is not None:
        return True
    return coding in ENCODERS and decoded <= WHOLE_DECODED


def _named_codings(ctx: Context, judge: Judge, body: bytes) -> list[str]:
    """The codings the suite writes that the 415 for `body` in an unknown coding names as
    decoded (MB-INTER-6); N/A without such a 415 or such a coding."""
    refusal = sent(ctx, judge, body, False, UNKNOWN_CODING)
    if refusal.status != 415:
        judge.not_applicable(f"a batch in {UNKNOWN_CODING} answered {refusal.status}, not 415")
    listed = [c for c in dict.fromkeys(accepted_codings(refusal)) if c not in ("identity", "*")]
    judge.note(f"the 415 for an unknown coding names {listed or 'no coding'}")
    tried = [c for c in listed if c in ENCODERS]
    if not tried:
        judge.not_applicable(f"the server's 415 names no coding the suite writes ({listed})")
    return tried


def _decoded_codings(ctx: Context, judge: Judge) -> list[str]:
    """The codings the server's 415 names as decoded that the suite writes and in which a small
    valid batch is processed; N/A when there are none."""
    subs = list(ok_and_not_found(ctx, judge))
    body = compose_batch(subs, BOUNDARY)
    tried = _named_codings(ctx, judge, body)
    decoded = []
    for coding in tried:
        resp = sent(ctx, judge, ENCODERS[coding](body), False, coding)
        if resp.status != 200:
            # Whether a coding the 415 names is decoded is judged by
            # registered-codings-decoded-or-refused.
            judge.note(f"a small batch in {coding} answered {resp.status}: not tried further")
            continue
        decoded.append(coding)
    if not decoded:
        judge.not_applicable("no coding the 415 names decodes a small batch to one processed")
    return decoded


def _fits(ctx: Context, judge: Judge, what: str, decoded: int, coded: int) -> bool:
    """Whether content of `decoded` octets, `coded` as sent, keeps to max_batch_bytes both ways:
    spec 9.1 lets a server "refuse it by its coded length while reading" too."""
    limit = ctx.limit("max_batch_bytes")
    if limit is None or max(decoded, coded) <= limit:
        return True
    judge.note(f"{what}: {decoded} octets decoded, {coded} coded, over max_batch_bytes; not sent")
    return False


def _ok_section(ctx: Context, judge: Judge) -> tuple[str, bytes]:
    ok = ctx.path(ctx.resource(judge, "ok"))
    return ok, header_section(ok, fields=2)


# -- max_batch_bytes ---------------------------------------------------------------------------
@checker(
    "coded-batch-bytes-counted-decoded",
    ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4", "MB-INTER-6"),
    "In each content coding the server's 415 names as decoded, batch content that decodes to exactly the published max_batch_bytes octets (one GET, the rest preamble and epilogue) is processed, and small coded bodies that decode to one octet more (in gzip also as two members, each under the limit), and to 1 MiB more, are answered 413 naming max_batch_bytes.",
    state=State.READ_ONLY,
    tier="standard",
)
def coded_batch_bytes_counted_decoded(ctx: Context, judge: Judge) -> None:
    limit = published_limit(ctx, judge, "max_batch_bytes")
    if limit + 1 > MAX_DECODED:
        judge.not_applicable(f"max_batch_bytes {limit} is more than the {MAX_DECODED} decoded")
    ok, section = _ok_section(ctx, judge)
    dash = b"--" + BOUNDARY.encode()
    bare = dash + b"\r\n" + part(section) + b"\r\n" + dash + b"--"
    if limit < len(bare) + 8:
        judge.not_applicable(f"max_batch_bytes {limit} leaves no room for a preamble or epilogue")
    for coding in _decoded_codings(ctx, judge):
        if not _writable(coding, limit + 1):
            judge.note(f"{coding}: the suite writes no content of {limit + 1} octets in it")
            continue
        for over in (0, 1, FAR_OVER):
            if over == FAR_OVER and (
                limit + over > MAX_DECODED or not _writable(coding, limit + over)
            ):
                judge.note(f"{coding}: {limit + over} octets decoded is more than it sends")
                continue
            room = limit + over - len(bare)
            front = room // 2
            # The preamble and the part; then the epilogue.
            lead = [*_padding(front - 2), (b"\r\n" + bare + b"\r\n", 1)]
            pieces = [*lead, *_padding(room - front - 2)]
            if _length(pieces) != limit + over:
                judge.setup_error(f"the content written is {_length(pieces)} octets")
            coded = _encoded(coding, pieces)
            judge.note(f"{coding}: {len(coded)} octets decoding to {limit + over}")
            if not over and not _fits(ctx, judge, coding, limit, len(coded)):
                continue
            if over:
                # Spec 9.1: `max_batch_bytes` counts "the octets of the batch request's content
                # after any content coding is removed"; MB-STATUS-3: "answer a batch request
                # that exceeds one of its limits with 413 ... before any part runs".
                refused(ctx, judge, coded, 413, "max_batch_bytes", at=None, coding=coding)
            else:
                # Spec 9.1: "A value at the limit is within it".
                processed(ctx, judge, coded, [f"<{ok}>"], coding=coding)
            if over == 1 and coding in GZIP_CODINGS:
                # RFC 1952 §2.2: "A gzip file consists of a series of 'members'": the same
                # content as two members, each under the limit, the two together one octet
                # over it. The limit counts the content, not a member.
                members = _encoded(coding, lead) + _encoded(coding, pieces[len(lead) :])
                judge.note(f"{coding}: the same content as two members, {len(members)} octets")
                refused(ctx, judge, members, 413, "max_batch_bytes", at=None, coding=coding)


@checker(
    "coded-batch-decoding-bounded",
    ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
    "In gzip, x-gzip and deflate, where the server's 415 names them as decoded, a batch of a few megabytes coded that decodes to 4 GiB and 1 MiB is answered 413 naming max_batch_bytes, as any content over the limit is.",
    state=State.READ_ONLY,
    tier="standard",
)
def coded_batch_decoding_bounded(ctx: Context, judge: Judge) -> None:
    limit = published_limit(ctx, judge, "max_batch_bytes")
    if limit > MAX_DECODED:
        # A server may decode up to its limit before it refuses: past MAX_DECODED that is more
        # than a check's wait allows.
        judge.not_applicable(f"max_batch_bytes {limit} is more than the {MAX_DECODED} decoded")
    _ok, section = _ok_section(ctx, judge)
    dash = b"--" + BOUNDARY.encode()
    bare = dash + b"\r\n" + part(section) + b"\r\n" + dash + b"--"
    codings = [c for c in _decoded_codings(ctx, judge) if c in REPEATABLE_CODINGS]
    if not codings:
        judge.not_applicable("the server decodes none of gzip, x-gzip and deflate")
    for coding in codings:
        # The same content, decoding to FAR_OVER past the limit: a server that stops decoding
        # at its limit does the same work on both, so this answer's coming shows how the server
        # answers when it bounds its decoding.
        near = -(-(limit + FAR_OVER - len(bare) - 2) // len(LONG_LINES))
        probe = repeated_coded(coding, b"", LONG_LINES, near, bare + b"\r\n")
        near_decoded = len(LONG_LINES) * near + len(bare) + 2
        began = time.monotonic()
        answered = sent(ctx, judge, probe, False, coding).status
        judge.note(
            f"{coding}: content decoding to {near_decoded} answered {answered} in "
            f"{time.monotonic() - began:.1f} s"
        )
        times = (PAST_ANY_BUFFER - len(bare) - 2) // len(LONG_LINES)
        coded = repeated_coded(coding, b"", LONG_LINES, times, bare + b"\r\n")
        decoded = len(LONG_LINES) * times + len(bare) + 2
        judge.note(f"{coding}: {len(coded)} octets decoding to {decoded}")
        # Spec 9.1: "a server stops decoding once the decoded octets pass `max_batch_bytes`
        # rather than decode without bound"; MB-STATUS-3: a batch over a limit is answered 413.
        try:
            refused(ctx, judge, coded, 413, "max_batch_bytes", at=None, coding=coding)
        except TimeoutError as exc:
            # Decoding stopped at the limit takes no longer than it did for the content above,
            # which was answered; an answer that never came is decoding run on past the limit.
            judge.expect(
                f"{coding}: an answer to content decoding to {decoded}, as content decoding "
                f"to {near_decoded} was answered",
                f"no answer ({exc})",
                {"413"},
                "MB-STATUS-3",
            )
            raise StopCheck(f"{coding}: no answer") from None


# -- the part limits ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Case:
    what: str
    pieces: Pieces
    #: The Content-Ids of the parts of a batch to be processed; None for one to be refused.
    cids: list[str] | None
    limit: str = ""
    status: int = 0
    at: int | None = None
    index: int = 0


def _part_bytes(ctx: Context, judge: Judge, over: int) -> _Case | None:
    limit = ctx.limit("max_part_bytes")
    if limit is None or limit + over > MAX_DECODED:
        return None
    echo = ctx.path(ctx.resource(judge, "echo"))
    sub = filled(echo, limit + over, b"")
    skeleton = compose_batch([sub], BOUNDARY)
    cut = len(skeleton) - len(f"\r\n--{BOUNDARY}--")
    pieces = [(skeleton[:cut], 1), *_repeated(b"b", limit + over), (skeleton[cut:], 1)]
    what = f"a part body of {limit + over} octets (max_part_bytes {limit})"
    if over:
        return _Case(what, pieces, None, "max_part_bytes", 413, FIRST_SECTION)
    return _Case(what, pieces, [sub.content_id])


def _header_bytes(ctx: Context, judge: Judge, over: int) -> _Case | None:
    limit = ctx.limit("max_part_header_bytes")
    if limit is None or limit > WHOLE_DECODED:
        return None
    ok = ctx.path(ctx.resource(judge, "ok"))
    try:
        section = header_section(ok, octets=limit + over)
    except ValueError:
        return None
    fields = ctx.limit("max_part_fields")
    if fields is not None and fields < 3:
        return None
    what = f"a part header section of {limit + over} octets (max_part_header_bytes {limit})"
    pieces = [(envelope([part(section)]), 1)]
    if over:
        return _Case(what, pieces, None, "max_part_header_bytes", 431, FIRST_SECTION)
    return _Case(what, pieces, [f"<{ok}>"])


def _fields(ctx: Context, judge: Judge, over: int) -> _Case | None:
    limit = ctx.limit("max_part_fields")
    if limit is None or not 2 <= limit <= 10_000:
        return None
    ok = ctx.path(ctx.resource(judge, "ok"))
    section = header_section(ok, fields=limit + over)
    octets = ctx.limit("max_part_header_bytes")
    if octets is not None and len(section) > octets:
        return None
    what = f"a part of {limit + over} field lines (max_part_fields {limit})"
    pieces = [(envelope([part(section)]), 1)]
    if over:
        return _Case(what, pieces, None, "max_part_fields", 431, FIRST_SECTION)
    return _Case(what, pieces, [f"<{ok}>"])


def _parts(ctx: Context, judge: Judge, over: int) -> _Case | None:
    limit = ctx.limit("max_parts")
    if limit is None or limit > MAX_PARTS_SENT:
        return None
    ok, section = _ok_section(ctx, judge)
    body = envelope([part(section)] * (limit + over))
    what = f"a batch of {limit + over} parts (max_parts {limit})"
    if not over:
        return _Case(what, [(body, 1)], [f"<{ok}>"] * limit)
    # Spec 5.3, too many parts: "the delimiter line that opens the first part over the limit":
    # the delimiter numbered `limit` from 0 (the parts hold no dash-boundary).
    dash = f"--{BOUNDARY}".encode()
    at = -1
    for _ in range(limit + 1):
        at = body.index(dash, at + 1)
    return _Case(what, [(body, 1)], None, "max_parts", 413, at, limit)


@checker(
    "coded-part-limits-counted-decoded",
    ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-5", "MB-STATUS-4", "MB-INTER-6"),
    "In each content coding the server's 415 names as decoded, a part body of exactly max_part_bytes octets, a part header section of exactly max_part_header_bytes octets, one of exactly max_part_fields field lines and a batch of exactly max_parts parts are processed, and each one unit over is refused with 413 or 431 naming the limit, the fault placed in decoded octets.",
    state=State.READ_ONLY,
    tier="standard",
)
def coded_part_limits_counted_decoded(ctx: Context, judge: Judge) -> None:
    cases = [
        case
        for build in (_part_bytes, _header_bytes, _fields, _parts)
        for over in (0, 1)
        if (case := build(ctx, judge, over)) is not None
    ]
    if not cases:
        judge.not_applicable("the target publishes no part limit a bounded batch can reach")
    codings = _decoded_codings(ctx, judge)
    for case in cases:
        decoded = _length(case.pieces)
        if not _fits(ctx, judge, case.what, decoded, 0):
            continue
        for coding in codings:
            if not _writable(coding, decoded):
                judge.note(f"{case.what}: the suite writes no {decoded} octets in {coding}")
                continue
            coded = _encoded(coding, case.pieces)
            judge.note(f"{case.what} in {coding}: {len(coded)} octets decoding to {decoded}")
            if not _fits(ctx, judge, f"{case.what} in {coding}", decoded, len(coded)):
                continue
            if case.cids is not None:
                # Spec 9.1: "A value at the limit is within it", counted in the content "after
                # any content coding is removed".
                processed(ctx, judge, coded, case.cids, coding=coding)
                continue
            # MB-STATUS-3: "answer a batch request that exceeds one of its limits with 413 ...,
            # or with 431 ... when a part header section exceeds `max_part_header_bytes` or
            # `max_part_fields`, before any part runs"; spec 5.3: offsets "count octets of the
            # content as the multipart parser sees it, that is, after any content coding has
            # been removed".
            refused(
                ctx,
                judge,
                coded,
                case.status,
                case.limit,
                at=case.at,
                index=case.index,
                must_name="MB-LIMIT-5" if case.limit == "max_part_fields" else None,
                coding=coding,
            )


# -- offsets -----------------------------------------------------------------------------------
@checker(
    "coded-fault-offsets-decoded",
    ("MB-STATUS-4", "MB-WIRE-13", "MB-STATUS-3", "MB-INTER-6"),
    "In each content coding the server's 415 names as decoded, after a 64 KiB preamble a second part header section one octet over max_part_header_bytes is refused 431, and content ending without its close delimiter 400, each problem's byte_offset counting decoded octets and present wherever the same content uncoded is placed by one.",
    state=State.READ_ONLY,
)
def coded_fault_offsets_decoded(ctx: Context, judge: Judge) -> None:
    parts = ctx.limit("max_parts")
    if parts is not None and parts < 2:
        judge.not_applicable(f"max_parts {parts} leaves no room for a second part")
    ok, section = _ok_section(ctx, judge)
    dash = b"--" + BOUNDARY.encode()
    preamble = b"".join(_octets(_padding(PREAMBLE_OCTETS - 2))) + b"\r\n"
    codings = _decoded_codings(ctx, judge)
    fields = ctx.limit("max_part_fields")
    header_limit = ctx.limit("max_part_header_bytes")
    over: bytes | None = None
    if header_limit is not None and header_limit <= WHOLE_DECODED and (fields or 3) >= 3:
        try:
            over = header_section(ok, octets=header_limit + 1)
        except ValueError:
            over = None
    first = preamble + dash + b"\r\n" + part(section) + b"\r\n"
    unclosed = first + dash + b"\r\n" + part(section)
    # What the server places for the same content uncoded is what it knows of such a fault
    # (MB-STATUS-4: "when the server knows them"); decoding changes nothing of it.
    known: set[str] = set()
    if _fits(ctx, judge, "uncoded: no close delimiter", len(unclosed), len(unclosed)):
        plain = sent(ctx, judge, unclosed, False, None)
        doc = problem_of(plain) if plain.status == 400 else None
        known = {m for m in LOCATION_MEMBERS if doc is not None and doc.get(m) is not None}
        judge.note(f"uncoded, no close delimiter: {plain.status}, placed by {sorted(known)}")
    for coding in codings:
        if over is not None:
            content = first + dash + b"\r\n" + part(over) + b"\r\n" + dash + b"--"
            coded = _encoded(coding, [(content, 1)])
            if _fits(ctx, judge, f"{coding}: a section over", len(content), len(coded)):
                # Spec 5.3: "a limit on the section or the part: the offset of the section's
                # first octet", counted "after any content coding has been removed".
                at = len(first) + len(dash) + 2
                judge.note(f"{coding}: a section over max_part_header_bytes at decoded octet {at}")
                refused(
                    ctx,
                    judge,
                    coded,
                    431,
                    "max_part_header_bytes",
                    at=at,
                    index=1,
                    coding=coding,
                )
        coded = _encoded(coding, [(unclosed, 1)])
        if not _fits(ctx, judge, f"{coding}: no close delimiter", len(unclosed), len(coded)):
            continue
        resp = sent(ctx, judge, coded, False, coding)
        judge.note(
            f"{coding}: content of {len(unclosed)} decoded octets without its close "
            f"delimiter: {resp.status}"
        )
        # MB-WIRE-13: "answer 400 to a batch request whose content ends without the close
        # delimiter".
        expect_rejected(judge, resp, {400}, "MB-WIRE-13")
        if resp.status == 400:
            # Spec 5.3: "a missing close delimiter: the length of the content, in the last
            # part"; "Offsets count octets of the content as the multipart parser sees it, that
            # is, after any content coding has been removed".
            missing = set(expect_located(judge, resp, 1, len(unclosed)))
            for member in sorted(known):
                # MB-STATUS-4: the members are given "when the server knows them", and the
                # server placed this fault by them in the same content uncoded.
                judge.expect_true(
                    f"{coding}: problem {member}",
                    member not in missing,
                    "absent" if member in missing else "present",
                    f"present, as for the same content uncoded ({member} counts decoded octets)",
                    "MB-STATUS-4",
                )


#: (method, media type, content) of the parts sent to the echo in a content-coded batch: text,
#: and every octet value.
CODED_PART_BODIES = (
    ("POST", "text/plain", b"a part body under the batch's content coding\r\n"),
    ("PUT", "application/octet-stream", bytes(range(256))),
)


@checker(
    "coded-batch-part-bodies-decoded",
    ("MB-PART-8", "MB-INTER-6"),
    "In each content coding the server's 415 names as decoded, a batch whose parts POST a text body and PUT every octet value to the echo is processed, and the echo receives each part body as written before the batch was coded.",
    state=State.READ_ONLY,
)
def coded_batch_part_bodies_decoded(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest(method, f"{echo}?mb-coded-body={i}", (("Content-Type", ctype),), content)
        for i, (method, ctype, content) in enumerate(CODED_PART_BODIES)
    ]
    body = compose_batch(subs, BOUNDARY)
    for coding in _named_codings(ctx, judge, body):
        resp = sent(ctx, judge, ENCODERS[coding](body), False, coding)
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-INTER-6")
        for i, (sub, seen) in enumerate(
            zip(subs, readable_echoes(judge, *(p.body for p in env.parts)), strict=True)
        ):
            # MB-PART-8: "the part body is its content", the decoded batch's octets between
            # the part's empty line and the next delimiter (spec 10.1: the coding is removed
            # before the multipart parser reads the content).
            judge.expect(
                f"{coding}: part {i} ({sub.method}) body as the echo received it",
                seen.body,
                {sub.body},
                "MB-PART-8",
            )
