"""pipelined-request-after-empty-line fails a server that takes the CRLF a client writes after
a request's content for a malformed request line.

The relay reads requests with h11, which reads such a line as a request of its own, so the check
is proved here against a stand-in server. It answers GET of any path 200 and POST with a
one-part multipart answer; told to be strict, it refuses an empty line where it expects a
request line with 400 and closes, as a reader that compares the line with an empty request does.
"""

from __future__ import annotations

import socketserver
from collections.abc import Iterator

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.runner import run_check
from tests.conformance._standins import StandIn, serving, standin_context

CHECK = next(c for c in all_checks() if c.id == "pipelined-request-after-empty-line")
BATCH_ANSWER = b"--a\r\nContent-Id: <p0>\r\nHttp-Status-Code: 200\r\nContent-Length: 3\r\n\r\nok\n\r\n--a--\r\n"
REFUSAL = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class _Server(StandIn):
    strict = False


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        while line := self.rfile.readline():
            if line in (b"\r\n", b"\n"):
                if self.server.strict:
                    self.wfile.write(REFUSAL)
                    return
                continue
            length = 0
            while (field := self.rfile.readline()) not in (b"\r\n", b""):
                name, _, value = field.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value.strip())
            self.rfile.read(length)
            if line.startswith(b"POST"):
                head = (
                    b"Content-Type: multipart/mixed; boundary=a\r\nCache-Control: no-transform\r\n"
                )
                body = BATCH_ANSWER
            else:
                head, body = b"Content-Type: text/plain\r\n", b"ok\n"
            length_line = b"Content-Length: %d\r\n\r\n" % len(body)
            self.wfile.write(b"HTTP/1.1 200 OK\r\n" + head + length_line + body)


@pytest.fixture
def standin() -> Iterator[_Server]:
    with serving(_Server(("127.0.0.1", 0), _Handler)) as srv:
        yield srv


def test_a_server_that_ignores_the_empty_line_passes(standin: _Server) -> None:
    assert run_check(CHECK, standin_context(standin, "pipelining")).verdict is Verdict.PASS


def test_a_server_that_refuses_the_empty_line_fails(standin: _Server) -> None:
    standin.strict = True
    result = run_check(CHECK, standin_context(standin, "pipelining"))
    assert result.verdict is Verdict.FAIL
    assert {e.requirement for e in result.judge.failed} == {"MB-PIPE-1"}
