"""Collection retrievals asked with HEAD, of an empty collection, and inside a batch part
(spec 4.2, 5.2, 7.6, 8.4).

Theory of operation: a collection retrieval "keeps `GET`'s properties: safe, idempotent,
cacheable, conditional" (4.2), and HEAD is GET without content (RFC 9110 §9.3.2), so
`collection-head-and-empty-conditional` asks each declared collection with HEAD as with GET
(the same status: 200, 204 for the empty one, 404 for a missing one; no content; the aggregate
ETag GET gives) and asks the empty collection conditionally: its 204 carries an aggregate ETag
(5.2), so If-None-Match with that tag in either strength, or in a list, is 304 and a foreign
tag leaves it 204 (RFC 9110 §13.1.2, weak comparison), each 304 with the ETag and
`Vary: Accept` the 204 carries (4.2). An empty collection has no member to take a modification
date from (MB-METHOD-5), so If-Modified-Since is ignored or compared with a date of the
collection's own (RFC 9110 §13.1.3): with the epoch it is 204 either way, on GET and HEAD, for
the declared empty collection and for the sandbox when a retrieval shows it empty (a shared
sandbox is judged empty only when seen so); a 204 that names a Last-Modified is 304 for it.
Whether a 204 without Last-Modified may still be 304 for a later date (a server that keeps the
time its collection last changed) the spec leaves open, so no such date is sent. `collection-retrieval-in-part` sends collection
retrievals as parts (spec 8.4: "A part may still retrieve a collection with `Accept:
multipart/mixed`"): plain, with a matching and a foreign If-None-Match, with HEAD, and of the
empty collection, in every declared form; when the empty collection answers 204 alone, GET
and HEAD parts of it with If-Modified-Since of the epoch are 204 by RFC 9110 §13.1.3 itself
(MB-PROC-9 binds the evaluation, not only the agreement with alone). Each part gets the
status, the ETag and the members the same request gets alone (MB-SUB-1, MB-RESP-4; MB-PROC-9
for the conditional ones), the
members compared as the parsed parts of the inner multipart, since a server may draw a fresh
boundary for each retrieval (MB-METHOD-7).
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from mixbatch_conformance.checks._shared.tag_alterations import other_strength
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

RETRIEVAL = ("Accept", "multipart/mixed")
#: A date before any modification a collection could have.
EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT"
#: An entity tag no collection carries.
FOREIGN_TAG = '"mb-suite-no-such-aggregate-tag"'


def _vary_names(values: list[str]) -> list[str]:
    return [v.strip().lower() for v in ",".join(values).split(",")]


@checker(
    "collection-head-and-empty-conditional",
    ("MB-STATUS-7", "MB-STATUS-11", "MB-METHOD-4"),
    "HEAD of a collection, of an empty collection and of a missing one, with Accept multipart/mixed, gets the status GET gets with no content and GET's aggregate ETag; an empty collection's retrieval is 304 on GET and HEAD when If-None-Match names its tag in either strength or in a list, 204 for a foreign tag, each 304 with the 204's ETag and Vary: Accept; a collection seen empty (the declared one, or the sandbox when it answers 204) stays 204 on GET and HEAD for an If-Modified-Since of the epoch, and is 304 for the Last-Modified its 204 names, if any.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_head_and_empty_conditional(ctx: Context, judge: Judge) -> None:
    roles = [r for r in ("collection", "empty_collection") if ctx.target.resource(r)]
    if not roles:
        judge.not_applicable("the target declares no collection")
    empty: Response | None = None
    for role in (*roles, "not_found"):
        path = ctx.path(ctx.resource(judge, role))
        got = ctx.send(judge, ctx.raw_request("GET", path, [RETRIEVAL]))
        head = ctx.send(judge, ctx.raw_request("HEAD", path, [RETRIEVAL]))
        requirement = "MB-STATUS-11" if role == "empty_collection" else "MB-STATUS-7"
        # RFC 9110 §9.3.2: "The HEAD method is identical to GET except that the server MUST
        # NOT send content"; MB-STATUS-7 and MB-STATUS-11 fix GET's status: 200, 204 for a
        # collection without members, 404 for one that does not exist.
        judge.expect(f"HEAD {path}: status as GET's", head.status, {got.status}, requirement)
        judge.expect(f"HEAD {path}: content length", len(head.body), {0}, requirement)
        tag = head.get("ETag")
        if got.status in (200, 204) and tag is not None:
            # MB-METHOD-4: the aggregate ETag belongs to the retrieval; HEAD selects the same
            # representation as GET (RFC 9110 §9.3.2), so a tag it sends is GET's.
            judge.expect(f"HEAD {path}: ETag", tag, {got.get("ETag")}, "MB-METHOD-4")
        if got.status == 200 and head.get("Content-Type"):
            judge.expect(
                f"HEAD {path}: media type", head.media_type, {"multipart/mixed"}, "MB-METHOD-4"
            )
        if role == "empty_collection" and got.status == 204:
            empty = got
    sandbox = ctx.target.resource("sandbox_collection")
    if sandbox:
        # The sandbox is shared and may hold members, so its empty state is only judged when
        # a retrieval shows it (MB-TEST-3: a check never relies on the number of members).
        path = ctx.path(sandbox)
        got = ctx.send(judge, ctx.raw_request("GET", path, [RETRIEVAL]))
        if got.status == 204:
            _judge_empty_dates(ctx, judge, path, got)
    etag = ((empty.get("ETag") if empty else None) or "").strip()
    if empty is None or not etag:
        judge.note("no empty collection answered 204 with an ETag; its conditionals not sent")
        return
    path = ctx.path(ctx.resource(judge, "empty_collection"))
    _judge_empty_dates(ctx, judge, path, empty)
    cases = (
        ("its tag's other strength", other_strength(etag), 304),
        ("a list ending with its tag", f"{FOREIGN_TAG}, {etag}", 304),
        ("a foreign tag", FOREIGN_TAG, 204),
        ("a foreign weak tag", f"W/{FOREIGN_TAG}", 204),
    )
    for method in ("GET", "HEAD"):
        for what, value, want in cases:
            got = ctx.send(
                judge, ctx.raw_request(method, path, [RETRIEVAL, ("If-None-Match", value)])
            )
            # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches
            # the aggregate one" (RFC 9110 §13.1.2: by the weak comparison, any listed tag);
            # MB-STATUS-11: otherwise an existing collection without members is 204.
            judge.expect(
                f"{method} {path} with If-None-Match: {what}",
                got.status,
                {want},
                "MB-STATUS-7" if want == 304 else "MB-STATUS-11",
            )
            if got.status == 304:
                # Spec 4.2: "A 304 or 204 answer to a collection retrieval carries the
                # aggregate `ETag` and `Vary: Accept` that the 200 would have carried".
                vary = _vary_names(got.get_all("Vary"))
                judge.expect_true(
                    f"{method} {path} with If-None-Match: {what}: 304 fields",
                    got.get("ETag") == empty.get("ETag") and "accept" in vary,
                    f"ETag {got.get('ETag')!r}, Vary {vary!r}",
                    f"ETag {etag} and Vary naming Accept",
                    "MB-METHOD-4",
                )


def _empty_date_cases(empty: Response) -> list[tuple[str, str, int]]:
    """(what, If-Modified-Since value, status) for a collection whose retrieval answered
    `empty`, a 204.

    RFC 9110 §13.1.3: If-Modified-Since is false, and a GET or HEAD 304, only when "the
    selected representation's last modification date is earlier or equal to the date
    provided"; "A recipient MUST ignore If-Modified-Since if ... the resource does not have a
    modification date available". An empty collection has no member to take a date from
    (MB-METHOD-5 derives the aggregate one from the members): whether it has no date or a date
    of its own, the epoch is no date it has not changed since, so the retrieval stays 204. A
    204 that names its own Last-Modified is 304 for that date.
    """
    cases = [(f"the epoch ({EPOCH})", EPOCH, 204)]
    modified = empty.get("Last-Modified")
    try:
        when = parsedate_to_datetime(modified or "")
    except (TypeError, ValueError):
        return cases
    if when.tzinfo is not None and when <= datetime.now(UTC):
        cases.append(("the 204's own Last-Modified", modified or "", 304))
    return cases


def _judge_empty_dates(ctx: Context, judge: Judge, path: str, empty: Response) -> None:
    """A retrieval of `path`, seen empty (`empty`, its 204), asked with If-Modified-Since on
    GET and HEAD: 204 unless the date is one the collection has not changed since."""
    for method in ("GET", "HEAD"):
        for what, value, want in _empty_date_cases(empty):
            got = ctx.send(
                judge, ctx.raw_request(method, path, [RETRIEVAL, ("If-Modified-Since", value)])
            )
            # MB-STATUS-11 (spec 5.2): "A conditional retrieval is evaluated as RFC 9110
            # §13.2.2 evaluates any GET, against the aggregate validators, before either status
            # is chosen"; an If-Modified-Since that does not hold leaves an empty collection 204,
            # and MB-STATUS-7 gives 304 for one the collection has not changed since.
            judge.expect(
                f"{method} {path} (empty) with If-Modified-Since: {what}",
                got.status,
                {want},
                "MB-STATUS-7" if want == 304 else "MB-STATUS-11",
            )


def _members(content_type: str | None, body: bytes) -> list[tuple[object, ...]] | None:
    """The parts of a retrieval's content as (Content-Id, status, Content-Type, ETag, body),
    or None when it is no multipart/mixed with a boundary."""
    try:
        media, params = parse_media_type(content_type or "")
    except ValueError:
        return None
    if media != "multipart/mixed" or not params.get("boundary"):
        return None
    env = read_multipart(body, params["boundary"])
    if env.fatal:
        return None
    return [
        (
            p.get("Content-Id"),
            p.get("Http-Status-Code"),
            p.get("Content-Type"),
            p.get("ETag"),
            p.body,
        )
        for p in env.parts
    ]


def _field(fields: tuple[tuple[str, str], ...], name: str) -> str | None:
    for n, v in fields:
        if n.lower() == name.lower():
            return v
    return None


@checker(
    "collection-retrieval-in-part",
    ("MB-SUB-1", "MB-RESP-4", "MB-PROC-9", "MB-TEST-8"),
    "Collection retrievals sent as parts (plain, with HEAD, with a matching and a foreign If-None-Match, of the empty collection) are answered in every declared form with the status, aggregate ETag and members the same requests get alone; GET and HEAD parts of an empty collection with an If-Modified-Since of the epoch are 204.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_retrieval_in_part(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    first = ctx.alone(judge, SubRequest("GET", coll, (RETRIEVAL,)))
    etag = first.get("ETag")
    if first.status != 200 or not etag:
        judge.setup_error(f"GET {coll} answered {first.status} with ETag {etag!r}")
    subs = [
        SubRequest("GET", coll, (RETRIEVAL,)),
        SubRequest("GET", coll, (RETRIEVAL, ("If-None-Match", etag))),
        SubRequest("GET", coll, (RETRIEVAL, ("If-None-Match", FOREIGN_TAG))),
        SubRequest("HEAD", coll, (RETRIEVAL,)),
    ]
    empty = ctx.target.resource("empty_collection")
    conditional = {1, 2}
    #: Parts whose status RFC 9110 §13 fixes whatever the same request gets alone.
    rfc: dict[int, int] = {}
    if empty:
        subs.append(SubRequest("GET", ctx.path(empty), (RETRIEVAL,)))
        subs.append(SubRequest("GET", coll, (RETRIEVAL,)))
        if ctx.alone(judge, subs[-2]).status == 204:
            # Seen empty: If-Modified-Since with the epoch leaves it 204 (RFC 9110 §13.1.3: no
            # date to compare, or one later than the epoch), on GET and HEAD alike.
            for method in ("GET", "HEAD"):
                since = ("If-Modified-Since", EPOCH)
                subs.append(SubRequest(method, ctx.path(empty), (RETRIEVAL, since)))
                conditional.add(len(subs) - 1)
                rfc[len(subs) - 1] = 204
    alone = [ctx.alone(judge, s) for s in subs]
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, (sub, entry, single) in enumerate(zip(subs, entries, alone, strict=True)):
            label = f"{media}: part {i} ({sub.method} {sub.target} {dict(sub.headers)})"
            # MB-SUB-1: a part is answered as "the same request sent on its own"; spec 8.4: "A
            # part may still retrieve a collection with `Accept: multipart/mixed`"; MB-PROC-9:
            # its conditional fields give "304 ... in the part when the standalone request
            # would get them".
            judge.expect(
                f"{label}: status",
                entry.status,
                {single.status},
                "MB-PROC-9" if i in conditional else "MB-SUB-1",
            )
            if i == 0:
                # MB-TEST-8: a server "MUST answer a `GET` of that resource with `Accept:
                # multipart/mixed` as a collection retrieval", a sub-request's too.
                judge.expect(f"{label}: a collection retrieval", entry.status, {200}, "MB-TEST-8")
            if i in rfc:
                # MB-PROC-9: the evaluation is "the one RFC 9110 §13 defines", so a part is
                # held to it even where the same request alone is answered otherwise.
                judge.expect(
                    f"{label}: status by RFC 9110 §13.1.3", entry.status, {rfc[i]}, "MB-PROC-9"
                )
            # MB-RESP-4: the sub-response's header fields go in the part, its aggregate ETag
            # among them (on the 304 as on the 200, spec 4.2).
            judge.expect(
                f"{label}: ETag", _field(entry.fields, "ETag"), {single.get("ETag")}, "MB-RESP-4"
            )
            if single.status == 200 and sub.method == "GET":
                want = _members(single.get("Content-Type"), single.body)
                got = _members(_field(entry.fields, "Content-Type"), entry.body)
                # MB-RESP-4: "MUST put the sub-response's content in the part body": the
                # multipart/mixed body is "the part's content and is opaque to the outer
                # envelope" (8.4); its boundary may differ from one retrieval to the next, so
                # its members are compared.
                judge.expect_true(
                    f"{label}: members",
                    want is not None and got == want,
                    f"{len(got or [])} members" if got != want else "the same members",
                    "the members the retrieval alone carries",
                    "MB-RESP-4",
                )
