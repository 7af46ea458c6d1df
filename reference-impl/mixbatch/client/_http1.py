"""The client's HTTP/1.1 connection: the shared pipelining connection (``mixbatch._http.pipeline``)
with the client's framing and its own error.

Each request goes out with Host and the framing the connection computes itself (a caller's
Host, Content-Length, Transfer-Encoding or Connection would conflict with it), and a broken or
truncated response is a ``ConnectionLost``. See the shared module for the theory of operation.
"""

from __future__ import annotations

from mixbatch._http.pipeline import NEED_DATA, End, Event, Head, HttpRequest, PipelinedConnection

from ._errors import ConnectionLost

__all__ = ["NEED_DATA", "End", "Head", "Http1Connection", "HttpRequest"]

#: Fields the connection frames itself; a caller's copies would conflict with h11's.
_FRAMING = frozenset({"host", "content-length", "transfer-encoding", "connection"})
#: Methods whose requests always say how long their content is, even when it is empty.
_CONTENT_METHODS = ("POST", "PUT", "PATCH")


class Http1Connection:
    """The client side of one HTTP/1.1 connection to ``authority`` (``host:port``)."""

    def __init__(self, authority: str) -> None:
        self._authority = authority
        self._conn = PipelinedConnection(error=ConnectionLost)

    @property
    def keep_alive(self) -> bool:
        return self._conn.keep_alive

    @property
    def outstanding(self) -> int:
        """Requests written whose responses have not ended."""
        return self._conn.outstanding

    def send(self, requests: list[HttpRequest]) -> bytes:
        """The octets of ``requests``, written back to back (pipelined when more than one)."""
        return self._conn.send([self._framed(r) for r in requests])

    def _framed(self, request: HttpRequest) -> HttpRequest:
        headers = [("Host", self._authority)]
        headers += [(k, v) for k, v in request.headers if k.lower() not in _FRAMING]
        if request.body or request.method.upper() in _CONTENT_METHODS:
            headers.append(("Content-Length", str(len(request.body))))
        return HttpRequest(request.method, request.target, tuple(headers), request.body)

    def receive_data(self, data: bytes) -> None:
        """Bytes read from the socket; ``b""`` means the peer closed its side."""
        self._conn.receive_data(data)

    def next_event(self) -> Event:
        """The next event of the response at the front of the queue."""
        return self._conn.next_event()
