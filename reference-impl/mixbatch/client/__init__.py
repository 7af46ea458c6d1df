"""The mixbatch client: build a batch, send it, read the answers in order as they arrive.

    from mixbatch.client import BatchClient

    with BatchClient("http://127.0.0.1:8080/batch") as client:
        batch = client.batch().get("/books/1").post("/books", json={"title": "T", "author": "A"})
        for response in client.stream(batch):      # part 0 before part 1 has arrived
            print(response.index, response.status)

The protocol logic (discovery, splitting within the server's limits, retries, fallback to
standalone requests, gzip removal, incomplete-batch detection) is written once, free of I/O, in
``_engine``; ``BatchClient`` (sockets) and ``AsyncBatchClient`` (asyncio) only move bytes.
"""

from __future__ import annotations

from ._async import AsyncBatchClient, AsyncResponseStream
from ._decoding import ACCEPT_ENCODING, ContentDecoder
from ._errors import (
    BatchClientError,
    BatchProtocolError,
    BatchRejected,
    ConnectionLost,
    TransportError,
    TruncatedResponse,
)
from ._model import (
    IDEMPOTENT_METHODS,
    SAFE_METHODS,
    Batch,
    BatchResult,
    EnvelopeInfo,
    SubRequest,
    SubResponse,
    Summary,
)
from ._retry import RetryPolicy
from ._sync import BatchClient, ResponseStream

__all__ = [
    "ACCEPT_ENCODING",
    "IDEMPOTENT_METHODS",
    "SAFE_METHODS",
    "AsyncBatchClient",
    "AsyncResponseStream",
    "Batch",
    "BatchClient",
    "BatchClientError",
    "BatchProtocolError",
    "BatchRejected",
    "BatchResult",
    "ConnectionLost",
    "ContentDecoder",
    "EnvelopeInfo",
    "ResponseStream",
    "RetryPolicy",
    "SubRequest",
    "SubResponse",
    "Summary",
    "TransportError",
    "TruncatedResponse",
]
