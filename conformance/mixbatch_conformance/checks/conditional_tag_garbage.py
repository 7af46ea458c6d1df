"""If-None-Match members that begin with the current entity-tag but are none (spec 7.6).

Theory of operation: RFC 9110 §8.8.3 writes an entity-tag as `[ weak ] opaque-tag`, a quoted
string and nothing after it, and §13.1.2 compares the members of an If-None-Match list with the
selected representation's tag. A member such as `"tag"x` is no entity-tag, and MB-PROC-9 says so:
such a member "matches no representation", whether the server reads the rest of the list or
refuses the field. A reader that takes the longest entity-tag a member begins with (a regular
expression matched at the start, not over the whole member) compares `"tag"` and answers 304.
The check learns the `etag_resource`'s current tag and sends GET parts whose If-None-Match is
that tag followed by a letter, by a word, and preceded by one, its opaque-tag behind a weakness
indicator written wrong (`W/W/`, `WW/`, `W`, `/`, `W//`; a reader that strips the indicator as a
set of characters, not as the prefix `W/`, reads each as the tag), or a tag no representation
carries beside a `*` (which RFC 9110 §13.1.2 admits as the whole field only): each part is
answered 200 (the condition holds) or refused 400 (the field is malformed), or the batch
refused 400, never 304. An If-Match of such a tag beside a `*`, on one line or over two, is
answered 412 or refused 400, never 200. The parts only read.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.precondition_values import NO_SUCH_ETAG
from mixbatch_conformance.checks._shared.requests import etag_of
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []


@checker(
    "conditional-tag-members-with-trailing-text",
    ("MB-PROC-9",),
    "A GET part whose If-None-Match is the current entity-tag followed by a letter or a word, or preceded by a letter, or its opaque-tag behind a weakness indicator written wrong (W/W/, WW/, W, /, W//), or a tag beside a * member, is answered 200 or refused 400, never 304, and one whose If-Match is a tag beside a * member, on one line or two, 412 or 400, never 200: such a member is no entity-tag and matches no representation.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_tag_members_with_trailing_text(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    # RFC 9110 §8.8.3: entity-tag = [ weak ] opaque-tag, weak = %s"W/": one indicator, the two
    # characters in that order, or none.
    opaque = etag[2:] if etag.startswith("W/") else etag
    cases: list[tuple[tuple[tuple[str, str], ...], set[int]]] = [
        ((("If-None-Match", value),), {200, 400})
        for value in (
            f"{etag}x",
            f"{etag}-stale",
            f"x{etag}",
            *(f"{bad}{opaque}" for bad in ("W/W/", "WW/", "W", "/", "W//")),
            f"{NO_SUCH_ETAG}, *",
            f"*, {NO_SUCH_ETAG}",
        )
    ]
    # `*` is the whole field or nothing (RFC 9110 §13.1.1: If-Match = "*" / #entity-tag): a
    # `*` among tags is no entity-tag, so an If-Match list of it and a tag that does not match
    # holds nothing, on one line or over two.
    cases += [
        ((("If-Match", f"{NO_SUCH_ETAG}, *"),), {412, 400}),
        ((("If-Match", NO_SUCH_ETAG), ("If-Match", "*")), {412, 400}),
    ]
    for fields, allowed in cases:
        shown = "; ".join(f"{n}: {v}" for n, v in fields)
        resp = ctx.batch(judge, [SubRequest("GET", path, fields)])
        if resp.status == 400:
            judge.note(f"{shown}: the batch refused 400 as malformed")
            continue
        env = ctx.read_batch(judge, resp)
        # MB-PROC-9: "A member of an If-Match or If-None-Match list that is not an entity-tag
        # matches no representation, whether the server reads the rest of the list or refuses
        # the field".
        judge.expect(f"{shown}: part status", part_status(env, 0), allowed, "MB-PROC-9")
