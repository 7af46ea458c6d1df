"""The client's errors: names that say what they are, distinct from the codec's."""

from __future__ import annotations

import mixbatch.client
import mixbatch.codec
from mixbatch.client import BatchProtocolError, SubResponse, TruncatedResponse


def test_no_client_name_means_something_else_in_the_codec() -> None:
    shared = set(mixbatch.client.__all__) & set(mixbatch.codec.__all__)
    for name in shared:
        assert getattr(mixbatch.client, name) is getattr(mixbatch.codec, name), name


def test_truncated_response_names_the_parts_without_an_answer() -> None:
    arrived = (SubResponse(0, 200),)
    error = TruncatedResponse(arrived, (1, 2))
    assert isinstance(error, BatchProtocolError)
    assert error.requirement == "MB-WIRE-14"
    assert error.responses == arrived
    assert error.missing == (1, 2)
    assert "parts 0 arrived whole, the outcome of parts 1, 2 is unknown" in str(error)
