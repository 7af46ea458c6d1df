"""How a server chooses the boundaries of its batch responses (MB-WIRE-5).

Theory of operation: MB-WIRE-5 asks for a boundary "at least 16 characters long, drawn from
`A-Z a-z 0-9 _ -` by a cryptographically secure random number generator, and fresh for each
message". No finite sample proves randomness, but a boundary that is fresh without being
random leaves signs across a handful of responses, and the check refuses those signs:

- the part that varies between the boundaries (what is left once the prefix and the suffix
  every one of them shares are removed) is shorter than 16 characters: a counter, a clock, a
  fixed prefix with a short random tail;
- the varying parts read as numbers that grow with each message (a counter, a timestamp);
- the varying parts use no more than ten distinct characters (digits only, or fewer).

A server may put any fixed prefix or suffix around 16 or more random characters: only what
varies is judged. The thresholds are set so that a CSPRNG boundary cannot trip them in
practice; see `SAMPLES`. Each boundary is also held to the length and alphabet themselves, and
the boundaries to be pairwise different.
"""

from __future__ import annotations

import re

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import POLICY_REFUSALS
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import loose_boundary, parse_media_type

__all__ = ["varying_parts"]

#: Batch responses whose boundaries are compared. With 16 random characters of the 64-symbol
#: alphabet, the varying part loses a character only when all SAMPLES boundaries happen to
#: share the first (or last) random character: 2 * 64**-(SAMPLES - 1) = 4.5e-13 for 8. The
#: varying parts of 8 such boundaries are 128 draws; that they show ten distinct characters
#: or fewer has probability below C(64, 10) * (10/64)**128 < 1e-90, and even a 16-symbol
#: alphabet (hex) passes with probability 1 - 8008 * (10/16)**128 > 1 - 1e-22. Digits that
#: grow with each message are a subcase of ten characters or fewer, judged apart because they
#: name the cause (a counter, a clock).
SAMPLES = 8
#: MB-WIRE-5's minimum length, applied to what varies between boundaries.
MIN_VARYING = 16
#: The most distinct characters a varying part may show and still be judged too narrow.
NARROW_ALPHABET = 10
_ALPHABET = re.compile(r"[A-Za-z0-9_-]{16,70}")


def _shared_head(texts: list[str]) -> int:
    """How many leading characters every one of `texts` has in common."""
    n = min(len(t) for t in texts)
    for i in range(n):
        if len({t[i] for t in texts}) > 1:
            return i
    return n


def varying_parts(boundaries: list[str]) -> list[str]:
    """Each boundary less the prefix and the suffix that every boundary shares."""
    head = _shared_head(boundaries)
    rests = [b[head:] for b in boundaries]
    tail = _shared_head([r[::-1] for r in rests])
    return [r[: len(r) - tail] for r in rests]


def _boundary_of(judge: Judge, ctype: str) -> str:
    try:
        return parse_media_type(ctype)[1].get("boundary", "")
    except ValueError as exc:
        # MB-WIRE-3: a boundary outside token "MUST be sent as a quoted-string"; the
        # alphabet is still judged on what a lenient reader takes for the boundary.
        judge.expect_true(
            "batch Content-Type",
            False,
            str(exc),
            "parameters as RFC 9110 §5.6.6 spells them",
            "MB-WIRE-3",
        )
        return loose_boundary(ctype)


@checker(
    "response-boundary-choice",
    ("MB-WIRE-5", "MB-WIRE-3"),
    "Response boundaries are at least 16 characters of [A-Za-z0-9_-], differ between responses, and vary in 16 or more characters that are neither a growing number nor drawn from ten symbols.",
    state=State.READ_ONLY,
)
def boundary_choice(ctx: Context, judge: Judge) -> None:
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    seen: list[str] = []
    for _ in range(SAMPLES):
        resp = ctx.batch(judge, [ok])
        judge.require("status", resp.status, {200}, "MB-STATUS-1")
        seen.append(_boundary_of(judge, resp.get("Content-Type") or ""))
    # MB-WIRE-5: "at least 16 characters long, drawn from `A-Z a-z 0-9 _ -` ... and fresh for
    # each message".
    for b in seen:
        judge.expect_true(
            "boundary alphabet and length",
            bool(_ALPHABET.fullmatch(b)),
            repr(b),
            ">= 16 of [A-Za-z0-9_-] (SHOULD)",
            "MB-WIRE-5",
        )
    judge.expect_true(
        "fresh boundary",
        len(set(seen)) == len(seen),
        repr(seen),
        f"{SAMPLES} different boundaries",
        "MB-WIRE-5",
    )
    if len(set(seen)) < 2:
        return
    # MB-WIRE-5: "by a cryptographically secure random number generator": what varies between
    # the boundaries is all a party that saw earlier responses cannot predict.
    varying = varying_parts(seen)
    shortest = min(len(v) for v in varying)
    judge.expect_true(
        "characters that vary between boundaries",
        shortest >= MIN_VARYING,
        f"{shortest} varying characters in {seen!r}",
        f">= {MIN_VARYING} characters that differ between responses (SHOULD)",
        "MB-WIRE-5",
    )
    numbers = [int(v) for v in varying if v.isascii() and v.isdigit()]
    judge.expect_true(
        "varying part is not a growing number",
        len(numbers) < len(varying) or numbers != sorted(set(numbers)),
        repr(varying),
        "not a counter or clock that grows with each message (SHOULD)",
        "MB-WIRE-5",
    )
    symbols = set("".join(varying))
    judge.expect_true(
        "alphabet of the varying part",
        len(symbols) > NARROW_ALPHABET,
        f"{len(symbols)} distinct characters {''.join(sorted(symbols))!r}",
        f"more than {NARROW_ALPHABET} distinct characters over {SAMPLES} boundaries (SHOULD)",
        "MB-WIRE-5",
    )


#: Batch responses whose boundaries must all differ: past a pool of random octets sized for a
#: hundred or so boundaries, or a cache of them, that a server draws from without refilling.
MANY = 300


@checker(
    "response-boundaries-fresh-over-many",
    ("MB-WIRE-5",),
    "Three hundred batch responses in a row carry three hundred different boundaries: each is fresh, not drawn again from a pool of earlier ones.",
    tier="standard",
    state=State.READ_ONLY,
)
def boundaries_fresh_over_many(ctx: Context, judge: Judge) -> None:
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    seen: dict[str, int] = {}
    repeats: list[str] = []
    for i in range(MANY):
        resp = ctx.batch(judge, [ok])
        if resp.status in POLICY_REFUSALS:
            # A server may shed a client that sends this many batches (spec 5.3: 429 and 503
            # from its own policies): only the boundaries of its batch responses are judged.
            judge.note(f"batch {i}: {resp.status}, a refusal no fault of it causes")
            continue
        judge.require("status", resp.status, {200}, "MB-STATUS-1")
        boundary = loose_boundary(resp.get("Content-Type") or "")
        if boundary in seen and len(repeats) < 3:
            repeats.append(f"response {i} repeats response {seen[boundary]}'s {boundary!r}")
        seen.setdefault(boundary, i)
    # MB-WIRE-5: a boundary "fresh for each message".
    judge.expect_true(
        f"boundaries of {MANY} batch responses",
        not repeats,
        "; ".join(repeats) or f"{len(seen)} different",
        f"{MANY} different boundaries (SHOULD)",
        "MB-WIRE-5",
    )
