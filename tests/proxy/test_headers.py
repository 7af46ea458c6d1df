"""The proxy's header rules: what crosses a hop, and the batch-on-error preference."""

from __future__ import annotations

import pytest

from mixbatch.proxy._headers import batch_on_error, end_to_end


def test_hop_by_hop_framing_and_connection_named_fields_do_not_cross() -> None:
    fields = [
        ("Connection", "close, X-Hop"),
        ("X-Hop", "1"),
        ("Keep-Alive", "timeout=5"),
        ("Transfer-Encoding", "chunked"),
        ("Content-Length", "3"),
        ("Accept", "text/plain"),
        ("X-Drop", "1"),
    ]
    assert end_to_end(fields, drop=("x-drop",)) == [("Accept", "text/plain")]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], None),
        (["batch-on-error=stop"], "stop"),
        (["Batch-On-Error=STOP"], "stop"),
        (["respond-async", "batch-on-error=continue"], "continue"),
        (["batch-on-error=sometimes"], None),
        (['batch-on-error="stop"'], "stop"),
    ],
)
def test_batch_on_error_is_read_in_any_case_and_an_unknown_value_is_absent(
    values: list[str], expected: str | None
) -> None:
    assert batch_on_error(values) == expected
