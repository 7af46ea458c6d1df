"""References between the parts of one batch (§7.7), tested on the pure module: which text is a
reference, the envelope check that refuses a reference looking forward (MB-PROC-19), and the
substitution of earlier results (MB-PROC-18) or ``Unresolved`` when one names nothing
(MB-PROC-20)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import pytest

from mixbatch.codec import Fields
from mixbatch.envelope import Part
from mixbatch.references import Earlier, Unresolved, check, malformed_in, references_in, resolve

ORIGIN = {"base": "/batch", "scheme": "http", "authority": "example.test"}


@dataclass
class _Part:
    """What the reference code reads of an envelope part."""

    index: int
    content_id: str
    fields: Sequence[tuple[str, str]] = ()


def _part(index: int, content_id: str, *fields: tuple[str, str]) -> Part:
    return cast(Part, _Part(index, content_id, fields))


CREATED = Earlier(201, None, "/orders", [("Location", "/orders/7"), ("ETag", '"v1"')])


def _resolve(part: Part, *results: Earlier) -> tuple[str, Fields] | None:
    return resolve(part, list(results), batch_paths={"/batch"}, **ORIGIN)


def test_references_in_finds_each_reference_with_its_index_and_field() -> None:
    text = "/orders/$(0)/lines?etag=$(12:ETag)&x=$(3"
    assert references_in(text) == [("$(0)", 0, None), ("$(12:ETag)", 12, "ETag")]


@pytest.mark.parametrize("text", ["$$(0)", "$(01)", "$(-1)", "$()", "$(0:)", "$ (0)", "price $5"])
def test_text_that_is_not_a_reference_names_nothing(text: str) -> None:
    assert references_in(text) == []


@pytest.mark.parametrize(
    ("text", "malformed"),
    [
        ("$$(0) $$(x) price $5 $$ $", None),
        ("$$$(0)", None),
        ("/orders/$(0)/lines?etag=$(12:ETag)", None),
        ("$(x)", "$(x)"),
        ("a $(01) b", "$(01) b"),
        ("$()", "$()"),
        ("$(1", "$(1"),
        ("$(0:bad name)", "$(0:bad name)"),
        ("$(0:)", "$(0:)"),
        ("$(0) $(-1)", "$(-1)"),
    ],
)
def test_a_dollar_paren_that_begins_no_reference_is_malformed(
    text: str, malformed: str | None
) -> None:
    """Spec 7.7: "`$$(` stands for a literal `$(`, and is the only way to write one ... Every
    other `$(` must begin a `reference`"; read left to right, `$$(` taken before `$(`."""
    assert malformed_in(text) == malformed


@pytest.mark.parametrize("value", ["$(x)", "$(01)", "$()", "$(1", "$(0:bad name)"])
def test_check_refuses_a_malformed_reference(value: str) -> None:
    error = check([_part(0, "/orders"), _part(1, "/x", ("X-Ref", value))])
    assert error is not None
    problem = error.to_problem()
    assert (problem["status"], problem["requirement"], problem["part_index"]) == (
        400,
        "MB-PROC-19",
        1,
    )


def test_a_reference_with_an_index_of_many_digits_names_no_part() -> None:
    error = check([_part(0, "/orders"), _part(1, "$(" + "9" * 5000 + ")")])
    assert error is not None
    assert error.to_problem()["requirement"] == "MB-PROC-19"


def test_check_accepts_references_that_look_back() -> None:
    parts = [_part(0, "/orders"), _part(1, "$(0)/lines", ("If-Match", "$(0:ETag)"))]
    assert check(parts) is None


@pytest.mark.parametrize(
    "part",
    [
        _part(1, "$(1)"),
        _part(1, "$(2)"),
        _part(1, "/x", ("If-Match", "$(5:ETag)")),
        _part(1, "$(0:ETag)"),
    ],
    ids=["itself", "later", "missing-part-in-a-field", "field-name-in-content-id"],
)
def test_check_refuses_a_reference_forward_or_with_a_field_in_the_content_id(part: Part) -> None:
    error = check([_part(0, "/orders"), part])
    assert error is not None
    problem = error.to_problem()
    assert problem["status"] == 400
    assert problem["requirement"] == "MB-PROC-19"
    assert problem["part_index"] == 1


def test_resolve_leaves_a_part_without_references_alone() -> None:
    assert _resolve(_part(1, "/plain", ("X", "$ not a reference")), CREATED) is None


def test_resolve_substitutes_a_location_in_origin_form_and_fields_as_received() -> None:
    part = _part(1, "$(0)/lines", ("If-Match", "$(0:ETag)"), ("X-Where", "at $(0)"))
    target, fields = _resolve(part, CREATED) or ("", Fields())
    assert target == "/orders/7/lines"
    assert list(fields) == [("If-Match", '"v1"'), ("X-Where", "at /orders/7")]


def test_resolve_resolves_a_relative_location_against_the_earlier_target() -> None:
    earlier = Earlier(201, None, "/shop/orders/", [("Location", "7?v=2")])
    resolved = _resolve(_part(1, "$(0)"), earlier)
    assert resolved is not None
    assert resolved[0] == "/shop/orders/7?v=2"


def test_resolve_accepts_an_absolute_location_on_the_batch_origin() -> None:
    earlier = Earlier(201, None, "/orders", [("Location", "http://EXAMPLE.test/orders/9")])
    resolved = _resolve(_part(1, "$(0)"), earlier)
    assert resolved is not None
    assert resolved[0] == "/orders/9"


def test_an_escaped_reference_is_a_literal() -> None:
    resolved = _resolve(_part(1, "/echo", ("X-Literal", "$$(0) and $(0)")), CREATED)
    assert resolved is not None
    assert list(resolved[1]) == [("X-Literal", "$(0) and /orders/7")]


@pytest.mark.parametrize(
    ("earlier", "reference", "why"),
    [
        (Earlier(None, "skipped", "/orders", []), "$(0)", "did not run"),
        (Earlier(201, "rolled-back", "/orders", [("Location", "/o/1")]), "$(0)", "did not run"),
        (Earlier(409, None, "/orders", [("Location", "/o/1")]), "$(0)", "failed with 409"),
        (Earlier(200, None, "/orders", []), "$(0)", "0 Location field lines"),
        (Earlier(201, None, "/o", [("ETag", "a"), ("etag", "b")]), "$(0:ETag)", "2 ETag"),
        (
            Earlier(201, None, "/orders", [("Location", "http://elsewhere.test/o/1")]),
            "$(0)",
            "another origin",
        ),
    ],
    ids=["skipped", "outcome", "failed", "no-location", "two-lines", "off-origin"],
)
def test_a_reference_that_names_nothing_is_unresolved(
    earlier: Earlier, reference: str, why: str
) -> None:
    part = _part(1, "/x", ("X-Ref", reference)) if ":" in reference else _part(1, reference)
    with pytest.raises(Unresolved, match=why) as caught:
        _resolve(part, earlier)
    assert caught.value.reference == reference


def test_a_substituted_target_that_is_the_batch_endpoint_is_unresolved() -> None:
    earlier = Earlier(201, None, "/orders", [("Location", "/batch")])
    with pytest.raises(Unresolved, match="batch endpoint"):
        _resolve(_part(1, "$(0)"), earlier)
