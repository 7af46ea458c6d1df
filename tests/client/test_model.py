"""Sub-requests, batches and results: checked when built, counted from the parts."""

from __future__ import annotations

import pytest

from mixbatch.client import Batch, BatchResult, EnvelopeInfo, SubRequest, SubResponse, Summary
from mixbatch.client._model import header_pairs, requests_of
from mixbatch.codec import Fields


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"method": "G ET", "target": "/a"}, "method"),
        ({"method": "", "target": "/a"}, "method"),
        ({"method": "GET", "target": ""}, "target"),
        ({"method": "GET", "target": "/a b"}, "target"),
        ({"method": "GET", "target": "/a\r\nX: y"}, "target"),
        ({"method": "GET", "target": "/a", "headers": (("X-A", "v\r\nInjected: 1"),)}, "headers"),
        ({"method": "GET", "target": "/a", "headers": (("Bad Name", "v"),)}, "headers"),
        ({"method": "GET", "target": "/a", "headers": (("X-A", "nul\x00"),)}, "headers"),
    ],
)
def test_a_sub_request_that_could_not_be_written_fails_where_it_is_built(
    kwargs: dict[str, object], field: str
) -> None:
    # MB-SEC-3: a sender fails locally rather than write a broken field.
    with pytest.raises(ValueError, match=rf"SubRequest\.{field}"):
        SubRequest(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "safe", "idempotent"),
    [
        ("GET", True, True),
        ("head", True, True),
        ("PUT", False, True),
        ("DELETE", False, True),
        ("POST", False, False),
        ("PATCH", False, False),
    ],
)
def test_safety_and_idempotence_follow_the_method(
    method: str, safe: bool, idempotent: bool
) -> None:
    request = SubRequest(method, "/a")
    assert (request.safe, request.idempotent) == (safe, idempotent)


def test_batch_methods_chain_and_keep_order() -> None:
    batch = Batch().get("/a").delete("/b").put("/c", body="é").patch("/d", body=b"\x00")
    assert [(r.method, r.target) for r in batch] == [
        ("GET", "/a"),
        ("DELETE", "/b"),
        ("PUT", "/c"),
        ("PATCH", "/d"),
    ]
    assert len(batch) == 4
    assert batch[2].body == "é".encode()
    assert batch.add("options", "*")[4].method == "OPTIONS"


def test_json_content_is_compact_utf8_with_a_content_type() -> None:
    request = Batch().post("/books", json={"title": "Ça"})[0]
    assert request.body == '{"title":"Ça"}'.encode()
    assert request.headers == (("Content-Type", "application/json"),)


def test_json_keeps_a_content_type_the_caller_gave() -> None:
    headers = {"content-type": "application/merge-patch+json"}
    request = Batch().patch("/books/1", json={"year": 1975}, headers=headers)[0]
    assert request.headers == (("content-type", "application/merge-patch+json"),)


def test_body_and_json_together_are_refused() -> None:
    with pytest.raises(ValueError, match="either body= or json="):
        Batch().post("/books", body=b"x", json={})


def test_header_pairs_accept_a_mapping_pairs_or_nothing() -> None:
    assert header_pairs({"A": "1", "B": "2"}) == (("A", "1"), ("B", "2"))
    assert header_pairs([("A", "1"), ("A", "2")]) == (("A", "1"), ("A", "2"))
    assert header_pairs(None) == ()


@pytest.mark.parametrize(
    ("response", "ok"),
    [
        (SubResponse(0, 200), True),
        (SubResponse(0, 399), True),
        (SubResponse(0, 404), False),
        (SubResponse(0, None, outcome="skipped"), False),
        (SubResponse(0, 200, outcome="rolled-back"), False),
        (SubResponse(0, None), False),
    ],
)
def test_ok_means_ran_and_stands_below_400(response: SubResponse, ok: bool) -> None:
    assert response.ok is ok


def test_sub_response_decodes_text_and_json() -> None:
    response = SubResponse(0, 200, body='{"a":"é"}'.encode())
    assert response.text() == '{"a":"é"}'
    assert response.json() == {"a": "é"}


def test_summary_counts_each_kind_from_the_parts() -> None:
    responses = [
        SubResponse(0, 200),
        SubResponse(1, 201),
        SubResponse(2, 404),
        SubResponse(3, 500),
        SubResponse(4, None, outcome="skipped"),
        SubResponse(5, 200, outcome="rolled-back"),
        SubResponse(6, None, outcome="unknown"),
        SubResponse(7, None),
        SubResponse(8, 200, outcome="some-future-outcome"),  # MB-RESP-8: not understood
    ]
    assert Summary.of(responses) == Summary(ok=2, failed=2, skipped=1, rolled_back=1, unknown=3)


def _envelope(mode: str, status: int, parts: tuple[int, ...]) -> EnvelopeInfo:
    return EnvelopeInfo(mode, status, Fields(), parts)


def test_result_status_is_that_of_the_first_batch_that_carried_parts() -> None:
    responses = (SubResponse(0, 200), SubResponse(1, 200))
    split = BatchResult(responses, (_envelope("batch", 200, (0,)), _envelope("batch", 207, (1,))))
    assert (split.status, split.mode) == (200, "batch")
    assert len(split) == 2
    assert split[1] is responses[1]
    assert list(split) == list(responses)


def test_a_result_that_fell_back_has_no_batch_status_and_names_its_mode() -> None:
    refused = _envelope("batch", 404, ())
    sequential = BatchResult((), (refused, _envelope("sequential", 200, (0,))))
    pipelined = BatchResult((), (refused, _envelope("pipelined", 200, (0, 1))))
    assert (sequential.status, sequential.mode) == (None, "sequential")
    assert (pipelined.status, pipelined.mode) == (None, "pipelined")


def test_a_batch_needs_at_least_one_sub_request_of_the_right_type() -> None:
    with pytest.raises(ValueError, match="MB-WIRE-18"):
        requests_of(Batch())
    with pytest.raises(TypeError, match="SubRequest"):
        requests_of([("GET", "/a")])  # type: ignore[list-item]
    assert requests_of(Batch().get("/a")) == (SubRequest("GET", "/a"),)
