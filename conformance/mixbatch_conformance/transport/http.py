"""A small HTTP/1.1 client over raw sockets that keeps every octet.

Theory of operation: a conformance suite must see exactly what crossed the wire, so this
client writes the request bytes it is given unchanged and records the response bytes as
received, before any decoding. `read_response` frames one response from a buffered socket
reader by RFC 9112 §6.3: no content for HEAD, 1xx, 204 and 304; chunked when
Transfer-Encoding ends in chunked (trailer fields kept); Content-Length; else read to close.
Interim 1xx responses are skipped and kept in the raw record. `HeadFirst` sends a request on a
connection of its own and reads its answer's head before its content, so a client can act on
the head (a batch response's boundary) while the content still streams. `exchange_after_continue` sends
a request's head alone and its content only after an interim 100 (Continue) or a bounded wait,
as a client that sent `Expect: 100-continue` does (RFC 9110 §10.1.1); `exchange_until_answered`
streams content piece by piece and stops once an answer begins. `pipeline` writes several
requests back to back on one connection and reads the responses in order (MB-PIPE-1);
`in_turn` sends them on one connection one at a time, each once the answer before it was read,
and keeps nothing the reader did not frame from one answer to the next.
A response says whether its connection may carry another request (`Response.persistent`, RFC
9112 §9.3); transport.connections keeps such connections for the next request.

An https target is reached through an `ssl.SSLContext` (transport.tls) passed as `tls`.

The reader takes what a lenient client takes (RFC 9112 §2.2 lets a recipient accept a bare LF
as a line end), so that the answer can still be read; what the sender broke on the way is kept
in `Response.violations`, each in words with the rule it breaks, for the caller to judge
(RFC 9110 §2.2: "A sender MUST NOT generate protocol elements that do not match the grammar
defined by the corresponding ABNF rules"). Field values are read as RFC 9110 §5.5 has them: the
optional whitespace around a value is SP and HTAB only, never the other octets a text library
counts as space (0x85 and 0xA0 are obs-text, part of the value).

Errors: `TargetUnreachable` when no connection can be made (`TlsFailure`, an OSError, when
the TLS handshake fails), `ResponseError` when the bytes are not an HTTP/1.1 response (it
keeps the octets that did arrive in `received`, and so does the Exchange, in `raw`, so that a
report can save them; `MessageCutShort`, a ResponseError, when the head arrived and the
connection closed inside the content), TimeoutError from the socket when the target is silent.
"""

from __future__ import annotations

import contextlib
import re
import select
import socket
import ssl
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from mixbatch_conformance.transport.tls import TlsFailure, explain
from mixbatch_conformance.transport.urls import UsageError, parse_target_url, socket_host

__all__ = [
    "NOT_SENT",
    "Exchange",
    "HeadFirst",
    "MessageCutShort",
    "Response",
    "ResponseError",
    "ResponseTooLarge",
    "Source",
    "TargetUnreachable",
    "build_request",
    "connect",
    "drain",
    "exchange",
    "exchange_after_continue",
    "exchange_until_answered",
    "first_line",
    "in_turn",
    "method_of",
    "pipeline",
    "read_response",
    "split_url",
]

DEFAULT_TIMEOUT = 20.0
MAX_HEAD = 1 << 20
#: The most octets the suite reads of one response: past the largest answer a check asks for
#: (an echo describing a batch of up to 64 MiB of content, whose JSON may escape each octet in
#: six). A response that grows past it (a server repeating earlier parts' fields in every later
#: part, say) is not read further, and the check that asked is not judged on it
#: (`ResponseTooLarge`), rather than read until memory runs out.
MAX_RESPONSE_OCTETS = 512 * 1024 * 1024
#: Octets read at a time of a response framed by the connection's close.
READ_PIECE = 1 << 20

