"""Refusals the reference server and the proxy give alike, before any application logic."""

from __future__ import annotations

import json

from mixbatch._http import Request, refuse_content_coding, refuse_get_with_content
from mixbatch._http.messages import BytesBody
from mixbatch._http.refusals import SINGLETON_FIELDS, refuse_repeated_field
from mixbatch.codec import Fields


def _type(body: object) -> str:
    assert isinstance(body, bytes)
    return str(json.loads(body)["type"]).rsplit("/", 1)[-1]


def test_a_repeated_singleton_field_is_400_and_a_single_one_passes() -> None:
    assert "Content-Type" in SINGLETON_FIELDS
    assert refuse_repeated_field(Fields([("Content-Type", "a/b")])) is None
    refused = refuse_repeated_field(Fields([("Content-Type", "a/b"), ("content-type", "a/b")]))
    assert refused is not None
    assert refused.status == 400
    assert _type(refused.body) == "repeated-field"


def test_a_get_with_content_is_400_citing_mb_method_3() -> None:
    with_content = Request("GET", "/batch", Fields(), BytesBody(b"x"))
    refused = refuse_get_with_content(with_content)
    assert refused is not None
    assert refused.status == 400
    assert isinstance(refused.body, bytes)
    assert json.loads(refused.body)["requirement"] == "MB-METHOD-3"
    assert refuse_get_with_content(Request("GET", "/batch", Fields(), BytesBody(b""))) is None


def test_a_content_coding_other_than_identity_is_415_with_accept_encoding() -> None:
    assert refuse_content_coding([]) is None
    assert refuse_content_coding([" Identity "]) is None
    refused = refuse_content_coding(["gzip"])
    assert refused is not None
    assert refused.status == 415
    assert refused.header("Accept-Encoding") == "identity"
