"""A part's `Content-Length` is read as the decimal number it is, leading zeros included (spec
3.1.4, MB-WIRE-22).

Theory of operation: `1*DIGIT` has no bound on its digits, and leading zeros are digits of the
numeral, not of the number: `0016` declares 16 octets. A receiver that converts the numeral into
a fixed-width integer, a double, or through a conversion with a bound on its digits (CPython's
`int` refuses more than 4,300) takes a long numeral for a mismatch or fails on it. The check
POSTs a 16-octet text to the echo in a batch of one part, first with `Content-Length: 16`, which
must be processed (else the check cannot judge: SETUP-ERROR). Then the same part with the length
written in 3, 10 and 18 digits: MB-WIRE-22 has each read as 16, so each batch is processed and
the echo receives the 16 octets. Then in 19 digits and in 4,400 (fewer when the published
`max_part_header_bytes` leaves less room; none when it leaves no room past 18; a 431 not
judged where no such limit is published): MB-WIRE-22 lets a server read such a numeral the same
way or answer 400, never close the connection without an
answer, which the suite's reader counts as a broken expectation of the check's requirement.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-length-numerals-6c1f"
#: The part's body: 16 octets of text, sent to the echo.
BODY = b"mixbatch numeral"
#: Digits MB-WIRE-22 has every receiver read as the number: "up to 18 digits, leading zeros
#: counted among them" (16 written in 3 digits is 016).
READ_DIGITS = (3, 10, 18)
#: The most digits MB-WIRE-22 has read; longer numerals may be refused with 400.
MAX_READ_DIGITS = 18
#: Longer numerals: one digit past the bound, and past the 4,300 digits CPython's `int`
#: converts.
LONG_DIGITS = (19, 4_400)
#: Octets left in a part's header section under max_part_header_bytes, past its own lines.
SECTION_SPARE = 64


def _numeral(digits: int) -> str:
    """The part's length, 16, written in `digits` digits."""
    return str(len(BODY)).rjust(digits, "0")


def _section(echo: str, length: str) -> str:
    """The part's header section, the empty line ending it included."""
    return (
        f"Http-Method: POST\r\nContent-Id: <{echo}>\r\nContent-Type: text/plain\r\n"
        f"Content-Length: {length}\r\n\r\n"
    )


def _send(ctx: Context, judge: Judge, echo: str, length: str) -> Response:
    section = _section(echo, length)
    content = f"--{BOUNDARY}\r\n{section}".encode() + BODY + f"\r\n--{BOUNDARY}--\r\n".encode()
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))


def _judge_read(ctx: Context, judge: Judge, echo: str, what: str, resp: Response) -> None:
    """The batch is processed and the echo received the part's 16 octets."""
    # MB-WIRE-22: a part whose numeral, read as the number it is, equals its body's length is
    # framed right, so nothing refuses the batch.
    judge.expect(f"{what}: top-level status", resp.status, {200}, "MB-WIRE-22")
    env = expect_processed(ctx, judge, resp, [f"<{echo}>"], [{200}], "MB-WIRE-22")
    if not env.parts:
        return
    got = read_echo(env.parts[0].body)
    # MB-WIRE-22: "read a part's Content-Length numeral of up to 18 digits as the decimal
    # number it is, leading zeros included".
    judge.expect(
        f"{what}: the octets the echo received",
        got.body if got is not None else None,
        {BODY},
        "MB-WIRE-22",
    )


def _long_digits(ctx: Context, echo: str) -> list[int]:
    """LONG_DIGITS, each cut to what the published max_part_header_bytes leaves room for."""
    limit = ctx.limit("max_part_header_bytes")
    room = LONG_DIGITS[-1]
    if limit is not None:
        room = limit - len(_section(echo, "")) - SECTION_SPARE
    return sorted({min(n, room) for n in LONG_DIGITS if min(n, room) > MAX_READ_DIGITS})


@checker(
    "part-length-numerals-read-as-numbers",
    ("MB-WIRE-22", "MB-STATUS-4"),
    "A part whose Content-Length equals its 16-octet body written in 3, 10 or 18 digits, leading zeros included, is processed and the echo receives the 16 octets; written in 19 or 4,400 digits it is processed so or refused with 400 and a problem document, never left without an answer.",
    state=State.READ_ONLY,
)
def part_length_numerals_read_as_numbers(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    plain = _send(ctx, judge, echo, str(len(BODY)))
    if plain.status != 200:
        judge.setup_error(f"the part with Content-Length: {len(BODY)} was answered {plain.status}")
    for digits in READ_DIGITS:
        what = f"Content-Length in {digits} digits"
        resp = _send(ctx, judge, echo, _numeral(digits))
        judge.note(f"{what}: {resp.status}")
        _judge_read(ctx, judge, echo, what, resp)
    unpublished = ctx.limit("max_part_header_bytes") is None
    for digits in _long_digits(ctx, echo):
        what = f"Content-Length in {digits} digits"
        resp = _send(ctx, judge, echo, _numeral(digits))
        judge.note(f"{what}: {resp.status}")
        if resp.status == 400:
            # MB-WIRE-22: "reject a longer numeral it does not read so; a server answers such a
            # batch request with 400"; MB-STATUS-4 gives the refusal its problem document.
            expect_rejected(judge, resp, {400}, "MB-WIRE-22")
        elif resp.status == 431 and unpublished:
            # A limit on part header sections the target does not publish may be below this
            # section (MB-LIMIT-1 judges publishing, not this check).
            judge.note(f"{what}: refused 431 under a max_part_header_bytes not published")
        else:
            _judge_read(ctx, judge, echo, what, resp)
