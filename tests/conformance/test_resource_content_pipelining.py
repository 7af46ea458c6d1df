"""pipelining-behind-resource-requests-with-content fails a server that leaves a GET's content
unread.

The relay reads every request whole and forwards each on its own, so it cannot leave content in
a connection; the check is proved here against a stand-in resource server on keep-alive
connections. It answers GET, HEAD and OPTIONS of any path 200 and reads each request's content
by its framing. Told to skip the content of a GET, it reads that content as the start of the
next request and answers it 501, as a handler that reads no content for GET does.
"""

from __future__ import annotations

import socketserver
from collections.abc import Iterator

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.runner import run_check
from tests.conformance._standins import StandIn, serving, standin_context

CHECK = next(c for c in all_checks() if c.id == "pipelining-behind-resource-requests-with-content")
KNOWN = {b"GET", b"HEAD", b"OPTIONS"}


class _Server(StandIn):
    skip_get_content = False


class _Resources(socketserver.StreamRequestHandler):
    server: _Server

    def _content(self, fields: dict[str, str]) -> None:
        if "content-length" in fields:
            self.rfile.read(int(fields["content-length"]))
            return
        if fields.get("transfer-encoding", "").lower() == "chunked":
            while size := int(self.rfile.readline().split(b";")[0].strip(), 16):
                self.rfile.read(size + 2)
            while self.rfile.readline() not in (b"\r\n", b""):
                pass

    def handle(self) -> None:
        while line := self.rfile.readline():
            method = line.split(b" ")[0]
            fields: dict[str, str] = {}
            while (field := self.rfile.readline()) not in (b"\r\n", b""):
                name, _, value = field.decode("latin-1").partition(":")
                fields[name.strip().lower()] = value.strip()
            if not (method == b"GET" and self.server.skip_get_content):
                self._content(fields)
            status = b"200 OK" if method in KNOWN else b"501 Not Implemented"
            body = b"" if method == b"HEAD" else b"ok\n"
            self.wfile.write(
                b"HTTP/1.1 "
                + status
                + b"\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\n"
                + body
            )


@pytest.fixture
def resources() -> Iterator[_Server]:
    with serving(_Server(("127.0.0.1", 0), _Resources)) as srv:
        yield srv


def _context(srv: _Server) -> Context:
    return standin_context(srv, "pipelining")


def test_a_server_reading_the_content_passes(resources: _Server) -> None:
    assert run_check(CHECK, _context(resources)).verdict is Verdict.PASS


def test_a_server_leaving_a_gets_content_unread_fails(resources: _Server) -> None:
    resources.skip_get_content = True
    result = run_check(CHECK, _context(resources))
    assert result.verdict is Verdict.FAIL
    assert {e.requirement for e in result.judge.failed} == {"MB-PIPE-1"}
