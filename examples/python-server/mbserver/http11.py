"""A small HTTP/1.1 codec over asyncio streams (RFC 9112): request heads, Content-Length
and chunked request content, fixed-length and chunked responses, keep-alive, HTTP/1.0.

Requests on one connection are read and answered one after another, so pipelined
requests are answered in the order received (MB-PIPE-1)."""

import asyncio
import http
import re

from . import limits as L
from .conditional import http_date
from .problems import Problem
from . import targets

TOKEN_RE = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
FIELD_RE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+):([\t\x20-\x7e\x80-\xff]*)")
HEX_RE = re.compile(rb"[0-9A-Fa-f]+")
CHUNK_EXT_RE = re.compile(rb"(?:[ \t]*;[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
                          rb"(?:[ \t]*=[ \t]*(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|\"(?:[^\"\\\r\n]|\\.)*\"))?)*[ \t]*")
KNOWN_METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}


PHRASES = {413: "Content Too Large", 422: "Unprocessable Content", 416: "Range Not Satisfiable"}


def reason(status):
    if status in PHRASES:
        return PHRASES[status]
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


def bad_request(detail, status=400, title="Bad request", close=True, **kw):
    return Problem(status, "bad-request" if status == 400 else "http-error", title, detail,
                   close=close, **kw)


class Head:
    """A parsed request line and header section."""

    def __init__(self):
        self.method = self.raw_target = self.target = None
        self.version = (1, 1)
        self.headers = []
        self.authority = None
        self.framing = "none"     # none | length | chunked
        self.length = 0
        self.keep_alive = True
        self.expect_continue = False
        self.received_at = 0.0

    def field_lines(self, name):
        n = name.lower()
        return [v for k, v in self.headers if k.lower() == n]

    @property
    def has_content(self):
        return self.framing == "chunked" or self.length > 0


class TooLarge(Exception):
    pass


