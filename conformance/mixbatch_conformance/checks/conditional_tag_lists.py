"""If-Match and If-None-Match read as the lists RFC 9110 §13.1 makes them (spec 7.6, 5.2).

Theory of operation: `If-Match = "*" / #entity-tag` and `If-None-Match = "*" / #entity-tag`
(RFC 9110 §13.1.1, §13.1.2): each field holds a list, and a server that compares the whole
field line as one tag, reads only its first or last member, splits it at every comma (a comma
inside the quotes belongs to the opaque-tag, §8.8.3), refuses the empty elements and the
whitespace RFC 9110 §5.6.1.2 has it ignore, or keeps one of several field lines (§5.3: they
are one list, in order; spec 3.2.3, MB-PART-8, hands a part's field lines to its sub-request
in order) answers a part, or the request alone, with another status. Each case here is a list
of entity-tags written in one or two field lines (the current tag first, in the middle, last,
absent; its W/ form beside it or alone; commas inside quotes, some around the current tag's
opaque characters; empty elements and OWS), and the status it must get follows from RFC 9110
for the current tag the same server sends alone: If-Match is true when a listed tag matches by
the strong comparison (§13.1.1, so a W/ tag never matches), 200, else 412; If-None-Match is
false when a listed tag matches by the weak comparison (§13.1.2), 304 for GET and HEAD, else
200. Each part is judged by that status, with the status the same request gets alone shown
beside it (a member's answer alone that disagrees is only noted: MB-PROC-9 binds the part).

- `conditional-tag-lists`: GET and HEAD parts of `etag_resource` (MB-PROC-9).
- `conditional-tag-lists-on-writes`: PUT and DELETE parts on a member the check creates in the
  sandbox: lists that fail (If-Match naming no current tag, If-None-Match naming it) give 412,
  then two PUTs and a DELETE whose If-Match lists hold the current tag run (MB-PROC-9).
- `collection-conditional-tag-lists`: collection retrievals, GET and HEAD with the aggregate
  tag in the lists, alone (MB-STATUS-7, spec 5.2) and as parts where the target offers the
  conditional profile (MB-PROC-9).
"""

from __future__ import annotations

from dataclasses import dataclass

from mixbatch_conformance.checks._shared.requests import etag_of, new_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Tags no resource carries.
OTHER_A = '"mb-suite-list-a"'
OTHER_B = '"mb-suite-list-b"'
#: One entity-tag with a comma inside its quotes (RFC 9110 §8.8.3: `,` is an etagc).
COMMA_TAG = '"mb-suite,list"'
RETRIEVAL = ("Accept", "multipart/mixed")
JSON_TYPE = ("Content-Type", "application/json")
FIELDS = ("If-Match", "If-None-Match")
#: RFC 9110 §13.2.1: a method the member does not offer is answered without evaluating the
#: preconditions.
NOT_OFFERED = frozenset({405, 501})


@dataclass(frozen=True, slots=True)
class TagList:
    """A list of entity-tags as sent: its field line values and the tags they list."""

    what: str
    lines: tuple[str, ...]
    tags: tuple[str, ...]


def _opaque(tag: str) -> str:
    return tag.removeprefix("W/")


def _strong_match(tags: tuple[str, ...], current: str) -> bool:
    """RFC 9110 §8.8.3.2: "Two entity tags are equivalent if both are not weak and their
    opaque-tags match character-by-character"."""
    return any(t == current and not t.startswith("W/") for t in tags) and not current.startswith(
        "W/"
    )


def _weak_match(tags: tuple[str, ...], current: str) -> bool:
    """RFC 9110 §8.8.3.2: "Two entity tags are equivalent if their opaque-tags match
    character-by-character, regardless of either or both being tagged as "weak""."""
    return any(_opaque(t) == _opaque(current) for t in tags)


