"""`max_batch_bytes` counts the whole content: the preamble and the epilogue too (spec 9.1).

Theory of operation: spec 9.1 says what `max_batch_bytes` counts: "the octets of the batch
request's content after any content coding is removed: preamble, delimiter lines, parts and
epilogue". The cases in `checks/limits.py` and `checks/limit_octets.py` reach the limit with
part bodies, so a server that counts only the multipart body proper (from the first delimiter
line to the end of the close delimiter, the octets a streaming parser consumes) passes them
while it takes content of any size whose excess lies before the first delimiter or after the
close delimiter. These cases write one GET part of `ok` and put the rest of the octets in the
preamble (MB-WIRE-9 has a receiver ignore it) or the epilogue:

- exactly `max_batch_bytes` octets, half of the padding in the preamble and half in the
  epilogue: processed, a value at the limit being within it;
- one octet over, the padding all in the epilogue, and again all in the preamble: refused with
  413 naming `max_batch_bytes` before any part runs (MB-STATUS-3), with no `byte_offset` (a
  limit on the whole batch is not placed in the content, spec 5.3).

The padding is lines of text ending in CRLF that never begin with the dash-boundary. A server
may refuse the content by its declared `Content-Length` before reading it (spec 9.1); that
refusal is the same 413. The cases send up to the reference server's default limit plus one
octet, so they are in the standard tier, and are N/A when the target publishes no
`max_batch_bytes` or one larger than the suite sends.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    MAX_SEND_BYTES,
    part,
    processed,
    published_limit,
    refused,
    register_cases,
    within,
)
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge

__all__ = ["padding"]

#: One padding line: text that is not a delimiter line, ended by CRLF.
LINE = b"preamble and epilogue text a receiver ignores, counted by max_batch_bytes\r\n"


def padding(octets: int) -> bytes:
    """Exactly `octets` octets of padding lines, the last one cut short where they do not
    divide (never between its CR and its LF)."""
    text = (LINE * (octets // len(LINE) + 1))[:octets]
    return text[:-1] + b"x" if text.endswith(b"\r") else text


def _content(ctx: Context, judge: Judge, preamble: int, epilogue: int) -> tuple[bytes, str]:
    """One GET part of `ok` with `preamble` octets before its first delimiter line (the CRLF
    that ends the preamble included) and `epilogue` octets after the close delimiter (the CRLF
    that begins the epilogue included)."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    dash = b"--" + BOUNDARY.encode()
    front = b"" if preamble < 2 else padding(preamble - 2) + b"\r\n"
    back = b"" if epilogue < 2 else b"\r\n" + padding(epilogue - 2)
    section = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n".encode("latin-1")
    body = front + dash + b"\r\n" + part(section) + b"\r\n" + dash + b"--" + back
    return body, f"<{ok}>"


def _bare_length(ctx: Context, judge: Judge) -> int:
    return len(_content(ctx, judge, 0, 0)[0])


def _extent(where: str, over: int, ctx: Context, judge: Judge) -> None:
    limit = published_limit(ctx, judge, "max_batch_bytes")
    if limit + over > MAX_SEND_BYTES:
        judge.not_applicable(f"max_batch_bytes {limit} is more than the suite sends at most")
    room = limit + over - _bare_length(ctx, judge)
    if room < 8:
        judge.not_applicable(f"max_batch_bytes {limit} leaves no room for a preamble or epilogue")
    front = {"preamble": room, "epilogue": 0, "both": room // 2}[where]
    body, cid = _content(ctx, judge, front, room - front)
    if len(body) != limit + over:
        judge.setup_error(f"the batch written is {len(body)} octets, not {limit + over}")
    judge.note(f"{front} octets of preamble, {room - front} of epilogue, {len(body)} in all")
    within(ctx, judge, body[: len(body) - over], 1)
    if over:
        # MB-STATUS-3: a batch over a limit is 413, before any part runs; spec 9.1 counts
        # "preamble, delimiter lines, parts and epilogue" against max_batch_bytes.
        refused(ctx, judge, body, 413, "max_batch_bytes", at=None)
    else:
        # Spec 9.1: "A value at the limit is within it"; MB-WIRE-9: the preamble and the
        # epilogue are ignored.
        processed(ctx, judge, body, [cid])


CASES: tuple[tuple[str, tuple[str, ...], str, Callable[[Context, Judge], None]], ...] = (
    (
        "limit-batch-bytes-at-limit-with-preamble-and-epilogue",
        ("MB-LIMIT-1", "MB-WIRE-9"),
        "Batch content of exactly the published max_batch_bytes octets, most of them in its preamble and epilogue, is processed.",
        partial(_extent, "both", 0),
    ),
    (
        "limit-batch-bytes-counts-epilogue",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "Batch content one octet over the published max_batch_bytes, the excess in its epilogue, is answered 413 before any part runs.",
        partial(_extent, "epilogue", 1),
    ),
    (
        "limit-batch-bytes-counts-preamble",
        ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
        "Batch content one octet over the published max_batch_bytes, the excess in its preamble, is answered 413 before any part runs.",
        partial(_extent, "preamble", 1),
    ),
)


register_cases(CASES, frozenset(slug for slug, *_ in CASES))
