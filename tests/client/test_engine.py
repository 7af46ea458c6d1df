"""The client's protocol logic against scripted responses: splitting, retries, fallback,
content codings, aborts and incomplete batches. No sockets; every byte goes through the real
HTTP/1.1 and multipart code."""

from __future__ import annotations

import pytest

from mixbatch.client import (
    Batch,
    BatchClient,
    BatchProtocolError,
    BatchRejected,
    RetryPolicy,
    TruncatedResponse,
)

from .scripted import (
    PartSpec,
    Received,
    Responder,
    ScriptedTransport,
    batch_reply,
    capabilities,
    echo_parts,
    parse_batch_request,
    plain,
)


def client_with(
    script: list[Responder], **options: object
) -> tuple[BatchClient, ScriptedTransport, list[float]]:
    slept: list[float] = []
    client = BatchClient("http://example.test/batch", sleep=slept.append, **options)  # type: ignore[arg-type]
    transport = ScriptedTransport(script)
    client.transport = transport
    return client, transport, slept


def gets(*targets: str) -> Batch:
    batch = Batch()
    for target in targets:
        batch.get(target)
    return batch


def test_sends_one_batch_and_correlates_answers_by_position() -> None:
    client, transport, _ = client_with([capabilities(), batch_reply(echo_parts)])
    result = client.send(gets("/a", "b", "/c?x=1"))
    assert [r.body for r in result] == [b"/a", b"b", b"/c?x=1"]
    assert [r.index for r in result] == [0, 1, 2]
    assert result.status == 200
    assert result.mode == "batch"
    batch_post = transport.sent[1]
    assert dict(batch_post.headers)["Cache-Control"] == "no-transform"
    assert [p[:2] for p in parse_batch_request(batch_post)] == [
        ("GET", "/a"),
        ("GET", "b"),
        ("GET", "/c?x=1"),
    ]


def test_splits_a_batch_over_max_parts_into_batches_in_order() -> None:
    script = [capabilities(max_parts=2)] + [batch_reply(echo_parts)] * 3
    client, transport, _ = client_with(script)
    result = client.send(gets("/0", "/1", "/2", "/3", "/4"))
    assert [r.body for r in result] == [b"/0", b"/1", b"/2", b"/3", b"/4"]
    sizes = [len(parse_batch_request(r)) for r in transport.sent[1:]]
    assert sizes == [2, 2, 1]
    assert [e.parts for e in result.envelopes] == [(0, 1), (2, 3), (4,)]


def test_splits_by_max_batch_bytes_and_keeps_every_batch_within_it() -> None:
    limit = 600
    script = [capabilities(max_batch_bytes=limit)] + [batch_reply(echo_parts)] * 10
    client, transport, _ = client_with(script)
    batch = Batch()
    for i in range(6):
        batch.post(f"/p{i}", body=b"x" * 150)
    result = client.send(batch)
    assert len(result) == 6
    assert all(r.status == 200 for r in result)
    posts = transport.sent[1:]
    assert len(posts) > 1
    assert all(len(r.body) <= limit for r in posts)


def test_sends_a_part_over_max_part_bytes_as_a_standalone_request() -> None:
    script = [
        capabilities(max_part_bytes=100),
        batch_reply(echo_parts),
        plain(201, b"made"),
        batch_reply(echo_parts),
    ]
    client, transport, _ = client_with(script)
    batch = gets("/a").post("/big", body=b"y" * 101).get("/c")
    result = client.send(batch)
    assert [(r.status, r.body) for r in result] == [(200, b"/a"), (201, b"made"), (200, b"/c")]
    standalone = transport.sent[2]
    assert (standalone.method, standalone.target, standalone.body) == ("POST", "/big", b"y" * 101)


def test_removes_gzip_content_coding_before_parsing() -> None:
    client, _, _ = client_with([capabilities(), batch_reply(echo_parts, coding="gzip")])
    result = client.send(gets("/zipped", "/too"))
    assert [r.body for r in result] == [b"/zipped", b"/too"]


def test_incomplete_batch_raises_and_keeps_the_parts_that_arrived() -> None:
    client, transport, _ = client_with(
        [capabilities(), batch_reply(echo_parts, close_delimiter=False)]
    )
    with pytest.raises(TruncatedResponse) as caught:
        client.send(gets("/a", "/b", "/c"))
    error = caught.value
    # The last part has no delimiter after it, so it did not arrive whole (MB-WIRE-14).
    assert [r.body for r in error.responses] == [b"/a", b"/b"]
    assert error.missing == (2,)
    assert "MB-WIRE-14" in str(error)
    assert "parts 0, 1 arrived" in str(error)
    assert transport.closed == 1