class Connection:
    def __init__(self, reader, writer, default_authority):
        self.reader = reader
        self.writer = writer
        self.default_authority = default_authority
        self.closing = False

    # ------------------------------------------------------------ reading

    async def _line(self, limit):
        try:
            line = await self.reader.readuntil(b"\n")
        except asyncio.LimitOverrunError:
            raise bad_request("A header line is too long.", status=431,
                              title="Request header fields too large")
        except asyncio.IncompleteReadError as e:
            if not e.partial:
                raise EOFError
            raise bad_request("The connection closed inside a request head.")
        if len(line) > limit:
            raise bad_request("A header line is too long.", status=431,
                              title="Request header fields too large")
        line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        if b"\r" in line:
            raise bad_request("A bare CR in the request head.")
        return line

    async def read_head(self, loop_time):
        """Read one request head; None at a clean end of the connection."""
        try:
            line = await asyncio.wait_for(self._line(L.MAX_REQUEST_LINE), L.IDLE_TIMEOUT_S)
            empties = 0
            while line == b"":                      # RFC 9112 2.2: ignore leading CRLFs
                empties += 1
                if empties > 8:
                    raise bad_request("Too many empty lines before the request line.")
                line = await asyncio.wait_for(self._line(L.MAX_REQUEST_LINE), L.IDLE_TIMEOUT_S)
        except (EOFError, asyncio.TimeoutError, ConnectionError):
            return None
        h = Head()
        h.received_at = loop_time()
        parts = line.split(b" ")
        if len(parts) != 3 or not TOKEN_RE.fullmatch(parts[0]) or not parts[1]:
            raise bad_request("The request line is malformed.")
        method, target, version = parts
        m = re.fullmatch(rb"HTTP/([0-9])\.([0-9])", version)
        if not m:
            raise bad_request("The request line names no HTTP version.")
        major, minor = int(m.group(1)), int(m.group(2))
        if major != 1:
            raise Problem(505, "http-version", "HTTP version not supported",
                          "Only HTTP/1.0 and HTTP/1.1 are served.", close=True)
        h.version = (1, min(minor, 1))
        h.method = method.decode("latin-1")
        h.raw_target = target.decode("latin-1")
        total = 0
        try:
            while True:
                line = await asyncio.wait_for(self._line(L.MAX_HEADER_BYTES), L.RECEIVE_TIMEOUT_S)
                if line == b"":
                    break
                total += len(line) + 2
                if total > L.MAX_HEADER_BYTES or len(h.headers) >= L.MAX_HEADER_FIELDS:
                    raise bad_request("The request header section is too large.", status=431,
                                      title="Request header fields too large")
                fm = FIELD_RE.fullmatch(line)
                if not fm:
                    raise bad_request("A request header line is not a valid field-line.")
                h.headers.append((fm.group(1).decode("latin-1"),
                                  fm.group(2).strip(b" \t").decode("latin-1")))
        except (EOFError, ConnectionError):
            raise bad_request("The connection closed inside a request head.")
        except asyncio.TimeoutError:
            raise bad_request("The request head did not arrive in time.", status=408,
                              title="Request timeout")
        self._frame(h)
        return h

    def _frame(self, h):
        conn = ",".join(h.field_lines("Connection")).lower()
        tokens = {t.strip(" \t") for t in conn.split(",")}
        if h.version == (1, 0):
            h.keep_alive = "keep-alive" in tokens
        else:
            h.keep_alive = "close" not in tokens
        # target and authority
        t = h.raw_target
        hosts = h.field_lines("Host")
        if len(hosts) > 1:
            raise bad_request("The request carries more than one Host field.")
        if t.startswith("/"):
            h.target = t
            if hosts:
                h.authority = hosts[0]
            elif h.version == (1, 0):
                h.authority = self.default_authority
            else:
                raise bad_request("An HTTP/1.1 request without Host.")
        elif t == "*" and h.method == "OPTIONS":
            h.target = "*"
            h.authority = hosts[0] if hosts else self.default_authority
        elif re.match(r"(?i)https?://", t):
            try:
                ref = targets.parse_reference(t)
            except ValueError:
                raise bad_request("The absolute-form request target is malformed.")
            if ref.authority is None or ref.fragment is not None:
                raise bad_request("The absolute-form request target is malformed.")
            h.target = ref.origin_form()
            h.authority = ref.authority
        else:
            raise bad_request("The request target is not in a form this server serves.")
        if h.version == (1, 1) and not hosts:
            raise bad_request("An HTTP/1.1 request without Host.")
        if h.authority is not None:
            try:
                userinfo, host, _ = targets.split_authority(h.authority)
            except ValueError:
                raise bad_request("The Host field is not a valid authority.")
            if userinfo is not None or host == "":
                raise bad_request("The Host field is not a valid authority.")
        if not t.startswith("/") and t != "*":
            if any(c <= " " or c > "~" for c in h.target):
                raise bad_request("The request target holds invalid characters.")
        elif any(c <= " " or c > "~" for c in t):
            raise bad_request("The request target holds invalid characters.")
        # framing (RFC 9112 6.1-6.3)
        te = h.field_lines("Transfer-Encoding")
        cl = h.field_lines("Content-Length")
        if te:
            if h.version == (1, 0):
                raise bad_request("Transfer-Encoding in an HTTP/1.0 request.")
            if cl:
                raise bad_request("A request with both Transfer-Encoding and Content-Length.")
            codings = [c.strip(" \t").lower() for c in ",".join(te).split(",")]
            if any(c == "" for c in codings):
                raise bad_request("An empty element in Transfer-Encoding.")
            if codings != ["chunked"]:
                if codings[-1] != "chunked":
                    raise bad_request("The request's final transfer coding is not chunked.")
                raise Problem(501, "transfer-coding", "Transfer coding not implemented",
                              "Only the chunked transfer coding is understood.", close=True)
            h.framing = "chunked"
        elif cl:
            vals = {v.strip(" \t") for v in ",".join(cl).split(",")}
            if len(vals) != 1:
                raise bad_request("Conflicting Content-Length values.")
            v = vals.pop()
            if not v.isascii() or not v.isdigit():
                raise bad_request("The Content-Length is not a number.")
            if len(v) > L.MAX_CONTENT_LENGTH_DIGITS:
                raise bad_request("The Content-Length is too long a numeral to read.")
            h.framing = "length"
            h.length = int(v)
        expect = h.field_lines("Expect")
        if expect:
            if [e.lower() for e in expect] != ["100-continue"]:
                raise Problem(417, "expectation-failed", "Expectation failed",
                              "Only Expect: 100-continue is understood.", close=True)
            h.expect_continue = h.version == (1, 1)

    async def _continue(self, h):
        if h.expect_continue:
            h.expect_continue = False
            self.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            await self.writer.drain()

    async def read_body(self, h, cap):
        """The whole content, or TooLarge when it exceeds cap (connection unusable)."""
        if h.framing == "length":
            if h.length > cap:
                raise TooLarge()
            await self._continue(h)
            try:
                return await asyncio.wait_for(self.reader.readexactly(h.length), L.RECEIVE_TIMEOUT_S)
            except (asyncio.IncompleteReadError, ConnectionError):
                raise EOFError
            except asyncio.TimeoutError:
                raise bad_request("The request content did not arrive in time.", status=408,
                                  title="Request timeout")
        if h.framing == "chunked":
            await self._continue(h)
            out = bytearray()
            await self._chunks(lambda b: out.extend(b), cap)
            return bytes(out)
        return b""

    async def discard_body(self, h, cap=L.MAX_DISCARD_BYTES):
        """Read and drop the content; False when it is longer than cap (then close)."""
        if h.expect_continue:
            return False       # the client waits for us; do not ask for what we refuse
        if h.framing == "length":
            if h.length > cap:
                return False
            left = h.length
            while left:
                chunk = await asyncio.wait_for(self.reader.read(min(left, 65536)), L.RECEIVE_TIMEOUT_S)
                if not chunk:
                    raise EOFError
                left -= len(chunk)
            return True
        if h.framing == "chunked":
            try:
                await self._chunks(lambda b: None, cap)
            except TooLarge:
                return False
        return True

    async def _chunks(self, sink, cap):
        total = 0
        try:
            while True:
                line = await asyncio.wait_for(self._line(L.MAX_CHUNK_EXT_BYTES), L.RECEIVE_TIMEOUT_S)
                m = HEX_RE.match(line)
                if not m or not CHUNK_EXT_RE.fullmatch(line, m.end()):
                    raise bad_request("A chunk-size line is malformed.")
                if len(m.group(0)) > L.MAX_CHUNK_SIZE_HEX_DIGITS:
                    raise bad_request("A chunk-size is too long a numeral to read.")
                size = int(m.group(0), 16)
                if size == 0:
                    tb = 0
                    while True:
                        t = await asyncio.wait_for(self._line(L.MAX_TRAILER_BYTES), L.RECEIVE_TIMEOUT_S)
                        if t == b"":
                            return total
                        tb += len(t)
                        if tb > L.MAX_TRAILER_BYTES or not FIELD_RE.fullmatch(t):
                            raise bad_request("The trailer section is malformed or too large.")
                if total + size > cap:
                    raise TooLarge()
                left = size
                while left:
                    chunk = await asyncio.wait_for(self.reader.read(min(left, 65536)), L.RECEIVE_TIMEOUT_S)
                    if not chunk:
                        raise EOFError
                    sink(chunk)
                    left -= len(chunk)
                total += size
                crlf = await asyncio.wait_for(self.reader.readexactly(2), L.RECEIVE_TIMEOUT_S)
                if crlf != b"\r\n":
                    raise bad_request("A chunk is not followed by CRLF.")
        except (asyncio.IncompleteReadError, ConnectionError):
            raise EOFError
        except asyncio.TimeoutError:
            raise bad_request("The request content did not arrive in time.", status=408,
                              title="Request timeout")

    # ------------------------------------------------------------ writing

    def _head_bytes(self, status, headers, version):
        lines = [f"HTTP/1.1 {status} {reason(status)}", f"Date: {http_date()}"]
        lines += [f"{k}: {v}" for k, v in headers]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _conn_headers(self, h, close):
        if close or h is None or not h.keep_alive:
            self.closing = True
            return [("Connection", "close")]
        if h.version == (1, 0):
            return [("Connection", "keep-alive")]
        return []

    async def send(self, h, resp, close=False, head_only=None):
        """A whole response with Content-Length (none for 1xx/204/304)."""
        if head_only is None:
            head_only = h is not None and h.method == "HEAD"
        headers = list(resp.headers)
        body = resp.body
        if resp.status in (204, 304) or 100 <= resp.status < 200:
            body = b""
            if resp.status == 304:
                pass
        else:
            headers.append(("Content-Length", str(len(body))))
        headers += self._conn_headers(h, close)
        data = self._head_bytes(resp.status, headers, h.version if h else (1, 1))
        if not head_only:
            data += body
        self.writer.write(data)
        await self.writer.drain()

    async def send_problem(self, h, problem, extra_headers=()):
        from .messages import Response
        headers = [("Content-Type", "application/problem+json")] + list(problem.headers) + list(extra_headers)
        await self.send(h, Response(problem.status, headers, problem.body()),
                        close=problem.close, head_only=False if h is None else None)

    def stream(self, h, status, headers):
        return Stream(self, h, status, headers)

    async def linger_close(self, seconds=1.0, cap=L.MAX_DISCARD_BYTES):
        """Close after an early answer, reading for a while so that the peer sees the
        answer rather than a reset (RFC 9112 9.6)."""
        try:
            if self.writer.can_write_eof():
                self.writer.write_eof()
            loop = asyncio.get_running_loop()
            end = loop.time() + seconds
            got = 0
            while got < cap:
                left = end - loop.time()
                if left <= 0:
                    break
                chunk = await asyncio.wait_for(self.reader.read(65536), left)
                if not chunk:
                    break
                got += len(chunk)
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass


