"""Planted readings of a part's `Content-Length` numeral that break on its length (MB-WIRE-22, MB-WIRE-17).

A numeral of `1*DIGIT` has no bound on its digits, and leading zeros count among them. A server
that bounds the numerals it converts takes a long spelling of a small number for something
else:

    part-length-past-fifteen-digits-mismatched   a numeral of more than 15 digits read as
                                                 larger than any body (a double's safe
                                                 digits), so a part whose 16-digit length
                                                 equals its body is refused 400 as a mismatch
    part-length-long-numeral-unanswered          a numeral of more than 4,300 digits (CPython's
                                                 `int` bound) failing the conversion, the
                                                 connection closed without an answer
    part-length-read-as-32-bits                  a numeral read into 32 bits that wrap, so a
                                                 part declaring 2^32 + 3 octets before a body
                                                 of 3 is taken as framed right and runs
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import accepts, is_batch, problem
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Digits a double holds exactly, and digits CPython's `int` converts from a decimal string.
DOUBLE_DIGITS = 15
INT_DIGITS = 4_300


def _longest_part_numeral(req: RelayRequest) -> int:
    """The digits of the longest Content-Length numeral a batch's parts carry (0 for none)."""
    if not is_batch(req):
        return 0
    found = re.findall(rb"(?im)^Content-Length:[ \t]*([0-9]+)[ \t]*\r?$", req.body)
    return max((len(n) for n in found), default=0)


def _past_double_mismatched(req: RelayRequest, resp: RelayResponse) -> None:
    if _longest_part_numeral(req) > DOUBLE_DIGITS:
        problem(resp, 400, "MB-WIRE-17")


#: A part's Content-Length line, the rest of its header section, and its body up to the next
#: delimiter line (read without the strict reader, which refuses the mismatch first).
_DECLARED_AND_BODY = re.compile(
    rb"(?im)^Content-Length:[ \t]*([0-9]+)[ \t]*\r\n(?:[^\r\n]+\r\n)*\r\n(.*?)\r\n--", re.S
)


def _wraps_to_body_at_32_bits(req: RelayRequest) -> bool:
    """Whether a part of the batch declares a length of 2^32 or more that, read into 32 bits,
    is its body's."""
    if not is_batch(req):
        return False
    for m in _DECLARED_AND_BODY.finditer(req.body):
        value = int(m.group(1))
        if value >= 1 << 32 and value % (1 << 32) == len(m.group(2)):
            return True
    return False


def _silent(_: bytes) -> bytes:
    return b""


def _long_numeral_unanswered(req: RelayRequest, resp: RelayResponse) -> None:
    if _longest_part_numeral(req) > INT_DIGITS:
        resp.wire = _silent
        resp.close = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "part-length-past-fifteen-digits-mismatched",
        "MB-WIRE-22 a part's Content-Length of more than 15 digits taken for a mismatch",
        ("part-length-numerals-read-as-numbers",),
        caught_by=("FAIL",),
        on_response=_past_double_mismatched,
    ),
    Mutation(
        "part-length-long-numeral-unanswered",
        "MB-WIRE-22 a part's Content-Length of more than 4,300 digits left without an answer",
        ("part-length-numerals-read-as-numbers",),
        caught_by=("FAIL",),
        on_response=_long_numeral_unanswered,
    ),
    Mutation(
        "part-length-read-as-32-bits",
        "MB-WIRE-17 a part's Content-Length read into 32 bits that wrap to its body's length",
        ("reject-content-length-wrapped-at-32-bits-to-body-length",),
        caught_by=("FAIL",),
        on_response=accepts(_wraps_to_body_at_32_bits),
    ),
)
