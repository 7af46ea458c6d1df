"""The content codings a batch may arrive in: identity (or none) goes on; any other coding is
answered 415 with ``Accept-Encoding`` naming what is accepted (MB-INTER-4, RFC 9110 §15.5.16)."""

from __future__ import annotations

import json

import pytest

from mixbatch._http.content_coding import refuse_content_coding


@pytest.mark.parametrize("coding", [None, "identity", " Identity "])
def test_no_coding_or_identity_goes_on(coding: str | None) -> None:
    assert refuse_content_coding(coding) is None


@pytest.mark.parametrize("coding", ["gzip", "br", "identity, gzip"])
def test_any_other_coding_is_refused_with_415_and_accept_encoding(coding: str) -> None:
    response = refuse_content_coding(coding)
    assert response is not None
    assert response.status == 415
    assert response.header("Accept-Encoding") == "identity"
    assert isinstance(response.body, bytes)
    document = json.loads(response.body)
    assert document["requirement"] == "MB-INTER-4"
    assert repr(coding) in document["detail"]