class Stream:
    """A response written as it is produced: chunked to HTTP/1.1 clients, buffered and
    sent with Content-Length to HTTP/1.0 clients."""

    def __init__(self, conn, h, status, headers):
        self.conn = conn
        self.h = h
        self.status = status
        self.headers = list(headers)
        self.chunked = h.version == (1, 1)
        self.buf = bytearray()
        self.started = False
        self.broken = False

    async def begin(self):
        if self.chunked:
            headers = self.headers + [("Transfer-Encoding", "chunked")]
            headers += self.conn._conn_headers(self.h, False)
            self.conn.writer.write(self.conn._head_bytes(self.status, headers, self.h.version))
            self.started = True
            await self._drain()

    async def write(self, data):
        if not data:
            return
        if self.chunked:
            self.conn.writer.write(b"%x\r\n" % len(data) + data + b"\r\n")
            await self._drain()
        else:
            self.buf += data

    async def end(self, trailers=()):
        if self.chunked:
            t = "".join(f"{k}: {v}\r\n" for k, v in trailers).encode("latin-1")
            self.conn.writer.write(b"0\r\n" + t + b"\r\n")
            await self._drain()
        else:
            from .messages import Response
            await self.conn.send(self.h, Response(self.status, self.headers, bytes(self.buf)))

    async def _drain(self):
        try:
            await self.conn.writer.drain()
        except (ConnectionError, OSError):
            self.broken = True
            raise
