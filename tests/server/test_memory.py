"""What a running batch holds in memory: a large sub-response body is held as the handler's
octets and the part written around them, while the part before may still be leaving, and not
once more for every hand-over between the batch endpoint, h11 and the transport."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc

from mixbatch._http.messages import BytesBody, Request
from mixbatch.codec import Fields
from mixbatch.envelope import Part
from mixbatch.server import ServerConfig, build_app

from ._client import RunningServer, build_batch

BODY = 4 * 1024 * 1024
PARTS = 6


def _post_and_discard(server: RunningServer, content_type: str, body: bytes) -> int:
    """Send a batch and read its answer without keeping it; the octets received."""
    head = (
        f"POST /batch HTTP/1.1\r\nHost: test\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    received = 0
    with server.connect() as sock:
        sock.sendall(head + body)
        while chunk := sock.recv(1 << 16):
            received += len(chunk)
    return received


def test_a_batch_of_large_sub_responses_holds_at_most_three_bodies(
    server: RunningServer,
) -> None:
    content_type, body = build_batch([("GET", f"/random/{BODY}")] * PARTS)
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        received = _post_and_discard(server, content_type, body)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert received > PARTS * BODY
    # The body, the part around it, and the previous part still leaving: three bodies, where
    # the hand-overs used to add more (4.2 measured before).
    assert peak - base < 3.5 * BODY, (peak - base) / BODY


def test_a_finished_batch_leaves_no_part_behind_for_the_cyclic_collector() -> None:
    """Its parts are freed as the batch ends, not at some later full collection that every
    collection in between has to walk past."""
    content_type, body = build_batch([("GET", "/random/16")] * 50)

    async def run_batch() -> None:
        app = build_app(ServerConfig(port=0))
        headers = Fields([("Content-Type", content_type), ("Content-Length", str(len(body)))])
        response = await app(Request("POST", "/batch", headers, BytesBody(body)))
        assert response.status == 200
        assert not isinstance(response.body, bytes)
        async for _ in response.body:
            pass

    gc.collect()
    gc.disable()
    try:
        before = sum(type(o) is Part for o in gc.get_objects())
        asyncio.run(run_batch())
        after = sum(type(o) is Part for o in gc.get_objects())
    finally:
        gc.enable()
    assert after == before
