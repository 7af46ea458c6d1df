"""Planted readings of a part's `Content-Length` numeral that break on its length (MB-WIRE-22).

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
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, problem
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
)
