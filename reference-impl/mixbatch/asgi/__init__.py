"""ASGI middleware that adds a spec-conformant mixbatch endpoint to any ASGI application.

    from mixbatch.asgi import BatchMiddleware

    app = BatchMiddleware(app, path="/batch")
    app = BatchMiddleware(app, transaction=begin)   # also offers Batch-Mode: atomic

Each part runs in-process through the whole wrapped application, as the same request would
alone (MB-SUB-1), and the answers stream back in order as one multipart/mixed response.
"""

from __future__ import annotations

from ._dispatch import SubResponse
from ._middleware import (
    BATCH_TIMEOUT,
    DEFAULT_PROFILES,
    SPOOL_MEMORY_THRESHOLD,
    SUPPORTED_PROFILES,
    BatchMiddleware,
    PartRequest,
    TransactionHook,
)

__all__ = [
    "BATCH_TIMEOUT",
    "DEFAULT_PROFILES",
    "SPOOL_MEMORY_THRESHOLD",
    "SUPPORTED_PROFILES",
    "BatchMiddleware",
    "PartRequest",
    "SubResponse",
    "TransactionHook",
]
