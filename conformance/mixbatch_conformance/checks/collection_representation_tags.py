"""The aggregate ETag stands for the collection retrieval alone, not for the collection's other
representations (spec 4.2, 5.2; MB-METHOD-7, MB-STATUS-7).

Theory of operation: a collection a client retrieves with `Accept: multipart/mixed` usually has
other representations too (a JSON listing, say), which a `GET` with another `Accept` selects
(spec 4.2: such a `GET` "is an ordinary request, outside this specification"). MB-METHOD-7 lets
the aggregate tag be strong only when "every octet of the representation, boundary included, is
a function of the collection's state", because "A strong entity tag promises identical octets
(RFC 9110 §8.8.1)"; RFC 9110 §8.8.1 makes a strong validator "unique across all versions of all
representations associated with a particular resource over time". A server that hashes its
aggregate validator from the members alone, with no mark of the representation it tags, gives
the listing and the retrieval one strong tag over different octets, and then answers 304 to a
retrieval whose If-None-Match holds the listing's tag.

`collection-tag-per-representation` retrieves each declared collection (`collection`,
`empty_collection`, and the sandbox, which it only reads) with `Accept: multipart/mixed`, then
GETs it under Accept values that may select another representation (none, `application/json`,
`application/*`, `*/*`, `text/plain`, `application/xml`, the JSON batch form's type), learning
what the server answers for each. Every answer that carries the retrieval's strong tag must be
the retrieval's octets, with its media type (a 204's content is no octets). Then each tag
another representation carries is sent back on the retrieval, GET and HEAD, in If-None-Match
(weak comparison, RFC 9110 §13.1.2: 304 only when it matches the aggregate tag so, else the
retrieval's own status) and in If-Match (strong comparison, §13.1.1: the retrieval's status only
when it matches so, else 412, spec 5.2). An answer whose ETag is no longer the aggregate tag
the check learnt says the collection changed in between (another client wrote to the sandbox),
and is noted, not judged.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.collections import declared_collections
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

RETRIEVAL = ("Accept", "multipart/mixed")
#: Accept values that may select a representation of a collection other than the retrieval
#: (None sends no Accept): the server's choice among its representations is learnt, not assumed.
OTHER_ACCEPTS: tuple[str | None, ...] = (
    None,
    "application/json",
    "application/*",
    "*/*",
    "text/plain",
    "application/xml",
    "application/vnd.mixbatch.multistatus+json",
)


def _tag(resp: Response) -> str | None:
    value = (resp.get("ETag") or "").strip(" \t")
    return value or None


def _opaque(tag: str) -> str:
    return tag[2:] if tag.startswith("W/") else tag


def _weak_match(a: str, b: str) -> bool:
    """RFC 9110 §8.8.3.2: "their opaque-tags match character-by-character, regardless of
    either or both being tagged as weak"."""
    return _opaque(a) == _opaque(b)


def _strong_match(a: str, b: str) -> bool:
    """RFC 9110 §8.8.3.2: "both entity tags are not weak and their opaque-tags match"."""
    return not a.startswith("W/") and a == b


def _content(resp: Response) -> tuple[str, bytes]:
    """What a strong tag promises: the media type and the octets (none for a 204)."""
    if resp.status == 204:
        return ("", b"")
    return (resp.media_type or "", resp.body)


def _judge_collection(ctx: Context, judge: Judge, coll: str) -> None:
    plain = ctx.send(judge, ctx.raw_request("GET", coll, [RETRIEVAL]))
    aggregate = _tag(plain)
    retrieval = plain.status == 204 or (
        plain.status == 200 and plain.media_type == "multipart/mixed"
    )
    if not retrieval or aggregate is None:
        judge.note(f"GET {coll} with Accept: multipart/mixed: {plain.status}, tag {aggregate!r}")
        return
    others: list[str] = []
    for accept in OTHER_ACCEPTS:
        fields = [] if accept is None else [("Accept", accept)]
        resp = ctx.send(judge, ctx.raw_request("GET", coll, fields))
        tag = _tag(resp)
        shown = "no Accept" if accept is None else f"Accept: {accept}"
        judge.note(f"GET {coll}, {shown}: {resp.status} {resp.media_type!r}, tag {tag!r}")
        if resp.status not in (200, 204) or tag is None:
            continue
        if _strong_match(aggregate, tag):
            same = _content(resp) == _content(plain)
            # MB-METHOD-7: a server "MUST keep a strong aggregate `ETag` off every other
            # representation of the collection (a listing in another media type, an empty
            # collection's answer in another form) whose octets differ (RFC 9110 §8.8.1)".
            judge.expect_true(
                f"GET {coll}, {shown}, under the retrieval's strong tag {tag}",
                same,
                "the retrieval's octets"
                if same
                else f"{resp.status} {resp.media_type!r}, {len(resp.body)} other octets",
                f"the retrieval's own octets ({plain.status} {plain.media_type!r}, "
                f"{len(plain.body)} octets): a strong tag stands for one sequence of octets",
                "MB-METHOD-7",
            )
        elif tag not in others and resp.media_type != "multipart/mixed":
            others.append(tag)
    for tag in others:
        _judge_conditionals(ctx, judge, coll, plain.status, aggregate, tag)


def _judge_conditionals(
    ctx: Context, judge: Judge, coll: str, status: int, aggregate: str, tag: str
) -> None:
    """The retrieval asked with another representation's `tag` in each conditional field, and
    in If-None-Match in its weak form too."""
    sendings = [("If-None-Match", tag), ("If-Match", tag)]
    if not tag.startswith("W/"):
        sendings.insert(1, ("If-None-Match", f"W/{tag}"))
    for field, value in sendings:
        if field == "If-None-Match":
            want = 304 if _weak_match(value, aggregate) else status
        else:
            want = status if _strong_match(value, aggregate) else 412
        for method in ("GET", "HEAD"):
            resp = ctx.send(judge, ctx.raw_request(method, coll, [RETRIEVAL, (field, value)]))
            now = _tag(resp)
            if now is not None and now != aggregate:
                judge.note(f"{method} {coll} with {field}: {value}: the tag is now {now}")
                continue
            # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches
            # the aggregate one"; spec 5.2: a conditional retrieval "is evaluated as RFC 9110
            # §13.2.2 evaluates any `GET`, against the aggregate validators", "a failing
            # `If-Match` ... gives 412", "A `HEAD` with the same fields gets the status the
            # `GET` would"; RFC 9110 §13.1.2 compares If-None-Match weakly, §13.1.1 If-Match
            # strongly.
            judge.expect(
                f"{method} {coll} with {field}: {value} (another representation's tag; the "
                f"aggregate tag is {aggregate})",
                resp.status,
                {want},
                "MB-STATUS-7",
            )


@checker(
    "collection-tag-per-representation",
    ("MB-METHOD-7", "MB-STATUS-7"),
    "A collection's other representations (its JSON listing and whatever other Accept values select) that carry the retrieval's strong aggregate ETag are the retrieval's octets, and a retrieval whose If-None-Match or If-Match holds another representation's tag is answered by comparing it with the aggregate tag: 304 or 412 only as RFC 9110 compares them.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_tag_per_representation(ctx: Context, judge: Judge) -> None:
    for coll in declared_collections(ctx, judge):
        _judge_collection(ctx, judge, coll)
