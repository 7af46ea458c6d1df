"""The application: the router with every resource and the batch endpoint wired in.

``App`` is the callable the connection hands each standalone request to, and the batch
endpoint's sub-request runner is ``App.run_subrequest``: both end in the same
``Router.respond``.
Each request gets one access-log line; a sub-request's line is marked with its part index, so
that a batch of n parts logs n + 1 lines.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from mixbatch._http.messages import Request, Response

from ._batch_endpoint import BatchEndpoint
from ._config import ServerConfig
from ._resources import books, delay, echo, empty, random, status
from ._router import Router

__all__ = ["App", "build_app"]

access_log = logging.getLogger("mixbatch.server.access")


class App:
    """Routes requests and sub-requests alike, and logs one line for each."""

    def __init__(self, config: ServerConfig, clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.store = books.BookStore(clock, data_dir=config.data_dir)
        self.batch = BatchEndpoint(self.run_subrequest, config, store=self.store.db)
        self.router = Router(
            [
                self.batch.route,
                *books.routes(self.store, clock),
                *empty.routes(clock),
                *random.routes(config.max_random_bytes),
                *echo.routes(),
                *status.routes(),
                *delay.routes(config.max_delay_ms),
            ]
        )

    async def __call__(self, request: Request) -> Response:
        if not access_log.isEnabledFor(logging.INFO):
            return await self.router.handle(request)
        return await self._logged(request, None)

    def run_subrequest(
        self, request: Request, index: int
    ) -> Response | Coroutine[Any, Any, Response]:
        """The sub-request's response when its handler never waited, else a coroutine."""
        # With the access log off (as a benchmark runs it) a part costs no clock reads, and no
        # coroutine at all when its handler answers at once.
        if not access_log.isEnabledFor(logging.INFO):
            return self.router.respond(request)
        return self._logged(request, index)

    async def _logged(self, request: Request, index: int | None) -> Response:
        started = time.perf_counter()
        response = await self.router.handle(request)
        access_log.info(
            "%s %s %s -> %d (%.1f ms)",
            "request" if index is None else f"sub-request[{index}]",
            request.method,
            request.target,
            response.status,
            (time.perf_counter() - started) * 1000,
        )
        return response


def build_app(config: ServerConfig | None = None, clock: Callable[[], float] = time.time) -> App:
    """A fresh application with seeded state; ``clock`` stamps Last-Modified."""
    return App(config or ServerConfig(), clock)
