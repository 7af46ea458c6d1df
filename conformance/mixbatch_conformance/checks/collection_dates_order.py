"""The sandbox collection's aggregate validators after writes whose order in the collection and
whose recency disagree (spec 4.2, 5.2).

Theory of operation: MB-METHOD-5 (SHOULD) asks for "an aggregate `Last-Modified` on a
collection retrieval equal to the latest `Last-Modified` among the members, when every member
has one". A member created later is often later in the collection's order too, so a server that
takes the last member's date, keeps a date of its own that moves only when a member comes or
goes, or never lets its date go back, agrees with the latest member's date after creations
alone. The check writes where order and recency part: it creates two members, then, each
write in a later second than the one before (HTTP-dates have whole seconds, RFC 9110 §5.6.7),
replaces the one earlier in the collection's order (learnt from the retrieval, since the spec
leaves the order to the server), then the other, creates a third and deletes it again, and
writes the earlier one again with the content it holds (whether that moves its Last-Modified
the spec leaves open: the aggregate is held to the date its members carry then).

After each write it retrieves the collection and holds the aggregate date to the latest of the
members' own dates: the date each part carries (spec 4.2: "Each part may carry the member's
own `ETag` and `Last-Modified`") or, for a part without one, the date a GET of the member alone
answers; a member of the check's own is fetched alone in any case, and a date its part carries
must be the one its GET alone answers; a HEAD of the collection that carries a Last-Modified
carries a date the GET could (RFC 9110 §9.3.2, which lets a HEAD answer omit it). Where a
member has no date, MB-METHOD-5 does not apply to that retrieval. Once a member has been
deleted the collection changed at the deletion, later than any member still there may have
been: from then on an aggregate date from the latest member's up to the deletion's (the Date of
the DELETE's answer) is taken, since spec 5.2 has "an `If-Modified-Since` the collection has
not changed since" answered 304, which a collection dated at the deletion does.

A strong aggregate ETag may stay the same only over the same octets (MB-METHOD-7: "a strong
validator changes whenever the selected representation's octets do"), so it must change with
each write that adds, removes or changes a member. A weak one may stay over a change the server
judges insignificant (RFC 9110 §8.8.1), and is not held to change. Each retrieval's validators
are then sent back, as a cache revalidating would send them (MB-STATUS-7, spec 5.2: a
conditional retrieval "is evaluated as RFC 9110 §13.2.2 evaluates any `GET`, against the
aggregate validators"): If-None-Match with the aggregate tag, and If-Modified-Since with the
aggregate date where that date is one taken above, are 304 carrying the tag and `Vary: Accept`;
a tag from before a write that no longer matches is 200; and If-Modified-Since with the date of
the retrieval before, where a member has been modified since, is 200, for a stale aggregate
date would answer it 304. A conditional answer is not judged against a tag that another
client's write changed meanwhile (a sandbox may be shared, MB-TEST-3).

N/A unless the sandbox collection answers a collection retrieval (200 multipart/mixed, or 204)
and the target declares a member document; every member the check creates it deletes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

from mixbatch_conformance.checks._shared.collections import (
    RETRIEVAL,
    created_path,
    part_member_path,
)
from mixbatch_conformance.checks._shared.validators import http_date_seconds
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Part, read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

JSON_TYPE = (("Content-Type", "application/json"),)
#: Seconds to wait after a write answered before the next write whose Last-Modified must be
#: later: a write begun this long after another answered falls in a later whole second.
NEXT_SECOND_S = 1.1
#: MB-TEST-3: "a `PUT` to an existing member with 200 or 204".
REPLACED = {200, 204}


def _member(doc: dict[str, Any], tag: str) -> bytes:
    """`doc` with every string member's value replaced by `tag` (MB-TEST-3: "a check may change
    the values of its string members"), as JSON."""
    return json.dumps({k: tag if isinstance(v, str) else v for k, v in doc.items()}).encode()


def _show(stamp: float | None) -> str:
    return "none" if stamp is None else formatdate(stamp, usegmt=True)


