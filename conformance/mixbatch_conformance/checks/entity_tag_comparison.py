"""Entity tags compared octet for octet, by collections and by the parts' resources (spec 5.2,
7.6).

Theory of operation: RFC 9110 §8.8.3.2 compares entity tags by their opaque-tags, "match
character-by-character", the strong comparison also asking neither to be weak. A server that
compares more loosely (tags folded to one case, as a server whose tags are hex digests might,
whitespace inside the quotes trimmed, quotes made optional, `w/` read as the weakness indicator
`W/`, a tag taken for one it begins or ends with) answers 304 to an If-None-Match and runs a
request whose If-Match names a tag that is not its own. Each check here reads the server's own
tag and sends it back altered (`_shared.tag_alterations`): a case change only where it changes
the octets (a tag of digits alone is skipped), a prefix, a suffix, the tag with one more
character, and the tag broken out of RFC 9110 §8.8.3's grammar (a space inside its quotes, no
quotes, `w/`).

An altered tag that is itself an entity-tag is a different tag: If-None-Match with it holds
(RFC 9110 §13.1.2), so a GET or HEAD is answered as without it (200) and a PUT runs (never the
412 of a match); If-Match with it fails (§13.1.1), so the request is answered 412. An altered
value outside the grammar names no tag the resource has; RFC 9110 leaves open whether the
field is refused (400) or read as naming nothing, so the check only asks that it never match:
no 304 (GET, HEAD) or 412 (PUT) for If-None-Match, no 2xx for If-Match.

- `entity-tags-compared-exactly`: parts (MB-PROC-9: "evaluate the conditional header fields of
  a part (RFC 9110 §13) exactly as for the standalone request", by "the one RFC 9110 §13
  defines"): GET and HEAD of `etag_resource` with each altered tag in If-None-Match and in
  If-Match, then, on a member the check creates in the sandbox, PUT and DELETE with each in
  If-Match and PUT with each in If-None-Match.
- `collection-entity-tags-compared-exactly`: a collection retrieval (MB-STATUS-7: "304 (Not
  Modified) when a conditional request's validator matches the aggregate one"; spec 5.2: "a
  failing `If-Match` ... gives 412", "A `HEAD` with the same fields gets the status the `GET`
  would") alone, GET and HEAD with each altered aggregate tag in If-None-Match and in If-Match,
  and the same requests as parts of a batch when the target offers the conditional profile
  (MB-PROC-9).
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.checks._shared.requests import etag_of, new_member
from mixbatch_conformance.checks._shared.tag_alterations import altered_tags
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

RETRIEVAL = ("Accept", "multipart/mixed")
JSON_TYPE = ("Content-Type", "application/json")
#: (what a status must be, the test) for each field and method kind, by whether the altered
#: value is a valid entity-tag (a different tag) or outside the grammar (no tag at all).
Want = tuple[str, Callable[[object], bool]]


def _want(field: str, method: str, valid: bool, unconditional: int) -> Want:
    """What RFC 9110 §13 gives `method` with `field` naming a tag the resource does not have."""
    read = method in ("GET", "HEAD")
    if field == "If-Match":
        # RFC 9110 §13.1.1: "the condition is true if any of the listed tags match the entity
        # tag of the selected representation"; "An origin server that evaluates an If-Match
        # condition MUST NOT perform the requested method if the condition evaluates to false";
        # it "MAY indicate that the conditional request failed by responding with a 412".
        if valid:
            return ("412 (a different tag: the condition is false)", lambda s: s == 412)
        return ("not 2xx (no tag of the resource: never a match)", _not_run)
    # RFC 9110 §13.1.2: "the condition is false if one of the listed tags matches the entity
    # tag of the selected representation" -- none does, so the method is performed: a GET or
    # HEAD as without the field, a PUT never refused with the 412 of a match.
    if read:
        if valid:
            return (f"{unconditional} (a different tag: the condition holds)",
                    lambda s: s == unconditional)  # fmt: skip
        return ("not 304 (no tag of the resource: never a match)", lambda s: s != 304)
    return ("not 412 (the tag is not the resource's: the condition holds)", lambda s: s != 412)


def _not_run(status: object) -> bool:
    return not (isinstance(status, int) and 200 <= status < 300)


def _cases(
    etag: str, fields: tuple[str, ...], methods: tuple[str, ...]
) -> list[tuple[str, str, str, str, bool]]:
    """(method, field, what, value, valid) for each alteration of `etag`."""
    return [
        (method, field, what, value, valid)
        for method in methods
        for field in fields
        for what, value, valid in altered_tags(etag)
    ]


def _chunks(ctx: Context, subs: list[SubRequest]) -> list[list[SubRequest]]:
    room = ctx.limit("max_parts") or len(subs) or 1
    return [subs[i : i + room] for i in range(0, len(subs), room)]


def _part_statuses(ctx: Context, judge: Judge, subs: list[SubRequest]) -> list[int | None]:
    out: list[int | None] = []
    for chunk in _chunks(ctx, subs):
        resp = ctx.batch(judge, chunk)
        env = expect_processed(ctx, judge, resp, [s.content_id for s in chunk])
        out += [part_status(env, i) for i in range(len(chunk))]
    return out


def _judge(
    judge: Judge,
    label: str,
    status: int | None,
    want: Want,
    requirement: str,
) -> None:
    allowed, test = want
    judge.expect(label, status, test, requirement, allowed_text=allowed)


def _tag(ctx: Context, judge: Judge, path: str, headers: tuple[tuple[str, str], ...]) -> str:
    got = ctx.alone(judge, SubRequest("GET", path, headers))
    etag = got.get("ETag")
    if got.status != 200 or not etag:
        judge.setup_error(f"GET {path} alone answered {got.status} with ETag {etag!r}")
    return etag


def _needs_alterations(judge: Judge, etag: str) -> None:
    if not altered_tags(etag):
        judge.setup_error(f"the ETag {etag!r} is no entity-tag to alter")


@checker(
    "entity-tags-compared-exactly",
    ("MB-PROC-9",),
    "Parts whose If-None-Match or If-Match holds the resource's own tag altered (case changed where that changes it, a prefix, a suffix, one character more, a space inside the quotes, no quotes, w/ in lower case) never match: GET and HEAD are 200 with If-None-Match and 412 with If-Match, PUT and DELETE with If-Match do not run, PUT with If-None-Match is not 412.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def entity_tags_compared_exactly(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    _needs_alterations(judge, etag)
    reads = _cases(etag, ("If-None-Match", "If-Match"), ("GET", "HEAD"))
    subs = [SubRequest(m, path, ((f, v),)) for m, f, _, v, _ in reads]
    for (method, field, what, value, valid), status in zip(
        reads, _part_statuses(ctx, judge, subs), strict=True
    ):
        # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly
        # as for the standalone request"; RFC 9110 §8.8.3.2: opaque-tags "match
        # character-by-character", so the altered tag is not the resource's.
        _judge(judge, f"{method} {path} part with {field}: {value} ({what} of {etag})",
               status, _want(field, method, valid, 200), "MB-PROC-9")  # fmt: skip
    member, doc = new_member(ctx, judge)
    tag = _tag(ctx, judge, member, ())
    _needs_alterations(judge, tag)
    # Failing If-Match first: none of them may run, so the member is as it was for the next.
    writes = _cases(tag, ("If-Match",), ("PUT", "DELETE")) + _cases(
        tag, ("If-None-Match",), ("PUT",)
    )
    subs = [
        SubRequest(
            m, member, ((JSON_TYPE,) if m == "PUT" else ()) + ((f, v),), doc if m == "PUT" else b""
        )
        for m, f, _, v, _ in writes
    ]
    for (method, field, what, value, valid), status in zip(
        writes, _part_statuses(ctx, judge, subs), strict=True
    ):
        # MB-PROC-9 with RFC 9110 §13.1.1 (If-Match: a different tag is a false condition and
        # the method is not performed) and §13.1.2 (If-None-Match: it is a true condition).
        _judge(judge, f"{method} {member} part with {field}: {value} ({what} of {tag})",
               status, _want(field, method, valid, 200), "MB-PROC-9")  # fmt: skip


@checker(
    "collection-entity-tags-compared-exactly",
    ("MB-STATUS-7", "MB-PROC-9"),
    "Collection retrievals, GET and HEAD, alone and as parts, whose If-None-Match or If-Match holds the aggregate ETag altered (case changed where that changes it, a prefix, a suffix, one character more, a space inside the quotes, no quotes, w/ in lower case) never match: 200 with If-None-Match, 412 with If-Match.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_entity_tags_compared_exactly(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    etag = _tag(ctx, judge, coll, (RETRIEVAL,))
    _needs_alterations(judge, etag)
    cases = _cases(etag, ("If-None-Match", "If-Match"), ("GET", "HEAD"))
    for method, field, what, value, valid in cases:
        got = ctx.send(judge, ctx.raw_request(method, coll, [RETRIEVAL, (field, value)]))
        # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches the
        # aggregate one", else 200 with the members; spec 5.2: "a failing `If-Match` ... gives
        # 412", "A `HEAD` with the same fields gets the status the `GET` would". RFC 9110
        # §8.8.3.2: the altered tag does not match the aggregate one.
        _judge(judge, f"{method} {coll} with {field}: {value} ({what} of {etag})",
               got.status, _want(field, method, valid, 200), "MB-STATUS-7")  # fmt: skip
    if not ctx.target.claims("conditional"):
        return
    subs = [SubRequest(m, coll, (RETRIEVAL, (f, v))) for m, f, _, v, _ in cases]
    for (method, field, what, value, valid), status in zip(
        cases, _part_statuses(ctx, judge, subs), strict=True
    ):
        # MB-PROC-9: a part's conditional fields are evaluated as RFC 9110 §13 evaluates them.
        _judge(judge, f"{method} {coll} part with {field}: {value} ({what} of {etag})",
               status, _want(field, method, valid, 200), "MB-PROC-9")  # fmt: skip
