"""The header section of a batch response whatever mode the batch asks for (spec 3.1.1, 6.1).

Theory of operation: the checks of the response boundary (`response-boundary-valid`,
`response-boundary-choice`) and of `Vary` (`vary-in-every-form`, `top-level-fields`) send
batches without a mode. A server often answers a mode on a path of its own: an atomic batch is
held until it commits or rolls back and then written whole, a stopped batch ends on the
failing part. A writer built for that path can forget the field or draw the boundary another
way. So the same batch of GETs (the ok resource, then the not-found one, then the ok one) is
sent without a mode, with `Prefer: batch-on-error=stop` (it stops at the second part) and with
`Batch-Mode: atomic` (it rolls back), and two GETs of the ok resource with `Batch-Mode: atomic`
(it commits), each mode twice in multipart/mixed and once in each 207 form the target
declares. Every answer's `Vary` names `Accept` when the target offers more than one form
(MB-MULTI-10); every multipart answer's boundary is 1 to 70 `bchars`, spelled as a token or a
quoted-string (MB-WIRE-3), at least 16 characters of `A-Z a-z 0-9 _ -` (MB-WIRE-5), and no two
answers share one ("fresh for each message", MB-WIRE-5). It writes nothing.
"""

from __future__ import annotations

import re

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.core.validator import loose_boundary, parse_media_type

__all__: list[str] = []

#: RFC 2046 §5.1.1: `boundary := 0*69<bchars> bcharsnospace`.
BCHARS = re.compile(r"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")
#: MB-WIRE-5's alphabet and least length.
RECOMMENDED = re.compile(r"[A-Za-z0-9_-]{16,70}")


def _modes(
    ctx: Context, ok: SubRequest, nf: SubRequest
) -> list[tuple[str, tuple[tuple[str, str], ...], list[SubRequest]]]:
    """(label, request fields, parts) for each mode the target offers, none first."""
    modes: list[tuple[str, tuple[tuple[str, str], ...], list[SubRequest]]] = [
        ("no mode", (), [ok, nf, ok])
    ]
    if ctx.target.claims("error-policy"):
        modes.append(("stop", (("Prefer", "batch-on-error=stop"),), [ok, nf, ok]))
    if ctx.target.claims("atomic"):
        atomic = (("Batch-Mode", "atomic"),)
        modes.append(("atomic, rolled back", atomic, [ok, nf, ok]))
        modes.append(("atomic, committed", atomic, [ok, ok]))
    return modes


@checker(
    "batch-response-header-in-every-mode",
    ("MB-MULTI-10", "MB-WIRE-3", "MB-WIRE-5"),
    "Without a mode, under batch-on-error=stop and in an atomic batch that rolls back or commits, every form of the answer carries Vary naming Accept, and every multipart answer a fresh boundary of 16 to 70 characters of A-Z a-z 0-9 _ - spelled as Content-Type allows.",
    state=State.READ_ONLY,
)
def batch_response_header_in_every_mode(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    forms = [accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)]
    several = bool(forms)
    boundaries: list[tuple[str, str]] = []
    for label, fields, subs in _modes(ctx, ok, nf):
        sends: list[tuple[str, str | None]] = [("multipart/mixed", None)] * 2
        sends += [(accept, accept) for accept in forms]
        for form, accept in sends:
            headers = (*fields, ("Accept", accept)) if accept else fields
            resp = ctx.batch(judge, subs, headers=headers)
            what = f"{label}, {form}"
            judge.note(f"{what}: {resp.status} {resp.get('Content-Type')!r}")
            if several:
                vary = [v.strip().lower() for v in ",".join(resp.get_all("Vary")).split(",")]
                # MB-MULTI-10: "A server that offers more than one representation of batch
                # results SHOULD send `Vary: Accept` in its batch responses": whatever mode
                # the batch asked for.
                judge.expect_true(
                    f"{what}: Vary",
                    "accept" in vary,
                    repr(resp.get_all("Vary")),
                    "Vary naming Accept (SHOULD)",
                    "MB-MULTI-10",
                )
            if accept is not None or resp.media_type != "multipart/mixed":
                continue
            ctype = resp.get("Content-Type") or ""
            try:
                boundary = parse_media_type(ctype)[1].get("boundary", "")
            except ValueError as exc:
                # MB-WIRE-3: "A sender MUST write it in the `Content-Type` field as
                # `batch-content-type` spells it": a boundary outside token is quoted.
                judge.expect_true(
                    f"{what}: Content-Type",
                    False,
                    str(exc),
                    "parameters as RFC 9110 §5.6.6 spells them",
                    "MB-WIRE-3",
                )
                boundary = loose_boundary(ctype)
            # MB-WIRE-3: "A boundary MUST consist of 1 to 70 `bchars` and MUST end in a
            # character other than space".
            judge.expect_true(
                f"{what}: boundary",
                BCHARS.fullmatch(boundary) is not None,
                f"{len(boundary)} characters: {boundary!r}",
                "1 to 70 bchars, not ending in a space",
                "MB-WIRE-3",
            )
            # MB-WIRE-5: "at least 16 characters long, drawn from `A-Z a-z 0-9 _ -`".
            judge.expect_true(
                f"{what}: boundary alphabet",
                RECOMMENDED.fullmatch(boundary) is not None,
                repr(boundary),
                "16 to 70 characters of A-Z a-z 0-9 _ - (SHOULD)",
                "MB-WIRE-5",
            )
            boundaries.append((what, boundary))
    # MB-WIRE-5: "and fresh for each message": no two answers, in one mode or in two, share a
    # boundary.
    seen: dict[str, str] = {}
    for what, boundary in boundaries:
        judge.expect_true(
            f"{what}: boundary fresh",
            boundary not in seen,
            f"{boundary!r}, the boundary of {seen.get(boundary)!r} too",
            "a boundary no other answer had (SHOULD)",
            "MB-WIRE-5",
        )
        seen.setdefault(boundary, what)