#: RFC 9110 §5.6.3: OWS = *( SP / HTAB ).
OWS = " \t"
#: RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ], with
#: reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ); "A server MUST send the space that
#: separates the status-code from the reason-phrase even when the reason phrase is absent".
STATUS_LINE = re.compile(rb"HTTP/1\.[01] [0-9]{3} [\t\x20-\x7e\x80-\xff]*\r\n")
#: What the reader takes as a status line: a bare LF ending it, no space after the code, any
#: octets in the phrase.
LOOSE_STATUS_LINE = re.compile(rb"(HTTP/1\.[01]) ([0-9]{3})(?: (.*))?\r?\n", re.DOTALL)
#: RFC 9110 §5.1 field-name = token; §5.6.2 token = 1*tchar.
FIELD_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: RFC 9110 §5.5: field-value = *field-content, field-content = field-vchar
#: [ 1*( SP / HTAB / field-vchar ) field-vchar ], field-vchar = VCHAR / obs-text (the value
#: without the OWS around it).
FIELD_VALUE = re.compile(
    r"(?:[\x21-\x7e\x80-\xff](?:[ \t\x21-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?"
)
#: RFC 9112 §7.1: chunk = chunk-size [ chunk-ext ] CRLF ..., chunk-size = 1*HEXDIG, chunk-ext
#: = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ), which a sender writes
#: without the BWS (RFC 9110 §5.6.3: "A sender MUST NOT generate BWS in messages").
_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED = rb'"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"'
CHUNK_LINE = re.compile(
    rb"[0-9A-Fa-f]+(?:;" + _TOKEN + rb"(?:=(?:" + _TOKEN + rb"|" + _QUOTED + rb"))?)*\r\n"
)
#: Fields whose definition allows no list (RFC 9110 §5.3: "A sender MUST NOT generate multiple
#: field lines with the same name in a message ... unless that field's definition allows
#: multiple field line values to be recombined as a comma-separated list"): the singletons of
#: RFC 9110 and RFC 9111 a response carries that a reader of the answer relies on.
#: Content-Length is judged with the framing. `Date` is left out: HTTP stacks add their own
#: beside an application's, no mixbatch answer is read by it, and a repeated one is the
#: stack's slip, not the server's reading of the spec.
SINGLETON_FIELDS = frozenset(
    {
        "age",
        "content-location",
        "content-range",
        "content-type",
        "etag",
        "expires",
        "last-modified",
        "location",
        "retry-after",
    }
)


#: Why no response was read from a connection the server closed before any octet of one.
CLOSED_BEFORE_STATUS = "the connection closed before a status line"


class TargetUnreachable(Exception):
    """No TCP connection could be made to the target."""


class ResponseError(Exception):
    """The target answered with bytes that are not an HTTP/1.1 response."""

    def __init__(self, message: str, received: bytes = b"") -> None:
        super().__init__(message)
        #: The octets read before the response was found broken.
        self.received = received


class ResponseTooLarge(ResponseError):
    """The response runs past MAX_RESPONSE_OCTETS: the suite reads no further."""


class MessageCutShort(ResponseError):
    """The head arrived whole, then the connection closed before the message's content ended
    (RFC 9112 §8: "A message that uses a valid Content-Length is incomplete if the size of the
    message body received ... is less than the value given by Content-Length. A response that
    has neither chunked transfer coding nor Content-Length is terminated by closure of the
    connection"; a chunked message is incomplete without its last chunk)."""


class Source(Protocol):
    """What responses are read from: a buffered binary reader (a socket's file, BytesIO)."""

    def readline(self, size: int = -1, /) -> bytes: ...

    def read(self, size: int = -1, /) -> bytes: ...

    def read1(self, size: int = -1, /) -> bytes: ...


