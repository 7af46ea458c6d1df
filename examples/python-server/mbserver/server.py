"""The application and the connection loop: routes each request to the batch endpoint
or to the test resources, one request after another per connection (MB-PIPE-1)."""

import asyncio
import logging

from . import capabilities, resources
from .http11 import Connection, TooLarge
from . import limits as L
from .messages import Request, Response
from .problems import Problem, dump
from .runner import BatchEndpoint
from .targets import normalize_path

BATCH_PATH = "/api/batch"
log = logging.getLogger("mbserver")


class App:
    def __init__(self, timeout_ms, default_authority):
        self.batch_paths = {BATCH_PATH}
        self.representations = list(capabilities.REPRESENTATIONS)
        self.stopping = asyncio.Event()
        self.default_authority = default_authority
        self.endpoint = BatchEndpoint(BATCH_PATH, self, timeout_ms)
        self.conns = set()

    def is_batch_path(self, norm_path):
        return norm_path in self.batch_paths

    async def dispatch(self, req):
        """Every request that is not to the batch endpoint, standalone or a part."""
        return await resources.dispatch(req, normalize_path(req.path))

    async def connection(self, reader, writer):
        task = asyncio.current_task()
        self.conns.add(task)
        conn = Connection(reader, writer, self.default_authority)
        loop = asyncio.get_running_loop()
        try:
            while not conn.closing and not self.stopping.is_set():
                try:
                    h = await conn.read_head(loop.time)
                except Problem as p:
                    p.close = True
                    await conn.send_problem(None, p)
                    break
                if h is None:
                    break
                try:
                    await self.serve(conn, h)
                except Problem as p:
                    p.close = True
                    await conn.send_problem(h, p)
                    break
                except EOFError:
                    break
                if not h.keep_alive:
                    break
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("connection failed")
        finally:
            self.conns.discard(task)
            try:
                writer.close()
            except Exception:
                pass

    async def serve(self, conn, h):
        if h.target == "*":
            await conn.discard_body(h)
            await conn.send(h, Response(200, [("Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS")]))
            return
        path = h.target.partition("?")[0]
        if self.is_batch_path(normalize_path(path)):
            await self.endpoint.serve(conn, h)
            return
        try:
            body = await conn.read_body(h, L.MAX_NON_BATCH_BODY)
        except TooLarge:
            await conn.send(h, Response(413, [("Content-Type", "application/problem+json")],
                                        dump({"type": "about:blank", "title": "Content Too Large",
                                              "status": 413})), close=True)
            await conn.linger_close()
            return
        req = Request(h.method, h.target, h.authority, list(h.headers), body)
        try:
            resp = await self.dispatch(req)
        except Exception:
            log.exception("resource failed")
            resp = Response(500, [("Content-Type", "application/problem+json")],
                            dump({"type": "about:blank", "title": "Internal Server Error", "status": 500}))
        await conn.send(h, resp)
