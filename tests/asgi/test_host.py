"""The middleware refuses a batch whose Host is invalid or empty, which an ASGI server passes on
unchecked (spec 3.2.2), and an empty-host part target under any Host (spec 8.3)."""

from __future__ import annotations

import pytest

from ._exchange import batch, call, problem
from .app import make_batched_app


@pytest.mark.parametrize("host", ["a b", "x:y:z", "", "a/b"])
def test_an_invalid_or_empty_host_is_400(host: str) -> None:
    headers, body = batch(("GET", "/books/1", [], b""))
    response = call(make_batched_app(), "POST", "/batch", {**headers, "Host": host}, body)
    assert response.status_code == 400
    document = problem(response)
    assert document["type"] == "https://mixbatch.dev/problems/invalid-host"
    assert document["requirement"] == "MB-PART-5"


def test_a_valid_host_is_run() -> None:
    headers, body = batch(("GET", "/books/1", [], b""))
    response = call(make_batched_app(), "POST", "/batch", {**headers, "Host": "h:8080"}, body)
    assert response.status_code == 200


def test_an_empty_host_part_target_matches_no_batch() -> None:
    headers, body = batch(("GET", "http:///books/1", [], b""))
    response = call(make_batched_app(), "POST", "/batch", headers, body)
    assert response.status_code == 400
    assert problem(response)["requirement"] == "MB-SUB-2"
