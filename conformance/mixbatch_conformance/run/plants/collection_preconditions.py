"""Planted violations of the preconditions that concern a collection as a whole (spec 5.2,
7.6; RFC 9110 §13.1).

Each plant is a mistake a server makes where no member is the target: a POST to the
collection that never evaluates If-None-Match, If-Match or If-Unmodified-Since, because the
handler that creates a member has no representation of its own to compare with (MB-PROC-9; the
collection, the POST's target, exists, so If-None-Match: * and a foreign If-Match are false,
and so is an If-Unmodified-Since before the date its listing carries); a POST whose
condition is compared with one representation of the collection (its listing, or its
collection retrieval) whatever the Accept selects (RFC 9110 §3.2), or, without an Accept, with
no representation at all, so a tag the collection shows never matches; and an empty
collection that compares If-Modified-Since with the zero time, having no member to take a date
from, so every date reads as "not modified since" and the retrieval is 304 instead of 204, alone
(MB-STATUS-11) or in a part (MB-PROC-9). The relay's reference server keeps its sandbox at
/books and its empty collection at /collections/empty.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import Part, field_of, is_batch
from mixbatch_conformance.run.plants._preconditions import everywhere
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

P = Mutation
#: The reference server's collection that never has a member.
EMPTY = "/collections/empty"
#: An entity tag no representation carries.
NO_TAG = '"mb-plant-no-representation"'


def _post_without(
    name: str,
) -> tuple[Callable[[RelayRequest], None], Callable[[list[Part]], list[Part]]]:
    """A POST, alone or in a part, that reaches the handler without the field `name`."""

    def edit(method: str, fields: FieldList) -> FieldList:
        if method != "POST":
            return fields
        return [(n, v) for n, v in fields if n.lower() != name]

    return everywhere(edit)


def _post_compared_with(
    media: str,
) -> tuple[Callable[[RelayRequest], None], Callable[[list[Part]], list[Part]]]:
    """A POST with a conditional field whose condition the handler compares with the tag of the
    collection's `media` representation, whatever its Accept selects: modelled by handing the
    handler that Accept."""

    def edit(method: str, fields: FieldList) -> FieldList:
        conditional = {n.lower() for n, _ in fields} & {"if-match", "if-none-match"}
        if method != "POST" or not conditional:
            return fields
        return [*((n, v) for n, v in fields if n.lower() != "accept"), ("Accept", media)]

    return everywhere(edit)


def _post_without_accept_compared_with_nothing(method: str, fields: FieldList) -> FieldList:
    """A POST without Accept whose handler selects no representation to compare a tag with:
    modelled by handing it a tag no representation carries."""
    names = {n.lower() for n, _ in fields}
    if method != "POST" or "accept" in names:
        return fields
    return [
        (n, NO_TAG if n.lower() in ("if-match", "if-none-match") and v.strip() != "*" else v)
        for n, v in fields
    ]


_NO_INM_ALONE, _NO_INM_PARTS = _post_without("if-none-match")
_NOTHING_ALONE, _NOTHING_PARTS = everywhere(_post_without_accept_compared_with_nothing)
_LISTING_ALONE, _LISTING_PARTS = _post_compared_with("application/json")
_RETRIEVAL_ALONE, _RETRIEVAL_PARTS = _post_compared_with("multipart/mixed")
_NO_IM_ALONE, _NO_IM_PARTS = _post_without("if-match")
_NO_IUS_ALONE, _NO_IUS_PARTS = _post_without("if-unmodified-since")


def _empty_304_for_any_date(req: RelayRequest, resp: RelayResponse) -> None:
    """An empty collection whose date is the zero time: any If-Modified-Since holds, 304."""
    if (
        not is_batch(req)
        and req.method in ("GET", "HEAD")
        and "multipart" in (req.get("Accept") or "").lower()
        and resp.status == 204
        and req.get("If-Modified-Since")
        and not req.get("If-None-Match")
    ):
        resp.status = 304


def _empty_part_304_for_any_date(parts: list[Part]) -> list[Part]:
    """The same mistake on the path parts take: a retrieval part of the empty collection with
    If-Modified-Since reads as not modified, which the server answers as If-None-Match: *
    (true for a collection that exists: 304)."""
    out: list[Part] = []
    for fields, body in parts:
        method = (field_of(fields, "Http-Method") or "").upper()
        if (
            method in ("GET", "HEAD")
            and (field_of(fields, "Content-Id") or "").strip("<> ") == EMPTY
            and field_of(fields, "If-Modified-Since")
            and not field_of(fields, "If-None-Match")
        ):
            fields = [
                ("If-None-Match", "*") if n.lower() == "if-modified-since" else (n, v)
                for n, v in fields
            ]
        out.append((fields, body))
    return out


PLANTS: tuple[Mutation, ...] = (
    # MB-PROC-9 (RFC 9110 §13.1.2): If-None-Match: * on a POST to a collection that exists is
    # false, 412, and nothing is created.
    P(
        "collection-post-ignores-if-none-match",
        "MB-PROC-9 If-None-Match: * on a POST to the collection",
        ("conditional-post-to-collection",),
        on_request=_NO_INM_ALONE,
        on_request_parts=_NO_INM_PARTS,
    ),
    # MB-PROC-9 (RFC 9110 §13.1.4): an If-Unmodified-Since before the date of the collection's
    # selected representation is false; a handler that gives the collection no date never
    # finds it so.
    P(
        "collection-post-ignores-if-unmodified-since",
        "MB-PROC-9 a past If-Unmodified-Since on a POST to the collection",
        ("conditional-post-to-collection",),
        on_request=_NO_IUS_ALONE,
        on_request_parts=_NO_IUS_PARTS,
    ),
    # MB-PROC-9 (RFC 9110 §13.1.1): an If-Match naming no tag of the collection is false.
    P(
        "collection-post-ignores-if-match",
        "MB-PROC-9 a foreign If-Match on a POST to the collection",
        ("conditional-post-to-collection",),
        on_request=_NO_IM_ALONE,
        on_request_parts=_NO_IM_PARTS,
    ),
    # MB-PROC-9 (RFC 9110 §3.2, §13.1): a POST's condition compares with the representation a
    # GET with its Accept selects, not with one representation of the collection always.
    P(
        "collection-post-compared-with-listing-tag",
        "MB-PROC-9 a POST's condition compared with the collection's listing whatever its Accept",
        ("conditional-post-compares-selected-representation",),
        on_request=_LISTING_ALONE,
        on_request_parts=_LISTING_PARTS,
    ),
    P(
        "collection-post-compared-with-retrieval-tag",
        "MB-PROC-9 a POST's condition compared with the collection retrieval whatever its Accept",
        ("conditional-post-compares-selected-representation",),
        on_request=_RETRIEVAL_ALONE,
        on_request_parts=_RETRIEVAL_PARTS,
    ),
    P(
        "collection-post-without-accept-compared-with-nothing",
        "MB-PROC-9 a POST without Accept compares its condition with no representation",
        ("conditional-post-compares-selected-representation",),
        on_request=_NOTHING_ALONE,
        on_request_parts=_NOTHING_PARTS,
    ),
    # MB-STATUS-11 (spec 5.2): a conditional retrieval is evaluated as RFC 9110 §13.2.2 does;
    # an empty collection has no date, so If-Modified-Since leaves it 204 (§13.1.3).
    P(
        "empty-collection-304-for-any-date",
        "MB-STATUS-11 If-Modified-Since on an empty collection compared with the zero time",
        ("collection-head-and-empty-conditional",),
        on_response=_empty_304_for_any_date,
    ),
    P(
        "empty-collection-part-304-for-any-date",
        "MB-PROC-9 If-Modified-Since on a retrieval part of an empty collection",
        ("collection-retrieval-in-part",),
        on_request_parts=_empty_part_304_for_any_date,
    ),
)