def _lists(current: str) -> list[TagList]:
    """The lists sent for a resource whose current tag is `current`."""
    o = _opaque(current)
    inner = o[1:-1]
    a, b, weak = OTHER_A, OTHER_B, f"W/{o}"
    around = f'"{inner},x"', f'"x,{inner}"', f'"{inner},{inner}"'
    return [
        TagList("current tag first", (f"{current}, {a}, {b}",), (current, a, b)),
        TagList("current tag in the middle", (f"{a}, {current}, {b}",), (a, current, b)),
        TagList("current tag last", (f"{a}, {b}, {current}",), (a, b, current)),
        TagList("current tag absent", (f"{a}, {b}",), (a, b)),
        TagList("its W/ form only", (f"{a}, {weak}",), (a, weak)),
        TagList("its W/ form, then the tag", (f"{weak}, {current}",), (weak, current)),
        TagList("no space after the comma", (f"{a},{current}",), (a, current)),
        TagList("tabs around the comma", (f"{a}\t,\t{current}",), (a, current)),
        TagList(
            "empty elements and spaces around them",
            (f", {a} ,, {current} ,",),
            (a, current),
        ),
        TagList("a leading empty element", (f",{current}",), (current,)),
        TagList(
            "a tag holding a comma, then the current tag",
            (f"{COMMA_TAG}, {current}",),
            (COMMA_TAG, current),
        ),
        TagList(
            "a tag holding a comma after the current opaque characters", (around[0],), (around[0],)
        ),
        TagList(
            "a tag holding a comma before the current opaque characters", (around[1],), (around[1],)
        ),
        TagList(
            "a tag holding the current opaque characters twice, a comma between",
            (f"{a}, {around[2]}",),
            (a, around[2]),
        ),
        TagList("two field lines, the current tag on the second", (a, current), (a, current)),
        TagList("two field lines, the current tag on the first", (current, a), (current, a)),
        TagList("two field lines, a list then its W/ form", (f"{a}, {b}", weak), (a, b, weak)),
        TagList(
            "two field lines ending and starting with a comma",
            (f"{a},", f",{current}"),
            (a, current),
        ),
    ]


def _want(field: str, method: str, tags: tuple[str, ...], current: str, plain: int) -> int:
    """The status RFC 9110 §13 gives `method` on a resource that exists with `current`."""
    if field == "If-Match":
        # RFC 9110 §13.1.1: "the condition is true if any of the listed tags match the entity
        # tag of the selected representation" by "the strong comparison function"; false, the
        # origin server "MUST NOT perform the requested method" and may answer 412.
        return plain if _strong_match(tags, current) else 412
    # RFC 9110 §13.1.2: "the condition is false if one of the listed tags matches the entity tag
    # of the selected representation" by "the weak comparison function"; false on GET or HEAD,
    # "the origin server MUST respond with" 304, on another method 412.
    if _weak_match(tags, current):
        return 304 if method in ("GET", "HEAD") else 412
    return plain


def _sub(
    method: str, path: str, field: str, tags: TagList, extra: tuple[tuple[str, str], ...] = ()
) -> SubRequest:
    return SubRequest(method, path, (*extra, *((field, line) for line in tags.lines)))


def _shown(sub: SubRequest) -> str:
    return "; ".join(f"{n}: {v!r}" for n, v in sub.headers if n in FIELDS)


def _part_statuses(ctx: Context, judge: Judge, subs: list[SubRequest]) -> list[int | None]:
    room = max(1, ctx.limit("max_parts") or len(subs) or 1)
    out: list[int | None] = []
    for i in range(0, len(subs), room):
        chunk = subs[i : i + room]
        env = expect_processed(ctx, judge, ctx.batch(judge, chunk), [s.content_id for s in chunk])
        out += [part_status(env, j) for j in range(len(chunk))]
    return out


def _current(ctx: Context, judge: Judge, path: str, extra: tuple[tuple[str, str], ...]) -> str:
    got = ctx.alone(judge, SubRequest("GET", path, extra))
    etag = got.get("ETag")
    if got.status != 200 or not etag:
        judge.setup_error(f"GET {path} alone answered {got.status} with ETag {etag!r}")
    if not (len(_opaque(etag)) >= 2 and _opaque(etag)[0] == _opaque(etag)[-1] == '"'):
        judge.setup_error(f"GET {path} alone answered the ETag {etag!r}, no entity-tag")
    return etag


