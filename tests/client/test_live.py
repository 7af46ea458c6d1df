"""The client against real servers on loopback: the reference server and the Starlette test app
under uvicorn (with and without the batch middleware), through both transports."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from mixbatch.client import AsyncBatchClient, Batch, BatchClient
from mixbatch.client._http1 import HttpRequest
from mixbatch.client._sync import SocketTransport

from ..asgi.app import Gates, make_app, make_batched_app
from .servers import reference_server, uvicorn_server


@pytest.fixture(scope="module")
def reference_url() -> Iterator[str]:
    with reference_server() as url:
        yield url


@pytest.fixture(scope="module")
def gates() -> Gates:
    return Gates()


@pytest.fixture(scope="module")
def batched_url(gates: Gates) -> Iterator[str]:
    with uvicorn_server(make_batched_app(gates)) as url:
        yield url


@pytest.fixture(scope="module")
def plain_url() -> Iterator[str]:
    with uvicorn_server(make_app()) as url:
        yield url


def thesis_batch() -> Batch:
    return (
        Batch()
        .get("/books/1")
        .get("books/999999")
        .post("/books", json={"title": "Batching", "author": "Thesis", "year": 2013})
    )


@pytest.mark.parametrize("server", ["reference_url", "batched_url"])
def test_sync_client_sends_a_batch_and_gets_answers_in_order(
    server: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue(server)
    with BatchClient(f"{url}/batch") as client:
        result = client.send(thesis_batch())
        assert result.status == 200
        assert result.mode == "batch"
        assert [r.status for r in result] == [200, 404, 201]
        assert (result[2].headers.get("Location") or "").startswith("/books/")
        assert result.summary.ok == 2
        assert result.summary.failed == 1
        assert client.state.limits is not None  # learnt by OPTIONS


@pytest.mark.parametrize("server", ["reference_url", "batched_url"])
def test_async_client_gives_the_same_result_shape(
    server: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue(server)

    async def main() -> list[int | None]:
        async with AsyncBatchClient(f"{url}/batch") as client:
            result = await client.send(thesis_batch(), stop_on_error=True)
            return [r.status for r in result] + [None if r.outcome is None else -1 for r in result]

    statuses = asyncio.run(main())
    assert statuses == [200, 404, None, None, None, -1]


def test_sync_stream_yields_part_0_before_the_gated_last_part_is_answered(
    batched_url: str, gates: Gates
) -> None:
    # The last part waits for a gate that only the consumer of part 0 opens: a client that
    # buffered the whole response would never see part 0, and the gate would time out.
    events: list[str] = []
    batch = Batch().get("/books/1").get("/gate/sync-stream")
    with BatchClient(f"{batched_url}/batch") as client:
        for response in client.stream(batch):
            events.append(f"part {response.index}")
            if response.index == 0:
                gates.open("sync-stream")
        assert events == ["part 0", "part 1"]
        assert response.json() == {"released": True}


def test_async_stream_yields_part_0_before_the_gated_last_part_is_answered(
    batched_url: str, gates: Gates
) -> None:
    async def main() -> list[object]:
        seen: list[object] = []
        async with AsyncBatchClient(f"{batched_url}/batch") as client:
            async for response in client.stream(Batch().get("/books/2").get("/gate/async-stream")):
                seen.append(response.index)
                if response.index == 0:
                    gates.open("async-stream")
                else:
                    seen.append(response.json())
        return seen

    assert asyncio.run(main()) == [0, 1, {"released": True}]


class RecordingTransport(SocketTransport):
    """Notes, in one event list, every response chunk read and every part yielded."""

    def __init__(self, *args: object, events: list[tuple[str, bytes]]) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.events = events

    def read_body(self) -> bytes:
        data = super().read_body()
        self.events.append(("read", data))
        return data


def test_stream_yields_the_first_part_before_a_delayed_last_part_arrives(
    batched_url: str,
) -> None:
    events: list[tuple[str, bytes]] = []
    with BatchClient(f"{batched_url}/batch") as client:
        client.transport = RecordingTransport(client.endpoint, 30.0, events=events)
        for response in client.stream(Batch().get("/books/1").get("/delay/300")):
            events.append(("yield", str(response.index).encode()))
    first_yield = events.index(("yield", b"0"))
    received_before = b"".join(data for kind, data in events[:first_yield] if kind == "read")
    received_after = b"".join(data for kind, data in events[first_yield:] if kind == "read")
    assert b"delayed_ms" not in received_before
    assert b"delayed_ms" in received_after


def test_falls_back_to_pipelined_requests_when_the_app_does_not_batch(plain_url: str) -> None:
    with BatchClient(f"{plain_url}/batch") as client:
        result = client.send(Batch().get("/books/1").get("/books/999").get("/echo?x=1"))
        assert result.mode == "pipelined"
        assert result.status is None
        assert [r.status for r in result] == [200, 404, 200]
        assert result[2].json()["target"] == "/echo?x=1"
        transport = client.transport
        assert isinstance(transport, SocketTransport)
        assert transport.connections_opened == 1  # OPTIONS, refused POST and all three reused it


def test_falls_back_one_by_one_for_writes(plain_url: str) -> None:
    with BatchClient(f"{plain_url}/batch", pipeline=True) as client:
        batch = Batch().post("/books", json={"title": "Fallback"}).get("/books")
        result = client.send(batch)
        assert result.mode == "sequential"
        assert result[0].status == 201
        assert b"Fallback" in result[1].body


def test_retries_a_503_part_that_said_retry_after(batched_url: str) -> None:
    with BatchClient(f"{batched_url}/batch") as client:
        result = client.send(Batch().get("/books/1").get("/flaky/live-1").get("/books/2"))
        assert [r.status for r in result] == [200, 200, 200]
        assert [r.attempts for r in result] == [1, 2, 1]


def test_a_pipelined_exchange_over_one_connection_answers_in_order(reference_url: str) -> None:
    from mixbatch.client._engine import Endpoint

    transport = SocketTransport(Endpoint.from_url(f"{reference_url}/batch"))
    try:
        transport.send(tuple(HttpRequest("GET", f"/status/{code}") for code in (200, 404, 204)))
        statuses = []
        for _ in range(3):
            statuses.append(transport.receive_head().status)
            while transport.read_body():
                pass
        assert statuses == [200, 404, 204]
    finally:
        transport.close()