def _opaque(tag: str) -> str:
    """An entity tag's opaque-tag, for the weak comparison (RFC 9110 §8.8.3.2)."""
    return tag.removeprefix("W/")


def _vary_names(resp: Response) -> list[str]:
    return [v.strip().lower() for v in ",".join(resp.get_all("Vary")).split(",")]


@dataclass(frozen=True, slots=True)
class _Seen:
    """One retrieval of the collection: its aggregate validators, octets and member paths."""

    tag: str | None
    modified: str | None
    body: bytes
    paths: tuple[str | None, ...]


class _Writes:
    """The check's members and the retrievals it judged, one after each write."""

    def __init__(self, ctx: Context, judge: Judge, coll: str, doc: dict[str, Any]) -> None:
        self.ctx, self.judge, self.coll, self.doc = ctx, judge, coll, doc
        self.mine: list[str] = []
        self.last: _Seen | None = None
        self.wrote_at = 0.0
        #: Whether a member of the check's was deleted, and the Date of the latest such
        #: DELETE's answer (None: none carried one).
        self.deleted = False
        self.deleted_by: float | None = None

    # -- writes ---------------------------------------------------------------------------
    def _next_second(self, later: bool) -> None:
        """With `later`, wait until a write falls in a later second than the last one."""
        wait = self.wrote_at + NEXT_SECOND_S - time.monotonic()
        if later and wait > 0:
            time.sleep(wait)

    def create(self, tag: str, *, later: bool = False) -> str:
        self._next_second(later)
        sub = SubRequest("POST", self.coll, JSON_TYPE, _member(self.doc, tag))
        made = self.ctx.alone(self.judge, sub)
        self.wrote_at = time.monotonic()
        loc = created_path(self.ctx, self.coll, made.get("Location"))
        if made.status != 201 or not loc:
            self.judge.setup_error(
                f"a POST of sandbox.member to {self.coll} answered {made.status}"
            )
        self.mine.append(loc)
        return loc

    def replace(self, path: str, tag: str, *, later: bool = False) -> None:
        self._next_second(later)
        put = self.ctx.alone(self.judge, SubRequest("PUT", path, JSON_TYPE, _member(self.doc, tag)))
        self.wrote_at = time.monotonic()
        if put.status not in REPLACED:
            self.judge.setup_error(
                f"PUT {path} of a member the check created answered {put.status}"
            )

    def delete(self, path: str) -> None:
        gone = self.ctx.alone(self.judge, SubRequest("DELETE", path))
        self.wrote_at = time.monotonic()
        if path in self.mine:
            self.mine.remove(path)
        if gone.status // 100 == 2:
            self.deleted = True
            by = http_date_seconds(gone.get("Date"))
            if by is not None:
                self.deleted_by = max(by, self.deleted_by or by)

    def clean_up(self) -> None:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        for path in list(self.mine):
            self.delete(path)

    # -- retrievals -----------------------------------------------------------------------
    def _get(self, fields: tuple[tuple[str, str], ...] = ()) -> Response:
        return self.ctx.send(
            self.judge, self.ctx.raw_request("GET", self.coll, [*RETRIEVAL, *fields])
        )

    def first(self) -> None:
        """The retrieval before any write: what the next one is compared with; N/A when the
        sandbox collection is not retrieved as a collection."""
        resp = self._get()
        if resp.status == 204:
            self.last = _Seen((resp.get("ETag") or "").strip(" \t") or None, None, b"", ())
            return
        if resp.status != 200 or resp.media_type != "multipart/mixed":
            self.judge.not_applicable(
                f"GET {self.coll} with Accept: multipart/mixed answered {resp.status} "
                f"{resp.media_type!r}: the sandbox collection is not retrieved as a collection"
            )
        self.last, _ = self._read(resp)

    def _read(self, resp: Response) -> tuple[_Seen, list[Part]]:
        _, params = self.judge.media_type(
            "retrieval Content-Type", resp.get("Content-Type"), "MB-METHOD-4"
        )
        parts = list(read_multipart(resp.body, params.get("boundary", "")).parts)
        seen = _Seen(
            (resp.get("ETag") or "").strip(" \t") or None,
            resp.get("Last-Modified"),
            resp.body,
            tuple(part_member_path(self.ctx, self.coll, p) for p in parts),
        )
        return seen, parts

    def after(self, what: str, *, changed: bool = True) -> _Seen:
        """Retrieve the collection after `what` and judge its aggregate validators; `changed`
        when the write added, removed or changed a member."""
        resp = self._get()
        if resp.status != 200 or resp.media_type != "multipart/mixed":
            self.judge.setup_error(
                f"GET {self.coll} after {what} answered {resp.status} {resp.media_type!r} "
                "while the collection holds the check's members"
            )
        seen, parts = self._read(resp)
        dates: dict[str, float | None] = {}
        for n, (part, path) in enumerate(zip(parts, seen.paths, strict=True)):
            label = path or f"part {n}"
            own = http_date_seconds(part.get("Last-Modified"))
            if path is None or (own is not None and path not in self.mine):
                dates[label] = own
                continue
            alone = self.ctx.send(self.judge, self.ctx.raw_request("GET", path))
            single = http_date_seconds(alone.get("Last-Modified")) if alone.status == 200 else None
            if own is not None and single is not None:
                # Spec 4.2: "Each part may carry the member's own `ETag` and `Last-Modified`"
                # and "each part carries what a `GET` of that member alone answers"
                # (MB-METHOD-4): a date the part carries is the member's.
                self.judge.expect_true(
                    f"after {what}: Last-Modified of the part of {path}",
                    own == single,
                    f"{part.get('Last-Modified')!r}, the GET alone {alone.get('Last-Modified')!r}",
                    "the Last-Modified the member's GET alone answers",
                    "MB-METHOD-4",
                )
            dates[label] = own if own is not None else single
        span = self._judge_date(what, resp, dates)
        if span is not None:
            self._judge_head(what, span)
        self._judge_tag(what, seen, changed)
        self._judge_conditionals(what, seen, span)
        self.last = seen
        return seen

    def _span(self, resp: Response, latest: float) -> tuple[float, float]:
        """The aggregate dates taken on a retrieval whose latest member date is `latest`: that
        date, or once a member was deleted any date from it to the deletion's."""
        if not self.deleted:
            return latest, latest
        # Spec 5.2: "an `If-Modified-Since` the collection has not changed since gives 304":
        # the collection changed at the deletion, and RFC 9110 §8.8.2 dates a representation
        # when "the origin server believes the selected representation was last modified".
        # The deletion came no later than its answer's Date, or this retrieval's.
        by = self.deleted_by if self.deleted_by is not None else http_date_seconds(resp.get("Date"))
        return latest, max(latest, by) if by is not None else float("inf")

    def _expected(self, span: tuple[float, float]) -> str:
        low, high = span
        if low == high:
            return f"{_show(low)}, the latest member's (SHOULD)"
        until = "any later date" if high == float("inf") else _show(high)
        return f"from {_show(low)}, the latest member's, to {until}, the deletion's (SHOULD)"

    def _judge_head(self, what: str, span: tuple[float, float]) -> None:
        head = self.ctx.send(self.judge, self.ctx.raw_request("HEAD", self.coll, list(RETRIEVAL)))
        date = http_date_seconds(head.get("Last-Modified"))
        if head.status != 200 or head.get("Last-Modified") is None:
            # RFC 9110 §9.3.2: a server "MAY omit header fields for which a value is
            # determined only while generating the content".
            self.judge.note(
                f"HEAD after {what} answered {head.status} "
                f"{'with' if head.get('Last-Modified') else 'without'} a Last-Modified; "
                "not dated here"
            )
            return
        # RFC 9110 §9.3.2: "The server SHOULD send the same header fields in response to a
        # HEAD request as it would have sent if the request method had been GET"; spec 5.2: "A
        # `HEAD` with the same fields gets the status the `GET` would", and MB-METHOD-5 asks
        # for the latest member's date on the retrieval it stands for.
        self.judge.expect_true(
            f"HEAD aggregate Last-Modified after {what}",
            date is not None and span[0] <= date <= span[1],
            repr(head.get("Last-Modified")),
            self._expected(span),
            "MB-METHOD-5",
        )

    def _judge_date(
        self, what: str, resp: Response, dates: dict[str, float | None]
    ) -> tuple[float, float] | None:
        """The aggregate dates taken (None when a member has no date), the aggregate held to
        them."""
        undated = [label for label, d in dates.items() if d is None]
        if not dates or undated:
            self.judge.note(
                f"after {what}: MB-METHOD-5 does not apply, {undated or 'no member'} "
                "without a Last-Modified in its part or alone"
            )
            return None
        latest = max(d for d in dates.values() if d is not None)
        span = self._span(resp, latest)
        aggregate = http_date_seconds(resp.get("Last-Modified"))
        shown = ", ".join(f"{label} {_show(d)}" for label, d in dates.items())
        # MB-METHOD-5: "an aggregate `Last-Modified` on a collection retrieval equal to the
        # latest `Last-Modified` among the members, when every member has one": the latest
        # by date (RFC 9110 §5.6.7), whichever member's place in the collection's order.
        self.judge.expect_true(
            f"aggregate Last-Modified after {what}",
            aggregate is not None and span[0] <= aggregate <= span[1],
            f"{resp.get('Last-Modified')!r}; members {shown}",
            self._expected(span),
            "MB-METHOD-5",
        )
        return span

    def _judge_tag(self, what: str, seen: _Seen, changed: bool) -> None:
        before = self.last
        if before is None or before.tag is None or seen.tag is None:
            self.judge.note(f"after {what}: no aggregate ETag to compare (collection-get judges)")
            return
        same = seen.body == before.body
        if not seen.tag.startswith("W/"):
            # MB-METHOD-7: a strong aggregate tag "unless every octet of the representation,
            # boundary included, is a function of the collection's state" (RFC 9110 §8.8.1: "a
            # strong validator changes whenever the selected representation's octets do"); spec
            # 4.2: "a strong one whenever any octet of the retrieval does: a part's
            # `Content-Type` or `Last-Modified` included".
            self.judge.expect_true(
                f"strong aggregate ETag after {what}",
                seen.tag != before.tag or same,
                f"{before.tag} before, {seen.tag} after, over {'the same' if same else 'other'} "
                "octets",
                "another tag over other octets",
                "MB-METHOD-7",
            )
        elif seen.tag == before.tag and changed:
            # RFC 9110 §8.8.1: a weak validator "might not change for every change to the
            # representation data"; MB-METHOD-7 binds strong tags to the octets.
            self.judge.note(f"after {what}: the weak aggregate ETag {seen.tag} stayed; not judged")
        if _opaque(seen.tag) != _opaque(before.tag):
            old = self._get((("If-None-Match", before.tag),))
            # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches
            # the aggregate one": the tag from before the write no longer does (RFC 9110
            # §13.1.2 compares weakly).
            self.judge.expect(
                f"GET with the aggregate ETag from before {what}",
                old.status,
                {200},
                "MB-STATUS-7",
            )

    def _judge_conditionals(self, what: str, seen: _Seen, span: tuple[float, float] | None) -> None:
        if seen.tag is not None:
            self._not_modified(what, seen, ("If-None-Match", seen.tag), "its aggregate ETag")
        aggregate = http_date_seconds(seen.modified)
        taken = span is not None and aggregate is not None and span[0] <= aggregate <= span[1]
        if taken and seen.modified:
            self._not_modified(
                what, seen, ("If-Modified-Since", seen.modified), "its aggregate Last-Modified"
            )
        before = self.last
        earlier = http_date_seconds(before.modified) if before is not None else None
        latest = span[0] if span is not None else None
        if latest is None or earlier is None or before is None or earlier >= latest:
            return
        got = self._get((("If-Modified-Since", before.modified or ""),))
        # RFC 9110 §13.1.3: If-Modified-Since is true, and the GET answered as without it, when
        # the representation was modified after the date; spec 5.2: "an `If-Modified-Since`
        # the collection has not changed since gives 304", and a member's Last-Modified is
        # later than this date. Against an aggregate date taken above this is MB-STATUS-7; a
        # 304 against any other follows from the aggregate date (MB-METHOD-5).
        self.judge.expect(
            f"GET after {what} with If-Modified-Since {before.modified}, the aggregate "
            f"Last-Modified before it, a member being dated {_show(latest)}",
            got.status,
            {200},
            "MB-STATUS-7" if taken else "MB-METHOD-5",
        )

    def _not_modified(self, what: str, seen: _Seen, field: tuple[str, str], named: str) -> None:
        got = self._get((field,))
        if got.status != 304 and self._moved(seen):
            self.judge.note(f"after {what}: the aggregate ETag changed meanwhile; not judged")
            return
        # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches the
        # aggregate one"; spec 5.2: evaluated "against the aggregate validators".
        self.judge.expect(
            f"GET after {what} with {field[0]}: {named}", got.status, {304}, "MB-STATUS-7"
        )
        if got.status == 304:
            vary = _vary_names(got)
            # Spec 4.2: "A 304 or 204 answer to a collection retrieval carries the aggregate
            # `ETag` and `Vary: Accept` that the 200 would have carried"; MB-METHOD-4 puts both
            # on the 200.
            self.judge.expect_true(
                f"GET after {what} with {field[0]}: 304 fields",
                (got.get("ETag") or "").strip(" \t") == (seen.tag or "") and "accept" in vary,
                f"ETag {got.get('ETag')!r}, Vary {vary!r}",
                f"ETag {seen.tag} and Vary naming Accept",
                "MB-METHOD-4",
            )

    def _moved(self, seen: _Seen) -> bool:
        """Whether the collection's aggregate tag is no longer `seen`'s: another client wrote."""
        return (self._get().get("ETag") or "").strip(" \t") != (seen.tag or "")