def _reads(
    path: str, current: str, extra: tuple[tuple[str, str], ...]
) -> list[tuple[SubRequest, int]]:
    """(GET or HEAD request, the status RFC 9110 gives it) for each list in each field."""
    return [
        (_sub(method, path, field, tags, extra), _want(field, method, tags.tags, current, 200))
        for method in ("GET", "HEAD")
        for field in FIELDS
        for tags in _lists(current)
    ]


def _judge_parts(
    ctx: Context,
    judge: Judge,
    cases: list[tuple[SubRequest, int]],
    current: str,
    requirement: str,
) -> None:
    subs = [sub for sub, _ in cases]
    statuses = _part_statuses(ctx, judge, subs)
    for (sub, want), status in zip(cases, statuses, strict=True):
        alone = ctx.alone(judge, sub).status
        if alone != want:
            # MB-PROC-9 binds "the conditional header fields of a part"; the request alone is
            # only shown beside it.
            judge.note(f"{sub.method} {sub.target} with {_shown(sub)} alone answered {alone}")
        # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly
        # as for the standalone request, answering 304 (Not Modified) or 412 (Precondition
        # Failed) in the part when the standalone request would get them"; spec 7.6: "The
        # evaluation is the one RFC 9110 §13 defines (the strong comparison for `If-Match`,
        # the weak one for `If-None-Match`, `*`, lists, ...)".
        judge.expect(
            f"{sub.method} {sub.target} part with {_shown(sub)} (current tag {current}; "
            f"alone: {alone})",
            status,
            {want},
            requirement,
        )