@dataclass(frozen=True)
class Response:
    """One response: parsed head, decoded content, and the raw octets."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    raw: bytes
    trailers: tuple[tuple[str, str], ...] = ()
    chunked: bool = False
    #: Whether the connection may carry another request after this response (RFC 9112 §9.3):
    #: not after HTTP/1.0, `Connection: close`, a protocol switch, or content read to the close.
    persistent: bool = True
    #: How the response's head and framing break the grammar RFC 9112 and RFC 9110 give a
    #: sender, each in words (empty: they do not); see the module docstring.
    violations: tuple[str, ...] = ()
    #: The content codings still on `body`, in the order applied (empty: the content is
    #: decoded, or was sent in none): a coding the client does not know, or whose octets do not
    #: decode, and every coding applied before it.
    codings_left: tuple[str, ...] = ()

    def get(self, name: str) -> str | None:
        values = self.get_all(name)
        return values[0] if values else None

    def get_all(self, name: str) -> list[str]:
        lowered = name.lower()
        return [v for (n, v) in self.headers if n.lower() == lowered]

    @property
    def media_type(self) -> str:
        value = self.get("Content-Type") or ""
        return value.split(";", 1)[0].strip(OWS).lower()


@dataclass(frozen=True)
class Exchange:
    """A request as sent and the response it got (None when none arrived)."""

    request: bytes
    response: Response | None
    error: str | None = None
    notes: tuple[str, ...] = field(default=())
    #: When no response could be read: the octets that did arrive (b"" when none did).
    raw: bytes = b""
    #: 0 when the request went on a connection of its own; n >= 1 when it was the n-th request
    #: on a connection kept for the next (transport.connections).
    kept: int = 0

    @property
    def too_large(self) -> bool:
        """The response ran past MAX_RESPONSE_OCTETS and was not read further."""
        return self.response is None and (self.error or "").startswith("ResponseTooLarge")

    @property
    def cut_short(self) -> bool:
        """The response's head arrived, then the connection closed inside its content
        (MessageCutShort)."""
        return self.response is None and (self.error or "").startswith("MessageCutShort")

    @property
    def unanswered(self) -> bool:
        """The whole request was written, and the server closed or reset the connection
        without one octet of answer. Not so when the connection could not be made, when the
        request could not be written whole (a server may answer early and close, and its
        answer can be lost with the connection), or when the server stayed silent until the
        timeout."""
        error = self.error or ""
        closed = error == f"ResponseError: {CLOSED_BEFORE_STATUS}"
        reset = error.startswith(("ConnectionResetError", "ConnectionAbortedError"))
        return self.response is None and not self.raw and (closed or reset)

    @property
    def connection(self) -> str:
        """How the request travelled, for a reader of the report: "2nd request on a kept
        connection", "a connection of its own", with any note on the connection after it."""
        own = "a connection of its own"
        text = f"{_ordinal(self.kept)} request on a kept connection" if self.kept else own
        return "; ".join((text, *self.notes))


def _ordinal(n: int) -> str:
    teen = n % 100 in (11, 12, 13)
    return f"{n}{'th' if teen else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def split_url(url: str) -> tuple[str, int, str]:
    """Return host, port and base path of an http or https URL (ValueError when it is not one);
    the host as a URI and a Host field write it, an IPv6 address in brackets."""
    try:
        parsed = parse_target_url(url)
    except UsageError as exc:
        raise ValueError(str(exc)) from None
    return parsed.uri_host, parsed.port, parsed.endpoint or "/"