@checker(
    "aggregate-validators-follow-member-writes",
    ("MB-METHOD-5", "MB-METHOD-7", "MB-STATUS-7", "MB-METHOD-4"),
    "After two members are created, the one earlier in the collection's order replaced a second later, the other replaced, a third created and deleted, and a member rewritten with its own content, each retrieval of the sandbox collection, on GET and on a HEAD that carries one, carries the latest Last-Modified among its members (each part's, or the member's GET alone; after the deletion, up to the deletion's date), parts dated as their members alone, a strong aggregate ETag that changed with its octets, and answers its own ETag and date 304, a tag before a write that no longer matches 200, and the aggregate date before a member's modification 200.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def aggregate_validators_follow_member_writes(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    doc = ctx.target.sandbox_member
    if doc is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    writes = _Writes(ctx, judge, coll, doc)
    writes.first()
    try:
        one, two = writes.create("first"), writes.create("second")
        seen = writes.after("two members were created")
        if one not in seen.paths or two not in seen.paths:
            judge.setup_error(
                f"the retrieval after {one} and {two} were created names {seen.paths!r}"
            )
        early, late = sorted((one, two), key=seen.paths.index)
        writes.replace(early, "replaced", later=True)
        writes.after(f"{early}, before {late} in the collection's order, was replaced")
        writes.replace(late, "replaced too", later=True)
        writes.after(f"{late} was replaced")
        third = writes.create("third", later=True)
        writes.after(f"{third} was created")
        writes.delete(third)
        writes.after(f"{third} was deleted")
        writes.replace(early, "replaced")
        writes.after(f"{early} was written again with the content it holds", changed=False)
    finally:
        writes.clean_up()