def test_stream_yields_earlier_parts_before_an_incomplete_batch_fails() -> None:
    client, _, _ = client_with([capabilities(), batch_reply(echo_parts, close_delimiter=False)])
    stream = client.stream(gets("/a", "/b", "/c"))
    seen = [next(stream).body, next(stream).body]
    with pytest.raises(TruncatedResponse):
        next(stream)
    assert seen == [b"/a", b"/b"]


def test_after_an_abort_part_retries_only_idempotent_parts() -> None:
    script = [
        capabilities(),
        batch_reply(echo_parts, abort_at=1),
        batch_reply(echo_parts),
    ]
    client, transport, _ = client_with(script)
    batch = gets("/a").post("/unsafe", body=b"1").get("/safe")
    result = client.send(batch)
    assert result[0].body == b"/a"
    assert (result[1].status, result[1].outcome) == (None, "unknown")
    assert (result[2].status, result[2].body, result[2].attempts) == (200, b"/safe", 2)
    assert [p[1] for p in parse_batch_request(transport.sent[2])] == ["/safe"]
    assert result.envelopes[0].aborted is not None
    assert result.summary.unknown == 1


def test_retries_a_503_part_with_retry_after_and_waits_as_told() -> None:
    def first(received: list[Received]) -> list[PartSpec]:
        return [
            (200, None, [], b"ok"),
            (503, None, [("Retry-After", "2")], b"busy"),
            (200, None, [], b"ok"),
        ]

    script = [capabilities(), batch_reply(first), batch_reply(echo_parts)]
    client, transport, slept = client_with(script)
    result = client.send(gets("/a", "/b", "/c"))
    assert [r.status for r in result] == [200, 200, 200]
    assert result[1].attempts == 2
    assert result[0].attempts == 1
    assert slept == [2.0]
    assert [p[1] for p in parse_batch_request(transport.sent[2])] == ["/b"]


def test_does_not_retry_a_429_without_retry_after_or_past_max_delay() -> None:
    def answer(received: list[Received]) -> list[PartSpec]:
        return [(429, None, [], b""), (503, None, [("Retry-After", "3600")], b"")]

    client, transport, slept = client_with([capabilities(), batch_reply(answer)])
    result = client.send(gets("/a", "/b"))
    assert [r.status for r in result] == [429, 503]
    assert slept == []
    assert len(transport.sent) == 2


def test_retry_count_is_bounded() -> None:
    def busy(received: list[Received]) -> list[PartSpec]:
        return [(503, None, [("Retry-After", "0")], b"") for _ in received]

    script = [capabilities()] + [batch_reply(busy)] * 2
    client, transport, _ = client_with(script, retry=RetryPolicy(max_retries=1))
    result = client.send(gets("/a"))
    assert result[0].status == 503
    assert result[0].attempts == 2
    assert len(transport.sent) == 3


def test_skipped_parts_are_retried_with_the_retryable_failure_that_caused_them() -> None:
    def first(received: list[Received]) -> list[PartSpec]:
        return [
            (200, None, [], b""),
            (503, None, [("Retry-After", "0")], b""),
            (None, "skipped", [], b""),
        ]

    script = [capabilities(), batch_reply(first), batch_reply(echo_parts)]
    client, transport, _ = client_with(script)
    result = client.send(gets("/a", "/b", "/c"), stop_on_error=True)
    assert [r.status for r in result] == [200, 200, 200]
    resent = transport.sent[2]
    assert [p[1] for p in parse_batch_request(resent)] == ["/b", "/c"]
    assert ("Prefer", "batch-on-error=stop") in resent.headers


def test_parts_skipped_after_a_final_failure_stay_skipped() -> None:
    def first(received: list[Received]) -> list[PartSpec]:
        return [(404, None, [], b""), (None, "skipped", [], b"")]

    client, transport, _ = client_with([capabilities(), batch_reply(first)])
    result = client.send(gets("/a", "/b"), stop_on_error=True)
    assert [(r.status, r.outcome) for r in result] == [(404, None), (None, "skipped")]
    assert len(transport.sent) == 2


def test_stop_policy_carries_across_split_batches() -> None:
    def fail_second(received: list[Received]) -> list[PartSpec]:
        return [(200, None, [], b""), (500, None, [], b"")]

    script = [capabilities(max_parts=2), batch_reply(fail_second)]
    client, transport, _ = client_with(script)
    result = client.send(gets("/a", "/b", "/c", "/d"), stop_on_error=True)
    assert [r.outcome for r in result] == [None, None, "skipped", "skipped"]
    assert len(transport.sent) == 2  # the second batch was never sent