def build_request(
    method: str,
    target: str,
    authority: str,
    headers: list[tuple[str, str]] | tuple[tuple[str, str], ...] = (),
    body: bytes | None = None,
) -> bytes:
    """Serialize a request with Host first and Content-Length when there is content."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: {authority}"]
    names = {n.lower() for n, _ in headers}
    lines.extend(f"{n}: {v}" for n, v in headers)
    if body is not None and "content-length" not in names and "transfer-encoding" not in names:
        lines.append(f"Content-Length: {len(body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + (body or b"")


def connect(
    host: str, port: int, timeout: float, tls: ssl.SSLContext | None = None
) -> socket.socket:
    """A TCP connection to host:port, wrapped in TLS when `tls` is given."""
    try:
        sock = socket.create_connection((socket_host(host), port), timeout=timeout)
    except OSError as exc:
        if isinstance(exc, TimeoutError):
            raise
        raise TargetUnreachable(f"cannot connect to {host}:{port}: {exc}") from exc
    if tls is None:
        return sock
    try:
        return tls.wrap_socket(sock, server_hostname=socket_host(host))
    except ssl.SSLError as exc:
        sock.close()
        raise TlsFailure(explain(exc, host, port)) from exc
    except OSError:
        sock.close()
        raise


class _Recorder:
    """Wraps a binary reader and keeps a copy of every octet read, MAX_RESPONSE_OCTETS at
    most: a response that would take more is a ResponseError before it is read."""

    def __init__(self, reader: Source) -> None:
        self.reader = reader
        self.seen = bytearray()
        self.limit = MAX_RESPONSE_OCTETS

    def _room(self, n: int) -> None:
        if len(self.seen) + n > self.limit:
            raise ResponseTooLarge(
                f"the response runs past {self.limit} octets ({len(self.seen)} read, "
                f"{n} more framed), more than any answer the suite asks for; not read further"
            )

    def readline(self) -> bytes:
        line = self.reader.readline(MAX_HEAD)
        self._room(len(line))
        self.seen += line
        return line

    def read(self, n: int) -> bytes:
        self._room(n)
        data = self.reader.read(n)
        self.seen += data
        return data

    def read_all(self) -> bytes:
        start = len(self.seen)
        while piece := self.reader.read(READ_PIECE):
            self._room(len(piece))
            self.seen += piece
        return bytes(self.seen[start:])


#: A response head as read: version, status, reason phrase, header fields, and how the head
#: breaks the sender's grammar (see `Response.violations`).
Head = tuple[str, int, str, list[tuple[str, str]], list[str]]


def _read_head(rec: _Recorder) -> Head:
    line = rec.readline()
    if not line:
        raise ResponseError(CLOSED_BEFORE_STATUS)
    m = LOOSE_STATUS_LINE.fullmatch(line)
    if not m:
        raise ResponseError(f"not a status line: {line[:80]!r}")
    violations: list[str] = []
    if not STATUS_LINE.fullmatch(line):
        violations.append(
            f"status line {line[:80]!r} is not HTTP-version SP status-code SP [ reason-phrase ] "
            "CRLF (RFC 9112 §4: the space after the code is sent even with no phrase; the phrase "
            "is HTAB, SP, VCHAR and obs-text)"
        )
    status = int(m.group(2))
    if not 100 <= status <= 599:
        # RFC 9110 §15: "All valid status codes are within the range of 100 to 599, inclusive."
        violations.append(f"status code {status} is outside 100 to 599 (RFC 9110 §15)")
    headers = _field_lines(rec, "header", violations, "the connection closed inside the head")
    version = m.group(1).decode("ascii")
    return version, status, (m.group(3) or b"").decode("latin-1"), headers, violations


def _field_lines(
    rec: _Recorder, section: str, violations: list[str], closed: str
) -> list[tuple[str, str]]:
    """The field lines up to the empty line that ends a header or trailer section.

    RFC 9112 §5: field-line = field-name ":" OWS field-value OWS, each line ending in CRLF; no
    whitespace between the name and the colon; no obs-fold (§5.2: "A server MUST NOT generate
    a message that includes line folding"), which is read as RFC 9112 §5.2 tells a user agent
    to, as SP joined to the value before it.
    """
    fields: list[tuple[str, str]] = []
    while True:
        line = rec.readline()
        if not line:
            raise (MessageCutShort if section == "trailer" else ResponseError)(closed)
        if not line.endswith(b"\r\n"):
            violations.append(
                f"{section} line {line[:80]!r} ends in a bare LF (RFC 9112 §2.1: CRLF)"
            )
        if line in (b"\r\n", b"\n"):
            return fields
        text = line.decode("latin-1").removesuffix("\n").removesuffix("\r")
        if text[:1] in (" ", "\t") and fields:
            violations.append(f"{section} line {line[:80]!r} is an obs-fold (RFC 9112 §5.2)")
            name, value = fields[-1]
            fields[-1] = (name, f"{value} {text.strip(OWS)}".strip(OWS))
            continue
        name, sep, value = text.partition(":")
        if not sep:
            raise ResponseError(f"bad {section} line {line[:80]!r}")
        value = value.strip(OWS)
        if not FIELD_NAME.fullmatch(name):
            violations.append(
                f"{section} field name {name!r} is not a token (RFC 9110 §5.1; RFC 9112 §5.1: "
                "no whitespace between the name and the colon)"
            )
        if not FIELD_VALUE.fullmatch(value):
            violations.append(
                f"{section} field {name.strip(OWS)!r} value {value[:60]!r} holds an octet a "
                "field-value does not (RFC 9110 §5.5: VCHAR, obs-text, SP and HTAB)"
            )
        fields.append((name.strip(OWS), value))


def read_response(reader: Source, request_method: str) -> Response:
    """Read one response (skipping interim 1xx responses) from `reader`.

    A ResponseError carries the octets read so far in `received`; so does an OSError (as the
    attribute `received`) when the socket failed or timed out part way."""
    rec = _Recorder(reader)
    try:
        return _read_response(rec, request_method)
    except ResponseTooLarge as exc:
        # The head and the start of what followed: the report keeps these, not the rest.
        exc.received = bytes(rec.seen[:MAX_HEAD])
        raise
    except ResponseError as exc:
        exc.received = bytes(rec.seen)
        raise
    except OSError as exc:
        exc.received = bytes(rec.seen)  # type: ignore[attr-defined]
        raise


def _read_response(
    rec: _Recorder,
    request_method: str,
    head: Head | None = None,
) -> Response:
    """Read one response; `head`, when given, is its first head, already read."""
    while True:
        version, status, reason, headers, violations = head or _read_head(rec)
        head = None
        if not 100 <= status < 200 or status == 101:
            break
    lowered = [(n.lower(), v) for n, v in headers]
    te = ",".join(v for n, v in lowered if n == "transfer-encoding").lower()
    lengths = [v for n, v in lowered if n == "content-length"]
    for name in sorted(SINGLETON_FIELDS):
        count = sum(1 for n, _ in lowered if n == name)
        if count > 1:
            violations.append(
                f"{count} {name} field lines; the field takes one value (RFC 9110 §5.3)"
            )
    trailers: list[tuple[str, str]] = []
    chunked = False
    tokens = {t.strip().lower() for n, v in lowered if n == "connection" for t in v.split(",")}
    # RFC 9112 §9.3: "If the "close" connection option is present, the connection will not
    # persist after the current response"; an HTTP/1.0 response is not kept either.
    persistent = version == "HTTP/1.1" and "close" not in tokens and status != 101
    if lengths and te:
        # RFC 9112 §6.2: "A sender MUST NOT send a Content-Length header field in any message
        # that contains a Transfer-Encoding header field."
        violations.append(f"Content-Length {lengths!r} beside Transfer-Encoding {te!r}")
    if request_method == "HEAD" or status in (204, 304) or status < 200:
        body = b""
    elif te.strip().endswith("chunked"):
        chunked = True
        chunks = bytearray()
        while True:
            size_line = rec.readline()
            if not size_line:
                raise MessageCutShort("the connection closed before the last chunk")
            m = re.match(rb"([0-9A-Fa-f]+)[ \t]*(;[^\r\n]*)?\r?\n$", size_line)
            if not m:
                raise ResponseError(f"bad chunk size line {size_line[:40]!r}")
            if not CHUNK_LINE.fullmatch(size_line):
                violations.append(
                    f"chunk line {size_line[:40]!r} is not chunk-size [ chunk-ext ] CRLF without "
                    "whitespace (RFC 9112 §7.1; RFC 9110 §5.6.3: no BWS from a sender)"
                )
            size = int(m.group(1), 16)
            if size == 0:
                break
            data = rec.read(size)
            if len(data) != size:
                raise MessageCutShort("the connection closed inside a chunk")
            chunks += data
            after = rec.read(2)
            if len(after) < 2 and b"\r\n".startswith(after):
                raise MessageCutShort("the connection closed after a chunk's data")
            if after != b"\r\n":
                raise ResponseError("a chunk is not followed by CRLF")
        trailers = _field_lines(
            rec, "trailer", violations, "the connection closed inside the trailer section"
        )
        body = bytes(chunks)
    elif lengths:
        # RFC 9112 §6.3: a Content-Length that is the same decimal value repeated, on several
        # lines or as a list, frames the message by that value; the sender broke §8.6 of RFC
        # 9110 (Content-Length = 1*DIGIT) all the same. DIGIT is ASCII only.
        values = {v.strip(OWS) for line in lengths for v in line.split(",")}
        if len(values) != 1 or not re.fullmatch(r"[0-9]+", next(iter(values))):
            raise ResponseError(f"bad Content-Length {lengths!r}")
        if len(lengths) > 1 or "," in lengths[0]:
            violations.append(f"Content-Length {lengths!r} is not one 1*DIGIT (RFC 9110 §8.6)")
        digits = next(iter(values)).lstrip("0") or "0"
        if len(digits) > len(str(rec.limit)):
            # Not converted: int() refuses numerals of thousands of digits.
            raise ResponseTooLarge(
                f"the response runs past {rec.limit} octets (its Content-Length has "
                f"{len(digits)} digits), more than any answer the suite asks for; not read further"
            )
        want = int(digits)
        body = rec.read(want)
        if len(body) != want:
            raise MessageCutShort(f"Content-Length {want} but the connection closed at {len(body)}")
    else:
        # RFC 9112 §6.3: without framing "the message body length is determined by the number
        # of octets received prior to the server closing the connection".
        body = rec.read_all()
        persistent = False
    body, left = _decode_content(headers, body)
    return Response(
        status,
        reason,
        tuple(headers),
        body,
        bytes(rec.seen),
        tuple(trailers),
        chunked,
        persistent,
        tuple(violations),
        left,
    )


#: Content codings the suite's client removes before judging (MB-INTER-2: "A client removes any
#: content coding from a batch response before parsing it"); ``raw`` keeps the coded octets.
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_DECODERS: dict[str, int] = {"gzip": _GZIP_WBITS, "x-gzip": _GZIP_WBITS, "deflate": zlib.MAX_WBITS}
#: The content codings the client removes (RFC 9110 §8.4.1; x-gzip is gzip, §8.4.1.3).
DECODED_CODINGS = frozenset(_DECODERS)


def _decode_content(headers: list[tuple[str, str]], body: bytes) -> tuple[bytes, tuple[str, ...]]:
    """The content with its codings removed, and the codings left on it."""
    codings = [
        c.strip(OWS).lower()
        for n, v in headers
        if n.lower() == "content-encoding"
        for c in v.split(",")
        if c.strip(OWS)
    ]
    # Codings apply in the order listed, so they come off in reverse; an unknown coding stops
    # the decoding and the coded octets are judged as they are.
    while codings:
        coding = codings[-1]
        if coding != "identity":
            wbits = _DECODERS.get(coding)
            if wbits is None:
                break
            try:
                body = zlib.decompress(body, wbits)
            except zlib.error:
                break
        codings.pop()
    return body, tuple(c for c in codings if c != "identity")


#: After octets that are not HTTP, read what else arrives for this long, up to MAX_HEAD octets.
DRAIN_S = 0.5


def drain(sock: socket.socket, reader: Source) -> bytes:
    """What else the peer sends within DRAIN_S (the rest of a response that is not HTTP)."""
    out = bytearray()
    sock.settimeout(DRAIN_S)
    try:
        while len(out) < MAX_HEAD:
            data = reader.read1(MAX_HEAD - len(out))
            if not data:
                break
            out += data
    except OSError:
        pass
    return bytes(out)


def first_line(data: bytes) -> bytes:
    """The octets of `data` before its first CRLF (all of them when it has none).

    A slice, never a split: a split copies everything after the line too, tens of MiB for the
    batches the limit checks send, on every request."""
    end = data.find(b"\r\n")
    return data if end < 0 else data[:end]


def method_of(request: bytes) -> str:
    """The method of a request, as its first octets spell it."""
    end = request.find(b" ")
    return (request if end < 0 else request[:end]).decode("latin-1", "replace")


def exchange(
    host: str,
    port: int,
    request: bytes,
    timeout: float = DEFAULT_TIMEOUT,
    tls: ssl.SSLContext | None = None,
) -> Exchange:
    """Send one request on a new connection and read one response."""
    return pipeline(host, port, [request], timeout, tls)[0]


def _readable(sock: socket.socket, seconds: float) -> bool:
    """Whether the peer sent something (or closed) within `seconds`."""
    pending = getattr(sock, "pending", None)
    if pending is not None and pending():
        return True
    ready, _, _ = select.select([sock], [], [], seconds)
    return bool(ready)


def exchange_after_continue(
    host: str,
    port: int,
    request: bytes,
    hold: float,
    timeout: float = DEFAULT_TIMEOUT,
    tls: ssl.SSLContext | None = None,
) -> tuple[Exchange, str]:
    """Send `request` (which carries `Expect: 100-continue`) on a new connection as a client
    that waits for the interim answer: its head, then its content once a 100 (Continue)
    arrives or `hold` seconds pass without an answer ("a client that sends a 100-continue
    expectation is not required to wait for any specific length of time", RFC 9110 §10.1.1).

    Returns the exchange, its raw record holding any interim answer, and what came before the
    content: "100" (an interim 100), "nothing" (the wait ran out, the content sent anyway) or
    "final" (a final answer; the content is then not sent and the exchange holds the head)."""
    head, sep, body = request.partition(b"\r\n\r\n")
    head += sep
    sock = connect(host, port, timeout, tls)
    reader = sock.makefile("rb")
    rec = _Recorder(reader)
    came = "nothing"
    sent = request
    try:
        try:
            sock.sendall(head)
            first = _read_head(rec) if _readable(sock, hold) else None
            if first is not None and 100 <= first[1] < 200 and first[1] != 101:
                came = "100" if first[1] == 100 else str(first[1])
            elif first is not None:
                came, sent = "final", head
            if came != "final":
                sock.sendall(body)
            resp = _read_response(rec, method_of(request), first)
        except (ResponseError, OSError) as exc:
            error = f"{type(exc).__name__}: {exc}"
            return Exchange(sent, None, error, raw=bytes(rec.seen)), came
        finally:
            reader.close()
    finally:
        sock.close()
    return Exchange(sent, resp), came


def _send_unless_answered(sock: socket.socket, data: bytes, timeout: float) -> bool:
    """Write `data`, as far as the peer reads it, until an answer begins to arrive; True when
    it did before the last octet went out. A peer that neither reads nor answers for `timeout`
    seconds raises TimeoutError."""
    view = memoryview(data)
    while view:
        if _readable(sock, 0):
            return True
        readable, writable, _ = select.select([sock], [sock], [], timeout)
        if readable:
            return True
        if not writable:
            raise TimeoutError(f"the peer read nothing for {timeout:g} s")
        view = view[sock.send(view) :]
    return False


def exchange_until_answered(
    host: str,
    port: int,
    head: bytes,
    pieces: Iterable[bytes],
    hold: float,
    timeout: float = DEFAULT_TIMEOUT,
    tls: ssl.SSLContext | None = None,
) -> tuple[Exchange, int]:
    """Send a request's `head`, wait `hold` seconds for an answer given on the head alone, then
    send its content one piece of `pieces` at a time until an answer begins to arrive (or the
    pieces run out), and read that answer: a client streaming content the server may refuse
    part way, as RFC 9112 §9.6 has a server close after "a final response" to content it will
    not read. A write the server refuses (it closed, or reset the connection) ends the sending,
    and the answer it may have written before is read all the same.

    Returns the exchange, whose request holds the head and the first piece (content sent to be
    refused may run to many megabytes), and how many octets of content went out before the
    answer began."""
    sock = connect(host, port, timeout, tls)
    reader = sock.makefile("rb")
    rec = _Recorder(reader)
    sent = bytearray(head)
    octets = 0
    try:
        try:
            sock.sendall(head)
            if not _readable(sock, hold):
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    for piece in pieces:
                        answered = _send_unless_answered(sock, piece, timeout)
                        if not octets:
                            sent += piece
                        octets += len(piece)
                        if answered:
                            break
            resp = _read_response(rec, method_of(head), None)
        except (ResponseError, OSError) as exc:
            error = f"{type(exc).__name__}: {exc}"
            return Exchange(bytes(sent), None, error, raw=bytes(rec.seen)), octets
        finally:
            reader.close()
    finally:
        sock.close()
    return Exchange(bytes(sent), resp), octets


class HeadFirst:
    """One request on a connection of its own, its answer read in two steps: the head (after
    any interim 1xx) when made, the content with `finish`. Between the two a client may act
    on what the head says while the server is still writing the content.

    `status` and `headers` are None when no head was read; `error` then says why (the
    exchange `finish` returns carries it too)."""

    def __init__(
        self,
        host: str,
        port: int,
        request: bytes,
        timeout: float = DEFAULT_TIMEOUT,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.request = request
        self.status: int | None = None
        self.headers: tuple[tuple[str, str], ...] | None = None
        self.error: str | None = None
        self._head: Head | None = None
        self._sock = connect(host, port, timeout, tls)
        self._reader = self._sock.makefile("rb")
        self._rec = _Recorder(self._reader)
        try:
            self._sock.sendall(request)
            head = _read_head(self._rec)
            while 100 <= head[1] < 200 and head[1] != 101:
                head = _read_head(self._rec)
        except (ResponseError, OSError) as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            return
        self._head = head
        self.status, self.headers = head[1], tuple(head[3])

    def get(self, name: str) -> str | None:
        """The first value of the head's field `name` (None without it or without a head)."""
        lowered = name.lower()
        return next((v for n, v in self.headers or () if n.lower() == lowered), None)

    def finish(self) -> Exchange:
        """Read the rest of the answer and close the connection."""
        try:
            if self._head is None:
                return Exchange(self.request, None, self.error, raw=bytes(self._rec.seen))
            try:
                resp = _read_response(self._rec, method_of(self.request), self._head)
            except (ResponseError, OSError) as exc:
                error = f"{type(exc).__name__}: {exc}"
                return Exchange(self.request, None, error, raw=bytes(self._rec.seen))
            return Exchange(self.request, resp)
        finally:
            self.close()

    def close(self) -> None:
        self._reader.close()
        self._sock.close()


def pipeline(
    host: str,
    port: int,
    requests: list[bytes],
    timeout: float = DEFAULT_TIMEOUT,
    tls: ssl.SSLContext | None = None,
) -> list[Exchange]:
    """Write every request on one connection before reading, then read the answers in order.

    A request that got no answer becomes an Exchange with `error` set; TargetUnreachable and
    TimeoutError propagate only when the connection cannot be made at all.
    """
    sock = connect(host, port, timeout, tls)
    out: list[Exchange] = []
    try:
        try:
            sock.sendall(b"".join(requests))
        except OSError as exc:
            # A server may answer early (e.g. 413) and close; still read what it said.
            err: str | None = f"send failed: {exc}"
        else:
            err = None
        reader = sock.makefile("rb")
        for i, req in enumerate(requests):
            if out and isinstance(out[-1].error, str) and out[-1].error.startswith("TimeoutError"):
                # A silent connection stays silent: the later requests share the timeout
                # rather than each waiting it out again.
                out.extend(Exchange(r, None, out[-1].error) for r in requests[i:])
                break
            try:
                resp = read_response(reader, method_of(req))
            except (ResponseError, OSError) as exc:
                received = getattr(exc, "received", b"")
                if isinstance(exc, ResponseError):
                    # Keep what follows the broken line too: the report saves all of it.
                    received += drain(sock, reader)
                out.append(Exchange(req, None, err or f"{type(exc).__name__}: {exc}", raw=received))
                continue
            out.append(Exchange(req, resp))
        reader.close()
    finally:
        sock.close()
    return out


#: Why a request of `in_turn` was not sent: the answer before it ended the connection.
NOT_SENT = "not sent: the connection ended with the answer before it"


def in_turn(
    host: str,
    port: int,
    requests: list[bytes],
    timeout: float = DEFAULT_TIMEOUT,
    tls: ssl.SSLContext | None = None,
) -> list[Exchange]:
    """Send each request on one connection once the answer before it was read whole, as a
    client that keeps its connection does (RFC 9112 §9.3), and read its answer from where the
    one before ended: octets an answer's framing did not account for (RFC 9112 §6.3) are read
    as the start of the next answer, never set aside. After an answer that could not be read,
    or one that ends the connection (`Response.persistent`), the rest are not sent: each is an
    Exchange whose error says why (`NOT_SENT`, or the earlier error).

    Exchanges are numbered on the connection (`Exchange.kept`, from 1). TargetUnreachable and
    TimeoutError propagate only when the connection cannot be made at all.
    """
    sock = connect(host, port, timeout, tls)
    out: list[Exchange] = []
    try:
        reader = sock.makefile("rb")
        for i, req in enumerate(requests):
            if out and (out[-1].response is None or not out[-1].response.persistent):
                why = out[-1].error if out[-1].response is None else NOT_SENT
                out.extend(
                    Exchange(r, None, why, kept=i + 1 + j) for j, r in enumerate(requests[i:])
                )
                break
            try:
                sock.sendall(req)
            except OSError as exc:
                err: str | None = f"send failed: {exc}"
            else:
                err = None
            try:
                resp = read_response(reader, method_of(req))
            except (ResponseError, OSError) as exc:
                received = getattr(exc, "received", b"")
                if isinstance(exc, ResponseError):
                    received += drain(sock, reader)
                error = err or f"{type(exc).__name__}: {exc}"
                out.append(Exchange(req, None, error, raw=received, kept=i + 1))
                continue
            out.append(Exchange(req, resp, kept=i + 1))
        reader.close()
    finally:
        sock.close()
    return out