@checker(
    "conditional-tag-lists",
    ("MB-PROC-9",),
    "GET and HEAD parts whose If-Match or If-None-Match lists several entity-tags (the current one first, in the middle, last or absent, its W/ form, tags holding commas inside their quotes, empty elements and whitespace, the list over two field lines) give the status RFC 9110 section 13 gives the list: If-Match 200 when a tag matches strongly, else 412; If-None-Match 304 when one matches weakly, else 200.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_tag_lists(ctx: Context, judge: Judge) -> None:
    path, _ = etag_of(ctx, judge)
    current = _current(ctx, judge, path, ())
    _judge_parts(ctx, judge, _reads(path, current, ()), current, "MB-PROC-9")


@checker(
    "conditional-tag-lists-on-writes",
    ("MB-PROC-9",),
    "On a member written in the sandbox, PUT and DELETE parts whose If-Match lists no current tag (its W/ form, tags holding commas, over two field lines) or whose If-None-Match lists it give 412; then PUTs and a DELETE whose If-Match lists hold the current tag (after a tag holding a comma, on the first of two field lines) run.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_tag_lists_on_writes(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    current = _current(ctx, judge, path, ())
    o = _opaque(current)
    weak = f"W/{o}"
    failing = [
        TagList("its W/ form", (f"{OTHER_A}, {weak}",), (OTHER_A, weak)),
        TagList(
            "a tag holding a comma after the current opaque characters",
            (f'{OTHER_A}, "{o[1:-1]},x"',),
            (OTHER_A, f'"{o[1:-1]},x"'),
        ),
        TagList("two field lines", (OTHER_A, f"{OTHER_B}, {weak}"), (OTHER_A, OTHER_B, weak)),
    ]
    matching = [
        TagList(
            "current tag last",
            (f"{OTHER_A}, {COMMA_TAG}, {current}",),
            (OTHER_A, COMMA_TAG, current),
        ),
        TagList(
            "current tag in the middle",
            (f", {OTHER_A} ,, {current}, {OTHER_B}",),
            (OTHER_A, current, OTHER_B),
        ),
        TagList(
            "two field lines, the current tag on the first", (current, OTHER_A), (current, OTHER_A)
        ),
    ]
    # Every list here fails by RFC 9110 §13.1.1/§13.1.2, so none of the writes runs.
    subs = [
        _write(method, path, field, tags, doc)
        for method in ("PUT", "DELETE")
        for field, lists in (("If-Match", failing), ("If-None-Match", matching))
        for tags in lists
    ]
    for sub, status in zip(subs, _part_statuses(ctx, judge, subs), strict=True):
        # RFC 9110 §13.2.1: preconditions are evaluated only when the request without them
        # would be 2xx or 412, so a method the member does not offer is answered without them:
        # learnt from the same request alone, sent only when the part did not answer 412.
        if status != 412 and ctx.alone(judge, sub).status in NOT_OFFERED:
            continue
        # MB-PROC-9 (RFC 9110 §13.1.1: If-Match is false when no listed tag matches by the
        # strong comparison; §13.1.2: If-None-Match is false when one matches by the weak
        # comparison, and "the origin server MUST respond with" 412 to a method other than GET
        # or HEAD): the write is not performed.
        judge.expect(
            f"{sub.method} {path} part with {_shown(sub)} (current tag {current})",
            status,
            {412},
            "MB-PROC-9",
        )
    # A weak tag never matches If-Match (RFC 9110 §13.1.1 uses the strong comparison), so the
    # writes that must run need a strong one.
    if judge.failed or current.startswith("W/"):
        return
    _writes_that_run(ctx, judge, path, doc, matching)


def _write(method: str, path: str, field: str, tags: TagList, doc: bytes) -> SubRequest:
    if method == "PUT":
        return SubRequest("PUT", path, (JSON_TYPE, *((field, v) for v in tags.lines)), doc)
    return _sub(method, path, field, tags)


def _runs(status: object) -> bool:
    """2xx: the request ran."""
    return isinstance(status, int) and 200 <= status < 300


def _writes_that_run(
    ctx: Context, judge: Judge, path: str, doc: bytes, matching: list[TagList]
) -> None:
    """A PUT, then a DELETE, each with an If-Match list holding the member's current tag."""
    for method, template in (("PUT", matching[0]), ("PUT", matching[1]), ("DELETE", matching[2])):
        current = _current(ctx, judge, path, ())
        tags = _lists_for(template, current)
        sub = _write(method, path, "If-Match", tags, doc)
        env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
        # MB-PROC-9 (RFC 9110 §13.1.1): "the condition is true if any of the listed tags match
        # the entity tag of the selected representation" -- the current tag is listed.
        if not judge.expect(
            f"{method} {path} part with {_shown(sub)} (current tag {current})",
            part_status(env, 0),
            _runs,
            "MB-PROC-9",
            allowed_text="2xx (the list holds the current tag: the write runs)",
        ):
            return


def _lists_for(template: TagList, current: str) -> TagList:
    """`template`, built for a tag the member had, naming `current` instead."""
    old = next(t for t in template.tags if t not in (OTHER_A, OTHER_B, COMMA_TAG))
    return TagList(
        template.what,
        tuple(v.replace(old, current) for v in template.lines),
        tuple(current if t == old else t for t in template.tags),
    )


@checker(
    "collection-conditional-tag-lists",
    ("MB-STATUS-7", "MB-PROC-9"),
    "Collection retrievals, GET and HEAD, alone and as parts, whose If-Match or If-None-Match lists several entity-tags (the aggregate one first, in the middle, last or absent, its W/ form, tags holding commas, empty elements, two field lines) give the status RFC 9110 section 13 gives the list: If-Match 200 or 412, If-None-Match 304 or 200.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_conditional_tag_lists(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    current = _current(ctx, judge, coll, (RETRIEVAL,))
    cases = _reads(coll, current, (RETRIEVAL,))
    for sub, want in cases:
        got = ctx.send(judge, ctx.raw_request(sub.method, coll, list(sub.headers)))
        # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches the
        # aggregate one"; spec 5.2: "a failing `If-Match` ... gives 412", "A `HEAD` with the
        # same fields gets the status the `GET` would"; RFC 9110 §13.1.1/§13.1.2 read each
        # field as a list.
        judge.expect(
            f"{sub.method} {coll} with {_shown(sub)} (aggregate tag {current})",
            got.status,
            {want},
            "MB-STATUS-7",
        )
    if ctx.target.claims("conditional"):
        _judge_parts(ctx, judge, cases, current, "MB-PROC-9")
