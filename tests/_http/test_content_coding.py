"""The content codings a batch may arrive in: none or identity goes on; any other coding, as any
member of any Content-Encoding field line, is answered 415 with ``Accept-Encoding`` naming what
is accepted (MB-INTER-6, RFC 9110 §15.5.16), its problem document naming MB-WIRE-2 (spec 5.3)."""

from __future__ import annotations

import json

import pytest

from mixbatch._http.content_coding import refuse_content_coding, unsupported_codings


@pytest.mark.parametrize(
    "lines", [[], ["identity"], [" Identity "], ["identity, identity"], ["identity,", "identity"]]
)
def test_no_coding_or_identity_goes_on(lines: list[str]) -> None:
    assert refuse_content_coding(lines) is None


@pytest.mark.parametrize(
    ("lines", "unsupported"),
    [
        (["gzip"], ["gzip"]),
        (["br"], ["br"]),
        (["identity, gzip"], ["gzip"]),
        (["gzip, identity"], ["gzip"]),
        (["identity", "gzip"], ["gzip"]),
        (["identity", " X-Other , identity"], ["x-other"]),
    ],
)
def test_any_other_coding_on_any_line_is_refused_with_415_and_accept_encoding(
    lines: list[str], unsupported: list[str]
) -> None:
    assert unsupported_codings(lines) == unsupported
    response = refuse_content_coding(lines)
    assert response is not None
    assert response.status == 415
    assert response.header("Accept-Encoding") == "identity"
    assert isinstance(response.body, bytes)
    document = json.loads(response.body)
    assert document["requirement"] == "MB-WIRE-2"
    assert ", ".join(unsupported) in document["detail"]
