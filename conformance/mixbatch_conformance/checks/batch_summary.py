"""The Batch-Summary trailer, when a server sends one (spec 5.5, MB-STATUS-15).

Theory of operation: sending the trailer is a MAY (MB-STATUS-8), but one that is sent says
something a log or monitor will believe, so MB-STATUS-15 binds it and the check judges it when
it is there: it must be announced with `Trailer: Batch-Summary`, and each count it gives must
be that of the parts of the same response ("`ok` counts parts that ran with a status below 400
and no `Batch-Outcome`, `failed` those that ran with 400 or above and no `Batch-Outcome`, and
`skipped` and `rolled-back` the parts with those outcomes"; `core.representations.entry_counts`,
over the answer in any form). A member the trailer leaves out counts nothing, so it is judged
only when the parts hold a part of its kind; members the spec does not define are left alone ("receivers ignore members they do
not know"). The counts are taken in every mode the target declares, and in every form
the target answers in (multipart/mixed and the 207 forms: "a server that sends" binds a trailer
whatever content it closes), since each mode adds a kind of part: the default continue policy, stop (skipped parts), atomic (rolled-back parts that
answered 200), references (a part skipped for its unresolvable reference, which is not a
failure) and atomic with references. Those counts are compared with the parts of the same
answer; a server whose rule is narrower than the spec's ("ok" for 2xx alone, "failed" for 4xx
alone) counts 200 and 404 parts right, so the check also sends the batches of
`_shared.counted_batches`, whose parts answer 304, 204, 302, 307, a refused 1xx and 503 under
the plain, stop and atomic modes the target declares, and judges each of their counts against
the number the spec gives it, not against the parts read back. The request says `TE:
trailers`; without the trailer the check is N/A.
"""

from __future__ import annotations

import re

from mixbatch_conformance.checks._shared.counted_batches import COUNTED, counted_batches
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form, entry_counts
from mixbatch_conformance.core.validator import list_members
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: RFC 9651 §3.1.2: key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" ).
_KEY = r"[a-z*][a-z0-9_\-.*]*"
#: RFC 9651 §3.3: the bare items a parameter may hold: an integer or decimal, a string, a
#: token, a byte sequence, a boolean, a date or a display string.
_BARE_ITEM = (
    r"-?[0-9]{1,15}(?:\.[0-9]{1,3})?"
    r'|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*"'
    r"|[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*"
    r"|:[A-Za-z0-9+/=]*:"
    r"|\?[01]"
    r"|@-?[0-9]{1,15}"
    r'|%"(?:[\x20\x21\x23\x24\x26-\x5b\x5d-\x7e]|%[0-9a-f]{2})*"'
)
#: One dictionary member whose value is an sf-integer (RFC 9651 §3.2, §3.3.1), as Batch-Summary
#: spells it: `key "=" sf-integer parameters`, with no whitespace around the "=" and none
#: before a ";" (the §4.2.2 parsing algorithm fails on both), parameters = *( ";" *SP key
#: [ "=" bare-item ] ). An integer may not go on into a fraction.
MEMBER = re.compile(rf"({_KEY})=(-?[0-9]{{1,15}})(?![0-9.])(?:; *{_KEY}(?:=(?:{_BARE_ITEM}))?)*")


#: Any dictionary member (RFC 9651 §3.2): a key, then "=" and a bare item or nothing (the
#: boolean true), then parameters.
ANY_MEMBER = re.compile(
    rf"({_KEY})(?:=(?:{_BARE_ITEM}))?(?![0-9.])(?:; *{_KEY}(?:=(?:{_BARE_ITEM}))?)*"
)


def _counts(value: str) -> dict[str, int] | None:
    """The counts of a Batch-Summary value read as RFC 9651 §4.2.2 reads a dictionary (a later
    member of the same name replaces an earlier one), or None when it is no dictionary or one
    of the members spec 3.4 defines is no integer. A member the spec does not define may hold
    any bare item ("receivers ignore members they do not know"). Spaces lead the value (§4.2:
    "Discard any leading SP characters"); between members the separator is OWS "," OWS."""
    out: dict[str, int] = {}
    rest = value.lstrip(" ")
    while True:
        m = MEMBER.match(rest)
        if m is not None:
            out[m.group(1)] = int(m.group(2))
        else:
            m = ANY_MEMBER.match(rest)
            if m is None or m.group(1) in COUNTED:
                return None
            # A later member replaces an earlier one of the same name.
            out.pop(m.group(1), None)
        rest = rest[m.end() :].lstrip(" \t")
        if not rest:
            return out
        if not rest.startswith(","):
            return None
        rest = rest[1:].lstrip(" \t")


