"""pipelining-answers-ahead-of-unreadable-request fails a server whose parser error overtakes
the answers ahead of it.

The relay answers each request it reads before it reads the next, so it cannot model a parser
that meets a bad request while an earlier one is still being answered; the check is proved here
against a stand-in server. It answers GET of any path 200 and POST with a one-part multipart
answer, and refuses with 400 and closes a request of one of three kinds: one holding a field line
without a colon or with whitespace before its colon, one whose content is chunked (which it does
not read), and a CONNECT. Told to be eager about some of those kinds, it reads the request after
each one before answering, and on a bad one of such a kind writes the 400 at once and closes, as
a server whose parser runs ahead of its handlers does.
"""

from __future__ import annotations

import select
import socketserver
from collections.abc import Iterator

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.runner import run_check
from tests.conformance._standins import StandIn, serving, standin_context

CHECK = next(c for c in all_checks() if c.id == "pipelining-answers-ahead-of-unreadable-request")
BATCH_ANSWER = b"--a\r\nContent-Id: <p0>\r\nHttp-Status-Code: 200\r\nContent-Length: 3\r\n\r\nok\n\r\n--a--\r\n"
REFUSAL = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
#: Seconds the eager server waits for a request behind the one it holds.
PEEK_S = 0.3

#: What a request is refused for: a field line no server reads, chunked content, a CONNECT.
FIELD, CHUNKED, CONNECT = "field", "chunked", "connect"
#: A request's method and what it is refused for (None when it is answered).
Request = tuple[bytes, str | None]


class _Server(StandIn):
    #: The refusals written as soon as the request is read, ahead of the answers owed.
    eager: frozenset[str] = frozenset()
    #: The methods of the held requests the eager refusals overtake.
    overtaken: frozenset[bytes] = frozenset({b"GET", b"POST"})


class _Handler(socketserver.StreamRequestHandler):
    server: _Server
    #: Unbuffered, so that whether a request waits behind the one held shows on the socket.
    rbufsize = 0

    def _read(self) -> Request | None:
        """(method, fault) of the next request, its content read; None at the end."""
        line = self.rfile.readline()
        if not line:
            return None
        method = line.split(b" ")[0]
        fault, length = (CONNECT if method == b"CONNECT" else None), 0
        while (field := self.rfile.readline()) not in (b"\r\n", b""):
            name, colon, value = field.partition(b":")
            if not colon or name != name.strip():
                fault = FIELD
            elif name.lower() == b"content-length":
                length = int(value.strip())
            elif name.lower() == b"transfer-encoding":
                fault = CHUNKED
        if fault is None:
            self.rfile.read(length)
        return method, fault

    def _answer(self, method: bytes) -> None:
        if method == b"POST":
            head = b"Content-Type: multipart/mixed; boundary=a\r\nCache-Control: no-transform\r\n"
            body = BATCH_ANSWER
        else:
            head, body = b"Content-Type: text/plain\r\n", b"ok\n"
        length = b"Content-Length: %d\r\n\r\n" % len(body)
        self.wfile.write(b"HTTP/1.1 200 OK\r\n" + head + length + body)

    def _peek(self) -> Request | None:
        waiting, _, _ = select.select([self.connection], [], [], PEEK_S)
        return self._read() if waiting else None

    def handle(self) -> None:
        held = self._read()
        while held is not None:
            method, fault = held
            if fault is not None:
                self.wfile.write(REFUSAL)
                return
            eager = self.server.eager and method in self.server.overtaken
            after = self._peek() if eager else None
            if after is not None and after[1] in self.server.eager:
                self.wfile.write(REFUSAL)
                return
            self._answer(method)
            held = after if after is not None else self._read()


@pytest.fixture
def standin() -> Iterator[_Server]:
    with serving(_Server(("127.0.0.1", 0), _Handler)) as srv:
        yield srv


def _context(srv: _Server) -> Context:
    return standin_context(srv, "pipelining")


def test_a_server_answering_in_order_passes(standin: _Server) -> None:
    assert run_check(CHECK, _context(standin)).verdict is Verdict.PASS


@pytest.mark.parametrize("overtaken", [b"GET", b"POST"])
@pytest.mark.parametrize("kind", [FIELD, CHUNKED, CONNECT])
def test_a_server_whose_refusal_overtakes_the_answers_ahead_fails(
    standin: _Server, kind: str, overtaken: bytes
) -> None:
    """Eager behind batches only, or behind standalone GETs only (a server that tracks the
    answers it owes for batches alone), for each kind of request behind."""
    standin.eager = frozenset({kind})
    standin.overtaken = frozenset({overtaken})
    result = run_check(CHECK, _context(standin))
    assert result.verdict is Verdict.FAIL
    assert {e.requirement for e in result.judge.failed} == {"MB-PIPE-1"}
