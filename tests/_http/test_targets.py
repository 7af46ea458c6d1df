"""A standalone request's target reaches applications in origin-form, or is refused with 400."""

from __future__ import annotations

import json

import pytest

from mixbatch._http import Response
from mixbatch._http.targets import absolute_form_authority, origin_form


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/batch", "/batch"),
        ("/books/1?x=1", "/books/1?x=1"),
        ("*", "*"),
        ("http://test/batch", "/batch"),
        ("http://test/books/1?x=1", "/books/1?x=1"),
        ("HTTP://TEST/batch", "/batch"),
    ],
)
def test_origin_form_and_absolute_form_on_this_origin_are_accepted(
    target: str, expected: str
) -> None:
    assert origin_form(target, scheme="http", authority="test") == expected


@pytest.mark.parametrize(
    ("target", "slug"),
    [
        ("batch", "malformed-request"),
        ("?x=1", "malformed-request"),
        ("books/1", "malformed-request"),
        ("http://other.test/batch", "cross-origin-target"),
        ("https://test/batch", "cross-origin-target"),
    ],
)
def test_a_target_in_no_form_or_off_this_origin_is_a_400(target: str, slug: str) -> None:
    refused = origin_form(target, scheme="http", authority="test")
    assert isinstance(refused, Response)
    assert refused.status == 400
    assert isinstance(refused.body, bytes)
    assert json.loads(refused.body)["type"].endswith("/" + slug)


@pytest.mark.parametrize(
    ("target", "authority"),
    [
        ("http://127.0.0.1:8080/batch", "127.0.0.1:8080"),
        ("HTTP://Test/books/1?x=1", "Test"),
        ("http://test?x=1", "test"),
        ("http://[::1]:80/echo", "[::1]:80"),
        ("/batch", None),
        ("*", None),
        ("http:///batch", None),
        ("http://user@test/batch", None),
    ],
)
def test_an_absolute_form_target_names_the_authority_in_place_of_host(
    target: str, authority: str | None
) -> None:
    # RFC 9112 §3.2.2: the origin server "MUST ignore the received Host header field (if any)
    # and instead use the host information of the request-target".
    assert absolute_form_authority(target) == authority
