"""Planted violations of a collection retrieval's aggregate validators where the collection's
order and its members' recency disagree (spec 4.2, 5.2).

Each is a mistake a server makes when it takes the members created last for the ones modified
last, or keeps a date of its own beside its members' dates; each agrees with the latest member's
date while members are only created, and parts from it once a member earlier in the order is
replaced, or a member deleted:

    aggregate-last-modified-of-last-member     the aggregate Last-Modified the last part's, a
                                               new member being appended and so taken for the
                                               latest (MB-METHOD-5)
    head-dated-with-last-member                GET right, but HEAD's Last-Modified the last
                                               member's, as its last GET listed them
                                               (MB-METHOD-5)
    aggregate-last-modified-on-membership-only the collection's date moved only when a member
                                               comes or goes, sent as the aggregate and
                                               If-Modified-Since evaluated against it
                                               (MB-METHOD-5)
    aggregate-last-modified-of-creations-after-delete
                                               once a member was deleted, the aggregate
                                               Last-Modified recomputed from the dates the
                                               members were created with, earlier than a
                                               member replaced since (MB-METHOD-5)
    undated-parts-aggregate-of-last-member     parts written without Last-Modified, which the
                                               spec allows, and the aggregate the last
                                               member's date (MB-METHOD-5)
    collection-ims-against-last-member         the aggregate Last-Modified right, but
                                               If-Modified-Since evaluated against the last
                                               member's date (MB-STATUS-7)
    collection-parts-dated-with-aggregate      each part's Last-Modified the aggregate's, not
                                               its member's (MB-METHOD-4)
    aggregate-etag-of-last-member              the aggregate ETag derived from the member count
                                               and the last member's tag, If-None-Match matched
                                               against it (MB-METHOD-7)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

CATCHERS = ("aggregate-validators-follow-member-writes",)
#: The date a collection path was last given and the members it held then, as the relay saw
#: them while its plant was in place.
MEMBERSHIP: dict[str, tuple[tuple[str, ...], str]] = {}
#: The Last-Modified each member (collection path, Content-Id) first carried in a retrieval.
FIRST_DATES: dict[tuple[str, str], str] = {}
#: The collection paths a member of which a DELETE sent alone removed.
DELETED: set[str] = set()
#: The aggregate Last-Modified last written for each such collection path's GET retrieval.
RECOMPUTED: dict[str, str] = {}
#: The last part's Last-Modified of the latest GET retrieval of each collection path.
LAST_DATES: dict[str, str] = {}
#: The aggregate ETag the relay wrote for each tag the server gave a retrieval.
OWN_TAGS: dict[str, str] = {}


def _stamp(value: str | None) -> float:
    try:
        return parsedate_to_datetime(value or "").timestamp()
    except (TypeError, ValueError):
        return float("-inf")


def _retrieval(req: RelayRequest, resp: RelayResponse) -> list[Part] | None:
    """The parts of a collection retrieval answered 200 to a GET sent alone, else None."""
    if is_batch(req) or req.method != "GET" or resp.status != 200:
        return None
    if "multipart" not in (req.get("Accept") or "").lower():
        return None
    b = boundary_of(resp)
    return parts_of(resp.body, b) if b else None


def _not_modified(resp: RelayResponse) -> None:
    """The answer made a 304: no content, the validators and Vary kept."""
    resp.status, resp.body = 304, b""
    resp.set("Content-Type", None)


def _unmodified_since(req: RelayRequest, date: str | None) -> bool:
    """Whether If-Modified-Since, alone (RFC 9110 §13.1.3 ignores it beside If-None-Match),
    is false against `date`."""
    since = req.get("If-Modified-Since")
    return bool(since and date) and not req.get("If-None-Match") and _stamp(date) <= _stamp(since)


def _last_member(req: RelayRequest, resp: RelayResponse) -> None:
    """The aggregate Last-Modified of the last part."""
    parts = _retrieval(req, resp)
    if parts and resp.get("Last-Modified"):
        resp.set("Last-Modified", field_of(parts[-1][0], "Last-Modified"))


def _head_of_last_member(req: RelayRequest, resp: RelayResponse) -> None:
    """HEAD of a retrieval dated from the last member of the collection, as the last GET of it
    listed the members; GET answered right."""
    path = urlsplit(req.target).path
    parts = _retrieval(req, resp)
    if parts:
        LAST_DATES[path] = field_of(parts[-1][0], "Last-Modified") or ""
    elif req.method == "HEAD" and resp.status == 200 and LAST_DATES.get(path):
        resp.set("Last-Modified", LAST_DATES[path])


def _membership_only(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection date taken when the members it holds change, and kept while only their
    contents do; If-Modified-Since answered 304 against it."""
    parts = _retrieval(req, resp)
    date = resp.get("Last-Modified")
    if not parts or not date:
        return
    path = urlsplit(req.target).path
    members = tuple(sorted(field_of(f, "Content-Id") or "" for f, _ in parts))
    kept = MEMBERSHIP.get(path)
    if kept is None or kept[0] != members:
        MEMBERSHIP[path] = (members, date)
    else:
        date = kept[1]
    resp.set("Last-Modified", date)
    if _unmodified_since(req, date):
        _not_modified(resp)