#: The requirement a sent trailer is judged under: MB-STATUS-15 ("A server that sends a
#: `Batch-Summary` trailer field MUST announce it ... each count it gives MUST be the number of
#: parts of the same response that the definitions above assign to that member").
TRAILER_RULE = "MB-STATUS-15"
#: What the request says so that a server may send trailers (RFC 9110 §10.1.4).
ACCEPTS_TRAILERS = (("TE", "trailers"),)

#: A batch of the check: what it is called, the profiles it needs, its fields and its parts,
#: built from the target's ok and not_found resources ("$(0)" is a reference to part 0).
Mode = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]
MODES: tuple[Mode, ...] = (
    ("continue", (), (), ("ok", "nf", "ok")),
    ("stop", ("error-policy",), (("Prefer", "batch-on-error=stop"),), ("ok", "nf", "ok", "ok")),
    ("atomic", ("atomic",), (("Batch-Mode", "atomic"),), ("ok", "nf", "ok")),
    ("references", ("references",), (("Batch-Mode", "references"),), ("nf", "$(0)", "ok")),
    (
        "atomic with references",
        ("atomic", "references"),
        (("Batch-Mode", "atomic, references"),),
        ("ok", "$(0)", "ok"),
    ),
)


def _announced(resp: Response) -> list[str]:
    return [m.lower() for m in list_members(resp.get_all("Trailer"))]


def _summary(
    judge: Judge, resp: Response, what: str
) -> tuple[list[str], dict[str, int] | None] | None:
    """The Batch-Summary trailer lines of `resp` and the counts they give (None where they are
    not a dictionary of integers), judged announced and well formed; None without one."""
    values = [v for n, v in resp.trailers if n.lower() == "batch-summary"]
    if not values:
        return None
    # MB-STATUS-15: "MUST announce it with `Trailer: Batch-Summary`".
    judge.expect_true(
        f"Trailer announces Batch-Summary ({what})",
        "batch-summary" in _announced(resp),
        repr(resp.get_all("Trailer")),
        "Trailer: Batch-Summary",
        TRAILER_RULE,
    )
    given = _counts(",".join(values))
    # Spec 3.4: "Batch-Summary = sf-dictionary; members ok, failed, skipped, rolled-back:
    # each an sf-integer".
    judge.expect_true(
        f"Batch-Summary is a dictionary of integers ({what})",
        given is not None,
        repr(values),
        "ok=N, failed=N, ...",
        TRAILER_RULE,
    )
    return values, given


@checker(
    "batch-summary-trailer",
    ("MB-STATUS-15", "MB-STATUS-8"),
    "A Batch-Summary trailer, when sent, is announced in Trailer and its ok, failed, skipped and rolled-back counts are those of the parts of the same response, in every declared mode and form, over parts answered 2xx, 304, other 3xx, a refused 1xx, 4xx and 5xx.",
    state=State.READ_ONLY,
)
def batch_summary_trailer(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    by_name = {"ok": ok, "nf": nf}
    seen = False
    for mode, profiles, headers, names in MODES:
        if not all(ctx.target.claims(p) for p in profiles):
            continue
        subs = [by_name.get(n) or SubRequest("GET", n) for n in names]
        sent = (*ACCEPTS_TRAILERS, *headers)
        for media, resp, entries in answers_in_every_form(ctx, judge, subs, sent):
            what = mode if media == "multipart/mixed" else f"{mode}, {media}"
            summary = _summary(judge, resp, what)
            if summary is None:
                continue
            seen = True
            values, given = summary
            counted = entry_counts(entries)
            if given is None or counted is None:
                continue
            # MB-STATUS-15: "each count it gives MUST be the number of parts of the same
            # response that the definitions above assign to that member; a member left out
            # counts zero".
            for name, n in counted.items():
                if name not in given and n == 0:
                    continue
                judge.expect(
                    f"Batch-Summary {name} ({what}: {', '.join(values)})",
                    given.get(name),
                    {n},
                    TRAILER_RULE,
                )
    for batch in counted_batches(ctx, judge):
        if not all(ctx.target.claims(p) for p in batch.profiles):
            continue
        resp = ctx.batch(judge, batch.subs, headers=(*ACCEPTS_TRAILERS, *batch.headers))
        expect_processed(ctx, judge, resp, [s.content_id for s in batch.subs])
        summary = _summary(judge, resp, batch.what)
        if summary is None:
            continue
        seen = True
        values, given = summary
        if given is None:
            continue
        # MB-STATUS-15: "each count it gives MUST be the number of parts of the same response
        # that the definitions above assign to that member; a member left out counts zero";
        # spec 5.5: "`ok` counts parts that ran with a status below 400".
        for name in COUNTED:
            judge.expect(
                f"Batch-Summary {name} ({batch.what}: {', '.join(values)})",
                given.get(name, 0),
                {batch.counts[name]},
                TRAILER_RULE,
            )
    if not seen:
        judge.not_applicable("the target sends no Batch-Summary trailer")
