"""The blocking client's I/O adapter: ``SocketTransport`` keeps one keep-alive connection on
loopback and reopens it when the server closed it, ``drive`` closes the transport when a stream
is abandoned, and ``ResponseStream`` yields sub-responses in order and its result at the end."""

from __future__ import annotations

import socket

import pytest

from mixbatch.client import Batch, BatchClient, TransportError
from mixbatch.client._sync import ResponseStream, SocketTransport

from .loopback import LoopbackOrigin
from .scripted import ScriptedTransport, batch_reply, echo_parts


def _batch(*targets: str) -> Batch:
    batch = Batch()
    for target in targets:
        batch.get(target)
    return batch


def _client(url: str) -> BatchClient:
    return BatchClient(url, discover=False, timeout=5.0)


def _targets(client: BatchClient, batch: Batch) -> list[str]:
    return [response.text() for response in client.send(batch)]


def test_batches_share_one_keep_alive_connection() -> None:
    with LoopbackOrigin([batch_reply(echo_parts)] * 2) as origin, _client(origin.url) as client:
        assert _targets(client, _batch("/a", "/b")) == ["/a", "/b"]
        assert _targets(client, _batch("/c")) == ["/c"]
        assert origin.accepted == 1
        assert isinstance(client.transport, SocketTransport)
        assert client.transport.connections_opened == 1


def test_a_connection_the_server_closed_while_idle_is_reopened() -> None:
    script = [batch_reply(echo_parts)] * 2
    with LoopbackOrigin(script, close_after=1) as origin, _client(origin.url) as client:
        assert _targets(client, _batch("/a")) == ["/a"]
        origin.wait_closed()
        assert _targets(client, _batch("/b")) == ["/b"]
        assert origin.accepted == 2


def test_a_response_with_connection_close_ends_the_connection() -> None:
    closing = batch_reply(echo_parts, close_delimiter=True)

    def with_close(request: object) -> bytes:
        raw = closing(request)  # type: ignore[arg-type]
        head, _, body = raw.partition(b"\r\n\r\n")
        return head + b"\r\nConnection: close\r\n\r\n" + body

    with (
        LoopbackOrigin([with_close, batch_reply(echo_parts)]) as origin,
        _client(origin.url) as client,
    ):
        assert _targets(client, _batch("/a")) == ["/a"]
        assert _targets(client, _batch("/b")) == ["/b"]
        assert origin.accepted == 2


def test_a_refused_connection_is_a_transport_error() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    with (
        _client(f"http://127.0.0.1:{port}/batch") as client,
        pytest.raises(TransportError, match="cannot connect"),
    ):
        client.send(_batch("/a"))


def _scripted_client() -> tuple[BatchClient, ScriptedTransport]:
    client = BatchClient("http://example.test/batch", discover=False)
    transport = ScriptedTransport([batch_reply(echo_parts)])
    client.transport = transport
    return client, transport


def test_stream_yields_sub_responses_in_order_then_its_result() -> None:
    client, transport = _scripted_client()
    stream = client.stream(_batch("/a", "/b", "/c"))
    assert [response.index for response in stream] == [0, 1, 2]
    assert [response.text() for response in stream.result] == ["/a", "/b", "/c"]
    # A stream read to its end leaves the keep-alive connection open.
    assert transport.closed == 0


def test_result_before_the_stream_ends_is_an_error() -> None:
    client, _ = _scripted_client()
    stream = client.stream(_batch("/a", "/b"))
    assert next(stream).index == 0
    with pytest.raises(RuntimeError, match="not been read to its end"):
        _ = stream.result
    stream.close()


def test_an_abandoned_stream_closes_the_connection() -> None:
    client, transport = _scripted_client()
    with client.stream(_batch("/a", "/b", "/c")) as stream:
        assert isinstance(stream, ResponseStream)
        assert next(stream).text() == "/a"
    # Unread octets remain on the connection: it cannot be reused.
    assert transport.closed == 1