@pytest.mark.parametrize("status", [404, 405, 415])
def test_falls_back_to_standalone_requests_pipelined_when_all_are_safe(status: int) -> None:
    script = [plain(404), plain(status), plain(200, b"A"), plain(404, b"B"), plain(200, b"C")]
    client, transport, _ = client_with(script, headers={"Authorization": "Bearer t"})
    result = client.send(gets("/a", "b", "/c"))
    assert [(r.status, r.body) for r in result] == [(200, b"A"), (404, b"B"), (200, b"C")]
    assert result.mode == "pipelined"
    assert result.status is None
    assert transport.sends[-1] == 3  # one write held all three requests
    standalone = transport.sent[2:]
    assert [r.target for r in standalone] == ["/a", "/b", "/c"]
    # MB-SUB-5 applied by the client: the outer Authorization reaches each request.
    assert all(("Authorization", "Bearer t") in r.headers for r in standalone)
    assert client.state.batching is False


def test_falls_back_one_by_one_when_a_part_is_unsafe_and_stops_on_error() -> None:
    script = [plain(404), plain(404), plain(201, b"made"), plain(409, b"clash")]
    client, transport, _ = client_with(script)
    batch = Batch().post("/x", body=b"1").put("/y", body=b"2").get("/z")
    result = client.send(batch, stop_on_error=True)
    assert [(r.status, r.outcome) for r in result] == [(201, None), (409, None), (None, "skipped")]
    assert result.mode == "sequential"
    assert transport.sends[1:] == [1, 1, 1]


def test_a_rejected_batch_raises_with_its_problem_document() -> None:
    problem = b'{"type":"https://mixbatch.dev/problems/x","title":"t","status":400,"detail":"bad","requirement":"MB-WIRE-8"}'
    script = [capabilities(), plain(400, problem, [("Content-Type", "application/problem+json")])]
    client, _, _ = client_with(script)
    with pytest.raises(BatchRejected) as caught:
        client.send(gets("/a"))
    assert caught.value.status == 400
    assert caught.value.problem is not None
    assert caught.value.problem["requirement"] == "MB-WIRE-8"
    assert "MB-WIRE-8" in str(caught.value)


def test_a_whole_batch_503_with_retry_after_is_sent_again() -> None:
    script = [capabilities(), plain(503, b"", [("Retry-After", "1")]), batch_reply(echo_parts)]
    client, _, slept = client_with(script)
    result = client.send(gets("/a"))
    assert result[0].body == b"/a"
    assert slept == [1.0]


def test_a_response_with_fewer_parts_than_requests_is_a_protocol_error() -> None:
    def short(received: list[Received]) -> list[PartSpec]:
        return [(200, None, [], b"")]

    client, _, _ = client_with([capabilities(), batch_reply(short)])
    with pytest.raises(BatchProtocolError) as caught:
        client.send(gets("/a", "/b"))
    assert caught.value.requirement == "MB-RESP-1"


def test_discovery_happens_once_per_client() -> None:
    script = [capabilities(), batch_reply(echo_parts), batch_reply(echo_parts)]
    client, transport, _ = client_with(script)
    client.send(gets("/a"))
    client.send(gets("/b"))
    assert [r.method for r in transport.sent] == ["OPTIONS", "POST", "POST"]


def test_an_atomic_batch_over_the_limits_is_refused_locally() -> None:
    client, transport, _ = client_with([capabilities(max_parts=1)])
    with pytest.raises(ValueError, match="atomic"):
        client.send(gets("/a", "/b"), atomic=True)
    assert [r.method for r in transport.sent] == ["OPTIONS"]


def test_refuses_a_target_that_leaves_the_origin_before_sending() -> None:
    client, transport, _ = client_with([])
    with pytest.raises(ValueError, match="//elsewhere"):
        client.send(gets("//elsewhere/x"))
    assert transport.sent == []


def test_reads_a_sub_response_with_more_fields_than_a_server_takes_in_a_request_part() -> None:
    many = [(f"X-Field-{n}", str(n)) for n in range(250)]

    def wide(received: list[tuple[str, str, bytes]]) -> list[PartSpec]:
        return [(200, None, list(many), b"ok") for _ in received]

    client, _, _ = client_with([capabilities(), batch_reply(wide)])
    [response] = client.send(gets("/wide"))
    assert response.status == 200
    assert response.body == b"ok"
    assert [f for f in response.headers if f[0].startswith("X-Field-")] == many
