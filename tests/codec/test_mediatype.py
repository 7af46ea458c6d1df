"""The batch Content-Type: boundary parameter rules (RFC 2046 §5.1.1, MB-WIRE-2..5)."""

from __future__ import annotations

import re

import pytest

from mixbatch.codec import (
    MIN_RECOMMENDED_BOUNDARY_LENGTH,
    RemoteProtocolError,
    format_batch_content_type,
    make_boundary,
    parse_batch_content_type,
)


@pytest.mark.parametrize(
    ("value", "boundary"),
    [
        ("multipart/mixed; boundary=abc", "abc"),
        ("Multipart/Mixed;BOUNDARY=abc", "abc"),
        ('multipart/mixed; boundary="a b:c=d"', "a b:c=d"),
        ("multipart/mixed; charset=utf-8; boundary=x", "x"),
        ("multipart/mixed; boundary=" + "a" * 70, "a" * 70),
    ],
)
def test_accepts_valid_boundaries(value: str, boundary: str) -> None:
    assert parse_batch_content_type(value) == boundary


@pytest.mark.parametrize(
    "value",
    [
        "multipart/mixed",
        "multipart/mixed; boundary=",
        "multipart/mixed; boundary=" + "a" * 71,
        'multipart/mixed; boundary="ends in space "',
        "multipart/mixed; boundary=a; boundary=b",
        'multipart/mixed; boundary="semi;colon"',
    ],
)
def test_rejects_invalid_boundary_with_400(value: str) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        parse_batch_content_type(value)
    assert (info.value.requirement, info.value.status_hint) == ("MB-WIRE-4", 400)


@pytest.mark.parametrize(
    "value", [None, "", "application/json", "multipart/form-data; boundary=x", "text/plain"]
)
def test_rejects_other_media_types_with_415(value: str | None) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        parse_batch_content_type(value)
    assert (info.value.requirement, info.value.status_hint) == ("MB-WIRE-2", 415)


def test_made_boundaries_are_long_unquoted_and_fresh() -> None:
    made = {make_boundary() for _ in range(200)}
    assert len(made) == 200
    for boundary in made:
        assert len(boundary) >= MIN_RECOMMENDED_BOUNDARY_LENGTH
        assert re.fullmatch(r"[A-Za-z0-9_-]+", boundary)
        assert format_batch_content_type(boundary) == f"multipart/mixed; boundary={boundary}"


def test_quotes_boundaries_that_are_not_tokens() -> None:
    assert format_batch_content_type("a b") == 'multipart/mixed; boundary="a b"'
    assert parse_batch_content_type(format_batch_content_type("a:b=c")) == "a:b=c"