def _creations_after_delete(req: RelayRequest, resp: RelayResponse) -> None:
    """Once a member of a collection was deleted, its aggregate Last-Modified the latest of the
    dates its members first carried, as a server that recomputes the aggregate on a deletion
    from the members' creation dates does; HEAD given the date its last GET was."""
    path = urlsplit(req.target).path
    if req.method == "DELETE" and not is_batch(req) and 200 <= resp.status < 300:
        DELETED.add(path.rstrip("/").rsplit("/", 1)[0])
        return
    if req.method == "HEAD" and resp.status == 200 and path in RECOMPUTED:
        resp.set("Last-Modified", RECOMPUTED[path])
        return
    parts = _retrieval(req, resp)
    if not parts:
        return
    dates = []
    for fields, _ in parts:
        key = (path, field_of(fields, "Content-Id") or "")
        dates.append(FIRST_DATES.setdefault(key, field_of(fields, "Last-Modified") or ""))
    if path in DELETED and resp.get("Last-Modified") and all(dates):
        RECOMPUTED[path] = max(dates, key=_stamp)
        resp.set("Last-Modified", RECOMPUTED[path])


def _undated_parts(req: RelayRequest, resp: RelayResponse) -> None:
    """Parts written without Last-Modified, the aggregate the last member's date."""
    parts = _retrieval(req, resp)
    b = boundary_of(resp)
    if not parts or b is None:
        return
    if resp.get("Last-Modified"):
        resp.set("Last-Modified", field_of(parts[-1][0], "Last-Modified"))
    resp.body = write_parts([(without_field(f, "Last-Modified"), body) for f, body in parts], b)


def _ims_against_last_member(req: RelayRequest, resp: RelayResponse) -> None:
    """If-Modified-Since evaluated against the last part's date."""
    parts = _retrieval(req, resp)
    if parts and _unmodified_since(req, field_of(parts[-1][0], "Last-Modified")):
        _not_modified(resp)


def _parts_dated_with_aggregate(req: RelayRequest, resp: RelayResponse) -> None:
    """Each part stamped with the aggregate Last-Modified."""
    parts = _retrieval(req, resp)
    b = boundary_of(resp)
    date = resp.get("Last-Modified")
    if not parts or b is None or not date:
        return
    dated = [
        (set_field(f, "Last-Modified", date) if field_of(f, "Last-Modified") else f, body)
        for f, body in parts
    ]
    resp.body = write_parts(dated, b)


def _opaque(tag: str) -> str:
    tag = tag.strip()
    return tag[2:] if tag.startswith("W/") else tag


def _etag_of_last_member(req: RelayRequest, resp: RelayResponse) -> None:
    """An aggregate ETag of the member count and the last member's id and tag, and
    If-None-Match matched against it."""
    real = resp.get("ETag")
    if resp.status == 304 and real in OWN_TAGS:
        # A 304 the server gave itself (to If-Modified-Since) names the tag its 200 named.
        resp.set("ETag", OWN_TAGS[real])
    parts = _retrieval(req, resp)
    if not parts or not real:
        return
    last = parts[-1][0]
    seed = f"{len(parts)}\x00{field_of(last, 'Content-Id')}\x00{field_of(last, 'ETag')}"
    tag = f'"last-{hashlib.sha256(seed.encode()).hexdigest()[:24]}"'
    OWN_TAGS[real] = tag
    resp.set("ETag", tag)
    lines = [v for n, v in req.headers if n.lower() == "if-none-match"]
    asked = {_opaque(t) for t in ",".join(lines).split(",") if t.strip()}
    if _opaque(tag) in asked or "*" in asked:
        _not_modified(resp)


P = Mutation


def _plant(name: str, breaks: str, edit: Callable[[RelayRequest, RelayResponse], None]) -> P:
    caught = ("WARN", "FAIL") if breaks.startswith("MB-METHOD-5") else ("FAIL",)
    return P(name, breaks, CATCHERS, caught_by=caught, on_response=edit)


PLANTS: tuple[Mutation, ...] = (
    # MB-METHOD-5: "an aggregate `Last-Modified` on a collection retrieval equal to the latest
    # `Last-Modified` among the members, when every member has one".
    _plant(
        "aggregate-last-modified-of-last-member",
        "MB-METHOD-5 the aggregate Last-Modified of the last member in the collection's order",
        _last_member,
    ),
    _plant(
        "head-dated-with-last-member",
        "MB-METHOD-5 HEAD of a retrieval dated with the last member in the collection's order",
        _head_of_last_member,
    ),
    _plant(
        "aggregate-last-modified-on-membership-only",
        "MB-METHOD-5 the aggregate Last-Modified moved only when a member comes or goes",
        _membership_only,
    ),
    _plant(
        "aggregate-last-modified-of-creations-after-delete",
        "MB-METHOD-5 after a deletion, the aggregate Last-Modified the members' creation dates",
        _creations_after_delete,
    ),
    _plant(
        "undated-parts-aggregate-of-last-member",
        "MB-METHOD-5 parts without dates, the aggregate the last member's",
        _undated_parts,
    ),
    # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches the
    # aggregate one"; spec 5.2: evaluated "against the aggregate validators".
    _plant(
        "collection-ims-against-last-member",
        "MB-STATUS-7 If-Modified-Since evaluated against the last member's date",
        _ims_against_last_member,
    ),
    # Spec 4.2: "Each part may carry the member's own `ETag` and `Last-Modified`".
    _plant(
        "collection-parts-dated-with-aggregate",
        "MB-METHOD-4 each part dated with the aggregate Last-Modified",
        _parts_dated_with_aggregate,
    ),
    # Spec 4.2: "The aggregate tag must change whenever a member is added, removed, reordered
    # or changed".
    _plant(
        "aggregate-etag-of-last-member",
        "MB-METHOD-7 the aggregate ETag of the member count and the last member's tag",
        _etag_of_last_member,
    ),
)
