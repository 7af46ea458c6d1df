"""The batch endpoint: top-level checks, reading and validating the whole envelope
before any part runs (MB-PROC-1), running the parts one at a time in order (MB-PROC-2)
under the error policy (7.4) and the batch's time budget (MB-SEC-1, MB-TEST-7), and
streaming each response part as soon as it is complete (MB-PROC-4)."""

import asyncio
import json
import zlib

from . import batch as batchmod
from . import capabilities, mediatype
from . import limits as L
from .http11 import KNOWN_METHODS, TooLarge
from .limits import Limits
from .messages import Request, Response
from .problems import Problem, dump
from .represent import WRITERS, BoundaryCollision, Entry

# MB-RESP-4: never copied from a sub-response into its response part.
DROP_FROM_PART = {"connection", "keep-alive", "proxy-connection", "te", "transfer-encoding",
                  "upgrade", "trailer", "content-length"}
DECODABLE = {"gzip", "x-gzip", "deflate"}
ALLOW = "POST, OPTIONS"


class BatchEndpoint:
    def __init__(self, path, app, timeout_ms):
        self.path = path
        self.app = app
        self.timeout_ms = timeout_ms
        self.in_flight = 0
        self.limits = Limits()

    # ------------------------------------------------------------------ refusals

    async def refuse(self, conn, h, problem, read_first=True):
        """Answer a refusal decided before the content was read: discard the content
        (up to MAX_DISCARD_BYTES) so that the next pipelined request can be read, or
        close the connection marked Connection: close (spec 11)."""
        keep = True
        if read_first and h.has_content:
            keep = await conn.discard_body(h)
        if not keep:
            problem.close = True
        await conn.send_problem(h, problem)
        if not keep:
            await conn.linger_close()

    # ------------------------------------------------------------------ entry point

    async def serve(self, conn, h):
        if h.method == "OPTIONS":
            if h.has_content and not await conn.discard_body(h):
                await conn.send(h, Response(413, [("Content-Type", "application/problem+json")],
                                            dump({"type": "about:blank", "title": "Content Too Large",
                                                  "status": 413})), close=True)
                return
            body = json.dumps(capabilities.document(self.path), separators=(",", ":")).encode()
            await conn.send(h, Response(200, [("Content-Type", capabilities.MEDIA_TYPE),
                                              ("Accept-Post", "multipart/mixed"), ("Allow", ALLOW),
                                              ("Cache-Control", "no-transform")], body))
            return
        if h.method != "POST":
            known = h.method in KNOWN_METHODS
            p = Problem(405 if known else 501, "method-not-allowed" if known else "method-not-implemented",
                        "Method not allowed" if known else "Method not implemented",
                        f"The batch endpoint serves POST and OPTIONS, not {h.method}.",
                        requirement="MB-METHOD-2", headers=[("Allow", ALLOW)])
            await self.refuse(conn, h, p)
            return
        if self.in_flight >= L.MAX_BATCHES_IN_FLIGHT:
            p = Problem(503, "busy", "Too many batches in flight",
                        "The server holds as many batches as its budget allows; nothing ran.",
                        requirement="MB-LIMIT-6", limit="max_batches_in_flight",
                        value=L.MAX_BATCHES_IN_FLIGHT, headers=[("Retry-After", "1")])
            await self.refuse(conn, h, p)
            return
        self.in_flight += 1
        try:
            await self._post(conn, h)
        finally:
            self.in_flight -= 1

    async def _post(self, conn, h):
        # decided from the header section alone
        try:
            codings = self._codings(h)
            batchmod.boundary_from(h.field_lines("Content-Type"))
            self._modes(h)
            rep = mediatype.choose(",".join(h.field_lines("Accept")) if h.field_lines("Accept") else None,
                                   self.app.representations)
            if rep is None:
                raise Problem(406, "not-acceptable", "Not acceptable",
                              "Accept admits none of the batch representations offered: "
                              + ", ".join(self.app.representations) + ".",
                              requirement="MB-STATUS-9")
            if h.framing == "length" and h.length > self.limits.max_batch_bytes:
                raise batchmod.batch_too_large(self.limits.max_batch_bytes, close=True)
        except Problem as p:
            if p.close:
                await conn.send_problem(h, p)
                await conn.linger_close()
            else:
                await self.refuse(conn, h, p)
            return
        # the whole content (MB-PROC-1); a coded batch may be refused by its coded length
        try:
            data = await conn.read_body(h, self.limits.max_batch_bytes)
        except TooLarge:
            await conn.send_problem(h, batchmod.batch_too_large(self.limits.max_batch_bytes, close=True))
            await conn.linger_close()
            return
        try:
            data = self._decode(data, codings)
            parts = batchmod.parse_batch(data, h.field_lines("Content-Type"), "http", h.authority,
                                         h.target, self.limits, self.app.is_batch_path)
        except Problem as p:
            await conn.send_problem(h, p)
            return
        await self._run(conn, h, parts, rep)

    def _codings(self, h):
        lines = h.field_lines("Content-Encoding")
        if not lines:
            return []
        codings = []
        for c in ",".join(lines).split(","):
            c = c.strip(" \t").lower()
            if c == "" or c == "identity":
                continue
            if c not in DECODABLE:
                raise Problem(415, "unsupported-content-coding", "Unsupported content coding",
                              f"The batch is coded with {c!r}; this server decodes gzip and deflate.",
                              requirement="MB-INTER-6", headers=[("Accept-Encoding", "gzip, deflate")])
            codings.append(c)
        return codings

    def _decode(self, data, codings):
        cap = self.limits.max_batch_bytes
        for c in reversed(codings):
            try:
                data = _inflate(data, c, cap)
            except zlib.error:
                raise Problem(400, "bad-content-coding", "Content coding does not decode",
                              f"The batch content is not valid {c}.")
        return data

    def _modes(self, h):
        lines = h.field_lines("Batch-Mode")
        if not lines:
            return set()
        try:
            modes = mediatype.batch_modes(lines)
        except mediatype.GrammarError as e:
            raise Problem(501, "unsupported-batch-mode", "Batch mode not implemented",
                          f"The Batch-Mode field names no mode this server implements ({e}).",
                          requirement="MB-PROC-12")
        unknown = [m for m in modes if m not in capabilities.MODES]
        if unknown:
            req = "MB-PROC-7" if "atomic" in unknown else "MB-PROC-12"
            raise Problem(501, "unsupported-batch-mode", "Batch mode not implemented",
                          f"This server does not implement the batch mode {unknown[0]!r}.",
                          requirement=req)
        return set(modes)

    # ------------------------------------------------------------------ running

    def _subrequest(self, h, part):
        names = {k.lower() for k, _ in part.fields}
        headers = list(part.fields)
        for inherit in ("Authorization", "Cookie"):            # MB-SUB-5, MB-SUB-6
            if inherit.lower() not in names:
                headers += [(k, v) for k, v in h.headers if k.lower() == inherit.lower()]
        return Request(part.method, part.target, h.authority, headers, part.body)

    async def _run(self, conn, h, parts, rep):
        loop = asyncio.get_running_loop()
        deadline = h.received_at + self.timeout_ms / 1000.0
        writer = WRITERS[rep]()
        stop_policy = None
        if "error-policy" in capabilities.PROFILES:
            stop_policy = mediatype.batch_on_error(h.field_lines("Prefer"))
        headers = [("Content-Type", writer.content_type), ("Cache-Control", "no-transform")]
        if len(self.app.representations) > 1:
            headers.append(("Vary", "Accept"))
        if stop_policy:
            headers.append(("Preference-Applied", f"batch-on-error={stop_policy}"))
        if rep == "multipart/mixed" and h.version == (1, 1):
            headers.append(("Trailer", "Batch-Summary"))
        if loop.time() >= deadline or self.app.stopping.is_set():
            await conn.send_problem(h, Problem(503, "batch-timeout", "Batch not started",
                                               "The batch's time budget ran out before any part ran.",
                                               requirement="MB-STATUS-12", headers=[("Retry-After", "1")]))
            return
        stream = conn.stream(h, writer.status, headers)
        summary = {"ok": 0, "failed": 0, "skipped": 0, "rolled-back": 0}
        aborted = False
        stopped = False
        try:
            await stream.begin()
            await stream.write(writer.begin())
            for part in parts:
                if stopped:
                    entry = Entry(part.index, part.target, part.content_id, None, "skipped", [], b"")
                    summary["skipped"] += 1
                    await stream.write(writer.entry(entry))
                    continue
                resp = await self._run_one(loop, deadline, h, part)
                if resp is None:
                    aborted = True
                    await stream.write(writer.entry(_abort_entry(part.index, writer)))
                    break
                body = b"" if part.method == "HEAD" or resp.status in (204, 304) else resp.body
                hdrs = [(k, v) for k, v in resp.headers if k.lower() not in DROP_FROM_PART]
                entry = Entry(part.index, part.target, part.content_id, resp.status, None, hdrs, body)
                try:
                    data = writer.entry(entry)
                except BoundaryCollision:
                    aborted = True
                    await stream.write(writer.entry(_abort_entry(part.index, writer, 500,
                                       "A response body holds the response boundary.")))
                    break
                await stream.write(data)
                summary["ok" if resp.status < 400 else "failed"] += 1
                if stop_policy == "stop" and resp.status >= 400:
                    stopped = True
            await stream.write(writer.end(summary))
            trailers = []
            if not aborted and rep == "multipart/mixed":
                trailers = [("Batch-Summary", "ok=%d, failed=%d, skipped=%d, rolled-back=%d" % (
                    summary["ok"], summary["failed"], summary["skipped"], summary["rolled-back"]))]
            await stream.end(trailers)
        except (ConnectionError, OSError):
            conn.closing = True

    async def _run_one(self, loop, deadline, h, part):
        """Run one sub-request; None when the batch must stop (time budget, shutdown)."""
        left = deadline - loop.time()
        if left <= 0 or self.app.stopping.is_set():
            return None
        task = asyncio.ensure_future(self.app.dispatch(self._subrequest(h, part)))
        stop_wait = asyncio.ensure_future(self.app.stopping.wait())
        try:
            done, _ = await asyncio.wait({task, stop_wait}, timeout=left,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop_wait.cancel()
        if task not in done:
            task.cancel()
            return None
        try:
            return task.result()
        except Exception as e:   # a failing handler answers 500, as it would alone
            return Response(500, [("Content-Type", "application/problem+json")],
                            dump({"type": "about:blank", "title": "Internal Server Error",
                                  "status": 500, "detail": type(e).__name__}))


def _abort_entry(index, writer, status=503, detail=None):
    doc = {"type": "https://mixbatch.dev/problems/batch-aborted", "title": "Batch aborted",
           "status": status,
           "detail": detail or f"The batch ran out of its time budget or the server is stopping; "
                               f"parts from {index} on have no response and an unknown outcome.",
           "requirement": "MB-STATUS-6", "part_index": index}
    return Entry(index, None, None, None, "aborted",
                 [("Content-Type", "application/problem+json")], dump(doc))


def _inflate(data, coding, cap):
    out = bytearray()
    if coding in ("gzip", "x-gzip"):
        rest = data
        while True:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += d.decompress(rest, cap + 1 - len(out))
            if len(out) > cap or d.unconsumed_tail:
                raise batchmod.batch_too_large(cap)
            if not d.eof:
                raise zlib.error("truncated gzip member")
            rest = d.unused_data
            if not rest:
                break
    else:
        d = zlib.decompressobj(zlib.MAX_WBITS)
        out += d.decompress(data, cap + 1 - len(out))
        if len(out) > cap or d.unconsumed_tail:
            raise batchmod.batch_too_large(cap)
        if not d.eof or d.unused_data:
            raise zlib.error("truncated or trailing data")
    return bytes(out)
