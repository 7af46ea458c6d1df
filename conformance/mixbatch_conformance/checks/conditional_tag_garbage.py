"""If-None-Match members that begin with the current entity-tag but are none (spec 7.6).

Theory of operation: RFC 9110 §8.8.3 writes an entity-tag as `[ weak ] opaque-tag`, a quoted
string and nothing after it, and §13.1.2 compares the members of an If-None-Match list with the
selected representation's tag. A member such as `"tag"x` is no entity-tag, and MB-PROC-9 says so:
such a member "matches no representation", whether the server reads the rest of the list or
refuses the field. A reader that takes the longest entity-tag a member begins with (a regular
expression matched at the start, not over the whole member) compares `"tag"` and answers 304.
The check learns the `etag_resource`'s current tag and sends GET parts whose If-None-Match is
that tag followed by a letter, by a word, and preceded by one: each part is answered 200 (the
condition holds) or refused 400 (the field is malformed), or the batch refused 400, never 304.
The parts only read.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import etag_of
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []


@checker(
    "conditional-tag-members-with-trailing-text",
    ("MB-PROC-9",),
    "A GET part whose If-None-Match is the current entity-tag followed by a letter or a word, or preceded by a letter, is answered 200 or refused 400, never 304: such a member is no entity-tag and matches no representation.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_tag_members_with_trailing_text(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    for value in (f"{etag}x", f"{etag}-stale", f"x{etag}"):
        sub = SubRequest("GET", path, (("If-None-Match", value),))
        resp = ctx.batch(judge, [sub])
        if resp.status == 400:
            judge.note(f"If-None-Match: {value}: the batch refused 400 as malformed")
            continue
        env = ctx.read_batch(judge, resp)
        # MB-PROC-9: "A member of an If-Match or If-None-Match list that is not an entity-tag
        # matches no representation".
        judge.expect(f"If-None-Match: {value}: part status", part_status(env, 0), {200, 400})
